"""The evidence and uncertainty API speaks one language: a calibrator by name or as an object,
after the data in every function; the sources as ``ss_sources``/``ds_sources``; the older
spellings still work and warn; one set of defaults, those of a case file.

Each check compares two independent routes to the same number (name vs object, old vs new
spelling, the library's default vs the value written out, K-fold by hand).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import forensic_lr as flr
from forensic_lr.calibration import DEFAULT_CALIBRATOR, as_calibrator, make_calibrator
from forensic_lr.casework import evaluate_evidence
from forensic_lr.casework.evidence import evaluate_evidence_full
from forensic_lr.errors import InputError
from forensic_lr.resampling import DEFAULT_SEED, fold_ids
from forensic_lr.uncertainty import bootstrap_interval, cross_validated_llr

RNG = np.random.default_rng(5)
SS, DS = RNG.normal(2.0, 1.0, 40), RNG.normal(-1.0, 1.2, 90)
SOURCES_SS = np.array([f"s{i % 8}" for i in range(SS.size)])
SOURCES_DS = np.array([f"s{i % 8}" for i in range(DS.size)])


def test_cross_validated_llr_takes_a_name_and_equals_a_hand_made_k_fold():
    ss_llr, ds_llr = cross_validated_llr(SS, DS, "logistic")
    # by hand: the folds of seed DEFAULT_SEED (SS dealt first, then DS), one fit per fold
    rng = np.random.default_rng(20261122)
    f_ss, f_ds = fold_ids(SS.size, 5, rng), fold_ids(DS.size, 5, rng)
    want_ss, want_ds = np.empty(SS.size), np.empty(DS.size)
    for k in range(5):
        model = make_calibrator("logistic").fit(SS[f_ss != k], DS[f_ds != k])
        want_ss[f_ss == k], want_ds[f_ds == k] = model.llr(SS[f_ss == k]), model.llr(
            DS[f_ds == k])
    np.testing.assert_allclose(ss_llr, want_ss, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ds_llr, want_ds, rtol=0, atol=1e-12)
    obj = cross_validated_llr(SS, DS, make_calibrator("logistic"))
    np.testing.assert_array_equal(obj[0], ss_llr)
    np.testing.assert_array_equal(obj[1], ds_llr)


@pytest.mark.parametrize("function", [cross_validated_llr, bootstrap_interval,
                                      evaluate_evidence])
def test_the_calibrator_comes_after_the_data_with_the_case_default(function):
    params = list(inspect.signature(function).parameters.values())
    data = [p.name for p in params[: params.index(
        inspect.signature(function).parameters["calibrator"])]]
    assert data in (["ss", "ds"], ["ss", "ds", "scores"])
    calibrator = inspect.signature(function).parameters["calibrator"]
    assert calibrator.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert calibrator.default == DEFAULT_CALIBRATOR == "bayes"
    assert inspect.signature(function).parameters["seed"].default == DEFAULT_SEED == 20261122


def test_bootstrap_interval_by_name_by_object_and_in_the_old_order():
    by_name = bootstrap_interval(SS, DS, [0.5, 3.0], "gaussian", n=150, seed=3)
    by_object = bootstrap_interval(SS, DS, [0.5, 3.0], make_calibrator("gaussian"), n=150,
                                   seed=3)
    with pytest.warns(DeprecationWarning, match="bootstrap_interval\\(ss, ds, scores"):
        old = bootstrap_interval(make_calibrator("gaussian"), SS, DS, [0.5, 3.0], n=150, seed=3)
    for other in (by_object, old):
        np.testing.assert_array_equal(other.llr_low, by_name.llr_low)
        np.testing.assert_array_equal(other.llr_high, by_name.llr_high)


def test_evaluate_evidence_by_name_and_options_equals_by_object():
    a = evaluate_evidence(SS, DS, [0.5, 6.0], "gaussian", options={"equal_variance": True},
                          n=120, seed=4)
    b = evaluate_evidence(SS, DS, [0.5, 6.0], make_calibrator("gaussian", equal_variance=True),
                          n=120, seed=4)
    assert a == b
    assert a.method.options == {"equal_variance": True}
    with pytest.raises(InputError, match="carries its own"):
        evaluate_evidence(SS, DS, [0.5], make_calibrator("gaussian"), options={"x": 1})


def test_evaluate_evidence_defaults_are_a_case_files():
    from forensic_lr.casework.spec import Method, Uncertainty, Validation

    record = evaluate_evidence(SS, DS, [6.0], interval="none")
    assert record.method.calibrator == Method().calibrator
    assert record.method.elub_applied == Method().elub is True
    assert record.seed == Uncertainty().seed
    sig = inspect.signature(evaluate_evidence).parameters
    assert sig["interval"].default == Uncertainty().method
    assert sig["level"].default == Uncertainty().level
    assert sig["folds"].default == Validation().folds
    assert Uncertainty(method="bayes").n == 4000 and Uncertainty().n == 1000
    # the one ELUB: that of the 5-fold cross-validation with the case seed
    from forensic_lr.calibration.elub import elub_bounds_log10

    low, high = elub_bounds_log10(*cross_validated_llr(SS, DS, "bayes", 5, 20261122))
    assert (record.method.elub_log10_lr_low, record.method.elub_log10_lr_high) == (low, high)
    assert record.results[0].log10_lr == pytest.approx(high, abs=1e-12)


def test_sources_have_one_name_and_groups_still_works():
    new = cross_validated_llr(SS, DS, "gaussian", None, ss_sources=SOURCES_SS,
                              ds_sources=SOURCES_DS)
    with pytest.warns(DeprecationWarning, match="ss_sources"):
        old = cross_validated_llr(SS, DS, "gaussian", None, groups=(SOURCES_SS, SOURCES_DS))
    np.testing.assert_array_equal(new[0], old[0])
    np.testing.assert_array_equal(new[1], old[1])
    a = evaluate_evidence(SS, DS, [1.0], "gaussian", ss_sources=SOURCES_SS,
                          ds_sources=SOURCES_DS, interval="none")
    with pytest.warns(DeprecationWarning, match="ss_sources"):
        b = evaluate_evidence(SS, DS, [1.0], "gaussian", groups=(SOURCES_SS, SOURCES_DS),
                              interval="none")
    assert a == b
    # by source, the ELUB differs from that of folds by trial
    c = evaluate_evidence(SS, DS, [1.0], "gaussian", interval="none")
    assert c.method.elub_log10_lr_high != a.method.elub_log10_lr_high
    with pytest.raises(InputError, match="both classes"):
        cross_validated_llr(SS, DS, "gaussian", ss_sources=SOURCES_SS)


def test_evaluate_evidence_full_is_the_same_evaluation_with_the_fits():
    record = evaluate_evidence(SS, DS, [0.5, 6.0], "logistic", n=100, seed=2)
    full = evaluate_evidence_full(SS, DS, [0.5, 6.0], "logistic", n=100, seed=2)
    assert full.record == record
    llr = make_calibrator("logistic").fit(SS, DS).llr([0.5, 6.0])
    np.testing.assert_allclose(full.inner.llr([0.5, 6.0]), llr, rtol=0, atol=1e-12)
    assert full.record.results[0].llr_unbounded == pytest.approx(llr[0], abs=1e-12)
    # limited to the ELUB: the fitted (bounded) model gives the record's value
    assert full.fitted.llr([6.0])[0] == pytest.approx(
        full.record.results[1].log10_lr * math.log(10), abs=1e-9)
    with pytest.raises(TypeError):
        evaluate_evidence_full(SS, DS, [0.5], "logistic", no_such_keyword=1)


def test_top_level_api_and_bad_calibrators():
    assert flr.cross_validated_llr is cross_validated_llr
    with pytest.raises(InputError, match="method name"):
        as_calibrator(42)
    with pytest.raises(InputError, match="unknown calibration method"):
        cross_validated_llr(SS, DS, "no-such-method")


def test_validation_study_speaks_the_same_language():
    """ss_sources/ds_sources and metric_intervals; groups and intervals warn and agree; a
    calibrator object is the method of its name and options."""
    from forensic_lr.validation import run_validation_study

    new = run_validation_study(SS, DS, methods=("gaussian",), folds=None,
                               ss_sources=SOURCES_SS, ds_sources=SOURCES_DS,
                               metric_intervals={"n": 100, "seed": 1})
    with pytest.warns(DeprecationWarning) as caught:
        old = run_validation_study(SS, DS, methods=("gaussian",), folds=None,
                                   groups=(SOURCES_SS, SOURCES_DS), intervals={"n": 100,
                                                                              "seed": 1})
    assert {"groups", "intervals"} <= {w for c in caught for w in ("groups", "intervals")
                                       if f"({w}=" in str(c.message)}
    assert new.to_json() == old.to_json()
    assert new.folds_by == "source" and new.seed == DEFAULT_SEED
    by_object = run_validation_study(SS, DS, methods=(make_calibrator("gaussian"),), folds=None,
                                     ss_sources=SOURCES_SS, ds_sources=SOURCES_DS,
                                     metric_intervals={"n": 100, "seed": 1})
    assert by_object.to_json() == new.to_json()
    # the out-of-fold LLRs are cross_validated_llr's with the same folds
    ss_llr, ds_llr = cross_validated_llr(SS, DS, "gaussian", None, ss_sources=SOURCES_SS,
                                         ds_sources=SOURCES_DS)
    np.testing.assert_array_equal(new.arrays.llrs["gaussian"][0], ss_llr)
    np.testing.assert_array_equal(new.arrays.llrs["gaussian"][1], ds_llr)


def test_tippett_takes_the_natural_log_lr_as_every_plot():
    """case_llr (natural log) marks the same line and counts as the old case_log10_lr."""
    from forensic_lr import plots

    llr = 2.0
    new = plots.tippett_svg(SS, DS, case_llr=llr)
    with pytest.warns(DeprecationWarning, match="case_llr"):
        old = plots.tippett_svg(SS, DS, case_log10_lr=llr / math.log(10))
    assert new == old
    # the legend's counts: trials at or above the case LLR, counted here by hand
    n_ss, n_ds = int((SS_LLR >= llr).sum()), int((DS_LLR >= llr).sum())
    text = plots.tippett_svg(SS_LLR, DS_LLR, case_llr=llr)
    assert f"same source {n_ss} of {SS_LLR.size}" in text.replace("\u00a0", " ")
    assert f"different source {n_ds} of {DS_LLR.size}" in text.replace("\u00a0", " ")


SS_LLR, DS_LLR = np.linspace(-1.0, 4.0, 11), np.linspace(-5.0, 2.5, 16)


def test_criteria_and_rates_take_metric_intervals_and_the_old_spelling_warns():
    from forensic_lr.validation.criteria import check_criteria
    from forensic_lr.validation.rates import misleading_rates

    rng = np.random.default_rng(5)
    ss, ds = rng.normal(2, 1, 40), rng.normal(-2, 1, 60)
    new = misleading_rates(ss, ds, 0.95, metric_intervals=None)
    with pytest.warns(DeprecationWarning, match="metric_intervals"):
        old = misleading_rates(ss, ds, 0.95, intervals={"by": "trial", "level": 0.95})
    assert [r.to_dict() for r in new] == [r.to_dict() for r in old]
    assert new[0].count == int(np.sum(ss < 0))  # RMEP counted by hand
    bounds = {"cllr": {"bound_high": 0.3, "bound_low": 0.1}}
    a = check_criteria({"cllr_max": 0.5}, {"cllr": 0.2}, metric_intervals=bounds)
    with pytest.warns(DeprecationWarning, match="metric_intervals"):
        b = check_criteria({"cllr_max": 0.5}, {"cllr": 0.2}, intervals=bounds)
    assert a == b and a[0].met
