"""Report figures with fewer SVG elements and vertices, the same picture.

Tick marks and grid lines merged into one path per axis (``plots._merged_rules``), long
staircases simplified within ``plots._SIMPLIFY_PT``, the axes placed in one measure when
the ticks stay (``plots._fit``), one font family named, and the garbage collector paused
while rendering (``forensic_lr.parallel.collector_paused``).
"""

import gc
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from forensic_lr import plots
from forensic_lr.parallel import collector_paused

LN10 = math.log(10.0)

RNG = np.random.default_rng(11)
SS, DS = RNG.normal(2, 1.5, 300), RNG.normal(-2, 1.5, 900)
XLINK = "{http://www.w3.org/1999/xlink}href"
SVG = "{http://www.w3.org/2000/svg}"

FIGURES = {
    "tippett": lambda: plots.tippett_svg(SS, DS, case_llr=0.5 * LN10, elub_log10=(-2.0, 2.0)),
    "det": lambda: plots.det_svg(SS, DS, case_llr=1.0),
    "ape": lambda: plots.ape_svg(SS, DS, case_llr=1.0),
    "ece": lambda: plots.ece_svg(SS, DS, case_llr=1.0),
    "llr_histogram": lambda: plots.llr_histogram_svg(SS, DS, case_llr=1.0),
}


def _segments(d: str) -> list[tuple[float, ...]]:
    """``"M a b L c d M e f L g h"`` -> [(a, b, c, d), (e, f, g, h)], or [] for other paths."""
    parts = re.findall(r"M (\S+) (\S+) L (\S+) (\S+)", d)
    if not parts or re.sub(r"M \S+ \S+ L \S+ \S+", "", d).strip():
        return []
    return [tuple(float(v) for v in p) for p in parts]


def _painted(svg: str):
    """(line segments with their look, every other drawn element in order).

    A ``<use>`` of a one-segment marker counts as that segment moved to (x, y), with the
    marker's presentation attributes over the ``<use>``'s own; a path made of straight
    segments counts as its segments.
    """
    root = ET.fromstring(svg[svg.find("<svg"):].encode())
    markers = {p.get("id"): p for p in root.iter(SVG + "path") if p.get("id")}
    segments, others = [], []
    for node in root.iter():
        tag = node.tag.removeprefix(SVG)
        if tag == "use":
            marker = markers[node.get(XLINK)[1:]]
            look = {k: v for k, v in node.attrib.items() if k not in (XLINK, "x", "y")}
            look.update({k: v for k, v in marker.attrib.items() if k not in ("id", "d")})
            (x0, y0, x1, y1), = _segments(marker.get("d")) or [(None,) * 4]
            if x0 is None:  # a data marker (a point), not a tick
                others.append(("use", node.get(XLINK), tuple(sorted(node.attrib.items()))))
                continue
            x, y = float(node.get("x")), float(node.get("y"))
            segments.append((tuple(sorted(look.items())), (x + x0, y + y0, x + x1, y + y1)))
        elif tag == "path" and not node.get("id"):
            look = tuple(sorted((k, v) for k, v in node.attrib.items() if k != "d"))
            pieces = _segments(node.get("d"))
            if pieces and (len(pieces) > 1 or "clip-path" in dict(look)):
                segments += [(look, p) for p in pieces]
            else:
                others.append(("path", node.get("d"), look))
        elif tag == "text":
            others.append(("text", node.text, tuple(sorted(node.attrib.items()))))
    return sorted(segments), others


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_merged_rules_paint_the_same_segments_with_fewer_elements(name, monkeypatch):
    merged = FIGURES[name]()
    monkeypatch.setattr(plots, "_merged_rules", lambda svg: svg)
    separate = FIGURES[name]()
    ET.fromstring(merged[merged.find("<svg"):].encode())  # well-formed
    before, after = _painted(separate), _painted(merged)
    assert len(after[0]) == len(before[0]) > 10
    for (look0, seg0), (look1, seg1) in zip(before[0], after[0], strict=True):
        assert look1 == look0
        np.testing.assert_allclose(seg1, seg0, atol=0.005 + 1e-9)  # both at 0.01 pt
    assert after[1] == before[1]  # curves, markers and text: the same, in the same order
    elements = len(re.findall(r"<(?:path|use|text)\b", merged))
    assert elements <= 0.75 * len(re.findall(r"<(?:path|use|text)\b", separate))
    assert "<use" not in merged or name == "det"  # the DET's points stay markers


