"""ROC, its convex hull, equal error rate, AUC and DET coordinates.

Decision rule throughout: decide "same source" when the score is strictly above the
threshold. A threshold sits on each distinct pooled value, so trials with equal
scores always move together (one ROC step, diagonal when the tie mixes SS and DS),
as in the ROCAnalysis package described in seed 002 [1]_.

References
----------
.. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation (seed 002 of this project).
.. [2] T. Fawcett, A. Niculescu-Mizil, "PAV and the ROC convex hull", Machine Learning
       68 (2007) 97-106.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from .._checks import check_pair
from .pav import PAVFit, TieGroups, pav_blocks, sorted_runs, tie_groups


@dataclass(frozen=True)
class ROC:
    """Operating points in ascending threshold order.

    ``p_miss[i]`` is the share of SS scores <= ``thresholds[i]``, ``p_fa[i]`` the share of
    DS scores > ``thresholds[i]``; the first threshold is ``-inf`` (p_miss 0, p_fa 1).
    """

    thresholds: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray

    def to_dict(self) -> dict:
        return {k: getattr(self, k).tolist() for k in ("thresholds", "p_miss", "p_fa")}


def _roc_from_counts(upper: np.ndarray, n_ss: np.ndarray, n_ds: np.ndarray) -> ROC:
    """ROC from per-step counts (tie groups or PAV blocks) in ascending score order."""
    p_miss = np.concatenate([[0.0], np.cumsum(n_ss) / n_ss.sum()])
    p_fa = np.concatenate([[1.0], 1.0 - np.cumsum(n_ds) / n_ds.sum()])
    p_fa[-1] = 0.0  # exact, whatever the rounding of the cumulative sum
    p_miss[-1] = 1.0
    return ROC(np.concatenate([[-np.inf], upper]), p_miss, p_fa)


def _roc(groups: TieGroups) -> ROC:
    return _roc_from_counts(groups.values, groups.n_ss, groups.n_ds)


def _hull(fit: PAVFit) -> ROC:
    return _roc_from_counts(fit.block_high, fit.n_ss, fit.n_ds)


def roc(ss, ds) -> ROC:
    """Empirical ROC at every distinct threshold, ties handled as one step."""
    return _roc(tie_groups(*check_pair(ss, ds, names=("ss", "ds"))))


def roc_convex_hull(ss, ds) -> ROC:
    """Vertices of the ROC convex hull (lower-left, in the error domain).

    Notes
    -----
    The hull's vertices are the boundaries of the PAV blocks [2]_: PAV's cumulative-sum
    diagram (cumulative trials, cumulative SS) is an affine image of the ROC in
    (DS below, SS below) coordinates, and PAV takes its greatest convex minorant.
    """
    return _hull(pav_blocks(*check_pair(ss, ds, names=("ss", "ds"))))


def _crossing(curve: ROC) -> float:
    """Where the piecewise-linear curve through the points crosses p_miss = p_fa."""
    d = curve.p_miss - curve.p_fa  # rises from -1 to +1
    i = int(np.searchsorted(d, 0.0, side="left"))
    if d[i] == 0.0:
        return float(curve.p_miss[i])
    x0, y0, x1, y1 = curve.p_fa[i - 1], curve.p_miss[i - 1], curve.p_fa[i], curve.p_miss[i]
    t = (x0 - y0) / ((y1 - y0) - (x1 - x0))
    return float(y0 + t * (y1 - y0))


def eer(ss, ds) -> float:
    """Equal error rate from the ROC convex hull (ROCCH-EER).

    Notes
    -----
    The point where the hull crosses ``p_miss = p_fa``, by linear interpolation along the
    hull segment that crosses it. It equals the maximum over priors of the minimum
    Bayes error rate, and is invariant to monotone transforms of the scores.
    """
    return _crossing(roc_convex_hull(ss, ds))


def eer_interpolated(ss, ds) -> float:
    """Equal error rate by linear interpolation of the raw ROC where p_miss - p_fa changes sign."""
    return _crossing(roc(ss, ds))


def _auc(groups: TieGroups) -> float:
    ds_below = np.cumsum(groups.n_ds) - groups.n_ds
    wins = np.sum(groups.n_ss * (ds_below + 0.5 * groups.n_ds))
    return float(wins / (groups.n_ss.sum() * groups.n_ds.sum()))


def auc(ss, ds) -> float:
    """Area under the ROC: ``P(s_ss > s_ds) + 0.5 P(s_ss = s_ds)``.

    Notes
    -----
    One sort of the pooled scores; for each tie group, its SS trials beat every DS trial
    in lower groups and tie with the DS trials of the group (Mann-Whitney U / (N_ss N_ds)).
    """
    return _auc(sorted_runs(*check_pair(ss, ds, names=("ss", "ds"))))


def det_points(ss, ds) -> tuple[np.ndarray, np.ndarray]:
    """DET coordinates ``(probit(p_fa), probit(p_miss))`` of the ROC points (+-inf at 0, 1)."""
    curve = roc(ss, ds)
    return ndtri(curve.p_fa), ndtri(curve.p_miss)
