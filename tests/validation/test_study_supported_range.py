"""A validation study states the range of LRs its data support: the ELUB (Vergeer et al.
2016) and invariance-verification (Alberink et al. 2025) bounds of the validated LLRs, on
every face of ``forensic-lr validate`` (table, --json, --csv, the study report), checked
against the brute-force definitions written in the tests and a set computed by hand; a
study from a case file states the bounds of that case's report."""

from __future__ import annotations

import csv
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.io.scores import load_scores
from forensic_lr.records import SupportedRange
from forensic_lr.validation import run_validation_study, supported_range
from tests.calibration.test_elub import brute_elub
from tests.calibration.test_invariance import _brute_iv
from tests.casework.test_bounds_rule import _run, _write_case

LN10 = math.log(10.0)
VOICE = Path(__file__).resolve().parents[2] / "case_examples" / "voice"
VOICE_ARGS = ["validate", "--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv")]

#: A set small enough to bound by hand (log10 LRs): same source [1, 2], different source
#: [-1, -2]. ELUB: for 0 <= t < 1 no trial is misleading at t, so with one misleading LR
#: added on each side the system's cost is (1 + 10^t) / 3 against the neutral 1: worse from
#: t > log10 2 = 0.30103, first on the grid at 0.31, so the upper bound is 0.30; the lower
#: bound is -0.30 by symmetry. IV: for -1 < t <= 1, P(LR >= t | Hp) = 2.5/3 and
#: P(LR >= t | Hd) = 0.5/3, so delta_high = log10 5 - t turns negative first at t = 0.699
#: (thresholds -2 + k/1000): the upper bound is 0.698; likewise delta_low = t + log10 5 is
#: negative last at -0.699, so the lower bound is -0.698.
HAND_SS, HAND_DS = [1.0, 2.0], [-1.0, -2.0]
HAND_ELUB, HAND_IV = (-0.30, 0.30), (-0.698, 0.698)


def _independent(ss_llr, ds_llr):
    """ELUB and IV bounds by the brute-force definitions of the tests (not the package's)."""
    ss_llr, ds_llr = np.asarray(ss_llr, float), np.asarray(ds_llr, float)
    return brute_elub(ss_llr, ds_llr), _brute_iv(ss_llr / LN10, ds_llr / LN10)


def _close(pair, expected, atol=1e-9):
    assert pair is not None
    np.testing.assert_allclose(pair, expected, atol=atol, rtol=0)


def test_the_hand_computed_set():
    ss, ds = np.array(HAND_SS) * LN10, np.array(HAND_DS) * LN10
    assert _independent(ss, ds)[0] == HAND_ELUB
    _close(_independent(ss, ds)[1], HAND_IV)
    r = supported_range(ss, ds, "as given")
    assert r.llrs == "as given"
    _close(r.elub_log10, HAND_ELUB, 1e-12)
    _close(r.iv_log10, HAND_IV)


