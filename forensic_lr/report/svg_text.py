"""Figure text for the PDF renderer: each label laid out once, as a whole line.

weasyprint draws an SVG ``<text>`` letter by letter: it lays out the whole string, then
each letter again on its own (one text layout per letter, so that ``x``/``dx``/``rotate``
lists can move single letters), and wraps every label anchored at its middle or end in a
group of its own, measured after drawing, to shift it into place. A figure's tick labels,
axis labels, title and legend are about 150 such labels, which cost about a third of the
time the PDF renderer spends on the figures.

The figures' labels need none of that: one position, no per-letter lists, no letter
spacing, no child elements. (Rotated labels, the vertical axis titles, keep weasyprint's
own drawing: in a group of their own, text extractors such as pypdf read them as words
apart from the tick label before them.) :func:`mark_plain_text` renames exactly those ``<text>``
elements of an SVG to ``<flr-text>``, and :func:`register` teaches weasyprint's SVG
renderer that element, drawn by :func:`draw_plain_text`: the string laid out once, its
width shifting it left for ``text-anchor="middle"`` or ``"end"`` (SVG 1.1, section 10.9.1:
the anchor is at the middle or end of the text's advance), then drawn as one line of
text. The letters keep their font, size, colour and position (the string is shaped as a
whole, with the font's kerning, as matplotlib measured it when it placed the label); the
PDF's text is the same, selectable and searchable. Only the SVG handed to the PDF
renderer is marked; the HTML report and the figure files keep standard ``<text>``.

Everything else in the SVG (and every ``<text>`` not marked) goes through weasyprint as
before. With a weasyprint whose major version this module was not tested against, or
whose internals it does not find, :func:`register` returns False and nothing is marked;
should the line layout still refuse a label, that label is drawn by weasyprint's own
``<text>`` drawing.
"""

from __future__ import annotations

import functools
import math
import re

#: weasyprint major versions whose internals :func:`draw_plain_text` was tested against;
#: with any other, :func:`register` declines and every label is weasyprint's own.
TESTED_MAJOR_VERSIONS = ("70",)
#: The element name of a plain label in SVG handed to the PDF renderer.
PLAIN_TEXT_TAG = "flr-text"

_ALLOWED = frozenset({
    "x", "y", "text-anchor", "font-size", "font-family", "font-weight",
    "font-style", "fill", "fill-opacity", "opacity", "clip-path",
})
_TEXT = re.compile(r"<text((?:\s+[\w:-]+=\"[^\"]*\")*)\s*>([^<]*)</text>")
_ATTRIBUTE = re.compile(r'([\w:-]+)="([^"]*)"')
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?:px|pt)?")


def _plain(attributes: str, content: str) -> bool:
    """Whether a ``<text>`` with these attributes and content is a plain label.

    One ``x`` and one ``y`` number (no per-letter lists), an anchor of start, middle or
    end, only the attributes of :data:`_ALLOWED` (no ``transform``, no ``dx``...), and
    content whose whitespace the SVG rules leave as it is (no leading, trailing or
    repeated spaces, no tabs or newlines).
    """
    found = dict(_ATTRIBUTE.findall(attributes))
    if not set(found) <= _ALLOWED or not content or " ".join(content.split()) != content:
        return False
    if any(not _NUMBER.fullmatch(found.get(name, "0")) for name in ("x", "y")):
        return False
    return found.get("text-anchor", "start") in ("start", "middle", "end")


def mark_plain_text(svg: str) -> str:
    """``svg`` with every plain ``<text>`` label (see :func:`_plain`) renamed
    ``<flr-text>``; other elements unchanged."""

    def rename(match: re.Match) -> str:
        if not _plain(match.group(1), match.group(2)):
            return match.group(0)
        return f"<{PLAIN_TEXT_TAG}{match.group(1)}>{match.group(2)}</{PLAIN_TEXT_TAG}>"

    return _TEXT.sub(rename, svg)


