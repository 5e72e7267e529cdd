"""Read the cells of an Excel workbook (``.xlsx``) as text rows, refusing active content.

A workbook is a ZIP archive of XML parts (ECMA-376 Office Open XML [1]_); it is read with
openpyxl in read-only mode, row by row, cell values by their *cached* results
(``data_only``): a formula cell gives the value the spreadsheet program last computed and
saved, never a re-evaluation. Refused, with a message that says what to do:

* a formula cell without a saved value (a workbook written by a program that does not
  compute formulas, such as openpyxl or pandas): its value is unknown, so the sheet is
  refused naming the cell, never read with that cell left out. Only a sheet whose XML
  holds a formula (an ``<f>`` element) is read a second time to find its formulas;
* a part that declares more than :data:`MAX_PART_BYTES` unpacked (a ZIP bomb, or far
  more cells than a score table holds), from the archive's directory before unpacking;
* macro-enabled workbooks (``.xlsm``, or a ``xl/vbaProject.bin`` part) and the old binary
  ``.xls`` format;
* workbooks with external links (``xl/externalLinks/``): their cached values come from
  another file that is not part of the record;
* a damaged or non-workbook file, and a sheet name that does not exist.

The size a sheet declares (its ``<dimension>``) is ignored: it may be too small (rows would
be lost) or reach the sheet's last cell (XFD1048576: sixteen billion empty cells). Rows are
read as the file holds them; a gap of empty rows costs one step per row and a row is only
as wide as its last cell, so the work is bounded by the cells the file really holds.

Cells become the text a score file would hold, so one set of rules reads both: numbers
as the shortest text that gives back the same double (``repr``, exact), text as is, empty
cells as ``""``, booleans as ``TRUE``/``FALSE`` (never the number 1 or 0), dates in ISO
form. Numbers typed as text with a decimal comma are therefore read like a CSV's.

References
----------
.. [1] ECMA-376, "Office Open XML File Formats", 5th ed. (2021), Part 1, sections 12.3
   (package parts) and 18.3.1.4 (cell values and cached formula results).
"""

from __future__ import annotations

import datetime
import io
import re
import zipfile
from collections.abc import Iterator

from ..errors import InputError, excerpt
from ..limits import LIMITS

#: file name endings read as workbooks, and those refused with a hint
WORKBOOK_SUFFIXES = (".xlsx",)
REFUSED_SUFFIXES = {
    ".xlsm": "is a macro-enabled workbook; save a copy as .xlsx (without macros) or as CSV",
    ".xlsb": "is a binary workbook; save a copy as .xlsx or as CSV",
    ".xls": "is an old-format (.xls) workbook; save a copy as .xlsx or as CSV",
    ".ods": "is an OpenDocument spreadsheet; save a copy as .xlsx or as CSV",
}


def _cell_text(value, comma: bool) -> str:
    """The text of one cell value (see the module docstring); ``comma``: decimal comma."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return repr(value).replace(".", ",") if comma else repr(value)
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    return str(value)


#: the largest unpacked size of one part of a workbook (1 GiB of XML: some ten million
#: cells, far more than a score table holds; a larger one is damaged or a ZIP bomb)
MAX_PART_BYTES = LIMITS["workbook_part_bytes"].most

#: an ``<f>`` (formula) element, with or without a namespace prefix
_FORMULA_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?f[\s>/]")
_FIX_FORMULAS = ("open the workbook in Excel or LibreOffice and save it so the values are "
                 "stored, or export the sheet as CSV")


def _has_formulas(data: bytes) -> bool:
    """Whether any worksheet part holds a formula element (streamed, 1 MiB at a time)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            tail = b""
            with archive.open(name) as part:
                while block := part.read(1 << 20):
                    if _FORMULA_TAG.search(tail + block):
                        return True
                    tail = block[-64:]
    return False


def _unsaved_formula(values: tuple, cells: tuple) -> int | None:
    """1-based column of the first formula cell whose saved value is missing, else None."""
    for column, (value, cell) in enumerate(zip(values, cells, strict=False), start=1):
        if value is None and getattr(cell, "data_type", None) == "f":
            return column
    return None


def column_letter(column: int) -> str:
    """The spreadsheet's name of a 1-based column: 1 -> ``A``, 28 -> ``AB``."""
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _describe(exc: Exception) -> str:
    """A short description of a parser's exception for a message."""
    return excerpt(f"{type(exc).__name__}: {exc}", 80)


