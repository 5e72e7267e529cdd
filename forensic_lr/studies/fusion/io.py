"""Readers of the worst-case fusion analysis: decisions, labels, fuser truth tables, counts.

Each reader validates as it reads and names the file, line, column and value on error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import InputError, excerpt
from ...io.settings_files import read_settings_file
from ...io.tables import names as shown
from ...io.text_rows import read_rows
from .model import Confusion, TruthTable, check_confusion

#: Cell values read as a positive (True) or negative (False) decision or label.
_TRUE = frozenset({"1", "p", "pos", "positive", "true", "yes"})
_FALSE = frozenset({"0", "n", "neg", "negative", "false", "no"})

__all__ = ["read_counts", "read_decisions", "read_labels", "read_truth_table",
           "reorder_truth_table"]



def _binary(value: str, path, line: int, column: str) -> bool:
    v = value.lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise InputError(
        f"value {excerpt(value)} is not a binary decision; write 1/0 (or p/n, true/false)",
        path=str(path),
        line=line,
        column=shown([column]),
    )


def read_decisions(path) -> tuple[tuple[str, ...], np.ndarray]:
    """Component decisions from a CSV file: a header of component names, one row per instance.

    Returns the names and an ``(n, k)`` boolean array (True = positive). Values are 1/0,
    p/n or true/false (any case).
    """
    rows = read_rows(path)
    line0, header = rows[0]
    names = tuple(header)
    if any(not h for h in names) or len(set(names)) != len(names):
        raise InputError(
            f"the header ({shown(names)}) must name every component once",
            path=str(path),
            line=line0,
        )
    if all(h.lower() in _TRUE | _FALSE for h in names):
        raise InputError(
            "the first row must be a header of component names, e.g. 'A,B,C'",
            path=str(path),
            line=line0,
        )
    if len(rows) < 2:
        raise InputError("the file has a header but no decisions", path=str(path))
    out = np.empty((len(rows) - 1, len(names)), dtype=bool)
    for r, (line, values) in enumerate(rows[1:]):
        if len(values) != len(names):
            raise InputError(
                f"{len(values)} values but the header names {len(names)} components",
                path=str(path),
                line=line,
            )
        out[r] = [_binary(v, path, line, n) for v, n in zip(values, names, strict=True)]
    return names, out


def read_labels(path) -> np.ndarray:
    """True classes from a one-column CSV file (optional header), one row per instance."""
    rows = read_rows(path)
    first = rows[0][1]
    if len(first) == 1 and first[0].lower() not in _TRUE | _FALSE:
        rows = rows[1:]
    if not rows:
        raise InputError("the file has a header but no labels", path=str(path))
    col = first[0] if len(first) == 1 else "1"
    out = np.empty(len(rows), dtype=bool)
    for r, (line, values) in enumerate(rows):
        if len(values) != 1:
            raise InputError(
                f"{len(values)} values; the labels file has one column (1 = positive)",
                path=str(path),
                line=line,
            )
        out[r] = _binary(values[0], path, line, col)
    return out


def read_truth_table(path, components=None) -> TruthTable:
    """A fuser's truth table from CSV or JSON, reordered to ``components`` if given.

    CSV: a header of component names plus a column ``fused``, one row per combination of
    0/1 decisions. JSON: a list of objects with the same keys. Every combination must
    appear exactly once.
    """
    p = Path(path)
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        if not isinstance(data, list) or not data or not all(isinstance(r, dict) for r in data):
            raise InputError(
                'a JSON truth table is a list of objects like {"A": 1, "B": 0, "fused": 1}',
                path=str(path),
            )
        header = list(data[0])
        rows = [
            (
                i + 1,
                [
                    str(int(r[h])) if isinstance(r.get(h), (bool, int)) else str(r.get(h))
                    for h in header
                ],
            )
            for i, r in enumerate(data)
        ]
        where = "entry"
    else:
        all_rows = read_rows(p)
        header, rows, where = all_rows[0][1], all_rows[1:], "line"
    if "fused" not in header:
        raise InputError(
            f"the truth table needs a column 'fused' next to the components; got {shown(header)}",
            path=str(path),
        )
    names = [h for h in header if h != "fused"]
    k = len(names)
    outputs = np.full(2**k, -1)
    seen_at = {}
    for line, values in rows:
        if len(values) != len(header):
            raise InputError(
                f"{len(values)} values, expected {len(header)}", path=str(path), line=line
            )
        row = dict(zip(header, values, strict=True))
        bits = [_binary(row[n], path, line, n) for n in names]
        idx = sum(int(b) << (k - 1 - j) for j, b in enumerate(bits))
        if idx in seen_at:
            raise InputError(
                f"combination {_combination(names, bits)} already given "
                f"at {where} "
                f"{seen_at[idx]}; give each combination once",
                path=str(path),
                line=line,
            )
        seen_at[idx] = line
        outputs[idx] = _binary(row["fused"], path, line, "fused")
    if (outputs < 0).any():
        r = int(np.flatnonzero(outputs < 0)[0])
        missing = _combination(names, [(r >> (k - 1 - j)) & 1 for j in range(k)])
        raise InputError(
            f"the truth table has no row for {missing} ({int((outputs < 0).sum())} of "
            f"{2**k} combinations missing); add one row per combination",
            path=str(path),
        )
    table = TruthTable(tuple(names), tuple(bool(o) for o in outputs))
    return table if components is None else reorder_truth_table(table, components, path)


def reorder_truth_table(table: TruthTable, components, path=None) -> TruthTable:
    """The same fuser with its inputs in the order of ``components``."""
    names = tuple(str(c) for c in components)
    if sorted(names) != sorted(table.components):
        raise InputError(
            f"the truth table's components ({shown(table.components)}) differ from the decision "
            f"columns ({shown(names)}); use the same names",
            path=None if path is None else str(path),
        )
    k = len(names)
    rows = np.arange(2**k)
    old = np.zeros(2**k, dtype=np.int64)
    for j, n in enumerate(names):  # loop over components, not instances
        bit = (rows >> (k - 1 - j)) & 1
        old |= bit << (k - 1 - table.components.index(n))
    return TruthTable(names, tuple(np.asarray(table.outputs, dtype=bool)[old].tolist()))


def _read_json(path: Path):
    return read_settings_file(path, "JSON file")


def read_counts(path) -> dict[str, Confusion]:
    """The counts of case (a) from JSON: ``system_pos``, ``system_neg`` and ``model``.

    Each is an object ``{"tp": .., "fn": .., "fp": .., "tn": ..}``.
    """
    data = _read_json(Path(path))
    keys = ("system_pos", "system_neg", "model")
    if not isinstance(data, dict) or set(data) != set(keys):
        got = shown(sorted(map(str, data))) if isinstance(data, dict) else type(data).__name__
        raise InputError(
            f"the counts file is an object with exactly the keys {list(keys)}; got {got}",
            path=str(path),
        )
    out = {}
    for k in keys:
        try:
            out[k] = check_confusion(data[k], k)
        except InputError as exc:
            raise InputError(str(exc), path=str(path), column=k) from None
    return out


def _combination(names, bits) -> str:
    """``A=1, B=0`` with each component name shortened for a message (:func:`shown`)."""
    return ", ".join(f"{shown([n])}={int(b)}" for n, b in zip(names, bits, strict=True))
