"""Figure labels laid out once by the PDF renderer (forensic_lr.report.svg_text).

Independent values: the width by which a middle- or end-anchored label moves is
matplotlib's own measurement of the string in the same font (its FreeType text-to-path
metrics), not the PDF renderer's; the text and its start position are read back from the
PDF with pypdf; unmarked labels go through weasyprint's own drawing.
"""

import base64
import io
from unittest import mock

import pytest
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath
from pypdf import PdfReader

from forensic_lr.report import svg_text
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


def _drawn(svg: str) -> list[tuple[str, float, float]]:
    """(text, x, y) of every text run of the PDF of ``svg`` as an image, in SVG units."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    pdf = html_to_pdf(f'<img style="width:200pt" src="data:image/svg+xml;base64,{data}">',
                      roots=template_roots(None))
    runs = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            runs.append((text, tm[4], tm[5]))

    PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=visit)
    return runs


def test_plain_labels_are_marked_and_the_others_left_to_weasyprint():
    plain = _labels()
    assert svg_text.mark_plain_text(plain).count("<flr-text ") == 3
    assert "<text" not in svg_text.mark_plain_text(plain)
    kept = [
        f'<text {FONT} x="10" y="20" transform="rotate(-90 10 20)">density</text>',
        f'<text {FONT} x="10 20 30" y="20">abc</text>',  # one position per letter
        f'<text {FONT} x="10" y="20" dx="2">abc</text>',
        f'<text {FONT} x="10" y="20"> padded</text>',  # whitespace the SVG rules change
        f'<text {FONT} x="10" y="20">two  spaces</text>',
        f'<text {FONT} x="10" y="20"><tspan>child</tspan></text>',
        f'<text {FONT} x="10" y="20" style="letter-spacing: 2px">spaced</text>',
        f'<text {FONT} x="10" y="20" text-anchor="inherit">anchor</text>',
        f'<text {FONT} x="10" y="20"></text>',
    ]
    for text in kept:
        assert svg_text.mark_plain_text(_svg(text)) == _svg(text)


def test_marked_labels_sit_where_the_anchor_puts_them():
    assert svg_text.register()
    drawn = _drawn(_svg(svg_text.mark_plain_text(_labels())))
    assert [text for text, _, _ in drawn] == [text for text, *_ in LABELS]
    measure = TextToPath()
    for (_, x, y), (text, size, anchor, x0, y0) in zip(drawn, LABELS, strict=True):
        width = measure.get_text_width_height_descent(
            text, FontProperties(family="DejaVu Sans", size=size), ismath=False)[0]
        shift = {"start": 0.0, "middle": width / 2, "end": width}[anchor]
        assert x == pytest.approx(x0 - shift, abs=0.05)
        assert y == pytest.approx(y0, abs=1e-9)


def test_register_adds_one_element_and_changes_none():
    import weasyprint.svg

    before = dict(weasyprint.svg.TAGS)
    assert svg_text.register() and svg_text.register()
    after = dict(weasyprint.svg.TAGS)
    assert set(after) - set(before) <= {svg_text.PLAIN_TEXT_TAG}
    assert {k: v for k, v in after.items() if k in before} == before
    assert after[svg_text.PLAIN_TEXT_TAG] is svg_text.draw_plain_text


def test_figures_as_images_marks_labels_only_when_weasyprint_can_draw_them():
    svg = _svg(_labels())
    html = f"<figure>{svg}</figure>"
    image = figures_as_images(html, {"ape": svg})
    encoded = image.split("base64,")[1].split('"')[0]
    assert base64.b64decode(encoded).decode("utf-8") == svg_text.mark_plain_text(svg)
    with mock.patch.object(svg_text, "register", return_value=False):
        image = figures_as_images(html, {"ape": svg})
    assert base64.b64decode(image.split("base64,")[1].split('"')[0]).decode("utf-8") == svg


def test_an_untested_weasyprint_version_marks_nothing():
    import weasyprint

    svg_text.register.cache_clear()
    try:
        with mock.patch.object(weasyprint, "__version__", "99.0"):
            assert not svg_text.register()
    finally:
        svg_text.register.cache_clear()
        assert svg_text.register()


def test_a_label_the_line_layout_refuses_is_drawn_by_weasyprint():
    import weasyprint.svg
    import weasyprint.text.line_break as line_break

    drawn = []
    with mock.patch.object(line_break, "split_first_line", side_effect=TypeError("changed")), \
            mock.patch.dict(weasyprint.svg.TAGS,
                            {"text": lambda svg, node, size: drawn.append(node)}):
        node = mock.Mock(text="0.5", get=lambda key, default=None: default)
        svg_text.draw_plain_text(mock.Mock(), node, 10.0)
    assert drawn == [node]
