"""Rows of a small delimited text file whose cells are words, not scores.

The fusion analysis (decisions, labels, truth tables) and the label-noise analysis
(assessors' judgements) read tables of 0/1 codes and names. Their rows go through this one
reader, so both accept what score files accept - any encoding of
:mod:`forensic_lr.io.text_decoding`, ``#`` comment lines, blank lines, a comma, semicolon
or tab delimiter chosen from the first line, fields in double quotes (RFC 4180 [1]_) - and
refuse a damaged line with its number instead of a traceback.

References
----------
.. [1] Y. Shafranovich, "Common Format and MIME Type for Comma-Separated Values (CSV)
   Files", RFC 4180 (2005), section 2.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..errors import InputError
from .text_decoding import decode_bytes, read_input_bytes

__all__ = ["read_rows"]


def read_rows(path: str | Path) -> list[tuple[int, list[str]]]:
    """The non-blank, non-comment rows of a delimited text file, fields stripped of blanks.

    Returns ``[(line_number, fields), ...]`` with 1-based line numbers as an editor shows
    them. The delimiter is a tab if the first row holds one, else ``;`` if it holds a
    semicolon and no comma, else a comma.

    Raises
    ------
    InputError
        Missing or unreadable file, an unsupported encoding, no rows, or a line the CSV
        rules cannot split (an unclosed quote, a field longer than the parser's limit).
    """
    p = Path(path)
    text, _ = decode_bytes(read_input_bytes(p, "CSV file"), str(p))
    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError("the file has no rows", path=str(p))
    head = lines[0][1]
    delimiter = "\t" if "\t" in head else ";" if ";" in head and "," not in head else ","
    rows = []
    for number, line in lines:
        try:
            (fields,) = csv.reader([line], delimiter=delimiter, strict=True)
        except csv.Error as exc:
            limit = csv.field_size_limit()
            cause = (f"a field is longer than {limit:,} characters" if "field larger" in str(exc)
                     else "a quote is not closed or is followed by other text")
            raise InputError(
                f"cannot split the line into fields ({cause}); write one short value per "
                "field and quote a field only as a whole, e.g. \"A\"",
                path=str(p),
                line=number,
            ) from None
        rows.append((number, [field.strip() for field in fields]))
    return rows
