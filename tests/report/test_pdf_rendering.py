"""The PDF renderer's faster input: figures as SVG images, one font family.

Independent values: the PDF rendered from the report's own HTML file (figures inline as
``<svg>``, the slow definition) must hold exactly the same text as the shipped PDF;
result.json gives the numbers that must appear; pypdf reads both PDFs.
"""

import base64
import io
import json
import re

import pytest
from pypdf import PdfReader

from forensic_lr.metrics.catalogue import METRICS
from forensic_lr.report import build_report
from forensic_lr.report.pdf import figures_as_images, html_to_pdf
from forensic_lr.report.render import template_roots


@pytest.fixture(scope="module")
def voice(worked):
    return worked.run("voice"), worked.report("voice")


def _text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def test_pdf_text_equals_the_pdf_of_the_inline_svg_html(voice):
    _, files = voice
    html = files["report.html"].decode("utf-8")
    figures = [k for k in files if k.startswith("figures/")]
    # the HTML file keeps its figures inline (not every figure file is shown in the report)
    assert 5 <= html.count("<svg") <= len(figures) and "data:image/svg+xml" not in html
    slow = html_to_pdf(html, roots=template_roots(None))
    assert _text(files["report.pdf"]) == _text(slow)
    assert len(PdfReader(io.BytesIO(files["report.pdf"])).pages) == len(
        PdfReader(io.BytesIO(slow)).pages
    )


def test_every_reported_number_of_result_json_is_in_the_pdf(voice):
    _, files = voice
    result = json.loads(files["result.json"])
    text = _text(files["report.pdf"])
    e = result["results"][0]
    assert f"LR = {e['lr_text']}" in text
    assert f"{e['log10_lr']:+.2f}" in text
    iv = e["interval"]  # the model's interval, whose ends the report prints
    low, high = iv["log10_lr_low_unbounded"], iv["log10_lr_high_unbounded"]
    if f"{low:+.2f}" == f"{high:+.2f}":  # printed as not estimable, never as [a, a]
        assert f"not estimable (both ends at {low:+.2f})" in text
    else:
        assert f"[{low:+.2f}, {high:+.2f}]" in text
    metrics = result["validation"]["metrics"]
    shown = [m for m in METRICS if metrics.get(m.key) is not None]
    assert shown
    for m in shown:
        if m.key == "cllr_cal":  # printed as the printed Cllr minus the printed minimum
            value = round(metrics["cllr"], 3) - round(metrics["min_cllr"], 3)
            assert f"{value:.3f}" in text
            continue
        assert m.text(metrics[m.key]) in text, m.key
    assert result["case"]["id"] in text and result["report_id"] in text


def _xobject_kinds(resources, seen):
    for ref in resources.get("/XObject", {}).values():
        xobject = ref.get_object()
        seen.add(xobject.get("/Subtype"))
        if "/Resources" in xobject:
            _xobject_kinds(xobject["/Resources"], seen)
    return seen


def test_figures_stay_vector_and_one_font_family_is_embedded(voice):
    _, files = voice
    reader = PdfReader(io.BytesIO(files["report.pdf"]))
    kinds, fonts = set(), set()
    for page in reader.pages:
        _xobject_kinds(page["/Resources"], kinds)
        fonts |= {f.get_object()["/BaseFont"].split("+")[-1]
                  for f in page["/Resources"].get("/Font", {}).values()}
    assert kinds == {"/Form"}  # drawn figures, no raster image
    assert fonts <= {"DejaVu-Sans", "DejaVu-Sans-Bold", "DejaVu-Sans-Oblique", "DejaVu-Sans-Mono"}


def test_figures_as_images_carries_each_svg_unchanged():
    svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10pt"></svg>'
    html = f"<figure>{svg[svg.find('<svg'):]}</figure><p>{svg[svg.find('<svg'):]}</p>"
    out = figures_as_images(html, {"tippett": svg})
    images = re.findall(r'<img class="figure" alt="tippett" src="data:image/svg\+xml;base64,'
                        r'([A-Za-z0-9+/=]+)">', out)
    assert len(images) == 2 and "<svg" not in out
    assert {base64.b64decode(i).decode("utf-8") for i in images} == {svg}


def test_same_html_gives_the_same_pdf_bytes(voice):
    run, files = voice
    again = build_report(run, formats=("pdf",))
    assert again["report.pdf"] == files["report.pdf"]
