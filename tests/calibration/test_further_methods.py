"""Ramos's further calibrators and calibration checks against independent values.

Independent values come from: closed forms written out here (Reynolds' adaptation
formulas, the calibrated-Gaussian relations), direct numerical optimisation with
scipy.optimize of objectives written out here, scipy.stats.t.fit (Nelder-Mead ML),
scikit-learn's GaussianMixture (plain ML EM), a stratified bootstrap, finite differences
and recovery of known parameters from simulated data with fixed seeds.
"""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from scipy.special import expit
from sklearn.mixture import GaussianMixture

from forensic_lr.calibration import (
    CALIBRATORS,
    SCalCalibrator,
    StudentTCalibrator,
    SuspectMAPCalibrator,
    UnsupervisedCalibrator,
    calibration_checks,
    eer_linear_calibration,
    make_calibrator,
)
from forensic_lr.calibration.checks import (
    CalibrationCheckWarning,
    gaussian_consistency,
    mu_from_eer,
    recalibration,
)
from forensic_lr.calibration.scal import SaturationWarning, _loss_and_grad
from forensic_lr.calibration.student_t import fit_t
from forensic_lr.calibration.suspect_map import map_adapt
from forensic_lr.calibration.unsupervised import IdentifiabilityWarning
from forensic_lr.errors import InputError, NotFittedError, SmallSampleWarning


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


S = np.array([-3.0, 0.0, 1.5, 3.0, 6.0])


# ---------------------------------------------------------------------- suspect-adapted MAP
def test_suspect_map_without_suspect_scores_is_an_input_error(make_background):
    ss, ds = make_background(1, 80, 300)
    for suspect in (None, [], np.empty(0)):
        with pytest.raises(InputError, match=r"needs the suspect's own.*--suspect-ss FILE.*"
                                             r"\[background\] suspect_ss.*method gaussian"):
            SuspectMAPCalibrator(suspect_ss=suspect).fit(ss, ds)
    with pytest.raises(InputError, match="suspect_ss"):
        quiet(SuspectMAPCalibrator(relevance=0).bootstrap_fits, ss, ds, n=5,
              rng=np.random.default_rng(0))


def test_no_adaptation_is_the_population_model_gaussian_fits(make_background):
    """map_adapt with no scores returns the prior, so the report's "population model (no
    adaptation)" row may be computed by gaussian: scipy's normal ML fit by hand."""
    ss, ds = make_background(1, 80, 300)
    assert map_adapt(1.5, 0.7, np.empty(0), 16.0) == (1.5, 0.7, 0.0)
    expected = stats.norm.logpdf(S, ss.mean(), ss.std()) - stats.norm.logpdf(S, ds.mean(), ds.std())
    assert np.allclose(make_calibrator("gaussian").fit(ss, ds).llr(S), expected)


def test_suspect_map_tends_to_the_suspect_only_fit_as_relevance_vanishes(make_background):
    ss, ds = make_background(2, 80, 300)
    suspect = np.array([4.1, 4.9, 5.3, 4.4, 5.0])
    # suspect-only ML normal fit, by hand
    expected = stats.norm.logpdf(S, suspect.mean(), suspect.std()) - stats.norm.logpdf(
        S, ds.mean(), ds.std()
    )
    cal = SuspectMAPCalibrator(suspect_ss=suspect, relevance=1e-10).fit(ss, ds)
    assert np.allclose(cal.llr(S), expected, atol=1e-6)
    exact = SuspectMAPCalibrator(suspect_ss=suspect, relevance=0).fit(ss, ds)
    assert np.allclose(exact.llr(S), expected)


