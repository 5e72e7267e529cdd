"""Is a fitted calibration monotonic where it matters? A grid check of the LLR curve.

A calibrated LR must not fall as the score rises: a higher score is more similar, so it
cannot support the same-source proposition less. Density-ratio methods (KDE, two
Gaussians with unequal variances) can turn down in a tail or between modes; a case whose
score lies near such a turn gets an LR that ranks the evidence the wrong way round.
:func:`monotonicity_check` evaluates the fitted LLR on a grid over the span that matters
and reports the largest decrease.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import as_score_array
from .._numbers import LN10
from ..errors import InputError
from ..records import jsonable

__all__ = ["MonotonicityCheck", "bulk_span", "monotonicity_check"]



@dataclass(frozen=True)
class MonotonicityCheck:
    """The largest fall of a fitted LLR curve over a score span.

    Attributes
    ----------
    span : (float, float)
        The score span checked (score-like: higher supports Hp).
    n_grid : int
        Grid points evaluated.
    max_decrease_log10 : float
        Largest ``max_{t <= s} log10 LR(t) - log10 LR(s)`` over the grid (0 for a
        non-decreasing curve).
    at : (float, float) or None
        The scores ``(t, s)`` of that largest fall, None when there is none.
    tolerance_log10 : float
        Falls up to this size (in log10 LR) are accepted as numerical noise.
    """

    span: tuple[float, float]
    n_grid: int
    max_decrease_log10: float
    at: tuple[float, float] | None
    tolerance_log10: float

    @property
    def monotonic(self) -> bool:
        """True when no fall exceeds the tolerance."""
        return self.max_decrease_log10 <= self.tolerance_log10

    def to_dict(self) -> dict:
        return jsonable({
            "span": list(self.span),
            "n_grid": self.n_grid,
            "max_decrease_log10": self.max_decrease_log10,
            "at": None if self.at is None else list(self.at),
            "tolerance_log10": self.tolerance_log10,
            "monotonic": self.monotonic,
        })


def bulk_span(ss, ds, evidence=(), *, quantiles: tuple[float, float] = (0.0, 1.0)
              ) -> tuple[float, float]:
    """The score span where calibration matters: each class's bulk and the evidence.

    Parameters
    ----------
    ss, ds : array_like
        Background scores (score-like, finite).
    evidence : array_like
        Evidence scores (score-like); the span is widened to include them.
    quantiles : (float, float)
        Lower and upper quantile of each class's bulk; the default (0, 1) is the whole
        observed range, (0.05, 0.95) leaves out each class's sparsest tenth.

    Returns
    -------
    (float, float)
        ``(min(q_lo(ss), q_lo(ds), evidence), max(q_hi(ss), q_hi(ds), evidence))``.

    Notes
    -----
    The quantiles are taken per class, not of the pooled scores: the classes count
    equally, as in prior-neutral training and in Cllr, so a background with ten times
    more different-source scores does not hide the top of the same-source bulk. The
    default covers every observed score: a fall anywhere the background reaches means
    the model ranks observed comparisons the wrong way round (the glass-distance KDE
    falls by 0.17 in log10 LR between the top of the same-source scores and their
    maximum, but only by 0.02 inside the 5 %-95 % bulk).
    """
    lo_q, hi_q = quantiles
    if not 0.0 <= lo_q < hi_q <= 1.0:
        raise InputError(f"quantiles {quantiles!r} must satisfy 0 <= low < high <= 1")
    ss, ds = as_score_array(ss, "ss"), as_score_array(ds, "ds")
    ev = np.asarray(evidence, dtype=np.float64).ravel()
    lows = [np.quantile(ss, lo_q), np.quantile(ds, lo_q), *ev]
    highs = [np.quantile(ss, hi_q), np.quantile(ds, hi_q), *ev]
    return float(min(lows)), float(max(highs))


def monotonicity_check(calibrator, span: tuple[float, float], *, n_grid: int = 401,
                       tolerance_log10: float = 0.05) -> MonotonicityCheck:
    """Largest decrease of a fitted calibrator's LLR on a grid over ``span``.

    Parameters
    ----------
    calibrator : Calibrator
        A fitted calibrator (anything with ``llr(scores)`` in natural log).
    span : (float, float)
        Score span to check, e.g. :func:`bulk_span`.
    n_grid : int
        Number of equally spaced grid points (>= 2).
    tolerance_log10 : float
        Largest fall (log10 LR) accepted as noise (>= 0).

    Returns
    -------
    MonotonicityCheck

    Notes
    -----
    With grid ``s_0 < ... < s_{n-1}`` and ``l_i = LLR(s_i) / ln 10``, the fall at ``i`` is
    ``max_{j <= i} l_j - l_i`` (a running maximum, one pass, O(n)); the curve is
    accepted as monotonic when the largest fall is at most the tolerance. Infinite LLRs
    are allowed (a fall from +inf is infinite, a fall to -inf too, except when the
    running maximum is itself -inf). The grid cannot see a dip narrower than its step
    ``(span[1] - span[0]) / (n - 1)``.
    """
    if n_grid < 2:
        raise InputError(f"n_grid = {n_grid} must be at least 2")
    if not (tolerance_log10 >= 0 and math.isfinite(tolerance_log10)):
        raise InputError(f"tolerance_log10 = {tolerance_log10!r} must be a finite number >= 0")
    lo, hi = float(span[0]), float(span[1])
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise InputError(f"span {span!r} must be two finite scores, low <= high")
    grid = np.linspace(lo, hi, n_grid)
    values = np.asarray(calibrator.llr(grid), dtype=np.float64) / LN10
    if np.isnan(values).any():
        raise InputError("the calibrator returned NaN LLRs on the check grid")
    running = np.maximum.accumulate(values)
    with np.errstate(invalid="ignore"):
        fall = np.where(running == values, 0.0, running - values)
    i = int(np.argmax(fall))
    biggest = float(fall[i])
    at = None
    if biggest > 0:
        j = int(np.argmax(values[: i + 1] == running[i]))
        at = (float(grid[j]), float(grid[i]))
    return MonotonicityCheck(
        span=(lo, hi), n_grid=n_grid, max_decrease_log10=biggest, at=at,
        tolerance_log10=float(tolerance_log10),
    )
