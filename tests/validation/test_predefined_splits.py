"""Predefined splits and leave-one-category-out: category labels given as 1-D sources with
folds=None hold out each category once; checked against the loop written out here."""

import numpy as np

from forensic_lr import cross_validated_llr
from forensic_lr.calibration import make_calibrator


def test_leave_one_category_out_equals_the_loop():
    rng = np.random.default_rng(6)
    ss, ds = rng.normal(1.5, 1.0, 45), rng.normal(-1.0, 1.3, 70)
    ss_cat, ds_cat = rng.integers(0, 3, 45), rng.integers(0, 3, 70)
    ss_llr, ds_llr = cross_validated_llr(ss, ds, "logistic", folds=None,
                                         ss_sources=ss_cat, ds_sources=ds_cat)
    for k in range(3):
        cal = make_calibrator("logistic").fit(ss[ss_cat != k], ds[ds_cat != k])
        np.testing.assert_allclose(ss_llr[ss_cat == k], cal.llr(ss[ss_cat == k]), rtol=1e-10)
        np.testing.assert_allclose(ds_llr[ds_cat == k], cal.llr(ds[ds_cat == k]), rtol=1e-10)
