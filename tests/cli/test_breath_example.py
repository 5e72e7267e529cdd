"""The breath-analyser example: its data are the published counts and the committed
generator's output, and the numbers its README prints are checked against hand computations
and against the values the lir package's tests assert for the same data."""

from __future__ import annotations

import importlib.util
import json
import math

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.calibration.elub import elub_bounds_log10
from forensic_lr.calibration.invariance import iv_bounds_log10
from forensic_lr.cli import main
from forensic_lr.io.scores import load_scores

FOLDER = examples_dir() / "breath-analyser"


def _generate_module():
    spec = importlib.util.spec_from_file_location("generate", examples_dir() / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generator_writes_the_committed_files_byte_for_byte(tmp_path):
    _generate_module().breath_analyser(tmp_path)
    for name in ("outcomes.csv", "readings.csv"):
        assert (tmp_path / name).read_bytes() == (FOLDER / name).read_bytes(), name


def test_outcomes_are_the_published_counts():
    """Vergeer et al. 2016: 1,000 Hd tests with 10 positive, 100 Hp tests with 90 positive;
    LR 1,000 reported for a positive result, 0.101 for a negative one."""
    rows = [line.split(",") for line in
            (FOLDER / "outcomes.csv").read_text(encoding="utf-8").splitlines()[1:]]
    counts = {}
    for label, result, log10_lr in rows:
        counts[label, result] = counts.get((label, result), 0) + 1
        assert float(log10_lr) == pytest.approx(math.log10(1000 if result == "positive"
                                                           else 0.101), abs=5e-13)
    assert counts == {("hd", "positive"): 10, ("hd", "negative"): 990,
                      ("hp", "positive"): 90, ("hp", "negative"): 10}


def _cllr_by_hand(lr_pos: float, lr_neg: float) -> float:
    """Cllr of the two-output analyser: 90 Hp positive, 10 Hp negative, 10 Hd positive,
    990 Hd negative (Brümmer and du Preez 2006's definition, written out)."""
    hp = (90 * math.log2(1 + 1 / lr_pos) + 10 * math.log2(1 + 1 / lr_neg)) / 100
    hd = (10 * math.log2(1 + lr_pos) + 990 * math.log2(1 + lr_neg)) / 1000
    return 0.5 * (hp + hd)


def test_readme_numbers_of_the_outcomes(capsys, monkeypatch):
    monkeypatch.chdir(FOLDER)
    assert main(["validate", "--scores", "outcomes.csv", "--column", "log10_lr",
                 "--log-base", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cllr = _cllr_by_hand(1000.0, 0.101)
    min_cllr = _cllr_by_hand(0.9 / 0.01, 0.1 / 0.99)  # the relative frequencies (PAV)
    assert out["cllr"] == pytest.approx(cllr, abs=1e-12)
    assert out["min_cllr"] == pytest.approx(min_cllr, abs=1e-12)
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    for value in (cllr, min_cllr, cllr - min_cllr):
        assert f"{value:.4f}" in readme


def test_bounds_equal_the_values_lir_asserts_for_the_same_data():
    """lir 1.8's tests (tests/algorithms/test_bayeserror.py and test_invariance_bounds.py)
    assert ELUB LR (0.1122018, 79.4328235) and IV LR (0.1052741, 85.3731634) for this data."""
    tests = load_scores(scores=FOLDER / "outcomes.csv", score_column="log10_lr")
    ss, ds = tests.ss * np.log(10), tests.ds * np.log(10)
    np.testing.assert_allclose(np.power(10, elub_bounds_log10(ss, ds)),
                               [0.1122018, 79.4328235], rtol=1e-6)
    np.testing.assert_allclose(np.power(10, iv_bounds_log10(ss, ds)),
                               [0.1052741, 85.3731634], rtol=1e-6)


def test_readme_numbers_of_the_readings(capsys, monkeypatch):
    monkeypatch.chdir(FOLDER)
    assert main(["validate", "--scores", "readings.csv", "--column", "log10_lr",
                 "--log-base", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    for key in ("cllr", "min_cllr", "cllr_cal", "llr_overestimation"):
        assert f"{out[key]:.4f}" in readme, key
    text = (FOLDER / "readings.csv").read_text(encoding="utf-8").splitlines()
    rows = [line.split(",") for line in text[1:]]
    blood = np.array([float(r[2]) for r in rows])
    reading = np.array([float(r[3]) for r in rows])
    claimed = np.array([float(r[4]) for r in rows])
    assert [r[1] for r in rows] == ["hp" if b > 0.5 else "hd" for b in blood]
    np.testing.assert_allclose(claimed, (reading - 217.0) / 12.0, atol=5e-5)
    ss, ds = claimed[blood > 0.5] * np.log(10), claimed[blood <= 0.5] * np.log(10)
    low, high = elub_bounds_log10(ss, ds)
    assert f"log10 LR {low:.2f} to +{high:.2f}".replace("-", "−") in readme


def test_readme_numbers_of_the_recalibrated_readings(capsys, monkeypatch):
    monkeypatch.chdir(FOLDER)
    assert main(["validate", "--scores", "readings.csv", "--column", "reading",
                 "--calibrate", "logistic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = (f"logistic {out['n_ss']:>11} {out['n_ds']:>9} {out['cllr']:>9.4f} "
           f"{out['min_cllr']:>9.4f} {out['cllr_cal']:>9.4g}")
    assert row in (FOLDER / "README.md").read_text(encoding="utf-8")
