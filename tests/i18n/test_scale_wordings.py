"""Verbal scales in each report language: every shipped scale worded in every language,
the English placeholders kept, and no transposed conditional (a proposition's probability)
in any wording."""

from __future__ import annotations

import json
import re
import string

import pytest

from forensic_lr.casework.verbal import (
    in_language,
    level_in,
    list_scales,
    load_scale,
    statement_in,
    verbal_equivalent,
)
from forensic_lr.errors import InputError
from forensic_lr.i18n import SOURCE_LANGUAGE, SUPPORTED_LANGUAGES

OTHER = [lang for lang in SUPPORTED_LANGUAGES if lang != SOURCE_LANGUAGE]

#: Phrasings that state a proposition's probability (the transposed conditional), per
#: language; a scale's wording says what support the findings give, never these.
TRANSPOSED = {
    "en": [r"\bprobab\w*\b.*\b(that|of) (the )?(first|alternative|suspect|hp|hd)",
           r"\bhp is (more )?(likely|probable)", r"\blikely that\b", r"\bprobably\b"],
    "es": [r"\bprobable que\b", r"\bprobabilidad de que\b", r"\bprobablemente\b",
           r"\bes (más )?probable\b"],
    "de": [r"\bwahrscheinlich(er)?,? dass\b", r"\bWahrscheinlichkeit,? dass\b",
           r"\bist (eher |sehr )?wahrscheinlich\b", r"\bvermutlich\b"],
    "fr": [r"\bprobable que\b", r"\bprobabilité que\b", r"\bprobablement\b",
           r"\best (plus )?probable\b"],
    "nl": [r"\bwaarschijnlijk dat\b", r"\bkans dat\b", r"\bis (meer )?waarschijnlijk\b",
           r"\bvermoedelijk\b"],
    "sv": [r"\bsannolikt att\b", r"\bsannolikheten (för )?att\b", r"\btroligt att\b",
           r"\btroligen\b"],
}


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


@pytest.mark.parametrize("key", sorted(list_scales()))
@pytest.mark.parametrize("language", OTHER)
def test_every_scale_worded_in_every_language(key, language):
    english = load_scale(key)
    worded = in_language(english, language)
    assert worded.language == language
    assert [b.lower for b in worded.bands] == [b.lower for b in english.bands]
    assert all(b.level and b.level not in english.source_levels for b in worded.bands)
    for name in ("statement_hp", "statement_hd", "neutral"):
        assert _fields(getattr(worded, name)) == _fields(getattr(english, name))
        assert getattr(worded, name) != getattr(english, name)
    # the name and citation of the published scale stay as written
    assert (worded.name, worded.citation) == (english.name, english.citation)
    source = dict(english.wordings)[language].source
    assert "project's own translation" in source or "original" in source


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_no_transposed_conditional(language):
    texts = []
    for key in list_scales():
        s = in_language(load_scale(key), language)
        w = dict(s.wordings).get(language)
        texts += [s.statement_hp, s.statement_hd, s.neutral, *(b.level for b in s.bands)]
        if w:
            texts += [w.neutral_level, w.limited, w.no_equivalent, w.no_equivalent_level]
    for text in texts:
        for pattern in TRANSPOSED[language]:
            assert not re.search(pattern, text, re.IGNORECASE), (language, text)


def test_forbidden_phrasings_are_caught():
    """The lists recognise a transposed sentence in each language (checked on hand-made
    wrong sentences)."""
    wrong = {"en": "It is likely that the suspect is the speaker.",
             "es": "Es probable que el sospechoso sea el hablante.",
             "de": "Es ist wahrscheinlich, dass der Verdächtige der Sprecher ist.",
             "fr": "Il est probable que le suspect soit le locuteur.",
             "nl": "Het is waarschijnlijk dat de verdachte de spreker is.",
             "sv": "Det är sannolikt att den misstänkte är talaren."}
    for language, text in wrong.items():
        assert any(re.search(p, text, re.IGNORECASE) for p in TRANSPOSED[language])


# hand-written expectations: the band of an LR of 10^3.5 (strong support on the ENFSI
# scale, 1,000 to 10,000) and of 1/10^1.5 (moderate support for Hd)
EXPECTED = {
    ("enfsi", "es", 3.5): "Los hallazgos proporcionan apoyo fuerte a la primera proposición "
                          "(Hp) frente a la alternativa (Hd).",
    ("enfsi", "de", -1.5): "Die Befunde bieten mäßige Unterstützung für die alternative "
                           "Hypothese (Hd) gegenüber der ersten (Hp).",
    ("nfc", "sv", 3.5): "Resultaten talar för den första hypotesen (Hp) jämfört med den "
                        "alternativa (Hd) (NFC-nivå +2).",
    ("nfc", "sv", 4.0): "Resultaten talar starkt för den första hypotesen (Hp) jämfört med "
                        "den alternativa (Hd) (NFC-nivå +3).",
    ("nfc", "sv", 0.5): "Resultaten talar varken för eller emot den första hypotesen (Hp) "
                        "jämfört med den alternativa (Hd) (NFC-nivå 0).",
    ("enfsi", "fr", 0.1): "Le LR est compris entre 1 et 2 (ou entre 1/2 et 1), un domaine "
                          "pour lequel cette échelle ne donne pas d'équivalent verbal ; seul "
                          "le nombre est rapporté.",
}


@pytest.mark.parametrize(("key", "language", "log10_lr"), sorted(EXPECTED))
def test_statement_in_language(key, language, log10_lr):
    scale = load_scale(key)
    verbal = verbal_equivalent(log10_lr, scale)
    assert statement_in(verbal, in_language(scale, language)) == EXPECTED[key, language,
                                                                          log10_lr]


