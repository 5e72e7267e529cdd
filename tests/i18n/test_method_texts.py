"""The calibration methods' titles, summaries, models in words, validation notes and
limitations are catalogue entries: printed in the report's language, kept in English in
result.json and validation.json."""

from __future__ import annotations

import json
import re

import pytest

from forensic_lr.calibration import CALIBRATORS
from forensic_lr.i18n import SOURCE_LANGUAGE, SUPPORTED_LANGUAGES, translations

TRANSLATED = [lang for lang in SUPPORTED_LANGUAGES if lang != SOURCE_LANGUAGE]


def _texts(cls) -> list[str]:
    """Every text of a method a report prints in words (the equation only where it has
    words: pure notation such as "ln LR(s) = a + b s" is printed as written)."""
    d = cls.describe()
    texts = [d.title, d.summary, *cls().limitations()]
    if d.validation:
        texts.append(d.validation)
    if re.search(r"[a-z]{5,}", d.equation.replace("block", "")):
        texts.append(d.equation)
    return texts


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_every_method_text_is_translated(name, language):
    gettext = translations(language, "report").gettext
    for text in _texts(CALIBRATORS[name]):
        assert gettext(text) != text, (name, language, text[:60])
        # a formula or option name in the text is kept in the translation
        for kept in re.findall(r"equal_variance = true|log\(N_ds \+ 1\)|-log\(N_ss \+ 1\)|"
                               r"a \+ b s|LR\(s\) =|Cllr|MAP|S-cal", text):
            assert kept in gettext(text), (name, language, kept)


@pytest.fixture(scope="module")
def voice_german():
    from forensic_lr._resources import examples_dir
    from forensic_lr.casework.pipeline import run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.report import build_report

    spec = load_case(examples_dir() / "voice" / "case.toml",
                     overrides={"report": {"language": "de"}})
    run = run_case_full(spec)
    files = build_report(run, formats=("html", "json"))
    return run, files["report.html"].decode("utf-8"), json.loads(files["result.json"])


def test_case_report_prints_the_method_in_german(voice_german):
    run, html, result = voice_german
    d = result["method"]["description"]
    # hand-typed: the German title of the voice case's method (Bayesian calibration)
    assert run.result.method.calibrator == "bayes"
    german = "Bayessche Kalibrierung (Normalmodell mit unbekanntem Mittelwert und " \
             "unbekannter Varianz)"
    text = " ".join(html.split())
    assert german in text
    assert d["title"] not in text and d["summary"] not in text
    # result.json keeps the English texts
    assert d["title"] == CALIBRATORS["bayes"].title
    # the other methods of the sensitivity analysis (annex C) in German as well
    kde = CALIBRATORS["kde"].describe()
    assert "Kerndichte-Kalibrierung" in text and kde.summary not in text


def test_page_numbers_in_german(voice_german):
    """The PDF's page numbers (a CSS margin box) in German; report.css keeps English's."""
    _, html, _ = voice_german
    assert 'content: "Seite " counter(page) " von " counter(pages) ""' in html


@pytest.fixture(scope="module")
def study_with_notes():
    """A small study with bootstrap intervals, its record given the two warnings the
    bootstrap can raise (left-out replicates; a percentile interval kept)."""
    import numpy as np

    from forensic_lr.validation import run_validation_study
    from forensic_lr.validation.replicates import invalid_warning, percentile_kept

    rng = np.random.default_rng(5)
    study = run_validation_study(rng.normal(1.5, 1.0, 60), rng.normal(-1.0, 1.0, 120),
                                 methods=("logistic", "pav"), folds=3, seed=1,
                                 metric_intervals={"n": 200, "seed": 2})
    with pytest.warns(Warning):
        left = invalid_warning(190, 200)
    warnings = left + percentile_kept(["Cllr_cal"], [0])
    intervals = {**study.intervals, "n_valid": 190, "percentile": ["cllr_cal"],
                 "warnings": list(warnings)}
    return study.model_copy(update={"intervals": intervals}), warnings


def _report(study, language):
    from forensic_lr.report.validation import build_validation_report

    files = build_validation_report(study, formats=("html",), language=language)
    return " ".join(files["validation_report.html"].decode("utf-8").split())


def test_validation_notes_in_english_are_the_records(study_with_notes):
    """English prints each warning of the record, as the record writes it."""
    study, warnings = study_with_notes
    html = _report(study, "en")
    for text in warnings:
        assert f"Note: {' '.join(text.split())}." in html
    assert study.intervals["note"] in html  # the resampling note, as recorded


def test_validation_notes_in_german(study_with_notes):
    study, warnings = study_with_notes
    html = _report(study, "de")
    # hand-typed German of the two notes and of the trial-resampling note
    assert ("Hinweis: 10 von 200 Bootstrap-Replikaten zogen keinen Vergleich einer Klasse "
            "und wurden ausgelassen") in html
    assert "Hinweis: Cllr_cal: Der Schätzwert liegt jenseits fast aller" in html
    assert "Die Vergleiche wurden innerhalb jeder Klasse unabhängig neu gezogen." in html
    for text in (*warnings, study.intervals["note"]):
        assert " ".join(text.split())[:40] not in html


