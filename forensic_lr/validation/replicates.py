"""The bootstrap engine shared by the metric intervals and the paired comparison.

:func:`forensic_lr.validation.bootstrap_metrics` (intervals of one system's metrics) and
:func:`forensic_lr.validation.compare_systems` (paired differences of two systems) resample
the same way: the options are checked by :func:`check_options` and :func:`resolve_by`, each
system's LLRs are sorted once (:func:`sort_system`), every replicate draws integer weights
per trial (:func:`draws`, :func:`replicate_weights`: multinomial counts by trial, or sources
drawn with replacement) and is evaluated from running totals of those weights
(:func:`replicate_metrics`, :func:`replicate_cllrs`), the replicates run serially or on a
process pool with identical rows (:func:`run_replicates`), and the interval ends come from
the replicates by the percentile or bias-corrected percentile method
(:func:`interval_bounds`). The names here are the package's own, not a user API.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np
from scipy.special import ndtr, ndtri

from .._numbers import LN2
from ..errors import ForensicLRWarning, InputError
from ..metrics.catalogue import resampled
from ..metrics.cllr import block_cllr
from ..metrics.pav import PAVFit, TieGroups, fit_runs
from ..metrics.roc import eer_crossing, hull_roc
from ..parallel import default_workers, run_jobs
from ..resampling import (
    Progress,
    RunningTotals,
    quantile_rows,
    source_codes,
    trial_counts,
)

#: Metrics given an interval, in report order.
METRICS = resampled()
#: Bootstrap interval methods (default first) and their names in reports.
INTERVALS = {"bc": "bias-corrected percentile", "percentile": "percentile"}


#: How each kind of resampling is described in reports and JSON.
NOTES = {
    "trial": (
        "Trials were resampled independently within each class. This is valid only when "
        "trials are independent; when several trials share a source the interval is too "
        "narrow (use --by source with source columns)."
    ),
    "source": (
        "Sources were resampled with replacement and every trial among the sampled sources "
        "was kept (a different-source trial as often as both its sources were drawn). "
        "Trials sharing a source move together, so the interval reflects the variation "
        "between sources, usually wider than a trial-level interval."
    ),
}


T = TypeVar("T")


class ResamplingWarning(ForensicLRWarning):
    """Some bootstrap replicates could not be evaluated (a class got no trial)."""


# --------------------------------------------------------------------------- input checks
def check_options(n: int, level: float, interval: str = "bc") -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"n must be a positive integer, got {n!r}; use e.g. n=1000")
    level = float(level)
    if not 0.0 < level < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1, got {level!r}; use e.g. 0.95")
    if interval not in INTERVALS:
        raise InputError(f"interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    return int(n), level


def resolve_by(by: str, ss_sources, ds_sources) -> str:
    if by not in ("auto", "trial", "source"):
        raise InputError(f"by must be 'auto', 'trial' or 'source', got {by!r}")
    has = ss_sources is not None and ds_sources is not None
    if (ss_sources is None) != (ds_sources is None):
        raise InputError("give both ss_sources and ds_sources, or neither")
    if by == "source" and not has:
        raise InputError(
            "by='source' needs source ids: add a 'source' (or 'source_a,source_b') column "
            "to the score files, or use by='trial'"
        )
    if by == "auto":
        return "source" if has else "trial"
    return by


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


# --------------------------------------------------------------------------- weights
def replicate_weights(by, rng, n, systems, ss_sources, ds_sources):
    """Per replicate, the trial weights of each system in its own sorted order.

    ``by="trial"``: each class resampled with replacement at its own size (counts drawn
    over the first system's sorted positions, carried to the others by the trial
    pairing; :func:`~forensic_lr.resampling.trial_counts`). ``by="source"``: source ``s``
    drawn ``m_s`` times, a trial between sources ``a`` and ``b`` weighted ``m_a`` if
    ``a == b`` and ``m_a m_b`` otherwise.

    Returns the generator and the number of sources (None for trials).
    """
    draws_from, weights, k = draws(by, rng, n, systems, ss_sources, ds_sources)
    return (weights(d) for d in draws_from(0)), k


def draws(by, rng, n, systems, ss_sources, ds_sources, carries=None):
    """The random part of :func:`replicate_weights`, and how a draw becomes weights.

    ``carries``: :func:`carry_orders` of ``systems`` when the caller has them already (they
    are computed here otherwise).

    Returns ``(draws_from, weights, k)``: ``draws_from(start)`` yields one draw per
    replicate from replicate ``start`` on (the counts in the first system's sorted order,
    or the source multiplicities), replicate ``r`` drawing from its own stream
    (:class:`_Streams`); ``weights(draw)`` gives the list of ``(c_ss, c_ds)`` of every
    system (a deterministic function, so it may run in any thread: the counts are carried
    there to the other systems' orders, or the source products formed); ``k`` is the
    number of sources (None for trials).
    """
    first = systems[0]
    n_ss, n_ds = first.cost_ss.size, first.cost_ds.size
    if by == "trial":
        carry = carry_orders(systems) if carries is None else carries
        return (_Streams(partial(_trial_draws, n_ss, n_ds), rng.bit_generator, n),
                partial(_carried, carry), None)
    codes_ss, codes_ds, k = source_codes(ss_sources, ds_sources, n_ss, n_ds)
    if k < 2:
        raise InputError(f"only {k} distinct source id; resampling by source needs at least 2")
    pairs = [
        (_second_or_one(codes_ss[s.order_ss], k), _second_or_one(codes_ds[s.order_ds], k))
        for s in systems
    ]
    return _Streams(partial(_source_draw, k), rng.bit_generator, n), partial(_products, pairs), k


def _trial_draws(n_ss: int, n_ds: int, own: np.random.Generator):
    """A trial replicate's random part: the SS and the DS counts."""
    return trial_counts(own, n_ss), trial_counts(own, n_ds)


def _carried(carry, draw) -> list:
    """``[(c_ss, c_ds)]`` of every system from a trial draw: the first system's counts,
    carried to the others' sorted orders (``carry``, :func:`carry_orders`)."""
    c_ss, c_ds = draw
    return [(c_ss, c_ds)] + [  # the indices are a permutation: no bounds to check
        (c_ss.take(p_ss, mode="wrap"), c_ds.take(p_ds, mode="wrap")) for p_ss, p_ds in carry
    ]


def _source_draw(k: int, own: np.random.Generator) -> np.ndarray:
    """A source replicate's random part: each of ``k`` sources' multiplicity, and a 1 for
    the trials whose second source is none."""
    return np.append(trial_counts(own, k), 1)


def _products(pairs, m: np.ndarray) -> list:
    """``[(w_ss, w_ds)]`` of every system: a trial between sources ``a`` and ``b`` weighs
    ``m_a m_b`` (``b`` is the extra 1 for a trial within one source)."""
    return [(m[a_ss] * m[b_ss], m[a_ds] * m[b_ds]) for (a_ss, b_ss), (a_ds, b_ds) in pairs]


@dataclass(frozen=True)
class _Streams:
    """``draws_from(start, stop=n)``: the draws of replicates ``start, ..., stop - 1``.

    Replicate ``r`` draws from the seed's bit generator jumped ``r`` times
    (``PCG64.jumped``: as if about 0.618 * 2**128 numbers had been drawn per jump, numpy's
    way of making streams that do not overlap), so a process can start at any replicate
    without drawing the ones before it, and replicate ``r`` gets the same draw however
    the replicates are shared out. A jump costs about 10 microseconds.
    """

    draw: Callable[[np.random.Generator], object]
    bits: np.random.BitGenerator
    n: int

    def __call__(self, start: int, stop: int | None = None):
        for r in range(start, self.n if stop is None else stop):
            yield self.draw(np.random.Generator(self.bits.jumped(r)))


#: Trials (SS + DS) from which the replicates are shared between processes when more
#: than one worker is asked for: below it a pool's start-up costs more than it saves
#: (measured on two cores; ``docs/dev/architecture.md``, *Processes*).
REPLICATES_IN_PROCESSES_FROM = 300_000


def run_replicates(draws_from, job, out: np.ndarray, progress: Progress | None,
                    workers: int, beside: Callable[[], T] | None = None) -> T | None:
    """``out[r] = job(draw_r)`` for every replicate, the same rows however it is shared out.

    ``beside``: one more job without arguments (the point estimates), run in this process
    before the replicates; its value is returned.

    With ``workers > 1`` (and at least :data:`REPLICATES_IN_PROCESSES_FROM` trials, which
    the caller checks), the replicates are cut into chunks (:func:`_chunks`) shared
    between this process and a pool (:func:`~forensic_lr.parallel.run_jobs`): whichever
    process is free takes the next chunk, so the processes finish together even when a
    core is shared with other work. Every chunk draws its replicates' own streams
    (:class:`_Streams`), and ``job`` is deterministic, so the rows are identical to a
    serial run. ``draws_from`` and ``job`` must then be picklable.
    """
    n = out.shape[0]
    if workers <= 1:
        estimate = None if beside is None else beside()
        for r, draw in enumerate(draws_from(0)):
            out[r] = job(draw)
            if progress is not None:
                progress(r + 1, n)
        return estimate
    bounds = _chunks(n, workers)
    jobs = {"beside": beside if beside is not None else _nothing}
    jobs.update({str(i): partial(_chunk, draws_from, job, int(bounds[i]), int(bounds[i + 1]),
                                 out.shape[1:]) for i in range(bounds.size - 1)})

    def chunks_done(done: int, total: int) -> None:
        if progress is not None:
            progress(round(n * (done - 1) / (total - 1)), n)

    values = run_jobs(jobs, workers, progress=chunks_done)
    for i in range(bounds.size - 1):
        out[bounds[i] : bounds[i + 1]] = values[str(i)]
    return values["beside"]


def _nothing() -> None:
    """No point estimate to run beside the replicates."""


def _chunk(draws_from, job, start: int, stop: int, shape: tuple[int, ...]) -> np.ndarray:
    """The rows of replicates ``start, ..., stop - 1``."""
    rows = np.empty((stop - start, *shape))
    for r, draw in enumerate(draws_from(start, stop)):
        rows[r] = job(draw)
    return rows


def _chunks(n: int, processes: int) -> np.ndarray:
    """Bounds of the chunks of ``n`` replicates that the processes take one at a time.

    32 chunks per process (none empty): at 10^6 trials a chunk of 1000 / 64 replicates
    takes about 40 ms, so the processes finish within about that of each other.
    """
    return np.linspace(0, n, min(n, 32 * processes) + 1).round().astype(int)


def replicate_workers(workers: int | None, trials: int) -> int:
    """Processes for the replicates: ``None`` means every core; 1 below
    :data:`REPLICATES_IN_PROCESSES_FROM` trials."""
    if workers is None:
        workers = default_workers()
    elif isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InputError(f"workers must be a positive integer or None, got {workers!r}")
    return int(workers) if trials >= REPLICATES_IN_PROCESSES_FROM else 1


def metrics_of_draw(system: SortedSystem, weights, draw) -> np.ndarray:
    """The metrics of one replicate of one system from its draw."""
    return replicate_metrics(system, *weights(draw)[0])


def carry_orders(systems) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per system after the first, the SS and DS indices ``p`` with ``weights = first's
    weights[p]`` in that system's sorted order (:func:`_carry`)."""
    first = systems[0]
    return [(_carry(first.order_ss, s.order_ss), _carry(first.order_ds, s.order_ds))
            for s in systems[1:]]


def _carry(order_from: np.ndarray, order_to: np.ndarray) -> np.ndarray:
    """Index ``p`` with ``weights_to = weights_from[p]`` for the same trials."""
    position = np.empty(order_from.size, dtype=np.intp)
    position[order_from] = np.arange(order_from.size)
    return position[order_to]


def _second_or_one(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Source codes ``a`` and ``b`` with ``b`` set to ``k`` (a count of 1) when ``a == b``."""
    a, b = codes[:, 0], codes[:, 1]
    return a, np.where(a == b, k, b)


def interval_bounds(
    samples: np.ndarray, estimates, level: float, interval: str
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Interval of each column of the replicates, ignoring NaN rows, safe with +-inf.

    ``"percentile"``: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles. ``"bc"``:
    the quantiles at :func:`_bc_levels` instead, unless both levels fall below ``1/B``
    or both above ``1 - 1/B`` (the estimate lies so far beyond the ``B`` replicates that
    the corrected interval would shrink to the extreme replicate): then the percentile
    interval is kept and the column is listed in the third return value. Quantiles are
    those of the LR intervals (``resampling.quantile_rows``: Hyndman & Fan type 7, safe
    with +-inf).
    """
    alpha = 1.0 - level
    low, high = np.full(samples.shape[1], np.nan), np.full(samples.shape[1], np.nan)
    kept_percentile = []
    for j in range(samples.shape[1]):
        column = np.sort(samples[~np.isnan(samples[:, j]), j])
        if not column.size:
            continue
        levels = (alpha / 2, 1 - alpha / 2)
        if interval == "bc" and not math.isnan(estimates[j]):
            corrected = _bc_levels(column, float(estimates[j]), alpha)
            if corrected[1] >= 1 / column.size and corrected[0] <= 1 - 1 / column.size:
                levels = corrected
            else:
                kept_percentile.append(j)
        low[j], high[j] = (float(quantile_rows(column, q)) for q in levels)
    return low, high, kept_percentile


def percentile_kept(names, kept: list[int]) -> tuple[str, ...]:
    """Warning text for the metrics whose bias-corrected interval could not be read
    (``names``: as reports print them, e.g. "Cllr_cal")."""
    if not kept:
        return ()
    which = ", ".join(names[j] for j in kept)
    return (
        f"{which}: the estimate lies beyond nearly all bootstrap replicates, so the "
        "bias-corrected interval cannot be read off them; the percentile interval is given "
        "(it need not contain the estimate)",
    )


def _bc_levels(column: np.ndarray, estimate: float, alpha: float) -> tuple[float, float]:
    """Efron's bias-corrected percentile levels ``Phi(2 z0 -+ z_{1-alpha/2})``.

    ``z0 = Phi^-1(p)`` with ``p`` the share of the (sorted) replicates below the
    estimate, ties counted half, kept within ``[1/(2B), 1 - 1/(2B)]``; ``z0 = 0`` (half the
    replicates below) gives the plain percentile interval [1]_.

    References
    ----------
    .. [1] B. Efron, "Nonparametric standard errors and confidence intervals", Canadian
       Journal of Statistics 9 (1981) 139-158; Efron & Tibshirani (1993), sec. 14.3.
    """
    size = column.size
    below = np.searchsorted(column, estimate, side="left")
    ties = np.searchsorted(column, estimate, side="right") - below
    share = min(max((below + 0.5 * ties) / size, 0.5 / size), 1.0 - 0.5 / size)
    z0, z = float(ndtri(share)), float(ndtri(1.0 - alpha / 2))
    return float(ndtr(2 * z0 - z)), float(ndtr(2 * z0 + z))


def invalid_warning(n_valid: int, n: int) -> tuple[str, ...]:
    if n_valid == n:
        return ()
    text = (
        f"{n - n_valid} of {n} bootstrap replicates drew no trial of one class and were "
        "left out; the interval rests on the remaining ones"
    )
    warnings.warn(text, ResamplingWarning, stacklevel=3)
    return (text,)
