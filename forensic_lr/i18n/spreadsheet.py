"""CSV text as a locale's spreadsheet program reads it (``summary.csv``, ``validate --csv``).

The CSV files the tool writes are comma-separated with a decimal point by default
(RFC 4180 [1]_; what every program reads). A spreadsheet in a locale whose decimal mark is
a comma (de, es, fr, nl, sv in CLDR) splits such a file's numbers apart: there the list
separator is a semicolon and numbers are written ``0,25``. With ``language`` set,
:func:`csv_text` writes that form: cells separated by ``;`` and the locale's decimal mark
in every number cell (Babel's CLDR symbol, :func:`forensic_lr.i18n.formatting.
number_symbols`), no thousands separators, so that a number reads back as one value (the
score-file reader, :mod:`forensic_lr.io.tables`, refuses a number holding both marks).
Column names and text cells are written as given; English is the comma form, byte for byte.

References
----------
.. [1] Y. Shafranovich, "Common Format and MIME Type for Comma-Separated Values (CSV)
   Files", RFC 4180 (2005).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from . import SOURCE_LANGUAGE, supported
from .formatting import number_symbols

__all__ = ["csv_conventions", "csv_text"]


def csv_conventions(language: str = SOURCE_LANGUAGE) -> tuple[str, str]:
    """``(delimiter, decimal mark)`` of a CSV file for ``language``'s spreadsheets.

    English: ``(",", ".")``. A language whose CLDR decimal mark is a comma: ``(";", ",")``
    (the comma is then the decimal mark, so the list separator is the semicolon).
    """
    if supported(language) == SOURCE_LANGUAGE:
        return ",", "."
    decimal = number_symbols(language)[0]
    return (";" if decimal == "," else ","), decimal


def csv_text(rows: Iterable[Sequence], language: str = SOURCE_LANGUAGE) -> str:
    """CSV text of ``rows`` (the header first), lines ending in ``\\n``, quoted as RFC 4180.

    A ``float`` cell is written as Python's shortest round-trip text (``repr``: ``float``
    of it gives the value back exactly, ``inf``/``-inf`` as such) with ``language``'s
    decimal mark; ``None`` as an empty cell; any other value as ``str(value)``.
    """
    delimiter, decimal = csv_conventions(language)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for row in rows:
        writer.writerow([_cell(value, decimal) for value in row])
    return out.getvalue()


def _cell(value, decimal: str) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value).replace(".", decimal)
    return str(value)
