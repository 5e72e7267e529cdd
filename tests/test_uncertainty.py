"""Tests of forensic_lr.uncertainty (bootstrap / Bayesian intervals, cross-validation).

Expected values come from independent computations written here: the true LLR of a
known Gaussian model (closed form), the contract's one-shot resampling draws, numpy's
own quantile function, brute-force set membership, and scipy.stats distributions.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.uncertainty import (
    LRInterval,
    _bootstrap_llr_loop,
    bayes_interval,
    bootstrap_interval,
    cross_validated_llr,
    quantile_rows,
)


class TinyGauss:
    """Equal-variance Gaussian calibrator written for these tests (ML pooled variance).

    LLR(x) = (mu_ss - mu_ds) / var * (x - (mu_ss + mu_ds) / 2), the linear-in-score
    Gaussian LR. ``bootstrap_llr`` follows the contract's draws literally (one shot).
    """

    name = "tiny"

    def fit(self, ss, ds):
        ss, ds = np.asarray(ss, float), np.asarray(ds, float)
        self.mu_ss_, self.mu_ds_ = ss.mean(), ds.mean()
        self.var_ = (((ss - self.mu_ss_) ** 2).sum() + ((ds - self.mu_ds_) ** 2).sum()) / (
            ss.size + ds.size
        )
        return self

    def llr(self, scores):
        x = np.asarray(scores, float)
        return (self.mu_ss_ - self.mu_ds_) / self.var_ * (x - (self.mu_ss_ + self.mu_ds_) / 2)

    def params(self):
        return {"mu_ss": self.mu_ss_, "mu_ds": self.mu_ds_, "var": self.var_}


class TinyGaussHook(TinyGauss):
    def bootstrap_llr(self, ss, ds, scores, *, n, rng, progress=None):
        idx_ss = rng.integers(0, len(ss), (n, len(ss)))
        idx_ds = rng.integers(0, len(ds), (n, len(ds)))
        s, d = ss[idx_ss], ds[idx_ds]
        m_s, m_d = s.mean(axis=1, keepdims=True), d.mean(axis=1, keepdims=True)
        var = (((s - m_s) ** 2).sum(axis=1) + ((d - m_d) ** 2).sum(axis=1)) / (len(ss) + len(ds))
        with np.errstate(all="ignore"):
            slope = (m_s[:, 0] - m_d[:, 0]) / var
            return slope[:, None] * (scores[None, :] - (m_s + m_d) / 2)


def _real(name, **options):
    """A calibrator from forensic_lr.calibration, or skip while that module is being built."""
    try:
        cal = importlib.import_module("forensic_lr.calibration")
        return cal.make_calibrator(name, **options)
    except (ImportError, AttributeError) as exc:  # pragma: no cover - only while building
        pytest.skip(f"forensic_lr.calibration.{name} not available yet ({exc})")


# ---------------------------------------------------------------- quantiles, result record


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40),
    st.floats(0.0, 1.0),
)
def test_quantile_matches_numpy(values, q):
    # independent value: numpy.quantile, default "linear" method (Hyndman-Fan type 7)
    a = np.array(values)[:, None]
    assert quantile_rows(a, q)[0] == pytest.approx(np.quantile(a[:, 0], q), rel=1e-12, abs=1e-9)


def test_quantile_with_infinities():
    a = np.array([[-np.inf], [-np.inf], [1.0], [np.inf], [np.inf]])
    # type-7 positions: q=0.1 -> 0.4 (between -inf, -inf); q=0.9 -> 3.6 (inf, inf)
    assert quantile_rows(a, 0.1)[0] == -np.inf
    assert quantile_rows(a, 0.9)[0] == np.inf
    assert quantile_rows(a, 0.5)[0] == 1.0


def test_to_dict_is_base10_and_plain():
    iv = LRInterval("bootstrap", 0.95, np.array([np.log(10.0)]), np.array([np.log(1000.0)]), 10)
    d = iv.to_dict()
    assert d["level"] == 0.95 and d["method"] == "bootstrap"
    assert d["log10_lr_low"] == [pytest.approx(1.0)]
    assert d["log10_lr_high"] == [pytest.approx(3.0)]
    assert all(type(v) is float for v in d["log10_lr_low"] + d["log10_lr_high"])
    assert d["n_degenerate"] == 0 and d["warnings"] == []


# ---------------------------------------------------------------------------- bootstrap


def _data(seed=1, n_ss=60, n_ds=80):
    rng = np.random.default_rng(seed)
    return rng.normal(2.0, 1.0, n_ss), rng.normal(0.0, 1.0, n_ds)


def test_bootstrap_interval_computes_with_one_blas_thread():
    """The replicates run with one BLAS thread whatever the caller set (as a case's stages):
    the hook sees one thread while the caller allows two."""
    from threadpoolctl import threadpool_info, threadpool_limits

    seen = []

    class Probe(TinyGaussHook):
        def bootstrap_llr(self, *args, **kwargs):
            seen.extend(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
            return super().bootstrap_llr(*args, **kwargs)

    ss, ds = _data()
    with threadpool_limits(limits=2, user_api="blas"):
        bootstrap_interval(ss, ds, [1.0], Probe(), n=5, seed=1)
    assert seen and set(seen) == {1}


def test_loop_equals_contract_draws():
    # the fallback loop (chunked draws) must reproduce the contract's one-shot draws
    ss, ds = _data()
    scores = np.array([-1.0, 0.5, 3.0])
    hook = TinyGaussHook().bootstrap_llr(ss, ds, scores, n=37, rng=np.random.default_rng(5))
    loop = _bootstrap_llr_loop(TinyGauss(), ss, ds, scores, n=37, rng=np.random.default_rng(5))
    np.testing.assert_allclose(loop, hook, rtol=1e-10, atol=1e-12)


def test_loop_equals_contract_draws_when_chunked(monkeypatch):
    import forensic_lr.resampling as resample

    monkeypatch.setattr(resample, "CHUNK_DRAWS", 250)  # 3 rows of 80 DS draws per chunk
    ss, ds = _data()
    x = np.array([1.0])
    hook = TinyGaussHook().bootstrap_llr(ss, ds, x, n=11, rng=np.random.default_rng(9))
    loop = _bootstrap_llr_loop(TinyGauss(), ss, ds, x, n=11, rng=np.random.default_rng(9))
    np.testing.assert_allclose(loop, hook, rtol=1e-10)


def test_hook_and_loop_give_same_interval_and_are_deterministic():
    ss, ds = _data()
    a = bootstrap_interval(ss, ds, [0.0, 1.0, 2.5], TinyGaussHook(), n=200, seed=3)
    b = bootstrap_interval(ss, ds, [0.0, 1.0, 2.5], TinyGauss(), n=200, seed=3)
    c = bootstrap_interval(ss, ds, [0.0, 1.0, 2.5], TinyGauss(), n=200, seed=3)
    d = bootstrap_interval(ss, ds, [0.0, 1.0, 2.5], TinyGauss(), n=200, seed=4)
    np.testing.assert_allclose(a.llr_low, b.llr_low, rtol=1e-10)
    np.testing.assert_allclose(a.llr_high, b.llr_high, rtol=1e-10)
    assert c.to_dict() == b.to_dict()
    assert not np.array_equal(d.llr_low, b.llr_low)
    assert np.all(b.llr_low < b.llr_high)


def test_interval_is_percentiles_of_replicates():
    # independent: replicates recomputed by hand from the contract's draws, then np.quantile
    ss, ds = _data(n_ss=30, n_ds=40)
    rng = np.random.default_rng(11)
    idx_ss = rng.integers(0, 30, (300, 30))
    idx_ds = rng.integers(0, 40, (300, 40))
    x = 1.3
    pairs = zip(idx_ss, idx_ds, strict=True)
    reps = np.array([TinyGauss().fit(ss[i], ds[j]).llr(x) for i, j in pairs])
    iv = bootstrap_interval(ss, ds, x, TinyGauss(), n=300, level=0.9, seed=11)
    assert iv.llr_low[0] == pytest.approx(np.quantile(reps, 0.05), rel=1e-10)
    assert iv.llr_high[0] == pytest.approx(np.quantile(reps, 0.95), rel=1e-10)


def test_progress_called_for_each_replicate():
    calls = []
    ss, ds = _data()
    bootstrap_interval(ss, ds, 1.0, TinyGauss(), n=25, progress=lambda i, t: calls.append((i, t)))
    assert calls == [(i, 25) for i in range(1, 26)]


def test_calibrator_not_modified():
    ss, ds = _data()
    cal = TinyGauss().fit(ss, ds)
    before = cal.params()
    bootstrap_interval(ss, ds, 1.0, cal, n=20)
    assert cal.params() == before


def test_degenerate_replicates_counted():
    # ss has 3 equal values out of 4: a resample is constant with probability
    # (3/4)^4 + (1/4)^4 = 0.32; count them independently from the contract's draws.
    ss = np.array([1.0, 1.0, 1.0, 2.0])
    ds = np.array([-1.0, 0.0, 0.5, -0.3, 0.2])
    rng = np.random.default_rng(2)
    idx_ss = rng.integers(0, 4, (200, 4))
    rng.integers(0, 5, (200, 5))
    expected = int(np.sum(np.ptp(ss[idx_ss], axis=1) == 0))
    assert 30 < expected < 100
    with pytest.warns(ForensicLRWarning, match="degenerate"):
        iv = bootstrap_interval(ss, ds, 0.5, TinyGauss(), n=200, seed=2)
    assert iv.n_degenerate == expected
    assert np.isfinite(iv.llr_low).all() and np.isfinite(iv.llr_high).all()
    assert "degenerate" in iv.warnings[0]


def test_degenerate_hook_rows_counted():
    # the hook returns NaN rows for constant resamples (0/0); they are dropped
    ss = np.array([1.0, 1.0, 1.0, 2.0])
    ds = np.array([1.0, 1.0, 1.0, 2.0])
    with pytest.warns(ForensicLRWarning):
        iv = bootstrap_interval(ss, ds, 0.5, TinyGaussHook(), n=100, seed=0)
    assert 0 < iv.n_degenerate < 100


def test_all_degenerate_is_an_error():
    with pytest.raises(InputError, match="constant"):
        bootstrap_interval([1.0, 1.0], [0.0, 0.0], 0.5, TinyGauss(), n=10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 0}, "positive integer"),
        ({"level": 1.0}, "between 0 and 1"),
        ({"n": 2.5}, "positive integer"),
    ],
)
def test_bad_options(kwargs, match):
    ss, ds = _data()
    with pytest.raises(InputError, match=match):
        bootstrap_interval(ss, ds, 1.0, TinyGauss(), **kwargs)


def test_bad_scores():
    ss, ds = _data()
    with pytest.raises(InputError, match=r"ss\[1\]"):
        bootstrap_interval([0.0, np.nan, 1.0], ds, 1.0, TinyGauss(), n=5)
    with pytest.raises(InputError, match="scores"):
        bootstrap_interval(ss, ds, [np.inf], TinyGauss(), n=5)


def _coverage(calibrator, n_data=200, n_boot=200, n_cls=100, delta=1.5, x=0.75):
    """Share of datasets whose 95 % bootstrap interval covers the true LLR at x.

    Truth: SS ~ N(delta, 1), DS ~ N(0, 1), so LLR(x) = delta * x - delta**2 / 2 (closed form).
    """
    true = delta * x - delta**2 / 2
    rng = np.random.default_rng(20261123)
    hits = 0
    for k in range(n_data):
        ss, ds = rng.normal(delta, 1.0, n_cls), rng.normal(0.0, 1.0, n_cls)
        iv = bootstrap_interval(ss, ds, x, calibrator, n=n_boot, seed=k)
        hits += bool(iv.llr_low[0] <= true <= iv.llr_high[0])
    return hits / n_data


def test_bootstrap_coverage_tiny_gaussian():
    # 200 datasets: binomial SE of a 0.95 coverage is sqrt(.95*.05/200) = 0.015; the
    # percentile bootstrap with 100 per class and 200 replicates undercovers slightly
    # (O(1/n) error, Efron & Tibshirani 1993 ch. 14), so accept 0.95 +- 0.05 (about 3 SE).
    cov = _coverage(TinyGaussHook())
    assert abs(cov - 0.95) <= 0.05, cov


def test_bootstrap_coverage_gaussian_calibrator():
    cal = _real("gaussian", equal_variance=True)
    cov = _coverage(cal)
    assert abs(cov - 0.95) <= 0.05, cov


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("gaussian", {}),
        ("gaussian", {"equal_variance": True}),
        ("logistic", {}),
        ("bayes", {}),
        ("bayes", {"mode": "map"}),
    ],
)
def test_real_hook_equals_loop(name, options):
    cal = _real(name, **options)
    if not hasattr(cal, "bootstrap_llr"):
        pytest.skip(f"{name} has no bootstrap_llr hook")
    ss, ds = _data(n_ss=40, n_ds=70)
    scores = np.array([-0.5, 1.0, 2.7])
    hook = cal.bootstrap_llr(ss, ds, scores, n=30, rng=np.random.default_rng(4))
    loop = _bootstrap_llr_loop(cal, ss, ds, scores, n=30, rng=np.random.default_rng(4))
    np.testing.assert_allclose(hook, loop, rtol=1e-6, atol=1e-8)


# -------------------------------------------------------------------------------- bayes


def test_bayes_interval_needs_bayes():
    with pytest.raises(InputError, match="'bayes'"):
        bayes_interval(TinyGauss(), 1.0)


class FixedPosterior:
    """A stand-in 'bayes' calibrator whose posterior LLR is exactly N(m, s^2) at each score."""

    name = "bayes"

    def posterior_llr_samples(self, scores, *, n, rng):
        scores = np.asarray(scores, float)
        return rng.normal(2.0 * scores, 0.5, (n, scores.size))


def test_bayes_interval_matches_normal_quantiles():
    from scipy.stats import norm

    iv = bayes_interval(FixedPosterior(), [0.0, 1.0], n=200_000, level=0.9, seed=1)
    # independent: analytic quantiles of N(2x, 0.5^2); MC SE of a 5 % quantile ~ 0.003
    np.testing.assert_allclose(iv.llr_low, norm.ppf(0.05, [0.0, 2.0], 0.5), atol=0.01)
    np.testing.assert_allclose(iv.llr_high, norm.ppf(0.95, [0.0, 2.0], 0.5), atol=0.01)
    again = bayes_interval(FixedPosterior(), [0.0, 1.0], n=200_000, level=0.9, seed=1)
    assert again.to_dict() == iv.to_dict()


def test_bayes_interval_against_scipy_posterior_draws():
    # Independent reference: the normal-inverse-gamma posterior written out here from
    # Murphy (2007), "Conjugate Bayesian analysis of the Gaussian distribution", eqs. 85-89,
    # with an explicit prior (mu0=0, kappa0=0.1, alpha0=1, beta0=alpha0*4), then 200 000
    # draws from scipy.stats.invgamma / norm (a different generator and code path).
    from scipy.stats import invgamma, norm

    cal = _real("bayes", prior_mean=0.0, prior_variance=4.0, kappa0=0.1, alpha0=1.0)
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(1.5, 1.0, 30), rng.normal(0.0, 1.5, 40)
    cal.fit(ss, ds)
    x = np.array([-1.0, 0.7, 2.0])
    m = 200_000
    ref = np.zeros((m, x.size))
    for sign, values, seed in ((1.0, ss, 101), (-1.0, ds, 202)):
        n, mean = values.size, values.mean()
        kappa_n = 0.1 + n
        mu_n = n * mean / kappa_n
        alpha_n = 1.0 + n / 2
        beta_n = 4.0 + ((values - mean) ** 2).sum() / 2 + 0.1 * n * mean**2 / (2 * kappa_n)
        r = np.random.default_rng(seed)
        var = invgamma.rvs(alpha_n, scale=beta_n, size=m, random_state=r)
        mu = norm.rvs(mu_n, np.sqrt(var / kappa_n), random_state=r)
        ref += sign * norm.logpdf(x[None, :], mu[:, None], np.sqrt(var)[:, None])
    iv = bayes_interval(cal, x, n=m, level=0.95, seed=3)
    # MC standard error of a 2.5 % quantile is about 0.006 sd for 2e5 draws; allow 0.04 sd
    sd = ref.std(axis=0)
    err_low = np.abs(iv.llr_low - np.quantile(ref, 0.025, axis=0)) / sd
    err_high = np.abs(iv.llr_high - np.quantile(ref, 0.975, axis=0)) / sd
    assert err_low.max() < 0.04 and err_high.max() < 0.04, (err_low, err_high)


def test_bayes_interval_real_calibrator_deterministic():
    cal = _real("bayes")
    ss, ds = _data()
    cal.fit(ss, ds)
    a = bayes_interval(cal, [0.0, 1.0], n=1000, seed=5).to_dict()
    assert a == bayes_interval(cal, [0.0, 1.0], n=1000, seed=5).to_dict()
    assert a["method"] == "bayes" and a["log10_lr_low"][0] < a["log10_lr_high"][0]


# --------------------------------------------------------------------- cross-validation


_FIT_LOG: list[tuple[int, int]] = []  # module level: survives copy.deepcopy of the calibrator


class Memorizer:
    """LLR = 1 for a score seen in training, 0 otherwise; records training sizes."""

    name = "memo"

    def fit(self, ss, ds):
        self.seen_ = set(np.concatenate([ss, ds]).tolist())
        _FIT_LOG.append((len(ss), len(ds)))
        return self

    def llr(self, scores):
        return np.array([1.0 if s in self.seen_ else 0.0 for s in np.asarray(scores)])


class Identity:
    name = "identity"

    def fit(self, ss, ds):
        self.fitted_ = True
        return self

    def llr(self, scores):
        assert self.fitted_
        return np.asarray(scores, float).copy()


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 40), st.integers(2, 60), st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_cv_never_scores_seen_data(n_ss, n_ds, folds, seed):
    folds = min(folds, n_ss, n_ds)
    ss = np.arange(n_ss, dtype=float)  # all values distinct, so membership is exact
    ds = 1000.0 + np.arange(n_ds)
    _FIT_LOG.clear()
    out_ss, out_ds = cross_validated_llr(ss, ds, Memorizer(), folds=folds, seed=seed)
    log = list(_FIT_LOG)
    assert not out_ss.any() and not out_ds.any()
    assert len(log) == folds
    # held-out sizes per fold are floor(n/K) or ceil(n/K) and add up to n
    held_ss = np.array([n_ss - a for a, _ in log])
    held_ds = np.array([n_ds - b for _, b in log])
    assert held_ss.sum() == n_ss and held_ds.sum() == n_ds
    assert set(held_ss) <= {n_ss // folds, -(-n_ss // folds)}
    assert set(held_ds) <= {n_ds // folds, -(-n_ds // folds)}


def test_cv_keeps_input_order_and_is_seeded():
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(size=23), rng.normal(size=31)
    out_ss, out_ds = cross_validated_llr(ss, ds, Identity(), folds=4, seed=7)
    np.testing.assert_array_equal(out_ss, ss)
    np.testing.assert_array_equal(out_ds, ds)
    a = cross_validated_llr(ss, ds, TinyGauss(), folds=4, seed=7)
    b = cross_validated_llr(ss, ds, TinyGauss(), folds=4, seed=7)
    c = cross_validated_llr(ss, ds, TinyGauss(), folds=4, seed=8)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])


def test_cv_matches_manual_folds():
    # independent: rebuild the folds by the documented rule and fit by hand
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(1, 1, 17), rng.normal(0, 1, 12)
    out_ss, out_ds = cross_validated_llr(ss, ds, TinyGauss(), folds=3, seed=5)
    r = np.random.default_rng(5)
    perm_ss, perm_ds = r.permutation(17), r.permutation(12)
    f_ss, f_ds = np.empty(17, int), np.empty(12, int)
    f_ss[perm_ss], f_ds[perm_ds] = np.arange(17) % 3, np.arange(12) % 3
    for k in range(3):
        m = TinyGauss().fit(ss[f_ss != k], ds[f_ds != k])
        np.testing.assert_allclose(out_ss[f_ss == k], m.llr(ss[f_ss == k]))
        np.testing.assert_allclose(out_ds[f_ds == k], m.llr(ds[f_ds == k]))


def test_cv_does_not_fit_the_given_object():
    cal = Identity()
    cross_validated_llr([1.0, 2.0, 3.0], [0.0, 1.0], cal, folds=2)
    assert not hasattr(cal, "fitted_")


@pytest.mark.parametrize(("folds", "match"),
                         [(5, r"use at most 3 folds"), (1, ">= 2"), (2.0, ">= 2")])
def test_cv_bad_folds(folds, match):
    with pytest.raises(InputError, match=match):
        cross_validated_llr([1.0, 2.0, 3.0], [0.0, 1.0, 0.5, 0.7], TinyGauss(), folds=folds)
