"""Pool-adjacent-violators (PAV): the optimal monotone LLR of a set of scores.

PAV fits the isotonic (non-decreasing in score) estimate of P(ss | score) on the pooled,
sorted scores. Its blocks give the prior-neutral "oracle" LLR that is the best any
monotone calibration of these scores can achieve on these data; it underlies minCllr,
the ROC convex hull (its block boundaries are the hull's vertices) and the APE minimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression

from .._checks import check_pair
from ..records import Serialisable


@dataclass(frozen=True)
class TieGroups:
    """Distinct pooled values in ascending order with the SS and DS counts at each."""

    values: np.ndarray
    n_ss: np.ndarray
    n_ds: np.ndarray
    last_values: np.ndarray | None = None  # for runs: the highest value of each run

    @property
    def high(self) -> np.ndarray:
        return self.values if self.last_values is None else self.last_values


def tie_groups(ss: np.ndarray, ds: np.ndarray) -> TieGroups:
    """Sort the pooled values and group equal ones.

    Each class is sorted on its own (numpy's fast unstable sort); a stable argsort of
    the two concatenated sorted runs is then a single merge pass.
    """
    return _pool(*_merged(ss, ds))


def _merged(
    ss: np.ndarray, ds: np.ndarray, presorted: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Pooled values in ascending order and whether each is SS (one sort per class + merge).

    ``presorted=True`` says each class is sorted already (a caller that needs the sorted
    classes itself sorts them once and passes them on).
    """
    merged = np.concatenate([ss, ds] if presorted else [np.sort(ss), np.sort(ds)])
    order = np.argsort(merged, kind="stable")
    return merged[order], order < ss.size


def sorted_runs(ss: np.ndarray, ds: np.ndarray, presorted: bool = False) -> TieGroups:
    """:func:`_runs` of the pooled values, with a fast path when no value is in both classes."""
    if not presorted:
        ss, ds = np.sort(ss), np.sort(ds)
    fast = _runs_without_ties(ss, ds)
    return fast if fast is not None else _runs(_pool(*_merged(ss, ds, presorted=True)))


def _runs_without_ties(ss: np.ndarray, ds: np.ndarray) -> TieGroups | None:
    """Runs of the merged sorted classes without building the merged array.

    Returns None when some value occurs in both classes (the general path groups it).
    Otherwise runs are the maximal stretches of one class in the merged order (values
    repeated within one class sit inside one run, so they need no grouping). With ``a``
    the smaller sorted class and ``b`` the other, ``below[i]`` = number of ``b`` values
    under ``a[i]``; consecutive ``a`` trials with equal ``below`` form one run, and the
    ``b`` trials between two ``a`` runs form one.
    So one ``searchsorted`` of the smaller class and O(min(N_ss, N_ds)) work suffice.
    """
    swap = ss.size > ds.size
    a, b = (ds, ss) if swap else (ss, ds)
    below = np.searchsorted(b, a, side="left")
    inside = below < b.size
    if np.any(b[below[inside]] == a[inside]):
        return None
    start = np.flatnonzero(np.diff(below, prepend=-1))  # first index of each a run
    end = np.append(start[1:], a.size) - 1
    b_lo = np.append(0, below[start])  # b run r = b[b_lo[r]:b_hi[r]], before a run r
    b_hi = np.append(below[start], b.size)
    n_runs = 2 * start.size + 1  # b run 0, a run 0, b run 1, ..., a run R-1, b run R
    count, low, high = np.empty(n_runs), np.empty(n_runs), np.empty(n_runs)
    count[0::2], count[1::2] = b_hi - b_lo, end - start + 1
    low[0::2], low[1::2] = b[np.minimum(b_lo, b.size - 1)], a[start]
    high[0::2], high[1::2] = b[np.maximum(b_hi - 1, 0)], a[end]
    n_a = np.zeros(n_runs)
    n_a[1::2] = count[1::2]
    keep = count > 0  # only the first and last b runs can be empty
    n_a, n_b = n_a[keep], (count - n_a)[keep]
    n_ss, n_ds = (n_b, n_a) if swap else (n_a, n_b)
    return TieGroups(low[keep], n_ss, n_ds, high[keep])


def pav_blocks(ss: np.ndarray, ds: np.ndarray, presorted: bool = False) -> PAVFit:
    """PAV fit of validated arrays (the shared core of :func:`pav_fit` and the metrics)."""
    return fit_runs(sorted_runs(ss, ds, presorted))


def _pool(values: np.ndarray, is_ss: np.ndarray) -> TieGroups:
    """Counts per group of consecutive equal ``values`` (sorted), from cumulative sums."""
    last = np.empty(values.size, dtype=bool)
    last[-1] = True
    np.not_equal(values[1:], values[:-1], out=last[:-1])
    ends = np.flatnonzero(last)
    n_ss = np.diff(np.cumsum(is_ss)[ends], prepend=0).astype(np.float64)
    n_all = np.diff(ends, prepend=-1).astype(np.float64)
    return TieGroups(values[ends], n_ss, n_all - n_ss)


def _runs(groups: TieGroups) -> TieGroups:
    """Merge adjacent tie groups with the same SS proportion (``values`` = first value).

    PAV gives such groups equal values anyway (averaging two equal observations never
    violates monotonicity and lowers the squared error), and the AUC counts them
    exactly (proportional counts), so both work on runs: about as many as there are
    SS/DS alternations in the sorted scores.
    """
    share = groups.n_ss / (groups.n_ss + groups.n_ds)
    last = np.empty(share.size, dtype=bool)
    last[-1] = True
    np.not_equal(share[1:], share[:-1], out=last[:-1])
    ends = np.flatnonzero(last)
    firsts = np.append(0, ends[:-1] + 1)
    n_ss = np.diff(np.cumsum(groups.n_ss)[ends], prepend=0.0)
    n_ds = np.diff(np.cumsum(groups.n_ds)[ends], prepend=0.0)
    return TieGroups(groups.values[firsts], n_ss, n_ds, groups.values[ends])


@dataclass(frozen=True)
class PAVFit(Serialisable):
    """Isotonic fit of P(ss | score) with ties pooled, as blocks in ascending score order.

    Attributes
    ----------
    block_low, block_high : ndarray
        Lowest and highest score in each block.
    n_ss, n_ds : ndarray
        SS and DS counts per block.
    llr : ndarray
        Prior-neutral optimal LLR per block, ``log(n_ss/N_ss) - log(n_ds/N_ds)``;
        ``+inf`` for a block without DS, ``-inf`` for a block without SS.
    """

    block_low: np.ndarray
    block_high: np.ndarray
    n_ss: np.ndarray
    n_ds: np.ndarray
    llr: np.ndarray


def fit_runs(r: TieGroups) -> PAVFit:
    result = isotonic_regression(r.n_ss / (r.n_ss + r.n_ds), weights=r.n_ss + r.n_ds)
    first = np.asarray(result.blocks[:-1])
    last = np.append(first[1:], r.values.size) - 1
    n_ss = np.add.reduceat(r.n_ss, first)
    n_ds = np.add.reduceat(r.n_ds, first)
    with np.errstate(divide="ignore"):
        llr = (np.log(n_ss) - np.log(n_ss.sum())) - (np.log(n_ds) - np.log(n_ds.sum()))
    return PAVFit(r.values[first], r.high[last], n_ss, n_ds, llr)


def _block_of(fit: PAVFit, values: np.ndarray) -> np.ndarray:
    """Index of the block holding each value (values must be among the fitted ones)."""
    return np.searchsorted(fit.block_low, values, side="right") - 1


def _weighted_tie_groups(ss, ds, w_ss, w_ds) -> TieGroups:
    """:func:`tie_groups` with each score counted ``w`` times (scores of weight 0 left out):
    the summed SS and DS weights per distinct value."""
    w_ss = np.ones(ss.size) if w_ss is None else w_ss
    w_ds = np.ones(ds.size) if w_ds is None else w_ds
    values = np.concatenate([ss, ds])
    order = np.argsort(values, kind="stable")
    weight = np.concatenate([w_ss, w_ds])[order]
    is_ss = (order < ss.size)
    keep = weight > 0
    values, weight, is_ss = values[order][keep], weight[keep], is_ss[keep]
    starts = np.flatnonzero(np.diff(values, prepend=-np.inf))
    n_ss = np.add.reduceat(np.where(is_ss, weight, 0.0), starts)
    n_ds = np.add.reduceat(np.where(is_ss, 0.0, weight), starts)
    return TieGroups(values[starts], n_ss, n_ds)


def pav_fit(ss_scores, ds_scores, ss_weight=None, ds_weight=None) -> PAVFit:
    """Fit PAV to pooled SS and DS scores (ties pooled into one block).

    Parameters
    ----------
    ss_scores, ds_scores : array_like
        Scores (or LLRs; +-inf allowed) of same-source and different-source trials.
    ss_weight, ds_weight : array_like, optional
        How often each score counts (non-negative; counts give the fit on the repeated
        scores, as scikit-learn's ``sample_weight``); ``n_ss``, ``n_ds`` are then summed
        weights. Validated by the caller (:class:`~forensic_lr.calibration.pav.PAVCalibrator`).

    Returns
    -------
    PAVFit

    Notes
    -----
    The pooled scores are sorted once and grouped by value; the isotonic regression of
    the SS proportion of each group, weighted by the group size, is solved with
    :func:`scipy.optimize.isotonic_regression`. The block partition does not depend on
    the class weighting, so the prior-neutral LLR of a block is
    ``log(n_ss,b / N_ss) - log(n_ds,b / N_ds)`` [1]_.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    ss, ds = check_pair(ss_scores, ds_scores, names=("ss_scores", "ds_scores"))
    if ss_weight is None and ds_weight is None:
        return pav_blocks(ss, ds, presorted=_ascending(ss) and _ascending(ds))
    counts = [_as_counts(w, v.size) for v, w in ((ss, ss_weight), (ds, ds_weight))]
    if counts[0] is not None and counts[1] is not None:  # e.g. a bootstrap replicate
        return pav_blocks(np.repeat(ss, counts[0]), np.repeat(ds, counts[1]),
                          presorted=_ascending(ss) and _ascending(ds))
    return fit_runs(_runs(_weighted_tie_groups(ss, ds, ss_weight, ds_weight)))


def _ascending(values: np.ndarray) -> bool:
    """Whether ``values`` are in ascending order (then, repeated or not, they need no sort;
    the bootstrap refits of :func:`forensic_lr.uncertainty.bootstrap_interval` and of the
    sensitivity analysis hand each class so)."""
    return bool(np.all(values[1:] >= values[:-1]))


def _as_counts(weight, size: int) -> np.ndarray | None:
    """Whole-number weights (None: each once) summing to at most 4 ``size`` as integer
    counts, else None. The fit on the scores repeated that often is the same fit, through
    the faster path without weights (a sort of the values alone)."""
    if weight is None:
        return np.ones(size, dtype=np.intp)
    w = np.asarray(weight, dtype=np.float64)
    if not (np.all(w == np.floor(w)) and w.sum() <= 4 * size):
        return None
    return w.astype(np.intp)


def pav_llr(ss_scores, ds_scores) -> tuple[np.ndarray, np.ndarray]:
    """PAV-optimal LLR of every SS and DS trial, in input order (may be +-inf).

    Parameters
    ----------
    ss_scores, ds_scores : array_like
        Scores (or LLRs; +-inf allowed) of same-source and different-source trials.

    Returns
    -------
    (ss_llr, ds_llr) : tuple of ndarray
        Natural-log LR of the PAV block holding each trial (equal scores, equal LLR).

    Notes
    -----
    Trial ``i`` in block ``b`` gets ``log(n_ss,b / N_ss) - log(n_ds,b / N_ds)`` [1]_; this
    is ``+inf`` when its block holds no DS trial and ``-inf`` when it holds no SS trial.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    ss, ds = check_pair(ss_scores, ds_scores, names=("ss_scores", "ds_scores"))
    fit = pav_blocks(ss, ds)
    return fit.llr[_block_of(fit, ss)], fit.llr[_block_of(fit, ds)]
