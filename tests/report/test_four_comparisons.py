"""A case with four comparisons of different items: each conclusion quotes its own
propositions, every figure marks every comparison, the Tippett counts are per comparison,
and the PDF loses no column of the wide tables.

Independent values: the Tippett counts are counted here from the cross-validated LLRs with
numpy; the PDF's text is extracted with pypdf and compared with the HTML's text (figures'
SVG text included, as the PDF embeds the figures as vector graphics with their text).
"""

from __future__ import annotations

import html as html_lib
import io
import re
import warnings

import numpy as np
import pytest
from pypdf import PdfReader

from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.report import build_report, tippett_rows

LABELS = ("Q1-K1", "Q3-K1", "Q1-K2", "Q2-K2")
SCORES = (5.2, 3.0, 4.0, 2.0)
ITEMS = {"Q1": "call 1", "Q2": "call 2", "Q3": "call 3", "K1": "Mr A", "K2": "Mr B"}


def _hp(label: str) -> str:
    q, k = label.split("-")
    return f"The speaker of {q} is {ITEMS[k]} ({k})."


def _hd(label: str) -> str:
    return f"The speaker of {label.split('-')[0]} is another speaker of the same dialect."


@pytest.fixture(scope="module")
def four(tmp_path_factory, make_background):
    folder = tmp_path_factory.mktemp("four")
    ss, ds = make_background(21, 120, 600, shift=4.0)
    np.savetxt(folder / "ss.csv", ss + 2.0)
    np.savetxt(folder / "ds.csv", ds + 2.0)
    items = "".join(f'[[case.items]]\nid = "{i}"\ndescription = "{d}"\n' for i, d in ITEMS.items())
    tables = "".join(f'[[propositions.comparison]]\nlabel = "{x}"\nhp = "{_hp(x)}"\n'
                     f'hd = "{_hd(x)}"\n' for x in LABELS)
    (folder / "case.toml").write_text(
        f'[case]\nid = "C-4"\n{items}{tables}[evidence]\n'
        f'scores = [{", ".join(map(str, SCORES))}]\n'
        f'labels = [{", ".join(f"{x!r}".replace(chr(39), chr(34)) for x in LABELS)}]\n'
        '[background]\nss = "ss.csv"\nds = "ds.csv"\n[method]\ncalibrator = "gaussian"\n'
        '[uncertainty]\nmethod = "none"\n[validation]\nfolds = 5\n', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_case_full(load_case(folder / "case.toml"))
        files = build_report(run, formats=("html", "pdf"))
    raw = files["report.html"].decode("utf-8")
    text = re.sub(r"<style.*?</style>", " ", raw, flags=re.S)
    text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", text)).split())
    pdf = PdfReader(io.BytesIO(files["report.pdf"]))
    pdf_text = " ".join(" ".join(page.extract_text() for page in pdf.pages).split())
    return run, raw, text, pdf_text, files


def test_pdf_holds_every_label_as_often_as_the_html(four):
    _, _, text, pdf_text, _ = four
    for label in LABELS:
        assert text.count(label) >= 12, label
        assert pdf_text.count(label) == text.count(label), label
    # the wide tables: every comparison's columns, in both faces
    for label in LABELS:
        assert f"Posterior odds with {label}" in pdf_text
        assert f"log10 LR {label}" in pdf_text


def test_each_conclusion_quotes_its_own_propositions(four):
    _, raw, _, _, _ = four
    boxes = re.findall(r'<div class="conclusion">(.*?)</div>\s*</div>|<div class="conclusion">'
                       r'(.*?)(?=<div class="conclusion">|<h2)', raw, flags=re.S)
    text = [" ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", a or b)).split())
            for a, b in boxes]
    assert len(text) == len(LABELS)
    for label, box in zip(LABELS, text, strict=True):
        assert box.startswith(f"{label}: likelihood ratio")
        assert f"“{_hp(label).rstrip('.')}” (Hp)" in box
        assert f"“{_hd(label).rstrip('.')}” (Hd)" in box
        others = [x for x in LABELS if x != label]
        assert not any(_hp(x).rstrip(".") in box for x in others if _hp(x) != _hp(label))


def test_tippett_counts_per_comparison(four):
    run, _, text, _, _ = four
    ss, ds = run.ss_llr_cv, run.ds_llr_cv
    rows = tippett_rows(run)
    assert [r["label"] for r in rows] == list(LABELS)
    for row, e in zip(rows, run.result.results, strict=True):
        # by hand: as strong for the same side (at or above an LR >= 1, at or below one < 1)
        sign = 1.0 if e.llr >= 0 else -1.0
        n_ss, n_ds = int((sign * ss >= sign * e.llr).sum()), int((sign * ds >= sign * e.llr).sum())
        assert row["ss"].startswith(f"{n_ss:,} of {ss.size:,} (")
        assert row["ds"].startswith(f"{n_ds:,} of {ds.size:,} (")
        side = row["side"]
        assert f"{row['label']} {e.log10_text} {row['ss']} {side} {row['ds']} {side}" in text
    assert {r["side"] for r in rows} == {"at or above", "at or below"}


def test_every_figure_marks_every_comparison(four):
    _, _, text, _, files = four
    for name in ("tippett", "ape", "ece", "det", "llr_histogram", "score_densities",
                 "llr_overestimation"):
        svg = files[f"figures/{name}.svg"].decode("utf-8")
        for label in LABELS:
            assert re.search(rf">{re.escape(label)}( \(outside the range\))?</text>", svg), (
                name, label)
    for i, label in enumerate(LABELS):
        name = "sensitivity" if i == 0 else f"sensitivity_{i + 1}"
        assert f"figures/{name}.svg" in files
        assert f"Figure 7{'abcd'[i]}. log 10 LR of {label} under each choice" in text
