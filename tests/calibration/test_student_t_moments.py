"""Student-t bootstrap from power moments: the series sums equal the direct sums, and the hook
equals the looped refit on the moment path, on its fallback to the scores, and with ties.

The reference is the slow definition: ``fit`` on each resample of the draws of
:func:`forensic_lr.resampling.bootstrap_index_chunks`
(:func:`forensic_lr.uncertainty._bootstrap_llr_loop`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.calibration import student_t
from forensic_lr.calibration.batched_newton import projected_newton
from forensic_lr.calibration.exact_products import exact_sum_split
from forensic_lr.calibration.student_t import (
    SERIES_TERMS,
    StudentTCalibrator,
    _MeanLoglik,
    _MomentLoglik,
    _Resamples,
    fit_t,
    series_tail,
)
from forensic_lr.uncertainty import _bootstrap_llr_loop

SCORES = np.array([-3.0, -0.4, 0.0, 1.5, 2.9, 6.0])


def _models(x, w, centre):
    """The direct objective and the moment objective of the same weighted scores."""
    half = float(np.max(np.abs(x - centre)))
    v = (x - centre) / half
    moments = w @ v[:, None] ** np.arange(2 * SERIES_TERMS + 2)
    return _MeanLoglik(x, w), _MomentLoglik(centre, half, moments, (v.min(), v.max()))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shift=st.floats(-0.3, 0.3),
    log_sigma=st.floats(-0.3, 0.3),
    nu=st.floats(20.0, 1000.0),
)
def test_moment_sums_equal_direct_sums(seed, shift, log_sigma, nu):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.5, 1.0, 300)
    w = rng.random((2, x.size))
    w /= w.sum(axis=1, keepdims=True)
    direct, moments = _models(x, w, centre=0.5)
    theta = np.array([[0.5 + shift, log_sigma, np.log(nu)]] * 2)
    rows = np.arange(2)
    _, _, ok = moments._central(theta, rows)
    exact = direct._sums(theta, rows)
    series = moments._sums(theta, rows)
    for a, b in zip(exact, series, strict=True):
        np.testing.assert_allclose(b[ok], a[ok], rtol=1e-12, atol=1e-14)
        assert np.isnan(b[~ok]).all()
    np.testing.assert_allclose(moments.value(theta, rows)[ok], direct.value(theta, rows)[ok],
                               rtol=1e-13)
    g_d, h_d = direct.derivatives(theta, rows)
    g_m, h_m = moments.derivatives(theta, rows)
    np.testing.assert_allclose(g_m[ok], g_d[ok], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h_m[ok], h_d[ok], rtol=1e-10, atol=1e-12)


def test_series_is_refused_where_it_would_not_reach_rounding():
    x = np.random.default_rng(1).normal(0.0, 1.0, 500)
    w = np.full((1, x.size), 1 / x.size)
    _, moments = _models(x, w, centre=0.0)
    spread = np.max(np.abs(x))
    rows = np.array([0])
    # rho = spread^2 / nu (sigma = 1): accepted for large nu, refused for small nu
    for nu, expected in ((1000.0, True), (2.0, False)):
        theta = np.array([[0.0, 0.0, np.log(nu)]])
        ok = moments._central(theta, rows)[2][0]
        assert ok == expected
        assert (series_tail(np.array(spread**2 / nu), np.array(1.0)) <= 2.0**-53) == expected
    assert np.isnan(moments.value(np.array([[0.0, 0.0, np.log(2.0)]]), rows)).all()


def _hook_and_loop(cal, ss, ds, n, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hook = cal.bootstrap_llr(ss, ds, SCORES, n=n, rng=np.random.default_rng(seed))
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=n, rng=np.random.default_rng(seed))
    return hook, loop


def _normal(n_ss, n_ds, seed, ties=False):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(2.0, 1.0, n_ss), rng.normal(-1.0, 1.2, n_ds)
    if ties:
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    return ss, ds


def test_normal_scores_take_the_moment_path():
    _, ds = _normal(10, 3000, 3)
    assert _Resamples(ds, fit_t(ds), 5, False, 5, None).table is not None
    heavy = np.random.default_rng(4).standard_t(2.0, 400)
    assert _Resamples(heavy, fit_t(heavy), 5, False, 5, None).table is None


@pytest.mark.parametrize(("n_ss", "n_ds"), [(150, 900), (400, 3000)])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("df", [None, 300.0])
def test_moment_hook_equals_loop(n_ss, n_ds, ties, df):
    ss, ds = _normal(n_ss, n_ds, seed=n_ss + n_ds, ties=ties)
    assert _Resamples(ds, fit_t(ds, df), 1, False, 1, df).table is not None  # moments
    hook, loop = _hook_and_loop(StudentTCalibrator(df=df), ss, ds, 40, 11)
    np.testing.assert_array_equal(np.isnan(hook), np.isnan(loop))
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-8)


def test_replicates_beyond_the_series_are_solved_on_the_scores(monkeypatch):
    """With a short series most replicates leave its range: the fallback still equals the loop."""
    ss, ds = _normal(300, 2000, seed=5)
    monkeypatch.setattr(student_t, "SERIES_TERMS", 12)
    on_scores = []
    solve = _Resamples.solve_on_scores

    def spy(self, rows, idx):
        on_scores.append((self.table is not None, int(np.count_nonzero(~self.ok[rows]))))
        return solve(self, rows, idx)

    monkeypatch.setattr(_Resamples, "solve_on_scores", spy)
    hook, loop = _hook_and_loop(StudentTCalibrator(), ss, ds, 30, 12)
    assert any(moment and count for moment, count in on_scores)
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-8)


def test_same_answer_in_any_block_size(monkeypatch):
    """The moment products are collected in blocks: the block size changes nothing."""
    ss, ds = _normal(300, 2000, seed=6)
    cal = StudentTCalibrator()
    first = cal.bootstrap_llr(ss, ds, SCORES, n=50, rng=np.random.default_rng(3))
    monkeypatch.setattr(student_t, "MOMENT_ROWS", 7)
    second = cal.bootstrap_llr(ss, ds, SCORES, n=50, rng=np.random.default_rng(3))
    np.testing.assert_allclose(second, first, rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(2, 5000))
def test_split_table_products_are_exact_in_any_order(seed, size):
    """Both halves of the split sum exactly: integer arithmetic and any order agree bit for bit."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(-1.0, 1.0, 50)
    table = np.vander(v, 9, increasing=True)
    split = exact_sum_split(table, size)
    first, second = split[:, :9], split[:, 9:]
    assert np.max(np.abs(first + second - table)) <= 2.0 ** -(2 * (52 - np.ceil(np.log2(size + 1))))
    counts = rng.multinomial(size, np.full(v.size, 1 / v.size), size=4).astype(np.float64)
    product = counts @ split
    bits = 52 - int(np.ceil(np.log2(size + 1)))
    for part, scale in ((first, 2.0**bits), (second, 4.0**bits)):
        as_int = np.rint(part * scale).astype(np.int64)
        np.testing.assert_array_equal(part * scale, as_int)  # multiples of the unit
        exact = counts.astype(np.int64) @ as_int
        got = product[:, : 9] if part is first else product[:, 9:]
        np.testing.assert_array_equal(got * scale, exact)
    order = rng.permutation(v.size)
    np.testing.assert_array_equal(counts[:, order] @ split[order], product)


