"""Load same-source (SS) and different-source (DS) score sets from files, with clear errors.

Formats
-------
* CSV / TSV / plain text, ``.xlsx`` workbooks and Parquet files (with the optional
  pyarrow), read by :mod:`forensic_lr.tables`
  (encoding, delimiter, decimal separator and header detected; one streaming pass). One
  file per class holds one score per line, or a ``score`` column; a combined file holds
  ``label`` and ``score`` columns (without a header: label first, score second). Any
  column can be chosen by header name or 1-based position (``score_column``,
  ``label_column``, ``source_column``).
* ``.npy``: a 1-D array, one file per class.
* JSON (UTF-8, UTF-16 or UTF-32): a list of numbers (one class), ``{"ss": [...], "ds":
  [...]}``, or a list of ``{"label": ..., "score": ...}`` objects.

Every file read is described by an :class:`~forensic_lr.tables.InputProvenance` (SHA-256
and size of the original bytes, detected format, encoding, delimiter, decimal separator,
sheet, columns used), kept in :attr:`ScoreSet.inputs`.

Source columns (optional): a file with a header may name the source of each trial in a
``source`` column, or the sources of its two items in ``source_a`` and ``source_b``
columns (JSON items: the same keys). A same-source trial must have ``source_a ==
source_b``, a different-source trial two different ids; ids may not be empty. They are
kept as :attr:`ScoreSet.ss_sources` / :attr:`ScoreSet.ds_sources`, shape ``(n, 2)``
(with one ``source`` column both entries are that id), for resampling and
cross-validation by source (:mod:`forensic_lr.validation.bootstrap`).

Labels (case-insensitive): SS = ``1, ss, same, same-source, target, true, hp``;
DS = ``0, ds, different, different-source, nontarget, non-target, false, hd``.
Every error names the file, the line as an editor shows it (1-based), the column and
the value, and says how to fix it.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._numbers import LN2, LN10
from ..display import Table as ResultTable
from ..display import Tabular
from ..errors import InputError, excerpt
from ..records import jsonable
from .memory import is_path, is_table, score_values, table_scores
from .paths import input_file
from .tables import (
    DS_LABELS,
    LABEL_HELP,
    SS_LABELS,
    Column,
    InputProvenance,
    Table,
    read_bytes,
    read_table,
)
from .text_decoding import load_json_bytes

LOG_BASES = {"e": 1.0, "10": LN10, "2": LN2}
DIRECTIONS = ("higher_is_similar", "lower_is_similar")


@dataclass(frozen=True, repr=False)
class ScoreSet(Tabular):
    """Validated background scores: 1-D float64 arrays and a record of each file read.

    ``ss_sources`` / ``ds_sources`` are None, or string arrays of shape ``(n, 2)``: the
    source ids of the two items compared in each trial (equal for same-source trials and
    for files with a single ``source`` column). ``files`` maps each path as given to the
    SHA-256 of its original bytes; ``inputs`` holds the full provenance of each file.
    """

    ss: np.ndarray
    ds: np.ndarray
    files: dict[str, str] = field(default_factory=dict)
    ss_sources: np.ndarray | None = None
    ds_sources: np.ndarray | None = None
    inputs: tuple[InputProvenance, ...] = ()

    @property
    def has_sources(self) -> bool:
        return self.ss_sources is not None and self.ds_sources is not None

    def _table(self) -> ResultTable:
        """One row per class: count, range, mean, sd and number of sources (``repr``,
        notebooks, ``to_frame()``); never the scores themselves."""
        def row(label, values, sources):
            stats = ((float(values.min()), float(values.mean()), float(values.std()),
                      float(values.max())) if values.size else (None,) * 4)
            n_sources = None if sources is None else int(np.unique(sources).size)
            return (label, int(values.size), *stats, n_sources)

        files = tuple(f"file: {name}" for name in self.files)
        return ResultTable(
            title=f"ScoreSet: {self.ss.size} same-source and {self.ds.size} different-source "
                  "scores",
            columns=("class", "n", "min", "mean", "sd", "max", "sources"),
            rows=(row("ss", self.ss, self.ss_sources), row("ds", self.ds, self.ds_sources)),
            notes=files[:4] + ((f"... {len(files) - 4} more files",) if len(files) > 4 else ()),
        )

    def to_dict(self) -> dict:
        out = {"n_ss": int(self.ss.size), "n_ds": int(self.ds.size), "files": dict(self.files)}
        if self.has_sources:
            ids = np.concatenate([self.ss_sources.ravel(), self.ds_sources.ravel()])
            out["n_sources"] = int(np.unique(ids).size)
        if self.inputs:
            out["inputs"] = [p.to_dict() for p in self.inputs]
        return jsonable(out)


def _ss_ds_mapping(data) -> tuple | None:
    """``(ss, ds)`` of a mapping whose keys are exactly ss and ds (any case), else None."""
    if not isinstance(data, Mapping):
        return None
    keys = {str(k).lower(): k for k in data}
    if set(keys) != {"ss", "ds"}:
        return None
    return data[keys["ss"]], data[keys["ds"]]


def _class_input(values, label: str, table_options: dict):
    """One class's scores, source ids and provenance: from its file, or as given."""
    if is_path(values):
        read = read_class_file(values, label=label, **table_options)
        return read.values, read.sources, read.provenance
    return score_values(values, what=label), None, None


