"""Load same-source (SS) and different-source (DS) score sets from files, with clear errors.

Formats
-------
* CSV / TSV / plain text (delimiter from the extension, else sniffed: comma, tab,
  semicolon or whitespace), with or without a header line; ``#`` comments (whole lines
  or line ends) and blank lines are skipped. One file per class holds one score per
  line, or a ``score`` column; a combined file holds ``label`` and ``score`` columns
  (without a header: label first, score second).
* ``.npy``: a 1-D array, one file per class.
* JSON: a list of numbers (one class), ``{"ss": [...], "ds": [...]}``, or a list of
  ``{"label": ..., "score": ...}`` objects.

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
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError

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
LOG_BASES = {"e": 1.0, "10": float(np.log(10.0)), "2": float(np.log(2.0))}
DIRECTIONS = ("higher_is_similar", "lower_is_similar")


@dataclass(frozen=True)
class ScoreSet:
    """Validated background scores: 1-D float64 arrays and the SHA-256 of each file read.

    ``ss_sources`` / ``ds_sources`` are None, or string arrays of shape ``(n, 2)``: the
    source ids of the two items compared in each trial (equal for same-source trials and
    for files with a single ``source`` column).
    """

    ss: np.ndarray
    ds: np.ndarray
    files: dict[str, str] = field(default_factory=dict)
    ss_sources: np.ndarray | None = None
    ds_sources: np.ndarray | None = None

    @property
    def has_sources(self) -> bool:
        return self.ss_sources is not None and self.ds_sources is not None

    def to_dict(self) -> dict:
        out = {"n_ss": int(self.ss.size), "n_ds": int(self.ds.size), "files": dict(self.files)}
        if self.has_sources:
            ids = np.concatenate([self.ss_sources.ravel(), self.ds_sources.ravel()])
            out["n_sources"] = int(np.unique(ids).size)
        return out


def orient(values, direction: str) -> np.ndarray:
    """Scores made score-like: negated for ``"lower_is_similar"`` (distances), else as given.

    The one place the score direction is applied: after it, higher always supports Hp.
    """
    values = np.asarray(values, dtype=np.float64)
    return -values if direction == "lower_is_similar" else values


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
        An unknown base.

    Notes
    -----
    ``llr = ln LR = log_b(LR) * ln b``: a log10 LR of 2 (LR = 100) is 2 ln 10 = 4.60517.
    """
    if str(log_base) not in LOG_BASES:
        raise InputError(f"log base must be one of e, 10, 2; got {log_base!r}")
    return np.asarray(values, dtype=np.float64) * LOG_BASES[str(log_base)]


# --------------------------------------------------------------------------- text parsing
@dataclass(frozen=True)
class _Table:
    header: list[str] | None
    rows: list[list[str]]
    lines: np.ndarray  # 1-based line number of each row


def _delimiter(path: Path, first: str) -> str | None:
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        return "\t"
    if suffix == ".csv" and "," in first:
        return ","
    for candidate in (",", "\t", ";"):
        if candidate in first:
            return candidate
    return None  # whitespace


def _content(line: str) -> str:
    """A line without its ``#`` comment and surrounding blanks ("" if nothing is left)."""
    return line.split("#", 1)[0].strip()


def _cells(line: str, sep: str | None) -> list[str]:
    return [v.strip().strip('"') for v in line.split(sep)]


def _header(row: list[str]) -> list[str] | None:
    """The lower-cased column names if the first row is a header, else None."""
    if all(_is_number(v) for v in row) or _looks_like_label_row(row):
        return None
    return [v.lower() for v in row]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_table(path: Path) -> _Table:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("is not a UTF-8 text file; save it as CSV", path=str(path)) from None
    numbered = [(i + 1, _content(ln)) for i, ln in enumerate(text.splitlines())]
    numbered = [(i, ln) for i, ln in numbered if ln]
    if not numbered:
        raise InputError("the file is empty: it needs one score per line", path=str(path))
    sep = _delimiter(path, numbered[0][1])
    rows = [_cells(ln, sep) for _, ln in numbered]
    header = _header(rows[0])
    if header is not None:
        rows, numbered = rows[1:], numbered[1:]
    return _Table(header, rows, np.array([i for i, _ in numbered], dtype=np.int64))


