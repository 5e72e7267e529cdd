"""The vectorised bootstrap hooks equal the slow definition: a looped refit per replicate.

Each hook (``bootstrap_llr``) must give, replicate by replicate, the LLRs of
``calibrator.fit(ss[idx_ss[b]], ds[idx_ds[b]]).llr(scores)`` on the draws of
:func:`forensic_lr.resampling.bootstrap_index_chunks` (the generic loop of
:func:`forensic_lr.uncertainty._bootstrap_llr_loop`), including tied scores and small
samples, and therefore the same interval from :func:`bootstrap_interval`.
"""

from __future__ import annotations

import numpy as np
import pytest

from forensic_lr.calibration import make_calibrator
from forensic_lr.uncertainty import _bootstrap_llr_loop


def _data(n_ss, n_ds, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(1.5, 1.0, n_ss), rng.normal(-1.0, 1.3, n_ds)
    if ties:  # scores rounded to one decimal: many ties, as in real score files
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    return ss, ds


def _hook_and_loop(cal, ss, ds, scores, n, seed):
    hook = cal.bootstrap_llr(ss, ds, scores, n=n, rng=np.random.default_rng(seed))
    loop = _bootstrap_llr_loop(cal, ss, ds, scores, n=n, rng=np.random.default_rng(seed))
    return hook, loop


SCORES = np.array([-3.0, -0.4, 0.0, 1.2, 2.9, 6.0])
SIZES = [(5, 7), (30, 80), (200, 1500)]


@pytest.mark.parametrize(("n_ss", "n_ds"), SIZES)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("relevance", [16.0, 0.5])
@pytest.mark.parametrize("n_suspect", [2, 12])
def test_suspect_map_hook_equals_loop(n_ss, n_ds, ties, relevance, n_suspect):
    ss, ds = _data(n_ss, n_ds, seed=n_ss, ties=ties)
    suspect = np.random.default_rng(1).normal(2.0, 0.7, n_suspect)
    cal = make_calibrator("suspect_map", suspect_ss=suspect, relevance=relevance)
    hook, loop = _hook_and_loop(cal, ss, ds, SCORES, 40, 3)
    np.testing.assert_allclose(hook, loop, rtol=1e-10, atol=1e-8)


def _tight_em(monkeypatch):
    """The reference loop with EM run to 1e-14 (``fit`` stops at 1e-10 SDs per step)."""
    from forensic_lr.calibration import unsupervised

    monkeypatch.setattr(unsupervised, "_TOL", 1e-14)
    monkeypatch.setattr(unsupervised, "_MAX_ITER", 100_000)


@pytest.mark.parametrize(("n_ss", "n_ds", "n_unl"), [(8, 12, 10), (40, 90, 60), (200, 800, 300)])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("prior_weight", [10.0, 1.0])
def test_unsupervised_hook_equals_loop(monkeypatch, n_ss, n_ds, n_unl, ties, prior_weight):
    ss, ds = _data(n_ss, n_ds, seed=n_ss + 1, ties=ties)
    rng = np.random.default_rng(n_unl)
    unl = np.concatenate([rng.normal(1.7, 0.9, n_unl // 4), rng.normal(-0.8, 1.2, n_unl)])
    if ties:
        unl = np.round(unl, 1)
    cal = make_calibrator("unsupervised", unlabelled=unl, prior_weight=prior_weight)
    hook = cal.bootstrap_llr(ss, ds, SCORES, n=20, rng=np.random.default_rng(3))
    _tight_em(monkeypatch)
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=20, rng=np.random.default_rng(3))
    np.testing.assert_allclose(hook, loop, rtol=1e-8, atol=1e-8)


# ------------------------------------------------------------------------------- logistic


@pytest.mark.parametrize(("n_ss", "n_ds"), SIZES)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("options", [{}, {"quadratic": True}, {"l2": 0.1}])
def test_logistic_hook_equals_loop(n_ss, n_ds, ties, options):
    ss, ds = _data(n_ss, n_ds, seed=n_ds, ties=ties)
    cal = make_calibrator("logistic", **options)
    hook, loop = _hook_and_loop(cal, ss, ds, SCORES, 30, 5)
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-9)


def test_logistic_hook_solves_most_replicates_by_the_expansion(monkeypatch):
    from forensic_lr.calibration import logistic

    rows = []
    exact = logistic.batched_logistic_newton

    def counting(x, y, w, *args):
        rows.append(w.shape[0])
        return exact(x, y, w, *args)

    monkeypatch.setattr(logistic, "batched_logistic_newton", counting)
    ss, ds = _data(2000, 8000, seed=2)
    cal = make_calibrator("logistic")
    hook = cal.bootstrap_llr(ss, ds, SCORES, n=50, rng=np.random.default_rng(1))
    assert sum(rows) < 25  # most replicates: the rest take the exact iteration
    monkeypatch.setattr(logistic, "batched_logistic_newton", exact)
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=50, rng=np.random.default_rng(1))
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("quadratic", [False, True])
def test_taylor_gradient_within_its_bound(quadratic):
    """Gradient and Hessian of the expansion against the direct sums, within the bound."""
    from scipy.special import expit

    from forensic_lr.calibration.logistic import _TaylorModel

    rng = np.random.default_rng(7)
    u = np.sort(rng.normal(0.0, 1.0, 500))
    x = np.stack([np.ones_like(u), u] + ([u * u] if quadratic else []), axis=1)
    y = (rng.random(u.size) < expit(2 * u)).astype(float)
    beta_hat = np.array([0.1, 2.0, -0.1][: x.shape[1]])
    weight = np.full(u.size, 1.0 / u.size)
    model = _TaylorModel(x, y, beta_hat, np.zeros((u.size, 0)), weight)
    counts = rng.poisson(1.0, (20, u.size)).astype(float)
    beta = beta_hat + rng.normal(0.0, 0.02, (20, x.shape[1]))
    grad, hess, err = model.gradient_hessian(model.moments(counts), beta)
    w = counts * weight
    p = expit(beta @ x.T)
    direct_grad = (w * (p - y)) @ x
    direct_hess = np.einsum("ki,ia,ib->kab", w * p * (1 - p), x, x)
    assert np.all(np.abs(grad - direct_grad) <= err + 1e-15)
    np.testing.assert_allclose(hess, direct_hess, rtol=1e-10, atol=1e-12)
    assert np.median(err) < 1e-10  # the bound is useful, not vacuous, this close


# ------------------------------------------------------------------------------------ kde


@pytest.mark.parametrize(("n_ss", "n_ds"), SIZES)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("rule", ["silverman", "scott", 0.3, ["normal_reference", 0.3]])
def test_kde_hook_equals_loop(n_ss, n_ds, ties, rule):
    ss, ds = _data(n_ss, n_ds, seed=n_ss + n_ds, ties=ties)
    cal = make_calibrator("kde", bandwidth=rule)
    hook, loop = _hook_and_loop(cal, ss, ds, SCORES, 30, 6)
    np.testing.assert_allclose(hook, loop, rtol=1e-11, atol=1e-11)


def test_kde_hook_with_many_scores_refits_as_fit(monkeypatch):
    """Past the exact-sum size, ``fit`` bins the density: the hook then refits each replicate."""
    from forensic_lr.calibration import kde

    monkeypatch.setattr(kde, "_EXACT", 1000)
    ss, ds = _data(60, 200, seed=4)
    scores = np.linspace(-3, 4, 9)
    hook, loop = _hook_and_loop(make_calibrator("kde"), ss, ds, scores, 10, 2)
    np.testing.assert_allclose(hook, loop, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------ pav


@pytest.mark.parametrize(("n_ss", "n_ds"), [(2, 3), *SIZES])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("interpolation", ["edges", "centres"])
def test_pav_hook_equals_loop(n_ss, n_ds, ties, interpolation):
    # the same bits as fit on each replicate's counts, constant resamples (NaN) included;
    # scores below, inside, on tied values of and above the background
    ss, ds = _data(n_ss, n_ds, seed=n_ss + 7, ties=ties)
    scores = np.concatenate([SCORES, ss[:3], ds[:3]])
    cal = make_calibrator("pav", interpolation=interpolation)
    hook, loop = _hook_and_loop(cal, ss, ds, scores, 40, 5)
    np.testing.assert_array_equal(hook, loop)
    assert n_ss > 2 or np.isnan(loop).any()  # two SS scores: some resamples are constant


@pytest.mark.parametrize("ties", [False, True])
def test_pav_hook_refits_a_replicate_without_a_near_value(monkeypatch, ties):
    # with one value followed on each side of a score, many replicates draw neither: those
    # are refitted by fit
    from forensic_lr.calibration import pav

    monkeypatch.setattr(pav, "_NEAR", 1)
    ss, ds = _data(60, 300, seed=9, ties=ties)
    hook, loop = _hook_and_loop(make_calibrator("pav"), ss, ds, SCORES, 60, 2)
    np.testing.assert_array_equal(hook, loop)


def test_pav_hook_with_scores_beyond_the_checked_scale_refits_as_fit():
    # a score below 1e-100 in size in both classes: a resample may hold only such values,
    # which fit refuses; the hook then refits every replicate
    ss, ds = _data(20, 40, seed=3)
    ss[0], ds[0] = 1e-120, -1e-120
    hook, loop = _hook_and_loop(make_calibrator("pav"), ss, ds, SCORES, 30, 4)
    np.testing.assert_array_equal(hook, loop)


def test_pav_hook_with_many_scores_refits_as_fit(monkeypatch):
    from forensic_lr.calibration import pav

    monkeypatch.setattr(pav, "_UNIT_SCORES", 2)
    ss, ds = _data(30, 80, seed=5, ties=True)
    hook, loop = _hook_and_loop(make_calibrator("pav"), ss, ds, SCORES, 20, 3)
    np.testing.assert_array_equal(hook, loop)