def orient(values, direction: str) -> np.ndarray:
    """Scores made score-like: negated for ``"lower_is_similar"`` (distances), else as given.

    The one place the score direction is applied: after it, higher always supports Hp.
    """
    values = np.asarray(values, dtype=np.float64)
    return -values if direction == "lower_is_similar" else values


@dataclass(frozen=True, eq=False)
class ClassScores:
    """The scores of one class read from one file, with their sources and provenance;
    ``more``: the further score columns asked for, by role."""

    values: np.ndarray
    sources: np.ndarray | None
    provenance: InputProvenance
    more: dict[str, np.ndarray] = field(default_factory=dict)


def sha256_file(path) -> str:
    """SHA-256 hex digest of a file's bytes (read in 1 MiB blocks).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str
        64 lower-case hex digits, as ``sha256sum`` prints them [1]_.

    References
    ----------
    .. [1] NIST FIPS 180-4, "Secure Hash Standard" (2015).
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def to_natural_llr(values, log_base: str) -> np.ndarray:
    """Convert log-LRs in base ``"e"``, ``"10"`` or ``"2"`` to natural logs.

    Parameters
    ----------
    values : array_like
        Log-LRs in base ``log_base``.
    log_base : {"e", "10", "2"}

    Returns
    -------
    numpy.ndarray
        float64 natural-log LRs (``llr``).

    Raises
    ------
    InputError
        An unknown base, or a value so large that its natural log overflows (|v| > 7.8e307
        in base 10).

    Notes
    -----
    ``llr = ln LR = log_b(LR) * ln b``: a log10 LR of 2 (LR = 100) is 2 ln 10 = 4.60517.
    """
    if str(log_base) not in LOG_BASES:
        raise InputError(f"log base must be one of e, 10, 2; got {excerpt(log_base)}")
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):
        out = values * LOG_BASES[str(log_base)]
    over = np.flatnonzero(np.isfinite(values) & ~np.isfinite(out))
    if over.size:
        raise InputError(
            f"value {float(values.flat[over[0]]):.6g} (log base {log_base}) is too large to "
            "convert to a natural-log LR; check the log base and the value"
        )
    return out


# --------------------------------------------------------------------------- table layouts
ColumnChoice = str | int | None


def column_choice(text: str | int | None) -> ColumnChoice:
    """A column choice as a user types it: ``"2"`` is the 2nd column, ``"Score"`` a name.

    For the command line (``--column 2``); a case file gives an integer or a string
    directly. Positions start at 1, as a spreadsheet counts columns.
    """
    if text is None or isinstance(text, int):
        return text
    stripped = str(text).strip()
    return int(stripped) if stripped.isdigit() else stripped


def _source_columns(source_column: ColumnChoice) -> list[Column]:
    """A chosen ``source`` column, else the optional ``source`` / ``source_a,source_b``."""
    if source_column is not None:
        return [Column("source", "text", choice=source_column, option="source_column")]
    return [Column(n, "text", names=(n,), required=False) for n in _SOURCE_ROLES]


_SOURCE_ROLES = ("source", "source_a", "source_b")
_COMMA_HINT = (
    ' (if "," is your decimal separator: use decimal = "," (case file) or --decimal , '
    'and separate columns with ";" or tabs)'
)


def _class_layout(score_column: ColumnChoice, source_column: ColumnChoice, what: str,
                  more: Mapping[str, ColumnChoice] | None = None):
    """Columns of a one-class file: the score (and optional sources); ``more``: further
    score columns by role (other systems' scores of the same comparisons)."""

    def layout(header, width, fail):
        if header is None and width > 1 and score_column is None:
            fail(
                f"has several columns but no header ({width} values per line); give one "
                f"{what}score per line, "
                "or a header line with a 'score' column, or choose the column with "
                "score_column" + _COMMA_HINT
            )
        score = Column("score", "number", choice=score_column, names=("score",), position=0,
                       option="score_column")
        others = [Column(role, "number", choice=choice, option="score_column")
                  for role, choice in (more or {}).items()]
        return [score, *others, *_source_columns(source_column)]

    return layout


def _labelled_layout(score_columns: dict[str, ColumnChoice], label_column: ColumnChoice,
                     source_column: ColumnChoice, id_column: str | None = None):
    """Columns of a labelled file: label, score column(s), optional sources and trial id.

    ``score_columns`` maps each role to its chosen column (None: the ``score`` column).
    """

    def layout(header, width, fail):
        defaults = score_columns == {"score": None} and label_column is None
        by_name = [c for c in (*score_columns.values(), label_column, id_column)
                   if isinstance(c, str)]
        if header is None and by_name:
            fail(f"has no header line; add one naming the columns ({', '.join(by_name)})")
        if header is None and width != 2 and defaults:
            fail(
                f"has {width} values per line but no header; a labelled file without a "
                "header holds a label and a score on each line, or add a header line "
                "naming the columns" + (_COMMA_HINT if width > 2 else "")
            )
        cols = [Column("label", "label", choice=label_column, names=("label",), position=0,
                       option="label_column")]
        for role, choice in score_columns.items():
            cols.append(Column(role, "number", choice=choice, names=("score",), position=1,
                               option="score_column"))
        if id_column is not None:
            cols.append(Column("id", "text", choice=id_column, option="id_column"))
        return cols + _source_columns(source_column)

    return layout


def _table_sources(table: Table, is_ss: np.ndarray | None) -> np.ndarray | None:
    """``(n, 2)`` source ids from the source columns read, else None.

    ``is_ss`` (one flag per row, or None for a one-class file without label) is checked
    against the ids when there are two columns.
    """
    present = [r for r in _SOURCE_ROLES if r in table.values]
    if not present:
        return None
    path = table.location
    line = int(table.where[0]) - 1 if table.unit == "line" else None
    if "source" in present and len(present) > 1:
        raise InputError(
            "has both a 'source' column and 'source_a'/'source_b' columns; keep either "
            "'source' (one source per trial) or 'source_a' and 'source_b'",
            path=path, line=line,
        )
    if present in (["source_a"], ["source_b"]):
        missing = ({"source_a", "source_b"} - set(present)).pop()
        raise InputError(
            f"has a {present[0]!r} column but no {missing!r} column; give both, or one "
            "'source' column",
            path=path, line=line,
        )
    roles = ["source"] * 2 if present == ["source"] else ["source_a", "source_b"]
    columns = [table.provenance.columns[r] for r in roles]
    pairs = np.column_stack([table.values[r] for r in roles])
    _checked_ids(pairs, table.where, path, columns, table.unit)
    if roles[0] != roles[1] and is_ss is not None:
        _check_source_labels(pairs, is_ss, table.where, path, table.unit)
    return pairs


def _locate(unit: str, path: str, where: int, column: str, message: str) -> InputError:
    if unit == "line":
        return InputError(message, path=path, line=where, column=column)
    return InputError(f"{unit} {where}: {message}", path=path, column=column)


def _checked_ids(pairs: np.ndarray, where: np.ndarray, path: str, columns, unit: str) -> None:
    """Reject empty source ids, naming the line and column."""
    empty = np.strings.str_len(np.strings.strip(pairs)) == 0
    if empty.any():
        row, col = (int(v) for v in np.argwhere(empty)[0])
        raise _locate(
            unit, path, int(where[row]), columns[col],
            "source id is empty; give every trial the id of its source (or remove the "
            "source columns)",
        )


def _check_source_labels(pairs: np.ndarray, is_ss: np.ndarray, where: np.ndarray, path: str,
                         unit: str) -> None:
    """SS trials compare one source with itself, DS trials two different sources."""
    same = pairs[:, 0] == pairs[:, 1]
    if not np.all(same == is_ss):
        bad = int(np.flatnonzero(same != is_ss)[0])
        a, b = excerpt(pairs[bad, 0]), excerpt(pairs[bad, 1])
        if is_ss[bad]:
            fix = f"a same-source trial has source_a {a} != source_b {b}"
        else:
            fix = f"a different-source trial has source_a = source_b = {a}"
        raise _locate(unit, path, int(where[bad]), "source_b",
                      f"{fix}; correct the label or the source ids")


# --------------------------------------------------------------------------- JSON and .npy
def _json_text(value) -> str:
    """A JSON value as text for parsing and messages: ``null``, ``true``, ``1.5``, ``abc``."""
    if value is None or isinstance(value, bool | list | dict):
        return json.dumps(value)[:200]
    return str(value)


def read_json(path: Path) -> tuple[object, InputProvenance]:
    """The parsed JSON of a file and its provenance (also read by :mod:`.paired`)."""
    data, sha256, size = read_bytes(path)
    return load_json_bytes(data, str(path)), InputProvenance(
        name=str(path), size=size, sha256=sha256, format="json"
    )


def _json_numbers(values: list, path: Path, column: str) -> np.ndarray:
    """JSON list items as finite float64, naming the first bad item (1-based).

    A number is a JSON number or a string holding one; ``true``/``false``, ``null``,
    lists and objects are not numbers.
    """
    texts = [_json_text(v) for v in values]
    numeric = [
        not isinstance(v, bool | list | dict) and v is not None and _float_ok(t)
        for v, t in zip(values, texts, strict=True)
    ]
    if not all(numeric):
        i = numeric.index(False)
        problem = f"value {excerpt(texts[i])} is not a number; correct or remove that item"
    else:
        with np.errstate(over="ignore"):
            out = np.array([float(t) for t in texts], dtype=np.float64)
        bad = ~np.isfinite(out)
        if not bad.any():
            return out
        i = int(np.flatnonzero(bad)[0])
        problem = (
            f"value {excerpt(texts[i])} is not a finite number; scores must be finite, "
            "correct or remove that item"
        )
    raise InputError(f"item {i + 1}: {problem}", path=str(path), column=column)


def _float_ok(text: str) -> bool:
    try:
        float(text)
    except (ValueError, OverflowError):
        return False
    return True


def _json_labels(values: list, path: Path, column: str) -> np.ndarray:
    texts = np.array([_json_text(v).strip().lower() for v in values], dtype=str)
    is_ss = np.isin(texts, list(SS_LABELS))
    unknown = np.flatnonzero(~(is_ss | np.isin(texts, list(DS_LABELS))))
    if unknown.size:
        i = int(unknown[0])
        raise InputError(
            f"item {i + 1}: label {excerpt(_json_text(values[i]))} is not recognised; "
            f"{LABEL_HELP}",
            path=str(path), column=column,
        )
    return is_ss


def load_npy(path) -> tuple[np.ndarray, InputProvenance]:
    """The array of a ``.npy`` file (never a pickle) and the file's provenance.

    Raises
    ------
    InputError
        An empty file, an ``.npz`` archive or another file named ``.npy``, a damaged or
        pickled array, a header that declares more values than the file holds
        (:func:`_check_npy_header`).
    """
    path = Path(path)
    data, sha256, size = read_bytes(path)
    if data[:6] != b"\x93NUMPY":
        kind = "a ZIP archive (an .npz file?)" if data[:4] == b"PK\x03\x04" else (
            "empty" if not data else "not a .npy array"
        )
        raise InputError(
            f"is {kind}; give a 1-D array saved with numpy.save (.npy)", path=str(path)
        )
    _check_npy_header(data, path)
    try:
        values = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, EOFError, OSError) as exc:
        raise InputError(
            f"is not a readable .npy array ({excerpt(exc, 80)}); save it again with "
            "numpy.save", path=str(path)
        ) from None
    return values, InputProvenance(name=str(path), size=size, sha256=sha256, format="npy",
                                   rows=int(values.shape[0]) if values.ndim else 1)