def _looks_like_label_row(row: list[str]) -> bool:
    """A headerless label,score row such as ``ss,2.1`` (not a header like ``label,score``)."""
    return len(row) == 2 and row[0].lower() in SS_LABELS | DS_LABELS and _is_number(row[1])


_SOURCE_COLUMNS = frozenset({"source", "source_a", "source_b"})


def _fast_text(path: Path, *, labelled: bool) -> tuple[np.ndarray | None, np.ndarray] | None:
    """``(is_ss or None, scores)`` of a plainly valid text table, parsed by ``np.loadtxt``.

    Returns None whenever the file is not plainly valid (no data, a missing column, source
    columns, ragged rows, a value that is not a finite number, an unknown label): the
    line-by-line reader then reads the file and reports the exact line. Both readers use
    the same comment, delimiter and header rules, so they agree on every file this one
    accepts (``tests/test_scores.py`` checks it).
    """
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        return None
    first = next((i for i, line in enumerate(lines) if _content(line)), None)
    if first is None:
        return None
    head = _content(lines[first])
    sep = _delimiter(path, head)
    row = _cells(head, sep)
    header = _header(row)
    names = ["label", "score"] if labelled else ["score"]
    if header is None:
        if len(row) < len(names) or (not labelled and len(row) > 1):
            return None
        # one headerless column: no usecols, so loadtxt rejects rows with more columns
        columns = [0, 1] if labelled else None
    elif set(names) <= set(header) and not _SOURCE_COLUMNS & set(header):
        columns = [header.index(name) for name in names]
    else:
        return None
    # a longer label is cut to 24 characters, which no known label (<= 16) matches
    dtype = [("label", "U24"), ("score", "f8")] if labelled else np.float64
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # loadtxt warns when there are no data rows
            table = np.loadtxt(
                lines[first + (header is not None) :],
                dtype=dtype,
                delimiter=sep,
                comments="#",
                quotechar='"',
                usecols=columns,
                ndmin=1,
            )
    except (ValueError, UserWarning):
        return None
    scores = table["score"] if labelled else table
    if not np.isfinite(scores).all():
        return None
    if not labelled:
        return None, scores
    labels = table["label"]
    known = list(SS_LABELS | DS_LABELS)
    other = ~np.isin(labels, known)
    if other.any():  # lower-case only the labels that need it
        labels = labels.copy()
        labels[other] = np.strings.lower(labels[other])
    is_ss = np.isin(labels, list(SS_LABELS))
    if not (is_ss | np.isin(labels, list(DS_LABELS))).all():
        return None
    return is_ss, scores


def _column(table: _Table, path: Path, name: str, position: int) -> list[str]:
    """Values of column ``name`` (by header) or at ``position`` (headerless files)."""
    if table.header is not None:
        if name not in table.header:
            raise InputError(
                f"has no {name!r} column (columns: {', '.join(table.header)}); "
                f"name the column {name!r} in the header line",
                path=str(path),
                line=int(table.lines[0]) - 1 if table.lines.size else 1,
            )
        position = table.header.index(name)
    values = []
    for row, line in zip(table.rows, table.lines, strict=True):
        if position >= len(row):
            raise InputError(
                f"has {len(row)} value(s); expected a {name!r} value in column {position + 1}",
                path=str(path),
                line=int(line),
            )
        values.append(row[position])
    return values


