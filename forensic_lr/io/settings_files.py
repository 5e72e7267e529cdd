"""Read the small JSON and TOML files users write by hand: criteria, verbal scales, counts,
truth tables and lab profiles.

One reader for all of them, so each refuses the same bad input with the same clear message
(exit code 2 on the command line) instead of a traceback:

- a missing file, a folder, or a file that cannot be opened;
- any text encoding that :mod:`forensic_lr.io.text_decoding` accepts is read (UTF-8 with or
  without BOM, UTF-16/32 with BOM, cp1252); UTF-16 without a BOM or binary data is refused;
- invalid syntax, with the line;
- nesting deeper than the interpreter can parse, and integers longer than Python converts
  (both are signs of a damaged or hostile file, never of a real settings file).

The format is chosen by the suffix: ``.toml`` is TOML [1]_, anything else JSON [2]_.

References
----------
.. [1] T. Preston-Werner et al., "TOML v1.0.0" (2021), https://toml.io/en/v1.0.0.
.. [2] T. Bray (ed.), "The JavaScript Object Notation (JSON) Data Interchange Format",
   RFC 8259 (2017).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ..errors import InputError
from .text_decoding import decode_bytes, load_json_bytes, read_input_bytes

__all__ = ["read_settings_file"]


def read_settings_file(path: str | Path, what: str) -> Any:
    """Parse the JSON or TOML file at ``path``; ``what`` names it in messages ("criteria file").

    Raises
    ------
    InputError
        The file is missing or unreadable, not text in a supported encoding, not valid
        JSON/TOML (with the line), nested too deeply or holding a too-long integer.
    """
    path = Path(path)
    data = read_input_bytes(path, what)
    if path.suffix.lower() != ".toml":
        return load_json_bytes(data, str(path), kind=what)
    text, _ = decode_bytes(data, str(path))
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"is not a valid {what} ({exc})", path=str(path)) from None
    except RecursionError:
        raise InputError(
            f"is nested too deeply to read; a {what} needs at most a few levels of tables",
            path=str(path),
        ) from None
    except ValueError as exc:  # a TOML integer longer than Python converts
        raise InputError(f"is not a usable {what} ({exc})", path=str(path)) from None
