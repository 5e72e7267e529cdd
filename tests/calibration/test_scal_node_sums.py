"""S-cal's bootstrap refits solved on Chebyshev nodes equal the refits on the scores.

References: ``fit`` on each resample (the generic loop
:func:`forensic_lr.uncertainty._bootstrap_llr_loop`), the hook's own path on every distinct
score, and the loss and gradient of :func:`forensic_lr.calibration.scal._loss_and_grad`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from forensic_lr.calibration import scal
from forensic_lr.calibration.scal import SCalCalibrator, _integrands, _loss_and_grad, _NodeSums
from forensic_lr.uncertainty import _bootstrap_llr_loop

SCORES = np.array([-9.0, -3.0, -0.4, 0.0, 1.5, 2.9, 6.0, 12.0])


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _data(n_ss, n_ds, seed, ties=0, outliers=False):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(2.0, 1.0, n_ss), rng.normal(-1.0, 1.2, n_ds)
    if outliers:
        ss[:3], ds[:3] = (-4.0, 9.0, 30.0), (-40.0, 5.5, 7.0)
    if ties:  # rounded to ``ties`` decimals
        ss, ds = np.round(ss, ties), np.round(ds, ties)
    return ss, ds


def _full(ss, ds):
    cal = _quiet(SCalCalibrator().fit, ss, ds)
    return cal, np.array([cal.lo_, cal.hi_, cal.a_, cal.b_])


def test_integrands_sum_to_the_loss_and_its_gradient():
    ss, ds = _data(200, 900, 1)
    cal, theta = _full(ss, ds)
    u = (np.concatenate([ss, ds]) - cal.centre_) / cal.scale_
    is_ss = np.r_[np.ones(ss.size, bool), np.zeros(ds.size, bool)]
    w = np.where(is_ss, 0.5 / ss.size, 0.5 / ds.size)
    for th in (theta, theta + np.array([0.3, -0.2, 0.1, -0.05])):
        loss, grad = _loss_and_grad(th, u, is_ss, w)
        sums = sum(_integrands(th[None], u[mask], s)[0] @ w[mask]
                   for mask, s in ((is_ss, -1.0), (~is_ss, 1.0)))
        assert sums[0] == pytest.approx(loss, rel=1e-13)
        np.testing.assert_allclose(sums[1:], grad, rtol=1e-11, atol=1e-15)


@pytest.mark.parametrize(("ties", "outliers"), [(0, False), (3, False), (0, True)])
def test_hook_on_nodes_equals_the_loop(ties, outliers):
    ss, ds = _data(300, 3000, 2, ties, outliers)
    cal, theta = _full(ss, ds)
    u = np.unique(np.concatenate([ss, ds]))
    v_ss, v_ds = np.unique(ss), np.unique(ds)
    sign = np.r_[np.full(v_ss.size, -1.0), np.full(v_ds.size, 1.0)]
    nodes = _NodeSums.build(theta, (np.r_[v_ss, v_ds] - cal.centre_) / cal.scale_, sign,
                            (ss.size, ds.size))
    assert nodes is not None and nodes.points.size < u.size / 4  # the node path is taken
    hook = _quiet(cal.bootstrap_llr, ss, ds, SCORES, n=20, rng=np.random.default_rng(3))
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=20, rng=np.random.default_rng(3))
    np.testing.assert_allclose(hook, loop, rtol=1e-9, atol=1e-8)


def _on_scores(monkeypatch, cal, ss, ds, n, seed):
    """The hook with the node path switched off (every replicate solved on its scores)."""
    with monkeypatch.context() as patch:
        patch.setattr(scal._NodeSums, "build", classmethod(lambda cls, *args: None))
        return _quiet(cal.bootstrap_llr, ss, ds, SCORES, n=n, rng=np.random.default_rng(seed))


@pytest.mark.parametrize("ties", [0, 2])
def test_nodes_equal_the_scores_path_at_larger_sizes(monkeypatch, ties):
    ss, ds = _data(2000, 30000, 4, ties)
    cal, _ = _full(ss, ds)
    nodes = _quiet(cal.bootstrap_llr, ss, ds, SCORES, n=40, rng=np.random.default_rng(5))
    scores = _on_scores(monkeypatch, cal, ss, ds, 40, 5)
    np.testing.assert_allclose(nodes, scores, rtol=1e-9, atol=1e-9)


def test_replicates_failing_the_tail_check_are_solved_on_their_scores(monkeypatch):
    ss, ds = _data(300, 3000, 6)
    cal, _ = _full(ss, ds)
    seen = []
    original = scal._solve_on_scores

    def spy(start, u, sign, w, *args):
        seen.append(w.shape[0])
        return original(start, u, sign, w, *args)

    monkeypatch.setattr(scal, "_solve_on_scores", spy)
    fits = _quiet(cal.bootstrap_fits, ss, ds, n=30, rng=np.random.default_rng(7))
    assert not seen  # all replicates pass the check at the default tolerance
    # where the check fails (a tolerance no interpolant meets), the same draws are replayed
    monkeypatch.setattr(_NodeSums, "exact_at", lambda self, theta: np.zeros(theta.shape[0], bool))
    strict = _quiet(cal.bootstrap_fits, ss, ds, n=30, rng=np.random.default_rng(7))
    assert sum(seen) == 30
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=30, rng=np.random.default_rng(7))
    np.testing.assert_allclose(strict.llr(SCORES), loop, rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(fits.llr(SCORES), loop, rtol=1e-9, atol=1e-8)


def test_the_tail_check_rejects_parameters_far_from_the_full_fit():
    ss, ds = _data(300, 3000, 8)
    cal, theta = _full(ss, ds)
    v_ss, v_ds = np.unique(ss), np.unique(ds)
    sign = np.r_[np.full(v_ss.size, -1.0), np.full(v_ds.size, 1.0)]
    nodes = _NodeSums.build(theta, (np.r_[v_ss, v_ds] - cal.centre_) / cal.scale_, sign,
                            (ss.size, ds.size))
    steep = theta * np.array([1.0, 1.0, 40.0, 40.0])  # a step at the scale of the runs
    assert nodes.exact_at(np.vstack([theta, steep])).tolist() == [True, False]


@pytest.mark.parametrize("nodes", [True, False])
def test_separated_resamples_are_refitted_as_fit_does(monkeypatch, nodes):
    """No optimum: fit's L-BFGS-B answer is the definition, and the hook must give it too."""
    rng = np.random.default_rng(9)
    ss, ds = rng.normal(6.0, 1.0, 300), rng.normal(-6.0, 1.0, 2000)
    assert ss.min() > ds.max()
    cal, _ = _full(ss, ds)
    loop = _bootstrap_llr_loop(cal, ss, ds, SCORES, n=8, rng=np.random.default_rng(10))
    if nodes:
        hook = _quiet(cal.bootstrap_llr, ss, ds, SCORES, n=8, rng=np.random.default_rng(10))
    else:
        hook = _on_scores(monkeypatch, cal, ss, ds, 8, 10)
    # the reference refits with count weights (sums over the scores, each times its count,
    # not over the repeated scores): rounding-level differences, which L-BFGS-B's stop on
    # a loss without a minimum turns into about 1e-9
    np.testing.assert_allclose(hook, loop, rtol=1e-8, atol=1e-8)


def test_the_callers_generator_advances_past_the_draws_on_either_path(monkeypatch):
    ss, ds = _data(300, 3000, 11)
    cal, _ = _full(ss, ds)
    reference = np.random.default_rng(12)
    reference.integers(0, ss.size, (15, ss.size))
    reference.integers(0, ds.size, (15, ds.size))
    for nodes in (True, False):
        rng = np.random.default_rng(12)
        with monkeypatch.context() as patch:
            if not nodes:
                patch.setattr(scal._NodeSums, "build", classmethod(lambda cls, *args: None))
            _quiet(cal.bootstrap_fits, ss, ds, n=15, rng=rng)
        assert rng.bit_generator.state == reference.bit_generator.state