def test_suspect_map_matches_reynolds_second_moment_formula(make_background):
    # Reynolds et al. (2000) eq. 12-14, uncentred form, written out by hand
    ss, ds = make_background(3, 80, 300)
    x = np.array([3.9, 4.6, 5.2, 4.4])
    r = 6.0
    alpha = x.size / (x.size + r)
    mu = alpha * x.mean() + (1 - alpha) * ss.mean()
    var = alpha * np.mean(x**2) + (1 - alpha) * (ss.var() + ss.mean() ** 2) - mu**2
    cal = SuspectMAPCalibrator(suspect_ss=x, relevance=r).fit(ss, ds)
    assert cal.mean_ss_ == pytest.approx(mu, rel=1e-12)
    assert cal.sd_ss_ == pytest.approx(np.sqrt(var), rel=1e-10)
    p = cal.params()
    assert p["alpha"] == pytest.approx(0.4) and p["n_suspect"] == 4
    assert p["mean_shift_sd"] == pytest.approx((mu - ss.mean()) / ss.std())
    json.dumps(p)


def test_suspect_map_is_the_mode_of_a_normal_inverse_gamma_posterior(make_background):
    # direct maximisation (Nelder-Mead) of log N(x; mu, v) + log NIG(mu, v | m0, r, (r-3)/2,
    # r v0 / 2), the prior that makes the relevance factor r an equivalent sample size
    ss, ds = make_background(4, 80, 300)
    x = np.array([4.2, 5.1, 3.8, 4.9, 4.4, 5.6])
    r, m0, v0 = 8.0, ss.mean(), ss.var()

    def neg_log_post(theta):
        mu, log_v = theta
        v = np.exp(log_v)
        a0, b0 = (r - 3) / 2, r * v0 / 2
        lp = np.sum(stats.norm.logpdf(x, mu, np.sqrt(v)))
        lp += stats.norm.logpdf(mu, m0, np.sqrt(v / r)) - (a0 + 1) * np.log(v) - b0 / v
        return -lp

    res = optimize.minimize(
        neg_log_post,
        [m0, np.log(v0)],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000},
    )
    cal = SuspectMAPCalibrator(suspect_ss=x, relevance=r).fit(ss, ds)
    assert cal.mean_ss_ == pytest.approx(res.x[0], abs=1e-6)
    assert cal.sd_ss_**2 == pytest.approx(np.exp(res.x[1]), rel=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.01, 100.0))
def test_suspect_map_mean_lies_between_population_and_suspect(seed, r):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(3, 1, 30), rng.normal(0, 1, 30)
    x = rng.normal(rng.uniform(0, 6), 0.5, rng.integers(2, 8))
    cal = SuspectMAPCalibrator(suspect_ss=x, relevance=r).fit(ss, ds)
    lo, hi = sorted((ss.mean(), x.mean()))
    assert lo - 1e-12 <= cal.mean_ss_ <= hi + 1e-12
    assert np.isfinite(cal.llr([-1e6, 1e6])).all()


def test_suspect_map_bad_input_is_explained(make_background):
    ss, ds = make_background(5, 80, 300)
    with pytest.raises(InputError, match=r"single score.*at least 2"):
        SuspectMAPCalibrator(suspect_ss=[4.0]).fit(ss, ds)
    with pytest.raises(InputError, match=r"suspect_ss\[1\]"):
        SuspectMAPCalibrator(suspect_ss=[4.0, np.nan]).fit(ss, ds)
    with pytest.raises(InputError, match="relevance"):
        SuspectMAPCalibrator(suspect_ss=[4.0, 5.0], relevance=-1).fit(ss, ds)
    with pytest.raises(InputError, match="needs the suspect's own"):
        SuspectMAPCalibrator(relevance=0).fit(ss, ds)
    with pytest.raises(InputError, match=r"\[background\] suspect_ss"):
        SuspectMAPCalibrator(suspect_ss="suspect_ss.csv").fit(ss, ds)
    with pytest.raises(NotFittedError):
        SuspectMAPCalibrator().llr([1.0])


# ---------------------------------------------------------------------- unsupervised
def _neg_log_posterior(theta, x, m0, v0, tau):
    """The MAP-EM objective written out independently: mixture + NIG priors + Beta(2,2)."""
    mu1, mu0, lv1, lv0, logit_pi = theta
    v1, v0_ = np.exp(lv1), np.exp(lv0)
    pi = expit(logit_pi)
    mix = np.log(
        pi * stats.norm.pdf(x, mu1, np.sqrt(v1)) + (1 - pi) * stats.norm.pdf(x, mu0, np.sqrt(v0_))
    )
    lp = mix.sum() + np.log(pi) + np.log(1 - pi)
    for mu, v, mk, vk in ((mu1, v1, m0[0], v0[0]), (mu0, v0_, m0[1], v0[1])):
        a0, b0 = (tau - 3) / 2, tau * vk / 2
        lp += stats.norm.logpdf(mu, mk, np.sqrt(v / tau)) - (a0 + 1) * np.log(v) - b0 / v
    return -lp


