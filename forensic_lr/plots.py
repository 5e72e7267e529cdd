"""Figures of LR validation and casework: matplotlib Figures, and compact SVG for reports.

Each figure function (:func:`tippett`, :func:`det`, :func:`ape`, :func:`ece`, :func:`pav`,
:func:`llr_overestimation`, :func:`roc`, :func:`score_densities`, :func:`llr_histogram`,
:func:`reliability`, :func:`paired_comparison`) draws into the Axes given as ``ax``
(compose several figures in one Figure of subplots) or, with ``ax=None``, into a new
:class:`matplotlib.figure.Figure` in the package style, and returns the Figure.

The figures of one system's LLRs (:func:`tippett`, :func:`ape`, :func:`ece`, :func:`det`,
:func:`roc`, :func:`pav`, :func:`llr_overestimation`, :func:`llr_histogram`,
:func:`score_densities`) also take
``label=`` (the system's name, put before each of its legend entries), ``color=`` (one
colour for all its lines; the different-source lines, which have their own colour by
default, are then dashed) and further keyword arguments of matplotlib's ``Line2D`` (or
``stairs`` for histograms) for its lines, so that two systems can share one Axes::

    fig = plots.tippett(old_ss, old_ds, label="old", color="tab:blue")
    plots.tippett(new_ss, new_ds, label="new", color="tab:orange", ax=fig.axes[0])

A reference line (LR = 1, y = x) that is already in the Axes is not drawn again.

Nothing here selects a matplotlib backend or uses :mod:`matplotlib.pyplot`: importing the
package leaves a notebook's inline plotting as it was. Figures are built directly as
``Figure`` objects and rendered by :func:`to_svg` through matplotlib's SVG canvas. The
``*_svg`` functions (what the reports and the command line use) return that SVG text:
deterministic bytes (fixed id salt, no date), text kept as text (one font family named),
coordinates rounded to 0.01 pt, every style written as presentation attributes, the tick
marks and the grid lines of an axis one path each, and long lines (a Tippett or DET
staircase of 10^5 trials) without the vertices that lie within 0.3 pt of the line drawn,
so that a PDF renderer has few elements and no CSS to parse. Axes name their log base.

Every figure function takes ``language=`` (default ``"en"``, one of
:data:`forensic_lr.i18n.SUPPORTED_LANGUAGES`): its title, axis labels, legend entries and
numbers (tick labels included) are then written in that language, from the ``report``
catalogue that the reports' templates use and with the locale's decimal and grouping marks
(:func:`forensic_lr.i18n.formatting.localized`). English figures are the same bytes as
without the argument.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import textwrap
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence

import matplotlib
import matplotlib.style
import matplotlib.ticker
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from scipy.special import ndtr, ndtri

from . import metrics
from ._checks import check_pair
from .calibration.curves import ModelCurves, model_curves, shown_range
from .defaults import DEFAULT_SEED
from .errors import InputError
from .i18n import N_, SOURCE_LANGUAGE, translations
from .i18n.classes import ClassNames, class_gettext
from .i18n.formatting import localized, percent_text
from .io.scores import orient
from .metrics.overestimation import FIDUCIAL_DRAWS
from .records import BOUNDS_TERMS

__all__ = [
    "ModelCurves",
    "ape",
    "ape_svg",
    "count_with_rate",
    "det",
    "det_svg",
    "ece",
    "ece_svg",
    "llr_figures",
    "llr_histogram",
    "llr_histogram_svg",
    "llr_overestimation",
    "llr_overestimation_svg",
    "model_curves",
    "paired_comparison",
    "paired_comparison_svg",
    "pav",
    "pav_svg",
    "reliability",
    "reliability_svg",
    "roc",
    "roc_svg",
    "score_densities",
    "score_density_svg",
    "sensitivity",
    "sensitivity_svg",
    "tippett",
    "tippett_svg",
    "to_svg",
]

_LOG10_E = float(np.log10(np.e))
_SIZE = (6.3, 3.6)
#: Lines lose vertices that lie within this many points (1/72 inch) of the line drawn
#: without them (matplotlib's path simplification; its default is 1/9). A fifth of the
#: 1.5 pt line width: a Tippett or DET staircase of 10^5 trials keeps what shows in print,
#: in a third of the vertices, which the PDF renderer would otherwise draw one by one.
_SIMPLIFY_PT = 0.3
_STYLE = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "path.simplify_threshold": _SIMPLIFY_PT,  # lines made now (ax.plot)
    # the title at the top of the axes (plus its pad), where matplotlib's automatic
    # placement leaves it when no ticks are on top (none are here): saves measuring every
    # axis's decorations once more per title
    "axes.titley": 1.0,
}
_SVG_STYLE = {
    "svg.hashsalt": "forensic-lr",
    "svg.fonttype": "none",  # text stays text: smaller SVG, faster PDF, selectable
    "path.simplify_threshold": _SIMPLIFY_PT,  # lines made when drawn (ax.step)
    # the font matplotlib measures text with (it ships it), then the generic family: the
    # PDF renderer looks up one family per letter instead of eleven
    "font.sans-serif": ["DejaVu Sans"],
}
SS_COLOUR, DS_COLOUR, CASE_COLOUR, REF_COLOUR = "#1f5fa8", "#c0392b", "#2e7d32", "#777777"


def _package_style(style: dict) -> contextlib.AbstractContextManager:
    """matplotlib's own defaults with ``style`` on top, for as long as the context lasts.

    The ``"default"`` style (:func:`matplotlib.style.context`) first resets every setting
    to matplotlib's shipped defaults, so that a ``matplotlibrc`` of the user (in the
    working folder, ``MPLCONFIGDIR`` or ``$MATPLOTLIBRC``) or settings a notebook made
    cannot change a report's figures: the same inputs and versions give the same bytes
    on every machine. The fonts are matplotlib's own DejaVu Sans (which it ships, so the
    file it measures text with does not depend on the fonts installed or on the order of
    its font cache), and on exit every setting is restored.
    """
    return matplotlib.style.context(["default", style])
ELUB_COLOUR = "#7b3f99"


def _gettext(language: str, classes: ClassNames | None = None) -> Callable[[str], str]:
    """The ``report`` catalogue's gettext in ``language`` (English returns each text itself),
    naming the two classes of trials as ``classes`` says."""
    return class_gettext(translations(language, "report").gettext, classes)


class _LocaleFormatter(matplotlib.ticker.ScalarFormatter):
    """matplotlib's tick labels of numbers, with the decimal and grouping marks of
    ``language`` (CLDR, :func:`forensic_lr.i18n.formatting.localized`): "0,5" in German."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self._language = language

    def __call__(self, x, pos=None) -> str:
        return localized(super().__call__(x, pos), self._language)


def _localize_ticks(fig: Figure, language: str) -> None:
    """Number tick labels of every axis in ``language``'s marks (English: left as they are;
    tick labels the figure wrote itself, such as the DET's percentages, are not numbers
    matplotlib formats and stay as written)."""
    if language == SOURCE_LANGUAGE:
        return
    for axes in fig.axes:
        for axis in (axes.xaxis, axes.yaxis):
            formatter = axis.get_major_formatter()
            if type(formatter) is matplotlib.ticker.ScalarFormatter:
                axis.set_major_formatter(_LocaleFormatter(language))


# ------------------------------------------------------------------------ canvas and legend
#: The Figures made here (weak: they leave with their last reference).
_OWN_FIGURES: weakref.WeakSet = weakref.WeakSet()


@contextlib.contextmanager
def _axes(ax: Axes | None, language: str = SOURCE_LANGUAGE) -> Iterator[tuple[Axes, bool]]:
    """Yield ``(axes, own)``: the caller's Axes, or a new Figure's in the package style.

    The style is applied (:func:`_package_style`) only while a Figure of ours is drawn
    (every setting is restored on exit); a caller's Axes keep the caller's style. The Axes
    of a Figure made here (a second system drawn into the first one's Figure) count as
    our own: its legend below the axes is made again with every entry, and refitted.
    Number tick labels are written in ``language``'s marks (:func:`_localize_ticks`).
    """
    if ax is not None and ax.figure not in _OWN_FIGURES:
        yield ax, False
        _localize_ticks(ax.figure, language)
        return
    with _package_style(_STYLE):
        if ax is None:
            fig = Figure(figsize=_SIZE)
            _OWN_FIGURES.add(fig)
            ax = fig.add_subplot()
        for legend in list(ax.figure.legends):  # made again, with every system's entries
            legend.remove()
        yield ax, True
        _localize_ticks(ax.figure, language)
        _fix_tick_labels(ax.figure)
        _fit(ax.figure)


_PAD = 4.0 / 72.0  # inches between the drawing and the figure's edge, and above the legend


