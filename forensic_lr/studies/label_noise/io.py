"""Reader of the assessors' judgement table (items x assessors, 0/1, blank = not judged)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import InputError, excerpt
from ...io.tables import names as shown
from ...io.text_rows import read_rows
from .model import Judgements

__all__ = ["read_judgements"]



def read_judgements(path) -> Judgements:
    """Read a CSV of duplicate judgements: one row per item, one column per assessor.

    Parameters
    ----------
    path : str or path-like
        CSV (comma, semicolon or tab separated) with a header row naming the assessors.
        Values are 0 or 1; an empty cell (or ``NA``) means the assessor did not judge the
        item. A column called ``item`` or ``id`` holds item identifiers; ``#`` lines are
        comments.

    Returns
    -------
    Judgements

    Raises
    ------
    InputError
        Unreadable file, no data rows, a row with the wrong number of fields, a value other
        than 0/1/blank (naming line, column and value), or an item nobody judged.
    """
    p = Path(path)
    lines = read_rows(p)
    rows = [fields for _, fields in lines]
    header = rows[0]
    if not any(h and not _is_value(h) for h in header):
        raise InputError(
            "the first row must name the assessors (one column per assessor), e.g. 'item,A,B,C'",
            path=str(p),
            line=lines[0][0],
        )
    id_cols = [j for j, h in enumerate(header) if h.lower() in ("item", "id")]
    id_col = id_cols[0] if id_cols else None
    cols = [j for j in range(len(header)) if j != id_col]
    if not cols:
        raise InputError("no assessor columns; add one 0/1 column per assessor", path=str(p))
    if len(rows) < 2:
        raise InputError("the file has a header but no item rows", path=str(p))
    values = np.full((len(rows) - 1, len(cols)), np.nan)
    items = []
    for r, (lineno, row) in enumerate(lines[1:]):
        if len(row) != len(header):
            raise InputError(
                f"{len(row)} fields but the header has {len(header)}; give one value (or an "
                "empty field) per assessor",
                path=str(p),
                line=lineno,
            )
        for k, j in enumerate(cols):
            cell = row[j].strip()
            if cell in ("", "NA", "na", "NaN", "nan"):
                continue
            if cell not in ("0", "1", "0.0", "1.0"):
                raise InputError(
                    f"value {excerpt(cell)} is not a binary judgement; write 1 (positive), 0 "
                    "(negative) or leave the cell empty if the assessor did not judge the item",
                    path=str(p),
                    line=lineno,
                    column=shown([header[j]]),
                )
            values[r, k] = float(cell)
        if np.isnan(values[r]).all():
            raise InputError(
                "no assessor judged this item; remove the row or add a judgement",
                path=str(p),
                line=lineno,
            )
        items.append(row[id_col].strip() if id_col is not None else str(lineno))
    return Judgements(values, tuple(header[j] for j in cols), tuple(items), str(p))


def _is_value(cell: str) -> bool:
    return cell in ("0", "1", "0.0", "1.0", "NA", "na", "NaN", "nan")