def _check_npy_header(data: bytes, path: Path) -> None:
    """Refuse a ``.npy`` header whose shape x item size exceeds the bytes after it.

    Read with :mod:`numpy.lib.format`'s public header readers (format versions 1.0 and 2.0
    [1]_) before any array is allocated, so a damaged or hostile header that claims 10^13
    values is an error naming the sizes, not an attempt to allocate 80 TB.

    References
    ----------
    .. [1] NumPy Enhancement Proposal 1, "A simple file format for NumPy arrays" (NEP 1),
       https://numpy.org/neps/nep-0001-npy-format.html.
    """
    from numpy.lib import format as npy_format

    handle = io.BytesIO(data)
    fix = "save the array again with numpy.save"
    try:
        version = npy_format.read_magic(handle)
        if version == (1, 0):
            shape, _, dtype = npy_format.read_array_header_1_0(handle)
        elif version == (2, 0):
            shape, _, dtype = npy_format.read_array_header_2_0(handle)
        else:
            raise InputError(
                f"is a .npy file of format version {version[0]}.{version[1]} (used for "
                f"arrays with named fields), not an array of numbers; {fix}", path=str(path))
    except ValueError as exc:
        raise InputError(f"is not a readable .npy array (a damaged header: "
                         f"{excerpt(exc, 80)}); {fix}", path=str(path)) from None
    if dtype.hasobject:
        raise InputError("holds Python objects (read only by unpickling, which is never "
                         f"done); {fix} from an array of numbers", path=str(path))
    needed = math.prod(shape) * dtype.itemsize
    available = len(data) - handle.tell()
    if needed > available:
        raise InputError(
            f"is not a readable .npy array: its header declares shape {tuple(shape)} of "
            f"{dtype} ({needed:,} bytes) but "
            f"the file holds {available:,} bytes after the header; the file is damaged or "
            f"cut short: {fix}", path=str(path))