def _fit(fig: Figure) -> None:
    """Place the axes so that everything drawn fits, the legend below them.

    Measures the axes' decorations (tick labels, axis labels, title, a twin axis) with an
    off-screen renderer and moves the axes inside the margins they need, instead of a
    layout engine: the same result for one Axes (and its twin) at about half the cost of
    drawing. The tick labels can change when the axes change size: then it measures and
    moves them once more. When the ticks stayed (:func:`_ticks`), the margins measured
    are those the axes keep, and the second measure is skipped. The first measure is
    taken with the axes already raised above the legend, about the height they end with,
    so that their ticks are more often those they keep (the margins measured depend only
    on the ticks, not on where the axes stood).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    renderer = FigureCanvasAgg(fig).get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    pad = _PAD * fig.dpi
    legend_height = sum(g.get_window_extent(renderer).height for g in fig.legends)
    below = pad  # the legends stacked: the first right under the axes, the last lowest
    for legend in reversed(fig.legends):
        legend.set_bbox_to_anchor((0.5, below / height), transform=fig.transFigure)
        below += legend.get_window_extent(renderer).height
    if fig.legends:  # a twin axes shares the position: take it once
        x, y, w, h = fig.axes[0].get_position().bounds
        raised = min((legend_height + pad) / height, h / 2)
        for axes in fig.axes:
            axes.set_position([x, y + raised, w, h - raised])
    ticks = None
    for _ in range(2):
        if ticks is not None and _ticks(fig) == ticks:
            return
        ticks = _ticks(fig)
        box = fig.axes[0].get_window_extent(renderer)
        drawn = Bbox.union([a.get_tightbbox(renderer) for a in fig.axes])
        x0 = pad + (box.x0 - drawn.x0)
        x1 = width - pad - (drawn.x1 - box.x1)
        y0 = pad + legend_height + (pad if fig.legends else 0.0) + (box.y0 - drawn.y0)
        y1 = height - pad - (drawn.y1 - box.y1)
        for axes in fig.axes:
            axes.set_position([x0 / width, y0 / height, (x1 - x0) / width, (y1 - y0) / height])


def _ticks(fig: Figure) -> list:
    """Every axis's view limits, tick positions and tick labels: what decides how much room
    its decorations take."""
    state = []
    for axes in fig.axes:
        for axis in (axes.xaxis, axes.yaxis):
            locator, formatter = axis.get_major_locator(), axis.get_major_formatter()
            locations = [float(v) for v in locator()]
            formatter.set_locs(locations)
            state.append((tuple(axis.get_view_interval()), tuple(locations),
                          tuple(formatter.format_ticks(locations))))
    return state


def _fix_tick_labels(fig: Figure) -> None:
    """Ticks are made when the Figure is drawn, outside the style's context: fix their
    label size now."""
    for axes in fig.axes:
        axes.tick_params(labelsize=_STYLE["xtick.labelsize"])


def _legend(ax: Axes, own: bool, extra: Axes | None = None) -> None:
    """One legend: below the axes of our own Figure (never over data), else in the Axes.

    The marks of several comparisons (:func:`_mark_each`, kept in :data:`_COMPARISON`)
    get a legend of their own below it, in as many columns as their short labels allow, so
    that a dozen comparisons do not squeeze the axes.
    """
    handles, labels = ax.get_legend_handles_labels()
    if extra is not None:
        more = extra.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    if not own:
        ax.legend(handles, labels)
        return
    engine = ax.figure.get_layout_engine() is not None  # else :func:`_fit` places it
    marks = [i for i, h in enumerate(handles) if h in _COMPARISON]
    groups = [[i for i in range(len(handles)) if i not in marks], marks]
    for group, widths in zip(groups, ((28, 45), (10, 16)), strict=True):
        if not group:
            continue
        texts = [labels[i] for i in group]
        longest = max((len(line) for text in texts for line in text.split("\n")), default=0)
        # fits 6.3 in at 9 pt: 3 columns of 28 characters; short labels 7 or 5 columns
        columns = (3 if longest <= widths[0] else 2 if longest <= widths[1] else 1) if (
            group is groups[0]) else (7 if longest <= widths[0] else 5 if longest <= widths[1]
                                      else 3)
        ax.figure.legend(
            [handles[i] for i in group], texts,
            loc="outside lower center" if engine else "lower center",
            ncols=min(columns, len(texts)), frameon=False, borderaxespad=0.0,
        )


def _named(label: str | None, text: str) -> str:
    """A system's legend entry: ``text``, or ``"label: text"`` when the system is named."""
    return f"{label}: {text}" if label else text


def _class_styles(color: str | None, line: dict) -> tuple[dict, dict]:
    """Styles of a system's same-source and different-source lines: the class colours by
    default; with ``color``, both in it and the different-source line dashed (unless
    ``line`` sets a line style). ``line``: the caller's matplotlib keywords, on both."""
    if color is None:
        return {"color": SS_COLOUR, **line}, {"color": DS_COLOUR, **line}
    return {"color": color, **line}, {"color": color, "linestyle": "--", **line}


def _missing(ax: Axes, label: str) -> bool:
    """Whether no artist of ``ax`` has the legend entry ``label`` (a reference line drawn
    for one system is not drawn again for a second one on the same Axes)."""
    return label not in ax.get_legend_handles_labels()[1]


def _mark(ax: Axes, x: float | None, label: str) -> None:
    if x is not None and np.isfinite(x):
        ax.axvline(x, color=CASE_COLOUR, linewidth=1.5, linestyle="--", label=label)


#: The marks of several comparisons, which :func:`_legend` lists apart (weak: a figure's
#: artists leave with it).
_COMPARISON: weakref.WeakSet = weakref.WeakSet()
#: Colour and line style of each comparison's mark when a figure marks several (cycled;
#: the first is the single case's). Red, blue and purple are the classes' and ELUB's.
CASE_MARKS = (
    (CASE_COLOUR, "--"), ("#e67e22", "-."), ("#00838f", ":"), ("#6d4c41", (0, (6, 2))),
    ("#ad1457", (0, (3, 1, 1, 1, 1, 1))), ("#827717", (0, (1, 1))), ("#222222", "-"),
)


def case_marks(values, labels=None, name: str = "case value") -> list[tuple[str | None, float]]:
    """``(label, value)`` of each comparison a figure marks.

    ``values``: None (nothing marked), one number, or one per comparison; ``labels``: one
    per value (default: none for a single value, else "E1", "E2", ...).
    """
    if values is None:
        return []
    values = np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel()
    if labels is None:
        labels = [None] if values.size == 1 else [f"E{i + 1}" for i in range(values.size)]
    if len(labels) != values.size:
        raise InputError(f"{name}: {values.size} value(s) but {len(labels)} label(s)")
    return list(zip(labels, values.tolist(), strict=True))


def _mark_each(ax: Axes, marks, text: Callable[[int], str], *, transform=None) -> None:
    """A vertical line per comparison at ``transform(value)``; legend ``text(i)`` for a
    single one, the comparison's label for several (each with its own colour and style)."""
    for i, (label, value) in enumerate(marks):
        x = value if transform is None else transform(value)
        if not np.isfinite(x):
            continue
        colour, style = CASE_MARKS[i % len(CASE_MARKS)]
        line = ax.axvline(x, color=colour, linewidth=1.5, linestyle=style,
                          label=text(i) if len(marks) == 1 else str(label))
        if len(marks) > 1:
            _COMPARISON.add(line)


def _elub_label(elub_log10: tuple[float, float], language: str = SOURCE_LANGUAGE,
                rule: str = "elub") -> str:
    """The legend entry of the bounds: the rule's name (:data:`~forensic_lr.records.
    BOUNDS_TERMS`; ELUB by default) and the two bounds."""
    low, high = elub_log10
    _ = _gettext(language)
    values = {"low": localized(f"{low:+.2f}", language),
              "high": localized(f"{high:+.2f}", language)}
    if rule == "elub":
        return _("ELUB (log10 LR %(low)s, %(high)s)") % values
    name = _(BOUNDS_TERMS[rule])
    return _("%(rule)s (log10 LR %(low)s, %(high)s)") % {**values,
                                                         "rule": name[:1].upper() + name[1:]}


def _mark_elub(ax: Axes, elub_log10, *, axis: str = "x",
               language: str = SOURCE_LANGUAGE, rule: str = "elub") -> None:
    """Dotted lines at the bounds of ``rule`` (default ELUB, Vergeer et al. 2016), one
    legend entry for both."""
    if elub_log10 is None:
        return
    low, high = (float(v) for v in elub_log10)
    line = ax.axvline if axis == "x" else ax.axhline
    style = {"color": ELUB_COLOUR, "linestyle": ":", "linewidth": 1.4}
    line(low, label=_elub_label((low, high), language, rule), **style)
    line(high, **style)


def count_with_rate(count: int, total: int, language: str = SOURCE_LANGUAGE) -> str:
    """``"1 of 3,000 (0.03 %)"``: a count, its total and the percentage.

    The percentage keeps one significant digit below 1 % and one decimal above, so a
    single trial among thousands never reads as "0.0 %". In ``language`` (the ``report``
    catalogue, CLDR marks): "1 von 3.000 (0,03 %)" in German.
    """
    _ = _gettext(language)
    numbers = {"count": localized(f"{count:,}", language),
               "total": localized(f"{total:,}", language)}
    if total <= 0:
        return _("%(count)s of %(total)s") % numbers
    percent = 100.0 * count / total
    if percent == 0.0 or percent == 100.0:
        text = f"{percent:.0f}"
    else:
        decimals = max(1, -int(np.floor(np.log10(percent))))
        text = f"{percent:.{decimals}f}"
    return _("%(count)s of %(total)s (%(percent)s)") % {
        **numbers, "percent": percent_text(text, language)}


# ------------------------------------------------------------------------------ SVG output
_PRESENTATION = frozenset(
    {
        "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
        "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
        "stroke-miterlimit", "opacity", "font-size", "font-family", "font-weight",
        "font-style", "text-anchor", "clip-path",
    }
)
_STYLE_ATTR = re.compile(r' style="([^"]*)"')
_GEOMETRY = re.compile(r' (d|x|y|width|height|points)="([^"]*)"')  # user units (pt)
_NUMBER = re.compile(r"-?\d+\.\d+")
_ZERO_ROTATION = re.compile(r' transform="rotate\(-?0 [^)]*\)"')
_GROUP_TAG = re.compile(r"<g(?:\s[^>]*)?>|</g>")
_BARE_GROUP = re.compile(r"<g(?: id=\"[^\"]*\")?/?>")
_GLOBAL_STYLE = re.compile(r"<defs>\s*<style[^>]*>\*\{([^}]*)\}</style>\s*</defs>\s*")


def _attributes(match: re.Match) -> str:
    """``style="a: b; c: d"`` -> ``a="b" c="d"`` when every property is an SVG attribute."""
    pairs = [part.split(":", 1) for part in match.group(1).split(";") if part.strip()]
    if any(len(p) != 2 or p[0].strip() not in _PRESENTATION for p in pairs):
        return match.group(0)
    return "".join(f' {name.strip()}="{value.strip()}"' for name, value in pairs)