@pytest.mark.parametrize("language", TRANSLATED)
def test_two_level_model_texts_are_translated(language):
    """A case from measurements: the two-level model's title, summary and typicality
    statement (page 1) in every language."""
    from forensic_lr.features.comparisons import FeatureModel

    gettext = translations(language, "report").gettext
    for between in ("normal", "kde"):
        model = FeatureModel(kind="two_level", between=between)
        for text in (model.describe()["title"], model.describe()["summary"],
                     model.typicality_statement()):
            assert gettext(text) != text, (language, text[:50])
            assert "Aitken" not in text or "Aitken" in gettext(text)
    similarity = FeatureModel(kind="score", score="euclidean").typicality_statement()
    assert gettext(similarity) != similarity


def test_score_model_texts_in_english_as_before():
    """The score functions' model texts, whole catalogue texts now, read as the former
    composition wrote them (typed here by hand for one function)."""
    from forensic_lr.features.comparisons import FeatureModel

    d = FeatureModel(kind="score", score="manhattan").describe()
    assert d["title"] == "Manhattan (city-block) distance of the mean feature values"
    assert d["summary"] == (
        "The comparison score is the Manhattan (city-block) distance between the questioned "
        "and control items' mean measurements, sum_k |x_k - y_k|; the calibration method "
        "turns it into an LR using the same-source and different-source comparisons of the "
        "population database.")


@pytest.mark.parametrize("language", TRANSLATED)
def test_score_model_and_fusion_texts_are_translated(language):
    """Every score function's model title and summary (cases from measurements with
    ``model = "score"``) and the fusion method's title and summary, in every language,
    each formula kept as written."""
    from forensic_lr.calibration.fusion import LogisticFusion
    from forensic_lr.features.comparisons import FeatureModel
    from forensic_lr.features.scores import SCORE_FUNCTIONS

    gettext = translations(language, "report").gettext
    for score, (_, formula) in SCORE_FUNCTIONS.items():
        d = FeatureModel(kind="score", score=score).describe()
        for text in (d["title"], d["summary"]):
            assert gettext(text) != text, (language, score, text[:50])
        assert formula in gettext(d["summary"]), (language, score)
    fusion = LogisticFusion.describe()
    for text in (fusion.title, fusion.summary):
        assert gettext(text) != text, (language, text[:50])
    assert all(kept in gettext(fusion.summary) for kept in ("a + b1 s1 + b2 s2 + ...", "Cllr"))


@pytest.fixture(scope="module")
def measured_and_fused(tmp_path_factory):
    """The glass-measurements case with a score function (the standardised distance) and the
    voice-fusion case, each run once (in English)."""
    import shutil
    import warnings

    from forensic_lr._resources import examples_dir
    from forensic_lr.casework.pipeline import run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.errors import ForensicLRWarning

    folder = tmp_path_factory.mktemp("glass")
    shutil.copytree(examples_dir() / "glass-measurements", folder, dirs_exist_ok=True)
    case = folder / "case.toml"
    text = re.sub(r'model = "two_level".*\nbetween = .*\n', 'model = "score"\nscore = '
                  '"standardised"\n', case.read_text(encoding="utf-8"))
    case.write_text(text, encoding="utf-8")
    specs = [load_case(case, overrides={"uncertainty": {"method": "none"}}),
             load_case(examples_dir() / "voice-fusion" / "case.toml",
                       overrides={"uncertainty": {"method": "none"}})]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return [run_case_full(spec) for spec in specs]


#: hand-typed: the start of the standardised distance's model title and the fusion title
TYPED = {
    "es": ("Distancia estandarizada (de Mahalanobis) de los valores medios",
           "Fusión por regresión logística"),
    "de": ("Standardisierte (Mahalanobis-)Distanz der mittleren Merkmalswerte",
           "Fusion mit logistischer Regression"),
    "fr": ("Distance standardisée (de Mahalanobis) des valeurs moyennes",
           "Fusion par régression logistique"),
    "nl": ("Gestandaardiseerde (mahalanobis)afstand van de gemiddelde kenmerkwaarden",
           "Fusie met logistische regressie"),
    "sv": ("Standardiserat (Mahalanobis-)avstånd mellan medelvärdena av särdragen",
           "Fusion med logistisk regression"),
}


@pytest.mark.parametrize("language", TRANSLATED)
def test_measurement_and_fusion_reports_print_their_method_in_the_language(
        language, measured_and_fused):
    """The reports of both cases in each language: no English text of the measurement
    model or the fusion (title, summary, typicality) left; their English stays in
    result.json."""
    import dataclasses
    import html as html_module

    from forensic_lr.report import build_report

    measured, fused = measured_and_fused
    english = [measured.result.measurements.title, measured.result.measurements.summary,
               measured.result.measurements.typicality_statement,
               fused.result.fusion.title, fused.result.fusion.summary]
    assert english[3] == "Logistic-regression fusion"
    printed = ""
    for run in measured_and_fused:
        spec = run.spec.model_copy(update={
            "report": run.spec.report.model_copy(update={"language": language})})
        files = build_report(dataclasses.replace(run, spec=spec), formats=("html", "json"))
        printed += " ".join(html_module.unescape(files["report.html"].decode()).split())
        kept = json.loads(files["result.json"])
        assert (kept["measurements"] or kept["fusion"])["title"] in english  # English kept
    left = [t for t in english if " ".join(t.split()) in printed]
    assert not left, f"{language}: English method text left: {[t[:40] for t in left]}"
    assert all(typed in printed for typed in TYPED[language])
