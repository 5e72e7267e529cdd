"""Results in a notebook: a short repr, a small HTML table and to_frame() of the result
objects the API returns (evaluate_evidence, evaluate_llrs, run_validation_study, run_case,
load_scores). The numbers shown are checked against the object's fields and against values
computed here independently (ML Gaussian densities by scipy, Cllr by its definition,
misleading-evidence rates by counting, score statistics by numpy)."""

from __future__ import annotations

import builtins
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import forensic_lr as flr
from forensic_lr.display import HTML_ROWS, TEXT_ROWS, Table, short_number
from forensic_lr.errors import ForensicLRError
from tests.conftest import gaussian_background

NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$|^-?inf$|^nan$")


def _cells(text: str, first: str) -> list[str]:
    """The cells of the repr line whose first cell is ``first``."""
    for line in text.splitlines():
        cells = line.split()
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no line starting with {first!r} in\n{text}")


def _shown(cell: str, value) -> None:
    """A shown cell holds ``value`` to 4 significant figures (None as '-')."""
    if value is None:
        assert cell == "-"
    elif isinstance(value, bool):
        assert cell == ("yes" if value else "no")
    elif isinstance(value, float) and not math.isfinite(value):
        assert cell == str(value)
    else:
        assert NUMBER.match(cell), cell
        assert float(cell) == pytest.approx(value, rel=5e-4, abs=1e-12)


def test_short_number_by_hand():
    assert short_number(0.16811155469594827) == "0.1681"
    assert short_number(281.838293) == "281.8"
    assert short_number(1234567.0) == "1.235e+06"
    assert short_number(float("inf")) == "inf"
    assert short_number(float("-inf")) == "-inf"
    assert short_number(float("nan")) == "nan"
    assert short_number(None) == "-"
    assert short_number(True) == "yes"
    assert short_number(300) == "300"


def test_llr_metrics_shown_against_their_definitions():
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(1.5, 1.0, 300), rng.normal(-1.5, 1.0, 1000)
    m = flr.evaluate_llrs(ss, ds)
    text = repr(m)
    assert len(text.splitlines()) <= 13 and "array" not in text
    assert "300 same-source and 1000 different-source" in text.splitlines()[0]
    for name in ("cllr", "min_cllr", "cllr_cal", "eer", "auc", "rmep", "rmed", "devpav",
                 "llr_overestimation"):
        _shown(_cells(text, name)[1], getattr(m, name))
    frame = m.to_frame()
    assert list(frame.index) == ["cllr", "min_cllr", "cllr_cal", "eer", "auc", "rmep",
                                 "rmed", "devpav", "llr_overestimation"]
    # independent values: Cllr by its definition (bits), the rates by counting
    cllr = 0.5 * (np.mean(np.logaddexp(0, -ss)) + np.mean(np.logaddexp(0, ds))) / np.log(2)
    assert frame.loc["cllr", "value"] == pytest.approx(cllr, rel=1e-12)
    assert frame.loc["rmep", "value"] == np.count_nonzero(ss < 0) / 300
    assert frame.loc["rmed", "value"] == np.count_nonzero(ds > 0) / 1000
    assert frame.loc["cllr", "unit"] == "bits"
    html = m._repr_html_()
    assert html.count("<tr>") == 1 + 9 and f"<td style='text-align:right'>{m.cllr:.4g}</td>" in html
    assert str(m) == text


def test_evidence_evaluation_shown_against_scipy_gaussians():
    ss, ds = gaussian_background(seed=2)
    scores = [-1.0, 1.25, 2.5, 4.0]
    ev = flr.evaluate_evidence(ss, ds, scores, "gaussian", elub=False, interval="none")
    lr = norm.pdf(scores, ss.mean(), ss.std()) / norm.pdf(scores, ds.mean(), ds.std())
    frame = ev.to_frame()
    assert list(frame.index) == scores
    np.testing.assert_allclose(frame["lr"], lr, rtol=1e-9)
    np.testing.assert_allclose(frame["log10_lr"], np.log10(lr), rtol=1e-9)
    assert frame["log10_low"].isna().all() and not frame["bounded"].any()
    text = repr(ev)
    assert text.splitlines()[0].startswith("Evidence evaluation: gaussian")
    assert "not applied" in text.splitlines()[0] and "no interval" in text.splitlines()[0]
    for score, value in zip(scores, lr, strict=True):
        cells = _cells(text, short_number(score))
        _shown(cells[1], value)
        _shown(cells[2], math.log10(value))
        assert cells[3:5] == ["-", "-"]


