"""ROC, its convex hull, equal error rate, AUC and DET coordinates.

Decision rule throughout: decide "same source" when the score is strictly above the
threshold. A threshold sits on each distinct pooled value, so trials with equal
scores always move together (one ROC step, diagonal when the tie mixes SS and DS),
as in the ROCAnalysis package described in [1]_.

References
----------
.. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation.
.. [2] T. Fawcett, A. Niculescu-Mizil, "PAV and the ROC convex hull", Machine Learning
       68 (2007) 97-106.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from .._checks import check_pair
from ..records import Serialisable
from .pav import PAVFit, TieGroups, pav_blocks, sorted_runs, tie_groups


@dataclass(frozen=True)
class ROC(Serialisable):
    """Operating points in ascending threshold order.

    ``p_miss[i]`` is the share of SS scores <= ``thresholds[i]``, ``p_fa[i]`` the share of
    DS scores > ``thresholds[i]``; the first threshold is ``-inf`` (p_miss 0, p_fa 1).
    """

    thresholds: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray


def _roc_from_counts(upper: np.ndarray, n_ss: np.ndarray, n_ds: np.ndarray) -> ROC:
    """ROC from per-step counts (tie groups or PAV blocks) in ascending score order."""
    p_miss = np.concatenate([[0.0], np.cumsum(n_ss) / n_ss.sum()])
    p_fa = np.concatenate([[1.0], 1.0 - np.cumsum(n_ds) / n_ds.sum()])
    p_fa[-1] = 0.0  # exact, whatever the rounding of the cumulative sum
    p_miss[-1] = 1.0
    return ROC(np.concatenate([[-np.inf], upper]), p_miss, p_fa)


def _roc(groups: TieGroups) -> ROC:
    return _roc_from_counts(groups.values, groups.n_ss, groups.n_ds)


def hull_roc(fit: PAVFit) -> ROC:
    """The ROC convex hull (ROCCH) of a PAV fit: one point per block edge."""
    return _roc_from_counts(fit.block_high, fit.n_ss, fit.n_ds)


def roc(ss, ds) -> ROC:
    """Empirical ROC at every distinct threshold, ties handled as one step.

    Parameters
    ----------
    ss, ds : array_like
        Scores or LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    ROC
        ``thresholds`` = ``-inf`` then the distinct pooled values, ascending; ``p_miss``
        rises from 0 to 1 and ``p_fa`` falls from 1 to 0.

    Notes
    -----
    Decide "same source" when the score is strictly above the threshold ``t``:
    ``p_miss(t) = #{s_ss <= t} / N_ss`` and ``p_fa(t) = #{s_ds > t} / N_ds``. Equal scores
    cross a threshold together, so a tie that mixes SS and DS is one diagonal step [1]_.

    References
    ----------
    .. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation.
    """
    return _roc(tie_groups(*check_pair(ss, ds, names=("ss", "ds"))))


def roc_convex_hull(ss, ds) -> ROC:
    """Vertices of the ROC convex hull (lower-left, in the error domain).

    Parameters
    ----------
    ss, ds : array_like
        Scores or LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    ROC
        The hull's vertices from ``(p_fa, p_miss) = (1, 0)`` to ``(0, 1)``; ``thresholds``
        holds the highest score of each PAV block (``-inf`` first).

    Notes
    -----
    The hull's vertices are the boundaries of the PAV blocks [1]_: PAV's cumulative-sum
    diagram (cumulative trials, cumulative SS) is an affine image of the ROC in
    (DS below, SS below) coordinates, and PAV takes its greatest convex minorant.

    References
    ----------
    .. [1] T. Fawcett, A. Niculescu-Mizil, "PAV and the ROC convex hull", Machine
           Learning 68 (2007) 97-106.
    """
    return hull_roc(pav_blocks(*check_pair(ss, ds, names=("ss", "ds"))))


def eer_crossing(curve: ROC) -> float:
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

    Parameters
    ----------
    ss, ds : array_like
        Scores or LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        In [0, 0.5]; 0 for separated classes, 0.5 for no discrimination.

    Notes
    -----
    The point where the hull crosses ``p_miss = p_fa``: on the crossing segment from
    ``(x0, y0)`` to ``(x1, y1)`` (``x = p_fa``, ``y = p_miss``),
    ``t = (x0 - y0) / ((y1 - y0) - (x1 - x0))`` and ``EER = y0 + t (y1 - y0)``. It equals
    the maximum over priors of the minimum Bayes error rate [1]_ [2]_, and is invariant to
    strictly increasing transforms of the scores.

    References
    ----------
    .. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation (``eerch``).
    .. [2] N. Brummer, E. de Villiers, "The BOSARIS toolkit user guide", 2011.
    """
    return eer_crossing(roc_convex_hull(ss, ds))


