"""Two systems on the same trials: paired bootstrap differences and DeLong's AUC test.

:func:`compare_systems` resamples the trials (or sources) of two systems together, so the
interval of each difference (Cllr, minimum Cllr) keeps the pairing, and adds DeLong's test
of the AUC difference (:func:`delong_test`) and a verdict sentence. The resampling engine
is the one of :func:`forensic_lr.validation.bootstrap.bootstrap_metrics`: the pooled LLRs
are sorted once per system and a replicate is a vector of trial weights.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial

import numpy as np
from scipy.special import ndtr, ndtri

from .._checks import check_pair
from .._numbers import LN2
from ..display import Table, Tabular, warning_notes
from ..errors import InputError
from ..i18n import N_
from ..limits import check_bootstrap
from ..metrics import evaluate_llrs
from ..metrics.catalogue import fixed
from ..metrics.cllr import block_cllr
from ..records import Serialisable, jsonable
from ..resampling import DEFAULT_SEED, Progress
from .bootstrap import MetricInterval
from .replicates import (
    NOTES,
    carry_orders,
    check_options,
    draws,
    interval_bounds,
    invalid_warning,
    percentile_kept,
    replicate_workers,
    resolve_by,
    run_replicates,
)
from .weighted_metrics import (
    METRICS,
    SortedSystem,
    hull_fit,
    replicate_cllrs,
    sort_system,
    weighted_dot,
)

__all__ = [
    "DeLongTest",
    "PairedComparison",
    "compare_systems",
    "delong_test",
    "outcome",
    "p_text",
    "placement_values",
]



@dataclass(frozen=True)
class DeLongTest(Serialisable):
    """DeLong's test of the difference between two correlated AUCs (``a - b``)."""

    auc_a: float
    auc_b: float
    difference: float
    se: float
    z: float
    p_value: float
    level: float
    low: float
    high: float


@dataclass(frozen=True, eq=False, repr=False)
class PairedComparison(Tabular):
    """Two systems evaluated on the same trials (differences are ``a - b``).

    ``replicates`` holds the bootstrap differences (``"cllr"``, ``"min_cllr"``) for
    plots; :meth:`to_dict` leaves them out.
    """

    names: tuple[str, str]
    by: str
    n: int
    n_valid: int
    level: float
    seed: int
    metrics_a: dict[str, float]
    metrics_b: dict[str, float]
    cllr_diff: MetricInterval
    min_cllr_diff: MetricInterval
    delong: DeLongTest
    verdict: str
    note: str
    replicates: dict[str, np.ndarray] = field(default_factory=dict)
    warnings: tuple[str, ...] = field(default=())
    interval: str = "bc"

    def _table(self) -> Table:
        """One row per metric: each system's value and the difference ``a - b``, with its
        paired bootstrap interval for Cllr and minimum Cllr and DeLong's for the AUC; the
        verdict below (``repr``, notebooks, ``to_frame()``); never the replicates."""
        a, b = self.names
        intervals = {"cllr": self.cllr_diff, "min_cllr": self.min_cllr_diff}
        rows = []
        for key in self.metrics_a:
            diff = intervals.get(key)
            low, high = ((diff.low, diff.high) if diff is not None else
                         (self.delong.low, self.delong.high) if key == "auc" else (None, None))
            rows.append((key, self.metrics_a[key], self.metrics_b.get(key),
                         self.metrics_a[key] - self.metrics_b[key] if key in self.metrics_b
                         else None, low, high))
        return Table(
            title=f"Paired comparison of {a} and {b} on the same trials: {self.n_valid} of "
                  f"{self.n} replicates by {self.by}, {self.level:.0%} intervals",
            columns=("metric", a, b, "difference", "low", "high"),
            rows=tuple(rows),
            notes=(f"DeLong's test of the AUC difference: p = {self.delong.p_value:.3g}",
                   self.verdict, *warning_notes(self.warnings)),
        )

    def to_dict(self) -> dict:
        return jsonable({
            "names": list(self.names),
            "interval": self.interval,
            "by": self.by,
            "n": int(self.n),
            "n_valid": int(self.n_valid),
            "level": float(self.level),
            "seed": int(self.seed),
            "metrics_a": {k: float(v) for k, v in self.metrics_a.items()},
            "metrics_b": {k: float(v) for k, v in self.metrics_b.items()},
            "cllr_diff": {**self.cllr_diff.to_dict(), "outcome": outcome(self.cllr_diff)},
            "min_cllr_diff": {
                **self.min_cllr_diff.to_dict(), "outcome": outcome(self.min_cllr_diff)
            },
            "delong": self.delong.to_dict(),
            "verdict": self.verdict,
            "note": self.note,
            "warnings": list(self.warnings),
        })


