"""``[evidence] scores_file``: many evidence scores of one case, each with its label.

The file is text with a header line naming a ``label`` column and a ``score`` column (any
order, any case, other columns ignored), separated by commas, semicolons or tabs; one
comparison per line, e.g. ``Q1-K1,5.96``. Scores use a decimal point. Labels must be unique
and not empty; scores finite numbers. Every error names the file, line, column and value.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from ..errors import InputError, excerpt
from ..io.paths import input_file
from ..limits import LIMITS

__all__ = ["read_evidence_file"]

#: Largest number of evidence scores in one case file (:data:`forensic_lr.limits.LIMITS`).
MAX_EVIDENCE = LIMITS["evidence_scores"].most


def read_evidence_file(path: str | Path) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The labels and scores of an evidence file, in file order.

    Raises
    ------
    InputError
        Not UTF-8 text, no ``label`` or ``score`` column, an empty or repeated label, a
        score that is not a finite number, no rows, or more than :data:`MAX_EVIDENCE` rows.
    """
    path = input_file(path, "evidence file")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text; save it as CSV (UTF-8)", path=str(path)) from None
    lines = text.splitlines()
    if not lines:
        raise InputError("is empty; give a header line 'label,score' and one score per line",
                         path=str(path))
    header = lines[0]
    delimiter = max((",", ";", "\t"), key=header.count)
    rows = list(csv.reader(lines, delimiter=delimiter))
    names = [c.strip().lower() for c in rows[0]]
    for need in ("label", "score"):
        if need not in names:
            raise InputError(
                f"has no {need!r} column in its header {excerpt(header, 60)}; the first line "
                "must name the columns, e.g. 'label,score'", path=str(path), line=1)
    i_label, i_score = names.index("label"), names.index("score")
    labels, scores, seen = [], [], {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(i_label, i_score):
            raise InputError(f"has {len(row)} column(s), the header {len(names)}",
                             path=str(path), line=number)
        label, cell = row[i_label].strip(), row[i_score].strip()
        if not label:
            raise InputError("empty label; give every score a name, e.g. Q1-K1",
                             path=str(path), line=number, column="label")
        if label in seen:
            raise InputError(f"label {excerpt(label)} repeats line {seen[label]}; labels "
                             "must be unique", path=str(path), line=number, column="label")
        try:
            value = float(cell)
        except ValueError:
            hint = " (write a decimal point, not a comma)" if "," in cell else ""
            raise InputError(f"score {excerpt(cell)} is not a number{hint}", path=str(path),
                             line=number, column="score") from None
        if not math.isfinite(value):
            raise InputError(f"score {excerpt(cell)} is not a finite number", path=str(path),
                             line=number, column="score")
        seen[label] = number
        labels.append(label)
        scores.append(value)
        if len(scores) > MAX_EVIDENCE:
            raise InputError(f"holds more than {MAX_EVIDENCE:,} scores; split the case",
                             path=str(path))
    if not scores:
        raise InputError("has a header but no scores", path=str(path))
    return tuple(labels), tuple(scores)