def _numbers(
    values: list[str], lines: np.ndarray, path: Path, column: str, *, unit: str = "line"
) -> np.ndarray:
    """Parse strings to float64 (vectorised) and reject non-numeric, NaN and inf values.

    ``lines`` are 1-based text lines (``unit="line"``) or positions of JSON list items /
    array elements (``unit="item"``), named as such in the message.
    """
    try:
        out = np.array(values, dtype=np.float64)
    except ValueError:
        out = None
    if out is None:
        i = next(i for i, value in enumerate(values) if not _is_number(value))
        problem = f"value {values[i]!r} is not a number; correct or remove that {unit}"
    else:
        bad = ~np.isfinite(out)
        if not bad.any():
            return out
        i = int(np.flatnonzero(bad)[0])
        problem = (
            f"value {values[i]!r} is not a finite number; scores must be finite, "
            f"correct or remove that {unit}"
        )
    if unit == "line":
        raise InputError(problem, path=str(path), line=int(lines[i]), column=column)
    raise InputError(f"{unit} {int(lines[i])}: {problem}", path=str(path), column=column)


def _checked_array(values: np.ndarray, path: Path) -> np.ndarray:
    """A 1-D numeric ``.npy`` array as float64, rejecting NaN and inf (by element)."""
    out = values.astype(np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"element {i + 1} (0-based index {i}): value {float(out[i])!r} is not a finite number; "
            "scores must be finite, correct the array",
            path=str(path),
        )
    return out


def _labels(values: list[str], lines: np.ndarray, path: Path, *, unit: str = "line") -> np.ndarray:
    """True for SS, False for DS; unknown labels are an error naming the line."""
    lowered = np.char.lower(np.array(values, dtype=str))
    is_ss = np.isin(lowered, list(SS_LABELS))
    is_ds = np.isin(lowered, list(DS_LABELS))
    unknown = ~(is_ss | is_ds)
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        problem = (
            f"label {values[i]!r} is not recognised; use 1/0, ss/ds, same/different, "
            "target/nontarget or true/false"
        )
        if unit != "line":
            raise InputError(f"{unit} {int(lines[i])}: {problem}", path=str(path), column="label")
        raise InputError(problem, path=str(path), line=int(lines[i]), column="label")
    return is_ss


def _has_source_columns(table: _Table) -> bool:
    return table.header is not None and bool(
        {"source", "source_a", "source_b"} & set(table.header)
    )


def _source_pairs(table: _Table, path: Path, is_ss: np.ndarray) -> np.ndarray | None:
    """``(n, 2)`` source ids from a ``source`` or ``source_a,source_b`` header, else None.

    ``is_ss`` (one flag per row) is checked against the ids when there are two columns.
    """
    if not _has_source_columns(table):
        return None
    names = set(table.header) & {"source", "source_a", "source_b"}
    header_line = int(table.lines[0]) - 1 if table.lines.size else 1
    if "source" in names and len(names) > 1:
        raise InputError(
            "has both a 'source' column and 'source_a'/'source_b' columns; keep either "
            "'source' (one source per trial) or 'source_a' and 'source_b'",
            path=str(path),
            line=header_line,
        )
    if names in ({"source_a"}, {"source_b"}):
        missing = ({"source_a", "source_b"} - names).pop()
        raise InputError(
            f"has a {names.pop()!r} column but no {missing!r} column; give both, or one "
            "'source' column",
            path=str(path),
            line=header_line,
        )
    columns = ["source"] * 2 if "source" in names else ["source_a", "source_b"]
    pairs = np.column_stack([np.array(_column(table, path, c, 0), dtype=str) for c in columns])
    pairs = _checked_ids(pairs, table.lines, path, columns)
    if columns[0] != columns[1]:
        _check_source_labels(pairs, is_ss, table.lines, path)
    return pairs


def _checked_ids(pairs: np.ndarray, lines: np.ndarray, path: Path, columns) -> np.ndarray:
    """Reject empty source ids, naming the line and column."""
    empty = np.char.str_len(np.char.strip(pairs)) == 0
    if empty.any():
        row, col = (int(v) for v in np.argwhere(empty)[0])
        raise InputError(
            "source id is empty; give every trial the id of its source (or remove the "
            "source columns)",
            path=str(path),
            line=int(lines[row]),
            column=columns[col],
        )
    return pairs