def _read_npy(path: Path, what: str) -> tuple[np.ndarray, InputProvenance]:
    """A 1-D numeric ``.npy`` array as finite float64."""
    values, provenance = load_npy(path)
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise InputError(
            f"must hold a 1-D numeric array of {what}scores (got shape {values.shape}, "
            f"dtype {values.dtype})", path=str(path)
        )
    with np.errstate(over="ignore"):
        out = values.astype(np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"element {i + 1} (0-based index {i}): value {float(out[i])!r} is not a finite "
            "number; scores must be finite, correct the array",
            path=str(path),
        )
    return out, provenance


def no_table_options(path: Path, options: dict) -> None:
    """Column, decimal and sheet options apply to tables only: refuse them elsewhere."""
    given = [k for k, v in options.items() if v is not None]
    if given:
        raise InputError(
            f"{', '.join(given)}: these options apply to CSV/text, .xlsx and Parquet tables, "
            "not to a "
            f"{path.suffix} file; remove them",
            path=str(path),
        )


# --------------------------------------------------------------------------- labelled rows
@dataclass(frozen=True, eq=False)
class LabelledRows:
    """The rows of one labelled file in file order: labels, score columns, sources, ids."""

    path: str
    is_ss: np.ndarray
    scores: dict[str, np.ndarray]
    sources: np.ndarray | None
    ids: np.ndarray | None
    where: np.ndarray  # 1-based line (text), row (sheet) or item (JSON) of each row
    unit: str  # "line", "row" or "item"
    provenance: InputProvenance

    def at(self, row: int) -> str:
        return f"{self.path}, {self.unit} {int(self.where[row])}"