def placement_values(ss, ds) -> tuple[np.ndarray, np.ndarray]:
    """DeLong placement values of each SS and each DS trial.

    Returns
    -------
    v_ss : ndarray
        ``V10_i = (#{ds < ss_i} + 0.5 #{ds = ss_i}) / N_ds``, per SS trial (input order).
    v_ds : ndarray
        ``V01_j = (#{ss > ds_j} + 0.5 #{ss = ds_j}) / N_ss``, per DS trial.

    Notes
    -----
    Both come from binary searches in the sorted other class, O(n log n) [2]_; their
    means both equal the AUC [1]_. The searches are made with the queries in ascending
    order (each search starts where the previous one ended, so memory is read in order)
    and the values then put back in input order.

    References
    ----------
    .. [1] E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas under
       two or more correlated receiver operating characteristic curves: a nonparametric
       approach", Biometrics 44 (1988) 837-845.
    .. [2] X. Sun, W. Xu, "Fast implementation of DeLong's algorithm for comparing the
       areas under correlated receiver operating characteristic curves", IEEE Signal
       Processing Letters 21 (2014) 1389-1393.
    """
    ss, ds = check_pair(ss, ds, names=("ss", "ds"))
    return _placements(ss, ds, np.argsort(ss), np.argsort(ds))


def _placements(ss, ds, order_ss, order_ds) -> tuple[np.ndarray, np.ndarray]:
    """:func:`placement_values` given sorting permutations of both classes.

    Two binary searches of the sorted SS values among the sorted DS values give, per SS
    trial ``i``, ``lo_i = #{ds < ss_i}`` and ``hi_i = #{ds <= ss_i}``. The DS side needs
    no search: the ``j``-th sorted DS value exceeds ``ss_i`` exactly when ``j >= hi_i``
    and is at least ``ss_i`` when ``j >= lo_i``, so ``#{ss < ds_j}`` and ``#{ss <= ds_j}``
    are running totals of the histograms of ``hi`` and ``lo`` (exact integers).
    """
    ss_sorted, ds_sorted = ss[order_ss], ds[order_ds]
    below = np.searchsorted(ds_sorted, ss_sorted, side="left")
    upto = np.searchsorted(ds_sorted, ss_sorted, side="right")
    tied = upto - below
    below_ds = np.cumsum(np.bincount(upto, minlength=ds.size + 1)[:-1])  # #{ss < ds_j}
    tied_ds = np.cumsum(np.bincount(below, minlength=ds.size + 1)[:-1]) - below_ds
    v_ss, v_ds = np.empty(ss.size), np.empty(ds.size)
    v_ss[order_ss] = (below + 0.5 * tied) / ds.size
    v_ds[order_ds] = (ss.size - below_ds - tied_ds + 0.5 * tied_ds) / ss.size
    return v_ss, v_ds


