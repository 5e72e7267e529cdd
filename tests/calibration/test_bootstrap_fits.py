"""Bootstrap refits fitted once and evaluated anywhere (``bootstrap_fits``).

Independent values: each replicate refitted by ``fit`` on the same draws, in a loop, and
evaluated at the same scores; and the same fits evaluated in blocks of replicates against
all at once.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

from forensic_lr.calibration import make_calibrator
from forensic_lr.resampling import bootstrap_index_chunks

EXTRA = {"suspect_map": "suspect_ss", "unsupervised": "unlabelled"}


def _calibrator(name, rng):
    extra = {}
    if name in EXTRA:
        extra[EXTRA[name]] = rng.normal(1.5, 1.0, 40) if name == "suspect_map" else np.r_[
            rng.normal(2, 1, 40), rng.normal(-1, 1, 120)]
    return make_calibrator(name, **extra)


@pytest.mark.parametrize("name", ["gaussian", "bayes", "logistic", "scal", "student_t",
                                  "suspect_map", "unsupervised"])
def test_fits_evaluated_anywhere_equal_looped_refits(name):
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(2, 1.1, 50), rng.normal(-1, 0.9, 140)
    cal = _calibrator(name, rng)
    n = 25
    fits = cal.bootstrap_fits(ss, ds, n=n, rng=np.random.default_rng(8))
    scores = np.r_[np.linspace(-4, 6, 7), ss[:5], ds[:5]]
    slow = []
    for idx_ss, idx_ds in bootstrap_index_chunks(np.random.default_rng(8), n, ss.size,
                                                 ds.size):
        for i, j in zip(idx_ss, idx_ds, strict=True):
            with warnings.catch_warnings():  # S-cal's saturation notes: not under test here
                warnings.simplefilter("ignore")
                slow.append(copy.deepcopy(cal).fit(ss[i], ds[j]).llr(scores))
    slow = np.array(slow)
    np.testing.assert_allclose(fits.llr(scores), slow, rtol=1e-8, atol=1e-8)
    # blocks of replicates, in any order, give the same rows as all at once
    rows = np.array([24, 3, 3, 17, 0])
    np.testing.assert_array_equal(fits.llr(scores, rows), fits.llr(scores)[rows])
    # the bootstrap_llr hook is the same evaluation at the evidence scores
    hook = cal.bootstrap_llr(ss, ds, scores, n=n, rng=np.random.default_rng(8))
    np.testing.assert_array_equal(hook, fits.llr(scores))


def test_constant_resamples_give_nan_rows():
    ss, ds = np.array([2.0, 3.0]), np.array([0.0, 1.0])
    fits = make_calibrator("gaussian").bootstrap_fits(ss, ds, n=64,
                                                      rng=np.random.default_rng(1))
    rng = np.random.default_rng(1)
    idx_ss, idx_ds = rng.integers(0, 2, (64, 2)), rng.integers(0, 2, (64, 2))
    constant = (idx_ss[:, 0] == idx_ss[:, 1]) | (idx_ds[:, 0] == idx_ds[:, 1])
    llr = fits.llr([0.5, 2.5])
    assert np.array_equal(np.isnan(llr).all(axis=1), constant)
    assert not np.isnan(llr[~constant]).any()
