"""The calibrator table, option errors, input validation, fit warnings and params()."""

import json
import warnings

import numpy as np
import pytest

from forensic_lr.calibration import (
    CALIBRATORS,
    ELUB,
    Calibrator,
    fit_warnings,
    make_calibrator,
)
from forensic_lr.errors import (
    ExtrapolationWarning,
    InputError,
    NotFittedError,
    SmallSampleWarning,
)

CORE = ["gaussian", "bayes", "logistic", "pav", "kde"]




def test_the_table_holds_the_five_methods_of_the_design():
    assert set(CORE) <= set(CALIBRATORS)
    for name in CORE:
        cal = make_calibrator(name)
        assert isinstance(cal, Calibrator) and cal.name == name


def test_unknown_method_lists_the_valid_ones():
    with pytest.raises(InputError, match="unknown calibration method 'gauss'") as info:
        make_calibrator("gauss")
    for name in CORE:
        assert name in str(info.value)
    with pytest.raises(InputError):
        make_calibrator("forensic_lr.calibration.gaussian.GaussianCalibrator")  # no dotted paths


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(InputError, match="equal_varianse") as info:
        make_calibrator("gaussian", equal_varianse=True)
    assert "equal_variance (default False)" in str(info.value)
    with pytest.raises(InputError, match=r"interpolation \(default 'edges'\)"):
        make_calibrator("pav", bounds=3)


@pytest.mark.parametrize("name", CORE)
def test_params_are_json_able_plain_values(make_background, name):
    cal = make_calibrator(name).fit(*make_background(1, 40, 60))
    text = json.dumps(cal.params())  # raises on numpy scalars or arrays
    assert json.loads(text) == cal.params()
    wrapped = ELUB(make_calibrator(name)).fit(*make_background(1, 40, 60))
    json.dumps(wrapped.params())


@pytest.mark.parametrize("name", CORE)
def test_fit_returns_self_and_init_only_stores(make_background, name):
    cal = make_calibrator(name)
    assert not [k for k in vars(cal) if k.endswith("_")]
    assert cal.fit(*make_background(2, 40, 60)) is cal
    with pytest.raises(NotFittedError, match="fit"):
        make_calibrator(name).llr([0.0])


@pytest.mark.parametrize("name", CORE)
@pytest.mark.parametrize(
    "ss, ds, match",
    [
        ([1.0, np.nan, 2.0], [0.0, 1.0], r"ss\[1\] = .*nan.* is non-finite"),
        ([1.0, 2.0], [0.0, np.inf], r"ds\[1\] = .*inf.* is non-finite"),
        ([1.0], [0.0, 1.0], "at least 2"),
        ([1.0, 2.0], [3.0, 3.0, 3.0], "constant"),
        ([[1.0, 2.0]], [0.0, 1.0], "one-dimensional"),
        (["a", "b"], [0.0, 1.0], "numeric"),
    ],
)
def test_bad_background_is_a_clear_input_error(name, ss, ds, match):
    with pytest.raises(InputError, match=match):
        make_calibrator(name).fit(ss, ds)


@pytest.mark.parametrize("name", CORE)
def test_bad_evidence_scores(make_background, name):
    cal = make_calibrator(name).fit(*make_background(3, 40, 60))
    with pytest.raises(InputError, match="non-finite"):
        cal.llr([1.0, np.nan])


def test_fit_warnings_extrapolation_and_small_classes(make_background):
    ss, ds = make_background(4, 10, 30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        texts = fit_warnings(ss, ds, [ds.min() - 1.0, 1.0, ss.max() + 2.0])
    kinds = [w.category for w in caught]
    assert kinds.count(ExtrapolationWarning) == 2 and kinds.count(SmallSampleWarning) == 1
    assert len(texts) == 3 and [str(w.message) for w in caught] == list(texts)
    assert "outside the range of the background scores" in texts[0]
    assert "only 10 same-source background scores (fewer than 20)" in texts[2]


def test_fit_warnings_quiet_for_a_good_case(make_background):
    ss, ds = make_background(5, 20, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit_warnings(ss, ds, [1.0]) == ()


def test_fit_warnings_validates_its_input():
    with pytest.raises(InputError, match="scores"):
        fit_warnings([1.0, 2.0], [0.0, 1.0], [np.nan])


@pytest.mark.parametrize("name", ["gaussian", "bayes", "logistic", "pav"])
def test_prior_neutral_training(make_background, name):
    # Replicating every DS score 3 times changes the counts, not the class distributions:
    # a prior-neutral calibrator gives the same LLRs. (KDE bandwidths depend on n.)
    ss, ds = make_background(6, 40, 60)
    s = np.array([-1.0, 1.0, 2.5, 4.0])
    once = make_calibrator(name).fit(ss, ds).llr(s)
    thrice = make_calibrator(name).fit(ss, np.tile(ds, 3)).llr(s)
    if name == "bayes":  # the posterior sharpens with n: only the ML-like limit agrees
        assert np.all(np.sign(once) == np.sign(thrice))
    elif name == "pav":  # the bound log(N_ds + 1) moves with N_ds; interior blocks do not
        inside = np.abs(once) < np.log(ss.size + 1)
        assert thrice[inside] == pytest.approx(once[inside], abs=1e-9)
    else:
        assert thrice == pytest.approx(once, abs=1e-9)


def test_fit_warnings_rejects_a_degenerate_background():
    with pytest.raises(InputError, match="constant class"):
        fit_warnings([1.0, 2.0], [4.0, 4.0], [1.0])
    with pytest.raises(InputError, match="at least 2"):
        fit_warnings([1.0], [0.0, 4.0], [1.0])