def table_rows(
    path: Path,
    score_columns: dict[str, ColumnChoice],
    id_column: str | None = None,
    *,
    label_column: ColumnChoice = None,
    source_column: ColumnChoice = None,
    decimal: str | None = None,
    sheet: str | None = None,
) -> LabelledRows:
    """Labels, score columns (role -> chosen column), sources and ids of a table."""
    table = read_table(
        path, _labelled_layout(score_columns, label_column, source_column, id_column),
        decimal=decimal, sheet=sheet,
    )
    is_ss = table.values["label"]
    scores = {role: table.values[role] for role in score_columns}
    ids = table.values.get("id")
    if ids is not None:
        _check_ids(ids, table.where, table.location, table.provenance.columns["id"],
                   table.unit)
    sources = _table_sources(table, is_ss)
    return LabelledRows(table.location, is_ss, scores, sources, ids, table.where, table.unit,
                 table.provenance)


def json_rows(
    data: list[dict], path: Path, provenance: InputProvenance,
    score_columns: dict[str, ColumnChoice], id_column: str | None = None,
    label_column: ColumnChoice = None,
) -> LabelledRows:
    """Labels, score columns (role -> key, None: ``score``), sources and ids of a JSON list
    of objects (one per trial)."""
    for choice in (*score_columns.values(), label_column):
        if isinstance(choice, int):
            raise InputError(
                f"column {choice}: JSON items are read by key; give the key's name",
                path=str(path),
            )
    label_key = label_column or "label"
    score_keys = {role: "score" if c is None else str(c) for role, c in score_columns.items()}
    keys = [label_key, *score_keys.values(), *([id_column] if id_column else [])]
    for i, item in enumerate(data):
        missing = [k for k in keys if k not in item]
        if missing:
            raise InputError(
                f"item {i + 1} lacks the key(s) {', '.join(map(excerpt, missing))}",
                path=str(path),
            )
    items = np.arange(1, len(data) + 1)
    is_ss = _json_labels([d[label_key] for d in data], path, label_key)
    scores = {
        role: _json_numbers([d[k] for d in data], path, k) for role, k in score_keys.items()
    }
    ids = None
    if id_column is not None:
        ids = np.array([_json_text(d[id_column]) for d in data], dtype=str)
        _check_ids(ids, items, str(path), id_column, "item")
    provenance = InputProvenance(
        **{**provenance.to_dict(), "rows": len(data),
           "columns": {"label": label_key, **score_keys}}
    )
    return LabelledRows(str(path), is_ss, scores, _json_sources(data, is_ss, path), ids, items,
                 "item", provenance)


def _check_ids(ids: np.ndarray, where: np.ndarray, path: str, column: str, unit: str) -> None:
    """Trial ids must be non-empty and unique within a file."""
    empty = np.flatnonzero(np.strings.str_len(np.strings.strip(ids)) == 0)
    if empty.size:
        raise InputError(
            f"{unit} {int(where[empty[0]])}: the trial id is empty; give every trial an id",
            path=path,
            column=column,
        )
    order = np.argsort(ids, kind="stable")
    repeated = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if repeated.size:
        first, second = order[repeated[0]], order[repeated[0] + 1]
        raise InputError(
            f"trial id {excerpt(ids[first])} is on {unit}s {int(where[first])} and "
            f"{int(where[second])}; ids must be unique (one row per trial)",
            path=path,
            column=column,
        )


# --------------------------------------------------------------------------- readers
def existing_file(path) -> Path:
    """``Path(path)`` of an existing regular file (:func:`~forensic_lr.io.paths.input_file`)."""
    return input_file(path, hint="check the path (relative paths start from the current "
                      "directory or the case file)")


