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


def test_extra_inputs_come_from_the_declarations():
    """The case file, the command line and the record take every declared extra input (and
    only those): a new calibrator declaring one needs no edit elsewhere."""
    from forensic_lr.calibration import extra_inputs
    from forensic_lr.casework.spec import Background
    from forensic_lr.cli import build_parser
    from forensic_lr.records import CaseResult

    declared = extra_inputs()
    assert set(declared) == {"suspect_ss", "unlabelled"}  # the two methods that take one
    fields = CaseResult.model_fields
    calibrate = build_parser()._subparsers._group_actions[0].choices["calibrate"]
    flags = {a.dest: a.option_strings for a in calibrate._actions}
    for key, (spec, method) in declared.items():
        assert key in Background.model_fields
        assert f"background_{key}" in fields
        assert flags[key] == [spec.flag]
        assert method in CALIBRATORS and spec in CALIBRATORS[method].extra_inputs
