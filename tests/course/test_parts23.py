"""Course parts 2 and 3: the figures regenerate byte for byte, and the worked answers.

Independent values: Cllr by its definition (Brümmer and du Preez 2006) written here with
numpy, ``0.5 (mean log2(1 + 1/LR_ss) + mean log2(1 + LR_ds))``; min Cllr by scikit-learn's
IsotonicRegression (the PAV transform) with the LLR of the posterior at the data's prior;
misleading-evidence counts by counting.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "docs" / "course"
sys.path.insert(0, str(COURSE))
from make_figures import course_llrs  # noqa: E402


def _cllr(ss_llr, ds_llr) -> float:
    return 0.5 * (np.mean(np.logaddexp(0, -ss_llr)) + np.mean(np.logaddexp(0, ds_llr))) / np.log(2)


def _min_cllr(ss_llr, ds_llr) -> float:
    from sklearn.isotonic import IsotonicRegression

    x = np.concatenate([ss_llr, ds_llr])
    y = np.concatenate([np.ones(ss_llr.size), np.zeros(ds_llr.size)])
    p = np.clip(IsotonicRegression().fit_transform(x, y), 0, 1)
    with np.errstate(divide="ignore"):
        post = np.log(p) - np.log1p(-p) - np.log(ss_llr.size / ds_llr.size)
    return _cllr(post[: ss_llr.size], post[ss_llr.size:])


def test_every_file_the_script_writes_equals_the_committed_one(tmp_path, fresh_python):
    done = fresh_python(str(COURSE / "make_figures.py"), str(tmp_path), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (COURSE / rel).read_bytes(), rel


def test_every_linked_figure_and_data_file_exists():
    for page in COURSE.glob("*.md"):
        for target in re.findall(r"\]\(((?:figures|data)/[^)]+)\)", page.read_text("utf-8")):
            assert (COURSE / target).exists(), (page.name, target)


@pytest.fixture(scope="module")
def llrs():
    return course_llrs()


def test_part2_answers(llrs):
    ss, ds = llrs
    page = (COURSE / "2-calibration.md").read_text("utf-8")
    c1, m1 = _cllr(ss, ds), _min_cllr(ss, ds)
    c3, c_3 = _cllr(3 * ss, 3 * ds), _cllr(ss / 3, ds / 3)
    assert f"Cllr {c1:.3f}, min Cllr {m1:.3f}, loss {c1 - m1:.3f}" in page
    assert f"over-confident: Cllr {c3:.3f},\n   loss {c3 - m1:.3f}" in page
    assert f"under-confident: Cllr {c_3:.3f}, loss {c_3 - m1:.3f}" in page
    raw_ss = np.loadtxt(COURSE / "data" / "scores-ss.txt")
    raw_ds = np.loadtxt(COURSE / "data" / "scores-ds.txt")
    assert f"Cllr {_cllr(raw_ss, raw_ds):.3f} for the raw score" in page


def test_part3_answers(llrs):
    ss, ds = llrs
    page = (COURSE / "3-validation.md").read_text("utf-8")
    assert f"RMEP {np.mean(ss < 0):.2f} ({(ss < 0).sum()} of {ss.size}" in page
    assert f"RMED {np.mean(ds > 0):.2f} ({(ds > 0).sum()} of {ds.size})" in page
    c, m = _cllr(ss, ds), _min_cllr(ss, ds)
    assert f"Cllr {c:.3f} = discrimination loss {m:.3f} + calibration loss {c - m:.3f}" in page


def test_part2_small_background_and_extrapolation_numbers():
    from scipy.stats import norm

    ss = np.loadtxt(COURSE / "data" / "scores-ss.txt")
    ds = np.loadtxt(COURSE / "data" / "scores-ds.txt")
    page = (COURSE / "2-calibration.md").read_text("utf-8")

    def lr(x, n):  # two Gaussians by maximum likelihood (ddof 0), as part 1
        return norm.pdf(x, ss[:n].mean(), ss[:n].std()) / norm.pdf(x, ds[:n].mean(), ds[:n].std())

    assert f"gives LR {lr(1.5, 10):.1f} instead of {lr(1.5, 200):.0f}" in page
    mantissa, exponent = f"{lr(6.0, 200):.1e}".split("e+")
    assert f"{mantissa} x 10^{int(exponent)} from two Gaussians" in page
    assert f"largest same-source score {ss.max():.2f}" in page


def test_calibrator_study_table_and_figure_are_the_scripts(tmp_path, fresh_python):
    done = fresh_python(str(COURSE / "calibrator_study.py"), str(tmp_path), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.strip() in (COURSE / "guide-calibrators.md").read_text("utf-8")
    rel = Path("figures") / "calibrator-study.svg"
    assert (tmp_path / rel).read_bytes() == (COURSE / rel).read_bytes()


def test_calibrator_study_true_llr_is_the_closed_form():
    from calibrator_study import SHAPES, true_llr

    x = np.linspace(-5, 5, 41)
    # equal variances 1, means 2 and -1: LLR = (2 - (-1)) (x - 0.5)
    assert true_llr(x, SHAPES["equal variances"]) == pytest.approx(3 * (x - 0.5), abs=1e-12)


def test_elub_numbers_of_the_guides(llrs):
    from forensic_lr.calibration import elub_bounds

    ss, ds = llrs
    lo, hi = (v / np.log(10) for v in elub_bounds(ss, ds))
    assert -np.log10(ss.size + 1) < lo and hi < np.log10(ds.size + 1)  # the documented limits
    text = f"the bounds are {lo:.2f} and {hi:.2f}"
    assert text in (COURSE / "guide-background-size.md").read_text("utf-8")
    assert f"[{lo:.2f}, {hi:.2f}] in log10" in (COURSE / "2-calibration.md").read_text("utf-8")
