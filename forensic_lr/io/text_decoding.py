"""Decode the bytes of an input file to text, naming the encoding that was used.

Score files come from many programs: UTF-8 with or without a byte-order mark (BOM),
UTF-16/UTF-32 with a BOM (Excel's "Unicode text"), and Windows-1252 / Latin-1 from older
spreadsheet exports. The rules, in order:

1. a BOM names the encoding (``utf-8-sig``, ``utf-16``, ``utf-32``);
2. bytes with a NUL and no BOM are refused (UTF-16 without a BOM, or not a text file);
3. valid UTF-8 is UTF-8 (ASCII is reported as ``utf-8``);
4. otherwise Windows-1252 (``cp1252``), or Latin-1 (``latin-1``) when a byte is one of
   the five that cp1252 leaves undefined.

UTF-8 is tried first because a non-ASCII text in a single-byte encoding is almost never
valid UTF-8 (multi-byte sequences must follow a strict pattern [1]_), while every byte
string is valid Latin-1.

References
----------
.. [1] F. Yergeau, "UTF-8, a transformation format of ISO 10646", RFC 3629 (2003), section 4.
"""

from __future__ import annotations

import codecs
import json
import sys

from ..errors import InputError, excerpt
from .paths import input_file

#: byte-order marks, longest first (the UTF-32-LE mark starts with the UTF-16-LE one)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

#: the single-byte encodings tried, in order, when the bytes are not UTF-8
FALLBACK_ENCODINGS = ("cp1252", "latin-1")

def bom_encoding(head: bytes) -> str | None:
    """The encoding named by a byte-order mark at the start of ``head``, else None."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return None


def refuse_binary(head: bytes, path: str) -> None:
    """Raise :class:`InputError` for bytes that are not text in a supported encoding.

    ``head`` is the start of the file (without a BOM). A ZIP signature means a spreadsheet
    (``.xlsx``) or another archive saved under a text name; a NUL byte means UTF-16 or
    UTF-32 without a byte-order mark, or a binary file.
    """
    if head.startswith(b"PK\x03\x04"):
        raise InputError(
            "is a ZIP archive (an .xlsx workbook?), not a text file; give it the .xlsx "
            "extension, or save it as CSV",
            path=path,
        )
    if b"\x00" in head:
        raise InputError(
            "is not a text file in a supported encoding (it holds NUL bytes: UTF-16 "
            "without a byte-order mark, or a binary file); save it as CSV in UTF-8",
            path=path,
        )


def read_input_bytes(path, what: str) -> bytes:
    """The whole content of an input file; ``what`` names it in messages ("criteria file").

    Raises
    ------
    InputError
        The file is missing, is not a regular file (a folder, pipe or device), or cannot be
        read (with the system's reason): :func:`~forensic_lr.io.paths.input_file`.
    """
    path = input_file(path, what)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the {what} ({exc.strerror})", path=str(path)) from None


def decode_bytes(data: bytes, path: str) -> tuple[str, str]:
    """Decode a whole file: ``(text, encoding)`` by the rules of the module docstring."""
    encoding = bom_encoding(data[:4])
    if encoding is not None:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError as exc:
            raise InputError(
                f"starts with a {encoding} byte-order mark but byte {exc.start} is not "
                f"{encoding}; save the file again as UTF-8",
                path=path,
            ) from None
    refuse_binary(data[:4096], path)
    for name in ("utf-8", *FALLBACK_ENCODINGS):
        try:
            return data.decode(name), name
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


def load_json_bytes(data: bytes, path: str, kind: str = "score file"):
    """Parse a JSON file's bytes (any encoding above) into Python objects.

    ``kind`` names the file in messages ("score file", "criteria file" ...).

    Raises
    ------
    InputError
        Invalid JSON (with the line), nesting deeper than the interpreter's recursion
        limit, an integer with more digits than Python converts (4,300), or an undecodable file.
    """
    text, _ = decode_bytes(data, path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"is not valid JSON ({exc.msg})", path=path, line=exc.lineno) from None
    except RecursionError:
        raise InputError(
            f"JSON is nested too deeply to read; a {kind} needs at most a few levels of "
            "lists and objects",
            path=path,
        ) from None
    except ValueError as exc:
        digits = "integer string conversion" in str(exc)
        cause = (
            f"an integer has more than {sys.get_int_max_str_digits():,} digits" if digits
            else excerpt(str(exc), 60)
        )
        raise InputError(
            f"is not usable JSON ({cause}); write numbers as plain decimals such as 1.5 or "
            "2.1e-3",
            path=path,
        ) from None