def delong_test(a_ss, a_ds, b_ss, b_ds, *, level: float = 0.95) -> DeLongTest:
    """DeLong's test of ``AUC_a - AUC_b`` for two systems scored on the same trials.

    Parameters
    ----------
    a_ss, a_ds, b_ss, b_ds : array_like
        LLRs (or scores) of systems A and B; ``a_ss[i]`` and ``b_ss[i]`` belong to the
        same trial (and likewise for DS).
    level : float
        Coverage of the normal-approximation interval of the difference.

    Returns
    -------
    DeLongTest

    Notes
    -----
    With placement values ``V10`` (per SS trial) and ``V01`` (per DS trial) of each
    system, ``S10`` and ``S01`` their 2 x 2 sample covariance matrices (divisor n - 1),
    ``Var(AUC_a - AUC_b) = (S10_aa + S10_bb - 2 S10_ab) / N_ss +
    (S01_aa + S01_bb - 2 S01_ab) / N_ds``, ``z = (AUC_a - AUC_b) / SE`` and the two-sided
    p-value is ``2 Phi(-|z|)`` [1]_. Placement values take O(n log n) [2]_. The test
    assumes independent trials; it ignores trials sharing a source.

    References
    ----------
    .. [1] E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, Biometrics 44 (1988) 837-845.
    .. [2] X. Sun, W. Xu, IEEE Signal Processing Letters 21 (2014) 1389-1393.
    """
    a_ss, a_ds = check_pair(a_ss, a_ds, names=("a_ss", "a_ds"), min_size=2)
    b_ss, b_ds = check_pair(b_ss, b_ds, names=("b_ss", "b_ds"), min_size=2)
    _same_trials(a_ss, a_ds, b_ss, b_ds)
    level = check_options(1, level)[1]
    return _delong(placement_values(a_ss, a_ds), placement_values(b_ss, b_ds), level)


def _delong(placements_a, placements_b, level: float) -> DeLongTest:
    """:func:`delong_test` from the placement values ``(V10, V01)`` of both systems."""
    (v10_a, v01_a), (v10_b, v01_b) = placements_a, placements_b
    s10 = np.cov(np.vstack([v10_a, v10_b]))
    s01 = np.cov(np.vstack([v01_a, v01_b]))
    var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / v10_a.size + (
        s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]
    ) / v01_a.size
    auc_a, auc_b = float(v10_a.mean()), float(v10_b.mean())
    diff = auc_a - auc_b
    se = float(np.sqrt(max(var, 0.0)))
    if se > 0:
        z = diff / se
    else:
        z = 0.0 if diff == 0 else float(np.copysign(np.inf, diff))
    half = float(ndtri(0.5 + level / 2)) * se
    return DeLongTest(
        auc_a, auc_b, diff, se, float(z), float(2 * ndtr(-abs(z))), level, diff - half, diff + half
    )


def _same_trials(a_ss, a_ds, b_ss, b_ds) -> None:
    if a_ss.size != b_ss.size or a_ds.size != b_ds.size:
        raise InputError(
            f"the two systems must be scored on the same trials: A has {a_ss.size} SS and "
            f"{a_ds.size} DS, B has {b_ss.size} SS and {b_ds.size} DS; give both files the "
            "same trials in the same order"
        )


def p_text(p: float) -> str:
    """``"= 0.0123"``, or ``"< 1e-300"`` when the p-value underflows to 0 in double precision."""
    return "< 1e-300" if p == 0.0 else f"= {p:.3g}"


def outcome(diff: MetricInterval) -> str:
    """For a cost difference ``a - b``: ``"better"`` when its whole interval lies below 0
    (``a`` has the lower cost), ``"worse"`` above 0, else ``"not distinguishable"``."""
    if diff.high < 0:
        return N_("better")
    if diff.low > 0:
        return N_("worse")
    return N_("not distinguishable")


def _verdict(names, d_cllr: MetricInterval, d_min: MetricInterval, test: DeLongTest, level) -> str:
    a, b = names
    pct = f"{100 * level:g}%"

    def clause(what: str, d: MetricInterval) -> str:
        ci = (
            f"difference {a} - {b} = {fixed(d.estimate, 3, sign=True)} bits, {pct} CI "
            f"{fixed(d.low, 3, sign=True)} to {fixed(d.high, 3, sign=True)}"
        )
        found = outcome(d)
        if found == "better":
            return f"{a} has the lower {what} ({ci}): {a} performs better"
        if found == "worse":
            return f"{b} has the lower {what} ({ci}): {b} performs better"
        return f"the {what} of {a} and {b} cannot be told apart ({ci})"

    return (
        f"On these trials {clause('Cllr', d_cllr)}; for discrimination, "
        f"{clause('minCllr', d_min)}. AUC {test.auc_a:.3f} ({a}) vs {test.auc_b:.3f} ({b}), "
        f"DeLong p {p_text(test.p_value)}."
    )