def draw_plain_text(svg, node, font_size: float) -> None:
    """weasyprint's drawing of one ``<flr-text>`` node: the label laid out once.

    Called by ``weasyprint.svg.SVG.draw_node`` (which has applied the node's transform
    and clip) with the node's font size in px. The style is built as weasyprint builds
    it for ``<text>``; the line is laid out with an unbounded width (one line), shifted
    by its width times 0, 1/2 or 1 for the anchor, and drawn with its baseline at ``y``.
    """
    import weasyprint.svg as weasyprint_svg
    from weasyprint.css.properties import INITIAL_VALUES
    from weasyprint.draw.text import draw_emojis, draw_first_line
    from weasyprint.matrix import Matrix
    from weasyprint.svg.utils import size
    from weasyprint.text.line_break import split_first_line

    text_module = _weasyprint_text_module()
    style = text_module.Style()
    style.update(INITIAL_VALUES)
    style.font_config = svg.font_config
    style["font_family"] = [
        font.strip("\"' ") for font in node.get("font-family", "sans-serif").split(",")
    ]
    style["font_style"] = node.get("font-style", "normal")
    weight = node.get("font-weight", 400)
    weight = {"normal": 400, "bold": 700}.get(weight, weight)
    try:
        style["font_weight"] = int(weight)
    except ValueError:
        style["font_weight"] = 400
    style["font_size"] = font_size

    try:
        layout, _, _, width, height, baseline = split_first_line(
            node.text, style, svg.context, math.inf, 0)
    except (TypeError, ValueError, AttributeError):  # not the internals this was written for
        weasyprint_svg.TAGS["text"](svg, node, font_size)
        return
    x = size(node.get("x", "0"), font_size, svg.inner_width)
    y = size(node.get("y", "0"), font_size, svg.inner_height)
    x -= {"middle": width / 2, "end": width}.get(node.get("text-anchor", "start"), 0.0)
    node.text_bounding_box = (x, y - baseline, width, height)

    svg.stream.push_state()
    fill, stroke = svg.set_graphical_state(node, font_size)
    svg.stream.begin_text()
    layout.reactivate(style)
    svg.fill_stroke(fill, stroke, text=True)
    box = text_module.TextBox(layout, style)
    box.baseline = baseline
    emojis = draw_first_line(svg.stream, box, "none", "none", Matrix(a=1, d=-1, e=x, f=y))
    svg.stream.end_text()
    svg.stream.pop_state()
    draw_emojis(svg.stream, style, x, y, emojis)


def _weasyprint_text_module():
    """``weasyprint.svg.text`` (the package re-exports a function of the same name)."""
    import importlib

    return importlib.import_module("weasyprint.svg.text")


@functools.cache
def register() -> bool:
    """Teach weasyprint's SVG renderer ``<flr-text>`` (once per process); True if it could.

    Adds one entry to ``weasyprint.svg.TAGS``, the table of the elements it draws; no
    existing entry changes. False (and nothing added) when the weasyprint functions
    :func:`draw_plain_text` uses are not there, or weasyprint's major version is not one of
    :data:`TESTED_MAJOR_VERSIONS`: then no text may be marked.
    """
    try:
        import weasyprint
        import weasyprint.draw.text as draw_text
        import weasyprint.svg as weasy_svg
        import weasyprint.text.line_break as line_break

        text_module = _weasyprint_text_module()
        needed = (
            hasattr(draw_text, "draw_first_line") and hasattr(draw_text, "draw_emojis")
            and hasattr(line_break, "split_first_line")
            and hasattr(text_module, "TextBox") and hasattr(text_module, "Style")
            and hasattr(weasy_svg.SVG, "set_graphical_state")
            and hasattr(weasy_svg.SVG, "fill_stroke")
            and isinstance(getattr(weasy_svg, "TAGS", None), dict)
        )
    except ImportError:
        return False
    if not needed or weasyprint.__version__.split(".")[0] not in TESTED_MAJOR_VERSIONS:
        return False
    weasy_svg.TAGS.setdefault(PLAIN_TEXT_TAG, draw_plain_text)
    return weasy_svg.TAGS[PLAIN_TEXT_TAG] is draw_plain_text
