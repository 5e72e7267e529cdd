"""Metrics of a weighted data set from its once-sorted LLRs: the bootstrap's inner step.

A bootstrap replicate holds each trial an integer number of times. Sorting each class once
(:func:`sort_system`) and finding its *units* (stretches of the pooled order that hold one
class, or one tie group holding both) lets every replicate's Cllr, minCllr, Cllr_cal, EER,
AUC and error rates be read from running totals of its weights at a few positions
(:func:`replicate_metrics`, :func:`replicate_cllrs`), with PAV run only on the points that
can be vertices of the ROC convex hull (:func:`hull_fit`). The plain reference the tests
compare with is the metric of the data set with each trial repeated (``np.repeat``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._numbers import LN2
from ..metrics.catalogue import resampled
from ..metrics.cllr import block_cllr
from ..metrics.pav import PAVFit, TieGroups, fit_runs
from ..metrics.roc import eer_crossing, hull_roc
from ..resampling import RunningTotals

#: Metrics given an interval, in report order.
METRICS = resampled()


# --------------------------------------------------------------------------- sorted units
@dataclass(frozen=True, eq=False)
class SortedSystem:
    """The once-sorted LLRs of one system, with its units.

    A unit is a maximal stretch of consecutive tie groups of the pooled sorted LLRs that
    all hold only SS (or only DS) trials, or a single tie group holding both. Any
    weighting of the trials keeps the SS share constant within a unit (0, 1, or one
    tie), so PAV, the ROC convex hull and the AUC computed on unit totals equal those
    computed on the trials. Arrays named ``*_ss`` / ``*_ds`` are in ascending LLR order
    within the class.
    """

    order_ss: np.ndarray | None  # input index of each sorted SS trial (None: not asked for)
    order_ds: np.ndarray | None
    corner_ss: np.ndarray  # SS trials below each possible hull vertex (see _corners)
    corner_ds: np.ndarray  # DS trials below it
    mixed_ss: np.ndarray  # (2, n_mixed): SS trials below the start and the end of each
    #   mixed unit (a tie group holding both classes)
    mixed_ds: np.ndarray
    supports: np.ndarray  # corners that end a PAV block of the data as given
    segment_size: np.ndarray  # corners j given to chain segment i (supports[i] <= j <=
    #   supports[i + 1], each j to the first such i): segments are consecutive runs of j
    cost_ss: np.ndarray  # log(1 + e^-llr) in nats; the first n_inf_ss are +inf (llr -inf)
    cost_ds: np.ndarray  # log(1 + e^llr); the last n_inf_ds are +inf (llr +inf)
    n_inf_ss: int
    n_inf_ds: int
    n_neg_ss: int  # SS trials with llr < 0 (a prefix)
    first_pos_ds: int  # first sorted DS trial with llr > 0 (a suffix starts there)

    read_ss: RunningTotals  # SS weight below the corners, the mixed-unit starts and ends,
    #   n_inf_ss and n_neg_ss (see replicate_metrics)
    read_ds: RunningTotals  # likewise for DS: corners, mixed units, the end of the finite
    #   costs and first_pos_ds


def sort_system(ss: np.ndarray, ds: np.ndarray, *, orders: bool = True) -> SortedSystem:
    """Sort each class once (stable) and find the units (see :class:`SortedSystem`).

    ``orders=False`` sorts the values only and leaves ``order_ss`` / ``order_ds`` None:
    a trial bootstrap of one system draws its counts over the sorted positions and never
    needs the input index (``np.sort`` takes a quarter of the time of ``np.argsort`` at
    10^6 trials).
    """
    if orders:
        order_ss, ss_sorted = _stable_order(ss)
        order_ds, ds_sorted = _stable_order(ds)
    else:
        order_ss, order_ds, ss_sorted, ds_sorted = None, None, np.sort(ss), np.sort(ds)
    found = _units_without_ties(ss_sorted, ds_sorted)
    bounds_ss, bounds_ds, unit_kind = found if found else _units(ss_sorted, ds_sorted)
    n_units = unit_kind.size
    corners = _corners(unit_kind)
    units = TieGroups(np.arange(n_units, dtype=np.float64), np.diff(bounds_ss), np.diff(bounds_ds))
    ends = np.append(0, fit_runs(units).block_high.astype(np.intp) + 1)
    supports = np.searchsorted(corners, ends)  # block ends are corners
    mixed = np.flatnonzero(unit_kind == 2)
    corner_ss, corner_ds = bounds_ss[corners], bounds_ds[corners]
    mixed_ss = np.stack([bounds_ss[mixed], bounds_ss[mixed + 1]])
    mixed_ds = np.stack([bounds_ds[mixed], bounds_ds[mixed + 1]])
    n_inf_ss = int(np.searchsorted(ss_sorted, -np.inf, side="right"))
    n_inf_ds = int(ds_sorted.size - np.searchsorted(ds_sorted, np.inf, side="left"))
    n_neg_ss = int(np.searchsorted(ss_sorted, 0.0, side="left"))
    first_pos_ds = int(np.searchsorted(ds_sorted, 0.0, side="right"))
    return SortedSystem(
        order_ss=order_ss,
        order_ds=order_ds,
        corner_ss=corner_ss,
        corner_ds=corner_ds,
        mixed_ss=mixed_ss,
        mixed_ds=mixed_ds,
        supports=supports,
        segment_size=np.bincount(
            np.minimum(
                np.searchsorted(supports, np.arange(corners.size), "right") - 1,
                supports.size - 2,
            ),
            minlength=supports.size - 1,
        ),
        cost_ss=np.logaddexp(0.0, -ss_sorted),
        cost_ds=np.logaddexp(0.0, ds_sorted),
        n_inf_ss=n_inf_ss,
        n_inf_ds=n_inf_ds,
        n_neg_ss=n_neg_ss,
        first_pos_ds=first_pos_ds,
        read_ss=RunningTotals(
            np.concatenate([corner_ss, mixed_ss.ravel(), [n_inf_ss, n_neg_ss]]), ss.size
        ),
        read_ds=RunningTotals(
            np.concatenate([corner_ds, mixed_ds.ravel(), [ds.size - n_inf_ds, first_pos_ds]]),
            ds.size,
        ),
    )


def _stable_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stable sorting permutation of ``x`` (equal values in input order) and ``x`` sorted.

    numpy's default sort is fast but not stable; the order of equal values is then fixed
    by sorting the unique integer keys ``(rank of the value) * n + index`` of the tied
    trials, which gives exactly the stable order on every machine.
    """
    order = np.argsort(x)
    values = x[order]
    tied = values[1:] == values[:-1]
    if tied.any():
        group = np.concatenate([[0], np.cumsum(~tied)])
        key = group * x.size + order
        key.sort()
        order = key % x.size
    return order, values