def _short(value: float) -> str:
    """``value`` to 0.01 without trailing zeros: 3.50 -> "3.5", -0.001 -> "0"."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _rounded(match: re.Match) -> str:
    def short(number: re.Match) -> str:
        return _short(float(number.group()))

    return f' {match.group(1)}="{_NUMBER.sub(short, " ".join(match.group(2).split()))}"'


def _without_bare_groups(svg: str) -> str:
    """Drop ``<g>`` wrappers that carry nothing but an id (their children move up)."""
    out, stack, start = [], [], 0
    for tag in _GROUP_TAG.finditer(svg):
        out.append(svg[start:tag.start()])
        start = tag.end()
        text = tag.group()
        if text == "</g>":
            if not stack.pop():
                out.append(text)
        elif text.endswith("/>"):  # an empty group: nothing to close
            if not _BARE_GROUP.fullmatch(text):
                out.append(text)
        elif _BARE_GROUP.fullmatch(text):
            stack.append(True)
        else:
            stack.append(False)
            out.append(text)
    out.append(svg[start:])
    return "".join(out)


_ITEM = re.compile(r"<defs>.*?</defs>|<text[^>]*>.*?</text>|<[^>]+>", re.S)
_MARKER = re.compile(r'<defs><path id="([^"]+)" d="M 0 0 L (-?[\d.]+) (-?[\d.]+)"([^>]*)/></defs>')
_TICK = re.compile(r'<use xlink:href="#([^"]+)" x="(-?[\d.]+)" y="(-?[\d.]+)"([^>]*)/>')
_ATTRIBUTE = re.compile(r' ([\w:-]+)="([^"]*)"')
_RULE = re.compile(r'<path d="M (-?[\d.]+) (-?[\d.]+) L (-?[\d.]+) (-?[\d.]+)"'
                   r'( clip-path="[^"]*"[^>]*)/>')


def _merged_rules(svg: str) -> str:
    """One ``<path>`` per axis for its tick marks, and one for its grid lines.

    matplotlib writes each tick mark as a ``<use>`` of a one-segment marker and each grid
    line as its own ``<path>``. A run of them with the same look becomes one path of
    several segments, where the first of them stood; only tick labels (``<text>``) and
    ``<defs>`` may lie between them, so that nothing else changes the order in which
    they are painted. Tick marks are opaque strokes, and grid lines (clipped to the
    axes, possibly translucent) merge only with other lines of the same direction, which
    do not overlap: the picture is the same, with far fewer elements.
    """
    markers = {m.group(1): (float(m.group(2)), float(m.group(3)), m.group(4))
               for m in _MARKER.finditer(svg)}
    items = _ITEM.findall(svg)
    if sum(map(len, items)) != len(svg):  # text outside elements: leave it as it is
        return svg
    out: list = []
    merged: dict[tuple, int] = {}  # (kind, look) -> index in ``out`` of the merged path
    for text in items:
        tick, rule = _TICK.fullmatch(text), _RULE.fullmatch(text)
        if tick and tick.group(1) in markers and " fill=" not in tick.group(4):
            dx, dy, look = markers[tick.group(1)]
            x, y = tick.group(2), tick.group(3)
            key = ("tick", tick.group(1) + tick.group(4))
            d = f"M {x} {y} L {_short(float(x) + dx)} {_short(float(y) + dy)}"
            # the marker's own presentation attributes win over those it inherits
            look_of = dict(_ATTRIBUTE.findall(tick.group(4)) + _ATTRIBUTE.findall(look))
            attributes = "".join(f' {name}="{value}"' for name, value in look_of.items())
        elif rule and (rule.group(1) == rule.group(3) or rule.group(2) == rule.group(4)):
            key = ("rule", rule.group(1) == rule.group(3), rule.group(5))
            d = "M {} {} L {} {}".format(*rule.groups()[:4])
            attributes = rule.group(5)
        else:
            if not (text.startswith(("<text", "<defs>"))):
                merged.clear()
            out.append(text)
            continue
        if key in merged and d in out[merged[key]][0]:
            out.append(text)  # the same segment twice: a translucent one paints twice
        elif key in merged:
            out[merged[key]][0].append(d)
        else:
            merged[key] = len(out)
            out.append(([d], attributes))
    svg = "".join(
        f'<path d="{" ".join(part[0])}"{part[1]}/>' if isinstance(part, tuple) else part
        for part in out
    )
    for name in markers:  # markers no longer used
        if f'"#{name}"' not in svg:
            svg = re.sub(rf'<defs><path id="{re.escape(name)}"[^>]*/></defs>', "", svg)
    return svg


def _compact(svg: str) -> str:
    """Same picture, fewer elements and bytes (the PDF renderer's cost grows with both).

    Drops the DOCTYPE and metadata, moves the global ``*{...}`` stroke style to the root
    (inherited), turns ``style`` into presentation attributes, rounds coordinates to 0.01
    pt (4 micrometres), drops zero rotations and id-only ``<g>`` wrappers.
    """
    svg = svg[svg.find("<svg"):]
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.S)
    found = _GLOBAL_STYLE.search(svg)
    if found:
        svg = svg[: found.start()] + svg[found.end():]
        root = "".join(
            f' {name.strip()}="{value.strip()}"'
            for name, value in (p.split(":", 1) for p in found.group(1).split(";") if p.strip())
        )
        svg = svg.replace("<svg ", f"<svg{root} ", 1)
    svg = _STYLE_ATTR.sub(_attributes, svg)
    svg = _ZERO_ROTATION.sub("", svg)
    svg = _GEOMETRY.sub(_rounded, svg)
    svg = _without_bare_groups(svg)
    return _merged_rules(re.sub(r">\s+<", "><", svg).strip())


def to_svg(fig: Figure) -> str:
    """SVG text of a Figure: deterministic (fixed id salt, no date) and compact.

    Rendered by matplotlib's SVG canvas into memory (no backend is selected, no file is
    written) with matplotlib's default save and SVG settings whatever the user's
    ``matplotlibrc`` says (:func:`_package_style`), then rewritten as described in the
    module docstring.
    """
    buffer = io.StringIO()
    with _package_style(_SVG_STYLE):  # the save settings are never the user's
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return '<?xml version="1.0" encoding="utf-8"?>\n' + _compact(buffer.getvalue()) + "\n"


def _svg_of(figure_function: Callable[..., Figure], name: str) -> Callable[..., str]:
    """The ``*_svg`` wrapper of a figure function: same arguments, SVG text out."""

    @functools.wraps(figure_function)  # ``__wrapped__`` is the figure function
    def svg(*args, **kwargs) -> str:
        return to_svg(figure_function(*args, **kwargs))

    svg.__name__ = svg.__qualname__ = name
    svg.__doc__ = (
        f"SVG text of :func:`{figure_function.__name__}` (same arguments; see "
        ":func:`to_svg`)."
    )
    return svg


# ---------------------------------------------------------------------------------- Tippett
def tippett(
    ss_llr, ds_llr, *, case_llr: float | Sequence[float] | None = None, kind: str = "I",
    elub_log10: tuple[float, float] | None = None, bounds_rule: str = "elub",
    case_labels: Sequence[str] | None = None,
    label: str | None = None, color: str | None = None, ax: Axes | None = None,
    case_log10_lr: float | Sequence[float] | None = None, language: str = SOURCE_LANGUAGE,
    classes: ClassNames | None = None,
    **line,
) -> Figure:
    """Tippett plot of SS and DS log10 LRs.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed: they
        count in the proportions but have no abscissa).
    case_llr : float or sequence of float, optional
        This case's natural-log LR (as every plot takes it), marked by a vertical line at
        ``case_llr / ln 10``; the legend gives how many SS and
        DS trials support the same side at least as strongly, as counts and rates ("1 of
        3,000 (0.03 %)"): those at or above it for LR >= 1, at or below it for LR < 1.
        Several values (one per comparison): one line each, named in the legend by
        ``case_labels`` (their counts: :func:`forensic_lr.metrics.tippett_counts`).
    kind : {"I", "II"}
        ``"I"`` (the usual form [1]_): both curves show the share of trials with
        log10 LR >= x. ``"II"``: the SS curve shows the share with log10 LR <= x (rising
        to the right) and the DS curve the share >= x (rising to the left), the
        presentation common in forensic voice comparison [2]_; at x = 0 the SS curve
        reads the RMEP and the DS curve the RMED.
    elub_log10 : (float, float), optional
        ELUB bounds in log10 LR, marked by dotted lines.
    bounds_rule : str
        The rule of those bounds (``"elub"``, ``"iv"``, ``"n-source"``, ``"fixed"``),
        named in the legend.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_llr``.
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for all of this system's lines (the different-source curve dashed); default the
        class colours.
    **line
        Further matplotlib keywords for this system's lines (``linestyle``,
        ``linewidth``, ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure. A second system drawn into the same Axes shares
        its reference lines.
    case_log10_lr : float or sequence of float, optional
        Deprecated: the case's LR in log10 (:class:`DeprecationWarning`); give ``case_llr``.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    ``P_ss(>= x) = #{log10 LR_ss >= x} / N_ss`` is left-continuous: between two observed
    values x_i < x_{i+1} it equals its value at x_{i+1}, so it is drawn as a "pre" step;
    ``P_ss(<= x)`` is right-continuous and drawn as a "post" step. Both are drawn only
    between the smallest and largest finite observed log10 LR: nothing is extrapolated.

    References
    ----------
    .. [1] D. Meuwly, D. Ramos, R. Haraksim, "A guideline for the validation of likelihood
           ratio methods used for forensic evidence evaluation", Forensic Science
           International 276 (2017) 142-153.
    .. [2] G. S. Morrison, "Measuring the validity and reliability of forensic
           likelihood-ratio systems", Science & Justice 51 (2011) 91-98.
    """
    if kind not in ("I", "II"):
        raise InputError(f"Tippett kind must be 'I' or 'II', got {kind!r}")
    if case_log10_lr is None:
        marks = [(n, v * _LOG10_E) for n, v in case_marks(case_llr, case_labels, "case_llr")]
        llrs = [v for _, v in case_marks(case_llr, case_labels, "case_llr")]
    else:
        warnings.warn("tippett(case_log10_lr=...) is deprecated; write case_llr=... (the "
                      "natural-log LR, as every plot takes it)", DeprecationWarning,
                      stacklevel=2)
        if case_llr is not None:
            raise InputError("tippett(): give the case's LR once, as case_llr")
        marks = case_marks(case_log10_lr, case_labels, "case_log10_lr")
        llrs = [v / _LOG10_E for _, v in marks]
    data = metrics.tippett(ss_llr, ds_llr)
    ss, ds = check_pair(ss_llr, ds_llr)
    ss_style, ds_style = _class_styles(color, line)
    finite_ss, finite_ds = ss[np.isfinite(ss)], ds[np.isfinite(ds)]
    low = (shown_range(finite_ss, finite_ds)[0] * _LOG10_E
           if finite_ss.size and finite_ds.size else -np.inf)
    far = int((ds * _LOG10_E < low).sum() + (ss * _LOG10_E < low).sum())
    _ = _gettext(language, classes)
    with _axes(ax, language) as (ax, own):
        x = data.log10_lr
        if kind == "I":
            ax.step(x, data.ss_prop_ge, where="pre",
                    label=_named(label, _("same source: LR >= x")), **ss_style)
        else:
            ss10 = np.sort(ss * _LOG10_E)
            ss_le = np.searchsorted(ss10, x, side="right") / ss10.size
            ax.step(x, ss_le, where="post", label=_named(label, _("same source: LR <= x")),
                    **ss_style)
        beyond = " " + _("(%(count)s LRs below %(low)s not shown)") % {
            "count": localized(f"{far:,}", language),
            "low": localized(f"{low:,.4g}", language)} if far else ""
        ax.step(x, data.ds_prop_ge, where="pre",
                label=_named(label, _("different source: LR >= x") + beyond), **ds_style)
        if far:  # a far tail of DS LLRs: the axis starts where shown_range cuts it
            high = max([float(np.max(np.r_[finite_ss, finite_ds])) * _LOG10_E,
                        *(v for _, v in marks)])
            ax.set_xlim(low, high + 0.05 * (high - low))
        ax.axvline(0, color=REF_COLOUR, linewidth=0.8)
        _mark_elub(ax, elub_log10, language=language, rule=bounds_rule)

        def counts(i: int) -> str:
            n_ss, n_ds = _as_strong(ss, ds, llrs[i])
            text = (_("this case; LRs at or above it:\nsame source %(ss)s,\ndifferent source "
                      "%(ds)s") if llrs[i] >= 0 else
                    _("this case; LRs at or below it:\nsame source %(ss)s,\ndifferent source "
                      "%(ds)s"))
            return text % {"ss": count_with_rate(n_ss, ss.size, language),
                           "ds": count_with_rate(n_ds, ds.size, language)}

        _mark_each(ax, marks, counts)
        ax.set_xlabel(_("log10 LR (x)"))
        ax.set_ylabel(_("proportion of trials"))
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(_("Tippett plot (type I)") if kind == "I" else _("Tippett plot (type II)"))
        _legend(ax, own)
    return ax.figure


def _as_strong(ss: np.ndarray, ds: np.ndarray, case_llr: float) -> tuple[int, int]:
    """How many SS and DS LLRs support the case's side at least as strongly.

    For a case LR >= 1 the trials with LLR at or above it, for LR < 1 those at or below it
    (the same comparison for both classes, whatever the Tippett form).
    """
    n_ss, n_ds = metrics.tippett_counts(ss, ds, case_llr)
    return int(n_ss[0]), int(n_ds[0])


# ------------------------------------------------------------------------------ APE and ECE
def ape(ss_llr, ds_llr, *, case_llr: float | Sequence[float] | None = None,
        case_labels: Sequence[str] | None = None, label: str | None = None,
        color: str | None = None, ax: Axes | None = None,
        language: str = SOURCE_LANGUAGE, classes: ClassNames | None = None, **line) -> Figure:
    """APE curve: Bayes error rate against prior log10 odds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS and DS trials (+-inf allowed).
    case_llr : float or sequence of float, optional
        Marks the prior log10 odds ``-case_llr / ln 10`` at which this case's LR brings
        the posterior odds to 1 (where it changes the decision); one line per value.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_llr`` (legend).
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for all of this system's lines (the PAV minimum dashed).
    **line
        Further matplotlib keywords for this system's lines (``linestyle``,
        ``linewidth``, ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure. A second system drawn into the same Axes shares
        its reference lines.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    For prior log odds ``plo`` the Bayes error rate is
    ``E(plo) = sigmoid(plo) P_miss(-plo) + sigmoid(-plo) P_fa(-plo)`` with the threshold at
    ``-plo`` [1]_; curves for the LLRs as given, after PAV (the minimum over monotone
    recalibrations) and for LR = 1 (``min(sigmoid(plo), sigmoid(-plo))``), from
    ``metrics.ape_curve``. The area under the actual curve is proportional to Cllr.

    References
    ----------
    .. [1] N. Brümmer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    curve = metrics.ape_curve(ss_llr, ds_llr)
    _ = _gettext(language, classes)
    with _axes(ax, language) as (ax, own):
        x = curve.plo * _LOG10_E
        colour = color or SS_COLOUR
        ax.plot(x, curve.actual, color=colour, label=_named(label, _("actual LRs")), **line)
        ax.plot(x, curve.minimum, color=colour, label=_named(label, _("after PAV (minimum)")),
                **{"linestyle": "--", **line})
        if _missing(ax, _("LR = 1 (no evidence)")):
            ax.plot(x, curve.reference, color=REF_COLOUR, linestyle=":",
                    label=_("LR = 1 (no evidence)"))
        _mark_each(ax, case_marks(case_llr, case_labels, "case_llr"),
                   lambda i: _("prior where this case's LR changes the decision"),
                   transform=lambda v: -v * _LOG10_E)
        ax.set_xlabel(_("prior log10 odds"))
        ax.set_ylabel(_("Bayes error rate"))
        ax.set_title(_("Applied probability of error (APE)"))
        _legend(ax, own)
    return ax.figure


def ece(ss_llr, ds_llr, *, case_llr: float | Sequence[float] | None = None,
        case_labels: Sequence[str] | None = None, label: str | None = None,
        color: str | None = None, ax: Axes | None = None,
        language: str = SOURCE_LANGUAGE, classes: ClassNames | None = None, **line) -> Figure:
    """Empirical cross-entropy (ECE, bits) against prior log10 odds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS and DS trials (+-inf allowed).
    case_llr : float or sequence of float, optional
        Marks the prior log10 odds ``-case_llr / ln 10`` at which this case's LR would
        bring the posterior odds to 1; one line per value.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_llr`` (legend).
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for all of this system's lines (after PAV calibration dashed).
    **line
        Further matplotlib keywords for this system's lines (``linestyle``,
        ``linewidth``, ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure. A second system drawn into the same Axes shares
        its reference lines.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    ``ECE(plo) = P(Hp)/N_ss sum log2(1 + 1/(LR_i O)) + P(Hd)/N_ds sum log2(1 + LR_j O)``
    with prior odds ``O = exp(plo)`` [1]_; curves for the LLRs as given, after PAV and
    for LR = 1 (the prior entropy), from ``metrics.ece_curve``. At ``plo = 0`` the
    actual curve equals Cllr.

    References
    ----------
    .. [1] D. Ramos, J. Gonzalez-Rodriguez, G. Zadora, C. Aitken, "Information-theoretical
           assessment of the performance of likelihood ratio computation methods", Journal
           of Forensic Sciences 58 (2013) 1503-1518.
    """
    curve = metrics.ece_curve(ss_llr, ds_llr)
    _ = _gettext(language, classes)
    with _axes(ax, language) as (ax, own):
        x = curve.plo * _LOG10_E
        colour = color or SS_COLOUR
        ax.plot(x, curve.actual, color=colour, label=_named(label, _("LRs as computed")),
                **line)
        ax.plot(x, curve.calibrated, color=colour,
                label=_named(label, _("after PAV calibration")), **{"linestyle": "--", **line})
        if _missing(ax, _("LR = 1 (no evidence)")):
            ax.plot(x, curve.reference, color=REF_COLOUR, linestyle=":",
                    label=_("LR = 1 (no evidence)"))
        ax.set_xlabel(_("prior log10 odds"))
        _mark_each(ax, case_marks(case_llr, case_labels, "case_llr"),
                   lambda i: _("prior odds that this case's LR would bring to 1"),
                   transform=lambda v: -v * _LOG10_E)
        ax.set_ylabel(_("empirical cross-entropy (bits)"))
        ax.set_title(_("Empirical cross-entropy (ECE)"))
        ax.set_ylim(bottom=0)
        _legend(ax, own)
    return ax.figure


# -------------------------------------------------------------------------------------- DET
#: DET ticks in order of preference (decades first): the conventional 0.1 %, 1 %, 10 %,
#: 50 % and their 2 and 5 multiples, down to 0.01 %, and their mirror images up to 99.99 %
#: (reached only to show this case's operating point).
_DET_TICKS = np.array(
    [0.5, 0.1, 0.01, 0.001, 0.0001, 0.2, 0.02, 0.002, 0.0002, 0.05, 0.005, 0.0005, 0.3,
     0.7, 0.9, 0.99, 0.999, 0.9999, 0.8, 0.98, 0.998, 0.9998, 0.95, 0.995, 0.9995]
)


def _det_limits(rates: np.ndarray, eer: float) -> tuple[float, float]:
    """Axis range (as rates) that shows the curve: a tick below its smallest non-zero rate
    (and below the EER), at least 0.01 %; up to 50 %, or 90 % for a weak system."""
    positive = rates[(rates > 0) & (rates < 1)]
    smallest = positive.min() if positive.size else 0.001
    if eer > 0:
        smallest = min(smallest, eer)
    below = _DET_TICKS[_DET_TICKS <= 0.8 * smallest]
    low = below.max() if below.size else _DET_TICKS.min()
    high = 0.5 if eer <= 0.4 else 0.9
    return float(min(low, 0.05)), high


def _det_reach(limits: tuple[float, float], rate: float) -> tuple[float, float]:
    """``limits`` widened to the conventional ticks around ``rate`` (0 < rate < 1), so that
    this case's operating point lies inside; a rate of 0 or 1 has no probit position."""
    low, high = limits
    if not 0 < rate < 1:
        return limits
    below = _DET_TICKS[_DET_TICKS <= 0.8 * rate]
    above = _DET_TICKS[1 - _DET_TICKS <= 0.8 * (1 - rate)]
    low = min(low, below.max() if below.size else _DET_TICKS.min())
    high = max(high, above.min() if above.size else _DET_TICKS.max())
    return float(low), float(high)


def _det_ticks(limits: tuple[float, float]) -> np.ndarray:
    """The conventional ticks within ``limits``, taken in order of preference while
    they stay at least 1/14 of the axis apart on the probit scale; ascending."""
    lo, hi = ndtri(np.asarray(limits))
    inside = _DET_TICKS[(_DET_TICKS >= limits[0]) & (_DET_TICKS <= limits[1])]
    kept: list[float] = []
    for tick, z in zip(inside, ndtri(inside), strict=True):  # 15 ticks: not a hot loop
        if all(abs(z - ndtri(k)) >= (hi - lo) / 14 for k in kept):
            kept.append(float(tick))
    return np.sort(np.array(kept))


def _det_tick(rate: float, language: str) -> str:
    """A DET tick's label: ``"0.1%"`` in English (as always written), the locale's
    percentage in another language (CLDR's pattern: a no-break space before "%" in German)."""
    if language == SOURCE_LANGUAGE:
        return f"{100 * rate:g}%"
    return percent_text(f"{100 * rate:g}", language)


def _det_union(limits: tuple[float, float], shown: tuple[float, float]
               ) -> tuple[float, float]:
    """``limits`` (rates) widened to the probit range ``shown`` that the Axes already show."""
    low, high = (float(v) for v in ndtr(np.asarray(shown)))
    return min(limits[0], low), max(limits[1], high)


def _hull_path(hull: metrics.ROC, eer: float, limits) -> tuple[np.ndarray, np.ndarray]:
    """Points along the ROC convex hull on probit axes, with the EER point as a vertex.

    A straight hull segment is not straight on probit axes: each segment is sampled in
    (p_fa, p_miss) space, more densely the longer it is once warped, so the drawn curve is
    the image of the hull and the EER point lies on it.
    """
    x, y = hull.p_fa, hull.p_miss
    lo, hi = ndtri(np.asarray(limits))
    with np.errstate(divide="ignore"):
        px, py = np.clip(ndtri(x), lo - 1, hi + 1), np.clip(ndtri(y), lo - 1, hi + 1)
    length = np.hypot(np.diff(px), np.diff(py))
    steps = np.clip(np.ceil(length / 0.04), 1, 200).astype(int)
    seg = np.repeat(np.arange(steps.size), steps)
    t = (np.arange(seg.size) - np.repeat(np.cumsum(steps) - steps, steps)) / steps[seg]
    d = y - x  # rises from -1 to +1; the EER segment is where it crosses 0
    k = int(np.searchsorted(d, 0.0, side="left"))
    if 0 < k < x.size and d[k] != 0.0:
        t_eer = -d[k - 1] / (d[k] - d[k - 1])
        at = int(np.searchsorted(seg, k - 1, side="left"))
        at += int(np.searchsorted(t[at:at + steps[k - 1]], t_eer))
        seg, t = np.insert(seg, at, k - 1), np.insert(t, at, t_eer)
    fa = np.append(x[seg] + t * (x[seg + 1] - x[seg]), x[-1])
    miss = np.append(y[seg] + t * (y[seg + 1] - y[seg]), y[-1])
    if 0 < k < x.size and d[k] != 0.0:
        fa[at] = miss[at] = eer  # the same float as metrics.eer, not a re-rounded one
    with np.errstate(divide="ignore"):
        return ndtri(fa), ndtri(miss)


def _mark_operating_point(ax: Axes, rates: tuple[float, float], x_lim, y_lim,
                          label: str, colour: str = CASE_COLOUR, several: bool = False,
                          language: str = SOURCE_LANGUAGE) -> None:
    """This case's (false alarm, miss) point, named ``label`` in the legend; a rate of 0
    or 1 (no probit position) is drawn at the edge of its axis as a triangle pointing off
    it, and the legend says so. ``several``: one of several comparisons' points (listed
    apart in the legend, :func:`_legend`)."""
    point, marker = [], "s"
    for rate, (low, high), arrows in zip(rates, (x_lim, y_lim), ("<>", "v^"), strict=True):
        clipped = min(max(rate, low), high)
        point.append(float(ndtri(clipped)))
        if clipped != rate:
            marker = arrows[rate > high]
    _ = _gettext(language)
    note = ",\n" + _("%(zero)s and %(hundred)s drawn at the axis edge") % {
        "zero": percent_text("0", language), "hundred": percent_text("100", language)
    } if marker != "s" else ""
    (line,) = ax.plot(*point, marker, color=colour, fillstyle="none", clip_on=False,
                      label=f"{label}{note}")
    if several:  # one of several comparisons' points: listed apart by _legend
        _COMPARISON.add(line)


def det(ss_llr, ds_llr, *, case_llr: float | Sequence[float] | None = None,
        case_labels: Sequence[str] | None = None, label: str | None = None,
        color: str | None = None, ax: Axes | None = None,
        language: str = SOURCE_LANGUAGE, classes: ClassNames | None = None, **line) -> Figure:
    """DET plot: miss against false-alarm rate on probit axes.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs (or any score-like values) of SS and DS trials.
    case_llr : float or sequence of float, optional
        Marks the operating point of a threshold at this case's LLR (share of SS below
        it, of DS at or above it), with counts and rates in the legend; several values:
        one marker each, named in the legend by ``case_labels``.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_llr``.
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for all of this system's lines (curve, convex hull and EER point).
    **line
        Further matplotlib keywords for this system's lines (``linestyle``,
        ``linewidth``, ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure. A second system drawn into the same Axes shares
        its reference lines.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Both axes are warped by the probit ``Phi^-1(p)`` [1]_ so that normal score
    distributions give straight lines. The empirical curve (``metrics.roc``), its convex
    hull and the EER point on the hull (``metrics.eer``) are drawn; the hull is sampled
    along each of its straight (p_fa, p_miss) segments so that its warped image, and the
    EER point on it, are drawn where they are. Each axis spans from a conventional tick
    [2]_ below the smallest non-zero rate of that class (1 / N for N trials, so a small
    background fills the plot) and below the EER, to 50 % (90 % when the EER exceeds
    40 %), and further to a tick beyond this case's operating point (up to 99.99 %), so
    that it is drawn where it is; a rate of 0 or 100 % has no probit position and is drawn
    at the axis edge as a triangle pointing off the axis, the legend saying so.

    References
    ----------
    .. [1] A. Martin, G. Doddington, T. Kamm, M. Ordowski, M. Przybocki, "The DET curve in
           assessment of detection task performance", Proc. Eurospeech (1997) 1895-1898.
    .. [2] D. A. van Leeuwen, ROCAnalysis.jl documentation, "DET plot".
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    curve = metrics.roc(ss, ds)
    hull = metrics.roc_convex_hull(ss, ds)
    eer = metrics.eer(ss, ds)
    x_lim, y_lim = _det_limits(curve.p_fa, eer), _det_limits(curve.p_miss, eer)
    points = []
    for name, value in case_marks(case_llr, case_labels, "case_llr"):
        n_miss, n_fa = int(np.sum(ss < value)), int(np.sum(ds >= value))
        points.append((name, n_miss, n_fa))  # the axes reach every operating point
        x_lim, y_lim = _det_reach(x_lim, n_fa / ds.size), _det_reach(y_lim, n_miss / ss.size)
    colour = color or SS_COLOUR
    _ = _gettext(language, classes)
    with _axes(ax, language) as (ax, own):
        if ax.lines:  # a second system: the axes keep showing the first
            x_lim, y_lim = _det_union(x_lim, ax.get_xlim()), _det_union(y_lim, ax.get_ylim())
        with np.errstate(divide="ignore"):
            ax.plot(ndtri(curve.p_fa), ndtri(curve.p_miss), color=colour,
                    label=_named(label, _("DET")), **line)
        hx, hy = _hull_path(hull, eer, (min(x_lim[0], y_lim[0]), max(x_lim[1], y_lim[1])))
        ax.plot(hx, hy, color=colour, label=_named(label, _("convex hull")),
                **{"linestyle": "--", "linewidth": 0.9, **line})
        diagonal = ndtri(np.array([min(x_lim[0], y_lim[0]), max(x_lim[1], y_lim[1])]))
        ax.plot(diagonal, diagonal, color=REF_COLOUR, linewidth=0.6)
        shown = x_lim[0] <= eer <= x_lim[1] and y_lim[0] <= eer <= y_lim[1]
        eer_text = {"eer": percent_text(f"{100 * eer:.1f}", language)}
        if shown:
            ax.plot([ndtri(eer)], [ndtri(eer)], "o", color=color or CASE_COLOUR,
                    label=_named(label, _("EER = %(eer)s (on the convex hull)") % eer_text))
        else:
            ax.plot([], [], "o", color=color or CASE_COLOUR, label=_named(
                label, _("EER = %(eer)s (on the convex hull), outside the range") % eer_text))
        for i, (name, n_miss, n_fa) in enumerate(points):
            text = _("threshold at this case's LR:\nfalse alarms %(fa)s,\nmisses %(miss)s") % {
                "fa": count_with_rate(n_fa, ds.size, language),
                "miss": count_with_rate(n_miss, ss.size, language),
            } if len(points) == 1 else str(name)
            _mark_operating_point(ax, (n_fa / ds.size, n_miss / ss.size), x_lim, y_lim, text,
                                  CASE_MARKS[i % len(CASE_MARKS)][0],
                                  several=len(points) > 1, language=language)
        for limits, set_lim, set_ticks in ((x_lim, ax.set_xlim, ax.set_xticks),
                                           (y_lim, ax.set_ylim, ax.set_yticks)):
            ticks = _det_ticks(limits)
            set_lim(*ndtri(np.array(limits)))
            set_ticks(ndtri(ticks), [_det_tick(t, language) for t in ticks])
        ax.set_xlabel(_("false alarm rate (different source judged same)"))
        ax.set_ylabel(_("miss rate\n(same source judged different)"))
        ax.set_title(_("Detection error trade-off (DET)"))
        _legend(ax, own)
    return ax.figure


# -------------------------------------------------------------------------------------- ROC
def roc(ss_llr, ds_llr, *, label: str | None = None, color: str | None = None,
        ax: Axes | None = None, language: str = SOURCE_LANGUAGE,
        classes: ClassNames | None = None, **line) -> Figure:
    """ROC: hit rate against false-alarm rate, with its convex hull and the AUC.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        LLRs (or any score-like values) of SS and DS trials.
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for all of this system's lines (curve and convex hull).
    **line
        Further matplotlib keywords for this system's lines (``linestyle``,
        ``linewidth``, ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure. A second system drawn into the same Axes shares
        its reference lines.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Hit rate ``1 - P_miss(t)`` against ``P_fa(t)`` over all thresholds t, ties treated as
    one step (``metrics.roc``); the dashed convex hull holds the operating points an
    optimally calibrated system can reach; ``AUC = P(s_ss > s_ds) + 0.5 P(s_ss = s_ds)``
    [1]_.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27
           (2006) 861-874.
    """
    curve = metrics.roc(ss_llr, ds_llr)
    hull = metrics.roc_convex_hull(ss_llr, ds_llr)
    _ = _gettext(language, classes)
    with _axes(ax, language) as (ax, own):
        colour = color or SS_COLOUR
        auc = localized(f"{metrics.auc(ss_llr, ds_llr):.3f}", language)
        ax.plot(curve.p_fa, 1 - curve.p_miss, color=colour,
                label=_named(label, _("ROC (AUC = %(auc)s)") % {"auc": auc}), **line)
        ax.plot(hull.p_fa, 1 - hull.p_miss, color=colour,
                label=_named(label, _("convex hull")),
                **{"linestyle": "--", "linewidth": 0.9, **line})
        ax.plot([0, 1], [0, 1], color=REF_COLOUR, linewidth=0.6)
        ax.set_xlabel(_("false alarm rate"))
        ax.set_ylabel(_("hit rate"))
        ax.set_title(_("Receiver operating characteristic (ROC)"))
        _legend(ax, own)
    return ax.figure


# -------------------------------------------------------------------------------------- PAV
def pav(
    ss_scores, ds_scores, *, xlabel: str | None = None, llr_input: bool = False,
    elub_log10: tuple[float, float] | None = None, label: str | None = None,
    color: str | None = None, ax: Axes | None = None, language: str = SOURCE_LANGUAGE,
    classes: ClassNames | None = None, **line,
) -> Figure:
    """PAV transform: each score's optimal (PAV) log10 LR, a non-decreasing step curve.

    Parameters
    ----------
    ss_scores, ds_scores : array_like
        Scores, or natural-log LLRs with ``llr_input=True``, of SS and DS trials.
    xlabel : str, optional
        Label of the x axis (default ``"score"``, or ``"log10 LR (input)"`` for LLRs).
    llr_input : bool
        The inputs are natural-log LLRs: the x axis shows them as log10 LR (both axes in
        log10) and the line y = x, where a well-calibrated method's LRs lie, is drawn.
    elub_log10 : (float, float), optional
        ELUB bounds in log10 LR, marked by dotted horizontal lines.
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for all of this system's lines.
    **line
        Further matplotlib keywords for this system's lines (``linestyle``,
        ``linewidth``, ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure. A second system drawn into the same Axes shares
        its reference lines.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    ``metrics.pav_fit`` pools tied scores and adjacent violators into blocks; block k
    gets ``llr_k = log(n_ss,k / N_ss) - log(n_ds,k / N_ds)`` [1]_. The curve holds
    ``llr_k / ln 10`` from the lowest score of block k to the lowest of block k+1 (the
    last block to its highest score). Blocks with an infinite LR (only SS or only DS
    trials) are drawn at the edge of the plot with a triangle and named in the legend.

    References
    ----------
    .. [1] N. Brümmer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    fit = metrics.pav_fit(ss_scores, ds_scores)
    scale = _LOG10_E if llr_input else 1.0
    _ = _gettext(language, classes)
    if xlabel is None:
        xlabel = _("log10 LR (input)") if llr_input else _("score")
    with _axes(ax, language) as (ax, own):
        x = np.append(fit.block_low, fit.block_high[-1]) * scale
        y10 = fit.llr * _LOG10_E
        finite = np.isfinite(y10)
        if finite.any():
            low, high = y10[finite].min(), y10[finite].max()
        else:
            low, high = -1.0, 1.0
        pad = 0.1 * max(high - low, 1.0)
        shown = np.clip(y10, low - pad, high + pad)  # +-inf blocks sit at the plot's edge
        colour = color or SS_COLOUR
        ax.step(x, np.append(shown, shown[-1]), where="post", color=colour,
                label=_named(label, _("PAV (optimal) log10 LR")), **line)
        for sign, marker, text in ((1, "^", "+inf"), (-1, "v", "-inf")):
            edge = np.isinf(y10) & (np.sign(y10) == sign)
            if edge.any():
                centre = 0.5 * (fit.block_low[edge] + fit.block_high[edge]) * scale
                ax.plot(centre, shown[edge], marker, color=colour, label=_named(
                    label, _("block with log10 LR = %(inf)s (drawn at the edge)") % {
                        "inf": text}))
        if llr_input:
            span = x[np.isfinite(x)]
            if span.size and _missing(ax, _("y = x (well calibrated)")):
                ends = np.array([span.min(), span.max()])
                ax.plot(ends, ends, color=REF_COLOUR, linestyle=":",
                        label=_("y = x (well calibrated)"))
        _mark_elub(ax, elub_log10, axis="y", language=language)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(_("PAV log10 LR"))
        ax.set_title(_("Pool-adjacent-violators transform"))
        _legend(ax, own)
    return ax.figure


# ------------------------------------------------------------------------ LLR overestimation
def llr_overestimation(
    ss_llr, ds_llr, *, band: bool = True, level: float = 0.95,
    draws: int = FIDUCIAL_DRAWS, seed: int = DEFAULT_SEED,
    case_llr: float | Sequence[float] | None = None,
    case_labels: Sequence[str] | None = None,
    elub_log10: tuple[float, float] | None = None, bounds_rule: str = "elub",
    xlabel: str | None = None, label: str | None = None, color: str | None = None,
    ax: Axes | None = None, language: str = SOURCE_LANGUAGE,
    classes: ClassNames | None = None, **line,
) -> Figure:
    """The LLR overestimation curve over the system's log10 LRs, with its fiducial band.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS (Hp) and DS (Hd) trials (+-inf allowed).
    band : bool
        Draw the fiducial band (default), of coverage ``level`` from ``draws`` fiducial
        distributions per class drawn with ``seed``
        (:func:`forensic_lr.metrics.overestimation.llr_overestimation_band`).
    case_llr : float or sequence of float, optional
        The case's natural-log LR, marked at ``case_llr / ln 10``; one line per value.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_llr`` (legend).
    elub_log10 : (float, float), optional
        The bounds in log10 LR, marked by dotted lines.
    bounds_rule : str
        The rule of those bounds (``"elub"``, ``"iv"``, ``"n-source"``, ``"fixed"``),
        named in the legend.
    xlabel : str, optional
        Label of the x axis (default ``"log10 LR"``).
    label, color, **line
        The system's name before its legend entries, one colour for its lines, further
        matplotlib keywords of its curve.
    ax : matplotlib Axes, optional
        Draw here; default a new Figure.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    ``o(g) = g - log10(f_p(g) / f_d(g))`` at each grid point ``g`` (log10 units; the lir
    package's LLR-overestimation, version 1.8): 0 where the system's LRs are as large as
    their own distributions support, +1 where they are ten times too large. The band's
    edges are dotted; where it is undefined (too few draws with a density) it is not drawn.
    Where the curve is undefined (the classes' LRs do not overlap, or one has no spread)
    the axes say so.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    _ = _gettext(language, classes)
    if band:
        drawn = metrics.llr_overestimation_band(ss, ds, level=level,
                                                               draws=draws, seed=seed)
        curve = None if drawn is None else (drawn.grid, drawn.overestimation)
    else:
        drawn, curve = None, metrics.llr_overestimation_curve(ss, ds)
    colour = color or SS_COLOUR
    with _axes(ax, language) as (ax, own):
        if curve is None:
            note = _("not defined: the log10 LRs of the two classes do not overlap, or one "
                     "class has no spread")
            ax.text(0.5, 0.5, textwrap.fill(note, 60), transform=ax.transAxes, ha="center",
                    va="center")
            ax.set_xticks([])
            ax.set_yticks([])
        else:
            grid, over = curve
            mean = localized(f"{float(np.mean(np.abs(over))):.2f}", language)
            ax.plot(grid, over, color=colour, label=_named(
                label, _("overestimation (mean absolute %(value)s)") % {"value": mean}),
                **line)
            if drawn is not None and np.isfinite(drawn.low).any():
                style = {"color": colour, "linestyle": ":", "linewidth": 1.2}
                ax.plot(grid, drawn.high, **style)
                ax.plot(grid, drawn.low, label=_named(label, _(
                    "%(level)s fiducial interval") % {"level": percent_text(
                        f"{100 * level:g}", language)}), **style)
            if _missing(ax, _("0: LRs as large as their data support")):
                ax.axhline(0.0, color=REF_COLOUR, linestyle="--", linewidth=1.0,
                           label=_("0: LRs as large as their data support"))
            _mark_each(ax, case_marks(case_llr, case_labels, "case_llr"),
                       lambda i: _("this case"), transform=lambda v: v * _LOG10_E)
            _mark_elub(ax, elub_log10, language=language, rule=bounds_rule)
        ax.set_xlabel(_("log10 LR") if xlabel is None else xlabel)
        ax.set_ylabel(_("LLR overestimation (log10)"))
        ax.set_title(_("LLR overestimation curve"))
        _legend(ax, own)
    return ax.figure


# ------------------------------------------------------------------------------- histograms
def _histogram(ax: Axes, ss, ds, bins, *, hidden=(0, 0), label: str | None = None,
               color: str | None = None, line: dict | None = None,
               why: str | None = None, language: str = SOURCE_LANGUAGE,
               classes: ClassNames | None = None) -> None:
    """Density histograms of DS then SS values, one filled step outline each (with
    ``color``: outlines only, the DS one dashed); ``hidden`` counts values not shown and
    ``why`` says which (default "infinite"; "below -1,200", in ``language``)."""
    _ = _gettext(language, classes)
    ss_style, ds_style = _class_styles(color, {})
    filled = {"fill": True, "alpha": 0.45, "linewidth": 0} if color is None else {
        "fill": False, "linewidth": 1.2}
    for values, style, name, n_hidden in (
        (ds, ds_style, _("different source"), hidden[1]),
        (ss, ss_style, _("same source"), hidden[0]),
    ):
        note = ", " + _("%(count)s %(which)s not shown") % {
            "count": localized(f"{n_hidden:,}", language),
            "which": _("infinite") if why is None else why} if n_hidden else ""
        text = _named(label, f"{name} (n = {localized(f'{values.size + n_hidden:,}', language)}"
                             f"{note})")
        if values.size:
            density, edges = np.histogram(values, bins=bins, density=True)
            ax.stairs(density, edges, label=text, **{**filled, **style, **(line or {})})
        else:
            ax.plot([], [], color=style["color"], label=text)


def _bins(values: np.ndarray) -> np.ndarray:
    """Shared bin edges: 10 to 60 bins, about 20 values per bin."""
    if values.size == 0:
        return np.linspace(-1.0, 1.0, 11)
    return np.histogram_bin_edges(values, bins=min(60, max(10, values.size // 20)))


def llr_histogram(
    ss_llr, ds_llr, *, case_llr: float | Sequence[float] | None = None,
    elub_log10: tuple[float, float] | None = None, bounds_rule: str = "elub",
    case_labels: Sequence[str] | None = None,
    label: str | None = None, color: str | None = None, ax: Axes | None = None,
    language: str = SOURCE_LANGUAGE, classes: ClassNames | None = None, **line,
) -> Figure:
    """Histograms of the SS and DS log10 LRs.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS and DS trials; +-inf are counted in the legend, not drawn.
    case_llr : float or sequence of float, optional
        This case's natural-log LR, marked at ``case_llr / ln 10``; one line per value.
    elub_log10 : (float, float), optional
        ELUB bounds in log10 LR, marked by dotted lines.
    bounds_rule : str
        The rule of those bounds (``"elub"``, ``"iv"``, ``"n-source"``, ``"fixed"``),
        named in the legend.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_llr`` (legend).
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for this system: the histograms are then drawn as outlines
        (different source dashed), so that two systems stay readable on one Axes.
    **line
        Further matplotlib keywords for the histograms (``stairs``: ``linewidth``,
        ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Both classes share the bin edges; each histogram is a density (area 1), so classes
    of different sizes compare directly: ``log10 LR = llr / ln 10``.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    ss_ok, ds_ok = np.isfinite(ss), np.isfinite(ds)
    ss10, ds10 = ss[ss_ok] * _LOG10_E, ds[ds_ok] * _LOG10_E
    _ = _gettext(language, classes)
    with _axes(ax, language) as (ax, own):
        bins = _bins(np.concatenate([ss10, ds10]))
        hidden = (int(ss.size - ss_ok.sum()), int(ds.size - ds_ok.sum()))
        _histogram(ax, ss10, ds10, bins, hidden=hidden, label=label, color=color, line=line,
                   language=language, classes=classes)
        _mark_each(ax, case_marks(case_llr, case_labels, "case_llr"), lambda i: _("this case"),
                   transform=lambda v: v * _LOG10_E)
        _mark_elub(ax, elub_log10, language=language, rule=bounds_rule)
        ax.set_xlabel(_("log10 LR"))
        ax.set_ylabel(_("density"))
        ax.set_title(_("Distribution of log10 LRs"))
        _legend(ax, own)
    return ax.figure


def score_densities(
    ss, ds, calibrator=None, *, case_score: float | Sequence[float] | None = None,
    curves: ModelCurves | None = None, elub_log10: tuple[float, float] | None = None,
    bounds_rule: str = "elub",
    direction: str = "higher_is_similar", case_labels: Sequence[str] | None = None,
    label: str | None = None, color: str | None = None, ax: Axes | None = None,
    language: str = SOURCE_LANGUAGE, classes: ClassNames | None = None, **line,
) -> Figure:
    """Histograms of the raw SS and DS scores with the fitted model.

    Parameters
    ----------
    ss, ds : array_like
        Raw (score-like) background scores of SS and DS trials; finite.
    calibrator : fitted calibrator, optional
        If it has ``density(scores) -> (pdf_ss, pdf_ds)`` its class densities are drawn;
        its ``llr`` is drawn as log10 LR on a second y axis.
    case_score : float or sequence of float, optional
        This case's score, marked by a vertical line (the grid is widened to include it);
        one line per value.
    curves : ModelCurves, optional
        The model already evaluated (:func:`model_curves`); used instead of
        ``calibrator``, which is then not called.
    elub_log10 : (float, float), optional
        ELUB bounds in log10 LR, marked by dotted lines on the log10 LR axis.
    bounds_rule : str
        The rule of those bounds, named in the legend (as :func:`tippett`).
    direction : {"higher_is_similar", "lower_is_similar"}
        How the scores were measured. With ``"lower_is_similar"`` the inputs (scores, case
        score, ``curves``) are the negated distances the model uses, and the figure draws
        them as measured: the x axis is the distance (``d = -s``), lower = more similar.
    case_labels : sequence of str, optional
        The comparisons' labels, one per value of ``case_score`` (legend).
    label : str, optional
        The system's name, put before each of its legend entries (``"old: ..."``).
    color : str, optional
        One colour for this system (histograms, fitted densities and log10 LR curve):
        the histograms are then drawn as outlines and the different-source lines dashed,
        so that two systems stay readable on one Axes (they share the right-hand axis).
    **line
        Further matplotlib keywords for the histograms (``stairs``: ``linewidth``,
        ``alpha``, ...).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure.
    language : str
        The language of the figure's texts and numbers (default English).
    classes : ClassNames, optional
        How the texts name the two classes of trials (default: same-source and
        different-source; :mod:`forensic_lr.i18n.classes`).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    For a generative model the LR curve is ``log10 LR(s) = log10 pdf_ss(s) - log10
    pdf_ds(s)``: the right axis reads the ratio of the two drawn densities.
    """
    ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False)
    if curves is None and calibrator is not None:
        curves = model_curves(calibrator, ss, ds, case_score=case_score)
    distance = direction == "lower_is_similar"
    low, _ = shown_range(ss, ds)  # a far tail of DS scores is cut (and counted)
    hidden = (int((ss < low).sum()), int((ds < low).sum()))
    ss, ds = orient(ss[ss >= low], direction), orient(ds[ds >= low], direction)  # as measured
    _ = _gettext(language, classes)
    edge = localized(f"{float(orient(low, direction)):,.4g}", language)
    beyond = (_("above %(edge)s") if distance else _("below %(edge)s")) % {"edge": edge}
    marks = case_marks(case_score, case_labels, "case_score")
    with _axes(ax, language) as (ax, own):
        _histogram(ax, ss, ds, _bins(np.concatenate([ss, ds])), label=label, color=color,
                   line=line, hidden=hidden, why=beyond, language=language, classes=classes)
        grid = None if curves is None else orient(curves.score, direction)
        if curves is not None and curves.pdf_ss is not None:
            ss_style, ds_style = _class_styles(color, {})
            ax.plot(grid, curves.pdf_ss, label=_named(label, _("fitted same-source density")),
                    **ss_style)
            ax.plot(grid, curves.pdf_ds,
                    label=_named(label, _("fitted different-source density")), **ds_style)
        _mark_each(ax, marks,
                   lambda i: _("this case's distance") if distance else _("this case's score"),
                   transform=lambda v: float(orient(v, direction)))
        ax.set_xlabel(_("distance (lower = more similar)") if distance else _("score"))
        ax.set_ylabel(_("density"))
        twin = None
        if curves is not None:
            twin = _twin(ax)
            twin.plot(grid, curves.log10_lr, color=color or "black", linewidth=1,
                      linestyle="-.", label=_named(label, _("log10 LR (right axis)")))
            _mark_elub(twin, elub_log10, axis="y", language=language,
                       rule=bounds_rule)
            twin.set_ylabel(_("log10 LR"))
            twin.grid(False)
        _legend(ax, own, twin)
        ax.set_title(_("Background distances and the fitted model") if distance
                     else _("Background scores and the fitted model"))
    return ax.figure


def _twin(ax: Axes) -> Axes:
    """The Axes' right-hand twin: the one a first system made, else a new one."""
    for other in ax.figure.axes:
        if other is not ax and other.get_shared_x_axes().joined(other, ax) and (
                other.yaxis.get_label_position() == "right"):
            return other
    return ax.twinx()


# ------------------------------------------------------------------- multiclass, comparison
def reliability(diagram, *, title: str | None = None, ax: Axes | None = None,
                language: str = SOURCE_LANGUAGE) -> Figure:
    """Top-label reliability diagram (:func:`~forensic_lr.studies.multiclass.reliability_diagram`).

    Bars give each bin's accuracy, dots its (mean confidence, accuracy); the dotted
    diagonal is perfect calibration (Guo et al. 2017, "On calibration of modern neural
    networks", ICML). ``title`` defaults to "Reliability diagram" (in ``language``).
    Returns the Figure (drawn into ``ax`` if given).
    """
    _ = _gettext(language)
    if title is None:
        title = _("Reliability diagram")
    with _axes(ax, language) as (ax, own):
        used = diagram.count > 0
        edges = diagram.bin_edges
        centres = 0.5 * (edges[:-1] + edges[1:])
        widths = np.diff(edges)
        ax.bar(centres[used], diagram.accuracy[used], width=widths[used] * 0.95,
               color=SS_COLOUR, alpha=0.6, label=_("accuracy in bin"))
        ax.plot(diagram.confidence[used], diagram.accuracy[used], "o", color=SS_COLOUR,
                markersize=3, label=_("(mean confidence, accuracy)"))
        ax.plot([0, 1], [0, 1], color=REF_COLOUR, linestyle=":",
                label=_("perfect calibration"))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel(_("confidence (top-label probability)"))
        ax.set_ylabel(_("accuracy"))
        ax.set_title(f"{title}: ECE = {localized(f'{diagram.ece:.3f}', language)}")
        _legend(ax, own)
    return ax.figure


def paired_comparison(comparison, *, ax: Sequence[Axes] | None = None,
                      language: str = SOURCE_LANGUAGE) -> Figure:
    """Bootstrap distributions of the paired differences in Cllr and minCllr (``a - b``).

    Parameters
    ----------
    comparison : forensic_lr.validation.bootstrap.PairedComparison
        Its ``replicates`` (NaN replicates are skipped; infinite ones are counted in the
        title), its intervals of the differences, ``level``, ``interval`` and ``names``.
    ax : pair of matplotlib Axes, optional
        The two panels (Cllr, minCllr); default a new Figure with two subplots.
    language : str
        The language of the figure's texts and numbers (default English).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    One histogram per metric, a dashed line at 0 (no difference) and the reported
    interval as a shaded band: when the band lies left of 0, system ``a`` has the lower
    cost.
    """
    from .validation import INTERVALS

    a, b = comparison.names
    _ = _gettext(language)
    level = f"{100 * comparison.level:g}"  # "95%" in English, as always written
    level = f"{level}%" if language == SOURCE_LANGUAGE else percent_text(level, language)
    interval = (_("%(level)s bias-corrected percentile interval")
                if INTERVALS[comparison.interval] == "bias-corrected percentile"
                else _("%(level)s percentile interval"))
    own = ax is None
    with contextlib.ExitStack() as stack:
        if own:
            stack.enter_context(_package_style(_STYLE))
            axes = Figure(figsize=_SIZE, layout="constrained").subplots(1, 2, sharey=False)
        else:
            axes = tuple(ax)
            if len(axes) != 2:
                raise InputError(f"paired_comparison draws two panels: pass two Axes, "
                                 f"got {len(axes)}")
        panels = (
            (comparison.replicates["cllr"], comparison.cllr_diff, "Cllr"),
            (comparison.replicates["min_cllr"], comparison.min_cllr_diff, "minCllr"),
        )
        for panel, (values, diff, label), colour in zip(
            axes, panels, (SS_COLOUR, DS_COLOUR), strict=True
        ):
            v = np.asarray(values, dtype=np.float64)
            v = v[~np.isnan(v)]
            finite = v[np.isfinite(v)]
            title = f"{label}: {a} - {b} (" + _("bits") + ")"
            if finite.size < v.size:
                title += "\n" + _("%(count)s infinite replicate(s) not drawn") % {
                    "count": localized(f"{v.size - finite.size:,}", language)}
            if finite.size:
                counts, edges = np.histogram(finite, bins=40)
                panel.stairs(counts, edges, fill=True, color=colour, alpha=0.6, linewidth=0,
                             label=_("bootstrap replicates"))
            if np.isfinite(diff.low) and np.isfinite(diff.high):
                panel.axvspan(diff.low, diff.high, color=colour, alpha=0.15,
                              label=interval % {"level": level})
            panel.axvline(0.0, color=REF_COLOUR, linestyle="--", label=_("no difference"))
            panel.set_xlabel(_("difference in %(metric)s (bits)") % {"metric": label})
            panel.set_title(title)
        axes[0].set_ylabel(_("replicates"))
        _legend(axes[0], own)
        _localize_ticks(axes[0].figure, language)
        if own:
            _fix_tick_labels(axes[0].figure)
    return axes[0].figure


# ------------------------------------------------------------------------------ sensitivity
def sensitivity(
    record, *, evidence: int = 0, elub_log10: tuple[float, float] | None = None,
    ax: Axes | None = None, language: str = SOURCE_LANGUAGE,
) -> Figure:
    """The LR of one evidence score under each alternative choice: one dot per row.

    Parameters
    ----------
    record : forensic_lr.records.Sensitivity
        What :func:`forensic_lr.casework.sensitivity.sensitivity_analysis` returns.
    evidence : int
        Which evidence score (index into ``record.labels``).
    elub_log10 : (low, high), optional
        ELUB bounds (log10 LR) to mark with dotted lines (each bound within one log10
        unit of the values drawn; a bound far away would squeeze the dots).
    ax : matplotlib Axes, optional
        Draw here; default a new Figure (its height grows with the number of rows).
    language : str
        The language of the figure's texts and numbers (default English); the rows'
        labels are the record's.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Rows are the calibrators (the case's own in the case colour), then the relevance
    factors of the suspect-adapted method when present; the background bootstrap is a
    horizontal bar from its low to its high quantile with its median. The dots are the
    models' own values (unbounded); the dashed vertical line is the reported value (the
    case's, limited to the record's ``elub_log10`` when the case applies it); the x axis
    is log10 LR.
    """
    rows = [  # the case's relevance row repeats the case's own method row
        r for r in record.rows if r.log10_lr[evidence] is not None
        and not (r.group == "relevance" and r.is_case)
    ]
    names = [r.label for r in rows]
    values = [float(r.log10_lr[evidence]) for r in rows]
    boot = record.bootstrap
    _ = _gettext(language)
    if boot is not None:
        names.append(_("background bootstrap (sources)") if boot.by == "source"
                     else _("background bootstrap (trials)"))
    reported = record.case_log10_lr[evidence]
    limit = getattr(record, "elub_log10", None)
    rule = getattr(record, "bounds_rule", "elub")  # names the bounds in the legend
    if reported is not None and limit is not None:
        reported = min(max(reported, limit[0]), limit[1])
    if ax is None:
        height = min(1.3 + 0.17 * len(names), 4.2)
        with _package_style(_STYLE):
            fig = Figure(figsize=(_SIZE[0], height))
            ax = fig.add_subplot()
            _draw_sensitivity(ax, rows, names, values, boot, evidence, elub_log10, reported,
                              language, rule)
            _legend(ax, True)
            _localize_ticks(fig, language)
            _fix_tick_labels(fig)
            _fit(fig)
        return fig
    _draw_sensitivity(ax, rows, names, values, boot, evidence, elub_log10, reported, language,
                      rule)
    _legend(ax, False)
    _localize_ticks(ax.figure, language)
    return ax.figure


def _draw_sensitivity(ax, rows, names, values, boot, evidence, elub_log10, case,
                      language: str = SOURCE_LANGUAGE, rule: str = "elub") -> None:
    _ = _gettext(language)
    y = np.arange(len(names))[::-1]
    colours = [CASE_COLOUR if r.is_case else SS_COLOUR for r in rows]
    ax.scatter(values, y[: len(values)], color=colours, zorder=3, s=18)
    if boot is not None:
        yb = y[-1]
        ax.plot([boot.log10_lr_low[evidence], boot.log10_lr_high[evidence]], [yb, yb],
                color=REF_COLOUR, linewidth=3, solid_capstyle="butt",
                label=_("%(level)s of bootstrap refits") % {
                    "level": percent_text(f"{100 * boot.level:g}", language)})
        ax.scatter([boot.log10_lr_median[evidence]], [yb], color=REF_COLOUR, marker="|",
                   s=80, zorder=3)
    drawn = list(values)
    if case is not None:
        ax.axvline(case, color=CASE_COLOUR, linewidth=1.2, linestyle="--",
                   label=_("reported value"))
        drawn.append(case)
    if boot is not None:
        drawn += [boot.log10_lr_low[evidence], boot.log10_lr_high[evidence]]
    low, high = min(drawn), max(drawn)
    pad = max(0.1 * (high - low), 0.1)
    if elub_log10 is not None:  # a bound far from every value would squeeze the dots
        near = [b for b in elub_log10 if low - 1.0 <= b <= high + 1.0]
        low, high = min([low, *near]), max([high, *near])
        for b in near:
            ax.axvline(b, color=ELUB_COLOUR, linestyle=":", linewidth=1.4,
                       label=_elub_label(elub_log10, language, rule)
                       if b == near[0] else None)
    ax.set_xlim(low - pad, high + pad)
    ax.set_yticks(y, names)
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(_("log10 LR"))
    ax.set_title(_("How the LR depends on the method and the background"))


# ----------------------------------------------------------- SVG text for reports and the CLI
tippett_svg = _svg_of(tippett, "tippett_svg")
ape_svg = _svg_of(ape, "ape_svg")
ece_svg = _svg_of(ece, "ece_svg")
det_svg = _svg_of(det, "det_svg")
roc_svg = _svg_of(roc, "roc_svg")
pav_svg = _svg_of(pav, "pav_svg")
llr_overestimation_svg = _svg_of(llr_overestimation, "llr_overestimation_svg")
llr_histogram_svg = _svg_of(llr_histogram, "llr_histogram_svg")
score_density_svg = _svg_of(score_densities, "score_density_svg")
reliability_svg = _svg_of(reliability, "reliability_svg")
paired_comparison_svg = _svg_of(paired_comparison, "paired_comparison_svg")
sensitivity_svg = _svg_of(sensitivity, "sensitivity_svg")


def llr_figures(ss_llr, ds_llr, *, xlabel: str = N_("input log10 LR"),
                language: str = SOURCE_LANGUAGE,
                classes: ClassNames | None = None) -> dict[str, str]:
    """The validation figures of one set of natural-log LLRs, file name -> SVG text.

    Tippett (types I and II), APE, ECE, DET, ROC, PAV and the LLR overestimation with its
    fiducial band (``xlabel`` names their x axis: the input or the out-of-fold log10 LR,
    translated by the ``report`` catalogue) and the LLR histogram, in ``language``, the two
    classes of trials named as ``classes`` says: what ``forensic-lr validate --plots DIR``
    writes.
    """
    xlabel = _gettext(language)(xlabel)
    words = {"language": language, "classes": classes}
    return {
        "tippett.svg": tippett_svg(ss_llr, ds_llr, **words),
        "tippett_type2.svg": tippett_svg(ss_llr, ds_llr, kind="II", **words),
        "ape.svg": ape_svg(ss_llr, ds_llr, **words),
        "ece.svg": ece_svg(ss_llr, ds_llr, **words),
        "det.svg": det_svg(ss_llr, ds_llr, **words),
        "roc.svg": roc_svg(ss_llr, ds_llr, **words),
        "pav.svg": pav_svg(ss_llr, ds_llr, llr_input=True, xlabel=xlabel, **words),
        "llr_hist.svg": llr_histogram_svg(ss_llr, ds_llr, **words),
        "llr_overestimation.svg": llr_overestimation_svg(ss_llr, ds_llr, xlabel=xlabel,
                                                         **words),
    }
