"""The KDE's fast paths against slow definitions.

* The windowed exact sum (:func:`_log_kde_exact`) against the brute-force O(n m) kernel sum
  (every kernel, ``scipy.special.logsumexp``), far into the tails.
* The binned estimate (:func:`_log_kde_binned`): its tail points (binned density below
  1e-3 of the peak, or off the grid) equal the brute-force sum to 1e-13; elsewhere it is
  within its documented error; its value does not depend on the order of the scores.
* The bootstrap hook at many scores (each replicate's resample sorted from its draw
  counts) against ``fit(resample).llr(scores)`` looped over the same draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from forensic_lr.calibration import kde, make_calibrator
from forensic_lr.uncertainty import _bootstrap_llr_loop


def _brute_log_kde(s, data, h):
    """``log((1/n) sum_i N(s; x_i, h^2))`` over every kernel (Silverman 1986, eq. 2.2a)."""
    z = (np.asarray(s)[:, None] - np.asarray(data)[None, :]) / h
    return logsumexp(-0.5 * z * z, axis=1) - np.log(data.size * h * np.sqrt(2 * np.pi))


@pytest.mark.parametrize("ties", [False, True])
def test_exact_windowed_sum_equals_every_kernel(ties):
    rng = np.random.default_rng(3)
    data = np.concatenate([rng.normal(0, 1, 400), rng.normal(6, 0.3, 50)])
    if ties:
        data = np.round(data, 1)
    data = np.sort(data)
    s = np.concatenate([np.linspace(-60, 60, 1201), data[::7], [-1e4, 1e4]])
    for h in (0.05, 0.3, 2.0):
        got = kde._log_kde_exact(s, data, h)
        want = _brute_log_kde(s, data, h)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-50, 50), min_size=1, max_size=40),
    st.lists(st.floats(-200, 200), min_size=1, max_size=30),
    st.floats(0.01, 10.0),
)
def test_exact_windowed_sum_property(data, scores, h):
    data, s = np.sort(np.array(data)), np.array(scores)
    np.testing.assert_allclose(kde._log_kde_exact(s, data, h), _brute_log_kde(s, data, h),
                               rtol=1e-13, atol=1e-11)


def test_binned_tails_exact_and_body_within_its_error():
    rng = np.random.default_rng(5)
    data = np.sort(rng.normal(0, 1, 3000))
    h = kde.bandwidth(data, "silverman")
    s = np.sort(np.concatenate([rng.normal(0, 2.5, 4000), [-30.0, -8.0, 9.0, 40.0]]))
    got = kde._log_kde_binned(s, data, h)
    want = _brute_log_kde(s, data, h)
    peak = want.max()
    tails = want < peak + np.log(1e-3) - 1e-3  # clearly below the switch to exact sums
    assert tails.sum() > 100
    np.testing.assert_allclose(got[tails], want[tails], rtol=1e-13, atol=1e-12)
    assert np.max(np.abs(got - want)) < 1e-5  # documented error of the binned estimate


def test_binned_estimate_does_not_depend_on_score_order():
    rng = np.random.default_rng(6)
    data = np.sort(rng.normal(0, 1, 2000))
    h = kde.bandwidth(data, "silverman")
    s = rng.normal(0, 3, 3000)
    order = np.argsort(s)
    unsorted = kde._log_kde_binned(s, data, h)
    np.testing.assert_array_equal(unsorted[order], kde._log_kde_binned(s[order], data, h))


@given(st.lists(st.integers(-5, 5), min_size=1, max_size=30), st.integers(0, 2**32 - 1))
def test_sorted_resample_from_counts_is_the_sorted_resample(values, seed):
    values = np.array(values, dtype=float)
    idx = np.random.default_rng(seed).integers(0, values.size, values.size)
    quartiles = kde._ResampleQuartiles(values)
    counts = quartiles.counts(idx[None, :])[0]
    rebuilt = np.repeat(quartiles.sorted, counts.astype(int))
    np.testing.assert_array_equal(rebuilt, np.sort(values[idx]))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("rule", ["silverman", "scott", 0.4])
def test_hook_at_every_background_score_equals_looped_fits(monkeypatch, ties, rule):
    """As the sensitivity analysis calls it: the evidence score and every background score."""
    monkeypatch.setattr(kde, "_EXACT", 2000)  # the binned path on small data
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(2.0, 1.0, 150), rng.normal(-1.0, 1.2, 600)
    if ties:
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    at = np.concatenate([[1.5, -20.0, 25.0], ss, ds])
    cal = make_calibrator("kde", bandwidth=rule)
    hook = cal.bootstrap_llr(ss, ds, at, n=12, rng=np.random.default_rng(2))
    loop = _bootstrap_llr_loop(cal, ss, ds, at, n=12, rng=np.random.default_rng(2))
    assert np.isfinite(hook).all()
    np.testing.assert_allclose(hook, loop, rtol=1e-12, atol=1e-12)


def test_hook_at_many_scores_marks_constant_resamples(monkeypatch):
    monkeypatch.setattr(kde, "_EXACT", 10)
    ss, ds = np.array([0.0, 0.0, 0.0, 1.0]), np.linspace(-2.0, 0.5, 40)
    hook = make_calibrator("kde").bootstrap_llr(ss, ds, np.linspace(-3, 3, 25), n=40,
                                                rng=np.random.default_rng(0))
    loop = _bootstrap_llr_loop(make_calibrator("kde"), ss, ds, np.linspace(-3, 3, 25), n=40,
                               rng=np.random.default_rng(0))
    constant = np.isnan(loop).all(axis=1)
    assert constant.any() and not constant.all()
    np.testing.assert_array_equal(np.isnan(hook).all(axis=1), constant)
    np.testing.assert_allclose(hook[~constant], loop[~constant], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("near", [1, 3, 64])
def test_hook_at_few_scores_equals_looped_fits(monkeypatch, near):
    """Draw counts over the sorted data; with the nearest-point search cut short, the
    replicates it does not settle take the exact windowed sum over their resample."""
    monkeypatch.setattr(kde, "_NEAR", near)
    rng = np.random.default_rng(11)
    ss, ds = np.round(rng.normal(2.0, 1.0, 300), 2), rng.normal(-1.0, 1.2, 900)
    scores = np.array([-1e4, -40.0, -3.0, -1.0, 0.37, 1.5, 2.0, 4.2, 30.0, 1e5])
    cal = make_calibrator("kde")
    hook = cal.bootstrap_llr(ss, ds, scores, n=25, rng=np.random.default_rng(4))
    loop = _bootstrap_llr_loop(cal, ss, ds, scores, n=25, rng=np.random.default_rng(4))
    np.testing.assert_allclose(hook, loop, rtol=1e-11, atol=1e-11)


def test_hook_at_few_scores_marks_constant_resamples_of_tied_values():
    ss = np.array([1.0, 1.0, 1.0, 2.0])  # resamples of the three tied 1.0s are constant
    ds = np.linspace(-2.0, 0.5, 30)
    cal = make_calibrator("kde")
    hook = cal.bootstrap_llr(ss, ds, [0.0, 1.5], n=60, rng=np.random.default_rng(0))
    loop = _bootstrap_llr_loop(cal, ss, ds, np.array([0.0, 1.5]), n=60,
                               rng=np.random.default_rng(0))
    constant = np.isnan(loop).all(axis=1)
    assert constant.any() and not constant.all()
    np.testing.assert_array_equal(np.isnan(hook).all(axis=1), constant)
    np.testing.assert_allclose(hook[~constant], loop[~constant], rtol=1e-11, atol=1e-11)


def test_resample_sd_and_quartiles_from_counts():
    rng = np.random.default_rng(12)
    values = np.concatenate([np.round(rng.normal(50.0, 3.0, 2000), 1), [1e3]])
    quartiles = kde._ResampleQuartiles(values)
    idx = rng.integers(0, values.size, (30, values.size))
    counts = quartiles.counts(idx)
    sd, constant = quartiles.sd(counts)
    rows = values[idx]
    np.testing.assert_allclose(sd, rows.std(axis=1, ddof=1), rtol=1e-13)
    assert not constant.any()
    q75, q25 = quartiles(counts)
    np.testing.assert_array_equal(q75, np.percentile(rows, 75, axis=1))
    np.testing.assert_array_equal(q25, np.percentile(rows, 25, axis=1))


@pytest.mark.parametrize("binned", [False, True])
def test_weighted_sums_equal_the_repeated_data(binned):
    """Distinct values weighted by how often they occur = the data with the repeats."""
    rng = np.random.default_rng(13)
    values = np.sort(rng.normal(0.0, 1.0, 3000))
    weights = rng.poisson(1.0, values.size).astype(float)
    drawn = weights > 0
    repeated = np.repeat(values, weights.astype(int))
    h = kde.bandwidth(repeated, "silverman")
    s = np.sort(np.concatenate([rng.normal(0.0, 2.0, 3000), [-25.0, 25.0]]))
    func = kde._log_kde_binned if binned else kde._log_kde_exact
    got = func(s, values[drawn], h, weights[drawn])
    np.testing.assert_allclose(got, func(s, repeated, h), rtol=1e-12, atol=1e-12)
    if not binned:
        np.testing.assert_allclose(got, _brute_log_kde(s, repeated, h), rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize(("n", "m"), [(16384, 301), (100, 7), (50, 50), (10, 3)])
def test_fft_convolution_equals_the_direct_sum(n, m):
    # the grid is always longer than the kernel, as numpy's "same" mode then assumes
    rng = np.random.default_rng(n + m)
    values, kernel = rng.random(n), rng.random(m)
    want = np.convolve(values, kernel, mode="same")  # the direct O(n m) sum
    np.testing.assert_allclose(kde._convolve_same(values, kernel), want, rtol=1e-12,
                               atol=1e-12 * want.max())
