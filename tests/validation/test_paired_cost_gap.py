"""The paired comparison's Cllr difference from per-trial cost gaps equals the slow definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.metrics import cllr, min_cllr
from forensic_lr.validation import compare_systems
from forensic_lr.validation.compare import _cost_gap, _replicate_differences
from forensic_lr.validation.replicates import carry_orders, replicate_weights
from forensic_lr.validation.weighted_metrics import replicate_cllrs, sort_system


def _gap(a, b):
    """The cost gaps of A and B, with the carry from A's sorted order to B's."""
    return _cost_gap(a, b, carry_orders([a, b])[0])


def _expanded_difference(systems, pair, arrays) -> np.ndarray:
    """Cllr and minCllr of A minus B on the data holding each trial as often as weighted."""
    values = []
    for s, (c_ss, c_ds), (ss, ds) in zip(systems, pair, arrays, strict=True):
        w_ss, w_ds = np.empty_like(c_ss), np.empty_like(c_ds)
        w_ss[s.order_ss], w_ds[s.order_ds] = c_ss, c_ds
        rep_ss, rep_ds = np.repeat(ss, w_ss), np.repeat(ds, w_ds)
        values.append(np.array([cllr(rep_ss, rep_ds), min_cllr(rep_ss, rep_ds)]))
    return values[0] - values[1]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.5]),  # rounding step of B's LLRs (0: no ties)
)
def test_cost_gap_difference_equals_two_systems(n_ss, n_ds, seed, step):
    """Integer weights 0-3 in A's order carried to B: the one-pass difference equals the
    difference of the two systems' replicate Cllr and minCllr."""
    rng = np.random.default_rng(seed)
    a_ss, a_ds = rng.normal(1, 2, n_ss), rng.normal(-1, 2, n_ds)
    b_ss, b_ds = a_ss + rng.normal(0, 1, n_ss), a_ds + rng.normal(0, 1, n_ds)
    if step:
        b_ss, b_ds = np.round(b_ss / step) * step, np.round(b_ds / step) * step
    systems = [sort_system(a_ss, a_ds), sort_system(b_ss, b_ds)]
    gap = _gap(*systems)
    assert gap is not None
    draws, _ = replicate_weights("trial", rng, 1, systems, None, None)
    for wa, wb in draws:
        wa = [rng.integers(0, 4, c.size) for c in wa]  # any integer weights, carried to B
        wb = [w.take(_order(systems, j)) for j, w in enumerate(wa)]
        want = replicate_cllrs(systems[0], *wa) - replicate_cllrs(systems[1], *wb)
        got = _replicate_differences(systems[0], systems[1], gap, wa, wb)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def _order(systems, j: int) -> np.ndarray:
    """Index into A's sorted weights giving B's (class j: 0 SS, 1 DS)."""
    a, b = (s.order_ss if j == 0 else s.order_ds for s in systems)
    position = np.empty(a.size, dtype=np.intp)
    position[a] = np.arange(a.size)
    return position[b]


def test_cost_gap_is_none_only_with_an_infinite_cost():
    """An SS LLR of -inf or a DS LLR of +inf costs infinitely; the other infinities cost 0."""
    a_ss, a_ds = np.array([1.0, 2.0]), np.array([-1.0, 0.5])
    finite = sort_system(a_ss, a_ds)
    assert _gap(finite, sort_system(a_ss, np.array([np.inf, 0.5]))) is None
    assert _gap(sort_system(np.array([-np.inf, 2.0]), a_ds), finite) is None
    gap = _gap(sort_system(np.array([np.inf, 2.0]), np.array([-np.inf, 0.5])), finite)
    assert gap is not None and np.isfinite(np.concatenate(gap)).all()


def test_empty_class_gives_nan_differences():
    a = sort_system(np.array([1.0, 2.0]), np.array([-1.0, 0.5]))
    b = sort_system(np.array([2.0, 1.5]), np.array([0.0, -0.5]))
    zero, one = np.zeros(2, dtype=np.int64), np.ones(2, dtype=np.int64)
    got = _replicate_differences(a, b, _gap(a, b), (zero, one), (zero, one))
    assert np.isnan(got).all()


def test_paired_bootstrap_by_trial_and_by_source_equals_slow_definition():
    """By source (weights m_a m_b), and by trial."""
    rng = np.random.default_rng(5)
    n_ss, n_ds = 307, 2_011
    a_ss, a_ds = rng.normal(2, 2, n_ss), rng.normal(-2, 2, n_ds)
    b_ss = np.round(a_ss + rng.normal(0, 1, n_ss), 1)
    b_ds = np.round(a_ds + rng.normal(0, 1, n_ds), 1)
    ss_src = rng.integers(0, 30, n_ss)
    ds_src = np.column_stack([rng.integers(0, 30, n_ds), rng.integers(0, 30, n_ds)])
    arrays = ((a_ss, a_ds), (b_ss, b_ds))
    systems = [sort_system(a_ss, a_ds), sort_system(b_ss, b_ds)]
    for by, sources in (("trial", (None, None)), ("source", (ss_src, ds_src))):
        res = compare_systems(a_ss, a_ds, b_ss, b_ds, by=by, ss_sources=sources[0],
                              ds_sources=sources[1], n=3, seed=4, workers=2)
        draws, _ = replicate_weights(by, np.random.default_rng(4), 3, systems, *sources)
        for r, pair in enumerate(draws):
            diff = _expanded_difference(systems, pair, arrays)
            assert res.replicates["cllr"][r] == pytest.approx(diff[0], abs=1e-10)
            assert res.replicates["min_cllr"][r] == pytest.approx(diff[1], abs=1e-10)


def test_paired_cost_gap_results_identical_with_one_or_two_threads_and_run_to_run():
    rng = np.random.default_rng(9)
    a_ss, a_ds = rng.normal(2, 2, 1_001), rng.normal(-2, 2, 5_002)
    b_ss, b_ds = a_ss + rng.normal(0, 1, a_ss.size), a_ds + rng.normal(0, 1, a_ds.size)
    runs = [compare_systems(a_ss, a_ds, b_ss, b_ds, n=6, seed=3, workers=w) for w in (1, 2, 2)]
    for res in runs[1:]:
        for key in ("cllr", "min_cllr"):
            np.testing.assert_array_equal(res.replicates[key], runs[0].replicates[key])