def test_projected_newton_gives_up_where_the_value_is_nan():
    """``nan_halvings``: steps that keep leaving the region with a value end the problem."""
    calls = []

    def value(th, rows):
        calls.append(rows.size)
        out = np.sum((th - 3.0) ** 2, axis=1)
        return np.where(th[:, 0] > 1.0, np.nan, out)  # available only for x <= 1

    def derivatives(th, rows):
        return 2 * (th - 3.0), np.broadcast_to(2 * np.eye(1), (th.shape[0], 1, 1))

    start = np.array([[0.0], [0.5]])
    box = np.array([-np.inf]), np.array([np.inf])
    # from 0 the Newton step reaches 3: halved to 1.5, still NaN, then 0.75 is accepted
    theta, done = projected_newton(value, derivatives, start, *box, nan_halvings=2)
    assert not done.any() and len(calls) == 3  # the start, then two NaN candidates
    np.testing.assert_array_equal(theta, start)
    calls.clear()
    _, done = projected_newton(value, derivatives, start, *box, nan_halvings=3)
    assert not done.any() and len(calls) > 3  # progress towards x = 1, then given up
    calls.clear()
    # without it the step is halved until the value exists again, up to 40 times a step
    projected_newton(value, derivatives, start, *box)
    assert len(calls) > 10