def _units_without_ties(ss_sorted: np.ndarray, ds_sorted: np.ndarray):
    """Unit bounds and kinds (as :func:`_units`) when no value occurs in both classes.

    With ``a`` the smaller sorted class and ``b`` the other, ``below[i]`` = number of
    ``b`` values under ``a[i]``; consecutive ``a`` trials with equal ``below`` form one
    unit, and the ``b`` trials between two such runs form one (only the first and the
    last ``b`` run can be empty). One ``searchsorted`` and O(size of ``a``) work, no pass
    over the pooled trials. Returns None when some value is in both classes.
    """
    swap = ss_sorted.size > ds_sorted.size
    a, b = (ds_sorted, ss_sorted) if swap else (ss_sorted, ds_sorted)
    below = np.searchsorted(b, a, side="left")
    inside = below < b.size
    if np.any(b[below[inside]] == a[inside]):
        return None
    start = np.flatnonzero(np.diff(below, prepend=-1))  # first a trial of each a run
    b_lo = np.append(0, below[start])  # b run r is b[b_lo[r]:b_hi[r]], before a run r
    b_hi = np.append(below[start], b.size)
    before_a = np.empty(2 * start.size + 1, dtype=np.intp)  # units b0, a0, b1, ..., bR
    before_b = np.empty_like(before_a)
    before_a[0::2], before_a[1::2] = np.append(start, a.size), start
    before_b[0::2], before_b[1::2] = b_lo, below[start]
    kind = np.empty_like(before_a)
    kind[0::2], kind[1::2] = (1, 0) if swap else (0, 1)  # 1 SS, 0 DS
    keep = np.ones(before_a.size, dtype=bool)
    keep[[0, -1]] = b_hi[[0, -1]] > b_lo[[0, -1]]
    bounds_a = np.append(before_a[keep], a.size)
    bounds_b = np.append(before_b[keep], b.size)
    return (bounds_b, bounds_a, kind[keep]) if swap else (bounds_a, bounds_b, kind[keep])


