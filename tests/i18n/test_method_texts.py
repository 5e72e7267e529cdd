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
