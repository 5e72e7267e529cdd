"""Validation study: LLRs validated as given, selection on the same data stated, the data
column of the matrix, the case's fold seed, and collapsed bootstrap intervals marked.

Independent values: forensic_lr.metrics.evaluate of the given LLRs (converted from log10
here), and the case pipeline's cross-validated Cllr of the voice worked case.
"""

from __future__ import annotations

import html as html_lib
import json
import math
import re
import warnings

import numpy as np
import pytest

from forensic_lr import cli
from forensic_lr._resources import examples_dir
from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.errors import InputError
from forensic_lr.metrics import evaluate
from forensic_lr.report.validation import build_validation_report
from forensic_lr.validation import run_validation_study

_EQUAL_ENDS = re.compile(r"\[\s*([+\-]?[\d.,]+)\s*(%?)\s*,\s*\1\s*\2\s*\]")


def _text(files) -> str:
    raw = files["validation_report.html"].decode("utf-8")
    raw = re.sub(r"<svg.*?</svg>", " ", raw, flags=re.S)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


def test_calibrate_none_validates_the_given_llrs(tmp_path, capsys):
    rng = np.random.default_rng(8)
    ss10, ds10 = rng.normal(1.0, 0.8, 90), rng.normal(-1.2, 0.9, 400)
    np.savetxt(tmp_path / "ss.txt", ss10)
    np.savetxt(tmp_path / "ds.txt", ds10)
    argv = ["validate", "--ss", str(tmp_path / "ss.txt"), "--ds", str(tmp_path / "ds.txt"),
            "--calibrate", "none", "--log-base", "10"]
    assert cli.main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    expected = evaluate(ss10 * math.log(10), ds10 * math.log(10)).to_dict()
    for key in ("cllr", "min_cllr", "eer", "rmep", "rmed"):
        assert got[key] == pytest.approx(expected[key], abs=1e-12), key
    assert cli.main([*argv, "--report", str(tmp_path / "out"), "-q"]) == 0
    study = json.loads((tmp_path / "out" / "validation.json").read_text())
    assert study["best_method"] == "none" and study["folds"] is None
    assert study["methods"][0]["metrics"]["cllr"] == pytest.approx(expected["cllr"], abs=1e-12)
    assert study["data_role"] == "validation" and not study["selected_on_same_data"]
    assert not (tmp_path / "out" / "figures" / "score_densities.svg").exists()
    text = _text({"validation_report.html":
                  (tmp_path / "out" / "validation_report.html").read_bytes()})
    assert "validated as they are" in text and "-fold" not in text


def test_none_cannot_be_mixed_with_calibrators(make_background):
    ss, ds = make_background(0, 30, 60)
    with pytest.raises(InputError, match="separately"):
        run_validation_study(ss, ds, methods=("none", "gaussian"))


def test_selection_on_the_same_data_is_stated_and_is_development_data(make_background):
    ss, ds = make_background(1, 60, 150)
    study = run_validation_study(ss, ds, methods=("gaussian", "logistic", "pav"), seed=3)
    assert study.selected_on_same_data and study.data_role == "development"
    assert {row["data"] for row in study.validation_matrix if row["metric"]} == {"development"}
    text = _text(build_validation_report(study, formats=("html",)))
    assert "chosen on the same data its metrics come from" in text
    assert "development data: the method was chosen on them" in text
    one = run_validation_study(ss, ds, methods=("gaussian",), seed=3)
    assert one.data_role == "validation" and not one.selected_on_same_data
    given = run_validation_study(ss, ds, methods=("gaussian", "pav"), data_role="validation")
    assert given.data_role == "validation"


def test_study_and_case_use_the_same_folds_by_default(capsys):
    # the study cross-validates the method as such; the case's ELUB bounding (on in the voice
    # case) changes its out-of-fold LLRs, so the case is run here without it
    folder = examples_dir() / "voice"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = run_case_full(load_case(folder / "case.toml",
                                       overrides={"method": {"elub": False}})).result
    assert cli.main(["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
                     "--calibrate", case.method.calibrator, "--folds",
                     str(case.validation.folds), "--json"]) == 0
    study = json.loads(capsys.readouterr().out)
    assert study["cllr"] == pytest.approx(case.validation.metrics["cllr"], abs=1e-15)


def test_collapsed_bootstrap_intervals_are_marked(make_background):
    rng = np.random.default_rng(2)
    ss, ds = rng.normal(12, 1, 40), rng.normal(0, 1, 80)  # perfectly separated
    study = run_validation_study(ss, ds, methods=("gaussian", "pav"),
                                 metric_intervals={"n": 200, "seed": 1})
    eer = study.intervals["intervals"]["eer"]
    assert eer["low"] == eer["high"] == 0.0
    text = _text(build_validation_report(study, formats=("html",)))
    assert "not estimable (both ends at 0.0 %" in text
    assert not _EQUAL_ENDS.findall(text), _EQUAL_ENDS.findall(text)


def test_study_rates_are_counts_with_exact_intervals(make_background):
    from scipy.stats import binomtest

    ss, ds = make_background(4, 25, 70)
    study = run_validation_study(ss, ds, methods=("gaussian",), metric_intervals={"n": 100})
    ss_llr = study.arrays.llrs["gaussian"][0]
    rmep = next(r for r in study.rates if r.name == "rmep")
    assert rmep.count == int((ss_llr < 0).sum()) and rmep.total == 25
    ci = binomtest(rmep.count, 25).proportion_ci(0.95, method="exact")
    assert (rmep.low, rmep.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    text = _text(build_validation_report(study, formats=("html",)))
    assert f"{rmep.count} of 25" in text and "(exact binomial)" in text


def test_validate_from_a_case_file_uses_its_data_folds_seed_and_criteria(tmp_path, capsys):
    folder = examples_dir() / "small-background"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = run_case_full(load_case(folder / "case.toml")).result
    assert cli.main(["validate", "--case", str(folder / "case.toml"), "--json"]) == 0
    study = json.loads(capsys.readouterr().out)
    assert study["method"] == case.method.calibrator and study["folds"] == case.validation.folds
    assert study["cllr"] == pytest.approx(case.validation.metrics["cllr"], abs=1e-15)
    assert cli.main(["validate", "--case", str(folder / "case.toml"), "--report",
                     str(tmp_path / "out"), "-q"]) == 0
    record = json.loads((tmp_path / "out" / "validation.json").read_text())
    assert record["seed"] == case.validation.seed and record["criteria"] == {"cllr_max": 0.1}
    assert cli.main(["validate", "--case", str(folder / "case.toml"), "--ss",
                     str(folder / "ss.csv")]) == 2
    assert "--case takes the background files" in capsys.readouterr().err
