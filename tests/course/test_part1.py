"""Course part 1: the textbook example gives LR 2.33 by command and by code.

Independent values: the closed form LR = 0.35 / 0.15 (the densities read off the slides'
figure) and scipy.stats.norm's density for the exercise answers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from forensic_lr.casework.textbook import textbook_background, textbook_lr, write_textbook_data

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "docs" / "course"


def test_closed_form():
    assert textbook_lr() == pytest.approx(7 / 3, rel=1e-15)


def test_background_ml_fits_have_the_slides_densities():
    ss, ds, evidence = textbook_background()
    assert norm.pdf(evidence, ss.mean(), ss.std()) == pytest.approx(0.35, rel=1e-12)
    assert norm.pdf(evidence, ds.mean(), ds.std()) == pytest.approx(0.15, rel=1e-12)


def test_committed_data_equals_the_script_output(tmp_path, fresh_python):
    done = fresh_python(str(COURSE / "make_figures.py"), str(tmp_path), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for name in ("textbook-ss.txt", "textbook-ds.txt"):
        assert (tmp_path / "data" / name).read_bytes() == (COURSE / "data" / name).read_bytes()


def test_lr_2_33_by_command(fresh_python):
    out = fresh_python(
        "-m", "forensic_lr", "calibrate",
        "--ss", "docs/course/data/textbook-ss.txt", "--ds", "docs/course/data/textbook-ds.txt",
        "--method", "gaussian", "--score", "5.96", "--no-elub", "--interval", "none", "--json",
        cwd=ROOT)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["params"] == pytest.approx({"equal_variance": False, "mean_ds": 4.561299566253582,
                                           "mean_ss": 5.448368118088786, "sd_ds": 1.0,
                                           "sd_ss": 1.0}, rel=1e-12)
    assert doc["results"][0]["lr"] == pytest.approx(0.35 / 0.15, rel=1e-9)
    assert "LR = 2.3 " in fresh_python(
        "-m", "forensic_lr", "calibrate",
        "--ss", "docs/course/data/textbook-ss.txt",
        "--ds", "docs/course/data/textbook-ds.txt", "--method", "gaussian", "--score", "5.96",
        "--no-elub", "--interval", "none", cwd=ROOT).stdout


def test_lr_2_33_by_code(tmp_path):
    from forensic_lr.calibration import GaussianCalibrator

    ss_path, ds_path = write_textbook_data(tmp_path)
    ss = np.loadtxt(ss_path)
    ds = np.loadtxt(ds_path)
    lr = math.exp(GaussianCalibrator().fit(ss, ds).llr(np.array([5.96]))[0])
    assert lr == pytest.approx(0.35 / 0.15, rel=1e-9)


def test_exercise_answers():
    ss, ds, _ = textbook_background()
    lr4 = norm.pdf(4.0, ss.mean(), 1) / norm.pdf(4.0, ds.mean(), 1)
    page = (COURSE / "1-bayes-to-lr.md").read_text(encoding="utf-8")
    assert f"LR = {lr4:.2f}" in page
    assert f"{norm.pdf(4.0, ds.mean(), 1):.4f}" in page
    assert f"10 / 2.33 = {10 / textbook_lr():.1f}" in page

