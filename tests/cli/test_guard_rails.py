"""Guard rails of `validate`, `calibrate` and `compare`: raw scores read as LLRs, options
that would be ignored, estimates outside their own interval."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr._resources import examples_dir
from forensic_lr.cli import main
from forensic_lr.cli.common import OUTSIDE_MARK, outside_interval
from forensic_lr.validation.llr_checks import raw_score_signs

VOICE = examples_dir() / "voice"


def test_raw_voice_scores_read_as_llrs_name_calibrate(capsys):
    argv = ["validate", "--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "--calibrate" in err and "do not look like calibrated" in err
    assert "all 3300 values are positive" in err and "RMED = 1.00" in err
    assert main([*argv, "--json"]) == 0
    assert "--calibrate" in json.loads(capsys.readouterr().out)["warnings"][0]


def test_calibrated_llrs_raise_no_warning():
    rng = np.random.default_rng(3)
    # LLRs of two unit normals at +-1: llr(x) = 2x is calibrated
    ss, ds = 2 * rng.normal(1, 1, 2000), 2 * rng.normal(-1, 1, 2000)
    assert raw_score_signs(ss, ds) == ()


def _expectation_log10(values) -> float:
    """Slow definition: log10 of the plain mean of exp(values), in extended precision."""
    return math.log10(sum(math.exp(float(v)) for v in values) / len(values))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=30),
       st.lists(st.floats(-30, 30), min_size=1, max_size=30))
def test_signs_agree_with_their_definitions(ss, ds):
    signs = " ".join(raw_score_signs(ss, ds))
    both = ss + ds
    assert ("values are" in signs) == (all(v > 0 for v in both) or all(v < 0 for v in both))
    assert ("RMEP" in signs) == (sum(v < 0 for v in ss) / len(ss) > 0.5)
    assert ("RMED" in signs) == (sum(v > 0 for v in ds) / len(ds) > 0.5)
    high_ds = _expectation_log10(ds) > 1.0
    high_ss = _expectation_log10([-v for v in ss]) > 1.0
    assert ("LR over the different-source" in signs) == high_ds
    assert ("1/LR over the same-source" in signs) == high_ss


def test_calibrate_with_plots_writes_the_out_of_fold_figures(tmp_path, capsys):
    plots = tmp_path / "plots"
    argv = ["validate", "--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv"),
            "--calibrate", "gaussian", "--plots", str(plots)]
    assert main(argv) == 0
    assert "out-of-fold" in capsys.readouterr().out
    names = {p.name for p in plots.iterdir() if not p.name.startswith(".")}
    assert {"tippett.svg", "det.svg", "pav.svg", "ape.svg"} <= names
    assert "out-of-fold log10 LR" in (plots / "pav.svg").read_text()


@pytest.mark.parametrize("extra, flag", [
    (["--calibrate", "gaussian", "--prior", "0.1"], "--prior"),
    (["--calibrate", "gaussian", "--log-base", "10"], "--log-base"),
    (["--compare", "gaussian,logistic", "--plots", "P"], "--plots"),
    (["--folds", "3"], "--folds"),
    (["--fold-seed", "3"], "--folds"),
    (["--title", "x"], "--title"),
    (["--calibrate", "gaussian", "--criteria", "c.toml"], "--criteria"),
    (["--report", "R", "--json"], "--json"),
])
def test_options_that_would_be_ignored_are_refused(extra, flag, tmp_path, capsys):
    argv = ["validate", "--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert flag in err and "would be ignored" in err


def test_outside_interval_mark():
    assert outside_interval(0.5, 0.1, 0.9) == ""
    assert outside_interval(0.1, 0.1, 0.9) == ""
    assert outside_interval(0.05, 0.1, 0.9) == OUTSIDE_MARK
    assert outside_interval(1.0, 0.1, 0.9) == OUTSIDE_MARK
    assert outside_interval(None, 0.1, 0.9) == ""
    assert outside_interval(float("nan"), 0.1, 0.9) == ""


def test_print_ci_flags_an_estimate_outside_its_interval(capsys):
    from forensic_lr.cli.compare import print_ci

    record = {"level": 0.95, "interval": "bc", "by": "trial", "n": 100, "seed": 1,
              "intervals": {"cllr": {"estimate": 0.30, "low": 0.31, "high": 0.40},
                            "eer": {"estimate": 0.10, "low": 0.05, "high": 0.20}},
              "note": "", "warnings": []}
    print_ci(record)
    lines = capsys.readouterr().out.splitlines()
    assert OUTSIDE_MARK in next(ln for ln in lines if ln.startswith("Cllr"))
    assert OUTSIDE_MARK not in next(ln for ln in lines if ln.startswith("equal error"))
