"""S-cal and Student-t: fits end at a sharp optimum, and the batched bootstrap equals the loop.

The reference for the hooks is the slow definition: ``fit`` on each resample of the draws of
:func:`forensic_lr.resampling.bootstrap_index_chunks` (the generic loop
:func:`forensic_lr.uncertainty._bootstrap_llr_loop`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from forensic_lr.calibration.batched_newton import projected_newton
from forensic_lr.calibration.scal import SCalCalibrator, _loss_and_grad, _Objective
from forensic_lr.calibration.student_t import StudentTCalibrator, _MeanLoglik, fit_t
from forensic_lr.uncertainty import _bootstrap_llr_loop

SCORES = np.array([-3.0, -0.4, 0.0, 1.5, 2.9, 6.0])


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _data(n_ss, n_ds, seed, ties=False, heavy=False):
    rng = np.random.default_rng(seed)
    if heavy:
        ss = stats.t.rvs(5, loc=2.0, scale=1.0, size=n_ss, random_state=rng)
    else:
        ss = rng.normal(2.0, 1.0, n_ss)
    ds = rng.normal(-1.0, 1.2, n_ds)
    if ties:  # one decimal, as in many real score files
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    return ss, ds


def _fd(fun, theta, eps=1e-6):
    """Central differences of ``fun`` (vector-valued) at ``theta``, one column per parameter."""
    cols = [(fun(theta + eps * e) - fun(theta - eps * e)) / (2 * eps) for e in np.eye(theta.size)]
    return np.array(cols).T


# ------------------------------------------------------------------ analytic derivatives


def test_scal_hessian_matches_finite_differences():
    rng = np.random.default_rng(1)
    u, w = rng.normal(0, 1.5, 60), rng.random((1, 60))
    sign = np.where(rng.random(60) < 0.4, -1.0, 1.0)
    obj = _Objective(u, sign, w / w.sum())
    rows = np.array([0])
    for theta in ([-1.0, 2.0, 0.3, 1.5], [2.0, -3.0, -0.5, 4.0]):
        th = np.array(theta)
        grad, hess = obj.derivatives(th[None], rows)
        num_g = _fd(lambda t: obj.value(t[None], rows), th)[0]
        num_h = _fd(lambda t: obj.derivatives(t[None], rows)[0][0], th)
        np.testing.assert_allclose(grad[0], num_g, atol=1e-8)
        np.testing.assert_allclose(hess[0], num_h, atol=1e-7)


def test_student_t_hessian_matches_finite_differences():
    rng = np.random.default_rng(2)
    x, w = stats.t.rvs(3, size=80, random_state=rng), rng.random((1, 80))
    obj = _MeanLoglik(x, w / w.sum())
    rows = np.array([0])
    for theta in ([0.2, 0.1, np.log(3.0)], [-0.5, -0.3, np.log(40.0)]):
        th = np.array(theta)
        # the objective itself against scipy's t density
        expected = -np.sum(w / w.sum() * stats.t.logpdf(x, np.exp(th[2]), th[0], np.exp(th[1])))
        assert obj.value(th[None], rows)[0] == pytest.approx(expected, rel=1e-12)
        grad, hess = obj.derivatives(th[None], rows)
        np.testing.assert_allclose(grad[0], _fd(lambda t: obj.value(t[None], rows), th)[0],
                                   atol=1e-8)
        np.testing.assert_allclose(
            hess[0], _fd(lambda t: obj.derivatives(t[None], rows)[0][0], th), atol=1e-7
        )


def test_projected_newton_on_a_box_constrained_quadratic():
    """min (x - c)' A (x - c) over a box: the exact answer by enumerating the active sets."""
    a = np.array([[2.0, 0.5], [0.5, 1.0]])
    centres = np.array([[0.3, 0.2], [3.0, 0.0], [-2.0, 5.0]])
    lower, upper = np.array([-1.0, -np.inf]), np.array([1.0, 1.0])

    def value(th, rows):
        d = th - centres[rows]
        return np.einsum("ki,ij,kj->k", d, a, d)

    def derivatives(th, rows):
        return 2 * (th - centres[rows]) @ a, np.broadcast_to(2 * a, (th.shape[0], 2, 2))

    theta, done = projected_newton(value, derivatives, np.zeros((3, 2)), lower, upper)
    assert done.all()
    for row, c in enumerate(centres):
        best = optimize.minimize(lambda t, c=c: (t - c) @ a @ (t - c), np.zeros(2),
                                 bounds=[(-1, 1), (None, 1)], method="L-BFGS-B",
                                 options={"ftol": 1e-15, "gtol": 1e-12})
        np.testing.assert_allclose(theta[row], best.x, atol=1e-6)


# ------------------------------------------------------------------ sharp optima of fit