def _check_source_labels(
    pairs: np.ndarray, is_ss: np.ndarray, lines: np.ndarray, path: Path
) -> None:
    """SS trials compare one source with itself, DS trials two different sources."""
    same = pairs[:, 0] == pairs[:, 1]
    if not np.all(same == is_ss):
        bad = int(np.flatnonzero(same != is_ss)[0])
        a, b = str(pairs[bad, 0]), str(pairs[bad, 1])
        if is_ss[bad]:
            fix = f"a same-source trial has source_a {a!r} != source_b {b!r}"
        else:
            fix = f"a different-source trial has source_a = source_b = {a!r}"
        raise InputError(
            f"{fix}; correct the label or the source ids",
            path=str(path),
            line=int(lines[bad]),
            column="source_b",
        )


# --------------------------------------------------------------------------- labelled rows
@dataclass(frozen=True, eq=False)
class _Rows:
    """The rows of one labelled file in file order: labels, score columns, sources, ids."""

    path: str
    is_ss: np.ndarray
    scores: dict[str, np.ndarray]
    sources: np.ndarray | None
    ids: np.ndarray | None
    where: np.ndarray  # 1-based line (text) or item (JSON) of each row
    unit: str  # "line" or "item"

    def at(self, row: int) -> str:
        return f"{self.path}, {self.unit} {int(self.where[row])}"


def _table_rows(
    table: _Table, path: Path, score_columns: tuple[str, ...] = ("score",),
    id_column: str | None = None,
) -> _Rows:
    """Labels, score columns, sources and ids of a text table.

    Without a header the label is column 1 and the score column 2; other score columns
    or an id column need a header naming them.
    """
    if table.header is None and (id_column is not None or score_columns != ("score",)):
        wanted = ", ".join(["label", *score_columns, *([id_column] if id_column else [])])
        raise InputError(
            f"has no header line; add one naming the columns ({wanted})", path=str(path), line=1
        )
    is_ss = _labels(_column(table, path, "label", 0), table.lines, path)
    scores = {
        c: _numbers(_column(table, path, c, 1), table.lines, path, c) for c in score_columns
    }
    ids = None
    if id_column is not None:
        ids = np.array(_column(table, path, id_column, 0), dtype=str)
        _check_ids(ids, table.lines, str(path), id_column, "line")
    sources = _source_pairs(table, path, is_ss)
    return _Rows(str(path), is_ss, scores, sources, ids, table.lines, "line")


def _json_rows(
    data: list[dict], path: Path, score_columns: tuple[str, ...] = ("score",),
    id_column: str | None = None,
) -> _Rows:
    """Labels, score columns, sources and ids of a JSON list of objects (one per trial)."""
    keys = ["label", *score_columns, *([id_column] if id_column else [])]
    for i, item in enumerate(data):
        missing = [k for k in keys if k not in item]
        if missing:
            raise InputError(
                f"item {i + 1} lacks the key(s) {', '.join(map(repr, missing))}", path=str(path)
            )
    items = np.arange(1, len(data) + 1)
    is_ss = _labels([_json_text(d["label"]) for d in data], items, path, unit="item")
    scores = {
        c: _numbers([_json_text(d[c]) for d in data], items, path, c, unit="item")
        for c in score_columns
    }
    ids = None
    if id_column is not None:
        ids = np.array([_json_text(d[id_column]) for d in data], dtype=str)
        _check_ids(ids, items, str(path), id_column, "item")
    return _Rows(str(path), is_ss, scores, _json_sources(data, is_ss, path), ids, items, "item")


def _check_ids(ids: np.ndarray, where: np.ndarray, path: str, column: str, unit: str) -> None:
    """Trial ids must be non-empty and unique within a file."""
    empty = np.flatnonzero(np.char.str_len(np.char.strip(ids)) == 0)
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
            f"trial id {str(ids[first])!r} is on {unit}s {int(where[first])} and "
            f"{int(where[second])}; ids must be unique (one row per trial)",
            path=path,
            column=column,
        )


