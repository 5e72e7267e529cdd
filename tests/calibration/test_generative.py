"""Generative calibrators (gaussian, bayes, kde) against independent values.

References: scipy.stats densities evaluated by hand in the tests, the closed-form
normal-inverse-gamma posterior (Murphy 2007, eqs. 85-89 and 100) written out here,
numerical integration (scipy.integrate) and optimisation (scipy.optimize) of the same
model, scipy.stats.gaussian_kde, and D. Ramos's course slides (LR = 0,35 / 0,15 = 2,33).
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

from forensic_lr.calibration import (
    BayesianCalibrator,
    GaussianCalibrator,
    KDECalibrator,
    make_calibrator,
)
from forensic_lr.calibration import kde as kde_module
from forensic_lr.errors import InputError, NotFittedError
from forensic_lr.resampling import bootstrap_index_chunks


def looped_bootstrap(cal, ss, ds, scores, n, seed):
    """Refit a fresh copy of ``cal`` on each resample, drawn as the contract says."""
    options = {k: v for k, v in vars(cal).items() if not k.endswith("_")}
    rows = []
    rng = np.random.default_rng(seed)
    for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
        for i, j in zip(idx_ss, idx_ds, strict=True):
            rows.append(type(cal)(**options).fit(ss[i], ds[j]).llr(scores))
    return np.array(rows)


# ---------------------------------------------------------------------- gaussian
def test_gaussian_reproduces_the_seed_000_example():
    # Ramos's slides (Gaussian modelling step): densities 0,35 (same source) and 0,15 (different
    # sources) at the questioned score give LR = 0,35 / 0,15 = 2,33. Two points m -+ sd
    # have ML mean m and ML sd sd, so we can build classes with exactly those densities
    # at s = 10: N(10; m, 1) = 0.35 and N(10; m', 2) = 0.15.
    off_ss = np.sqrt(-2 * np.log(0.35 * np.sqrt(2 * np.pi) * 1.0))
    off_ds = np.sqrt(-2 * 4 * np.log(0.15 * np.sqrt(2 * np.pi) * 2.0))
    ss = np.array([10 - off_ss - 1, 10 - off_ss + 1])
    ds = np.array([10 + off_ds - 2, 10 + off_ds + 2])
    cal = GaussianCalibrator().fit(ss, ds)
    pdf_ss, pdf_ds = cal.density([10.0])
    assert pdf_ss[0] == pytest.approx(0.35, rel=1e-12)
    assert pdf_ds[0] == pytest.approx(0.15, rel=1e-12)
    lr = float(np.exp(cal.llr([10.0])[0]))
    assert lr == pytest.approx(0.35 / 0.15, rel=1e-12)
    assert f"{lr:.2f}" == "2.33"  # the slide's figure


def test_gaussian_against_scipy_by_hand(make_background):
    ss, ds = make_background(1)
    s = np.array([-1.0, 0.5, 2.0, 6.0])
    ml = stats.norm.logpdf(s, ss.mean(), ss.std()) - stats.norm.logpdf(s, ds.mean(), ds.std())
    assert GaussianCalibrator().fit(ss, ds).llr(s) == pytest.approx(ml, rel=1e-12)
    pooled = np.sqrt(0.5 * (ss.var() + ds.var()))  # each class weighs 1/2
    eq = stats.norm.logpdf(s, ss.mean(), pooled) - stats.norm.logpdf(s, ds.mean(), pooled)
    cal = GaussianCalibrator(equal_variance=True).fit(ss, ds)
    assert cal.llr(s) == pytest.approx(eq, rel=1e-12)
    # closed form of the linear LLR: b s + a with b = (m1 - m0)/v, a = (m0^2 - m1^2)/(2 v)
    m1, m0, v = ss.mean(), ds.mean(), pooled**2
    assert cal.llr(s) == pytest.approx((m1 - m0) / v * s + (m0**2 - m1**2) / (2 * v), rel=1e-10)
    params = json.loads(json.dumps(cal.params()))
    assert params["sd_ss"] == params["sd_ds"] == pytest.approx(pooled)


def test_gaussian_density_integrates_to_one(make_background):
    cal = GaussianCalibrator().fit(*make_background(2))
    for k in range(2):
        total, _ = integrate.quad(lambda s, k=k: cal.density([s])[k][0], -np.inf, np.inf)
        assert total == pytest.approx(1.0, abs=1e-8)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.2, 5.0))
def test_equal_variance_gaussian_is_monotone_and_finite(seed, shift):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(shift, 1.0, 12), rng.normal(0.0, 2.0, 17)
    cal = GaussianCalibrator(equal_variance=True).fit(ss, ds)
    s = np.r_[-1e6, np.sort(rng.uniform(-50, 50, 100)), 1e6]
    llr = cal.llr(s)
    assert np.all(np.isfinite(llr))
    if ss.mean() > ds.mean():
        assert np.all(np.diff(llr) >= 0)
    # unequal variances: finite too (quadratic in s, no exp on the way)
    assert np.all(np.isfinite(GaussianCalibrator().fit(ss, ds).llr(s)))


@pytest.mark.parametrize("equal_variance", [False, True])
def test_gaussian_bootstrap_equals_looped_fits(make_background, equal_variance):
    ss, ds = make_background(12, 30, 50)
    scores = np.array([-3.0, 0.0, 1.5, 3.0, 9.0])
    cal = GaussianCalibrator(equal_variance=equal_variance)
    fast = cal.bootstrap_llr(ss, ds, scores, n=40, rng=np.random.default_rng(3))
    assert fast.shape == (40, 5)
    assert np.allclose(fast, looped_bootstrap(cal, ss, ds, scores, 40, 3), rtol=1e-9, atol=1e-9)


def test_gaussian_bad_option(make_background):
    with pytest.raises(InputError, match="equal_variance"):
        GaussianCalibrator(equal_variance="no").fit(*make_background(3, 10, 10))


def test_gaussian_bootstrap_constant_resample_gives_nan():
    # classes of 2 scores: a quarter of the resamples per class are constant
    ss, ds = np.array([2.0, 3.0]), np.array([0.0, 1.0])
    out = GaussianCalibrator().bootstrap_llr(ss, ds, [1.0], n=64, rng=np.random.default_rng(1))
    rng = np.random.default_rng(1)
    idx_ss, idx_ds = rng.integers(0, 2, (64, 2)), rng.integers(0, 2, (64, 2))
    constant = (idx_ss[:, 0] == idx_ss[:, 1]) | (idx_ds[:, 0] == idx_ds[:, 1])
    assert np.array_equal(np.isnan(out[:, 0]), constant)


# ---------------------------------------------------------------------- bayes
def nig_posterior(values, mu0, kappa0, alpha0, beta0):
    """Closed-form NIG update (Murphy 2007, eqs. 85-89), written out independently."""
    n, xbar = values.size, values.mean()
    ssq = np.sum((values - xbar) ** 2)
    kappa = kappa0 + n
    mu = (kappa0 * mu0 + n * xbar) / kappa
    alpha = alpha0 + n / 2
    beta = beta0 + 0.5 * ssq + kappa0 * n * (xbar - mu0) ** 2 / (2 * kappa)
    return mu, kappa, alpha, beta


def default_prior(ss, ds, kappa0=0.1, alpha0=1.0):
    """The documented defaults: mu0 = mean of the class means, beta0 = alpha0 * pooled var."""
    mu0 = 0.5 * (ss.mean() + ds.mean())
    var = 0.5 * (ss.var() + ds.var()) + 0.25 * (ss.mean() - ds.mean()) ** 2
    return mu0, kappa0, alpha0, alpha0 * var


def test_bayes_predictive_against_closed_form_student_t(make_background):
    ss, ds = make_background(3, 8, 12)
    s = np.array([-2.0, 0.0, 1.0, 3.0, 8.0])
    prior = default_prior(ss, ds)
    expected = 0.0
    for values, sign in ((ss, 1), (ds, -1)):
        mu, kappa, alpha, beta = nig_posterior(values, *prior)
        # predictive: Student-t, 2 alpha dof, location mu, scale^2 beta (kappa+1)/(alpha kappa)
        scale = np.sqrt(beta * (kappa + 1) / (alpha * kappa))
        expected = expected + sign * stats.t.logpdf(s, 2 * alpha, mu, scale)
    cal = BayesianCalibrator().fit(ss, ds)
    assert cal.llr(s) == pytest.approx(expected, rel=1e-12)
    custom = BayesianCalibrator(kappa0=2.0, alpha0=3.0, prior_mean=1.0, prior_variance=4.0)
    prior = (1.0, 2.0, 3.0, 12.0)
    mu, kappa, alpha, beta = nig_posterior(ss, *prior)
    one = stats.t.logpdf(s, 2 * alpha, mu, np.sqrt(beta * (kappa + 1) / (alpha * kappa)))
    mu, kappa, alpha, beta = nig_posterior(ds, *prior)
    two = stats.t.logpdf(s, 2 * alpha, mu, np.sqrt(beta * (kappa + 1) / (alpha * kappa)))
    assert custom.fit(ss, ds).llr(s) == pytest.approx(one - two, rel=1e-12)


def test_bayes_predictive_density_by_numerical_integration(make_background):
    # p(s | data) = integral of N(s; mu, v) NIG(mu, v | posterior) over mu and v, with the
    # NIG density built from scipy.stats (invgamma x normal), integrated by Simpson's rule
    # on a fine (mu, log v) grid.
    ss, ds = make_background(4, 5, 6)
    cal = BayesianCalibrator().fit(ss, ds)
    mu_n, kappa_n, alpha_n, beta_n = nig_posterior(ss, *default_prior(ss, ds))
    s = 2.2
    mu = np.linspace(mu_n - 15, mu_n + 15, 1201)[:, None]
    log_v = np.linspace(-12, 8, 1201)[None, :]
    v = np.exp(log_v)
    post = stats.invgamma.pdf(v, alpha_n, scale=beta_n) * stats.norm.pdf(
        mu, mu_n, np.sqrt(v / kappa_n)
    )
    f = stats.norm.pdf(s, mu, np.sqrt(v)) * post * v  # dv = v dlog_v
    value = integrate.simpson(integrate.simpson(f, x=log_v[0], axis=1), x=mu[:, 0])
    assert cal.density([s])[0][0] == pytest.approx(value, rel=1e-6)


def test_bayes_map_maximises_the_log_posterior(make_background):
    ss, ds = make_background(5, 10, 15)
    mu0, kappa0, alpha0, beta0 = default_prior(ss, ds)
    cal = BayesianCalibrator(mode="map").fit(ss, ds)

    def neg_log_posterior(p, values):
        mu, v = p
        return -(
            np.sum(stats.norm.logpdf(values, mu, np.sqrt(v)))
            + stats.norm.logpdf(mu, mu0, np.sqrt(v / kappa0))
            + stats.invgamma.logpdf(v, alpha0, scale=beta0)
        )

    s = np.array([-1.0, 1.5, 4.0])
    modes = []
    for values in (ss, ds):
        start = [values.mean(), values.var()]
        res = optimize.minimize(
            neg_log_posterior,
            start,
            args=(values,),
            method="L-BFGS-B",
            bounds=[(None, None), (1e-6, None)],
            options={"ftol": 1e-15, "gtol": 1e-12},
        )
        modes.append(res.x)
    (m1, v1), (m0, v0) = modes
    expected = stats.norm.logpdf(s, m1, np.sqrt(v1)) - stats.norm.logpdf(s, m0, np.sqrt(v0))
    assert cal.llr(s) == pytest.approx(expected, abs=1e-4)


def test_bayes_predictive_shrinks_towards_one_with_scarce_data(make_background):
    ss, ds = make_background(6, 4, 5)
    far = np.array([-4.0, 7.0])
    ml = GaussianCalibrator().fit(ss, ds).llr(far)
    bayes = BayesianCalibrator().fit(ss, ds).llr(far)
    assert np.all(np.abs(bayes) < np.abs(ml))


def test_bayes_posterior_samples_follow_the_posterior(make_background):
    ss, ds = make_background(7, 10, 14)
    cal = BayesianCalibrator().fit(ss, ds)
    s = np.array([1.0, 2.5])
    draws = cal.posterior_llr_samples(s, n=4000, rng=np.random.default_rng(0))
    assert draws.shape == (4000, 2)
    # an independent sampler: scipy.stats invgamma and norm with the closed-form posterior
    rng = np.random.default_rng(99)
    llr = 0.0
    for values, sign in ((ss, 1), (ds, -1)):
        mu_n, kappa_n, alpha_n, beta_n = nig_posterior(values, *default_prior(ss, ds))
        v = stats.invgamma.rvs(alpha_n, scale=beta_n, size=4000, random_state=rng)
        mu = stats.norm.rvs(mu_n, np.sqrt(v / kappa_n), random_state=rng)
        llr = llr + sign * stats.norm.logpdf(s[:, None], mu, np.sqrt(v))
    for k in range(2):
        assert stats.ks_2samp(draws[:, k], llr[k]).pvalue > 1e-3
    again = cal.posterior_llr_samples(s, n=4000, rng=np.random.default_rng(0))
    assert np.array_equal(draws, again)


@pytest.mark.parametrize("mode", ["predictive", "map"])
def test_bayes_bootstrap_equals_looped_fits(make_background, mode):
    ss, ds = make_background(12, 30, 50)
    scores = np.array([-3.0, 0.0, 1.5, 3.0, 9.0])
    cal = BayesianCalibrator(mode=mode)
    fast = cal.bootstrap_llr(ss, ds, scores, n=40, rng=np.random.default_rng(3))
    assert np.allclose(fast, looped_bootstrap(cal, ss, ds, scores, 40, 3), rtol=1e-9, atol=1e-9)


def test_bayes_density_integrates_to_one_and_is_finite_far_away(make_background):
    cal = BayesianCalibrator().fit(*make_background(8, 6, 9))
    total, _ = integrate.quad(lambda s: cal.density([s])[1][0], -np.inf, np.inf)
    assert total == pytest.approx(1.0, abs=1e-7)
    for mode in ("predictive", "map"):
        llr = BayesianCalibrator(mode=mode).fit(*make_background(8, 6, 9)).llr([-1e6, 1e6])
        assert np.all(np.isfinite(llr))


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "mcmc"},
        {"kappa0": 0.0},
        {"kappa0": "small"},
        {"alpha0": -1.0},
        {"alpha0": True},
        {"prior_variance": 0.0},
        {"prior_mean": float("nan")},
    ],
)
def test_bayes_bad_options(make_background, options):
    ss, ds = make_background(9, 10, 10)
    with pytest.raises(InputError):
        BayesianCalibrator(**options).fit(ss, ds)
    with pytest.raises(InputError):
        BayesianCalibrator(**options).bootstrap_llr(ss, ds, [0.0], n=3, rng=np.random.default_rng())


def test_bayes_params_are_json(make_background):
    params = json.loads(json.dumps(BayesianCalibrator().fit(*make_background(10)).params()))
    assert params["prior"]["kappa0"] == 0.1 and params["posterior_ss"]["kappa"] == 60.1


# ---------------------------------------------------------------------- kde
def test_kde_against_scipy_gaussian_kde(make_background):
    ss, ds = make_background(11, 40, 70)
    s = np.array([-3.0, 0.0, 1.7, 4.0, 7.0])
    cal = KDECalibrator().fit(ss, ds)
    expected = 0.0
    for values, sign in ((ss, 1), (ds, -1)):
        # Silverman's rule of thumb (Silverman 1986, eq. 3.31), by hand
        iqr = np.subtract(*np.percentile(values, [75, 25]))
        h = 0.9 * min(values.std(ddof=1), iqr / 1.34) * values.size ** (-0.2)
        ref = stats.gaussian_kde(values, bw_method=h / values.std(ddof=1))
        expected = expected + sign * ref.logpdf(s)
    assert cal.llr(s) == pytest.approx(expected, rel=1e-10)
    scott = KDECalibrator(bandwidth="scott").fit(ss, ds)
    assert scott.params()["bandwidth_ss"] == pytest.approx(1.06 * ss.std(ddof=1) * 40**-0.2)
    fixed = KDECalibrator(bandwidth=0.5).fit(ss, ds)
    ref_ss = stats.gaussian_kde(ss, bw_method=0.5 / ss.std(ddof=1))
    assert fixed.density(s)[0] == pytest.approx(ref_ss(s), rel=1e-10)


def test_kde_is_finite_far_from_the_data(make_background):
    cal = KDECalibrator().fit(*make_background(12, 30, 30))
    llr = cal.llr([-1e6, -100.0, 100.0, 1e6])
    assert np.all(np.isfinite(llr))


def test_kde_binned_estimate_matches_exact_sum(make_background, monkeypatch):
    ss, ds = make_background(13, 3000, 5000)
    s = np.linspace(-5, 8, 2000)
    exact = KDECalibrator().fit(ss, ds).llr(s)
    monkeypatch.setattr(kde_module, "_EXACT", 0)  # force the binned FFT path
    binned = KDECalibrator().fit(ss, ds).llr(s)
    assert binned == pytest.approx(exact, abs=2e-5)  # documented: < 1e-5 per log density


@pytest.mark.parametrize("bandwidth", [0.0, -1.0, "wide", True])
def test_kde_bad_bandwidth(make_background, bandwidth):
    with pytest.raises(InputError):
        KDECalibrator(bandwidth=bandwidth).fit(*make_background(14, 10, 10))


# ---------------------------------------------------------------------- shared
@pytest.mark.parametrize("name", ["gaussian", "bayes", "kde"])
def test_not_fitted_and_constant_class(name):
    with pytest.raises(NotFittedError):
        make_calibrator(name).llr([0.0])
    with pytest.raises(NotFittedError):
        make_calibrator(name).density([0.0])
    with pytest.raises(InputError, match="constant"):
        make_calibrator(name).fit([1.0, 1.0, 1.0], [0.0, 2.0])
