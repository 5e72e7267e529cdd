"""S-cal and Student-t fits from grouped warm starts equal the direct fits.

The reference for each fit is the slow definition it replaces: for S-cal, L-BFGS-B on every
score from the logistic start followed by projected Newton (written out below); for
Student-t, ECME on every score followed by projected Newton (``_ecme`` with no counts, the
direct path). Both are run on data sets large enough for the grouped path (at least
``GROUPED_FROM`` scores): normal, tied, heavy-tailed, with label noise (saturating S-cal).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import minimize

from forensic_lr.calibration.batched_newton import in_row_blocks
from forensic_lr.calibration.grouping import (
    GROUPED_FROM,
    distinct_weights,
    group_starts,
    pool,
)
from forensic_lr.calibration.logistic import LogisticCalibrator
from forensic_lr.calibration.scal import SCalCalibrator, _loss_and_grad, _Objective, _polish
from forensic_lr.calibration.student_t import (
    StudentTCalibrator,
    _ecme,
    fit_t,
)
from forensic_lr.calibration.student_t import (
    _polish as _polish_t,
)
from forensic_lr.uncertainty import _bootstrap_llr_loop

GRID = np.linspace(-6.0, 8.0, 141)


def _data(kind, n_ss, n_ds, seed):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(2.0, 1.0, n_ss), rng.normal(-1.0, 1.2, n_ds)
    if kind == "ties":
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    elif kind == "heavy":
        ss = stats.t.rvs(3, loc=2.0, scale=1.0, size=n_ss, random_state=rng)
        ds = stats.t.rvs(2, loc=-1.0, scale=1.2, size=n_ds, random_state=rng)
    elif kind == "noise":  # 10 % of the labels swapped: S-cal saturates near +-log 9
        ss = np.where(rng.random(n_ss) < 0.1, rng.normal(-1.0, 1.2, n_ss), ss)
        ds = np.where(rng.random(n_ds) < 0.1, rng.normal(2.0, 1.0, n_ds), ds)
    return ss, ds


def _scal_direct(ss, ds, limit=23.0):
    """The S-cal fit as defined before the grouped start: L-BFGS-B on every score, Newton."""
    start = LogisticCalibrator(l2=1e-6).fit(ss, ds)
    u = (np.concatenate([ss, ds]) - start.centre_) / start.scale_
    is_ss = np.r_[np.ones(ss.size, bool), np.zeros(ds.size, bool)]
    w = np.where(is_ss, 0.5 / ss.size, 0.5 / ds.size)
    c, d = start.theta_
    half = min(limit, 1.0 + np.max(np.abs(c + d * u)))
    b = 4 * d / (2 * half)
    res = minimize(_loss_and_grad, np.array([-half, half, b * c / d, b]), args=(u, is_ss, w),
                   jac=True, method="L-BFGS-B",
                   bounds=[(-limit, limit), (-limit, limit), (None, None), (None, None)],
                   options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-10})
    theta, done = _polish(res.x[None, :], u, np.where(is_ss, -1.0, 1.0), w[None, :], limit)
    lo, hi, a, b = theta[0] if done[0] else res.x
    if hi < lo:
        lo, hi, a, b = hi, lo, -a, -b
    z = a + b * (GRID - start.centre_) / start.scale_
    return lo + (hi - lo) * stats.logistic.cdf(z)


def _t_direct(values, df):
    """The Student-t fit as defined before the grouped start: ECME on every score, Newton."""
    mu = float(np.median(values))
    sigma = 1.4826 * float(np.median(np.abs(values - mu)))
    mu, sigma, nu, _ = _ecme(values, None, mu, sigma, df)
    start = np.array([[mu, np.log(sigma), np.log(nu)]])
    theta, done = _polish_t(start, values, np.full((1, values.size), 1 / values.size), df)
    if done[0]:
        mu, sigma = theta[0, 0], np.exp(theta[0, 1])
        nu = np.exp(theta[0, 2]) if df is None else df
    return mu, sigma, nu


@pytest.mark.parametrize("kind", ["normal", "ties", "heavy", "noise"])
@pytest.mark.parametrize(("n_ss", "n_ds", "seed"), [(300, 3000, 1), (2000, 20000, 2)])
def test_scal_fit_equals_the_direct_fit(kind, n_ss, n_ds, seed):
    ss, ds = _data(kind, n_ss, n_ds, seed)
    assert ss.size + ds.size >= GROUPED_FROM
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = SCalCalibrator().fit(ss, ds).llr(GRID)
        slow = _scal_direct(ss, ds)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-8)


@pytest.mark.parametrize("kind", ["normal", "ties", "heavy"])
@pytest.mark.parametrize("df", [None, 4.0])
@pytest.mark.parametrize(("n", "seed"), [(3000, 3), (20000, 4)])
def test_student_t_fit_equals_the_direct_fit(kind, df, n, seed):
    x = _data(kind, 10, n, seed)[1]
    fit = fit_t(x, df)
    mu, sigma, nu = _t_direct(x, df)
    ref = stats.t.logpdf(GRID, nu, mu, sigma)
    got = stats.t.logpdf(GRID, fit.df, fit.loc, fit.scale)
    # near-normal classes (nu in the hundreds) have a likelihood so flat in nu that float64
    # fixes log nu only to about 1e-8 (both fits stop within that plateau)
    atol = 1e-7 if kind != "heavy" and df is None else 1e-9
    np.testing.assert_allclose(got, ref, rtol=0, atol=atol)
    direct_loglik = stats.t.logpdf(x, nu, mu, sigma).sum()
    assert fit.loglik >= direct_loglik - 1e-8 * abs(direct_loglik)


def test_student_t_llr_is_scipys_t_density_ratio():
    ss, ds = _data("heavy", 500, 2500, 5)
    cal = StudentTCalibrator().fit(ss, ds)
    a, b = cal.fit_ss_, cal.fit_ds_
    expected = (stats.t.logpdf(GRID, a.df, a.loc, a.scale)
                - stats.t.logpdf(GRID, b.df, b.loc, b.scale))
    np.testing.assert_allclose(cal.llr(GRID), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["normal", "ties", "heavy", "noise"])
def test_scal_hook_equals_loop_on_the_grouped_path(kind):
    """Replicates of 3300 scores: the looped fits take the grouped path, the hook its own."""
    ss, ds = _data(kind, 300, 3000, 6)
    scores = np.array([-3.0, 0.0, 1.5, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hook = SCalCalibrator().bootstrap_llr(ss, ds, scores, n=12, rng=np.random.default_rng(3))
        loop = _bootstrap_llr_loop(SCalCalibrator(), ss, ds, scores, n=12,
                                   rng=np.random.default_rng(3))
    np.testing.assert_allclose(hook, loop, rtol=0, atol=1e-8)


# ------------------------------------------------------------------ grouping


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=400),
    groups=st.integers(1, 50),
    width=st.sampled_from([0.01, 0.1, 1.0]),
    seed=st.integers(0, 2**31 - 1),
)
def test_pool_keeps_weight_mean_and_variance_of_every_group(values, groups, width, seed):
    x = np.sort(np.array(values))
    starts = group_starts(x, groups, width)
    assert starts[0] == 0 and np.all(np.diff(starts) > 0) and starts[-1] < x.size
    w = np.random.default_rng(seed).integers(0, 4, (3, x.size)).astype(float)
    points, totals = pool(x, w, starts)
    g = starts.size
    ends = np.r_[starts[1:], x.size]
    for row in range(3):
        for j, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
            wj, xj = w[row, lo:hi], x[lo:hi]
            pw = totals[row, [j, g + j]]
            px = points[row, [j, g + j]]
            assert pw.sum() == pytest.approx(wj.sum(), abs=1e-12)
            if wj.sum() == 0:
                continue
            mean = np.sum(wj * xj) / wj.sum()
            scale = 1.0 + np.max(np.abs(xj))
            assert np.sum(pw * px) / pw.sum() == pytest.approx(mean, abs=1e-12 * scale)
            var = np.sum(wj * (xj - mean) ** 2) / wj.sum()
            got = np.sum(pw * (px - mean) ** 2) / pw.sum()
            assert got == pytest.approx(var, abs=1e-9 * scale**2)


def test_group_starts_bound_the_size_and_width_of_groups():
    x = np.sort(np.random.default_rng(7).normal(0, 2, 5000))
    starts = group_starts(x, 64, 0.05)
    ends = np.r_[starts[1:], x.size]
    assert np.max(ends - starts) <= 5000 // 64 + 1
    span = np.arcsinh(x[ends - 1]) - np.arcsinh(x[starts])
    assert np.max(span) < 0.05


def test_distinct_weights_count_ties():
    v, c = distinct_weights(np.array([2.0, 1.0, 2.0, 3.0, 2.0]))
    np.testing.assert_array_equal(v, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(c, [1.0, 3.0, 1.0])


def test_row_blocks_equal_one_call():
    rng = np.random.default_rng(8)
    u, w = np.sort(rng.normal(0, 1, 5000)), rng.random((40, 5000)) / 5000
    sign = np.where(rng.random(5000) < 0.3, -1.0, 1.0)
    obj = _Objective(u, sign, w)
    theta = np.tile([-3.0, 2.0, 0.2, 1.1], (40, 1)) + rng.normal(0, 0.1, (40, 4))
    rows = np.arange(40)
    grad, hess = in_row_blocks(obj.derivatives, theta, rows, u.size)
    g1, h1 = obj.derivatives(theta, rows)
    np.testing.assert_allclose(grad, g1, rtol=1e-13, atol=1e-18)
    np.testing.assert_allclose(hess, h1, rtol=1e-13, atol=1e-18)
    np.testing.assert_allclose(in_row_blocks(obj.value, theta, rows, u.size),
                               obj.value(theta, rows), rtol=1e-14)


@pytest.mark.parametrize("df", [None, 4.0])
def test_student_t_hook_equals_loop_on_the_grouped_path(df):
    """Classes of 2,500 scores: the looped fits take the grouped path (heavy tails)."""
    ss, ds = _data("heavy", 2500, 2500, 9)
    scores = np.array([-3.0, 0.0, 1.5, 4.0])
    hook = StudentTCalibrator(df=df).bootstrap_llr(ss, ds, scores, n=6,
                                                   rng=np.random.default_rng(4))
    loop = _bootstrap_llr_loop(StudentTCalibrator(df=df), ss, ds, scores, n=6,
                               rng=np.random.default_rng(4))
    np.testing.assert_allclose(hook, loop, rtol=0, atol=1e-8)