def _units(ss_sorted: np.ndarray, ds_sorted: np.ndarray):
    """SS and DS trials below each unit boundary, and the kind of each unit.

    Returns ``bounds_ss``, ``bounds_ds`` (``n_units + 1`` running counts) and
    ``unit_kind`` (1 pure SS, 0 pure DS, 2 a tie group holding both). The sorted classes
    are merged (a stable sort of two sorted runs), equal values grouped, and consecutive
    pure groups of one class joined.
    """
    values = np.concatenate([ss_sorted, ds_sorted])
    is_ss = np.argsort(values, kind="stable") < ss_sorted.size
    values.sort()
    new_group = np.empty(values.size, dtype=bool)
    new_group[0] = True
    np.not_equal(values[1:], values[:-1], out=new_group[1:])
    group = np.cumsum(new_group) - 1
    n_groups = int(group[-1]) + 1
    n_ss_g = np.bincount(group, weights=is_ss, minlength=n_groups)
    n_all_g = np.bincount(group, minlength=n_groups)
    kind = np.where(n_ss_g == n_all_g, 1, np.where(n_ss_g == 0, 0, 2))  # 1 SS, 0 DS, 2 mixed
    new_unit = np.empty(n_groups, dtype=bool)
    new_unit[0] = True
    new_unit[1:] = (kind[1:] != kind[:-1]) | (kind[1:] == 2)
    unit_of_group = np.cumsum(new_unit) - 1
    unit = unit_of_group[group]
    n_units = int(unit_of_group[-1]) + 1
    bounds_ss = _unit_bounds(unit[is_ss], n_units)
    bounds_ds = _unit_bounds(unit[~is_ss], n_units)
    return bounds_ss, bounds_ds, kind[new_unit]


def _corners(unit_kind: np.ndarray) -> np.ndarray:
    """Unit boundaries that can be vertices of the lower hull, whatever the weights.

    Boundary ``j`` lies between units ``j - 1`` and ``j`` (``0`` and ``n_units`` are the
    ends). Along the cumulative curve ``(W, S)`` a pure-DS unit has slope 0, a pure-SS
    unit slope 1 and a mixed unit a slope between; a lower-hull vertex needs the slope to
    rise, so ``j`` qualifies only if unit ``j - 1`` is not pure SS and unit ``j`` not pure
    DS. Units of one class alternate (equal neighbours were merged), so when empty units
    make several boundaries coincide, one of them still qualifies. Between two corners
    lie at most an SS unit, a mixed unit and a DS unit, in that order.
    """
    inner = np.flatnonzero((unit_kind[:-1] != 1) & (unit_kind[1:] != 0)) + 1
    return np.concatenate([[0], inner, [unit_kind.size]])


def _unit_bounds(unit: np.ndarray, n_units: int) -> np.ndarray:
    """``bounds[j]`` = number of entries of the sorted ``unit`` numbers below ``j``."""
    return np.searchsorted(unit, np.arange(n_units + 1), side="left")