def _cost_gap(a: SortedSystem, b: SortedSystem, carry) -> tuple[np.ndarray, np.ndarray] | None:
    """Per trial, in system ``a``'s sorted order, ``a``'s cost minus ``b``'s (SS, DS).

    ``carry``: the SS and DS indices from ``a``'s sorted order to ``b``'s
    (:func:`~forensic_lr.validation.bootstrap._carries`). The two systems score the same
    trials and every replicate weights a trial equally in both, with the same class
    totals, so the replicate's Cllr difference is one weighted sum of these gaps per class
    (:func:`_replicate_differences`). None when a system has an infinite LLR (an infinite
    cost, whose difference is undefined).
    """
    if a.n_inf_ss or a.n_inf_ds or b.n_inf_ss or b.n_inf_ds:
        return None
    gaps = []
    for cost_a, cost_b, p in ((a.cost_ss, b.cost_ss, carry[0]), (a.cost_ds, b.cost_ds, carry[1])):
        b_in_a = np.empty_like(cost_b)
        b_in_a[p] = cost_b  # b's sorted trial j is a's p[j]
        gaps.append(cost_a - b_in_a)
    return gaps[0], gaps[1]


def _replicate_differences(a: SortedSystem, b: SortedSystem, cost_gap, wa, wb) -> np.ndarray:
    """``[Cllr_a - Cllr_b, minCllr_a - minCllr_b]`` of one replicate (NaN without a class).

    ``wa`` / ``wb``: the replicate's weights in each system's sorted order. With
    ``cost_gap`` (:func:`_cost_gap`) the Cllr difference is
    ``(sum_ss w g_ss / W_ss + sum_ds w g_ds / W_ds) / (2 ln 2)`` with the per-trial cost
    gaps ``g``: one pass over the weights instead of one per system. Without it (infinite
    LLRs), the two systems' :func:`replicate_cllrs`.
    """
    if cost_gap is None:
        return replicate_cllrs(a, *wa) - replicate_cllrs(b, *wb)
    k_a, k_b = a.corner_ss.size, b.corner_ss.size
    read_ss, read_ds = a.read_ss(wa[0]), a.read_ds(wa[1])
    tot_ss, tot_ds = int(read_ss[k_a - 1]), int(read_ds[k_a - 1])
    if tot_ss == 0 or tot_ds == 0:
        return np.full(2, np.nan)
    gap = (weighted_dot(wa[0], cost_gap[0]) / tot_ss
           + weighted_dot(wa[1], cost_gap[1]) / tot_ds) / (2 * LN2)
    min_a = block_cllr(hull_fit(a, read_ss[:k_a], read_ds[:k_a]))
    min_b = block_cllr(hull_fit(b, b.read_ss(wb[0])[:k_b], b.read_ds(wb[1])[:k_b]))
    return np.array([gap, min_a - min_b])


def _difference_of_draw(a: SortedSystem, b: SortedSystem, cost_gap, weights, draw) -> np.ndarray:
    """The metric differences of one paired replicate from its draw."""
    wa, wb = weights(draw)
    return _replicate_differences(a, b, cost_gap, wa, wb)


