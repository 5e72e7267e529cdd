"""Figures in the PDF: each inline SVG handed to weasyprint as an SVG image, unchanged, its
labels drawn as text by weasyprint's own SVG renderer (public API only).

Independent values: the width by which a middle- or end-anchored label moves is
matplotlib's own measurement of the string in the same font (its FreeType text-to-path
metrics), not the PDF renderer's; the text and its start position are read back from the
PDF with pypdf.
"""

import base64
import io
import re
import shutil
import subprocess

import pytest
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath
from pypdf import PdfReader

from forensic_lr.report.pdf import figures_as_images, html_to_pdf
from forensic_lr.report.render import template_roots

FONT = "font-family=\"'DejaVu Sans', sans-serif\""
LABELS = [  # (text, font size, anchor, x, y)
    ("start AV", 9, "start", 20.0, 30.0),
    ("\u22120.5 middle", 9, "middle", 100.0, 50.0),
    ("end", 12, "end", 180.0, 80.0),
]


def _svg(body: str) -> str:
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="200pt" height="100pt" '
            f'viewBox="0 0 200 100">{body}</svg>')


def _labels() -> str:
    return "".join(
        f'<text font-size="{size}px" {FONT} text-anchor="{anchor}" x="{x}" y="{y}" '
        f'fill="#c0392b">{text}</text>' for text, size, anchor, x, y in LABELS
    )


def _pdf(svg: str) -> bytes:
    html = figures_as_images(f"<figure>{svg}</figure>", {"ape": svg})
    return html_to_pdf(html, roots=template_roots(None))


def test_a_figure_is_handed_over_as_the_same_svg_image():
    svg = _svg(_labels())
    image = figures_as_images(f"<figure>{svg}</figure>", {"ape": svg})
    assert image.startswith('<figure><img class="figure" alt="ape" src="data:image/svg+xml')
    assert base64.b64decode(image.split("base64,")[1].split('"')[0]).decode("utf-8") == svg


def test_labels_are_searchable_text_in_the_pdf():
    text = PdfReader(io.BytesIO(_pdf(_svg(_labels())))).pages[0].extract_text()
    assert text.splitlines() == [label for label, *_ in LABELS]  # whole strings, in order


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler's pdftotext")
def test_labels_sit_where_the_anchor_puts_them(tmp_path):
    """Each label spans matplotlib's width of the string from where its anchor puts it
    (SVG 1.1, 10.9.1: the anchor is at the start, middle or end of the advance); the page
    offset of the image is read off the first, start-anchored label. weasyprint draws SVG
    text letter by letter, without kerning between letters, so a label with a kerned pair
    ("AV") ends up to about 0.07 em further than matplotlib measured it (kerned)."""
    (tmp_path / "labels.pdf").write_bytes(_pdf(_svg(_labels())))
    boxes = subprocess.run(["pdftotext", "-bbox", str(tmp_path / "labels.pdf"), "-"],
                           capture_output=True, text=True, check=True).stdout
    words = [(float(a), float(b), w) for a, b, w in re.findall(
        r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>',
        boxes)]
    measure = TextToPath()
    offset = words[0][0] - LABELS[0][3]
    for label, size, anchor, x0, _ in LABELS:
        parts = label.split()
        mine, words = words[:len(parts)], words[len(parts):]
        assert [w for *_, w in mine] == parts
        width = measure.get_text_width_height_descent(
            label, FontProperties(family="DejaVu Sans", size=size), ismath=False)[0]
        start = offset + x0 - {"start": 0.0, "middle": width / 2, "end": width}[anchor]
        assert mine[0][0] == pytest.approx(start, abs=0.3)
        assert mine[-1][1] == pytest.approx(start + width, abs=0.3 + 0.07 * size)
