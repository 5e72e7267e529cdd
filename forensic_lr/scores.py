"""Load same-source (SS) and different-source (DS) score sets from files, with clear errors.

Formats
-------
* CSV / TSV / plain text (delimiter from the extension, else sniffed: comma, tab,
  semicolon or whitespace), with or without a header line; ``#`` comments and blank
  lines are skipped. One file per class holds one score per line, or a ``score``
  column; a combined file holds ``label`` and ``score`` columns (without a header:
  label first, score second).
* ``.npy``: a 1-D array, one file per class.
* JSON: a list of numbers (one class), ``{"ss": [...], "ds": [...]}``, or a list of
  ``{"label": ..., "score": ...}`` objects.

Labels (case-insensitive): SS = ``1, ss, same, same-source, target, true, hp``;
DS = ``0, ds, different, different-source, nontarget, non-target, false, hd``.
Every error names the file, the line as an editor shows it (1-based), the column and
the value, and says how to fix it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import InputError

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
    """Validated background scores: 1-D float64 arrays and the SHA-256 of each file read."""

    ss: np.ndarray
    ds: np.ndarray
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"n_ss": int(self.ss.size), "n_ds": int(self.ds.size), "files": dict(self.files)}


def sha256_file(path) -> str:
    """SHA-256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def to_natural_llr(values, log_base: str) -> np.ndarray:
    """Convert log-LRs in base ``"e"``, ``"10"`` or ``"2"`` to natural logs."""
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
    numbered = [(i + 1, ln.strip()) for i, ln in enumerate(text.splitlines())]
    numbered = [(i, ln) for i, ln in numbered if ln and not ln.startswith("#")]
    if not numbered:
        raise InputError("the file is empty: it needs one score per line", path=str(path))
    sep = _delimiter(path, numbered[0][1])
    rows = [[v.strip().strip('"') for v in ln.split(sep)] for _, ln in numbered]
    header = None
    if not all(_is_number(v) for v in rows[0]) and not _looks_like_label_row(rows[0]):
        header = [v.lower() for v in rows[0]]
        rows, numbered = rows[1:], numbered[1:]
    return _Table(header, rows, np.array([i for i, _ in numbered], dtype=np.int64))


def _looks_like_label_row(row: list[str]) -> bool:
    """A headerless label,score row such as ``ss,2.1`` (not a header like ``label,score``)."""
    return len(row) == 2 and row[0].lower() in SS_LABELS | DS_LABELS and _is_number(row[1])


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


def _numbers(values: list[str], lines: np.ndarray, path: Path, column: str) -> np.ndarray:
    """Parse strings to float64 (vectorised) and reject non-numeric, NaN and inf values."""
    try:
        out = np.array(values, dtype=np.float64)
    except ValueError:
        for value, line in zip(values, lines, strict=True):
            if not _is_number(value):
                raise InputError(
                    f"value {value!r} is not a number; correct or remove that line",
                    path=str(path),
                    line=int(line),
                    column=column,
                ) from None
        raise
    bad = ~np.isfinite(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"value {values[i]!r} is not a finite number; scores must be finite, "
            "correct or remove that line",
            path=str(path),
            line=int(lines[i]),
            column=column,
        )
    return out


def _labels(values: list[str], lines: np.ndarray, path: Path) -> np.ndarray:
    """True for SS, False for DS; unknown labels are an error naming the line."""
    lowered = np.char.lower(np.array(values, dtype=str))
    is_ss = np.isin(lowered, list(SS_LABELS))
    is_ds = np.isin(lowered, list(DS_LABELS))
    unknown = ~(is_ss | is_ds)
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        raise InputError(
            f"label {values[i]!r} is not recognised; use 1/0, ss/ds, same/different, "
            "target/nontarget or true/false",
            path=str(path),
            line=int(lines[i]),
            column="label",
        )
    return is_ss


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
        ``"ss"`` or ``"ds"``; only used in messages.
    """
    p = _existing(path)
    what = f"{label} " if label else ""
    if p.suffix.lower() == ".npy":
        try:
            values = np.load(p, allow_pickle=False)
        except ValueError as exc:
            raise InputError(f"is not a readable .npy array ({exc})", path=str(p)) from None
        if values.ndim != 1 or values.dtype.kind not in "iuf":
            raise InputError(f"must hold a 1-D numeric array of {what}scores", path=str(p))
        return _numbers(values.astype(str).tolist(), np.arange(1, values.size + 1), p, "score")
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        if not isinstance(data, list):
            raise InputError(f"must hold a JSON list of {what}scores", path=str(p))
        values = [str(v) for v in data]
        return _numbers(values, np.arange(1, len(values) + 1), p, "score")
    table = _read_table(p)
    if table.header is None and any(len(r) > 1 for r in table.rows):
        raise InputError(
            f"has several columns but no header; give one {what}score per line, or a "
            "header line with a 'score' column",
            path=str(p),
            line=int(table.lines[0]),
        )
    return _numbers(_column(table, p, "score", 0), table.lines, p, "score")


def _read_labelled(path) -> tuple[np.ndarray, np.ndarray]:
    p = _existing(path)
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        if isinstance(data, dict) and set(data) == {"ss", "ds"}:
            ss = _numbers([str(v) for v in data["ss"]], np.arange(1, len(data["ss"]) + 1), p, "ss")
            ds = _numbers([str(v) for v in data["ds"]], np.arange(1, len(data["ds"]) + 1), p, "ds")
            return ss, ds
        if isinstance(data, list) and all(isinstance(d, dict) for d in data):
            missing = [i for i, d in enumerate(data) if not {"label", "score"} <= set(d)]
            if missing:
                raise InputError(
                    f"item {missing[0] + 1} lacks a 'label' or 'score' key", path=str(p)
                )
            items = np.arange(1, len(data) + 1)
            labels = _labels([str(d["label"]) for d in data], items, p)
            scores = _numbers([str(d["score"]) for d in data], items, p, "score")
            return scores[labels], scores[~labels]
        raise InputError(
            'must be {"ss": [...], "ds": [...]} or a list of {"label": .., "score": ..}',
            path=str(p),
        )
    table = _read_table(p)
    labels = _labels(_column(table, p, "label", 0), table.lines, p)
    scores = _numbers(_column(table, p, "score", 1), table.lines, p, "score")
    return scores[labels], scores[~labels]


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
    """
    if direction not in DIRECTIONS:
        raise InputError(f"direction must be one of {', '.join(DIRECTIONS)}; got {direction!r}")
    if scores is not None and (ss is not None or ds is not None):
        raise InputError(
            "give either one labelled file (scores) or two files (ss and ds), not both"
        )
    if scores is not None:
        ss_values, ds_values = _read_labelled(scores)
        files = {str(scores): sha256_file(scores)}
        where = {"ss": str(scores), "ds": str(scores)}
    elif ss is not None and ds is not None:
        ss_values = read_score_file(ss, label="ss")
        ds_values = read_score_file(ds, label="ds")
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
    if direction == "lower_is_similar":
        ss_values, ds_values = -ss_values, -ds_values
    return ScoreSet(ss_values, ds_values, files)
