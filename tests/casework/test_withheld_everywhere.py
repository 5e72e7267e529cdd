"""Withheld means withheld everywhere: a withheld report prints no verbal level and no
posterior odds on any page, keeps the computed values in one table marked "computed, not
reported" (and in result.json), and a batch summary gives every case's conclusion and
reasons, with no LR or verbal equivalent for a withheld case."""

from __future__ import annotations

import csv
import io
import json
import re
import warnings

import numpy as np
import pytest
from pypdf import PdfReader

from forensic_lr.casework.verbal import load_scale
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning

CASE = """\
[case]
id = "{id}"
[propositions]
hp = "The questioned and reference items come from one source."
hd = "They come from different sources of the population."
[evidence]
score = {score}
description = "synthetic score"
[background]
ss = "ss.csv"
ds = "ds.csv"
[uncertainty]
n = 100
[validation.criteria]
cllr_max = 0.9
"""


def _case(folder, case_id: str, score: float):
    """A case on N(3, 1) vs N(0, 1.5^2) background scores (60 / 200)."""
    folder.mkdir()
    rng = np.random.default_rng(11)
    np.savetxt(folder / "ss.csv", rng.normal(3.0, 1.0, 60))
    np.savetxt(folder / "ds.csv", rng.normal(0.0, 1.5, 200))
    (folder / "case.toml").write_text(CASE.format(id=case_id, score=score), encoding="utf-8")
    return folder / "case.toml"


def _main(argv) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return main(argv)


def _levels() -> set[str]:
    """Every level of the case's scale (ENFSI) and the wordings below its first band."""
    scale = load_scale("enfsi")
    return {b.level.lower() for b in scale.bands} | {"limited support", scale.neutral.lower()}


def test_withheld_pdf_has_no_verbal_level_and_no_posterior_odds(tmp_path):
    # a score far beyond every background score: withheld (extrapolation)
    case = _case(tmp_path / "far", "W-1", 12.0)
    out = tmp_path / "out"
    assert _main(["-q", "run", str(case), "--out", str(out), "--draft"]) == 0
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert result["conclusion"]["status"] == "withheld"
    # the computed values stay in result.json
    assert result["results"][0]["lr_text"] and result["results"][0]["verbal"]["level"]
    reader = PdfReader(io.BytesIO((out / "report.pdf").read_bytes()))
    text = "\n".join(page.extract_text() for page in reader.pages)
    lines = [ln.lower() for ln in text.splitlines()]
    levels = _levels()
    numbered = [ln for ln in lines if re.search(r"\d", ln)]
    assert numbered
    for line in numbered:
        assert not any(level in line for level in levels), line
    # no posterior odds: neither the annex table nor any "N to 1" odds
    assert "posterior odds with" not in text.lower()
    odds = r"(?<![\d.])\d[\d,]* to 1(?![\d.,])|(?<![\d.])1 to \d[\d,]*(?![\d.])"
    assert re.search(odds, "posterior odds 46,000 to 1") and re.search(odds, "1 to 1,000")
    assert not re.search(odds, text), "odds printed"
    assert "no posterior odds" in text.lower()
    # the one technical table is labelled, and so is the robustness table
    assert text.lower().count("computed, not reported") >= 2
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "verbal equivalent</th>" not in html
    assert "Verbal scale:" not in html


def test_reported_case_still_has_verbal_levels_and_odds(tmp_path):
    case = _case(tmp_path / "near", "R-1", 2.5)
    out = tmp_path / "out"
    assert _main(["-q", "run", str(case), "--out", str(out), "--draft",
                  "--format", "html,json"]) == 0
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert result["conclusion"]["status"] == "reported"
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "verbal equivalent</th>" in html and "Posterior odds with" in html
    assert "computed, not reported" not in html.lower()


def test_batch_summary_gives_conclusion_and_reasons(tmp_path, capsys):
    far = _case(tmp_path / "far", "W-1", 12.0)
    near = _case(tmp_path / "near", "R-1", 2.5)
    out = tmp_path / "out"
    assert _main(["run", str(far), str(near), "--out", str(out), "--draft",
                  "--format", "json"]) == 0
    printed = capsys.readouterr().out
    own = json.loads((out / "W-1" / "result.json").read_text(encoding="utf-8"))["conclusion"]
    assert own["status"] == "withheld"
    assert f"W-1 (draft): conclusion withheld ({len(own['reasons'])} reason(s)" in printed
    assert "LR =" not in printed.splitlines()[0]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))["cases"]
    withheld, reported = summary
    assert withheld["conclusion"] == "withheld" and withheld["reasons"] == own["reasons"]
    assert "outside the range of the background scores" in withheld["reasons"][0]
    assert withheld["results"][0] == {"label": "E1", "score": 12.0, "lr_text": None,
                                      "log10_lr": None, "verbal": None}
    assert reported["conclusion"] == "reported" and reported["reasons"] == []
    single = json.loads((out / "R-1" / "result.json").read_text(encoding="utf-8"))
    assert reported["results"][0]["lr_text"] == single["results"][0]["lr_text"]
    assert reported["results"][0]["verbal"] == single["results"][0]["verbal"]["level"]
    rows = list(csv.DictReader((out / "summary.csv").open(encoding="utf-8")))
    assert [r["conclusion"] for r in rows] == ["withheld", "reported"]
    assert rows[0]["lr"] == rows[0]["log10_lr"] == rows[0]["verbal"] == ""
    assert rows[0]["reasons"] == " | ".join(own["reasons"])
    assert rows[1]["lr"] == single["results"][0]["lr_text"] and rows[1]["verbal"]


@pytest.mark.parametrize("key", ["lr", "verbal", "conclusion", "reasons"])
def test_summary_columns(key):
    from forensic_lr.cli.batch import SUMMARY_COLUMNS

    assert key in SUMMARY_COLUMNS