# --------------------------------------------------------------------------- readers
def _existing(path) -> Path:
    p = Path(path)
    if not p.is_file():
        raise InputError(
            "file not found; check the path (relative paths start from the "
            "current directory or the case file)",
            path=str(p),
        )
    return p


def _json_text(value) -> str:
    """A JSON value as text for parsing and messages: ``null``, ``true``, ``1.5``, ``abc``."""
    if value is None or isinstance(value, bool | list | dict):
        return json.dumps(value)
    return str(value)


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"is not valid JSON ({exc.msg})", path=str(path), line=exc.lineno
        ) from None


def read_score_file(path, *, label: str | None = None) -> np.ndarray:
    """Scores of one class from one file (see the module docstring for formats).

    Parameters
    ----------
    path : str or Path
    label : str, optional
        ``"ss"`` or ``"ds"``; only used in messages (and, with ``source_a,source_b``
        columns, to check the ids: equal for ``"ss"``, different for ``"ds"``).

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
    return _read_class(path, label)[0]


def _read_class(path, label: str | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Scores of one class and their ``(n, 2)`` source ids (None without source columns)."""
    p = _existing(path)
    what = f"{label} " if label else ""
    if p.suffix.lower() == ".npy":
        try:
            values = np.load(p, allow_pickle=False)
        except ValueError as exc:
            raise InputError(f"is not a readable .npy array ({exc})", path=str(p)) from None
        if values.ndim != 1 or values.dtype.kind not in "iuf":
            raise InputError(f"must hold a 1-D numeric array of {what}scores", path=str(p))
        return _checked_array(values, p), None
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        if not isinstance(data, list):
            raise InputError(f"must hold a JSON list of {what}scores", path=str(p))
        values = [_json_text(v) for v in data]
        return _numbers(values, np.arange(1, len(values) + 1), p, "score", unit="item"), None
    fast = _fast_text(p, labelled=False)
    if fast is not None:
        return fast[1], None
    table = _read_table(p)
    if table.header is None and any(len(r) > 1 for r in table.rows):
        raise InputError(
            f"has several columns but no header; give one {what}score per line, or a "
            "header line with a 'score' column (if ',' is your decimal separator, "
            "write decimals with '.')",
            path=str(p),
            line=int(table.lines[0]),
        )
    scores = _numbers(_column(table, p, "score", 0), table.lines, p, "score")
    is_ss = np.full(scores.size, label == "ss")
    return scores, _source_pairs(table, p, is_ss) if label in ("ss", "ds") else None


def _json_sources(data: list[dict], is_ss: np.ndarray, path: Path) -> np.ndarray | None:
    """Source ids of JSON items (``source`` or ``source_a``/``source_b`` keys), else None."""
    keys = [{"source", "source_a", "source_b"} & set(d) for d in data]
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
    pairs = np.array([[str(d[c]) for c in columns] for d in data], dtype=str).reshape(-1, 2)
    pairs = _checked_ids(pairs, items, path, columns)
    if columns[0] != columns[1]:
        _check_source_labels(pairs, is_ss, items, path)
    return pairs


def _split(rows: _Rows):
    """``(ss, ds, ss_sources, ds_sources)`` from labelled rows (the ``score`` column)."""
    scores, labels, pairs = rows.scores["score"], rows.is_ss, rows.sources
    if pairs is None:
        return scores[labels], scores[~labels], None, None
    return scores[labels], scores[~labels], pairs[labels], pairs[~labels]


