"""CSV files as a locale's spreadsheets read them (--csv-locale): ';' between cells and a
decimal comma for de, es, fr, nl, sv; the default comma CSV unchanged byte for byte. Each
file is read back with Python's csv module and with the package's own score-file reader."""

from __future__ import annotations

import csv
import json
import warnings

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning
from forensic_lr.i18n.spreadsheet import csv_conventions, csv_text
from forensic_lr.io.scores import read_score_file
from forensic_lr.validation import metrics_csv

COMMA_LOCALES = ("de", "es", "fr", "nl", "sv")  # CLDR writes 0,5 in all five


def _comma_float(cell: str) -> float:
    """A decimal-comma number as a spreadsheet in these locales reads it."""
    assert "." not in cell, cell  # no grouping mark, no decimal point
    return float(cell.replace(",", "."))


def test_conventions():
    assert csv_conventions() == csv_conventions("en") == (",", ".")
    for language in COMMA_LOCALES:
        assert csv_conventions(language) == (";", ",")


def test_english_is_the_comma_form_byte_for_byte():
    rows = [("a,b", {"cllr": 0.1, "eer": None, "n": 3, "x": float("inf")})]
    assert metrics_csv(rows) == metrics_csv(rows, "en") == 'system,cllr,eer,n,x\n"a,b",0.1,,3,inf\n'
    assert metrics_csv(rows, "de") == 'system;cllr;eer;n;x\na,b;0,1;;3;inf\n'


@pytest.mark.parametrize("language", COMMA_LOCALES)
def test_values_read_back_exactly(language):
    values = [0.1, -1234.5678, 1e-07, 2.0 / 3.0, 123456789.25]
    text = csv_text([["name; quoted", *range(len(values))], ["x;y", *values]], language)
    (header, row) = list(csv.reader(text.splitlines(), delimiter=";"))
    assert header[0] == "name; quoted" and row[0] == "x;y"  # quoted where needed
    assert [_comma_float(c) for c in row[1:]] == values  # exactly: repr round-trips


def _score_files(tmp_path):
    rng = np.random.default_rng(29)
    np.savetxt(tmp_path / "ss.csv", rng.normal(1.5, 1.0, 60))
    np.savetxt(tmp_path / "ds.csv", rng.normal(-1.5, 1.2, 90))
    return ["--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv")]


@pytest.mark.parametrize("language", ["de", "fr"])
def test_validate_csv_in_a_locale(tmp_path, language):
    inputs = _score_files(tmp_path)
    english, local = tmp_path / "en.csv", tmp_path / f"{language}.csv"
    compare = ["--compare", "gaussian,logistic"]
    assert main(["-q", "validate", *inputs, *compare, "--csv", str(english)]) == 0
    assert main(["-q", "validate", *inputs, *compare, "--csv", str(local),
                 "--csv-locale", language]) == 0
    want = list(csv.DictReader(english.open(encoding="utf-8")))
    got = list(csv.DictReader(local.open(encoding="utf-8"), delimiter=";"))
    assert [r["system"] for r in got] == ["gaussian", "logistic"]
    for w, g in zip(want, got, strict=True):
        assert _comma_float(g["cllr"]) == float(w["cllr"])
        assert _comma_float(g["min_cllr"]) == float(w["min_cllr"])
        assert g["n_ss"] == w["n_ss"] == "60"
    # the package's own reader: ';' found, the decimal comma taken from the file
    cllr = read_score_file(local, score_column="cllr")
    assert cllr.tolist() == [float(w["cllr"]) for w in want]
    # --csv-locale en is the default file, byte for byte
    again = tmp_path / "en2.csv"
    assert main(["-q", "validate", *inputs, *compare, "--csv", str(again),
                 "--csv-locale", "en"]) == 0
    assert again.read_bytes() == english.read_bytes()


def test_csv_locale_without_csv_is_refused(tmp_path, capsys):
    assert main(["-q", "validate", *_score_files(tmp_path), "--csv-locale", "de"]) == 2
    assert "--csv-locale would be ignored" in capsys.readouterr().err


@pytest.fixture
def two_cases(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("voice", "small-background"):
        assert main(["-q", "examples", "copy", name, name]) == 0
    small = tmp_path / "small-background" / "case.toml"
    small.write_text(small.read_text().replace("n = 1000", "n = 100"))
    return ["small-background/case.toml", "voice/case.toml"]


def test_batch_summary_in_german(two_cases, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        assert main(["-q", "run", *two_cases, "--out", "en", "--format", "json"]) == 0
        assert main(["-q", "run", *two_cases, "--out", "de", "--format", "json",
                     "--csv-locale", "de"]) == 0
    english = list(csv.DictReader((tmp_path / "en" / "summary.csv").open(encoding="utf-8")))
    german = list(csv.DictReader((tmp_path / "de" / "summary.csv").open(encoding="utf-8"),
                                 delimiter=";"))
    summary = json.loads((tmp_path / "de" / "summary.json").read_text())["cases"]
    assert summary == json.loads((tmp_path / "en" / "summary.json").read_text())["cases"]
    results = [r for case in summary for r in case["results"]]
    assert len(german) == len(english) == len(results)
    for e, g, r in zip(english, german, results, strict=True):
        if r["log10_lr"] is None:  # a withheld case: no LR in the summary
            assert g["log10_lr"] == e["log10_lr"] == g["lr"] == ""
        else:
            assert _comma_float(g["log10_lr"]) == float(e["log10_lr"]) == r["log10_lr"]
        assert _comma_float(g["score"]) == float(e["score"]) == r["score"]
        assert g["verbal"] == e["verbal"] and g["label"] == e["label"]
    # the voice case's LR (ELUB-bounded), as printed
    voice = next(g for g in german if g["case_id"] == "FVC-2026-017")
    assert voice["lr"] == "280"
    scores = read_score_file(tmp_path / "de" / "summary.csv", score_column="score")
    assert scores.tolist() == [r["score"] for r in results]


def test_csv_locale_with_one_case_is_refused(two_cases, capsys):
    assert main(["-q", "run", two_cases[1], "--out", "one", "--csv-locale", "de"]) == 2
    assert "--csv-locale would be ignored" in capsys.readouterr().err


def test_summary_lr_written_as_the_locale_writes_it():
    """An LR of 2,400 (English) is 2.400 in a German summary and 2 400 (no-break space) in
    a Swedish one, as Babel's format_decimal writes 2400 there; the log10 LR a plain number."""
    from babel.numbers import format_decimal

    from forensic_lr.cli.batch import _summary_files

    row = {"case_file": "c.toml", "case_id": "C1", "folder": "C1", "status": "final",
           "conclusion": "reported", "reasons": [], "warnings": [], "error": "",
           "results": [{"label": "E1", "score": 5.5, "lr_text": "2,400",
                        "log10_lr": 3.3802, "verbal": "strong support"}]}
    for language, lr in (("en", "2,400"), ("de", "2.400"), ("sv", "2\u00a0400")):
        text = _summary_files([row], language)["summary.csv"].decode("utf-8")
        delimiter = csv_conventions(language)[0]
        (line,) = list(csv.DictReader(text.splitlines(), delimiter=delimiter))
        assert line["lr"] == lr == format_decimal(2400, locale=language)
        assert line["log10_lr"] == ("3.3802" if language == "en" else "3,3802")
