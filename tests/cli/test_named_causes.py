"""Inputs that used to end in a traceback (or a quiet wrong value) end in exit 2 and a
message naming the cause: extreme background magnitudes, separated classes in the
recalibration check, an LR that is not a number, huge fusion counts, format specs in a
verbal scale, uninformative logits and temperature bounds the command line can set."""

from __future__ import annotations

import json

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.calibration.checks import recalibration
from forensic_lr.casework.verbal import load_scale
from forensic_lr.cli import main
from forensic_lr.errors import ConvergenceError, InputError
from forensic_lr.studies.fusion.model import check_confusion
from forensic_lr.studies.multiclass import METHODS

VOICE = examples_dir() / "voice"
LOGITS = examples_dir() / "multiclass-logits"


def _files(tmp_path, ss, ds):
    paths = tmp_path / "ss.csv", tmp_path / "ds.csv"
    for path, values in zip(paths, (ss, ds), strict=True):
        path.write_text("\n".join(repr(float(v)) for v in values) + "\n")
    return ["--ss", str(paths[0]), "--ds", str(paths[1])]


def _exit_2(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "np.float64" not in err
    return err


@pytest.mark.parametrize("method", ["logistic", "scal", "gaussian"])
def test_background_outlier_of_1e300_is_named(tmp_path, capsys, method):
    rng = np.random.default_rng(0)
    files = _files(tmp_path, np.r_[rng.normal(3, 1, 50), 1e300], rng.normal(0, 1, 200))
    err = _exit_2(capsys, ["calibrate", *files, "--method", method, "--score", "1",
                           "--interval", "none"])
    assert "the ss scores include 1e+300" in err and "beyond" in err


@pytest.mark.parametrize("method", ["logistic", "scal"])
def test_all_denormal_background_is_named(tmp_path, capsys, method):
    rng = np.random.default_rng(0)
    files = _files(tmp_path, rng.uniform(1, 2, 50) * 1e-310, rng.uniform(0, 1, 50) * 1e-310)
    err = _exit_2(capsys, ["calibrate", *files, "--method", method, "--score", "1e-310",
                           "--interval", "none"])
    assert "smaller than 1e-100" in err and "rescale" in err


@pytest.mark.parametrize("method", ["kde", "gaussian"])
def test_classes_100_sd_apart_validate_without_traceback(tmp_path, capsys, method):
    rng = np.random.default_rng(0)
    files = _files(tmp_path, rng.normal(100, 1, 50), rng.normal(0, 1, 200))
    assert main(["validate", *files, "--calibrate", method, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cllr"] == pytest.approx(0, abs=1e-6)


def test_recalibration_of_separated_llrs_names_the_cause():
    with pytest.raises(ConvergenceError, match="perfectly separated"):
        recalibration([3000.0, 3100.0, 3200.0], [-3000.0, -3100.0, -2900.0])


@pytest.mark.parametrize("method", ["gaussian", "kde"])
def test_evidence_score_without_a_finite_lr_is_named(capsys, method):
    err = _exit_2(capsys, ["calibrate", "--ss", str(VOICE / "ss.csv"), "--ds",
                           str(VOICE / "ds.csv"), "--method", method, "--score", "1e300",
                           "--interval", "none"])
    assert "evidence score 1e+300" in err and "gives no LR" in err and "nan" not in err


def test_fusion_counts_of_1e30_are_named(tmp_path, capsys):
    model = {"tp": 10, "fn": 5, "fp": 3, "tn": 40}
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps({"system_pos": {**model, "tp": 10**30},
                                  "system_neg": model, "model": model}))
    err = _exit_2(capsys, ["fusion", "worst-case", "--counts", str(counts)])
    assert "system_pos.tp" in err and "2^53" in err
    with pytest.raises(InputError, match="2\\^53"):
        check_confusion({**model, "tn": 1e30})


@pytest.mark.parametrize("statement", ["{level:>999999999}", "{level!r}", "{level", "{level:}x}"])
def test_verbal_scale_statement_with_a_format_spec_is_refused(tmp_path, statement):
    scales = json.loads((examples_dir().parent / "forensic_lr" / "data" /
                         "verbal_scales.json").read_text(encoding="utf-8"))
    scale = scales["scales"]["enfsi"]
    path = tmp_path / "lab.json"
    path.write_text(json.dumps({**scale, "statement_hp": f"the findings give {statement}"}))
    with pytest.raises(InputError, match="statement_hp"):
        load_scale(path)


def test_uninformative_logits_are_refused(tmp_path, capsys):
    z = np.zeros((30, 3))
    y = np.arange(30) % 3
    for cls in METHODS.values():
        with pytest.raises(InputError, match="equal values"):
            cls().fit(z, y)
    logits, labels = tmp_path / "z.csv", tmp_path / "y.csv"
    np.savetxt(logits, z, delimiter=",")
    np.savetxt(labels, y, fmt="%d")
    err = _exit_2(capsys, ["multiclass", "--val-logits", str(logits), "--val-labels",
                           str(labels)])
    assert "equal values" in err


def test_temperature_hints_name_options_the_command_line_has(capsys):
    argv = ["multiclass", "--val-logits", str(LOGITS / "val_logits.csv"),
            "--val-labels", str(LOGITS / "val_labels.csv"), "--method", "ts"]
    err = _exit_2(capsys, [*argv, "--t-min", "0.9", "--t-max", "0.95"])
    assert "--t-min" in err
    assert main([*argv, "--t-min", "0.05", "--t-max", "50", "--json"]) == 0
    wide = json.loads(capsys.readouterr().out)["temperature"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["temperature"] == pytest.approx(wide)
    err = _exit_2(capsys, [*argv, "--t-min", "-1"])
    assert "--t-min" in err