def test_levels_and_english_unchanged():
    scale = load_scale("enfsi")
    verbal = verbal_equivalent(2.5, scale)
    assert level_in(verbal.level, in_language(scale, "nl")) == "matig sterke steun"
    assert level_in("no verbal equivalent", in_language(scale, "es")) == "sin equivalente verbal"
    assert in_language(scale, "en") is scale
    assert statement_in(verbal, scale) == verbal.statement
    assert level_in(verbal.level, scale) == verbal.level


def _lab_scale(tmp_path, languages=None):
    table = {"name": "Lab scale", "citation": "Lab manual 2024", "neutral": "No support.",
             "statement_hp": "The findings give {level} for Hp.",
             "statement_hd": "The findings give {level} for Hd.",
             "bands": [{"lower": 10, "level": "support"}, {"lower": 1000, "level": "strong"}]}
    if languages is not None:
        table["languages"] = languages
    path = tmp_path / "lab.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return path


def _es(**change):
    wording = {"source": "laboratory's own translation", "levels": ["apoyo", "apoyo fuerte"],
               "statement_hp": "Los hallazgos dan {level} a Hp.",
               "statement_hd": "Los hallazgos dan {level} a Hd.", "neutral": "Sin apoyo.",
               "neutral_level": "sin apoyo", "limited": "apoyo limitado",
               "no_equivalent": "Entre 1 y {edge}: solo el número.",
               "no_equivalent_level": "sin equivalente verbal"}
    return {"es": {**wording, **change}}


def test_lab_scale_gives_its_own_wording(tmp_path):
    scale = load_scale(_lab_scale(tmp_path, _es()))
    verbal = verbal_equivalent(3.2, scale)
    assert statement_in(verbal, in_language(scale, "es")) == "Los hallazgos dan apoyo fuerte a Hp."
    with pytest.raises(InputError, match=r"no wording in 'de'.*languages\.de"):
        in_language(scale, "de")
    with pytest.raises(InputError, match=r"no wording in 'es'"):
        in_language(load_scale(_lab_scale(tmp_path)), "es")


@pytest.mark.parametrize(("change", "message"), [
    ({"statement_hp": "Los hallazgos dan apoyo a Hp."}, r"statement_hp must keep .*'level'"),
    ({"levels": ["apoyo"]}, r"levels must list 2"),
    ({"no_equivalent": "solo el número"}, r"no_equivalent must contain \{edge\}"),
    ({"source": None}, r"source must be a non-empty text|exactly the keys"),
])
def test_lab_scale_wording_checked(tmp_path, change, message):
    with pytest.raises(InputError, match=message):
        load_scale(_lab_scale(tmp_path, _es(**change)))


@pytest.mark.parametrize("language", ["es", "de"])
def test_voice_report_worded_in_the_language(language):
    """The voice case (LR about 2,400 after ELUB: moderately strong support, ENFSI) prints
    its verbal equivalent, its table level and the scale's bands in the report's language;
    result.json keeps the English level and statement."""
    from forensic_lr._resources import examples_dir
    from forensic_lr.casework.pipeline import run_case_full
    from forensic_lr.casework.spec import load_case
    from forensic_lr.report import build_report

    spec = load_case(examples_dir() / "voice" / "case.toml",
                     overrides={"report": {"language": language}})
    files = build_report(run_case_full(spec), formats=("html", "json"))
    html = " ".join(files["report.html"].decode("utf-8").split())
    result = json.loads(files["result.json"])
    verbal = result["results"][0]["verbal"]
    assert verbal["level"] == "moderately strong support"
    assert verbal["statement"].startswith("The findings provide moderately strong support")
    expected = {
        "es": ("Los hallazgos proporcionan apoyo moderadamente fuerte a la primera "
               "proposición (Hp) frente a la alternativa (Hd)", "apoyo moderadamente fuerte"),
        "de": ("Die Befunde bieten mäßig starke Unterstützung für die erste Hypothese (Hp) "
               "gegenüber der alternativen (Hd)", "mäßig starke Unterstützung"),
    }[language]
    assert expected[0] in html
    assert html.count(expected[1]) >= 3  # statement, comparison table, scale's bands
    assert "The findings provide" not in html


@pytest.mark.parametrize("language", OTHER)
def test_report_conclusion_sentences_not_transposed(language):
    """Every conclusion sentence of the report catalogue (the findings' probability under
    each proposition) carries a back-translation, keeps the first proposition before the
    second, and contains no transposed phrasing, in the translation or its back-translation."""
    from babel.messages.pofile import read_po

    from forensic_lr.i18n import catalogue_path

    path = catalogue_path(language, "report")
    if not path.is_file():
        pytest.skip(f"no report catalogue for {language}")
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    conclusions = [m for m in catalog if m.id and isinstance(m.id, str)
                   and re.search(r"(more|equally) probable if", m.id)]
    assert conclusions
    for m in conclusions:
        back = " ".join(m.user_comments)
        assert "back-translation" in back, (language, m.id[:60])
        text = " ".join(m.string.split())
        for first, second in (("%(first)s", "%(second)s"), ("%(hp)s", "%(hd)s")):
            if first in m.id:
                assert text.index(first) < text.index(second), (language, text)
        for pattern in TRANSPOSED[language]:
            assert not re.search(pattern, text, re.IGNORECASE), (language, text)
        for pattern in TRANSPOSED["en"]:
            assert not re.search(pattern, back, re.IGNORECASE), (language, back)