def eer_interpolated(ss, ds) -> float:
    """Equal error rate by linear interpolation of the raw ROC steps.

    Parameters
    ----------
    ss, ds : array_like
        Scores or LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        In [0, 0.5]; at least :func:`eer` (the hull lies below the raw curve).

    Notes
    -----
    Between the two consecutive ROC points (:func:`roc`) where ``p_miss - p_fa`` changes
    sign, the straight segment is intersected with ``p_miss = p_fa`` (same formula as
    :func:`eer`); a point exactly on the diagonal is returned as it is [1]_.

    References
    ----------
    .. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation (``eer``).
    """
    return eer_crossing(roc(ss, ds))


def auc_of_groups(groups: TieGroups) -> float:
    """AUC = P(s_ss > s_ds) + 0.5 P(s_ss = s_ds) from the tie groups, ascending."""
    ds_below = np.cumsum(groups.n_ds) - groups.n_ds
    wins = np.dot(groups.n_ss, ds_below + 0.5 * groups.n_ds)
    return float(wins / (float(groups.n_ss.sum()) * float(groups.n_ds.sum())))


def auc(ss, ds) -> float:
    """Area under the ROC: ``P(s_ss > s_ds) + 0.5 P(s_ss = s_ds)``.

    Parameters
    ----------
    ss, ds : array_like
        Scores or LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        In [0, 1]; ``auc(ss, ds) + auc(ds, ss) == 1``.

    Notes
    -----
    ``AUC = 1/(N_ss N_ds) sum_g n_ss,g (D_<g + n_ds,g / 2)`` over the tie groups ``g`` of
    the once-sorted pooled scores, where ``D_<g`` counts the DS trials in lower groups:
    the Mann-Whitney U statistic divided by ``N_ss N_ds`` [1]_. O(n log n).

    References
    ----------
    .. [1] H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
           stochastically larger than the other", Ann. Math. Statist. 18 (1947) 50-60.
    """
    return auc_of_groups(sorted_runs(*check_pair(ss, ds, names=("ss", "ds"))))


def det_points(ss, ds) -> tuple[np.ndarray, np.ndarray]:
    """DET coordinates of the ROC points.

    Parameters
    ----------
    ss, ds : array_like
        Scores or LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    (x, y) : tuple of ndarray
        ``x = probit(p_fa)``, ``y = probit(p_miss)`` of the points of :func:`roc`;
        ``-inf`` at rate 0 and ``+inf`` at rate 1 (plots clip them).

    Notes
    -----
    ``probit = Phi^-1``, the standard normal quantile (DET plot, Martin et al. 1997) [1]_.

    References
    ----------
    .. [1] A. Martin, G. Doddington, T. Kamm, M. Ordowski, M. Przybocki, "The DET curve in
           assessment of detection task performance", Proc. Eurospeech (1997) 1895-1898.
    """
    curve = roc(ss, ds)
    return ndtri(curve.p_fa), ndtri(curve.p_miss)