def read_score_file(
    path,
    *,
    label: str | None = None,
    score_column: ColumnChoice = None,
    decimal: str | None = None,
    sheet: str | None = None,
) -> np.ndarray:
    """Scores of one class from one file (see the module docstring for formats).

    Parameters
    ----------
    path : str or Path
    label : str, optional
        ``"ss"`` or ``"ds"``; only used in messages (and, with ``source_a,source_b``
        columns, to check the ids: equal for ``"ss"``, different for ``"ds"``).
    score_column : str or int, optional
        The score column by header name or 1-based position (default: the ``score``
        column, or the only column of a file without a header).
    decimal : {".", ","}, optional
        Decimal separator of a text table (default: detected, see
        :mod:`forensic_lr.tables`).
    sheet : str, optional
        Sheet of an ``.xlsx`` workbook (default: the first).

    Returns
    -------
    numpy.ndarray
        1-D float64 scores in file order (raw: no log base or direction applied).

    Raises
    ------
    InputError
        Missing file, unreadable format, a value that is not a finite number (naming the
        line, column and value), several columns without a header.
    """
    return read_class_file(
        path, label=label, score_column=score_column, decimal=decimal, sheet=sheet
    ).values


def read_class_file(
    path,
    *,
    label: str | None = None,
    score_column: ColumnChoice = None,
    source_column: ColumnChoice = None,
    decimal: str | None = None,
    sheet: str | None = None,
    more: Mapping[str, ColumnChoice] | None = None,
) -> ClassScores:
    """Scores of one class, their ``(n, 2)`` source ids and the file's provenance.

    Parameters are those of :func:`read_score_file`, plus ``source_column`` (a column
    holding the source of each trial, by name or 1-based position) and ``more`` (further
    score columns of a table by role, read in the same pass: ``ClassScores.more``).
    """
    p = existing_file(path)
    what = f"{label} " if label else ""
    suffix = p.suffix.lower()
    if more and suffix in (".npy", ".json"):
        raise InputError(f"a {suffix} file holds one score per comparison; give the scores "
                         "of several systems as columns of a table (CSV, TSV or .xlsx)",
                         path=str(p))
    if suffix in (".npy", ".json"):
        no_table_options(p, {"score_column": score_column, "source_column": source_column,
                              "decimal": decimal, "sheet": sheet})
    if suffix == ".npy":
        values, provenance = _read_npy(p, what)
        return ClassScores(values, None, provenance)
    if suffix == ".json":
        data, provenance = read_json(p)
        if not isinstance(data, list):
            raise InputError(f"must hold a JSON list of {what}scores", path=str(p))
        values = _json_numbers(data, p, "score")
        return ClassScores(values, None, InputProvenance(
            **{**provenance.to_dict(), "rows": int(values.size)}))
    table = read_table(p, _class_layout(score_column, source_column, what, more),
                       decimal=decimal, sheet=sheet)
    is_ss = np.full(table.where.size, label == "ss") if label in ("ss", "ds") else None
    sources = _table_sources(table, is_ss)
    return ClassScores(table.values["score"], sources, table.provenance,
                       {role: table.values[role] for role in more or {}})


def _json_sources(data: list[dict], is_ss: np.ndarray, path: Path) -> np.ndarray | None:
    """Source ids of JSON items (``source`` or ``source_a``/``source_b`` keys), else None."""
    keys = [set(_SOURCE_ROLES) & set(d) for d in data]
    if not any(keys):
        return None
    if any(k != keys[0] for k in keys):
        i = next(i for i, k in enumerate(keys) if k != keys[0])
        raise InputError(
            f"item {i + 1} has source keys {sorted(keys[i])} but item 1 has "
            f"{sorted(keys[0])}; give every item the same source keys",
            path=str(path),
        )
    if keys[0] not in ({"source"}, {"source_a", "source_b"}):
        raise InputError(
            f"source keys {sorted(keys[0])} are incomplete or mixed; use 'source', or "
            "'source_a' and 'source_b'",
            path=str(path),
        )
    columns = ["source"] * 2 if keys[0] == {"source"} else ["source_a", "source_b"]
    items = np.arange(1, len(data) + 1)
    pairs = np.array([[_json_text(d[c]) for c in columns] for d in data], dtype=str)
    pairs = pairs.reshape(-1, 2)
    _checked_ids(pairs, items, str(path), columns, "item")
    if columns[0] != columns[1]:
        _check_source_labels(pairs, is_ss, items, str(path), "item")
    return pairs


def _split(rows: LabelledRows):
    """``(ss, ds, ss_sources, ds_sources)`` from labelled rows (the ``score`` column)."""
    scores, labels, pairs = rows.scores["score"], rows.is_ss, rows.sources
    if pairs is None:
        return scores[labels], scores[~labels], None, None
    return scores[labels], scores[~labels], pairs[labels], pairs[~labels]


