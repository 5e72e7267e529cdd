"""Logistic-regression fusion (LogisticFusion) against independent values.

- scikit-learn's LogisticRegression (no penalty, C = inf) with sample weights that give each
  class its prior share: same weights and intercept (minus logit(prior));
- one system: the ``logistic`` calibrator's coefficients;
- a saturated closed case computed by hand: three score patterns, three parameters, so the
  fitted LLR at each pattern is the log ratio of the class frequencies there, whatever the prior;
- cross-validation by source: no fold's fit saw a source of the comparisons it scores.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.calibration import LogisticFusion, make_calibrator
from forensic_lr.errors import ConvergenceError, InputError
from forensic_lr.uncertainty import cross_validated_llr

sklearn_linear = pytest.importorskip("sklearn.linear_model")


def _systems(seed=1, n_ss=150, n_ds=400):
    rng = np.random.default_rng(seed)
    cov = [[1.0, 0.5], [0.5, 1.0]]
    ss = rng.multivariate_normal([2.0, 1.0], cov, n_ss) * [1.0, 30.0] + [0.0, 100.0]
    ds = rng.multivariate_normal([0.0, 0.0], cov, n_ds) * [1.0, 30.0] + [0.0, 100.0]
    return ss, ds


@pytest.mark.parametrize("prior", [0.5, 0.2, 0.9])
def test_matches_scikit_learn_with_prior_weights(prior):
    ss, ds = _systems()
    x = np.vstack([ss, ds])
    y = np.r_[np.ones(len(ss)), np.zeros(len(ds))]
    weight = np.r_[np.full(len(ss), prior / len(ss)), np.full(len(ds), (1 - prior) / len(ds))]
    # standardised columns: sklearn's lbfgs then converges to its tolerance; map back below
    m, s = x.mean(axis=0), x.std(axis=0)
    ref = sklearn_linear.LogisticRegression(C=np.inf, tol=1e-12, max_iter=100_000).fit(
        (x - m) / s, y, sample_weight=weight * len(y))
    b_ref = ref.coef_[0] / s
    a_ref = ref.intercept_[0] - b_ref @ m - math.log(prior / (1 - prior))
    a, b = LogisticFusion(prior=prior).fit(ss, ds).coefficients()
    assert a == pytest.approx(a_ref, abs=1e-6)
    assert b == pytest.approx(b_ref, rel=1e-6)


def test_one_system_is_the_logistic_calibrator():
    ss, ds = _systems()
    fusion = LogisticFusion().fit(ss[:, 1], ds[:, 1])  # 1-D: one system
    logistic = make_calibrator("logistic").fit(ss[:, 1], ds[:, 1])
    a, b = fusion.coefficients()
    assert (a, b[0]) == pytest.approx(logistic.coefficients(), rel=1e-10)
    grid = np.linspace(0, 200, 7)
    assert fusion.llr(grid[:, None]) == pytest.approx(logistic.llr(grid), abs=1e-9)


@pytest.mark.parametrize("prior", [0.5, 0.1])
def test_saturated_closed_case(prior):
    # patterns A = (0, 0), B = (1, 0), C = (0, 1); SS counts 2, 3, 5 and DS counts 6, 3, 1:
    # a = ln(2/6), a + b1 = ln(3/3) = 0, a + b2 = ln(5/1), by hand
    ss = np.array([[0, 0]] * 2 + [[1, 0]] * 3 + [[0, 1]] * 5, dtype=float)
    ds = np.array([[0, 0]] * 6 + [[1, 0]] * 3 + [[0, 1]] * 1, dtype=float)
    fusion = LogisticFusion(prior=prior).fit(ss, ds)
    a, b = fusion.coefficients()
    assert a == pytest.approx(math.log(1 / 3), abs=1e-9)
    assert b == pytest.approx([math.log(3), math.log(15)], abs=1e-9)
    assert fusion.llr([[0, 0], [1, 0], [0, 1]]) == pytest.approx(
        [math.log(1 / 3), 0.0, math.log(5)], abs=1e-9)


def test_frequency_weights_are_repeated_comparisons():
    ss, ds = _systems(n_ss=40, n_ds=60)
    rng = np.random.default_rng(3)
    w_ss, w_ds = rng.integers(0, 4, len(ss)), rng.integers(1, 4, len(ds))
    weighted = LogisticFusion().fit(ss, ds, w_ss, w_ds)
    repeated = LogisticFusion().fit(np.repeat(ss, w_ss, axis=0), np.repeat(ds, w_ds, axis=0))
    assert weighted.llr(ss) == pytest.approx(repeated.llr(ss), abs=1e-9)


def test_params_name_the_systems_and_weights():
    ss, ds = _systems()
    fusion = LogisticFusion(systems=["mfcc", "formants"]).fit(ss, ds)
    p = fusion.params()
    assert p["systems"] == ["mfcc", "formants"]
    a, b = fusion.coefficients()
    assert p["weights"] == pytest.approx(list(b)) and p["intercept"] == a
    # the standardised weight is the raw weight times the column's balanced sd
    assert p["standardised_weights"] == pytest.approx(list(b * fusion.scale_))
    labels = [r.label for r in fusion.param_rows()]
    assert "weight of formants (per score unit)" in labels


def test_cross_validated_by_source_never_scores_a_seen_source():
    ss, ds = _systems(n_ss=120, n_ds=300)
    rng = np.random.default_rng(5)
    ss_src = np.repeat(np.arange(30), 4)
    ds_src = np.c_[rng.integers(0, 30, len(ds)), rng.integers(30, 60, len(ds))]
    seen = []

    class Recording(LogisticFusion):
        def fit(self, ss_, ds_, ss_weight=None, ds_weight=None):
            self.train_ = {tuple(r) for r in np.vstack([ss_, ds_])}
            return super().fit(ss_, ds_)

        def llr(self, scores):
            rows = {tuple(r) for r in np.asarray(scores)}
            seen.append((self.train_, rows))
            return super().llr(scores)

    ss_llr, ds_llr = cross_validated_llr(ss, ds, Recording(), 5, 7, ss_sources=ss_src,
                                         ds_sources=ds_src)
    assert ss_llr.shape == (len(ss),) and np.isfinite(ds_llr).all()
    key = {tuple(r): {s} for r, s in zip(ss, ss_src, strict=True)}
    key |= {tuple(r): set(s) for r, s in zip(ds, ds_src, strict=True)}
    for train, test in seen:
        train_sources = set().union(*(key[r] for r in train))
        test_sources = set().union(*(key[r] for r in test))
        assert not train_sources & test_sources
    # folds by trial take score matrices too
    by_trial = cross_validated_llr(ss, ds, LogisticFusion(), 4, 2)
    assert by_trial[0].shape == (len(ss),)


def test_refusals_name_the_problem():
    ss, ds = _systems()
    with pytest.raises(InputError, match="linear functions of each other"):
        LogisticFusion().fit(np.c_[ss, 2 * ss[:, 0]], np.c_[ds, 2 * ds[:, 0]])
    with pytest.raises(InputError, match="one score per system"):
        LogisticFusion().fit(ss, ds).llr([[1.0, 2.0, 3.0]])
    with pytest.raises(InputError, match=r"ss\[3, 1\]"):
        bad = ss.copy()
        bad[3, 1] = np.nan
        LogisticFusion().fit(bad, ds)
    with pytest.raises(InputError, match="strictly between 0 and 1"):
        LogisticFusion(prior=1.0).fit(ss, ds)
    with pytest.raises(InputError, match="one name per column"):
        LogisticFusion(systems=["one"]).fit(ss, ds)
    with pytest.raises(InputError, match="formants"):
        LogisticFusion(systems=["mfcc", "formants"]).fit(
            ss, np.c_[ds[:, 0], np.full(len(ds), 3.0)])
    apart = ss + np.array([10.0, 0.0])
    with pytest.raises(ConvergenceError, match=r"l2 = 0\.01"):
        LogisticFusion().fit(apart, ds)
    separated = LogisticFusion(l2=0.01).fit(apart, ds)
    assert np.isfinite(separated.llr(ss)).all()


# --------------------------------------------------------------------- fusion_refits
def _looped(ss, ds, w_ss, w_ds, **options):
    """(a, b) of LogisticFusion.fit with each row of weights; NaN where the fit refuses."""
    out_a, out_b = [], []
    for ws, wd in zip(w_ss, w_ds, strict=True):
        try:
            a, b = LogisticFusion(**options).fit(ss, ds, ws, wd).coefficients()
        except (InputError, ConvergenceError):
            a, b = np.nan, np.full(ss.shape[1], np.nan)
        out_a.append(a)
        out_b.append(b)
    return np.array(out_a), np.array(out_b)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), prior=st.sampled_from([0.5, 0.2, 0.8]),
       l2=st.sampled_from([0.0, 0.05]), warm=st.booleans())
def test_refits_equal_a_fit_per_row_of_weights(seed, prior, l2, warm):
    """Every batched fit equals LogisticFusion.fit with that row's count weights (the fit
    that is checked against scikit-learn above), started anywhere; rows that leave a class
    without weight or with a constant column are NaN, as fit refuses them."""
    from forensic_lr.calibration.fusion import fusion_refits

    rng = np.random.default_rng(seed)
    ss, ds = _systems(seed, n_ss=30, n_ds=60)
    w_ss = rng.integers(0, 3, (12, 30)).astype(float)
    w_ds = rng.integers(0, 3, (12, 60)).astype(float)
    w_ss[0] = 0.0  # no SS comparison
    w_ds[1] = 0.0
    w_ds[1, 5] = 4.0  # one DS comparison, counted 4 times: constant
    start = LogisticFusion(prior=prior, l2=l2).fit(ss, ds).coefficients() if warm else None
    a, b = fusion_refits(ss, ds, w_ss, w_ds, prior=prior, l2=l2, start=start)
    ref_a, ref_b = _looped(ss, ds, w_ss, w_ds, prior=prior, l2=l2)
    assert np.isnan(a[:2]).all() and np.isnan(b[:2]).all()
    np.testing.assert_allclose(a, ref_a, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(b, ref_b, rtol=1e-8, atol=1e-10)


def test_refits_with_a_design_per_fit_equal_logistic_calibration():
    """One score per fit, a set of scores per fit (the calibration of a bootstrap's fused
    values): each equals the ``logistic`` calibrator fitted with the weights; separated
    classes (no penalty) are NaN, as that calibrator refuses them."""
    from forensic_lr.calibration.fusion import fusion_refits

    rng = np.random.default_rng(3)
    z_ss, z_ds = rng.normal(1.0, 1.0, (8, 40, 1)), rng.normal(-1.0, 1.0, (8, 90, 1))
    z_ss[2] += 10.0  # separated
    w_ss = rng.integers(1, 3, (8, 40)).astype(float)
    w_ds = rng.integers(1, 3, (8, 90)).astype(float)
    a, b = fusion_refits(z_ss, z_ds, w_ss, w_ds)
    assert np.isnan(a[2]) and np.isnan(b[2]).all()
    for r in (0, 1, 3, 7):
        ref = make_calibrator("logistic").fit(z_ss[r, :, 0], z_ds[r, :, 0], w_ss[r], w_ds[r])
        np.testing.assert_allclose([a[r], b[r, 0]], ref.coefficients(), rtol=1e-9, atol=1e-10)
