"""``forensic-lr multiclass`` end to end, and the wiring of the other study commands."""

import json

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.cli import main
from forensic_lr.studies.multiclass import (
    ExpectationConsistentTemperature,
    calibration_metrics,
)

CASE = examples_dir() / "multiclass-logits"


def test_multiclass_json_matches_the_library(capsys, tmp_path):
    args = [
        "multiclass", "--val-logits", str(CASE / "val_logits.csv"),
        "--val-labels", str(CASE / "val_labels.csv"),
        "--test-logits", str(CASE / "test_logits.csv"),
        "--test-labels", str(CASE / "test_labels.csv"),
        "--method", "ec", "--json", "--plots", str(tmp_path / "plots"),
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    val = np.loadtxt(CASE / "val_logits.csv", delimiter=",", skiprows=1)
    val_y = np.loadtxt(CASE / "val_labels.csv", skiprows=1, dtype=int)
    test = np.loadtxt(CASE / "test_logits.csv", delimiter=",", skiprows=1)
    test_y = np.loadtxt(CASE / "test_labels.csv", skiprows=1, dtype=int)
    t = ExpectationConsistentTemperature().fit(val, val_y).temperature_
    assert out["temperature"] == pytest.approx(t)
    expected = calibration_metrics(test, test_y, temperature=t)
    assert out["after"]["ece"] == pytest.approx(expected.ece)
    assert set(out["before"]) == {
        "accuracy", "nll", "ece", "mce", "brier", "reliability", "resolution", "uncertainty"
    }
    # the worked example's claim: ECE cut several-fold, accuracy unchanged
    assert out["after"]["ece"] < out["before"]["ece"] / 3
    assert out["after"]["accuracy"] == out["before"]["accuracy"]
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        ".forensic-lr-output.json", "reliability_after.svg", "reliability_before.svg"
    ]


def test_multiclass_bad_input_exits_2(capsys, tmp_path):
    bad = tmp_path / "labels.csv"
    bad.write_text("0\n1\n7\n")
    logits = tmp_path / "logits.csv"
    logits.write_text("1,2\n3,4\n5,6\n")
    code = main(["multiclass", "--val-logits", str(logits), "--val-labels", str(bad)])
    assert code == 2
    err = capsys.readouterr().err
    assert "labels.csv" in err and "outside 0..1" in err and "Traceback" not in err


def test_study_commands_are_wired(capsys):
    for command in (["fusion", "worst-case", "--help"], ["label-noise", "--help"]):
        with pytest.raises(SystemExit) as info:
            main(command)
        assert info.value.code == 0
    capsys.readouterr()
    counts = examples_dir() / "fusion-worst-case" / "counts.json"
    assert main(["fusion", "worst-case", "--counts", str(counts), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["input"]["model"] == {"tp": 255, "fn": 45, "fp": 60, "tn": 440}
    # the worst-case method by hand: system counts (1000 per class) rescaled to the
    # model's 300 / 500:
    # FN(S*->p) = 60 * .3 = 18; TP(S*->p) - TP(S*->n) = (940 - 780) * .3 = 48;
    # worst FN = 18 + min(45, 48) = 63. FP(S*->n) = 40 * .5 = 20;
    # TN(S*->n) - TN(S*->p) = (960 - 790) * .5 = 85; worst FP = 20 + min(60, 85) = 80.
    assert (out["worst_fn"], out["worst_fp"]) == (63, 80)
