"""One validation and one ELUB for a case.

* ``forensic-lr run`` and ``forensic-lr validate --case`` give the same cross-validated
  metrics (to 1e-12) on every worked case: one function validates the method as the case
  applies it (options, extra inputs, folds, seed, folds by source).
* The ELUB bound applied to the LR is the ELUB of the case's own cross-validated LLRs,
  checked against a brute-force evaluation of the definition (Vergeer et al. 2016) on the
  run's out-of-fold LLRs, and it is the same number wherever the record states it.
* On data with no discrimination (SS and DS drawn from one distribution) the ELUB of the
  cross-validated LLRs lies within 0.1 of 0 (log10): the validation data support no LR
  away from 1. The in-sample rule (lir's bounder) does not (KDE reaches well beyond).
* The calibration checks are of the unbounded cross-validated LLRs (independent value: the
  checks recomputed from the run's out-of-fold LLRs, which the metrics also match).
"""

from __future__ import annotations

import json
import math
import shutil
import warnings

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.calibration import calibration_checks
from forensic_lr.casework import evaluate_evidence, load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.cli import main
from forensic_lr.metrics import evaluate
from tests.calibration.test_elub import brute_elub

CASES = ("voice", "small-background", "glass-distance", "suspect-adapted")


def _fast_run(tmp_path, name):
    """The worked case as it is, with no LR interval (it does not enter the validation)."""
    shutil.copytree(examples_dir() / name, tmp_path / name)
    spec = load_case(tmp_path / name / "case.toml")
    spec = spec.model_copy(update={
        "uncertainty": spec.uncertainty.model_copy(update={"method": "none"})})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spec, run_case_full(spec)


@pytest.mark.parametrize("name", CASES)
def test_run_and_validate_case_give_the_same_metrics(tmp_path, capsys, name):
    spec, run = _fast_run(tmp_path, name)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["-q", "validate", "--case", str(tmp_path / name / "case.toml"),
                     "--json"]) == 0
    study = json.loads(capsys.readouterr().out)
    case = run.result.validation.metrics
    assert study["method"] == spec.method.calibrator
    assert study["folds"] == spec.validation.folds
    assert study["folds_by"] == run.result.validation.folds_by
    for key, value in case.items():
        if value != value:  # undefined (NaN) is null in JSON
            assert study[key] is None, key
            continue
        assert study[key] == pytest.approx(value, abs=1e-12, rel=0), key
    # the metrics are those of the out-of-fold LLRs the report's figures draw, unbounded
    direct = evaluate(run.ss_llr_cv, run.ds_llr_cv).to_dict()
    defined = {k: v for k, v in case.items() if v == v}
    assert {k: direct[k] for k in defined} == pytest.approx(defined, abs=1e-12, rel=0)
    assert all(direct[k] is None for k in set(case) - set(defined))


@pytest.mark.parametrize("name", ("voice", "glass-distance"))
def test_the_one_elub_is_that_of_the_cross_validated_llrs(tmp_path, name):
    spec, run = _fast_run(tmp_path, name)
    r = run.result
    reference = brute_elub(run.ss_llr_cv, run.ds_llr_cv)
    assert r.validation.elub_log10 == pytest.approx(reference, abs=1e-12)
    assert (r.method.elub_log10_lr_low, r.method.elub_log10_lr_high) == r.validation.elub_log10
    assert r.method.elub_applied and r.method.elub_from == "cross-validated"
    low, high = reference
    for e in r.results:
        model = e.llr_unbounded / math.log(10)
        assert e.log10_lr == pytest.approx(min(max(model, low), high), abs=1e-12)
        assert e.bounded == (not low <= model <= high)
    assert r.sensitivity.elub_log10 == r.validation.elub_log10
    # the checks are of the unbounded out-of-fold LLRs, as the study's are
    checks = calibration_checks(run.ss_llr_cv, run.ds_llr_cv,
                                level=spec.uncertainty.level).to_dict()
    assert r.validation.calibration_checks == checks


def test_voice_calibration_checks_are_of_the_unclipped_llrs(tmp_path):
    """The values the study of the voice data gives (slope 0.93, variance ratios 0.81 and
    1.10), not those of LLRs clipped at the bound (0.40 and 0.34)."""
    _, run = _fast_run(tmp_path, "voice")
    checks = run.result.validation.calibration_checks
    assert checks["recalibration"]["slope"] == pytest.approx(0.93, abs=0.01)
    assert checks["gaussian"]["ratio_ss"] == pytest.approx(0.81, abs=0.01)
    assert checks["gaussian"]["ratio_ds"] == pytest.approx(1.10, abs=0.01)
    high = run.result.validation.elub_log10[1]
    assert run.ss_llr_cv.max() / math.log(10) > high + 0.5  # not clipped at the bound


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["kde", "gaussian", "bayes", "logistic", "pav", "student_t"])
def test_no_discrimination_gives_an_elub_near_zero(method, seed):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(0.0, 1.0, 200), rng.normal(0.0, 1.0, 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_evidence(ss, ds, [0.0, 3.0], calibrator=method, elub=True,
                              interval="none", seed=seed)
    low, high = r.method.elub_log10_lr_low, r.method.elub_log10_lr_high
    assert -0.1 <= low <= 0.0 <= high <= 0.1
    assert all(abs(e.log10_lr) <= 0.1 for e in r.results)  # no LR away from 1 is reported


def test_in_sample_rule_is_kept_as_an_option_and_differs_on_kde():
    """lir's rule (in-sample LLRs) stays available; on no-discrimination data KDE's own
    training LLRs claim support the validation data do not give."""
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(0.0, 1.0, 200), rng.normal(0.0, 1.0, 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_evidence(ss, ds, [0.0], calibrator="kde", elub=True,
                              elub_from="in-sample", interval="none")
    from forensic_lr.calibration import make_calibrator

    fitted = make_calibrator("kde").fit(ss, ds)
    reference = brute_elub(fitted.llr(ss), fitted.llr(ds))
    assert (r.method.elub_log10_lr_low, r.method.elub_log10_lr_high) == reference
    assert r.method.elub_from == "in-sample"
    assert reference[0] < -0.1  # beyond what the cross-validated LLRs support