def replicate_metrics(s: SortedSystem, c_ss: np.ndarray, c_ds: np.ndarray) -> np.ndarray:
    """Metrics (in :data:`METRICS` order) of the data set holding each trial ``c`` times.

    ``c_ss`` / ``c_ds`` are integer weights in the system's sorted order. NaN when a
    class has total weight 0.

    Only running totals of the weights at a few positions are needed (``s.read_ss``,
    ``s.read_ds``: :class:`~forensic_lr.resampling.RunningTotals`), plus one weighted sum
    of the costs per class; a class with weight on an infinite cost has Cllr = inf.
    """
    k, n_mixed = s.corner_ss.size, s.mixed_ss.shape[1]
    read_ss, read_ds = s.read_ss(c_ss), s.read_ds(c_ds)
    at_ss, at_ds = read_ss[:k], read_ds[:k]  # SS / DS weight below each corner
    tot_ss, tot_ds = int(at_ss[-1]), int(at_ds[-1])
    if tot_ss == 0 or tot_ds == 0:
        return np.full(len(METRICS), np.nan)
    actual = _weighted_cllr(s, c_ss, c_ds, read_ss, read_ds)
    fit = hull_fit(s, at_ss, at_ds)
    minimum, eer = block_cllr(fit), eer_crossing(hull_roc(fit))
    tied = (read_ss[k + n_mixed:k + 2 * n_mixed] - read_ss[k:k + n_mixed],
            read_ds[k + n_mixed:k + 2 * n_mixed] - read_ds[k:k + n_mixed])
    auc = _corner_auc(at_ss, at_ds, *tied)
    miss, below_pos = read_ss[-1], read_ds[-1]  # SS weight with llr < 0, DS with llr <= 0
    false_alarm = tot_ds - int(below_pos)
    return np.array(
        [actual, minimum, actual - minimum, eer, auc, int(miss) / tot_ss, false_alarm / tot_ds]
    )


def replicate_cllrs(s: SortedSystem, c_ss: np.ndarray, c_ds: np.ndarray) -> np.ndarray:
    """``[Cllr, minCllr]`` of the replicate, as in :func:`replicate_metrics` (NaN likewise).

    What a paired comparison needs of each system: the ROC hull, EER, AUC and error
    rates are left out.
    """
    k = s.corner_ss.size
    read_ss, read_ds = s.read_ss(c_ss), s.read_ds(c_ds)
    at_ss, at_ds = read_ss[:k], read_ds[:k]
    if at_ss[-1] == 0 or at_ds[-1] == 0:
        return np.full(2, np.nan)
    actual = _weighted_cllr(s, c_ss, c_ds, read_ss, read_ds)
    return np.array([actual, block_cllr(hull_fit(s, at_ss, at_ds))])


def _weighted_cllr(s: SortedSystem, c_ss, c_ds, read_ss, read_ds) -> float:
    """Cllr of the replicate: one weighted sum of the costs per class.

    ``read_ss`` / ``read_ds`` are the running totals of the weights (:class:`SortedSystem`):
    the SS weight on an llr of ``-inf`` (second last of ``read_ss``) or the DS weight
    beyond the finite costs makes that class's cost infinite.
    """
    k = s.corner_ss.size
    tot_ss, tot_ds = int(read_ss[k - 1]), int(read_ds[k - 1])
    cost_ss = np.inf if read_ss[-2] else weighted_dot(c_ss[s.n_inf_ss:], s.cost_ss[s.n_inf_ss:])
    end = c_ds.size - s.n_inf_ds
    cost_ds = np.inf if read_ds[-2] < tot_ds else weighted_dot(c_ds[:end], s.cost_ds[:end])
    return (cost_ss / tot_ss + cost_ds / tot_ds) / (2 * LN2)