def _read_labelled(path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    p = _existing(path)
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        if isinstance(data, dict) and set(data) == {"ss", "ds"}:
            for key in ("ss", "ds"):
                if not isinstance(data[key], list):
                    raise InputError(
                        f'"{key}" must be a JSON list of numbers, got {type(data[key]).__name__}',
                        path=str(p),
                    )
            ss, ds = (
                _numbers(
                    [_json_text(v) for v in data[key]], np.arange(1, len(data[key]) + 1), p, key,
                    unit="item",
                )
                for key in ("ss", "ds")
            )
            return ss, ds, None, None
        if isinstance(data, list) and all(isinstance(d, dict) for d in data):
            return _split(_json_rows(data, p))
        raise InputError(
            'must be {"ss": [...], "ds": [...]} or a list of {"label": .., "score": ..}',
            path=str(p),
        )
    if p.suffix.lower() == ".npy":
        raise InputError(
            "a .npy file holds the scores of one class; give --ss and --ds files (or a "
            "labelled CSV/JSON file)",
            path=str(p),
        )
    fast = _fast_text(p, labelled=True)
    if fast is not None:
        is_ss, scores = fast
        return scores[is_ss], scores[~is_ss], None, None
    return _split(_table_rows(_read_table(p), p))


def _check_class(values: np.ndarray, name: str, where: str) -> None:
    if values.size == 0:
        raise InputError(f"{where}: no {name} scores; the {name} class needs at least 2")
    if values.size < 2:
        raise InputError(f"{where}: only {values.size} {name} score; at least 2 are needed")


def load_scores(
    *,
    ss=None,
    ds=None,
    scores=None,
    log_base: str | None = None,
    direction: str = "higher_is_similar",
) -> ScoreSet:
    """Load a score set from one file per class (``ss``, ``ds``) or one labelled file.

    Parameters
    ----------
    ss, ds : path, optional
        Same-source and different-source files.
    scores : path, optional
        One file with label and score columns (instead of ``ss`` and ``ds``).
    log_base : {"e", "10", "2"}, optional
        The values are log-LRs in this base: convert to natural log. None: raw scores.
    direction : {"higher_is_similar", "lower_is_similar"}
        ``"lower_is_similar"`` (distances) negates every value so that higher supports Hp.

    Returns
    -------
    ScoreSet
        With ``ss_sources`` / ``ds_sources`` when the files have source columns (both
        files must have them, or neither).

    Raises
    ------
    InputError
        Naming the file, line (1-based, as an editor shows it), column and value: a
        missing file, a value that is not a finite number, an unknown label, a missing
        column, invalid JSON, a class with fewer than 2 scores, both ``scores`` and
        ``ss``/``ds``, an unknown ``log_base`` or ``direction``.

    Notes
    -----
    Values become ``s' = d * v * c`` with ``c = ln b`` for log base ``b`` (1 for raw
    scores) and ``d = -1`` for ``"lower_is_similar"``, else 1. Plain text tables are parsed
    in one vectorised ``numpy.loadtxt`` pass; a file with any problem is re-read line by
    line so that the message names the exact line.
    """
    if direction not in DIRECTIONS:
        raise InputError(f"direction must be one of {', '.join(DIRECTIONS)}; got {direction!r}")
    if scores is not None and (ss is not None or ds is not None):
        raise InputError(
            "give either one labelled file (scores) or two files (ss and ds), not both"
        )
    if scores is not None:
        ss_values, ds_values, ss_src, ds_src = _read_labelled(scores)
        files = {str(scores): sha256_file(scores)}
        where = {"ss": str(scores), "ds": str(scores)}
    elif ss is not None and ds is not None:
        ss_values, ss_src = _read_class(ss, "ss")
        ds_values, ds_src = _read_class(ds, "ds")
        if (ss_src is None) != (ds_src is None):
            has, lacks = (ss, ds) if ds_src is None else (ds, ss)
            raise InputError(
                f"has no source column but {has} has; give both files a 'source' (or "
                "'source_a,source_b') column, or neither",
                path=str(lacks),
            )
        files = {str(ss): sha256_file(ss), str(ds): sha256_file(ds)}
        where = {"ss": str(ss), "ds": str(ds)}
    else:
        raise InputError("give both an ss and a ds file, or one labelled scores file")
    _check_class(ss_values, "same-source (ss)", where["ss"])
    _check_class(ds_values, "different-source (ds)", where["ds"])
    if log_base is not None:
        ss_values, ds_values = (
            to_natural_llr(ss_values, log_base),
            to_natural_llr(ds_values, log_base),
        )
    return ScoreSet(
        orient(ss_values, direction), orient(ds_values, direction), files, ss_src, ds_src
    )
