"""Logistic calibration against scikit-learn and a direct scipy minimisation of the objective.

Reference values: scikit-learn 1.9 ``LogisticRegression`` (balanced class weights,
``C=inf`` = no penalty, tol 1e-12) and ``scipy.optimize.minimize`` on the objective
written out below, independently of the library's Newton solver.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from sklearn.linear_model import LogisticRegression

import forensic_lr.calibration.logistic as logistic_module
from forensic_lr.calibration import LogisticCalibrator, make_calibrator
from forensic_lr.errors import ConvergenceError, ForensicLRError, InputError, NotFittedError
from forensic_lr.resampling import bootstrap_index_chunks


def standardise(ss, ds, s):
    """Documented standardisation: classes weighted equally, ML variances."""
    centre = 0.5 * (ss.mean() + ds.mean())
    scale = np.sqrt(0.5 * (ss.var() + ds.var()) + 0.25 * (ss.mean() - ds.mean()) ** 2)
    return (s - centre) / scale


def test_matches_sklearn_balanced_unpenalised(make_background):
    ss, ds = make_background(1)
    x = np.concatenate([ss, ds])[:, None]
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    ref = LogisticRegression(C=np.inf, class_weight="balanced", tol=1e-12, max_iter=10_000)
    ref.fit(x, y)
    cal = LogisticCalibrator().fit(ss, ds)
    a, b = cal.coefficients()
    assert a == pytest.approx(ref.intercept_[0], rel=1e-6)
    assert b == pytest.approx(ref.coef_[0, 0], rel=1e-6)
    s = np.array([-2.0, 0.0, 2.5, 7.0])
    assert cal.llr(s) == pytest.approx(ref.decision_function(s[:, None]), rel=1e-6, abs=1e-8)


def test_l2_scaling_matches_sklearn_c(make_background):
    # Documented equivalence: lambda on the standardised score == sklearn C = 1 / (lambda N)
    ss, ds = make_background(2, 40, 90)
    lam = 0.05
    u = standardise(ss, ds, np.concatenate([ss, ds]))[:, None]
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    ref = LogisticRegression(
        C=1.0 / (lam * u.size), class_weight="balanced", tol=1e-12, max_iter=10_000
    ).fit(u, y)
    cal = LogisticCalibrator(l2=lam).fit(ss, ds)
    assert cal.theta_[0] == pytest.approx(ref.intercept_[0], rel=1e-6)
    assert cal.theta_[1] == pytest.approx(ref.coef_[0, 0], rel=1e-6)


@pytest.mark.parametrize("quadratic", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.2])
def test_matches_direct_minimisation_of_the_objective(make_background, quadratic, lam):
    ss, ds = make_background(3, 35, 80)

    def objective(t):
        def z(s):
            u = standardise(ss, ds, s)
            return t[0] + t[1] * u + (t[2] * u * u if quadratic else 0.0)

        loss_ss = np.mean(np.logaddexp(0, -z(ss)))
        loss_ds = np.mean(np.logaddexp(0, z(ds)))
        return 0.5 * loss_ss + 0.5 * loss_ds + 0.5 * lam * np.sum(np.asarray(t[1:]) ** 2)

    start = np.zeros(3 if quadratic else 2)
    ref = optimize.minimize(objective, start, method="BFGS", options={"gtol": 1e-11})
    cal = LogisticCalibrator(quadratic=quadratic, l2=lam).fit(ss, ds)
    assert cal.theta_ == pytest.approx(ref.x, abs=1e-5)
    assert objective(cal.theta_) <= ref.fun + 1e-12  # Newton is at least as good
    s = np.linspace(-3, 6, 7)
    u = standardise(ss, ds, s)
    a = cal.coefficients()
    raw = a[0] + a[1] * s + (a[2] * s * s if quadratic else 0.0)
    direct = ref.x[0] + ref.x[1] * u + (ref.x[2] * u * u if quadratic else 0.0)
    assert cal.llr(s) == pytest.approx(raw, abs=1e-9)  # raw-unit coefficients are consistent
    assert cal.llr(s) == pytest.approx(direct, abs=1e-4)


def test_prior_neutral_training(make_background):
    # duplicating every DS score changes the class counts, not the fitted LLR
    ss, ds = make_background(4, 30, 50)
    once = LogisticCalibrator().fit(ss, ds).llr([0.0, 2.0])
    twice = LogisticCalibrator().fit(ss, np.concatenate([ds, ds])).llr([0.0, 2.0])
    assert once == pytest.approx(twice, abs=1e-9)


@pytest.mark.parametrize(
    "ss, ds",
    [([5.0, 6.0, 7.0], [0.0, 1.0, 2.0]), ([2.0, 3.0], [1.0, 2.0]), ([0.0, 1.0], [4.0, 5.0])],
    ids=["separated", "touching", "reversed"],
)
def test_separated_classes_raise_a_clear_error(ss, ds):
    with pytest.raises(ConvergenceError, match=r"separated.*pav.*l2"):
        LogisticCalibrator().fit(ss, ds)
    with pytest.raises(ConvergenceError):
        LogisticCalibrator(quadratic=True).fit(ss, ds)
    penalised = LogisticCalibrator(l2=0.1).fit(ss, ds)  # a penalty gives a finite answer
    assert np.all(np.isfinite(penalised.theta_))


def test_quadratic_separation_is_detected():
    # SS in the middle, DS on both sides: linearly overlapping, quadratically separable
    ss, ds = [-0.5, 0.0, 0.5], [-3.0, -2.0, 2.0, 3.0]
    LogisticCalibrator().fit(ss, ds)  # the linear model has a finite optimum
    with pytest.raises(ConvergenceError):
        LogisticCalibrator(quadratic=True).fit(ss, ds)


def test_scipy_fallback_gives_the_newton_solution(make_background, monkeypatch):
    ss, ds = make_background(5, 40, 60)
    newton = LogisticCalibrator(quadratic=True).fit(ss, ds)
    monkeypatch.setattr(logistic_module, "_MAX_ITER", 1)  # Newton gives up after one step
    fallback = LogisticCalibrator(quadratic=True).fit(ss, ds)
    assert fallback.n_iter_ > 1
    assert fallback.theta_ == pytest.approx(newton.theta_, abs=1e-7)


@pytest.mark.parametrize(
    "options", [{"l2": -1.0}, {"l2": float("nan")}, {"l2": "big"}, {"quadratic": "yes"}]
)
def test_bad_options(make_background, options):
    with pytest.raises(InputError):
        LogisticCalibrator(**options).fit(*make_background(6, 10, 10))


def test_not_fitted():
    with pytest.raises(NotFittedError):
        LogisticCalibrator().llr([0.0])
    with pytest.raises(NotFittedError):
        LogisticCalibrator().params()


def test_params_are_json_and_consistent(make_background):
    cal = make_calibrator("logistic", quadratic=True, l2=0.01).fit(*make_background(7))
    params = json.loads(json.dumps(cal.params()))
    a, b, c = params["intercept"], params["slope"], params["quadratic"]
    assert cal.llr([1.5])[0] == pytest.approx(a + b * 1.5 + c * 1.5**2, rel=1e-12)
    assert all(isinstance(v, (int, float)) for v in params.values())


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.5, 4.0), st.floats(0.0, 1.0))
def test_linear_llr_is_monotone_and_finite(make_background, seed, shift, lam):
    ss, ds = make_background(seed, 15, 25, shift=shift)
    try:
        cal = LogisticCalibrator(l2=lam).fit(ss, ds)
    except ConvergenceError:
        return  # a separated draw without a penalty: the error is the promised outcome
    s = np.sort(np.random.default_rng(seed).uniform(-20, 20, 200))
    llr = cal.llr(np.r_[-1e6, s, 1e6])
    assert np.all(np.isfinite(llr))
    if cal.coefficients()[1] > 0:
        assert np.all(np.diff(llr) >= 0)


# ---------------------------------------------------------------------- bootstrap
def looped(cal, ss, ds, scores, n, seed):
    rows = []
    for idx_ss, idx_ds in bootstrap_index_chunks(np.random.default_rng(seed), n, ss.size, ds.size):
        for i, j in zip(idx_ss, idx_ds, strict=True):
            try:
                model = LogisticCalibrator(quadratic=cal.quadratic, l2=cal.l2)
                rows.append(model.fit(ss[i], ds[j]).llr(scores))
            except ForensicLRError:
                rows.append(np.full(scores.size, np.nan))
    return np.array(rows)


@pytest.mark.parametrize("quadratic", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_batched_bootstrap_equals_looped_fits(make_background, quadratic, lam):
    ss, ds = make_background(12, 30, 50)
    scores = np.array([-1.0, 0.0, 1.5, 3.0, 6.0])
    cal = LogisticCalibrator(quadratic=quadratic, l2=lam)
    fast = cal.bootstrap_llr(ss, ds, scores, n=60, rng=np.random.default_rng(3))
    ref = looped(cal, ss, ds, scores, 60, 3)
    assert fast.shape == (60, 5)
    assert np.allclose(fast, ref, rtol=1e-8, atol=1e-8, equal_nan=True)
    assert not hasattr(cal, "theta_")  # the hook does not fit the calibrator itself


def test_batched_bootstrap_marks_failed_resamples_like_the_loop():
    # 4 + 4 nearly separated scores: many resamples are separated or constant
    ss, ds = np.array([1.0, 2.0, 3.0, 4.0]), np.array([-2.0, -1.0, 0.0, 1.5])
    scores = np.array([0.0, 1.0])
    fast = LogisticCalibrator().bootstrap_llr(ss, ds, scores, n=200, rng=np.random.default_rng(0))
    ref = looped(LogisticCalibrator(), ss, ds, scores, 200, 0)
    assert np.array_equal(np.isnan(fast), np.isnan(ref))
    assert 0 < np.isnan(ref[:, 0]).sum() < 200
    ok = ~np.isnan(ref[:, 0])
    assert np.allclose(fast[ok], ref[ok], rtol=1e-8, atol=1e-8)


def test_batched_bootstrap_line_search_path(make_background, monkeypatch):
    # Force the Armijo backtracking for every replicate (normally skipped when a full
    # Newton step provably passes) and start far from the optimum: same answers.
    ss, ds = make_background(13, 25, 40)
    scores = np.array([0.0, 2.0])
    monkeypatch.setattr(logistic_module, "_largest_change", lambda d, lo, hi: np.full(len(d), 9.0))
    for cal in (LogisticCalibrator(), LogisticCalibrator(quadratic=True, l2=0.05)):
        fast = cal.bootstrap_llr(ss, ds, scores, n=30, rng=np.random.default_rng(8))
        ref = looped(cal, ss, ds, scores, 30, 8)
        assert np.allclose(fast, ref, rtol=1e-8, atol=1e-8, equal_nan=True)