def weighted_dot(counts: np.ndarray, cost: np.ndarray) -> float:
    """``sum counts * cost`` without a float copy of the counts and without BLAS threads.

    ``einsum`` casts the integer counts in small buffers and sums on one core, in an
    order fixed by the length alone, so the value does not depend on memory alignment
    or on which thread computes it.
    """
    return float(np.einsum("i,i->", counts, cost))


def _corner_auc(at_ss, at_ds, tied_ss, tied_ds) -> float:
    """AUC from the weights below the corners and in the mixed units.

    ``AUC = sum_u S_u (D_<u + D_u / 2) / (S_tot D_tot)`` over units ``u`` (Mann-Whitney,
    ties counted half). Between consecutive corners ``k`` and ``k + 1`` lie at most an SS,
    a mixed and a DS unit (:func:`_corners`), and the DS weight below the SS and mixed
    units is ``D_k``; so the sum is ``sum_k (S_{k+1} - S_k) D_k`` plus
    ``sum_m S_m D_m / 2`` over the mixed units ``m`` (with weights ``tied_ss``,
    ``tied_ds``). The sums are exact in int64 while ``2 S_tot D_tot`` fits, then divided
    once.
    """
    total = int(at_ss[-1]) * int(at_ds[-1])
    if 2 * total < 2**63:
        wins2 = 2 * int(np.dot(np.diff(at_ss), at_ds[:-1])) + int(np.dot(tied_ss, tied_ds))
        return wins2 / (2 * total)
    f_ss, f_ds = at_ss.astype(np.float64), at_ds.astype(np.float64)
    wins = weighted_dot(np.diff(f_ss), f_ds[:-1]) + 0.5 * weighted_dot(
        tied_ss.astype(np.float64), tied_ds.astype(np.float64))
    return wins / (f_ss[-1] * f_ds[-1])


def hull_fit(s: SortedSystem, at_ss: np.ndarray, at_ds: np.ndarray) -> PAVFit:
    """The PAV blocks of the replicate from the cumulative SS and DS weights at the corners.

    minCllr and EER depend only on these blocks, i.e. on the vertices of the lower convex hull
    of the points ``(W_j, S_j)`` (total and SS weight below unit boundary ``j``); only
    corners can be vertices (:func:`_corners`). The corners that ended a PAV block of
    the unweighted data (``s.supports``) are points of this set, so the chain through
    them lies on or above the hull: a point strictly above that chain is no vertex. PAV
    then runs on the remaining points only (their counts pooled between them), which
    gives the same blocks in a fraction of the time. The test is exact, in integers: with
    ``dS, dW`` the rise of the chain segment holding ``j`` and ``K = S_a dW - W_a dS``
    for its first point ``a``, point ``j`` is above when ``S_j dW - W_j dS > K``; as
    ``W = S + D``, that is ``S_j dD - D_j dS > S_a dD - D_a dS`` with ``dD`` the DS rise,
    which needs no total weight per corner (the per-segment values are spread over the
    corners with ``np.repeat``).
    """
    if at_ss[-1] + at_ds[-1] < 2**31:  # the products below fit in int64
        s_sup, d_sup = at_ss[s.supports], at_ds[s.supports]
        rise_s, rise_d = np.diff(s_sup), np.diff(d_sup)
        k = s_sup[:-1] * rise_d - d_sup[:-1] * rise_s
        above = at_ss * np.repeat(rise_d, s.segment_size)
        above -= at_ds * np.repeat(rise_s, s.segment_size)
        points = np.flatnonzero(above <= np.repeat(k, s.segment_size))
        at_ss, at_ds = at_ss[points], at_ds[points]
    n_ss, n_ds = np.diff(at_ss), np.diff(at_ds)
    keep = np.flatnonzero(n_ss + n_ds)
    groups = TieGroups(np.arange(keep.size, dtype=np.float64), n_ss[keep], n_ds[keep])
    return fit_runs(groups)
