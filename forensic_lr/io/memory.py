"""Scores already in memory: arrays, lists, pandas Series and DataFrames, and mappings.

The readers of :mod:`forensic_lr.io.scores` take files; these functions take the same data
from a notebook and apply the same rules: the same labels (1/0, ``ss``/``ds``,
``same``/``different``, ``target``/``nontarget`` ...), the same column choices (by name,
any case, or by 1-based position; default ``score``, ``label``, ``source`` or
``source_a``/``source_b``), and errors that name the column and the row. pandas is never
imported here: a DataFrame is read through its ``columns`` and ``__getitem__``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError, excerpt
from .tables import DS_LABELS, LABEL_HELP, SS_LABELS

__all__ = ["is_path", "is_table", "same_source_labels", "score_values", "table_scores"]


def is_path(value: Any) -> bool:
    """True for a file name (``str`` or path-like): the file readers take it."""
    return isinstance(value, (str, os.PathLike))


def is_table(value: Any) -> bool:
    """True for a DataFrame or a mapping of column name -> values."""
    return isinstance(value, Mapping) or (hasattr(value, "columns") and hasattr(value, "iloc"))


def _rows(values: Any) -> np.ndarray:
    """The row labels to quote in errors: a Series' or DataFrame's index, else 0, 1, 2 ..."""
    index = getattr(values, "index", None)  # a list's .index is a method, not row labels
    return np.asarray(index) if index is not None and not callable(index) else np.arange(
        len(values))


def score_values(values: Any, *, what: str) -> np.ndarray:
    """A 1-D float64 array of finite scores from a list, array or Series (``what`` names it).

    Raises
    ------
    InputError
        Not one-dimensional, a value that is not a number, or one that is not finite
        (naming the first such row).
    """
    array = np.asarray(values)
    if array.ndim != 1:
        raise InputError(f"{what}: expected one column of scores, got shape {array.shape}")
    if array.dtype.kind in "biuf":
        numbers = array.astype(np.float64)
    else:  # text or mixed objects: name the first value that is not a number
        array = np.asarray(values, dtype=object)  # each value as given, not as text
        bad = next((i for i, v in enumerate(array) if not _is_number(v)), None)
        if bad is not None:
            raise InputError(f"{what}, row {_rows(values)[bad]}: value "
                             f"{excerpt(str(array[bad]))} is not a number; convert the column "
                             "to numbers, or correct or remove that row")
        numbers = array.astype(np.float64)
    infinite = np.flatnonzero(~np.isfinite(numbers))
    if infinite.size:
        row = _rows(values)[infinite[0]]
        raise InputError(f"{what}, row {row}: value {numbers[infinite[0]]} is not a finite "
                         f"number ({infinite.size} such value(s)); scores must be finite")
    return numbers


def _is_number(value: Any) -> bool:
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def same_source_labels(values: Any, *, what: str = "label") -> np.ndarray:
    """True where a label says same source: numbers 1/0, booleans, or the files' label words.

    Raises
    ------
    InputError
        A number other than 1 or 0, or an unknown word, naming its row and the valid labels.
    """
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        bad = np.flatnonzero(~np.isin(array, (0, 1)))
        if bad.size:
            raise InputError(f"{what}, row {_rows(values)[bad[0]]}: label {array[bad[0]]!r} is "
                             f"not recognised; {LABEL_HELP}")
        return array == 1
    text = np.char.lower(np.char.strip(array.astype(str)))
    is_ss = np.isin(text, list(SS_LABELS))
    bad = np.flatnonzero(~(is_ss | np.isin(text, list(DS_LABELS))))
    if bad.size:
        raise InputError(f"{what}, row {_rows(values)[bad[0]]}: label "
                         f"{excerpt(str(array[bad[0]]))} is not recognised; {LABEL_HELP}")
    return is_ss


def _column(table: Any, choice: str | int | None, default: tuple[str, ...], role: str,
            option: str) -> tuple[str, Any] | None:
    """The (name, values) of the chosen column: by name (any case) or 1-based position."""
    names = [str(c) for c in table.columns] if hasattr(table, "columns") else list(map(str, table))
    keys = list(table.columns) if hasattr(table, "columns") else list(table)
    if isinstance(choice, int) and not isinstance(choice, bool):
        if not 1 <= choice <= len(keys):
            raise InputError(f"{option}={choice}: the table has {len(keys)} column(s); "
                             "positions count from 1")
        return names[choice - 1], table[keys[choice - 1]]
    wanted = (str(choice),) if choice is not None else default
    lower = {n.lower(): k for n, k in zip(names, keys, strict=True)}
    for name in wanted:
        if name.lower() in lower:
            return name, table[lower[name.lower()]]
    if choice is None and role == "source":  # the one optional column
        return None
    raise InputError(f"no {role} column {' or '.join(map(repr, wanted))}; the table's columns "
                     f"are {names}; choose one with {option}=")


def _sources(table: Any, choice: str | int | None, n: int) -> np.ndarray | None:
    """Source ids as an ``(n, 2)`` string array (one column: both items' source)."""
    if choice is None:
        pair = [_column(table, None, (name,), "source", "source_column")
                for name in ("source_a", "source_b")]
        if all(pair):
            return np.column_stack([np.asarray(v).astype(str) for _, v in pair])
    found = _column(table, choice, ("source",), "source", "source_column")
    if found is None:
        return None
    ids = np.asarray(found[1]).astype(str)
    return np.column_stack([ids, ids]) if ids.shape == (n,) else None


def table_scores(table: Any, *, score_column=None, label_column=None, source_column=None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """SS and DS scores (and source ids) of a labelled table in memory.

    Returns
    -------
    ss, ds : numpy.ndarray
    ss_sources, ds_sources : numpy.ndarray of shape (n, 2) or None
    """
    score_name, scores = _column(table, score_column, ("score",), "score", "score_column")
    label = _column(table, label_column, ("label",), "label", "label_column")
    values = score_values(scores, what=f"column {score_name!r}")
    is_ss = same_source_labels(label[1], what=f"column {label[0]!r}")
    sources = _sources(table, source_column, values.size)
    if sources is None:
        return values[is_ss], values[~is_ss], None, None
    return values[is_ss], values[~is_ss], sources[is_ss], sources[~is_ss]