def _read_labelled(path, *, score_column=None, label_column=None, source_column=None,
                   decimal=None, sheet=None):
    """``(ss, ds, ss_sources, ds_sources, provenance)`` of one labelled file."""
    p = existing_file(path)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        raise InputError(
            "a .npy file holds the scores of one class; give --ss and --ds files (or a "
            "labelled CSV/JSON file)",
            path=str(p),
        )
    if suffix == ".json":
        no_table_options(p, {"source_column": source_column, "decimal": decimal,
                              "sheet": sheet})
        data, provenance = read_json(p)
        if isinstance(data, dict) and set(data) == {"ss", "ds"}:
            no_table_options(p, {"score_column": score_column, "label_column": label_column})
            for key in ("ss", "ds"):
                if not isinstance(data[key], list):
                    raise InputError(
                        f'"{key}" must be a JSON list of numbers, got {type(data[key]).__name__}',
                        path=str(p),
                    )
            ss, ds = (_json_numbers(data[key], p, key) for key in ("ss", "ds"))
            provenance = InputProvenance(
                **{**provenance.to_dict(), "rows": int(ss.size + ds.size)}
            )
            return ss, ds, None, None, provenance
        if isinstance(data, list) and data and all(isinstance(d, dict) for d in data):
            rows = json_rows(data, p, provenance, {"score": score_column}, None, label_column)
            return (*_split(rows), rows.provenance)
        raise InputError(
            'must be {"ss": [...], "ds": [...]} or a list of {"label": .., "score": ..}',
            path=str(p),
        )
    rows = table_rows(p, {"score": score_column}, label_column=label_column,
                       source_column=source_column, decimal=decimal, sheet=sheet)
    return (*_split(rows), rows.provenance)


def check_class_size(values: np.ndarray, name: str, where: str) -> None:
    """Refuse a class with fewer than 2 scores, naming the class and the file (``where``)."""
    if values.size == 0:
        raise InputError(f"{where}: no {name} scores; the {name} class needs at least 2")
    if values.size < 2:
        raise InputError(f"{where}: only {values.size} {name} score; at least 2 are needed")


def _refuse_same_file(ss, ds) -> None:
    """One file given as both classes (the same path, or two links to one file)."""
    try:
        same = Path(ss).samefile(ds)
    except OSError:  # a missing file is reported when it is read
        return
    if same:
        raise InputError(
            f"the same-source file {ss} and the different-source file {ds} are the same file: "
            "give the same-source scores and the different-source scores"
        )


def read_class_pair(ss, ds, **options) -> tuple[ClassScores, ClassScores]:
    """The same-source and the different-source file, each read by :func:`read_class_file`
    (``options``: its keywords).

    Raises
    ------
    InputError
        One file (or two identical files) given as both classes, or source columns in one
        file only; what :func:`read_class_file` refuses.
    """
    _refuse_same_file(ss, ds)
    ss_read = read_class_file(ss, label="ss", **options)
    ds_read = read_class_file(ds, label="ds", **options)
    if ss_read.provenance.sha256 == ds_read.provenance.sha256:
        raise InputError(
            f"the same-source file {ss} and the different-source file {ds} have identical "
            "contents: give the same-source scores and the different-source scores"
        )
    if (ss_read.sources is None) != (ds_read.sources is None):
        has, lacks = (ss, ds) if ds_read.sources is None else (ds, ss)
        raise InputError(
            f"has no source column but {has} has; give both files a 'source' (or "
            "'source_a,source_b') column, or neither",
            path=str(lacks),
        )
    return ss_read, ds_read


