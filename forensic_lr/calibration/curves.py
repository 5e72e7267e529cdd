"""A fitted calibrator evaluated once on a grid of scores: the curves a report draws.

The case pipeline and the validation study compute them (:func:`model_curves`) and hand
them to the report in their records, so that the report draws a model without calling it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ModelCurves", "model_curves", "shown_range"]

_LOG10_E = float(np.log10(np.e))

#: The figures cut the different-source scores' low tail when all scores span more than this
#: many times the range from one same-source range below the lowest same-source score.
TAIL_RATIO = 10.0


def shown_range(ss, ds) -> tuple[float, float]:
    """The range of (score-like) background scores that the figures show.

    All scores, unless the different-source scores reach far below the same-source ones
    (the natural-log LRs of a feature-based model compare very different items with values
    of -1,000 and below, while the same-source LLRs lie within a few units): then the range
    starts one same-source range below the lowest same-source score, ``min(ss) -
    (max(ss) - min(ss))``, when all scores span more than :data:`TAIL_RATIO` times the
    range shown. The figures say how many scores lie beyond.
    """
    ss, ds = np.asarray(ss, dtype=float), np.asarray(ds, dtype=float)
    both = np.concatenate([ss, ds])
    low, high = float(both.min()), float(both.max())
    if ss.size > 1 and np.ptp(ss) > 0:
        cut = float(ss.min() - np.ptp(ss))
        if cut > low and high - low > TAIL_RATIO * (high - cut):
            low = cut
    return low, high


@dataclass(frozen=True)
class ModelCurves:
    """A fitted model evaluated once on a grid of scores, for figures.

    ``pdf_ss`` and ``pdf_ds`` are ``None`` for a model without class densities
    (discriminative calibrators); ``log10_lr`` is the model's (bounded, if ELUB) log10 LR.
    """

    score: np.ndarray
    pdf_ss: np.ndarray | None
    pdf_ds: np.ndarray | None
    log10_lr: np.ndarray


def model_curves(calibrator, ss, ds, *, case_score: float | Sequence[float] | None = None,
                 points: int = 400) -> ModelCurves:
    """Evaluate a fitted calibrator's densities and log10 LR once on a score grid.

    The grid spans the background scores (``ss``, ``ds``; :func:`shown_range`) widened by
    5 % of their range on each side, and this case's score(s) if given (non-finite ones ignored):
    ``points`` evenly spaced scores. ``log10_lr = llr(grid) * log10(e)``; the class
    densities come from the calibrator's ``density(grid)`` if it has one. Evaluated once
    per case, so that an expensive model (a kernel density estimate on 10^5 scores) is not
    evaluated once per figure.
    """
    low, high = shown_range(ss, ds)
    span = high - low
    low, high = low - 0.05 * span, high + 0.05 * span
    if case_score is not None:
        scores = np.atleast_1d(np.asarray(case_score, dtype=np.float64)).ravel()
        scores = scores[np.isfinite(scores)].tolist()
        if scores:
            low, high = min(low, *scores), max(high, *scores)
    grid = np.linspace(low, high, points)
    pdf_ss = pdf_ds = None
    if hasattr(calibrator, "density"):
        pdf_ss, pdf_ds = calibrator.density(grid)
    return ModelCurves(grid, pdf_ss, pdf_ds, calibrator.llr(grid) * _LOG10_E)