def mixture_data(seed, n=1500):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(2.0, 1.0, 150), rng.normal(-0.5, 1.2, 600)  # background conditions
    k = rng.random(n) < 0.3  # case conditions: shifted and wider
    x = np.where(k, rng.normal(5.0, 1.2, n), rng.normal(0.0, 1.5, n))
    return ss, ds, x


def test_unsupervised_em_reaches_the_posterior_mode_found_by_scipy():
    ss, ds, x = mixture_data(6, 400)
    tau = 5.0
    cal = UnsupervisedCalibrator(unlabelled=x, prior_weight=tau).fit(ss, ds)
    m0, v0 = (ss.mean(), ds.mean()), (ss.var(), ds.var())
    res = optimize.minimize(
        _neg_log_posterior,
        [m0[0], m0[1], np.log(v0[0]), np.log(v0[1]), 0.0],
        args=(x, m0, v0, tau),
        method="BFGS",
        options={"gtol": 1e-9},
    )
    mine = [
        cal.mean_ss_,
        cal.mean_ds_,
        2 * np.log(cal.sd_ss_),
        2 * np.log(cal.sd_ds_),
        np.log(cal.pi_ / (1 - cal.pi_)),
    ]
    assert _neg_log_posterior(mine, x, m0, v0, tau) <= res.fun + 1e-7
    assert np.allclose(mine, res.x, atol=1e-4)


def test_unsupervised_with_negligible_prior_matches_sklearn_mixture():
    ss, ds, x = mixture_data(7)
    cal = UnsupervisedCalibrator(unlabelled=x, prior_weight=1e-6).fit(ss, ds)
    gm = GaussianMixture(2, tol=1e-12, max_iter=5000, random_state=0).fit(x[:, None])
    order = np.argsort(gm.means_.ravel())[::-1]  # SS = the higher component
    means = gm.means_.ravel()[order]
    sds = np.sqrt(gm.covariances_.ravel()[order])
    # the Beta(2, 2) prior on pi moves the (flat) optimum by O(1/n) only
    assert [cal.mean_ss_, cal.mean_ds_] == pytest.approx(means, abs=1e-2)
    assert [cal.sd_ss_, cal.sd_ds_] == pytest.approx(sds, abs=1e-2)
    assert cal.pi_ == pytest.approx(gm.weights_[order[0]], abs=3e-3)


def test_unsupervised_recovers_case_condition_parameters():
    ss, ds, x = mixture_data(8, 6000)
    cal = UnsupervisedCalibrator(unlabelled=x).fit(ss, ds)  # truth: 5, 1.2, 0, 1.5, pi 0.3
    assert cal.mean_ss_ == pytest.approx(5.0, abs=0.1)
    assert cal.sd_ss_ == pytest.approx(1.2, abs=0.1)
    assert cal.mean_ds_ == pytest.approx(0.0, abs=0.1)
    assert cal.sd_ds_ == pytest.approx(1.5, abs=0.1)
    assert cal.pi_ == pytest.approx(0.3, abs=0.03)
    by_hand = stats.norm.logpdf(S, cal.mean_ss_, cal.sd_ss_) - stats.norm.logpdf(
        S, cal.mean_ds_, cal.sd_ds_
    )
    assert np.allclose(cal.llr(S), by_hand)
    p = cal.params()
    assert p["warnings"] == [] and p["n_unlabelled"] == 6000
    json.dumps(p)


