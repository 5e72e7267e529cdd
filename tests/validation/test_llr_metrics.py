"""validate_llr_set: the record of ``forensic-lr validate --ss --ds``, checked by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.validation import validate_llr_set

SS, DS = [1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]


def _cllr_by_hand(ss, ds) -> float:
    """0.5 mean log2(1 + 1/LR_ss) + 0.5 mean log2(1 + LR_ds), written out term by term."""
    a = sum(math.log2(1 + math.exp(-x)) for x in ss) / len(ss)
    b = sum(math.log2(1 + math.exp(x)) for x in ds) / len(ds)
    return 0.5 * a + 0.5 * b


def test_metrics_and_dcf_rows_by_hand():
    """p = 0.5, costs 1: the Bayes threshold is 0; every SS LLR is above it (no miss), one
    DS LLR of three (0.5) too: DCF = 0.5 * 1/3 / min(0.5, 0.5) = 1/3; a threshold between
    0.5 and 1 makes no error: min DCF 0. c_miss = 10: threshold -ln 10 = -2.30, below every
    LLR: every DS trial a false alarm, DCF = 0.5 * 1 / min(5, 0.5) = 1."""
    r = validate_llr_set(SS, DS, priors=[0.5], c_miss=1.0, c_fa=1.0)
    assert r.metrics["n_ss"] == 3 and r.metrics["n_ds"] == 3
    assert r.metrics["cllr"] == pytest.approx(_cllr_by_hand(SS, DS), rel=1e-12)
    assert r.metrics["rmed"] == pytest.approx(1 / 3) and r.metrics["rmep"] == 0.0
    (row,) = r.dcf
    assert (row.p_target, row.c_miss, row.c_fa) == (0.5, 1.0, 1.0)
    assert row.dcf == pytest.approx(1 / 3, rel=1e-12) and row.min_dcf == 0.0
    (row,) = validate_llr_set(SS, DS, priors=[0.5], c_miss=10.0).dcf
    assert row.dcf == pytest.approx(1.0, rel=1e-12)
    assert r.warnings == () and r.ci is None


def test_json_shape_is_that_of_validate_json():
    """Metrics at the top level beside dcf and warnings; ci only with intervals; the costs
    of each DCF row named with it."""
    data = json.loads(validate_llr_set(SS, DS, priors=[0.01]).to_json())
    assert set(data) == {"n_ss", "n_ds", "cllr", "min_cllr", "cllr_cal", "eer", "auc", "rmep",
                         "rmed", "devpav", "llr_overestimation", "dcf", "warnings",
                         "supported_range"}
    assert set(data["supported_range"]) == {"llrs", "elub_log10", "iv_log10"}
    assert set(data["dcf"][0]) == {"p_target", "c_miss", "c_fa", "dcf", "min_dcf"}
    with_ci = json.loads(validate_llr_set(SS * 4, DS * 4, metric_intervals={"n": 50, "seed": 1})
                         .to_json())
    assert with_ci["ci"]["n"] == 50 and "cllr" in with_ci["ci"]["intervals"]


def test_raw_scores_warn_in_the_record_and_as_a_warning():
    """Scores 60 vs 40 read as LLRs: all positive, RMED 1; the warning names --calibrate."""
    ss, ds = np.full(20, 60.0), np.full(30, 40.0)
    with pytest.warns(ForensicLRWarning, match="do not look like calibrated"):
        r = validate_llr_set(ss, ds)
    (text,) = r.warnings
    assert "all 50 values are positive" in text and "--calibrate" in text


def test_a_prior_outside_0_1_is_an_input_error():
    with pytest.raises(InputError, match=r"prior 1\.5"):
        validate_llr_set(SS, DS, priors=[1.5])


def test_study_method_metrics_are_those_of_the_out_of_fold_llrs():
    """Each row's metrics equal evaluate_llrs on that method's out-of-fold LLRs; leave one
    source out has no fold count (null, as in validation.json); intervals only on request."""
    from dataclasses import asdict

    from forensic_lr.metrics import evaluate_llrs
    from forensic_lr.validation import run_validation_study, study_method_metrics

    rng = np.random.default_rng(4)
    ss, ds = rng.normal(2.0, 1.0, 40), rng.normal(-1.0, 1.0, 80)
    src_ss, src_ds = np.arange(40) % 8, np.arange(80) % 8
    study = run_validation_study(ss, ds, methods=("logistic", "gaussian"), folds=None,
                                 seed=2, ss_sources=src_ss, ds_sources=src_ds)
    rows = study_method_metrics(study)
    for row in rows:
        expected = asdict(evaluate_llrs(*study.arrays.llrs[row.method], check=False))
        assert row.metrics == pytest.approx(expected, rel=1e-12, nan_ok=True)
        assert (row.folds, row.folds_by, row.ci) == (None, "source", None)
    data = json.loads(rows[0].to_json())
    assert data["method"] == "logistic" and data["folds"] is None and "cllr" in data
    (with_ci, _) = study_method_metrics(study, metric_intervals={"n": 50, "seed": 1},
                                        ss_sources=src_ss, ds_sources=src_ds)
    assert with_ci.ci["by"] == "source" and with_ci.ci["n"] == 50
