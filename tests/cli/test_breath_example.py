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


# ---------------------------------------------------------------- the case: one driver's reading
SOURCE_WORDS = {  # each language's words for the source classes (the default wording)
    "en": r"same.source|different.source|same source|different source",
    "de": r"gleiche[nr]? (Quelle|Herkunft)|derselben Quelle|verschiedene[nr]? (Quellen|Herkunft)",
    "es": r"misma fuente|distinta fuente|distintas fuentes",
    "fr": r"même source|sources différentes",
    "nl": r"dezelfde bron|verschillende bronnen",
    "sv": r"samma källa|olika källor",
}
LABEL_QUOTES = {"en": "“{}”", "de": "„{}“", "es": "«{}»", "fr": "« {} »", "nl": "“{}”",
                "sv": "”{}”"}


def _text(html_text: str) -> str:
    """The words of an HTML report (styles and figures as text too: their legends count)."""
    import html
    import re

    body = re.sub(r"<style.*?</style>", " ", html_text, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def _case_llr_by_hand() -> float:
    """The natural-log LR of the case's reading under prior-weighted logistic regression
    (Brümmer and du Preez 2006), fitted here by scipy's Nelder-Mead simplex on the mean
    cross-entropy of each class weighted equally: a different algorithm from the package's
    Newton iterations, from the raw readings file."""
    from scipy.optimize import minimize

    rows = [line.split(",") for line in
            (FOLDER / "readings.csv").read_text(encoding="utf-8").splitlines()[1:]]
    reading = np.array([float(r[3]) for r in rows])
    hp = np.array([r[1] == "hp" for r in rows])
    x = (reading - 240.0) / 50.0  # well-conditioned for the simplex

    def cost(theta):
        z = theta[0] + theta[1] * x
        return (np.mean(np.logaddexp(0, -z[hp])) + np.mean(np.logaddexp(0, z[~hp])))

    fit = minimize(cost, [0.0, 1.0], method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000})
    a, b = fit.x
    return a + b * (236.0 - 240.0) / 50.0


def test_the_case_reports_the_reading_for_above_and_below_the_limit(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(FOLDER / "case.toml"), "--out", str(out),
                 "--format", "html,json"]) == 0
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert result["propositions"]["classes"] == "propositions"
    assert result["method"]["calibrator"] == "logistic"
    (evidence,) = result["results"]
    assert evidence["llr"] == pytest.approx(_case_llr_by_hand(), abs=1e-6)
    assert evidence["log10_lr"] == pytest.approx(0.95188, abs=1e-4)  # LR 9.0
    text = _text((out / "report.html").read_text(encoding="utf-8"))
    import re

    assert not re.search(SOURCE_WORDS["en"], text, re.IGNORECASE)
    # nor "comparisons" of the background (a reference's title aside)
    assert not re.search(r"(?i)\bcomparisons?\b", text.replace(
        "A comparison of linear and non-linear", ""))
    for svg in (out / "figures").glob("*.svg"):
        assert not re.search(SOURCE_WORDS["en"], svg.read_text(encoding="utf-8")), svg.name
    readme = " ".join((FOLDER / "README.md").read_text(encoding="utf-8").split())
    assert "LR = 9.0 (log10 LR = +0.95)" in readme  # the README's numbers are this run's
    assert f"Cllr is {result['validation']['metrics']['cllr']:.3f} bits" in readme
    low, high = (evidence["interval"][k] for k in ("log10_lr_low", "log10_lr_high"))
    assert f"log10 LR {low:+.2f} to {high:+.2f}" in readme
    for words in ("“above the limit” (Hp true)", "“at or below the limit” (Hd true)",
                  "428 trials with Hp true (“above the limit”) and 772 with Hd true "
                  "(“at or below the limit”)"):
        assert " ".join(words.split()) in " ".join(text.split()), words


@pytest.mark.parametrize("language", ["de", "es", "fr", "nl", "sv"])
def test_the_case_report_has_no_source_words_in_any_language(tmp_path, language):
    import re

    out = tmp_path / "out"
    assert main(["run", str(FOLDER / "case.toml"), "--out", str(out), "--format", "html",
                 "--language", language]) == 0
    text = " ".join(_text((out / "report.html").read_text(encoding="utf-8")).split())
    from forensic_lr.i18n import translations

    for default in ("same source (Hp true)",  # the words are those the default prints
                    "%(ss)s same-source and %(ds)s different-source comparisons"):
        assert re.search(SOURCE_WORDS[language], translations(language, "report").gettext(
            default), re.IGNORECASE)
    assert not re.search(SOURCE_WORDS[language], text, re.IGNORECASE)
    assert not re.search(SOURCE_WORDS["en"], text, re.IGNORECASE)
    assert LABEL_QUOTES[language].format("above the limit") in text
    assert LABEL_QUOTES[language].format("at or below the limit") in text


@pytest.mark.parametrize("language", ["en", "fr"])
def test_validation_report_for_propositions_has_no_source_words(tmp_path, monkeypatch,
                                                                capsys, language):
    """validate --classes propositions: the terminal summary, the study record, the study
    report and its figures name the trials by the propositions (no same-source words)."""
    import re

    monkeypatch.chdir(FOLDER)
    out = tmp_path / "study"
    assert main(["validate", "--scores", "readings.csv", "--column", "reading",
                 "--calibrate", "logistic", "--classes", "propositions",
                 "--hp-class", "above the limit", "--hd-class", "at or below the limit",
                 "--report", str(out), "--language", language]) == 0
    study = json.loads((out / "validation.json").read_text(encoding="utf-8"))
    assert (study["classes"], study["hp_class"], study["hd_class"]) == (
        "propositions", "above the limit", "at or below the limit")
    assert study["command_options"]["classes"] == "propositions"
    text = " ".join(_text((out / "validation_report.html").read_text(
        encoding="utf-8")).split())
    assert not re.search(SOURCE_WORDS[language], text, re.IGNORECASE)
    assert not re.search(SOURCE_WORDS["en"], text, re.IGNORECASE)
    assert LABEL_QUOTES[language].format("above the limit") in text
    if language == "en":  # the study's texts speak of trials, not comparisons
        assert not re.search(r"(?i)\bcomparisons?\b", text.replace(
            "Method comparison", ""))
    assert main(["validate", "--scores", "outcomes.csv", "--column", "log10_lr",
                 "--log-base", "10", "--classes", "propositions", "--hp-class", "above",
                 "--hd-class", "below"]) == 0
    summary = capsys.readouterr().out
    assert "trials with Hp true               100" in summary
    assert "trials with Hd true              1000" in summary
    assert not re.search(SOURCE_WORDS["en"], summary)


def test_validation_study_of_sources_keeps_its_record_keys(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(FOLDER)
    out = tmp_path / "study"
    assert main(["validate", "--scores", "outcomes.csv", "--column", "log10_lr",
                 "--log-base", "10", "--calibrate", "none", "--report", str(out)]) == 0
    study = json.loads((out / "validation.json").read_text(encoding="utf-8"))
    assert not {"classes", "hp_class", "hd_class"} & set(study)
    assert "classes" not in study["command_options"]


@pytest.mark.parametrize(("options", "words"), [
    (["--classes", "propositions", "--hp-class", "above"], ["--hd-class", "required"]),
    (["--hd-class", "below"], ["--hd-class", "--classes propositions"]),
])
def test_validate_class_options_are_checked(monkeypatch, capsys, options, words):
    monkeypatch.chdir(FOLDER)
    assert main(["validate", "--scores", "outcomes.csv", "--column", "log10_lr",
                 "--log-base", "10", *options]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for word in words:
        assert word in err