def test_merged_rules_leave_svg_with_loose_text_alone():
    svg = '<svg>loose<path d="M 0 0 L 0 1" clip-path="url(#a)"/></svg>'
    assert plots._merged_rules(svg) == svg


def test_rules_merge_only_across_tick_labels_and_definitions():
    rule = '<path d="M {0} 0 L {0} 9" clip-path="url(#c)" stroke="#000"/>'
    label = '<text x="1" y="2">1</text>'
    curve = '<path d="M 0 0 L 1 1 L 2 0" clip-path="url(#c)" stroke="#f00"/>'
    svg = "<svg>" + rule.format(1) + label + rule.format(2) + curve + rule.format(3) + "</svg>"
    assert plots._merged_rules(svg) == (
        "<svg>" + '<path d="M 1 0 L 1 9 M 2 0 L 2 9" clip-path="url(#c)" stroke="#000"/>'
        + label + curve + rule.format(3) + "</svg>"
    )


def test_a_rule_drawn_twice_stays_two_elements():
    rule = '<path d="M 1 0 L 1 9" clip-path="url(#c)" stroke="#000" stroke-opacity="0.3"/>'
    svg = "<svg>" + rule + rule + "</svg>"
    assert plots._merged_rules(svg) == svg


def _longest_path(svg: str) -> np.ndarray:
    """Vertices of the path with the most vertices, as an (n, 2) array in points."""
    d = max(re.findall(r' d="([^"]*)"', svg), key=len)
    return np.array(re.findall(r"[ML] (\S+) (\S+)", d), dtype=float)


def _distance_to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Distance of each point to the nearest segment of ``line`` (looped over chunks)."""
    a, b = line[:-1], line[1:]
    ab = b - a
    length2 = np.maximum((ab ** 2).sum(axis=1), 1e-300)
    out = []
    for chunk in np.array_split(points, max(1, len(points) // 500)):
        ap = chunk[:, None, :] - a[None]
        t = np.clip((ap * ab[None]).sum(axis=2) / length2[None], 0.0, 1.0)
        nearest = a[None] + t[..., None] * ab[None]
        out.append(np.sqrt(((chunk[:, None, :] - nearest) ** 2).sum(axis=2)).min(axis=1))
    return np.concatenate(out)


def test_tippett_staircase_is_simplified_within_the_tolerance(monkeypatch):
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(2, 1, 3000), rng.normal(-1, 1.2, 8000)
    simplified = _longest_path(plots.tippett_svg(ss, ds))
    # the package style wins over the caller's settings: unsimplified through it
    for style in (plots._STYLE, plots._SVG_STYLE):
        monkeypatch.setitem(style, "path.simplify", False)
    exact = _longest_path(plots.tippett_svg(ss, ds))
    assert len(simplified) < len(exact) / 3
    # every vertex of the exact staircase lies within the tolerance (plus the rounding of
    # both to 0.01 pt) of the simplified line
    assert _distance_to_polyline(exact, simplified).max() <= plots._SIMPLIFY_PT + 0.015


def test_one_measure_places_the_axes_as_two(monkeypatch):
    once = FIGURES["tippett"](), FIGURES["det"]()
    monkeypatch.setattr(plots, "_ticks", lambda fig: [object()])  # never equal: two passes
    twice = FIGURES["tippett"](), FIGURES["det"]()

    def numbers(svg):  # clip ids hash the clip box: compare the numbers instead
        return np.array(re.findall(r"-?\d+\.?\d*", re.sub(r"#?p[0-9a-f]{10}\b", "", svg)),
                        dtype=float)

    for a, b in zip(once, twice, strict=True):
        np.testing.assert_allclose(numbers(a), numbers(b), atol=0.0101)


def test_text_names_one_font_family_then_the_generic_one():
    svg = FIGURES["ape"]()
    families = set(re.findall(r'font-family="([^"]*)"', svg))
    assert families == {"'DejaVu Sans', sans-serif"}


def test_collector_paused_restores_the_collector():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # paused by the caller: stays paused
    finally:
        gc.enable()
