"""The calibrator contract, for every method in the table: a fitted check naming the
calibrator; per-score weights as scikit-learn's ``sample_weight`` (counts give the fit on
the repeated data); extra inputs declared on the class."""

from __future__ import annotations

import pytest

from forensic_lr.calibration import CALIBRATORS, ELUB, make_calibrator
from forensic_lr.errors import NotFittedError

ALL = list(CALIBRATORS)


@pytest.mark.parametrize("name", ALL)
def test_unfitted_calibrator_names_itself(name):
    cal = make_calibrator(name)
    cls = type(cal).__name__
    for use in (lambda: cal.llr([0.0]), cal.params, cal.check_fitted):
        pattern = rf"{cls} \('{name}'\) is not fitted.*fit\(ss, ds\)"
        with pytest.raises(NotFittedError, match=pattern):
            use()
    with pytest.raises(NotFittedError, match="not fitted"):
        ELUB(make_calibrator(name)).params()