def test_unsupervised_with_overwhelming_prior_is_the_background_model():
    ss, ds, x = mixture_data(9, 200)
    with pytest.warns(IdentifiabilityWarning, match="mostly the background prior"):
        cal = UnsupervisedCalibrator(unlabelled=x, prior_weight=1e12).fit(ss, ds)
    assert [cal.mean_ss_, cal.sd_ss_] == pytest.approx([ss.mean(), ss.std()], rel=1e-6)
    assert [cal.mean_ds_, cal.sd_ds_] == pytest.approx([ds.mean(), ds.std()], rel=1e-6)


def test_unsupervised_small_or_one_class_sets_warn_or_fail():
    ss, ds, x = mixture_data(10, 200)
    with pytest.raises(InputError, match="at least 10"):
        UnsupervisedCalibrator(unlabelled=x[:5]).fit(ss, ds)
    with pytest.raises(InputError, match="needs unlabelled"):
        UnsupervisedCalibrator().fit(ss, ds)
    with pytest.raises(InputError, match=r"\[background\] unlabelled"):
        UnsupervisedCalibrator(unlabelled="case_scores.csv").fit(ss, ds)
    with pytest.raises(InputError, match="prior_weight"):
        UnsupervisedCalibrator(unlabelled=x, prior_weight=0).fit(ss, ds)
    only_ds = np.random.default_rng(11).normal(0.0, 1.5, 40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = UnsupervisedCalibrator(unlabelled=only_ds).fit(ss, ds)
    assert {w.category for w in caught} == {IdentifiabilityWarning, SmallSampleWarning}
    assert [str(w.message) for w in caught] == list(cal.warnings_)
    assert "only 40 unlabelled" in cal.warnings_[0]
    assert "same-source scores (fewer than 10)" in cal.warnings_[1]
    blob = np.random.default_rng(12).normal(1.0, 1.0, 300)
    with pytest.warns(IdentifiabilityWarning, match="overlap"):
        UnsupervisedCalibrator(unlabelled=blob, prior_weight=1.0).fit(ss - 0.9, ds + 1.5)


# ---------------------------------------------------------------------- S-cal
def label_noise_data(seed, n_ss=1500, n_ds=4000, eps=0.1):
    # 10 % of each class drawn from the other class: the true LLR saturates at +-log(9)
    rng = np.random.default_rng(seed)
    ss = np.where(rng.random(n_ss) < eps, rng.normal(-2, 1, n_ss), rng.normal(2, 1, n_ss))
    ds = np.where(rng.random(n_ds) < eps, rng.normal(2, 1, n_ds), rng.normal(-2, 1, n_ds))
    return ss, ds


def _scal_objective(theta, ss, ds):
    """Prior-weighted cross-entropy of lo + (hi - lo) expit(a + b s), raw score units."""
    lo, hi, a, b = theta

    def f(s):
        return lo + (hi - lo) * expit(a + b * s)

    return 0.5 * np.mean(np.logaddexp(0, -f(ss))) + 0.5 * np.mean(np.logaddexp(0, f(ds)))


def test_scal_is_the_minimum_found_by_direct_optimisation():
    ss, ds = label_noise_data(13, 300, 600)
    cal = SCalCalibrator().fit(ss, ds)
    p = cal.params()
    mine = [p["lower_llr"], p["upper_llr"], p["offset"], p["slope"]]
    best = min(
        (
            optimize.minimize(
                _scal_objective,
                start,
                args=(ss, ds),
                method="Nelder-Mead",
                options={"xatol": 1e-9, "fatol": 1e-13, "maxiter": 20000},
            )
            for start in ([-1, 1, 0, 1], [-3, 3, 0, 2], [-2, 2, 0.5, 0.5])
        ),
        key=lambda r: r.fun,
    )
    assert _scal_objective(mine, ss, ds) <= best.fun + 1e-9
    assert np.allclose(mine, best.x, atol=2e-3)
    assert p["cllr_train"] == pytest.approx(_scal_objective(mine, ss, ds) / np.log(2), rel=1e-9)


def test_scal_recovers_the_saturation_of_label_noise():
    ss, ds = label_noise_data(14)
    cal = SCalCalibrator().fit(ss, ds)
    assert cal.lo_ == pytest.approx(-np.log(9), abs=0.2)
    assert cal.hi_ == pytest.approx(np.log(9), abs=0.2)
    assert cal.warnings_ == ()


def test_scal_gradient_matches_finite_differences():
    rng = np.random.default_rng(15)
    u = rng.normal(0, 1, 50)
    is_ss = rng.random(50) < 0.4
    w = np.where(is_ss, 0.5 / is_ss.sum(), 0.5 / (~is_ss).sum())
    for theta in ([-1.0, 2.0, 0.3, 1.5], [2.0, -3.0, -0.5, 4.0]):
        err = optimize.check_grad(
            lambda t: _loss_and_grad(t, u, is_ss, w)[0],
            lambda t: _loss_and_grad(t, u, is_ss, w)[1],
            np.array(theta),
        )
        assert err < 1e-6


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_scal_llr_stays_inside_its_limits(seed):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(rng.uniform(0.5, 5), 1, 40), rng.normal(0, rng.uniform(0.5, 2), 60)
    cal = quiet(SCalCalibrator(max_abs_llr=15).fit, ss, ds)
    s = np.r_[-1e6, -1e3, np.sort(rng.normal(1, 3, 50)), 1e3, 1e6]
    llr = cal.llr(s)
    assert np.isfinite(llr).all()
    assert (llr >= cal.lo_).all() and (llr <= cal.hi_).all()
    assert -15 <= cal.lo_ < cal.hi_ <= 15
    # a sigmoid in the score: monotone. Not always increasing: when the DS scores spread
    # wider than the SS ones and the means are close, high scores are likelier DS and the
    # fit falls (seed 7167: slope -4.7)
    steps = np.diff(llr)
    assert (steps >= 0).all() or (steps <= 0).all()


def test_scal_warns_when_the_background_shows_no_saturation(make_background):
    ss, ds = make_background(16, 30, 60)
    ss = ss + 8  # separated classes: no finite optimum
    with pytest.warns(SaturationWarning, match="max_abs_llr"):
        cal = SCalCalibrator(max_abs_llr=10).fit(ss, ds)
    assert cal.llr([1e6])[0] == pytest.approx(cal.hi_) and cal.hi_ <= 10
    with pytest.raises(InputError, match="max_abs_llr"):
        SCalCalibrator(max_abs_llr=-1).fit(ss, ds)


# ---------------------------------------------------------------------- Student-t
def test_student_t_fit_matches_scipy_t_fit():
    rng = np.random.default_rng(17)
    x = stats.t.rvs(3.5, loc=1.0, scale=2.0, size=800, random_state=rng)
    mine = fit_t(x)
    df, loc, scale = stats.t.fit(x)  # scipy 1.x: numerical ML (Nelder-Mead), not EM
    ll_scipy = stats.t.logpdf(x, df, loc, scale).sum()
    assert mine.loglik >= ll_scipy - 1e-6
    assert [mine.df, mine.loc, mine.scale] == pytest.approx([df, loc, scale], rel=2e-3)


def test_student_t_fixed_df_matches_scipy_with_fixed_df():
    rng = np.random.default_rng(18)
    x = stats.t.rvs(6, loc=-1.0, scale=0.5, size=500, random_state=rng)
    mine = fit_t(x, df=5.0)
    _, loc, scale = stats.t.fit(x, fix_df=5.0)
    assert mine.df == 5.0
    assert [mine.loc, mine.scale] == pytest.approx([loc, scale], rel=1e-4)


def test_student_t_recovers_known_parameters_and_llr():
    rng = np.random.default_rng(19)
    ss = stats.t.rvs(4, loc=3.0, scale=1.0, size=20_000, random_state=rng)
    ds = stats.t.rvs(8, loc=0.0, scale=1.5, size=20_000, random_state=rng)
    cal = StudentTCalibrator().fit(ss, ds)
    assert [cal.fit_ss_.df, cal.fit_ss_.loc, cal.fit_ss_.scale] == pytest.approx([4, 3, 1], rel=0.1)
    assert [cal.fit_ds_.df, cal.fit_ds_.scale] == pytest.approx([8, 1.5], rel=0.15)
    expected = stats.t.logpdf(S, 4, 3, 1) - stats.t.logpdf(S, 8, 0, 1.5)
    assert np.allclose(cal.llr(S), expected, atol=0.15)
    by_hand = stats.t.logpdf(S, cal.fit_ss_.df, cal.fit_ss_.loc, cal.fit_ss_.scale) - (
        stats.t.logpdf(S, cal.fit_ds_.df, cal.fit_ds_.loc, cal.fit_ds_.scale)
    )
    assert np.allclose(cal.llr(S), by_hand)
    pdf_ss, pdf_ds = cal.density(S)
    assert np.allclose(np.log(pdf_ss / pdf_ds), by_hand)
    json.dumps(cal.params())


def test_student_t_bad_df(make_background):
    ss, ds = make_background(20, 80, 300)
    with pytest.raises(InputError, match="df must be"):
        StudentTCalibrator(df=0).fit(ss, ds)
    fixed = StudentTCalibrator(df=1e6).fit(ss, ds)  # df -> infinity: the Gaussian model
    gauss = stats.norm.logpdf(S, ss.mean(), ss.std()) - stats.norm.logpdf(S, ds.mean(), ds.std())
    assert np.allclose(fixed.llr(S), gauss, atol=1e-3)


# ---------------------------------------------------------------------- calibration checks
def test_calibrated_gaussian_llrs_satisfy_the_closed_forms():
    mu = 4.0
    # the LLR of an N(mu, 2mu) vs N(-mu, 2mu) LLR is the LLR itself (van Leeuwen & Brummer)
    l_grid = np.linspace(-20, 20, 9)
    assert np.allclose(
        stats.norm.logpdf(l_grid, mu, np.sqrt(2 * mu))
        - stats.norm.logpdf(l_grid, -mu, np.sqrt(2 * mu)),
        l_grid,
    )
    # EER = Phi(-sqrt(mu / 2)) = Phi(-sqrt(2)) = 0.0786496 (tables); and back
    assert stats.norm.cdf(-np.sqrt(2)) == pytest.approx(0.0786496, abs=1e-7)
    assert mu_from_eer(stats.norm.cdf(-np.sqrt(2))) == pytest.approx(4.0)
    rng = np.random.default_rng(21)
    ss, ds = rng.normal(mu, np.sqrt(2 * mu), 20_000), rng.normal(-mu, np.sqrt(2 * mu), 20_000)
    g = gaussian_consistency(ss, ds)
    assert g.ratio_ss == pytest.approx(1, abs=0.05) and g.ratio_ds == pytest.approx(1, abs=0.05)
    assert g.mu_from_eer == pytest.approx(mu, rel=0.05)
    over = gaussian_consistency(2 * ss, 2 * ds)  # over-confident: var / 2|mean| doubles
    assert over.ratio_ss == pytest.approx(2 * g.ratio_ss)


def test_recalibration_matches_direct_optimisation_and_scales():
    rng = np.random.default_rng(22)
    ss, ds = rng.normal(2, 2, 700), rng.normal(-2, 2, 1500)
    rec = recalibration(ss, ds)

    def objective(theta):
        a, b = theta
        return 0.5 * np.mean(np.logaddexp(0, -(a + b * ss))) + 0.5 * np.mean(
            np.logaddexp(0, a + b * ds)
        )

    res = optimize.minimize(objective, [0.5, 0.5], method="BFGS", options={"gtol": 1e-12})
    assert [rec.offset, rec.slope] == pytest.approx(res.x, abs=1e-5)
    # closed form: N(2, 4) vs N(-2, 4) has LLR = l exactly, so slope ~ 1, offset ~ 0
    assert rec.slope_interval[0] < 1 < rec.slope_interval[1]
    assert rec.offset_interval[0] < 0 < rec.offset_interval[1]
    doubled = recalibration(2 * ss, 2 * ds)  # the optimum of (a, b / 2) for doubled LLRs
    assert doubled.slope == pytest.approx(rec.slope / 2, rel=1e-7)
    assert doubled.offset == pytest.approx(rec.offset, abs=1e-7)


def test_recalibration_standard_errors_agree_with_a_stratified_bootstrap():
    rng = np.random.default_rng(23)
    ss, ds = rng.normal(1.5, 1.5, 300), rng.normal(-1.0, 2.0, 500)
    rec = recalibration(ss, ds, level=0.95)
    z = stats.norm.ppf(0.975)
    se = np.array([rec.offset_interval[1] - rec.offset, rec.slope_interval[1] - rec.slope]) / z

    def objective(theta, b_ss, b_ds):  # the Cllr objective (nats) and its gradient
        p_ss, p_ds = expit(theta[0] + theta[1] * b_ss), expit(theta[0] + theta[1] * b_ds)
        value = 0.5 * np.mean(np.logaddexp(0, -(theta[0] + theta[1] * b_ss))) + 0.5 * np.mean(
            np.logaddexp(0, theta[0] + theta[1] * b_ds)
        )
        r_ss, r_ds = 0.5 * (p_ss - 1) / b_ss.size, 0.5 * p_ds / b_ds.size
        grad = [r_ss.sum() + r_ds.sum(), r_ss @ b_ss + r_ds @ b_ds]
        return value, np.array(grad)

    est = []
    for _ in range(200):  # stratified bootstrap refits by scipy BFGS
        b_ss = ss[rng.integers(0, ss.size, ss.size)]
        b_ds = ds[rng.integers(0, ds.size, ds.size)]
        res = optimize.minimize(
            objective, [rec.offset, rec.slope], args=(b_ss, b_ds), jac=True, method="BFGS"
        )
        est.append(res.x)
    boot_se = np.std(est, axis=0, ddof=1)
    assert se == pytest.approx(boot_se, rel=0.2)


def test_checks_leave_out_infinite_llrs_with_a_warning():
    rng = np.random.default_rng(24)
    ss, ds = rng.normal(2, 2, 100), rng.normal(-2, 2, 100)
    with pytest.warns(CalibrationCheckWarning, match="2 infinite"):
        out = calibration_checks(np.r_[ss, np.inf], np.r_[ds, -np.inf])
    ref = calibration_checks(ss, ds)
    assert out.recalibration.n_excluded == 2
    assert out.recalibration.slope == pytest.approx(ref.recalibration.slope)
    json.dumps(out.to_dict())


def test_eer_linear_calibration_is_exact_for_equal_variance_gaussians():
    rng = np.random.default_rng(25)
    m1, m0, sd = 3.0, 1.0, 1.0  # true LLR = (m1 - m0)/sd^2 s - (m1^2 - m0^2)/(2 sd^2) = 2s - 4
    x1, x0 = rng.normal(m1, sd, 20_000), rng.normal(m0, sd, 20_000)
    cal = eer_linear_calibration(x1, x0)
    assert cal.slope == pytest.approx(2.0, abs=0.08)
    assert cal.offset == pytest.approx(-4.0, abs=0.15)
    assert cal.eer == pytest.approx(stats.norm.cdf(-1.0), abs=0.01)  # Phi(-d'/2), d' = 2
    assert np.allclose(cal.llr([0.0, 2.0]), [cal.offset, cal.offset + 2 * cal.slope])
    with pytest.raises(InputError, match="EER"):
        eer_linear_calibration(x1 + 100, x0)


# ---------------------------------------------------------------------- registry
def test_new_methods_are_registered_with_their_options(make_background):
    ss, ds = make_background(26, 80, 300)
    for name in ("suspect_map", "unsupervised", "scal", "student_t"):
        assert name in CALIBRATORS
    opts = {
        "suspect_map": {"suspect_ss": [3.5, 4.0, 4.4], "relevance": 4.0},
        "unsupervised": {"unlabelled": np.r_[ss, ds], "prior_weight": 10.0},
        "scal": {"max_abs_llr": 20.0},
        "student_t": {"df": 5.0},
    }
    for name, kw in opts.items():
        cal = quiet(make_calibrator(name, **kw).fit, ss, ds)
        assert np.isfinite(cal.llr(S)).all()
        json.dumps(cal.params())
    with pytest.raises(InputError, match="valid options: suspect_ss"):
        make_calibrator("suspect_map", relevence=3)