@pytest.mark.parametrize("seed", [3, 4])
def test_scal_fit_is_the_old_optimum_with_zero_gradient(seed):
    ss, ds = _data(300, 3000, seed)
    cal = _quiet(SCalCalibrator().fit, ss, ds)
    u = (np.concatenate([ss, ds]) - cal.centre_) / cal.scale_
    is_ss = np.r_[np.ones(ss.size, bool), np.zeros(ds.size, bool)]
    w = np.where(is_ss, 0.5 / ss.size, 0.5 / ds.size)
    theta = np.array([cal.lo_, cal.hi_, cal.a_, cal.b_])
    loss, grad = _loss_and_grad(theta, u, is_ss, w)
    # projected gradient: a limit on its bound (23) may be pushed outwards
    on_bound = np.r_[np.abs(theta[:2]) >= 23.0, False, False]
    outwards = np.sign(grad) == -np.sign(theta)
    assert np.max(np.abs(np.where(on_bound & outwards, 0.0, grad))) < 1e-10
    # the L-BFGS-B answer alone (the fit before the Newton polish) is the same to its tolerance
    start = np.clip(theta + np.array([0.05, -0.05, 0.01, 0.01]), -23, 23)
    old = optimize.minimize(_loss_and_grad, start, jac=True,
                            args=(u, is_ss, w), method="L-BFGS-B",
                            bounds=[(-23, 23), (-23, 23), (None, None), (None, None)],
                            options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-10})
    assert old.fun >= loss - 1e-13
    np.testing.assert_allclose(old.x, theta, atol=2e-3)


@pytest.mark.parametrize(("df", "heavy"), [(None, True), (None, False), (4.0, True)])
def test_student_t_fit_is_the_maximum_with_zero_gradient(df, heavy):
    x = _data(2000, 10, 5, heavy=heavy)[0]
    fit = fit_t(x, df)
    theta = np.array([[fit.loc, np.log(fit.scale), np.log(fit.df)]])
    grad, _ = _MeanLoglik(x, np.full((1, x.size), 1 / x.size)).derivatives(theta, np.array([0]))
    free = grad[0][:2] if df is not None or fit.df >= 1000 * (1 - 1e-12) else grad[0]
    assert np.max(np.abs(free)) < 1e-10
    # scipy's numerical ML (a different algorithm) finds no higher likelihood
    if df is None and heavy:
        params = stats.t.fit(x)
        assert fit.loglik >= stats.t.logpdf(x, *params).sum() - 1e-6
    elif df is None:  # normal data: the maximum over df in [0.5, 1000] is on the bound
        assert fit.df == pytest.approx(1000.0, rel=1e-12) and grad[0][2] < 0
    else:
        _, loc, scale = stats.t.fit(x, fix_df=df)
        assert [fit.loc, fit.scale] == pytest.approx([loc, scale], rel=1e-4)


# ------------------------------------------------------------------ hooks equal the loop


def _hook_and_loop(cal, ss, ds, n, seed):
    hook = _quiet(cal.bootstrap_llr, ss, ds, SCORES, n=n, rng=np.random.default_rng(seed))
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=n, rng=np.random.default_rng(seed))
    return hook, loop


@pytest.mark.parametrize(("n_ss", "n_ds"), [(6, 9), (40, 90), (150, 800)])
@pytest.mark.parametrize("ties", [False, True])
def test_scal_hook_equals_loop(n_ss, n_ds, ties):
    ss, ds = _data(n_ss, n_ds, seed=n_ds, ties=ties)
    hook, loop = _hook_and_loop(SCalCalibrator(), ss, ds, 20, 7)
    np.testing.assert_array_equal(np.isnan(hook), np.isnan(loop))
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-8)


def test_scal_hook_equals_loop_for_a_weak_system():
    # d' = 1: no saturation in the data, so both S-cal limits sit at max_abs_llr and many
    # replicates lie on a ridge. Those the nodes do not solve get a few Newton iterations on
    # their scores, then the refit by `fit`: the hook must still be the loop, replicate by
    # replicate (and some replicates must take each path).
    from forensic_lr.calibration import scal

    rng = np.random.default_rng(0)
    ss, ds = rng.normal(1.0, 1.0, 300), rng.normal(0.0, 1.0, 3000)
    calls = {"on_scores": 0}
    real = scal._solve_on_scores

    def counted(*args):
        theta, fitted = real(*args)
        calls["on_scores"] += fitted.size
        calls["refit"] = calls.get("refit", 0) + int((~fitted).sum())
        return theta, fitted

    scal._solve_on_scores = counted
    try:
        hook, loop = _hook_and_loop(SCalCalibrator(), ss, ds, 40, 1)
    finally:
        scal._solve_on_scores = real
    assert calls["on_scores"] > 0 and calls["refit"] > 0
    np.testing.assert_array_equal(np.isnan(hook), np.isnan(loop))
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize(("n_ss", "n_ds"), [(12, 20), (40, 90), (150, 800)])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("df", [None, 4.0])
def test_student_t_hook_equals_loop(n_ss, n_ds, ties, df, monkeypatch):
    # ECME gives up after 1,000 iterations here, not 5,000, in the hook and the loop alike:
    # the fits that converge take at most about 150 (so they are the same fits), and the two
    # tied resamples at (12, 20) whose fit never converges (NaN in both) fail 5 times sooner
    from forensic_lr.calibration import student_t

    monkeypatch.setattr(student_t, "_MAX_ITER", 1000)
    ss, ds = _data(n_ss, n_ds, seed=n_ss + 1, ties=ties, heavy=True)
    hook, loop = _hook_and_loop(StudentTCalibrator(df=df), ss, ds, 30, 8)
    np.testing.assert_array_equal(np.isnan(hook), np.isnan(loop))
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-8)


def test_hooks_report_progress_and_shape():
    ss, ds = _data(150, 400, 9)
    for cal in (SCalCalibrator(), StudentTCalibrator()):
        calls = []
        out = _quiet(cal.bootstrap_llr, ss, ds, [0.5], n=12, rng=np.random.default_rng(0),
                     progress=lambda done, total, c=calls: c.append((done, total)))
        assert out.shape == (12, 1) and np.isfinite(out).all()
        assert calls[-1] == (12, 12)
