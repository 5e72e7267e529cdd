"""Calibrators against independent values: scipy densities, scikit-learn, direct optimisation."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from forensic_lr.calibration import (
    CALIBRATORS,
    ELUB,
    BayesianCalibrator,
    GaussianCalibrator,
    KDECalibrator,
    LogisticCalibrator,
    PAVCalibrator,
    fit_warnings,
    make_calibrator,
)
from forensic_lr.errors import (
    ConvergenceError,
    ExtrapolationWarning,
    InputError,
    NotFittedError,
    SmallSampleWarning,
)
from forensic_lr.resampling import bootstrap_index_chunks


# ---------------------------------------------------------------------- gaussian
def test_gaussian_reproduces_the_seed_worked_example():
    # Ramos's slides: densities 0.35 (SS) and 0.15 (DS) at the evidence score 10 -> LR = 2.33.
    # Build classes whose ML fits give exactly those densities: two points m +- sd have
    # mean m and ML standard deviation sd.
    d_ss = np.sqrt(-2 * np.log(0.35 * np.sqrt(2 * np.pi) * 1.0))  # sd 1
    d_ds = np.sqrt(-2 * 4 * np.log(0.15 * np.sqrt(2 * np.pi) * 2.0))  # sd 2
    ss = np.array([10 - d_ss - 1, 10 - d_ss + 1])
    ds = np.array([10 - d_ds - 2, 10 - d_ds + 2])
    cal = GaussianCalibrator().fit(ss, ds)
    pdf_ss, pdf_ds = cal.density([10.0])
    assert pdf_ss[0] == pytest.approx(0.35) and pdf_ds[0] == pytest.approx(0.15)
    assert np.exp(cal.llr([10.0])[0]) == pytest.approx(0.35 / 0.15)  # = 2.33
    assert round(float(np.exp(cal.llr([10.0])[0])), 2) == 2.33


def test_gaussian_against_scipy_by_hand(make_background):
    ss, ds = make_background(1)
    s = np.array([-1.0, 0.5, 2.0, 6.0])
    expected = stats.norm.logpdf(s, ss.mean(), ss.std()) - stats.norm.logpdf(
        s, ds.mean(), ds.std()
    )
    assert np.allclose(GaussianCalibrator().fit(ss, ds).llr(s), expected)
    pooled = np.sqrt(0.5 * (ss.var() + ds.var()))
    expected = stats.norm.logpdf(s, ss.mean(), pooled) - stats.norm.logpdf(s, ds.mean(), pooled)
    llr = GaussianCalibrator(equal_variance=True).fit(ss, ds).llr(s)
    assert np.allclose(llr, expected)
    assert np.allclose(np.diff(llr) / np.diff(s), (ss.mean() - ds.mean()) / pooled**2)


# ---------------------------------------------------------------------- bayes
def test_bayes_predictive_against_closed_form_student_t(make_background):
    ss, ds = make_background(2, 8, 12)
    cal = BayesianCalibrator(kappa0=0.5, alpha0=2.0, prior_mean=1.0, prior_variance=3.0)
    cal.fit(ss, ds)
    s = np.array([-2.0, 1.0, 4.0])

    def predictive(x):  # Murphy (2007) eq. 100, written out independently
        n, xbar = x.size, x.mean()
        kappa_n = 0.5 + n
        mu_n = (0.5 * 1.0 + n * xbar) / kappa_n
        alpha_n = 2.0 + n / 2
        beta_n = 6.0 + 0.5 * np.sum((x - xbar) ** 2) + 0.5 * n * (xbar - 1.0) ** 2 / (2 * kappa_n)
        scale = np.sqrt(beta_n * (kappa_n + 1) / (alpha_n * kappa_n))
        return stats.t.logpdf(s, df=2 * alpha_n, loc=mu_n, scale=scale)

    assert np.allclose(cal.llr(s), predictive(ss) - predictive(ds))


def test_bayes_map_maximises_the_log_posterior(make_background):
    ss, ds = make_background(3, 10, 15)
    cal = BayesianCalibrator(mode="map").fit(ss, ds)
    mu0, kappa0, alpha0, beta0 = cal.prior_

    def neg_log_post(theta, x):  # NIG prior x normal likelihood, in (mu, sigma^2)
        mu, var = theta[0], np.exp(theta[1])
        prior = (
            stats.invgamma.logpdf(var, alpha0, scale=beta0)
            + stats.norm.logpdf(mu, mu0, np.sqrt(var / kappa0))
        )
        # density in (mu, sigma^2): add the log Jacobian of var = exp(theta1) back out
        return -(prior + stats.norm.logpdf(x, mu, np.sqrt(var)).sum())

    for x, post in ((ss, cal.posterior_ss_), (ds, cal.posterior_ds_)):
        # maximise over (mu, var) directly (bounded var > 0)
        res = optimize.minimize(
            lambda th, x=x: neg_log_post([th[0], np.log(th[1])], x),
            x0=[x.mean(), x.var()],
            bounds=[(None, None), (1e-6, None)],
            options={"ftol": 1e-14, "gtol": 1e-10},
        )
        assert res.x[0] == pytest.approx(post.mu, abs=1e-5)
        assert res.x[1] == pytest.approx(post.map_variance(), rel=1e-4)


def test_bayes_predictive_is_more_conservative_than_ml_with_scarce_data(make_background):
    ss, ds = make_background(4, 5, 8)
    s = np.array([6.0])
    ml = GaussianCalibrator().fit(ss, ds).llr(s)
    bayes = BayesianCalibrator().fit(ss, ds).llr(s)
    assert abs(bayes[0]) < abs(ml[0])


def test_bayes_posterior_samples_match_closed_form_moments(make_background):
    ss, ds = make_background(5, 30, 40)
    cal = BayesianCalibrator().fit(ss, ds)
    rng = np.random.default_rng(0)
    post = cal.posterior_ss_
    # sigma^2 ~ InvGamma(alpha, beta): mean beta / (alpha - 1)
    var = post.beta / rng.gamma(post.alpha, 1.0, size=200_000)
    assert var.mean() == pytest.approx(stats.invgamma.mean(post.alpha, scale=post.beta), rel=0.01)
    draws = cal.posterior_llr_samples([3.0], n=20_000, rng=rng)
    assert draws.shape == (20_000, 1)
    assert np.median(draws) == pytest.approx(cal.llr([3.0])[0], abs=0.2)


# ---------------------------------------------------------------------- logistic
def test_logistic_matches_sklearn_balanced_unpenalised(make_background):
    ss, ds = make_background(6)
    cal = LogisticCalibrator().fit(ss, ds)
    x = np.r_[ss, ds][:, None]
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    ref = LogisticRegression(C=np.inf, class_weight="balanced", tol=1e-12, max_iter=10_000)
    ref.fit(x, y)
    a, b = cal.coefficients()
    assert a == pytest.approx(ref.intercept_[0], abs=1e-5)
    assert b == pytest.approx(ref.coef_[0, 0], abs=1e-5)


def test_logistic_quadratic_l2_matches_direct_minimisation(make_background):
    ss, ds = make_background(7)
    cal = LogisticCalibrator(quadratic=True, l2=0.05).fit(ss, ds)
    centre, scale = cal.centre_, cal.scale_

    def objective(theta):  # written out from the docstring's definition
        def z(s):
            u = (s - centre) / scale
            return theta[0] + theta[1] * u + theta[2] * u * u

        loss = 0.5 * np.mean(np.logaddexp(0, -z(ss))) + 0.5 * np.mean(np.logaddexp(0, z(ds)))
        return loss + 0.5 * 0.05 * (theta[1] ** 2 + theta[2] ** 2)

    res = optimize.minimize(objective, np.zeros(3), method="BFGS", options={"gtol": 1e-12})
    assert np.allclose(cal.theta_, res.x, atol=1e-6)


def test_logistic_separable_data_is_explained():
    with pytest.raises(ConvergenceError, match="separated"):
        LogisticCalibrator().fit([5.0, 6.0, 7.0], [0.0, 1.0, 2.0])
    penalised = LogisticCalibrator(l2=0.1).fit([5.0, 6.0, 7.0], [0.0, 1.0, 2.0])
    assert np.isfinite(penalised.theta_).all()


# ---------------------------------------------------------------------- pav
def test_pav_matches_sklearn_isotonic_at_every_training_score():
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(2, 1, 50).round(1), rng.normal(0, 1, 120).round(1)
    cal = PAVCalibrator().fit(ss, ds)
    x = np.r_[ss, ds]
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    w = np.r_[np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)]
    p = IsotonicRegression().fit(x, y, sample_weight=w).predict(x)
    with np.errstate(divide="ignore"):
        ref = np.log(p) - np.log1p(-p)
    # every training score lies inside its block, whose LLR it gets (sklearn's fitted value)
    assert np.allclose(cal.llr(x), np.clip(ref, *cal.bounds_), atol=1e-10)
    assert cal.bounds_ == (-np.log(51), np.log(121))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_monotone_calibrators_are_monotone(make_background, seed):
    ss, ds = make_background(seed, 25, 40)
    s = np.sort(np.random.default_rng(seed).uniform(-20, 20, 200))
    separable = ss.min() > ds.max()  # then logistic has no finite fit (tested elsewhere)
    calibrators = [PAVCalibrator(), GaussianCalibrator(equal_variance=True)]
    for cal in calibrators + ([] if separable else [LogisticCalibrator()]):
        llr = cal.fit(ss, ds).llr(s)
        assert np.all(np.diff(llr) >= -1e-12)


def test_pav_and_bounded_outputs_are_finite_far_away(make_background):
    ss, ds = make_background(9)
    far = np.array([-1e6, 1e6])
    assert np.isfinite(PAVCalibrator().fit(ss, ds).llr(far)).all()
    assert np.isfinite(ELUB(KDECalibrator()).fit(ss, ds).llr(far)).all()


# ---------------------------------------------------------------------- kde
def test_kde_against_scipy_gaussian_kde(make_background):
    ss, ds = make_background(10)
    cal = KDECalibrator(bandwidth=0.4).fit(ss, ds)
    s = np.array([-1.0, 1.0, 3.0])
    ref_ss = stats.gaussian_kde(ss, bw_method=0.4 / ss.std(ddof=1))(s)
    ref_ds = stats.gaussian_kde(ds, bw_method=0.4 / ds.std(ddof=1))(s)
    assert np.allclose(cal.llr(s), np.log(ref_ss) - np.log(ref_ds))
    # Silverman's rule of thumb written out
    q75, q25 = np.percentile(ss, [75, 25])
    h = 0.9 * min(ss.std(ddof=1), (q75 - q25) / 1.34) * ss.size ** -0.2
    assert KDECalibrator().fit(ss, ds).h_ss_ == pytest.approx(h)


# ---------------------------------------------------------------------- ELUB
def test_elub_wrapper_clips_and_reports(make_background):
    ss, ds = make_background(11, 15, 30)
    cal = ELUB(GaussianCalibrator(equal_variance=True)).fit(ss, ds)
    low, high = cal.bounds_
    llr = cal.llr([-50.0, 50.0])
    assert llr.tolist() == [low, high]
    assert cal.params()["elub_log10_lr_high"] == pytest.approx(high / np.log(10))
    assert cal.unbounded_llr([50.0])[0] > high


# ---------------------------------------------------------------------- bootstrap hooks
@pytest.mark.parametrize(
    "cal",
    [
        GaussianCalibrator(),
        GaussianCalibrator(equal_variance=True),
        BayesianCalibrator(),
        BayesianCalibrator(mode="map"),
        LogisticCalibrator(),
        LogisticCalibrator(quadratic=True),
        LogisticCalibrator(l2=0.1),
    ],
    ids=repr,
)
def test_vectorised_bootstrap_equals_looped_fits(make_background, cal):
    ss, ds = make_background(12, 30, 50)
    scores = np.array([0.0, 1.5, 3.0])
    fast = cal.bootstrap_llr(ss, ds, scores, n=25, rng=np.random.default_rng(3))
    loop = [
        type(cal)(**{k: v for k, v in vars(cal).items() if not k.endswith("_")})
        .fit(ss[i], ds[j])
        .llr(scores)
        for chunk in [bootstrap_index_chunks(np.random.default_rng(3), 25, 30, 50)]
        for a, b in chunk
        for i, j in zip(a, b, strict=True)
    ]
    assert np.allclose(fast, np.array(loop), atol=1e-8, rtol=1e-8)


def test_index_chunks_equal_one_shot_draws(monkeypatch):
    import forensic_lr.resampling as resample

    monkeypatch.setattr(resample, "CHUNK_DRAWS", 70)  # force several blocks
    one_ss = np.random.default_rng(5).integers(0, 7, (9, 7))
    rng = np.random.default_rng(5)
    rng.integers(0, 7, (9, 7))
    one_ds = rng.integers(0, 11, (9, 11))
    blocks = list(resample.bootstrap_index_chunks(np.random.default_rng(5), 9, 7, 11))
    assert len(blocks) > 1
    assert np.array_equal(np.vstack([b[0] for b in blocks]), one_ss)
    assert np.array_equal(np.vstack([b[1] for b in blocks]), one_ds)


# ---------------------------------------------------------------------- errors and warnings
def test_registry_and_bad_options(make_background):
    assert set(CALIBRATORS) == {
        "gaussian", "bayes", "logistic", "pav", "kde",
        "suspect_map", "unsupervised", "scal", "student_t", "four_pl",
    }
    with pytest.raises(InputError, match="choose one of"):
        make_calibrator("neural")
    with pytest.raises(InputError, match="valid options: equal_variance"):
        make_calibrator("gaussian", quadratic=True)
    with pytest.raises(InputError, match="mode"):
        make_calibrator("bayes", mode="median").fit(*make_background())


def test_unfitted_and_degenerate_inputs():
    with pytest.raises(NotFittedError):
        GaussianCalibrator().llr([1.0])
    with pytest.raises(InputError, match="constant"):
        GaussianCalibrator().fit([1.0, 1.0, 1.0], [0.0, 2.0])
    with pytest.raises(InputError, match="at least 2"):
        PAVCalibrator().fit([1.0], [0.0, 2.0])
    with pytest.raises(InputError, match="non-finite"):
        LogisticCalibrator().fit([1.0, np.inf], [0.0, 2.0])


def test_fit_warnings_are_returned_and_raised(make_background):
    ss, ds = make_background(13, 10, 50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        texts = fit_warnings(ss, ds, [100.0, 1.0])
    assert len(texts) == 2
    assert "outside the range" in texts[0] and "100" in texts[0]
    assert "only 10 same-source" in texts[1]
    assert {w.category for w in caught} == {ExtrapolationWarning, SmallSampleWarning}


def test_params_are_json_able(make_background):
    import json

    ss, ds = make_background(14)
    extra = {"unsupervised": {"unlabelled": np.r_[ss, ds]},  # need their case scores
             "suspect_map": {"suspect_ss": ss[:8]}}
    for name in CALIBRATORS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            json.dumps(make_calibrator(name, **extra.get(name, {})).fit(ss, ds).params())
    json.dumps(ELUB(make_calibrator("pav")).fit(ss, ds).params())


def test_kde_binned_estimate_matches_exact_sum():
    from forensic_lr.calibration import kde

    rng = np.random.default_rng(15)
    data = rng.normal(0, 1, 50_000)
    scores = np.r_[rng.normal(0, 2, 400), [-15.0, 15.0]]
    h = kde.bandwidth(data, "silverman")
    exact = kde._log_kde_exact(scores, data, h)
    binned = kde._log_kde_binned(scores, data, h)
    # linear binning error is O((step / h)^2): here step / h ~ 1/140 -> ~1e-4 in log density
    assert np.max(np.abs(binned - exact)) < 5e-4