def load_scores(
    data=None,
    /,
    *,
    ss=None,
    ds=None,
    scores=None,
    log_base: str | None = None,
    direction: str = "higher_is_similar",
    score_column: ColumnChoice = None,
    label_column: ColumnChoice = None,
    source_column: ColumnChoice = None,
    decimal: str | None = None,
    sheet: str | None = None,
) -> ScoreSet:
    """Load a score set from one file per class (``ss``, ``ds``) or one labelled file.

    Every input may also be data already in memory (a notebook): arrays, lists and pandas
    Series for ``ss`` and ``ds``; a pandas DataFrame or a mapping of columns for a labelled
    table; the same labels, column choices and checks as a file
    (:mod:`forensic_lr.io.memory`).

    Parameters
    ----------
    data : path, DataFrame or mapping, optional (positional)
        A labelled file or table (as ``scores``), or a mapping ``{"ss": ..., "ds": ...}``.
    ss, ds : path, array_like or Series, optional
        Same-source and different-source files, or their scores.
    scores : path, DataFrame or mapping, optional
        One file or table with label and score columns (instead of ``ss`` and ``ds``).
    log_base : {"e", "10", "2"}, optional
        The values are log-LRs in this base: convert to natural log. None: raw scores.
    direction : {"higher_is_similar", "lower_is_similar"}
        ``"lower_is_similar"`` (distances) negates every value so that higher supports Hp.
    score_column, label_column, source_column : str or int, optional
        Columns by header name (case-insensitive) or 1-based position; default the
        ``score``, ``label`` and ``source`` / ``source_a,source_b`` columns.
        ``label_column`` applies to a labelled file only. JSON objects take key names.
    decimal : {".", ","}, optional
        Decimal separator of text tables; default detected (``,`` in ``;``-separated
        files whose numbers use it, else ``.``).
    sheet : str, optional
        Sheet of ``.xlsx`` workbooks (default: the first).

    Returns
    -------
    ScoreSet
        With ``ss_sources`` / ``ds_sources`` when the files have source columns (both
        files must have them, or neither), and the provenance of each file in ``inputs``.

    Raises
    ------
    InputError
        Naming the file, line (1-based, as an editor shows it) or sheet row, column and a
        short excerpt of the value: a missing file, a value that is not a finite number, an
        unknown label, a missing column, a row with more or fewer fields than the header,
        mixed decimal separators, invalid JSON or workbook, a class with fewer than 2
        scores, both ``scores`` and ``ss``/``ds``, one file (or two identical files) given as
        both classes, an unknown ``log_base`` or
        ``direction``.

    Notes
    -----
    Values become ``s' = d * v * c`` with ``c = ln b`` for log base ``b`` (1 for raw
    scores) and ``d = -1`` for ``"lower_is_similar"``, else 1. Every file is read and
    checked completely (one streaming pass, :mod:`forensic_lr.tables`) before anything is
    returned, and its SHA-256 is that of the bytes parsed.
    """
    if direction not in DIRECTIONS:
        raise InputError(
            f"direction must be one of {', '.join(DIRECTIONS)}; got {excerpt(direction)}"
        )
    if log_base is not None and str(log_base) not in LOG_BASES:
        raise InputError(f"log base must be one of e, 10, 2; got {excerpt(log_base)}")
    if data is not None:
        if scores is not None or ss is not None or ds is not None:
            raise InputError("give the data once: as the first argument, or as scores=, "
                             "or as ss= and ds=")
        pair = _ss_ds_mapping(data)
        ss, ds, scores = (*pair, None) if pair else (None, None, data)
    if scores is not None and (ss is not None or ds is not None):
        raise InputError(
            "give either one labelled file (scores) or two files (ss and ds), not both"
        )
    in_memory = [x for x in (scores, ss, ds) if x is not None and not is_path(x)]
    if in_memory and (decimal is not None or sheet is not None):
        raise InputError("decimal and sheet apply to files only; data in memory is read as "
                         "it is: remove them")
    table_options = {"score_column": score_column, "source_column": source_column,
                     "decimal": decimal, "sheet": sheet}
    if scores is not None and not is_path(scores):
        if not is_table(scores):
            raise InputError("a labelled table in memory must be a pandas DataFrame or a "
                             "mapping of columns (label, score, optional source); got "
                             f"{type(scores).__name__}")
        ss_values, ds_values, ss_src, ds_src = table_scores(
            scores, score_column=score_column, label_column=label_column,
            source_column=source_column)
        inputs = ()
        where = {"ss": "the table", "ds": "the table"}
    elif ss is not None and ds is not None and in_memory:
        if label_column is not None or score_column is not None or source_column is not None:
            raise InputError("column options apply to files and tables; ss and ds given as "
                             "scores have no columns: remove them")
        ss_values, ss_src, ss_in = _class_input(ss, "ss", table_options)
        ds_values, ds_src, ds_in = _class_input(ds, "ds", table_options)
        if (ss_src is None) != (ds_src is None):
            raise InputError("one class has source ids (from its file) and the other has none; "
                             "give both classes as files with a 'source' column, or neither")
        inputs = tuple(p for p in (ss_in, ds_in) if p is not None)
        where = {"ss": str(ss) if is_path(ss) else "ss", "ds": str(ds) if is_path(ds) else "ds"}
    elif scores is not None:
        ss_values, ds_values, ss_src, ds_src, provenance = _read_labelled(
            scores, label_column=label_column, **table_options
        )
        inputs = (provenance,)
        where = {"ss": str(scores), "ds": str(scores)}
    elif ss is not None and ds is not None:
        if label_column is not None:
            raise InputError(
                "label_column applies to one labelled scores file; files of one class "
                "(ss, ds) have no label column: remove it"
            )
        ss_read, ds_read = read_class_pair(ss, ds, **table_options)
        ss_values, ss_src = ss_read.values, ss_read.sources
        ds_values, ds_src = ds_read.values, ds_read.sources
        inputs = (ss_read.provenance, ds_read.provenance)
        where = {"ss": str(ss), "ds": str(ds)}
    else:
        raise InputError("give both an ss and a ds file, or one labelled scores file")
    check_class_size(ss_values, "same-source (ss)", where["ss"])
    check_class_size(ds_values, "different-source (ds)", where["ds"])
    if log_base is not None:
        ss_values, ds_values = (
            to_natural_llr(ss_values, log_base),
            to_natural_llr(ds_values, log_base),
        )
    files = {p.name: p.sha256 for p in inputs}
    return ScoreSet(
        orient(ss_values, direction), orient(ds_values, direction), files, ss_src, ds_src, inputs
    )
