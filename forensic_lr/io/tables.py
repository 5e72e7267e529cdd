"""Read chosen columns of a score table - delimited text, an .xlsx sheet or a Parquet file
(:mod:`forensic_lr.io.parquet`, with the optional pyarrow) - in one pass.

A table is read once, as a stream of blocks (1 MiB of text, or 65,536 sheet rows): each
block is split into cells, the wanted columns are converted (numbers, SS/DS labels, text)
and checked, and the file's SHA-256 is computed from the very bytes that were parsed. A
problem stops the read at the block where it occurs, so a bad value on the last of ten
million lines is reported after one pass in bounded memory (the parsed columns and one
block), with one message that counts the lines sharing the problem.

Text rules
----------
* **Encoding**: :mod:`forensic_lr.text_decoding` (UTF-8 with or without BOM, UTF-16/32
  with a BOM, else cp1252 / Latin-1), named in the provenance.
* **Lines**: ``\\n``, ``\\r\\n`` or ``\\r`` end a line; a line whose first non-blank
  character is ``#`` is a comment; blank lines are skipped; line numbers count every line,
  as an editor shows them. A ``#`` anywhere else is part of the value (``case0#spk3`` is
  one source id, never ``case0`` and a comment); a value that starts a line with ``#`` is
  written in double quotes (``"#3",1.5``).
* **Delimiter**: a tab for ``.tsv``; else the first data line decides, in the order tab,
  ``;``, ``,``; else runs of blanks. With ``decimal=","``, a comma delimits only a line
  that is neither one number (``1,5``) nor split by blanks (``ss 1,5``); decimals in a
  comma-separated file are then quoted (``ss,"1,5"``). ``delimiter=`` overrides it.
* **Quotes**: a field may be enclosed in double quotes (``""`` is a quote inside it); a
  quote that opens a field must close it right before the delimiter (RFC 4180 [1]_). A
  quote anywhere else leaves the value as written, which is then not a number. In a
  blank-separated file (or a file of one column) a value may be enclosed in one pair of
  quotes, and may not hold blanks.
* **Decimal separator**: ``decimal=","`` or ``"."``; by default a point, except in
  ``;``-separated files (the export of spreadsheets in locales writing ``1,5``), where the
  first number written with a separator decides. One file uses one separator: a point in
  a comma file, a comma in a point file, or a value holding both (``1.234,5``: a thousands
  separator) is an error, never a guess.
* **Header**: the first data line is a header when none of its values is a number (so
  ``label,score`` is a header, ``ss,2.1`` and ``1.5`` are data). Column names are matched
  without regard to case or surrounding blanks.
* **Width**: every row has exactly as many fields as the header (or the first row): a row
  with more or fewer fields is an error, never truncated (``ss,5,3072`` under a
  ``label,score`` header is a decimal comma, not the score 5).

A number is what Python's ``float`` reads from ASCII text, without digit-group underscores
(``1_000`` is refused); NaN, infinities and values that overflow to infinity (``1e400``)
are refused.

References
----------
.. [1] Y. Shafranovich, "Common Format and MIME Type for Comma-Separated Values (CSV)
   Files", RFC 4180 (2005), section 2.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError, excerpt
from ..limits import LIMITS
from ..records import Serialisable
from .parquet import PARQUET_SUFFIXES, ParquetTable
from .spreadsheet import REFUSED_SUFFIXES, WORKBOOK_SUFFIXES, column_letter, workbook_rows
from .text_decoding import FALLBACK_ENCODINGS, bom_encoding, refuse_binary

SS_LABELS = frozenset({"1", "ss", "same", "same-source", "same_source", "target", "true", "hp"})
DS_LABELS = frozenset(
    {
        "0",
        "ds",
        "different",
        "different-source",
        "different_source",
        "nontarget",
        "non-target",
        "non_target",
        "false",
        "hd",
    }
)
_SS_LIST, _DS_LIST = sorted(SS_LABELS), sorted(DS_LABELS)
_LABEL_WIDTH = 24  # characters read for a label on the fast path (known labels <= 16)
LABEL_HELP = "use 1/0, ss/ds, same/different, target/nontarget or true/false"
DECIMAL_HELP = 'use decimal = "," (case file) or --decimal ,'

_BLOCK_BYTES = 1 << 20
_SHEET_ROWS = 1 << 16
_DELIMITER_NAMES = {",": ",", ";": ";", "\t": "tab", "|": "|", None: "whitespace"}


@dataclass(frozen=True)
class InputProvenance(Serialisable):
    """What was read from one input file, for the record of a result.

    ``sha256`` and ``size`` are those of the file's original bytes (exactly the bytes that
    were parsed), whatever decoding or conversion happened in memory.

    Attributes
    ----------
    name : str
        The path as given.
    size : int
        Bytes.
    sha256 : str
        SHA-256 hex digest of the bytes [1]_.
    format : str
        ``"text"``, ``"xlsx"``, ``"parquet"``, ``"json"`` or ``"npy"``.
    encoding, delimiter, decimal, sheet : str or None
        As detected or chosen (None where they do not apply); the delimiter as ``","``,
        ``";"``, ``"tab"``, ``"|"`` or ``"whitespace"``.
    header : bool or None
        Whether the table has a header line.
    columns : dict
        Role (``"score"``, ``"label"``, ``"source"``, ...) -> the column used, by its name in
        the file or as ``"column N"`` (1-based).
    rows : int
        Data rows (or array elements / JSON items) read.

    References
    ----------
    .. [1] NIST FIPS 180-4, "Secure Hash Standard" (2015).
    """

    name: str
    size: int
    sha256: str
    format: str
    encoding: str | None = None
    delimiter: str | None = None
    decimal: str | None = None
    sheet: str | None = None
    header: bool | None = None
    columns: dict[str, str] = field(default_factory=dict)
    rows: int = 0


def read_bytes(path) -> tuple[bytes, str, int]:
    """``(bytes, sha256, size)`` of a whole file (for formats parsed from memory)."""
    data = Path(path).read_bytes()
    return data, hashlib.sha256(data).hexdigest(), len(data)


@dataclass(frozen=True)
class Column:
    """A column wanted from a table.

    Parameters
    ----------
    role : str
        Its name in results and messages (``"score"``, ``"label"``, ``"source_a"``, ...).
    kind : {"number", "label", "text"}
        Finite float64, SS/DS label (True for SS), or text (blanks stripped).
    choice : str or int, optional
        The user's choice: a header name, or a 1-based position.
    names : tuple of str
        Header names that select it when there is no ``choice`` (case-insensitive).
    position : int, optional
        0-based position in a file without a header (when there is no ``choice``).
    required : bool
        Whether a table without this column is an error (else the role is absent).
    option : str
        The parameter that chooses it (``"score_column"``), named in messages.
    """

    role: str
    kind: str
    choice: str | int | None = None
    names: tuple[str, ...] = ()
    position: int | None = None
    required: bool = True
    option: str = ""


#: a layout: the columns wanted, given the header (None without one), the row width and a
#: function that raises an :class:`InputError` at the first row (for impossible layouts)
Layout = Callable[[list[str] | None, int, Callable[[str], None]], Sequence[Column]]


@dataclass(frozen=True, eq=False)
class Table:
    """The columns read from one table.

    ``values`` maps each role to a float64 array (numbers), a bool array (labels: True for
    SS) or a str array (text); ``where`` holds the 1-based line (text) or row (sheet) of
    each record, ``unit`` says which.
    """

    values: dict[str, np.ndarray]
    where: np.ndarray
    unit: str
    location: str
    provenance: InputProvenance


class _WrongEncoding(Exception):
    """The bytes are not in the encoding being tried: read again with the next one."""


def _is_numberlike(text: str, comma: bool) -> bool:
    text = text.strip().strip('"')
    if comma:
        text = text.replace(",", ".", 1)
    try:
        float(text)
    except ValueError:
        return False
    return True


def names(header: Sequence[str], most: int = 8) -> str:
    """Column names for a message: plain when short and printable, else short quoted
    excerpts; at most ``most`` of them (a message never echoes a whole line)."""
    shown = [h if len(h) <= 24 and h.isprintable() else excerpt(h, 16) for h in header[:most]]
    more = len(header) - most
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def content(line: str) -> str:
    """A line without surrounding blanks; "" for a blank line or a ``#`` comment line.

    Only a whole line is a comment: a ``#`` after the first non-blank character belongs
    to the value (ids such as ``case0#spk3`` are read as written).
    """
    stripped = line.strip()
    return "" if stripped.startswith("#") else stripped


COMMENT_HINT = ("'#' starts a comment only as the first character of a line; move the "
                "comment to a line of its own")

#: a comment line: ``#`` as the first non-blank character of a line
_COMMENT_LINE = re.compile(r"^[ \t\f\v]*#", re.MULTILINE)


class _Reader:
    """Turns blocks of rows into checked columns (one instance per attempt at a file)."""

    def __init__(self, path: str, location: str, unit: str, layout: Layout,
                 decimal: str | None, delimiter: str | None, auto_comma: bool) -> None:
        self.path = path
        self.location = location
        self.unit = unit
        self.layout = layout
        self.decimal = decimal
        self.delimiter = delimiter
        self.auto_comma = auto_comma
        self.header: list[str] | None = None
        self.width = 0
        self.columns: list[tuple[Column, int]] | None = None
        self.parts: dict[str, list[np.ndarray]] = {}
        self.where: list[np.ndarray] = []
        self.decimal_seen: tuple[int, str] | None = None  # where and what set the decimal

    # ------------------------------------------------------------------ messages
    def fail(self, message: str, where: int | None = None, column: str | None = None):
        if self.unit == "line":
            raise InputError(message, path=self.location, line=where, column=column)
        place = self.location if where is None else f"{self.location}, row {where}"
        raise InputError(message, path=place, column=column)

    def fail_rows(self, message: str, where: np.ndarray, bad: np.ndarray, column: str | None,
                  last: bool) -> None:
        """One error for all rows of a block with the same problem (``bad``: their indices)."""
        more = int(bad.size) - 1
        if more:
            scope = "" if last else f" up to {self.unit} {int(where[-1])}"
            message += f" ({more:,} more {self.unit}(s){scope} have the same problem)"
        self.fail(message, int(where[bad[0]]), column)

    # ------------------------------------------------------------------ first row
    def start(self, first: list[str], where: int | None, named: bool = False) -> None:
        """Header, width and the columns wanted, from the first data row (``named``: it
        is the header whatever it holds, as a Parquet file's column names)."""
        comma = self.decimal == "," or (self.decimal is None and self.auto_comma)
        most = LIMITS["table_columns"].most
        if len(first) > most:
            self.fail(f"has {len(first):,} columns, above the limit of {most:,} columns; give "
                      "one row per line with the columns the command reads", where)
        cells = [c.strip() for c in first]
        numberlike = not named and any(_is_numberlike(c, comma) for c in cells)
        self.header = None if numberlike else cells
        self.width = len(cells)
        if self.header is not None:
            lowered = [h.lower() for h in self.header]
            repeated = sorted({h for h in lowered if lowered.count(h) > 1 and h})
            if repeated:
                self.fail(
                    f"the header names column {excerpt(repeated[0])} twice; give every column "
                    "its own name",
                    where,
                )
        comment = "; " + COMMENT_HINT if any("#" in c for c in cells) else ""
        self.columns = [
            (col, index)
            for col in self.layout(
                self.header, self.width, lambda message: self.fail(message + comment, where)
            )
            if (index := self.resolve(col, where)) is not None
        ]
        self.parts = {col.role: [] for col, _ in self.columns}
        if len(self.parts) != len(self.columns):
            raise ValueError("a layout named one role twice")  # a bug, not a user mistake

    def named(self, index: int) -> str:
        """A column as the file names it, else by its 1-based position."""
        if self.header is not None and self.header[index]:
            return self.header[index]
        return f"column {index + 1}"

    def label(self, col: Column, index: int) -> str:
        """A column for messages: its header name, else its role (``score``)."""
        return self.header[index] if self.header is not None else col.role

    def resolve(self, col: Column, where: int) -> int | None:
        """0-based index of a wanted column, None for an absent optional one."""
        header_line = where if self.unit == "line" else None
        if isinstance(col.choice, int) and not isinstance(col.choice, bool):
            if not 1 <= col.choice <= self.width:
                self.fail(
                    f"{col.option} = {col.choice}: the file has {self.width} column(s); "
                    f"give a position from 1 to {self.width}",
                    header_line,
                )
            return col.choice - 1
        if col.choice is not None:
            wanted = str(col.choice).strip().lower()
            if self.header is None:
                self.fail(
                    f"{col.option} = {excerpt(col.choice)}: the file has no header line to "
                    f"find it by name; give its position instead (1 to {self.width})",
                    header_line,
                )
            lowered = [h.lower() for h in self.header]
            if wanted not in lowered:
                self.fail(
                    f"has no {excerpt(col.choice)} column (columns: {names(self.header)}); "
                    f"check {col.option}",
                    header_line,
                )
            return lowered.index(wanted)
        if self.header is not None and col.names:
            lowered = [h.lower() for h in self.header]
            for name in col.names:
                if name in lowered:
                    return lowered.index(name)
            if not col.required:
                return None
            self.fail(
                f"has no {col.role!r} column (columns: {names(self.header)}); "
                f"name it {col.role!r} in the header line or choose it with {col.option}",
                header_line,
            )
        if col.position is not None and col.position < self.width:
            return col.position
        if not col.required:
            return None
        self.fail(
            f"has {self.width} value(s) per line and no header; expected a {col.role} value "
            f"in column {(col.position or 0) + 1}; add a header line naming the columns",
            header_line,
        )
        return None  # pragma: no cover - fail raises

    # ------------------------------------------------------------------ blocks
    def add(self, cells: np.ndarray, where: np.ndarray, last: bool, ascii_: bool) -> None:
        """Convert and keep the wanted columns of a block (``cells``: ``(m, width)`` str;
        ``ascii_``: the block is known to be ASCII text)."""
        if cells.shape[0] == 0:
            return
        self.add_columns({index: cells[:, index] for _, index in self.columns}, where, last,
                         ascii_)

    def add_columns(self, cells: dict[int, np.ndarray], where: np.ndarray, last: bool,
                    ascii_: bool) -> None:
        """Convert and keep the wanted columns of a block, given column by column (column
        index -> str cells, or float64 for numbers stored as numbers, which need only be
        finite)."""
        for col, index in self.columns:
            values = cells[index]
            if values.dtype == np.float64:
                if col.kind != "number":  # pragma: no cover - sources give text for these
                    raise ValueError("numbers given for a column read as text")
                if not np.isfinite(values).all():
                    self.finite(values, values.astype(str), where, self.label(col, index),
                                last)
                self.parts[col.role].append(values)
                continue
            values = np.strings.strip(values)
            if self.delimiter is None:
                values = _unquote(values)
            if col.kind == "number":
                out = self.numbers(values, where, self.label(col, index), last, ascii_)
            elif col.kind == "label":
                out = self.labels(values, where, self.label(col, index), last)
            else:
                out = values
            self.parts[col.role].append(out)
        self.where.append(where)

    def add_fast(self, lines: list[str], where: np.ndarray, last: bool) -> bool:
        """Read a plain block (no quotes, decimal point) with ``numpy.loadtxt``'s C float
        parser; False when anything is unusual, and the block is read by :meth:`add`.

        loadtxt's float syntax is the module's (ASCII, no underscores: checked in
        ``tests/test_readers_io.py``), so both paths give the same numbers; the other path
        names the line and value of any problem.
        """
        kinds: dict[int, set[str]] = {}
        for col, index in self.columns:
            kinds.setdefault(index, set()).add(col.kind)
        if any(len(k) > 1 and "number" in k for k in kinds.values()):
            return False
        types = {frozenset({"number"}): "f8", frozenset({"label"}): f"U{_LABEL_WIDTH}"}
        dtype = [
            (f"f{i}", types.get(frozenset(kinds.get(i, ())), object)) for i in range(self.width)
        ]
        if not any(lines):
            return False  # nothing but empty lines: nothing for loadtxt to read
        try:
            table = _loadtxt(lines, dtype=dtype, delimiter=self.delimiter, ndmin=1)
        except ValueError:
            return False
        if table.shape[0] != len(lines):  # pragma: no cover - one row per line
            return False
        out = {}
        for col, index in self.columns:
            field = table[f"f{index}"]
            if col.kind == "number":
                if not np.isfinite(field).all():
                    return False
                out[col.role] = np.ascontiguousarray(field)
                continue
            field = field.astype(str, copy=False)
            if col.kind == "label":
                if (np.strings.str_len(field) >= _LABEL_WIDTH).any():
                    return False  # maybe cut to the field width: the string path reads it
                out[col.role] = self.labels(np.strings.strip(field), where,
                                            self.label(col, index), last)
            else:
                out[col.role] = np.strings.strip(field)
        for role, values in out.items():
            self.parts[role].append(values)
        self.where.append(where)
        return True

    def check_width(self, widths: np.ndarray, where: np.ndarray, rows: list[str] | None,
                    last: bool) -> None:
        """Every row of a block has as many fields as the header (or the first row)."""
        bad = np.flatnonzero(widths != self.width)
        if not bad.size:
            return
        i = int(bad[0])
        n = int(widths[i])
        shape = "the header has" if self.header is not None else "the first row has"
        text = f" ({excerpt(rows[i], 24)})" if rows is not None else ""
        hint = "every row needs the same number of values"
        wanted = [col.role for col, index in self.columns if index >= n]
        if wanted:
            hint = f"expected a {wanted[0]!r} value in column {n + 1}; " + hint
        if rows is not None and "#" in rows[i]:
            hint = COMMENT_HINT
        elif n > self.width and self.delimiter == ",":
            hint = (
                "if ',' is your decimal separator, write decimals with '.', or put each "
                "decimal in double quotes and use decimal = \",\", or separate the fields "
                "with ';'"
            )
        self.fail_rows(f"has {n} values but {shape} {self.width}{text}; {hint}", where, bad,
                       None, last)

    def labels(self, values: np.ndarray, where, name: str, last: bool) -> np.ndarray:
        is_ss, is_ds = np.isin(values, _SS_LIST), np.isin(values, _DS_LIST)
        other = np.flatnonzero(~(is_ss | is_ds))
        if other.size:  # lower-case only the labels that need it
            lowered = np.strings.lower(values[other])
            is_ss[other], is_ds[other] = np.isin(lowered, _SS_LIST), np.isin(lowered, _DS_LIST)
        unknown = np.flatnonzero(~(is_ss | is_ds))
        if unknown.size:
            value = str(values[unknown[0]])
            self.fail_rows(f"label {excerpt(value)} is not recognised; {LABEL_HELP}", where,
                           unknown, name, last)
        return is_ss

    def numbers(self, values: np.ndarray, where: np.ndarray, name: str, last: bool,
                ascii_: bool) -> np.ndarray:
        """Strict float64 parsing with the file's decimal separator (module docstring)."""
        comma = np.strings.find(values, ",") >= 0
        point = np.strings.find(values, ".") >= 0
        both = np.flatnonzero(comma & point)
        if both.size:
            self.fail_rows(
                f"value {excerpt(values[both[0]])} holds both '.' and ','; write numbers "
                "without thousands separators, with one decimal separator",
                where, both, name, last,
            )
        if self.decimal is None and self.auto_comma and (comma.any() or point.any()):
            first = int(np.flatnonzero(comma | point)[0])
            self.decimal = "," if comma[first] else "."
            self.decimal_seen = (int(where[first]), str(values[first]))
        decimal = self.decimal or "."
        wrong = np.flatnonzero(point if decimal == "," else comma)
        if wrong.size:
            value = excerpt(values[wrong[0]])
            if decimal == "." and self.decimal_seen is None:  # a point by default or choice
                problem = f"value {value} looks like a decimal comma: {DECIMAL_HELP}"
            else:
                seen = "" if self.decimal_seen is None else (
                    f" ({self.unit} {self.decimal_seen[0]} has {excerpt(self.decimal_seen[1])})"
                )
                problem = (
                    f"value {value} uses {'.' if decimal == ',' else ','!r} as decimal "
                    f"separator but the file uses {decimal!r}{seen}; one file must use one "
                    "decimal separator"
                )
            self.fail_rows(problem, where, wrong, name, last)
        if decimal == ",":
            values = np.strings.replace(values, ",", ".")
        try:
            if not ascii_:
                values.astype("S")  # raises UnicodeEncodeError on non-ASCII (e.g. Arabic digits)
            if (np.strings.find(values, "_") >= 0).any():
                raise ValueError("digit-group underscore")
            out = values.astype(np.float64)
        except (UnicodeEncodeError, ValueError):
            bad = np.flatnonzero([not _plain_float(str(v)) for v in values])
            if bad.size:
                self.not_numbers(values, where, bad, name, last)
            out = np.array([float(v) for v in values.tolist()], dtype=np.float64)
        self.finite(out, values, where, name, last)
        return out

    def finite(self, out: np.ndarray, values: np.ndarray, where: np.ndarray, name: str,
               last: bool) -> None:
        """Refuse NaN, infinities and overflows (``values``: the numbers as written)."""
        nonfinite = np.flatnonzero(~np.isfinite(out))
        if nonfinite.size:
            value = str(values[nonfinite[0]])
            low = value.strip().lower().lstrip("+-")
            why = "is not a finite number" if low.startswith(("nan", "inf")) else \
                "is too large (it overflows to infinity)"
            self.fail_rows(
                f"value {excerpt(value)} {why}; values must be finite, correct or remove that "
                f"{self.unit}",
                where, nonfinite, name, last,
            )

    def not_numbers(self, values, where, bad: np.ndarray, name: str, last: bool) -> None:
        value = str(values[bad[0]])
        if not value.strip():
            hint = "the value is empty; give a number or remove that " + self.unit
            self.fail_rows(hint, where, bad, name, last)
        if '"' in value:
            hint = "a quote inside a number; remove it"
        elif "#" in value:
            hint = COMMENT_HINT
        elif self.delimiter is not None and self.delimiter in value:
            hint = "holds the delimiter; correct that " + self.unit
        else:
            hint = f"correct or remove that {self.unit}"
        self.fail_rows(f"value {excerpt(value)} is not a number; {hint}", where, bad, name, last)

    def result(self, provenance_fields: dict) -> Table:
        if self.columns is None:
            self.fail("the file is empty: it needs a header line and one row per score")
        empty = {"number": np.float64, "label": bool, "text": str}
        values = {}
        for col, _ in self.columns:  # one column at a time, its blocks freed as it is joined
            blocks = self.parts.pop(col.role)
            values[col.role] = (
                np.concatenate(blocks) if blocks else np.array([], dtype=empty[col.kind])
            )
        blocks, self.where = self.where, []
        where = np.concatenate(blocks) if blocks else np.array([], dtype=np.int64)
        del blocks
        provenance = InputProvenance(
            **provenance_fields,
            delimiter=_DELIMITER_NAMES.get(self.delimiter, self.delimiter)
            if self.unit == "line" else None,
            decimal=self.decimal or ".",
            header=self.header is not None,
            columns={col.role: self.named(index) for col, index in self.columns},
            rows=int(where.size),
        )
        return Table(values, where, self.unit, self.location, provenance)


def _loadtxt(lines: list[str], **options) -> np.ndarray:
    """``numpy.loadtxt`` of a block of lines: no comments or quotes, at most one row per line.

    ``max_rows``: loadtxt otherwise allocates 50,000 rows at once (112 GiB for a line of
    300,000 columns). numpy warns that the empty lines it skips do not count towards
    ``max_rows``; they cannot matter here (a block has fewer rows than lines), so that
    warning is not passed on to the user.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Input line", category=UserWarning)
        return np.loadtxt(lines, comments=None, quotechar=None, max_rows=len(lines), **options)


def _unquote(values: np.ndarray) -> np.ndarray:
    """Values without one pair of enclosing double quotes (``"1.5"`` -> ``1.5``)."""
    quoted = (
        np.strings.startswith(values, '"') & np.strings.endswith(values, '"')
        & (np.strings.str_len(values) >= 2)
    )
    return np.where(quoted, np.strings.slice(values, 1, -1), values) if quoted.any() else values


def _plain_float(text: str) -> bool:
    """Whether ``text`` is a number by the module's rule (ASCII, no underscores)."""
    if not text.isascii() or "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------- delimited text
def _choose_delimiter(path: Path, first: str, decimal: str | None) -> str | None:
    """Tab for ``.tsv``; else the first of tab, ``;``, ``,`` in the first data line; else
    runs of blanks (None). With a decimal comma, ``,`` delimits only a line that is neither
    one number (``1,5``) nor split by blanks (``ss 1,5``)."""
    if path.suffix.lower() == ".tsv":
        return "\t"
    for candidate in ("\t", ";", ","):
        if candidate in first and not (
            candidate == ","
            and decimal == ","
            and (_is_numberlike(first, comma=True) or len(first.split()) > 1)
        ):
            return candidate
    return None


def _blocks(path: Path, encoding: str, digest) -> Iterator[str]:
    """Decoded text blocks of a file; the raw bytes go into ``digest`` as they are read."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    with open(path, "rb") as handle:
        while True:
            raw = handle.read(_BLOCK_BYTES)
            digest.update(raw)
            try:
                text = decoder.decode(raw, final=not raw)
            except UnicodeDecodeError:
                raise _WrongEncoding from None
            if text:
                yield text
            if not raw:
                return


def _lines(blocks: Iterator[str]) -> Iterator[tuple[list[str], int, bool, bool]]:
    """``(lines, number of the first, is_last, unterminated)`` per block.

    ``\n``, ``\r\n`` and ``\r`` end lines. A last line that does not end with a line
    break comes as a block of its own with ``unterminated`` True.
    """
    carry = ""
    number = 1
    pending: tuple[list[str], int] | None = None
    for block in blocks:
        text = carry + block
        hold = text.endswith("\r")  # a "\r\n" may be split between two blocks
        if hold:
            text = text[:-1]
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        carry = lines.pop() + ("\r" if hold else "")
        if pending is not None:
            yield pending[0], pending[1], False, False
        pending = (lines, number)
        number += len(lines)
    if carry.endswith("\r"):  # the file ends with "\r": the last line is complete
        pending[0].append(carry[:-1])
        carry = ""
    if pending is not None:
        yield pending[0], pending[1], not carry, False
    if carry:
        yield [carry], number, True, True


def _split_plain(lines: list[str], sep: str | None) -> list[list[str]]:
    return [line.split(sep) for line in lines]


def _split_quoted(lines: list[str], sep: str, reader: _Reader, where: np.ndarray):
    """Rows of lines with quotes (RFC 4180 fields), one line at a time when one fails."""
    try:
        rows = list(csv.reader(lines, delimiter=sep, quotechar='"', strict=True))
    except csv.Error:
        rows = None
    if rows is not None and len(rows) == len(lines):
        return rows
    for line, number in zip(lines, where, strict=True):
        try:
            parsed = list(csv.reader([line], delimiter=sep, quotechar='"', strict=True))
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                reader.fail(
                    f"has a field longer than {csv.field_size_limit():,} characters; a score "
                    "file holds short values, one row per line",
                    int(number),
                )
            reader.fail(
                f"a double quote is not closed, or is followed by text before the next "
                f"{_DELIMITER_NAMES[sep]!r} ({excerpt(line, 24)}); enclose a whole value in "
                "quotes or remove them",
                int(number),
            )
        if len(parsed) != 1:  # pragma: no cover - csv gives one row per complete line
            reader.fail("a quoted value spans lines; keep each row on one line", int(number))
    raise AssertionError("a block that csv refuses has a line it refuses")  # pragma: no cover


def _text_block(reader: _Reader, lines: list[str], first: int, last: bool,
                unterminated: bool) -> None:
    """Parse one block of text lines into cells and hand them to the reader.

    ``unterminated``: the block is the file's last line and has no line break after it.
    """
    if unterminated and content(lines[0]):
        reader.fail(
            "the last line does not end with a line break, so the file may have been cut "
            "short (an interrupted copy or download); check that the file is complete, then "
            "add a line break at its end",
            first,
        )
    if reader.columns is None:  # the first data line: delimiter, header, columns
        k = next((i for i, ln in enumerate(lines) if content(ln)), None)
        if k is None:
            return
        head = content(lines[k])
        reader.delimiter = reader.delimiter or _choose_delimiter(
            Path(reader.path), head, reader.decimal
        )
        reader.auto_comma = reader.auto_comma and reader.delimiter == ";"
        cells = _parse_lines(reader, [head], np.array([first + k]), '"' in head)
        reader.start(cells[0], first + k)
        skip = k + 1 if reader.header is not None else k
        lines, first = lines[skip:], first + skip
        if not lines:
            return
    joined = "\n".join(lines)  # block-wide checks run in C, not line by line
    if "\x00" in joined:  # numpy's str arrays would drop trailing NULs silently
        at = next(i for i, ln in enumerate(lines) if "\x00" in ln)
        reader.fail(
            "holds a NUL character, so it is not plain text (a binary file, or UTF-16 "
            "without a byte-order mark?); save it as CSV in UTF-8",
            first + at,
        )
    quoted = '"' in joined
    point = reader.decimal == "." or (reader.decimal is None and not reader.auto_comma)
    comments = "#" in joined and _COMMENT_LINE.search(joined) is not None
    if not comments and not quoted and point and reader.delimiter is not None:
        # loadtxt skips empty lines and refuses blank ones: both send the block on
        if reader.add_fast(lines, np.arange(first, first + len(lines)), last):
            return
    kept = [(first + i, content(ln)) for i, ln in enumerate(lines)]
    kept = [(n, ln) for n, ln in kept if ln]
    numbers = np.array([n for n, _ in kept], dtype=np.int64)
    lines = [ln for _, ln in kept]
    if not lines:
        return
    rows = _parse_lines(reader, lines, numbers, quoted)
    ascii_ = joined.isascii()
    if isinstance(rows, np.ndarray) and rows.shape == (len(lines), reader.width):
        reader.add(rows, numbers, last, ascii_)
        return
    widths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    reader.check_width(widths, numbers, lines, last)
    cells = np.array(rows, dtype=str).reshape(len(rows), reader.width)
    reader.add(cells, numbers, last, ascii_)


def _parse_lines(reader: _Reader, lines: list[str], numbers: np.ndarray, quoted: bool):
    """Cells of lines: a 2-D str array when every line splits alike, else lists of fields.

    ``quoted``: some line holds a double quote (read by the RFC 4180 rules).
    """
    sep = reader.delimiter
    if quoted and sep is not None:
        return _split_quoted(lines, sep, reader, numbers)
    if sep is None:
        return [ln.split() for ln in lines]
    try:
        cells = _loadtxt(lines, dtype=str, delimiter=sep, ndmin=2)
    except ValueError:  # rows of different widths: find them line by line
        return _split_plain(lines, sep)
    if cells.shape[0] != len(lines):  # pragma: no cover - loadtxt keeps one row per line
        return _split_plain(lines, sep)
    return cells


def _read_text(path: Path, layout: Layout, decimal, delimiter) -> Table:
    with open(path, "rb") as handle:
        head = handle.read(4096)
    bom = bom_encoding(head)
    if bom is None:
        refuse_binary(head, str(path))
    encodings = (bom,) if bom else ("utf-8", *FALLBACK_ENCODINGS)
    for encoding in encodings:
        digest = hashlib.sha256()
        reader = _Reader(str(path), str(path), "line", layout, decimal, delimiter,
                         auto_comma=decimal is None)
        try:
            for lines, first, last, unterminated in _lines(_blocks(path, encoding, digest)):
                _text_block(reader, lines, first, last, unterminated)
        except _WrongEncoding:
            if bom:
                raise InputError(
                    f"starts with a {bom} byte-order mark but is not valid {bom}; save it "
                    "again as UTF-8",
                    path=str(path),
                ) from None
            continue
        name = "utf-8" if encoding == "utf-8" and head.isascii() else encoding
        return reader.result({
            "name": str(path), "size": path.stat().st_size, "sha256": digest.hexdigest(),
            "format": "text", "encoding": name,
        })
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


# ---------------------------------------------------------------------- workbooks
def _read_workbook(path: Path, layout: Layout, decimal, sheet) -> Table:
    data, sha256, size = read_bytes(path)
    if decimal not in (None, ".", ","):
        raise InputError(f'decimal must be "." or ","; got {excerpt(decimal)}')
    chosen, rows = workbook_rows(data, str(path), sheet, comma=decimal == ",")
    location = f"{path}, sheet {chosen!r}"
    reader = _Reader(str(path), location, "row", layout, decimal or ".", None,
                     auto_comma=False)
    block: list[list[str]] = []
    numbers: list[int] = []

    def flush(last: bool) -> None:
        if not block:
            return
        cells = np.array(
            [r + [""] * (reader.width - len(r)) for r in block], dtype=str
        ).reshape(len(block), reader.width)
        reader.add(cells, np.array(numbers, dtype=np.int64), last, ascii_=False)
        block.clear()
        numbers.clear()

    for number, cells in rows:
        if reader.columns is None:
            reader.start(cells, number)
            if reader.header is not None:
                continue
        if len(cells) > reader.width:  # checked row by row: a stray far cell stops the read
            shape = "the header names" if reader.header is not None else "the first row has"
            reader.fail(
                f"has a value in column {column_letter(len(cells))} ({len(cells):,}), beyond "
                f"the {reader.width} column(s) {shape}; give that column a name or clear the "
                "cell", number,
            )
        block.append(cells)
        numbers.append(number)
        if len(block) >= _SHEET_ROWS:
            flush(False)
    flush(True)
    return reader.result({
        "name": str(path), "size": size, "sha256": sha256, "format": "xlsx", "sheet": chosen,
    })


# ---------------------------------------------------------------------- Parquet
def _read_parquet(path: Path, layout: Layout, decimal) -> Table:
    """The wanted columns of a Parquet file (:mod:`forensic_lr.io.parquet`), checked as a
    sheet's: rows numbered from the first row of data, numbers stored as text read by the
    text rules with ``decimal`` (a point by default)."""
    data, sha256, size = read_bytes(path)
    table = ParquetTable(data, str(path))
    del data
    reader = _Reader(str(path), str(path), "row", layout, decimal or ".", None,
                     auto_comma=False)
    reader.start(table.names, None, named=True)
    wanted: dict[int, bool] = {}
    for col, index in reader.columns:
        wanted[index] = wanted.get(index, True) and col.kind == "number"
    blocks = table.blocks(wanted)
    for first, cells in blocks:
        m = next(iter(cells.values())).shape[0] if cells else 0
        last = first + m > table.rows
        reader.add_columns(cells, np.arange(first, first + m, dtype=np.int64), last,
                           ascii_=False)
    return reader.result({
        "name": str(path), "size": size, "sha256": sha256, "format": "parquet",
    })


# ---------------------------------------------------------------------- entry point
def read_table(path, layout: Layout, *, decimal: str | None = None, sheet: str | None = None,
               delimiter: str | None = None) -> Table:
    """Read the columns that ``layout`` asks for from a text table, an ``.xlsx`` sheet or a
    Parquet file (``.parquet``, ``.pq``; needs pyarrow: ``pip install forensic-lr[parquet]``).

    Parameters
    ----------
    path : str or Path
        An existing file.
    layout : callable
        ``layout(header, width, fail) -> [Column, ...]``: the columns wanted, given the
        header's names (None without a header) and the number of fields per row;
        ``fail(message)`` raises an :class:`InputError` naming the first row.
    decimal : {".", ","}, optional
        Decimal separator; default: detected (module docstring).
    sheet : str, optional
        Sheet of a workbook (default: the first); refused for text files.
    delimiter : str, optional
        Field delimiter of a text file (default: detected).

    Returns
    -------
    Table

    Raises
    ------
    InputError
        Naming the file, line (or sheet and row), column and a short excerpt of the value,
        and the fix.
    """
    p = Path(path)
    if decimal not in (None, ".", ","):
        raise InputError(f'decimal must be "." or ","; got {excerpt(decimal)}', path=str(p))
    suffix = p.suffix.lower()
    if suffix in REFUSED_SUFFIXES:
        raise InputError(REFUSED_SUFFIXES[suffix], path=str(p))
    if suffix in WORKBOOK_SUFFIXES:
        return _read_workbook(p, layout, decimal, sheet)
    kind = "Parquet" if suffix in PARQUET_SUFFIXES else "text"
    if sheet is not None:
        raise InputError(
            f"sheet = {excerpt(sheet)} applies to .xlsx workbooks only; remove it for a {kind} "
            "file",
            path=str(p),
        )
    if suffix in PARQUET_SUFFIXES:
        if delimiter is not None:
            raise InputError(f"delimiter = {excerpt(delimiter)} applies to text files only; "
                             "remove it for a Parquet file", path=str(p))
        return _read_parquet(p, layout, decimal)
    if delimiter is not None and (len(delimiter) != 1 or delimiter in '"#\r\n'):
        raise InputError(
            f"delimiter must be one character such as ',' ';' or a tab; got {excerpt(delimiter)}",
            path=str(p),
        )
    return _read_text(p, layout, decimal, delimiter)
