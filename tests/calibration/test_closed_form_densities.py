"""The densities written out for speed equal scipy's: the normal and Student-t log densities,
the Student-t predictive of the Bayesian calibrator and the two-normal LLR of the Gaussian
refits (also far in the tails, where its quadratic form is put to the test)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm, t

from forensic_lr.calibration import make_calibrator
from forensic_lr.calibration.bayesian import NIGPosterior
from forensic_lr.calibration.densities import normal_logpdf, student_t_logpdf
from forensic_lr.resampling import bootstrap_index_chunks

finite = st.floats(-50, 50)
positive = st.floats(0.05, 50)


@settings(max_examples=200, deadline=None)
@given(finite, st.floats(0.1, 1e4), st.floats(0.6, 1e4), positive, finite)
def test_predictive_logpdf_equals_scipy_student_t(mu, kappa, alpha, beta, s):
    post = NIGPosterior(mu=mu, kappa=kappa, alpha=alpha, beta=beta)
    scale = np.sqrt(beta * (kappa + 1) / (alpha * kappa))
    want = t.logpdf(s, 2 * alpha, mu, scale)
    assert np.isclose(post.predictive_logpdf(s), want, rtol=1e-12, atol=1e-12)


@settings(max_examples=300, deadline=None)
@given(finite, st.floats(0.3, 1e6), finite, positive)
def test_student_t_logpdf_equals_scipy(s, nu, loc, scale):
    want = t.logpdf(s, nu, loc, scale)
    assert np.isclose(student_t_logpdf(s, nu, loc, scale), want, rtol=1e-11, atol=1e-11)


def test_gaussian_hook_equals_scipy_normal_llr_of_each_refit():
    rng = np.random.default_rng(4)
    ss, ds = rng.normal(2, 1.3, 80), rng.normal(-1, 0.8, 200)
    scores = np.array([-30.0, -1.0, 0.0, 2.5, 40.0])
    cal = make_calibrator("gaussian")
    fast = cal.bootstrap_llr(ss, ds, scores, n=30, rng=np.random.default_rng(9))
    from forensic_lr.resampling import bootstrap_index_chunks

    slow = []
    for idx_ss, idx_ds in bootstrap_index_chunks(np.random.default_rng(9), 30, ss.size, ds.size):
        for i, j in zip(idx_ss, idx_ds, strict=True):
            a, b = ss[i], ds[j]
            slow.append(norm.logpdf(scores, a.mean(), a.std()) - norm.logpdf(scores, b.mean(),
                                                                             b.std()))
    np.testing.assert_allclose(fast, np.array(slow), rtol=1e-10, atol=1e-9)


@settings(max_examples=300, deadline=None)
@given(finite, finite, st.floats(1e-3, 1e3))
def test_normal_logpdf_equals_scipy(s, loc, scale):
    want = norm.logpdf(s, loc, scale)
    assert np.isclose(normal_logpdf(s, loc, scale), want, rtol=1e-13, atol=1e-13)


def test_two_normal_refits_equal_scipy_at_far_scores():
    # the quadratic form of the refits against scipy's densities, far out in both tails
    rng = np.random.default_rng(2)
    ss, ds = rng.normal(3, 0.7, 60), rng.normal(-1, 1.9, 150)
    fits = make_calibrator("gaussian").bootstrap_fits(ss, ds, n=12, rng=np.random.default_rng(1))
    s = np.array([-400.0, -30.0, 0.0, 1.0, 55.0, 900.0])
    for row, (i, j) in enumerate(zip(*next(bootstrap_index_chunks(
            np.random.default_rng(1), 12, ss.size, ds.size)), strict=True)):
        a, b = ss[i], ds[j]
        want = norm.logpdf(s, a.mean(), a.std()) - norm.logpdf(s, b.mean(), b.std())
        np.testing.assert_allclose(fits.llr(s, [row])[0], want, rtol=1e-11)