def compare_systems(
    a_ss,
    a_ds,
    b_ss,
    b_ds,
    *,
    names: tuple[str, str] = ("A", "B"),
    by: str = "auto",
    ss_sources=None,
    ds_sources=None,
    n: int = 1000,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
    interval: str = "bc",
    progress: Progress | None = None,
    workers: int | None = None,
) -> PairedComparison:
    """Paired comparison of two systems' LLRs on the same trials.

    Parameters
    ----------
    a_ss, a_ds, b_ss, b_ds : array_like
        Natural-log LRs of systems A and B; index ``i`` is the same trial in both.
    names : (str, str)
        Names of the systems in the verdict.
    by, ss_sources, ds_sources, n, level, seed, interval, progress, workers
        As in :func:`bootstrap_metrics`.

    Returns
    -------
    PairedComparison

    Notes
    -----
    Each bootstrap replicate draws one set of trial weights and applies it to both
    systems, so ``Delta_r = Cllr_a,r - Cllr_b,r`` keeps the pairing; the interval is
    the bias-corrected (or plain) percentile interval of ``Delta_r`` [1]_ (likewise for
    minCllr). A system is
    declared better only when the interval excludes 0. The AUC difference is tested
    with :func:`delong_test` [2]_.

    References
    ----------
    .. [1] B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13.
    .. [2] E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, Biometrics 44 (1988) 837-845.
    """
    a_ss, a_ds = check_pair(a_ss, a_ds, names=("a_ss", "a_ds"), min_size=2)
    b_ss, b_ds = check_pair(b_ss, b_ds, names=("b_ss", "b_ds"), min_size=2)
    _same_trials(a_ss, a_ds, b_ss, b_ds)
    n, level = check_options(n, level, interval)
    check_bootstrap(n, a_ss.size + a_ds.size)
    by = resolve_by(by, ss_sources, ds_sources)
    workers = replicate_workers(workers, a_ss.size + a_ds.size)
    with ThreadPoolExecutor(min(2, workers)) as pool:  # numpy sorts without the GIL
        systems = list(pool.map(lambda pair: sort_system(*pair), ((a_ss, a_ds), (b_ss, b_ds))))
    rng = np.random.default_rng(seed)
    carries = carry_orders(systems)
    draws_from, weights, _ = draws(by, rng, n, systems, ss_sources, ds_sources, carries)
    diffs = np.empty((n, 2))
    cost_gap = _cost_gap(*systems, carries[0])

    def point_estimates():
        """Both systems' metrics and DeLong's test, run beside the replicates."""
        test = _delong(
            *(_placements(ss, ds, s.order_ss, s.order_ds)
              for (ss, ds), s in zip(((a_ss, a_ds), (b_ss, b_ds)), systems, strict=True)),
            level,
        )
        return (asdict(evaluate_llrs(a_ss, a_ds, check=False)),
                asdict(evaluate_llrs(b_ss, b_ds, check=False)), test)

    difference = partial(_difference_of_draw, systems[0], systems[1], cost_gap, weights)
    ev_a, ev_b, test = run_replicates(draws_from, difference, diffs, progress, workers,
                                       beside=point_estimates)
    n_valid = int(np.sum(~np.isnan(diffs[:, 0])))
    warned = invalid_warning(n_valid, n)
    estimates = [ev_a[m] - ev_b[m] for m in ("cllr", "min_cllr")]
    low, high, kept = interval_bounds(diffs, estimates, level, interval)
    warned += percentile_kept(("Cllr difference", "minCllr difference"), kept)
    d_cllr = MetricInterval("cllr", estimates[0], float(low[0]), float(high[0]))
    d_min = MetricInterval("min_cllr", estimates[1], float(low[1]), float(high[1]))
    return PairedComparison(
        names=(str(names[0]), str(names[1])),
        by=by,
        n=n,
        n_valid=n_valid,
        level=level,
        seed=int(seed),
        metrics_a={m: ev_a[m] for m in METRICS},
        metrics_b={m: ev_b[m] for m in METRICS},
        cllr_diff=d_cllr,
        min_cllr_diff=d_min,
        delong=test,
        verdict=_verdict(names, d_cllr, d_min, test, level),
        note=NOTES[by] + " DeLong's test assumes independent trials.",
        replicates={"cllr": diffs[:, 0], "min_cllr": diffs[:, 1]},
        warnings=warned,
        interval=interval,
    )
