"""The vectorised bootstrap hooks equal the slow definition: a looped refit per replicate.

Each hook (``bootstrap_llr``) must give, replicate by replicate, the LLRs of
``calibrator.fit(ss[idx_ss[b]], ds[idx_ds[b]]).llr(scores)`` on the draws of
:func:`forensic_lr._resample.bootstrap_index_chunks` (the generic loop of
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
@pytest.mark.parametrize("n_suspect", [0, 2, 12])
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