def test_evidence_interval_and_elub_shown_from_the_fields():
    ss, ds = gaussian_background(seed=4)
    ev = flr.evaluate_evidence(ss, ds, [0.5, 9.0], "logistic", n=100)
    text = repr(ev)
    m = ev.method
    assert (f"ELUB log10 LR [{m.elub_log10_lr_low:+.2f}, {m.elub_log10_lr_high:+.2f}] applied"
            in text.splitlines()[0])
    assert "bootstrap 95% interval" in text.splitlines()[0]
    for r in ev.results:
        cells = _cells(text, short_number(r.score))
        _shown(cells[3], r.interval.log10_lr_low)
        _shown(cells[4], r.interval.log10_lr_high)
        _shown(cells[5], r.bounded)
        _shown(cells[6], r.extrapolated)
    # the extrapolated score's warning is shown, cut to one short line
    assert any(line.startswith("  warning: score 9") and len(line) < 130
               for line in text.splitlines())


def test_many_rows_are_cut_in_text_and_html_but_not_in_the_frame():
    ss, ds = gaussian_background(seed=1)
    scores = np.linspace(-2, 4, 45)
    ev = flr.evaluate_evidence(ss, ds, scores, "gaussian", elub=False, interval="none")
    lines = repr(ev).splitlines()
    assert lines[2 + TEXT_ROWS].strip().startswith(f"... {45 - TEXT_ROWS} more rows")
    assert all(line.startswith("  warning") or line.startswith("  ...")
               for line in lines[3 + TEXT_ROWS:])
    html = ev._repr_html_()
    assert html.count("<tr>") == 1 + HTML_ROWS and f"{45 - HTML_ROWS} more rows" in html
    assert len(ev.to_frame()) == 45


def test_validation_study_shows_every_methods_metrics():
    ss, ds = gaussian_background(seed=3)
    study = flr.run_validation_study(ss, ds, methods=["logistic", "pav"], folds=3,
                                     criteria={"cllr_max": 0.9})
    text = repr(study)
    assert "repr" not in text and "StudyMethod" not in text
    first = text.splitlines()[0]
    assert "60 same-source and 200 different-source" in first and "3 folds by trial" in first
    assert f"best method {study.best_method}" in first
    keys = ("cllr", "min_cllr", "cllr_cal", "eer", "rmep", "rmed")
    frame = study.to_frame()
    for method in study.methods:
        cells = _cells(text, method.method)
        for cell, key in zip(cells[1:], keys, strict=False):
            _shown(cell, method.metrics[key])
        _shown(cells[-1], method.all_criteria_met)
        assert frame.loc[method.method, "cllr"] == method.metrics["cllr"]
        # the Cllr shown is that of the method's out-of-fold LLRs, by the definition
        ss_cv, ds_cv = study.arrays.llrs[method.method]
        cllr = 0.5 * (np.mean(np.logaddexp(0, -ss_cv)) + np.mean(np.logaddexp(0, ds_cv)))
        _shown(cells[1], cllr / np.log(2))
    assert "<caption" in study._repr_html_() and "StudyMethod" not in study._repr_html_()


def test_case_result_shows_lr_and_conclusion(tmp_path, small_case):
    case = small_case(tmp_path / "c", 'id = "DISPLAY-1"')
    result = flr.run_case(flr.load_case(case))
    text = repr(result)
    first = text.splitlines()[0]
    assert first.startswith("Case DISPLAY-1, report DISPLAY-1-R1: logistic")
    assert f"conclusion {result.conclusion.status}" in first
    r = result.results[0]
    cells = _cells(text, r.label)
    _shown(cells[1], r.score)
    _shown(cells[2], r.lr)
    _shown(cells[3], r.log10_lr)
    assert " ".join(cells[6:]) == r.verbal.level
    assert math.isclose(r.lr, 10 ** r.log10_lr, rel_tol=1e-9)
    _shown(re.search(r"Cllr (\S+) bits", text).group(1), result.validation.metrics["cllr"])
    assert result.to_frame().loc[r.label, "verbal"] == r.verbal.level


def test_score_set_never_prints_its_scores(tmp_path):
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(2, 1, 40), rng.normal(0, 1, 1000)
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    data = flr.load_scores(ss=str(tmp_path / "ss.csv"), ds=str(tmp_path / "ds.csv"))
    text = repr(data)
    # title, header, two rows, two files
    assert len(text.splitlines()) == 1 + 1 + 2 + 2 and "array" not in text
    for label, values in (("ss", ss), ("ds", ds)):
        cells = _cells(text, label)
        assert cells[1] == str(values.size)
        for cell, value in zip(cells[2:6], (values.min(), values.mean(), values.std(),
                                            values.max()), strict=True):
            _shown(cell, value)
        assert cells[6] == "-"
    frame = data.to_frame()
    assert frame.loc["ds", "mean"] == pytest.approx(ds.mean(), rel=1e-12)
    assert frame.loc["ss", "n"] == 40


