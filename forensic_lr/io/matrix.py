"""Read numeric matrices (e.g. classifier logits) and label columns from .npy or text files.

Text files are read with the score files' reader (:mod:`forensic_lr.io.scores`): comma-,
tab-, semicolon- or whitespace-separated values, one row per line, an optional header line
(recognised because it is not numeric), blank lines and ``#`` comments ignored. Errors
name the file, the 1-based line as an editor shows it, and the value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from .scores import _is_number, _read_table


def _load(path, what: str) -> tuple[np.ndarray, list[int] | None]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{what} file not found; check the path", path=str(path))
    if path.suffix.lower() == ".npy":
        try:
            return np.load(path, allow_pickle=False), None
        except ValueError as exc:
            raise InputError(f"not a readable .npy array ({exc})", path=str(path)) from None
    table = _read_table(path)  # the score files' reader: comments, delimiter, header
    if not table.rows:
        raise InputError("the file has a header but no data rows", path=str(path))
    rows, line_numbers = table.rows, table.lines.tolist()
    width = len(rows[0])
    for row, line in zip(rows, line_numbers, strict=True):
        if len(row) != width:
            raise InputError(
                f"has {len(row)} values but the first data row has {width}; "
                "every row needs the same number of columns",
                path=str(path),
                line=line,
            )
    try:
        values = np.array(rows, dtype=np.float64)
    except ValueError:
        for row, line in zip(rows, line_numbers, strict=True):
            bad = [v for v in row if not _is_number(v)]
            if bad:
                raise InputError(
                    f"value {bad[0]!r} is not a number; fix or remove it",
                    path=str(path),
                    line=line,
                ) from None
        raise
    return values, line_numbers


def _where(path, line_numbers: list[int] | None, row: int) -> dict:
    return {"path": str(path), "line": None if line_numbers is None else line_numbers[row]}


def read_matrix(path, *, what: str = "logits") -> np.ndarray:
    """Read an ``(n, K)`` float matrix (K >= 2) of finite values.

    Raises
    ------
    InputError
        Missing file, ragged rows, non-numeric, NaN or infinite values (with the line).
    """
    values, lines = _load(path, what)
    if values.ndim != 2 or values.shape[1] < 2:
        raise InputError(
            f"{what} need one row per item and one column per class (>= 2 columns); "
            f"got shape {values.shape}",
            path=str(path),
        )
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise InputError(
            f"value {float(values[row, col])} in column {col + 1} is not a finite number",
            **_where(path, lines, row),
        )
    return values.astype(np.float64)


def read_labels(path, *, what: str = "labels") -> np.ndarray:
    """Read one integer class index per row (a single column, or a 1-D .npy array)."""
    values, lines = _load(path, what)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise InputError(f"{what} must be a single column of class indices", path=str(path))
    bad = ~np.isfinite(values) | (values != np.round(values))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"value {float(values[row])} is not an integer class index (0, 1, 2, ...)",
            **_where(path, lines, row),
        )
    return values.astype(np.int64)
