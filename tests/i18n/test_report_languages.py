"""The voice worked case rendered in each translated language: the same result.json, every
fixed text of the report translated, numbers and dates as Babel (CLDR) writes them."""

from __future__ import annotations

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
    # numbers and dates as Babel writes them for the locale
    model_lr = 2400  # the model's LR as printed (voice case: 2,400 in English)
    assert f"model gives {format_decimal(model_lr, locale='en')}" in english_html
    assert format_decimal(model_lr, locale=language) in html
    assert format_date(run.spec.case.date, "long", locale=language) in html


@pytest.mark.parametrize("language", TRANSLATED)
def test_validation_report_in_the_language(language, tmp_path):
    """validate --report --language: the same validation.json as in English, no template
    text left in English."""
    from forensic_lr.cli import main

    case = str(examples_dir() / "voice" / "case.toml")
    for lang in ("en", language):
        assert main(["-q", "validate", "--case", case, "--report", str(tmp_path / lang),
                     "--language", lang]) == 0
    read = lambda lang, name: (tmp_path / lang / name).read_text(encoding="utf-8")  # noqa: E731
    assert read("en", "validation.json") == read(language, "validation.json")
    html = read(language, "validation_report.html")
    assert f'<html lang="{language}">' in html
    text = " ".join(html.split())
    records = " ".join(read("en", "validation.json").split())
    left = [f for f in _fragments() if f in text and f not in records]
    assert not left, f"{language}: English left in the validation report: {left[:5]}"
