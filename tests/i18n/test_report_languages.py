"""The voice worked case rendered in each translated language: the same result.json, every
fixed text of the report translated, numbers and dates as Babel (CLDR) writes them."""

from __future__ import annotations

import html as html_module
import json
import re

import pytest
from babel.dates import format_date
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.i18n import SOURCE_LANGUAGE, SUPPORTED_LANGUAGES, catalogue_path, locale_dir
from forensic_lr.i18n.messages import english as english_text
from forensic_lr.report import build_report

TRANSLATED = [lang for lang in SUPPORTED_LANGUAGES
              if lang != SOURCE_LANGUAGE and catalogue_path(lang, "report").is_file()]


def _run(language: str):
    spec = load_case(examples_dir() / "voice" / "case.toml",
                     overrides={"report": {"language": language}})
    run = run_case_full(spec)
    files = build_report(run, formats=("html", "json"))
    return run, files["report.html"].decode("utf-8"), json.loads(files["result.json"])


@pytest.fixture(scope="module")
def english():
    return _run("en")


def _messages(node):
    """Every record message (``{"code", "params"}``) in a result.json tree."""
    if isinstance(node, dict):
        if set(node) == {"code", "params"}:
            yield node
        else:
            for value in node.values():
                yield from _messages(value)
    elif isinstance(node, list):
        for value in node:
            yield from _messages(value)


def _record_texts(result: dict) -> list[str]:
    """The English texts of result.json that a report prints from codes: each message's
    sentence and the records' whole fields built from them (whitespace made single)."""
    texts = [english_text(m["code"], **m["params"]) for m in _messages(result)]
    for e in result["results"]:
        texts += [e["uncertainty"], (e["interval"] or {}).get("note", "")]
    texts += list((result.get("sensitivity") or {}).get("summary", ()))
    c = result.get("conclusion") or {}
    texts += [c.get("statement", ""), *c.get("range_notes", ()), *c.get("lab_departures", ())]
    texts += [*result.get("warnings", ()), *result.get("draft_reasons", ())]
    return [" ".join(t.split()) for t in texts if t]


def _fragments() -> list[str]:
    """Runs of at least four words of every English text of the report catalogue (between
    placeholders and tags), whitespace made single."""
    with (locale_dir() / "report.pot").open("rb") as handle:
        ids = [m.id for m in read_po(handle) if m.id]
    found = []
    for msgid in ids:
        for text in ([msgid] if isinstance(msgid, str) else msgid):
            for piece in re.split(r"%\(\w+\)[sd]|<[^>]+>|&\w+;|%%", text):
                piece = " ".join(piece.split()).strip(" ,.;:()")
                if len(piece.split()) >= 4:
                    found.append(piece)
    return found


#: the Cllr criterion row of the voice case's annex E, typed by hand from the catalogues'
#: words for the criterion and the metric
ANNEX_E_TYPED = {
    "es": "criterio de validación: Cllr (bits) como máximo",
    "de": "Validierungskriterium: Cllr (Bit) höchstens",
    "fr": "critère de validation : Cllr (bits) au plus",
    "nl": "validatiecriterium: Cllr (bits) ten hoogste",
    "sv": "valideringskriterium: Cllr (bitar) högst",
}


def _annex_e_cells(html: str) -> list[str]:
    """The table cells of annex E (the last table of the report), as printed: tags
    removed, whitespace made single."""
    table = html[html.rindex("<table"):]
    table = table[:table.index("</table>")]
    return [" ".join(re.sub(r"<[^>]+>", "", html_module.unescape(cell)).split())
            for cell in re.findall(r"<td>(.*?)</td>", table, re.S)]


@pytest.mark.parametrize("language", TRANSLATED)
def test_same_result_and_no_english_left(language, english):
    _, english_html, english_json = english
    run, html, result = _run(language)
    # the same result.json except the recorded language
    assert result["provenance"]["configuration"]["report"]["language"] == language
    result["provenance"]["configuration"]["report"]["language"] = "en"
    assert result == english_json
    assert f'<html lang="{language}">' in html
    text = " ".join(html.split())
    # the records' own prose (conclusion notes, warnings, sensitivity summaries) is the
    # "messages" catalogue's, not this one's: a fragment it also holds is not counted here
    records = " ".join(json.dumps(english_json, ensure_ascii=False).split())
    left = [f for f in _fragments() if f in text and f not in records]
    assert not left, f"{language}: English left in the report: {left[:5]}"
    # nor any English sentence of the records' coded prose (uncertainty statement, interval
    # note, sensitivity summary, conclusion, warnings ...), in full or message by message
    printed = " ".join(html_module.unescape(html).split())
    coded = [t for t in _record_texts(english_json) if len(t.split()) >= 4]
    assert coded, "the voice case prints coded record prose"
    assert "LR limited to 280" in " ".join(html_module.unescape(english_html).split())
    left = [t for t in coded if t in printed]
    assert not left, f"{language}: English record prose left in the report: {left[:3]}"
    # annex E: every setting's name, where it came from, a criterion row and what a
    # keyword value means, in the language; the keyword itself stays as the case file has it
    english_cells, cells = _annex_e_cells(english_html), _annex_e_cells(html)
    prose = [c for c in english_cells if " " in c]
    assert len(prose) >= 20 and "validation criterion: Cllr (bits) at most" in prose
    left = [c for c in prose if c in cells]
    assert not left, f"{language}: annex E left in English: {left[:3]}"
    assert ANNEX_E_TYPED[language] in cells
    assert "(bayes)" in " ".join(cells) and "(withhold-unbounded)" in " ".join(cells)
    # numbers and dates as Babel writes them for the locale
    model_lr = 2400  # the model's LR as printed (voice case: 2,400 in English)
    assert f"model gives {format_decimal(model_lr, locale='en')}" in english_html
    assert format_decimal(model_lr, locale=language) in html
    assert format_date(run.spec.case.date, "long", locale=language) in html


def _validate_report(folder, language: str):
    """``forensic-lr validate --case`` (the voice case) ``--report folder --language``."""
    from forensic_lr.cli import main

    case = str(examples_dir() / "voice" / "case.toml")
    assert main(["-q", "validate", "--case", case, "--report", str(folder),
                 "--language", language]) == 0
    return folder


@pytest.fixture(scope="module")
def english_validation(tmp_path_factory):
    """The English validation report folder, written once for the module (only read)."""
    return _validate_report(tmp_path_factory.mktemp("validation") / "en", "en")


@pytest.mark.parametrize("language", TRANSLATED)
def test_validation_report_in_the_language(language, tmp_path, english_validation):
    """validate --report --language: the same validation.json as in English, no template
    text left in English."""
    folders = {"en": english_validation, language: _validate_report(tmp_path / language,
                                                                    language)}
    read = lambda lang, name: (folders[lang] / name).read_text(encoding="utf-8")  # noqa: E731
    # the same validation.json: the language is not recorded (verify --study reads it from
    # the PDF's /Lang)
    assert read("en", "validation.json") == read(language, "validation.json")
    html = read(language, "validation_report.html")
    assert f'<html lang="{language}">' in html
    text = " ".join(html.split())
    records = " ".join(read("en", "validation.json").split())
    left = [f for f in _fragments() if f in text and f not in records]
    assert not left, f"{language}: English left in the validation report: {left[:5]}"