def test_validate_llrs_as_given_by_hand(tmp_path, capsys):
    """validate of LLRs (with and without --calibrate none): JSON, CSV and the table."""
    rows = ["label,score", *(f"ss,{v}" for v in HAND_SS), *(f"ds,{v}" for v in HAND_DS)]
    (tmp_path / "s.csv").write_text("\n".join(rows) + "\n")
    base = ["validate", "--scores", str(tmp_path / "s.csv"), "--log-base", "10"]
    for extra in ([], ["--calibrate", "none"]):
        assert main([*base, *extra, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        got = out["supported_range"]
        assert got["llrs"] == "as given"
        _close(got["elub_log10"], HAND_ELUB, 1e-12)
        _close(got["iv_log10"], HAND_IV)
        assert main([*base, *extra]) == 0
        text = capsys.readouterr().out
        assert "range of LRs these data support (log10 LR, from the LRs as given)" in text
        name = "none" if extra else "input"
        assert f"{name:<10}     -0.30     +0.30     -0.70     +0.70" in text
    out_csv = tmp_path / "m.csv"
    assert main([*base, "--csv", str(out_csv)]) == 0
    capsys.readouterr()
    (row,) = csv.DictReader(out_csv.open())
    _close([float(row["elub_log10_low"]), float(row["elub_log10_high"])], HAND_ELUB, 1e-12)
    _close([float(row["iv_log10_low"]), float(row["iv_log10_high"])], HAND_IV)


@pytest.fixture(scope="module")
def voice_study():
    """The voice example's study of three methods, and its cross-validated LLRs."""
    data = load_scores(ss=str(VOICE / "ss.csv"), ds=str(VOICE / "ds.csv"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_validation_study(data.ss, data.ds, methods=("gaussian", "logistic", "pav"),
                                    seed=20261122)


def test_voice_study_against_brute_force(voice_study):
    for row in voice_study.methods:
        elub, iv = _independent(*voice_study.arrays.llrs[row.method])
        assert row.supported_range.llrs == "cross-validated"
        _close(row.supported_range.elub_log10, elub, 1e-12)
        _close(row.supported_range.iv_log10, iv)
        # ELUB is also the study's bound of the default rule, recorded before
        assert row.bounds_rule == "elub" and tuple(row.elub_log10) == tuple(elub)


def test_voice_json_csv_and_table_against_brute_force(voice_study, tmp_path, capsys):
    args = [*VOICE_ARGS, "--compare", "gaussian,logistic,pav"]
    assert main([*args, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    out_csv = tmp_path / "m.csv"
    assert main([*args, "--csv", str(out_csv)]) == 0
    table = capsys.readouterr().out
    lines = list(csv.DictReader(out_csv.open()))
    header = out_csv.read_text().splitlines()[0].split(",")
    # the metric columns as before, the bounds after them
    assert header[:3] == ["system", "n_ss", "n_ds"]
    assert header[-5:] == ["llr_overestimation", "elub_log10_low", "elub_log10_high",
                           "iv_log10_low", "iv_log10_high"]
    for row, line in zip(rows, lines, strict=True):
        elub, iv = _independent(*voice_study.arrays.llrs[row["method"]])
        _close(row["supported_range"]["elub_log10"], elub, 1e-12)
        _close(row["supported_range"]["iv_log10"], iv)
        _close([float(line[f"elub_log10_{s}"]) for s in ("low", "high")], elub, 1e-12)
        _close([float(line[f"iv_log10_{s}"]) for s in ("low", "high")], iv)
        cells = [f"{v:+.2f}" for v in (*elub, *iv)]
        assert f"{row['method']:<10}" + "".join(f"{c:>10}" for c in cells) in table
    assert "ELUB, empirical lower and upper bounds (Vergeer et al. 2016)" in table
    assert max(len(line) for line in table.splitlines()[5:]) <= 100  # the new block


def test_words_where_a_bound_is_missing_or_empty(capsys):
    from forensic_lr.cli.validate import _print_ranges

    _print_ranges([("a", SupportedRange(llrs="as given", elub_log10=(0.0, 0.0))),
                   ("b", SupportedRange(llrs="as given", elub_log10=(-1.0, 2.0)))])
    text = capsys.readouterr().out
    assert "a: by ELUB, these data support no LR other than 1" in text
    assert "a: the IV bounds cannot be computed from these LRs" in text
    assert "b: the IV bounds cannot be computed from these LRs" in text
    assert "nan" not in text.lower()


def test_raw_scores_read_as_llrs_support_nothing(capsys):
    """Scores all positive (voice scores as LLRs): RMED 1, no range by either rule."""
    assert main([*VOICE_ARGS, "--calibrate", "none", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["supported_range"]
    assert got["elub_log10"] == [0.0, 0.0] and got["iv_log10"] == [0.0, 0.0]


#: [method] lines of the small case of tests/casework/test_bounds_rule.py (25 sources)
CASE_RULES = {
    "elub": "",
    "iv": 'bounds = "iv"',
    "elub-in-sample": 'elub_from = "in-sample"',
    "iv-in-sample": 'bounds = "iv"\nelub_from = "in-sample"',
    "n-source": 'bounds = "n-source"',
    "fixed": 'bounds = "fixed"\nfixed_bounds = [-1.5, 1.25]',
}


def _in_sample(path):
    """The LLRs the case's gaussian model, fitted on all background scores, gives them."""
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.casework import load_case
    from forensic_lr.casework.pipeline import load_case_data

    data, _ = load_case_data(load_case(path))
    fitted = make_calibrator("gaussian").fit(data.ss, data.ds)
    return fitted.llr(data.ss), fitted.llr(data.ds)


@pytest.mark.parametrize("name", list(CASE_RULES))
def test_a_study_from_a_case_states_the_case_bounds(tmp_path, capsys, name):
    """validate --case: the bound of the case's rule equals the case run's bound (the
    report's) and its independent value (brute force on the run's cross-validated or
    in-sample LLRs, 25 sources counted by hand, the fixed bounds written); the supported
    range is that of the cross-validated LLRs whatever the rule."""
    path = _write_case(tmp_path / name, CASE_RULES[name])
    run = _run(path)
    method = run.result.method
    case_bounds = (method.elub_log10_lr_low, method.elub_log10_lr_high)
    rule = name.removesuffix("-in-sample")
    source = "in-sample" if name.endswith("in-sample") else "cross-validated"
    expected = {"n-source": (-math.log10(25), math.log10(25)), "fixed": (-1.5, 1.25)}.get(rule)
    if expected is None:
        llrs = _in_sample(path) if source == "in-sample" else (run.ss_llr_cv, run.ds_llr_cv)
        expected = _independent(*llrs)[0 if rule == "elub" else 1]
    assert method.bounds_rule == rule
    _close(case_bounds, expected)
    elub, iv = _independent(run.ss_llr_cv, run.ds_llr_cv)
    assert main(["validate", "--case", str(path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert list(got)[-2:] == ["stated_bounds", "supported_range"]  # new keys last
    assert got["stated_bounds"] == {
        "rule": rule, "source": source if rule in ("elub", "iv") else None,
        "log10": list(case_bounds)}
    _close(got["supported_range"]["elub_log10"], elub, 1e-12)
    _close(got["supported_range"]["iv_log10"], iv)
    assert main(["validate", "--case", str(path)]) == 0
    low, high = (f"{v:+.2f}" for v in case_bounds)
    assert f"gaussian: the case report states {low} to {high} (" in capsys.readouterr().out


def test_the_study_report_of_a_case_states_its_bound(tmp_path, capsys):
    path = _write_case(tmp_path / "c", CASE_RULES["iv-in-sample"])
    run = _run(path)
    low, high = (f"{v:+.2f}" for v in (run.result.method.elub_log10_lr_low,
                                        run.result.method.elub_log10_lr_high))
    for language, words in (
        ("en", f"The case file's rule for gaussian, invariance verification of the LRs the "
               f"model fitted on all data gives its own comparisons (in-sample), gives log 10 "
               f"LR between {low} and {high}: the bounds the case report states"),
        ("fr", "La règle du fichier de l'affaire pour gaussian, vérification d'invariance des "
               "LR que le modèle ajusté sur toutes les données donne à ses propres comparaisons "
               f"(dans l'échantillon), donne un log 10 LR entre {low.replace('.', ',')} et "
               f"{high.replace('.', ',')}"),
    ):
        out = tmp_path / language
        assert main(["validate", "--case", str(path), "--report", str(out), "--language",
                     language, "-q"]) == 0
        capsys.readouterr()
        assert words in _report_text(out).replace("\u2212", "-")


def _report_text(folder: Path) -> str:
    import re
    from html import unescape

    html = (folder / "validation_report.html").read_text(encoding="utf-8")
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_study_report_states_the_range(tmp_path, capsys, voice_study, language):
    out = tmp_path / "rep"
    assert main([*VOICE_ARGS, "--compare", "gaussian,logistic,pav", "--report", str(out),
                 "--language", language, "-q"]) == 0
    capsys.readouterr()
    text = _report_text(out)
    record = json.loads((out / "validation.json").read_text())
    for row in record["methods"]:
        elub, iv = _independent(*voice_study.arrays.llrs[row["method"]])
        _close(row["supported_range"]["elub_log10"], elub, 1e-12)
        _close(row["supported_range"]["iv_log10"], iv)
        if language == "en":
            cells = [f"{v:+.2f}" for v in (*elub, *iv)]
            assert (f"{row['method']} {cells[0]} to {cells[1]} {cells[2]} to {cells[3]}"
                    in text.replace("\u2212", "-"))
    if language == "en":
        assert "Range of LRs these data support" in text
        assert "ELUB, empirical lower and upper bounds (Vergeer et al. 2016)" in text
        assert "Invariance verification (Alberink et al. 2025, submitted)" in text
        assert "submitted (2025)" in text
    else:
        assert "Bereich der LRs, den diese Daten stützen" in text
        assert "Invarianzverifikation (Alberink et al. 2025, eingereicht)" in text
        assert "ELUB, empirische untere und obere Grenzen (Vergeer et al. 2016)" in text
        gaussian = record["methods"][0]
        low, high = (f"{v:+.2f}".replace(".", ",")
                     for v in gaussian["supported_range"]["elub_log10"])
        assert f"gaussian {low} bis {high}" in text.replace("\u2212", "-")


def test_the_study_report_says_when_the_data_support_no_range(tmp_path, capsys):
    """Raw voice scores validated as given (all positive: RMED 1): both rules give 0 on both
    sides, which the report says in words, not as numbers."""
    out = tmp_path / "rep"
    assert main([*VOICE_ARGS, "--calibrate", "none", "--report", str(out), "-q"]) == 0
    capsys.readouterr()
    text = _report_text(out)
    assert "The bounds below are computed from the LRs as the system gave them" in text
    assert "none none: no LR other than 1 none: no LR other than 1" in text
    assert "“none”: at no threshold away from LR = 1 do these LRs pass the rule." in text
