"""Read numeric matrices (e.g. classifier logits) and label columns from .npy or tables.

Text files and ``.xlsx`` sheets are read with the score tables' reader
(:mod:`forensic_lr.io.tables`): comma-, tab-, semicolon- or whitespace-separated values, one
row per line, an optional header line (recognised because it holds no number), blank
lines and ``#`` comment lines ignored, the decimal separator and encoding detected. Every
row must have as many values as the first. Errors name the file, the 1-based line as an
editor shows it (or the sheet row), the column and the value.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .paths import input_file
from .scores import load_npy
from .tables import Column, read_table


def _all_numbers(header, width, fail):
    """Every column of the table, as finite numbers."""
    return [Column(f"column {i + 1}", "number", position=i) for i in range(width)]


def _load(path, what: str, *, decimal: str | None, sheet: str | None):
    """``(values, where)``: an array, and the line/row of each row (None for ``.npy``)."""
    path = input_file(path, f"{what} file")
    if path.suffix.lower() == ".npy":
        return load_npy(path)[0], None
    table = read_table(path, _all_numbers, decimal=decimal, sheet=sheet)
    if table.where.size == 0:
        raise InputError("the file has a header but no data rows", path=table.location)
    columns = [table.values[f"column {i + 1}"] for i in range(len(table.values))]
    return np.column_stack(columns), table


def read_matrix(path, *, what: str = "logits", decimal: str | None = None,
                sheet: str | None = None) -> np.ndarray:
    """Read an ``(n, K)`` float matrix (K >= 2) of finite values.

    ``decimal`` and ``sheet`` are as for :func:`forensic_lr.tables.read_table`.

    Raises
    ------
    InputError
        Missing file, ragged rows, non-numeric, NaN or infinite values (with the line).
    """
    values, _ = _load(path, what, decimal=decimal, sheet=sheet)
    if values.ndim != 2 or values.shape[1] < 2 or values.dtype.kind not in "iuf":
        raise InputError(
            f"{what} need one row per item and one column per class (>= 2 columns); "
            f"got shape {values.shape}",
            path=str(path),
        )
    values = values.astype(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():  # only an .npy array can get here: tables refuse non-finite values
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise InputError(
            f"value {float(values[row, col])} at row {row + 1} (0-based {row}), column "
            f"{col + 1} is not a finite number",
            path=str(path),
        )
    return values


def read_labels(path, *, what: str = "labels", decimal: str | None = None,
                sheet: str | None = None) -> np.ndarray:
    """Read one integer class index per row (a single column, or a 1-D .npy array)."""
    values, table = _load(path, what, decimal=decimal, sheet=sheet)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise InputError(f"{what} must be a single column of class indices", path=str(path))
    bad = ~np.isfinite(values) | (values != np.round(values))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        where = (
            {"line": int(table.where[row])} if table is not None and table.unit == "line"
            else {}
        )
        place = "" if where else (
            f"row {row + 1}: " if table is None else f"row {int(table.where[row])}: "
        )
        raise InputError(
            f"{place}value {float(values[row])} is not an integer class index (0, 1, 2, ...)",
            path=table.location if table is not None else str(path),
            **where,
        )
    return values.astype(np.int64)
