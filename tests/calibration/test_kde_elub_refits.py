"""The KDE's bootstrap ELUB bounds (``KDECalibrator.bootstrap_elub``) against slow definitions.

* Each replicate's bounds against ``ELUB(KDECalibrator()).fit(resample)`` looped over the
  very draws of :func:`forensic_lr.resampling.bootstrap_index_chunks` (exact sums, binned
  sums with exact tails, classes far apart, constant resamples), equal as numbers; the
  LLRs at the evidence scores against the looped ``llr`` to 1e-10.
* The bounds do not depend on how many tail sums are done exactly (``_NODES_PER_H``).
* :func:`_convex_bounds` brackets the exact windowed sum; :func:`_cells` equals
  ``numpy.searchsorted``; :func:`elub_bounds_from_counts` is what ``elub_bounds_log10``
  computes from its sorted LLRs.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.calibration import ELUB, kde
from forensic_lr.calibration.elub import (
    elub_bounds_from_counts,
    elub_bounds_log10,
    elub_thresholds,
    log10_on_grid,
)
from forensic_lr.resampling import bootstrap_index_chunks


def _looped(ss, ds, x, n, seed, bandwidth="silverman"):
    """Bounds and unbounded LLRs at ``x`` of ELUB-wrapped KDE fits on each resample."""
    bounds, llr = [], []
    for idx_ss, idx_ds in bootstrap_index_chunks(np.random.default_rng(seed), n, ss.size,
                                                 ds.size):
        for i, j in zip(idx_ss, idx_ds, strict=True):
            s, d = ss[i], ds[j]
            if s.min() == s.max() or d.min() == d.max():  # fit refuses a constant class
                bounds.append((np.nan, np.nan))
                llr.append(np.full(x.size, np.nan))
                continue
            fitted = ELUB(kde.KDECalibrator(bandwidth=bandwidth)).fit(s, d)
            bounds.append(fitted.bounds_log10_)
            llr.append(fitted.unbounded_llr(x))
    return np.array(bounds), np.array(llr)


def _hook(ss, ds, x, n, seed, bandwidth="silverman"):
    return kde.KDECalibrator(bandwidth=bandwidth).bootstrap_elub(
        ss, ds, x, n=n, rng=np.random.default_rng(seed))


def _assert_same(ss, ds, x, n, seed, **kw):
    llr, bounds = _hook(ss, ds, x, n, seed, **kw)
    want_bounds, want_llr = _looped(ss, ds, x, n, seed, **kw)
    np.testing.assert_array_equal(bounds, want_bounds)
    np.testing.assert_allclose(llr, want_llr, rtol=1e-10, atol=1e-10)
    return bounds


@pytest.mark.parametrize("shift", [1.0, 3.0, 8.0])
def test_bounds_equal_looped_fits_exact_sums(make_background, shift):
    ss, ds = make_background(4, 40, 90, shift=shift)
    bounds = _assert_same(ss, ds, np.array([-1.0, 0.5, 2.0, 30.0]), 30, 7)
    assert np.isfinite(bounds).all()


@pytest.mark.parametrize("shift", [2.0, 6.0])
def test_bounds_equal_looped_fits_binned_sums(make_background, monkeypatch, shift):
    # a small limit makes fit (and the hook) bin the densities at the training scores,
    # with exact sums in the tails, as at 10^4 / 10^5 scores
    monkeypatch.setattr(kde, "_EXACT", 20_000)
    ss, ds = make_background(5, 300, 1500, shift=shift)
    bounds = _assert_same(ss, ds, np.array([0.0, 2.5]), 12, 3)
    assert np.isfinite(bounds).all()


def test_bounds_equal_looped_fits_fixed_bandwidth_and_ties(make_background, monkeypatch):
    monkeypatch.setattr(kde, "_EXACT", 5_000)
    ss, ds = make_background(6, 150, 600, shift=3.0)
    ss, ds = np.round(ss, 1), np.round(ds, 1)  # many tied scores
    _assert_same(ss, ds, np.array([1.0]), 10, 2, bandwidth=0.4)


def test_constant_resample_gives_nan_row():
    ss = np.array([0.0, 0.0, 0.0, 1.0])
    ds = np.array([-2.0, -1.0, -1.5, 0.5, -0.5])
    bounds = _assert_same(ss, ds, np.array([0.2]), 20, 1)
    assert np.isnan(bounds).any() and np.isfinite(bounds).any()


@pytest.mark.parametrize("per_h", [1e-9, 1, 4, 64, 10**6])
def test_bounds_do_not_depend_on_the_nodes(make_background, monkeypatch, per_h):
    monkeypatch.setattr(kde, "_EXACT", 20_000)
    ss, ds = make_background(8, 300, 1500, shift=4.0)
    x = np.array([1.0])
    _, want = _hook(ss, ds, x, 8, 4)
    monkeypatch.setattr(kde, "_NODES_PER_H", per_h)
    _, got = _hook(ss, ds, x, 8, 4)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-20, 20), min_size=2, max_size=40),
    st.lists(st.floats(-60, 60), min_size=1, max_size=80),
    st.floats(0.05, 5.0),
    st.floats(0.1, 100.0),
)
def test_convex_bounds_bracket_the_exact_sum(data, scores, h, per_h):
    data = np.sort(np.array(data))
    weights = np.arange(1, data.size + 1, dtype=float) % 3 + 1.0
    s = np.sort(np.array(scores))
    exact = kde._log_kde_exact(s, data, h, weights)
    old = kde._NODES_PER_H
    kde._NODES_PER_H = per_h
    try:
        low, high = kde._convex_bounds(s, data, h, weights)
    finally:
        kde._NODES_PER_H = old
    assert np.all(low <= exact + 1e-12) and np.all(exact <= high + 1e-12)
    assert low[0] == high[0] and low[-1] == high[-1]  # the first and last are nodes


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**6),
       st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=50))
def test_cells_equal_searchsorted(n_hp, n_hd, values):
    t = elub_thresholds(n_hp, n_hd)
    v = np.concatenate([values, t[::7], np.nextafter(t[::5], np.inf),
                        np.nextafter(t[::5], -np.inf), [np.inf, -np.inf]])
    np.testing.assert_array_equal(kde._cells(t, v), np.searchsorted(t, v))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-12, 12), min_size=1, max_size=60),
       st.lists(st.floats(-12, 12), min_size=1, max_size=60))
def test_bounds_from_weighted_counts_equal_the_sorted_definition(ss, ds):
    # each distinct value once, counted as often as it occurs (what the hook does)
    ss10, ds10 = np.array(ss), np.array(ds)
    t = elub_thresholds(ss10.size, ds10.size)
    counts = []
    for v in (ss10, ds10):
        values, weight = np.unique(log10_on_grid(v), return_counts=True)
        cell = kde._cells(t, values)
        counts.append(np.cumsum(np.bincount(cell, weights=weight, minlength=t.size + 1))[:-1])
    got = elub_bounds_from_counts(t, counts[0], counts[1], ss10.size, ds10.size)
    assert got == elub_bounds_log10(copy.copy(ss10), ds10)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-5, 5).map(lambda v: round(v, 1)), min_size=1, max_size=40),
    st.lists(st.floats(-8, 3).map(lambda v: round(v, 1)), min_size=1, max_size=60),
    st.sampled_from([0, 200, 10**9]),
    st.integers(0, 2**32 - 1),
)
def test_bounds_equal_looped_fits_property(ss, ds, limit, seed):
    # exact sums everywhere (large limit), binned sums with exact tails (limit 0), or a mix
    old = kde._EXACT
    kde._EXACT = limit
    try:
        _assert_same(np.array([*ss, 1.0, 2.0]), np.array([*ds, -1.0, 0.5]),
                     np.array([0.0, 1.5]), 4, seed)
    finally:
        kde._EXACT = old