def _check_parts(data: bytes, path: str) -> None:
    """Refuse archives that are not workbooks, macros, external links and parts declaring
    more than :data:`MAX_PART_BYTES` unpacked (checked in the archive's directory, before
    anything is unpacked: a ZIP reader stops at the declared size)."""
    try:
        parts = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except zipfile.BadZipFile:
        raise InputError(
            "is not a readable .xlsx workbook (not a ZIP archive, or damaged); open it in "
            "the spreadsheet program and save it again, or save it as CSV",
            path=path,
        ) from None
    names = [part.filename for part in parts]
    huge = next((part for part in parts if part.file_size > MAX_PART_BYTES), None)
    if huge is not None:
        raise InputError(
            f"its part {excerpt(huge.filename)} declares {huge.file_size:,} bytes unpacked, "
            f"above the limit of {MAX_PART_BYTES:,} bytes (some ten million cells; or the "
            "archive is damaged or built to be unpacked without end); save the sheet as CSV "
            "(the limits: `forensic-lr docs limits`)", path=path)
    if "xl/workbook.xml" not in names:
        raise InputError(
            "is a ZIP archive but not an .xlsx workbook (no xl/workbook.xml part); save the "
            "sheet as .xlsx or CSV",
            path=path,
        )
    if any(n.lower() == "xl/vbaproject.bin" for n in names):
        raise InputError(REFUSED_SUFFIXES[".xlsm"], path=path)
    if any(n.lower().startswith("xl/externallinks/") for n in names):
        raise InputError(
            "has links to other workbooks, whose values are not part of this file; copy "
            "the values (paste as values) into a workbook without links, or save as CSV",
            path=path,
        )


def workbook_rows(
    data: bytes, path: str, sheet: str | None, *, comma: bool = False
) -> tuple[str, Iterator[tuple[int, list[str]]]]:
    """``(sheet name, rows)`` of a workbook's bytes: the first sheet or the named one.

    ``rows`` yields ``(row number, cell texts)`` for every row with at least one non-empty
    cell, trailing empty cells removed; row numbers are those the spreadsheet shows. A
    formula cell without a saved value stops the rows with an :class:`InputError` naming
    the sheet and cell.
    ``comma``: write numbers with a decimal comma, for a workbook whose numbers typed as
    text use one (``decimal=","``), so that one rule reads both kinds of cell.

    Raises
    ------
    InputError
        Refused content (module docstring), a damaged workbook, an unknown sheet name.
    """
    _check_parts(data, path)
    book = _open(data, path, cached=True)
    names = book.sheetnames
    if sheet is None:
        chosen = names[0]
    elif sheet in names:
        chosen = sheet
    else:
        raise InputError(
            f"has no sheet {excerpt(sheet)} (sheets: {', '.join(map(repr, names))}); choose "
            "one of these",
            path=path,
        )
    worksheet = book[chosen]
    if not hasattr(worksheet, "iter_rows"):
        raise InputError(f"sheet {chosen!r} is a chart, not a table of cells", path=path)
    worksheet.reset_dimensions()  # rows as the file holds them (module docstring)
    books, formulas = [book], None
    if _has_formulas(data):
        books.append(_open(data, path, cached=False))
        formula_sheet = books[-1][chosen]
        formula_sheet.reset_dimensions()
        formulas = formula_sheet.iter_rows()

    def rows() -> Iterator[tuple[int, list[str]]]:
        try:
            for number, values in enumerate(worksheet.iter_rows(values_only=True), start=1):
                column = None if formulas is None else _unsaved_formula(
                    values, next(formulas, ()))
                if column is not None:
                    raise InputError(
                        f"sheet {chosen!r}, cell {column_letter(column)}{number}: the "
                        "formula in this cell has no saved value (the workbook was written by "
                        f"a program that does not compute formulas); {_FIX_FORMULAS}",
                        path=path,
                    )
                cells = [_cell_text(v, comma) for v in values]
                while cells and cells[-1].strip() == "":
                    cells.pop()
                if cells:
                    yield number, cells
        except InputError:
            raise
        except Exception as exc:  # damaged sheet XML found while streaming
            raise InputError(
                f"sheet {chosen!r} is damaged ({_describe(exc)}); open the workbook and save "
                "it again, or save the sheet as CSV",
                path=path,
            ) from None
        finally:
            for opened in books:
                opened.close()

    return chosen, rows()


def _open(data: bytes, path: str, *, cached: bool):
    """The workbook in read-only mode: cell values as saved (``cached``), or formulas."""
    from openpyxl import load_workbook  # imported only when a workbook is read

    try:
        return load_workbook(io.BytesIO(data), read_only=True, data_only=cached)
    except Exception as exc:  # openpyxl raises many types on damaged XML: all mean "damaged"
        raise InputError(
            f"is not a readable .xlsx workbook ({_describe(exc)}); open it in the "
            "spreadsheet program and save it again, or save it as CSV",
            path=path,
        ) from None