def test_sources_counted():
    frame = flr.load_scores(
        pd.DataFrame({"label": ["ss", "ss", "ds", "ds", "ds"], "score": [1.0, 2, -1, 0, -2],
                      "source_a": ["a", "b", "a", "a", "b"],
                      "source_b": ["a", "b", "b", "c", "c"]})).to_frame()
    assert frame.loc["ss", "sources"] == 2 and frame.loc["ds", "sources"] == 3


def test_html_escapes_text():
    table = Table(title="<b>x</b>", columns=("a&b", "v"), rows=(("<i>", 1.0),),
                  notes=("1 < 2",))
    html = table.html()
    assert "<b>" not in html and "<i>" not in html and "&lt;b&gt;" in html
    assert "a&amp;b" in html and "1 &lt; 2" in html


def test_to_frame_without_pandas_says_what_to_do(monkeypatch):
    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    m = flr.evaluate_llrs([1.0, 2.0], [-1.0, -2.0])
    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ForensicLRError, match=r"needs pandas.*pip install pandas"):
        m.to_frame()
    assert "cllr" in repr(m)   # repr and HTML need no pandas
    assert "<table>" in m._repr_html_()


def _cllr_bits(ss, ds) -> float:
    """Cllr by its definition (bits), written here."""
    return 0.5 * (np.mean(np.logaddexp(0, -ss)) + np.mean(np.logaddexp(0, ds))) / np.log(2)


def test_bootstrap_metric_intervals_shown():
    rng = np.random.default_rng(11)
    ss, ds = rng.normal(1.5, 1.0, 120), rng.normal(-1.5, 1.0, 300)
    b = flr.bootstrap_metrics(ss, ds, n=100)
    text = repr(b)
    assert "100 of 100 replicates by trial" in text.splitlines()[0]
    for i in b.intervals:
        cells = _cells(text, i.metric)
        _shown(cells[1], i.estimate)
        _shown(cells[2], i.low)
        _shown(cells[3], i.high)
    assert b.to_frame().loc["cllr", "estimate"] == pytest.approx(_cllr_bits(ss, ds), rel=1e-12)


def test_paired_comparison_shows_both_systems_and_no_replicates():
    rng = np.random.default_rng(12)
    ss, ds = rng.normal(1.5, 1.0, 120), rng.normal(-1.5, 1.0, 300)
    c = flr.compare_systems(ss, ds, 0.5 * ss, 0.5 * ds, n=100, names=("new", "old"))
    text = repr(c)
    assert "array" not in text and len(text.splitlines()) < 15
    assert _cells(text, "metric")[1:3] == ["new", "old"]
    frame = c.to_frame()
    assert frame.loc["cllr", "new"] == pytest.approx(_cllr_bits(ss, ds), rel=1e-12)
    assert frame.loc["cllr", "old"] == pytest.approx(_cllr_bits(0.5 * ss, 0.5 * ds), rel=1e-12)
    cells = _cells(text, "cllr")
    _shown(cells[3], c.metrics_a["cllr"] - c.metrics_b["cllr"])
    _shown(cells[4], c.cllr_diff.low)
    _shown(cells[5], c.cllr_diff.high)
    _shown(_cells(text, "auc")[4], c.delong.low)
    assert c.verdict in text


def test_lr_interval_shown_in_log10():
    ss, ds = gaussian_background(seed=6)
    iv = flr.bootstrap_interval(ss, ds, [0.5, 2.5], "gaussian", n=100)
    text = repr(iv)
    assert "array" not in text and "bootstrap, 95%, n = 100" in text.splitlines()[0]
    for k in (1, 2):
        cells = _cells(text, str(k))
        _shown(cells[1], iv.llr_low[k - 1] / np.log(10))
        _shown(cells[2], iv.llr_high[k - 1] / np.log(10))


def test_calibration_checks_shown():
    from forensic_lr.calibration import calibration_checks

    rng = np.random.default_rng(13)
    ss, ds = rng.normal(2.0, 2.0, 200), rng.normal(-2.0, 2.0, 400)
    checks = calibration_checks(ss, ds)
    frame = checks.to_frame()
    r = checks.recalibration
    assert tuple(frame.loc["recalibration slope", ["value", "low", "high"]]) == (
        r.slope, *r.slope_interval)
    assert frame.loc["recalibration offset", "value"] == r.offset
    # the Gaussian check's ratios, computed here: sample variance / (2 |mean|) per class
    for label, x in (("same source", ss), ("different source", ds)):
        assert frame.loc[f"variance / (2 |mean|), {label}", "value"] == pytest.approx(
            x.var(ddof=1) / (2 * abs(x.mean())), rel=1e-12)
    text = repr(checks)
    assert "Recalibration(" not in text
    _shown(text.splitlines()[2].split()[2], r.slope)
