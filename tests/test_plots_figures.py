"""Figures as matplotlib Figures: no global state, ``ax=`` composition, compact SVG that
draws the same picture, the EER on the drawn hull, counts with rates, ELUB marks, y = x."""

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from scipy.spatial import ConvexHull
from scipy.stats import norm

from forensic_lr import plots
from forensic_lr.calibration import make_calibrator
from forensic_lr.report.figures import case_figures
from forensic_lr.studies.multiclass import reliability_diagram, softmax

LN10 = math.log(10.0)

ROOT = Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(7)
SS, DS = RNG.normal(2, 1.5, 60), RNG.normal(-2, 1.5, 150)


def _comparison():
    from forensic_lr.validation import compare_systems

    return compare_systems(SS, DS, 0.8 * SS, 0.8 * DS, names=("a", "b"), n=60, seed=1)


def _diagram():
    z = RNG.normal(size=(200, 3)) * 3
    return reliability_diagram(softmax(z), RNG.integers(0, 3, 200))


# one call per figure function, drawing into ``ax``
DRAW = {
    "tippett": lambda ax: plots.tippett(SS, DS, case_llr=0.5 * LN10, ax=ax),
    "det": lambda ax: plots.det(SS, DS, case_llr=1.0, ax=ax),
    "ape": lambda ax: plots.ape(SS, DS, case_llr=1.0, ax=ax),
    "ece": lambda ax: plots.ece(SS, DS, ax=ax),
    "pav": lambda ax: plots.pav(SS, DS, llr_input=True, ax=ax),
    "roc": lambda ax: plots.roc(SS, DS, ax=ax),
    "score_densities": lambda ax: plots.score_densities(
        SS, DS, make_calibrator("gaussian").fit(SS, DS), case_score=1.0, ax=ax),
    "llr_histogram": lambda ax: plots.llr_histogram(SS, DS, case_llr=1.0, ax=ax),
    "llr_overestimation": lambda ax: plots.llr_overestimation(SS, DS, case_llr=1.0, ax=ax),
    "reliability": lambda ax: plots.reliability(_diagram(), ax=ax),
}


# ------------------------------------------------------------------------ no global state
def test_importing_the_package_keeps_the_users_backend():
    code = (
        "import matplotlib; matplotlib.use('svg')\n"
        "import sys, numpy as np\n"
        "import forensic_lr, forensic_lr.plots, forensic_lr.casework, forensic_lr.report\n"
        "from forensic_lr.report import figures\n"
        "fig = forensic_lr.plots.det(np.array([1.0, 2.0]), np.array([0.0, 1.5]))\n"
        "forensic_lr.plots.to_svg(fig)\n"
        "print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.stdout.split() == ["svg", "False"]


def test_no_backend_selection_or_pyplot_in_the_source():
    text = (ROOT / "forensic_lr" / "plots.py").read_text()
    assert "matplotlib.use(" not in text
    assert not re.search(r"import .*pyplot|pyplot\.\w+\(", text)


def test_drawing_leaves_rcparams_as_they_were():
    before = dict(matplotlib.rcParams)
    plots.tippett_svg(SS, DS, case_llr=1.0 * LN10)
    plots.paired_comparison(_comparison())
    after = dict(matplotlib.rcParams)
    assert {k for k in before if before[k] != after[k]} == set()


# ------------------------------------------------------------------------------- ax= and Figure
@pytest.mark.parametrize("name", sorted(DRAW))
def test_each_function_returns_a_new_figure_in_the_package_style(name):
    fig = DRAW[name](None)
    assert isinstance(fig, Figure)
    assert tuple(fig.get_size_inches()) == pytest.approx((6.3, 3.6))
    assert len(fig.legends) == 1  # below the axes


@pytest.mark.parametrize(("first", "second"), [
    ("tippett", "det"), ("ape", "ece"), ("pav", "roc"), ("score_densities", "llr_histogram"),
    ("reliability", "tippett"),
])
def test_two_figures_compose_into_one_figures_subplots(first, second):
    fig = Figure(figsize=(10, 4))
    left, right = fig.subplots(1, 2)
    assert DRAW[first](left) is fig
    assert DRAW[second](right) is fig
    for ax in (left, right):
        assert ax.get_lines() or ax.patches  # something was drawn in each panel
        assert ax.get_legend() is not None  # the legend stays inside its own panel
    assert not fig.legends
    assert plots.to_svg(fig).lstrip().startswith("<?xml")


def test_paired_comparison_draws_into_two_given_axes():
    fig = Figure()
    axes = fig.subplots(1, 2)
    assert plots.paired_comparison(_comparison(), ax=axes) is fig
    assert all(ax.patches for ax in axes)
    from forensic_lr.errors import InputError

    with pytest.raises(InputError, match="two Axes"):
        plots.paired_comparison(_comparison(), ax=[axes[0]])


def test_svg_wrappers_keep_their_names_and_signatures():
    for name in ("tippett_svg", "ape_svg", "ece_svg", "det_svg", "roc_svg", "pav_svg",
                 "llr_histogram_svg", "score_density_svg", "reliability_svg",
                 "paired_comparison_svg"):
        assert getattr(plots, name).__name__ == name
    assert plots.pav_svg(SS, DS, xlabel="score").startswith("<?xml")
    assert plots.score_density_svg(SS, DS, make_calibrator("gaussian").fit(SS, DS),
                                   case_score=0.5).startswith("<?xml")
    assert ">Test: ECE = " in plots.reliability_svg(_diagram(), title="Test")
    assert "no difference" in plots.paired_comparison_svg(_comparison())


# -------------------------------------------------------------------------- compact SVG
def _raw_svg(fig) -> str:
    import io

    buffer = io.StringIO()
    with matplotlib.rc_context(plots._SVG_STYLE):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


_DRAWN = ("path", "text", "use", "rect")
_INHERITED = ("fill", "stroke", "stroke-linejoin", "stroke-linecap", "clip-path",
              "font-size", "font-family", "text-anchor")


def _painted(svg: str) -> list[tuple]:
    """Every drawn element in document order with its effective style and numbers.

    Style comes from presentation attributes, ``style`` declarations and the global
    ``*{...}`` rule; inherited properties flow down from groups. Elements inside
    ``<defs>``/``<clipPath>`` are definitions, compared through their references.
    """
    root = ET.fromstring(svg[svg.find("<svg"):].encode())
    star = {}
    for style in root.iter("{http://www.w3.org/2000/svg}style"):
        for decl in re.findall(r"\*\{([^}]*)\}", style.text or ""):
            star.update(p.split(":", 1) for p in decl.split(";") if p.strip())
    star = {k.strip(): v.strip() for k, v in star.items()}
    out = []

    def walk(node, inherited, in_defs):
        tag = node.tag.split("}")[-1]
        own = {k: v for k, v in node.attrib.items() if "}" not in k}
        for part in own.pop("style", "").split(";"):
            if ":" in part:
                k, v = part.split(":", 1)
                own[k.strip()] = v.strip()
        style = {**star, **{k: v for k, v in inherited.items() if k in _INHERITED}, **own}
        in_defs = in_defs or tag in ("defs", "clipPath", "metadata")
        if tag in _DRAWN and not in_defs:
            numbers = []
            for key in ("d", "x", "y", "width", "height", "transform"):
                value = style.pop(key, "")
                if key == "transform" and value.startswith("rotate(-0 "):
                    value = ""
                numbers += [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", value)]
            style.pop("id", None)
            href = node.attrib.get("{http://www.w3.org/1999/xlink}href")
            out.append((tag, (node.text or "").strip(), href, tuple(sorted(style.items())),
                        np.array(numbers)))
        for child in node:
            walk(child, style, in_defs)

    walk(root, {}, False)
    return out


@pytest.mark.parametrize("name", ["tippett", "det", "score_densities", "llr_histogram", "pav"])
def test_compact_svg_paints_the_same_elements_in_the_same_style(name, monkeypatch):
    # element by element, before tick marks and grid lines are merged into one path each
    # (tests/test_plots_svg_size.py checks that step)
    monkeypatch.setattr(plots, "_merged_rules", lambda svg: svg)
    fig = DRAW[name](None)
    raw, compact = _raw_svg(fig), plots._compact(_raw_svg(fig))
    before, after = _painted(raw), _painted(compact)
    assert len(after) == len(before)
    for (t0, x0, h0, s0, n0), (t1, x1, h1, s1, n1) in zip(before, after, strict=True):
        assert (t0, x0, h0) == (t1, x1, h1)
        assert dict(s1) == dict(s0)
        np.testing.assert_allclose(n1, n0, atol=0.005 + 1e-9)  # rounded to 0.01 pt


def test_compact_svg_is_small_valid_and_attribute_only():
    svg = plots.llr_histogram_svg(SS, DS, case_llr=1.0)
    root = ET.fromstring(svg.encode())
    assert root.tag.endswith("svg")
    assert ' style="' not in svg and "<metadata>" not in svg and "DOCTYPE" not in svg
    assert not re.search(r"\d\.\d{3}", svg.split("<text", 1)[0])  # at most 2 decimals
    assert not re.search(r'<g id="[^"]*">', svg)  # id-only wrappers dropped


def test_histograms_are_one_path_per_class():
    fig = plots.llr_histogram(SS, DS)
    assert len(fig.axes[0].patches) == 2  # one filled step outline per class, not a bar each
    density, edges = np.histogram(SS / np.log(10), bins=plots._bins(
        np.concatenate([SS, DS]) / np.log(10)), density=True)
    drawn = next(p for p in fig.axes[0].patches if "same source" in p.get_label())
    np.testing.assert_allclose(drawn.get_data().values, density)
    np.testing.assert_allclose(drawn.get_data().edges, edges)


# -------------------------------------------------------------------------------- DET / EER
def _hull_crossing(ss, ds) -> float:
    """EER by an independent route: the lower-left convex hull of the ROC points (scipy
    Qhull) intersected with p_miss = p_fa."""
    thresholds = np.concatenate([[-np.inf], np.unique(np.concatenate([ss, ds]))])
    p_miss = np.array([np.mean(ss <= t) for t in thresholds])
    p_fa = np.array([np.mean(ds > t) for t in thresholds])
    points = np.column_stack([p_fa, p_miss])
    points = np.vstack([points, [1.0, 1.0]])  # close the region above the curve
    hull = ConvexHull(points)
    best = 0.5
    for a, b in hull.simplices:  # edges of the hull; the EER is the lowest diagonal crossing
        (x0, y0), (x1, y1) = points[a], points[b]
        denom = (y1 - y0) - (x1 - x0)
        if denom == 0:
            continue
        t = (x0 - y0) / denom
        if -1e-12 <= t <= 1 + 1e-12:
            best = min(best, y0 + t * (y1 - y0))
    return best


def _det_parts(fig):
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    eer = next(ln for label, ln in lines.items() if label.startswith("EER"))
    return lines["convex hull"], eer


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 40), st.integers(3, 80), st.floats(0.2, 3.0), st.integers(0, 10**6))
def test_eer_point_is_the_hull_crossing_and_lies_on_the_drawn_hull(n_ss, n_ds, shift, seed):
    rng = np.random.default_rng(seed)
    ss = np.round(rng.normal(shift, 1.0, n_ss), 1)  # rounding makes ties across classes
    ds = np.round(rng.normal(0.0, 1.0, n_ds), 1)
    expected = _hull_crossing(ss, ds)
    fig = plots.det(ss, ds)
    hull, point = _det_parts(fig)
    if not point.get_xdata().size:  # drawn outside the range: only then may it be absent
        assert expected <= 0 or expected > 0.9
        return
    x, y = point.get_xdata()[0], point.get_ydata()[0]
    assert x == y
    assert norm.cdf(x) == pytest.approx(expected, abs=1e-9)
    # the marker is a vertex of the drawn hull line
    hx, hy = np.asarray(hull.get_xdata()), np.asarray(hull.get_ydata())
    assert np.any((hx == x) & (hy == y))


def test_drawn_hull_follows_the_hull_between_distant_vertices():
    ss, ds = np.array([0.5, 1.5, 2.5]), np.array([-1.0, 0.0, 1.0, 2.0])
    hull_line, _ = _det_parts(plots.det(ss, ds))
    fa, miss = norm.cdf(hull_line.get_xdata()), norm.cdf(hull_line.get_ydata())
    ok = np.isfinite(hull_line.get_xdata()) & np.isfinite(hull_line.get_ydata())
    from forensic_lr.metrics import roc_convex_hull

    h = roc_convex_hull(ss, ds)
    # every drawn point lies on the piecewise-linear hull in (p_fa, p_miss) space
    order = np.argsort(h.p_fa)
    np.testing.assert_allclose(miss[ok], np.interp(fa[ok], h.p_fa[order], h.p_miss[order]),
                               atol=1e-9)
    assert ok.sum() > 2 * h.p_fa.size  # sampled along the segments, not only at vertices


def test_small_background_det_shows_the_data():
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(2.0, 1.0, 12), rng.normal(-1.0, 1.0, 40)
    fig = plots.det(ss, ds)
    ax = fig.axes[0]
    x_lim, y_lim = norm.cdf(ax.get_xlim()), norm.cdf(ax.get_ylim())
    assert x_lim[0] <= 1 / 40 and y_lim[0] <= 1 / 12  # the smallest rates are inside
    assert y_lim[0] >= 0.01  # and the axis does not start far below them
    curve = next(ln for ln in ax.get_lines() if ln.get_label() == "DET")
    px, py = norm.cdf(curve.get_xdata()), norm.cdf(curve.get_ydata())
    inside = (px >= x_lim[0]) & (px <= x_lim[1]) & (py >= y_lim[0]) & (py <= y_lim[1])
    assert inside.any()


# --------------------------------------------------------------------------- counts and rates
@pytest.mark.parametrize(("count", "total", "text"), [
    (1, 3000, "1 of 3,000 (0.03 %)"), (0, 12, "0 of 12 (0 %)"), (12, 12, "12 of 12 (100 %)"),
    (227, 300, "227 of 300 (75.7 %)"), (5, 12, "5 of 12 (41.7 %)"), (3, 2000, "3 of 2,000 (0.1 %)"),
    (7, 100000, "7 of 100,000 (0.007 %)"),
])
def test_count_with_rate(count, total, text):
    assert plots.count_with_rate(count, total) == text


def test_det_case_annotation_gives_counts_with_rates():
    ss = np.linspace(-1.0, 5.0, 300)
    ds = np.concatenate([np.linspace(-6.0, 2.0, 2999), [6.0]])  # one DS beyond the case
    fig = plots.det(ss, ds, case_llr=5.5)
    label = next(ln.get_label() for ln in fig.axes[0].get_lines()
                 if ln.get_label().startswith("threshold"))
    n_miss = int(np.sum(ss < 5.5))  # brute force: every SS trial is below 5.5
    assert "false alarms 1 of 3,000 (0.03 %)" in label
    assert f"misses {n_miss} of 300 (100 %)" in label
    assert "0.0 %" not in label


@pytest.mark.parametrize("kind", ["I", "II"])
@pytest.mark.parametrize("case", [0.7, -0.7])
def test_tippett_case_annotation_counts_match_brute_force(kind, case):
    # The legend counts the trials that support the case's side at least as strongly
    # (at or above an LR >= 1, at or below an LR < 1) and says which, in both forms.
    fig = plots.tippett(SS, DS, case_llr=case * LN10, kind=kind)
    label = next(ln.get_label() for ln in fig.axes[0].get_lines()
                 if ln.get_label().startswith("this case"))
    ss10, ds10 = SS / np.log(10), DS / np.log(10)
    if case >= 0:
        n_ss, n_ds = sum(v >= case for v in ss10), sum(v >= case for v in ds10)
        assert label.startswith("this case; LRs at or above it:")
    else:
        n_ss, n_ds = sum(v <= case for v in ss10), sum(v <= case for v in ds10)
        assert label.startswith("this case; LRs at or below it:")
    assert f"same source {plots.count_with_rate(n_ss, SS.size)}" in label
    assert f"different source {plots.count_with_rate(n_ds, DS.size)}" in label


def _case_point(fig):
    line = next(ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("threshold"))
    return line, norm.cdf(line.get_xdata()[0]), norm.cdf(line.get_ydata()[0])


@pytest.mark.parametrize("case_llr", [0.5, 3.0, 4.0, -0.5])
def test_det_case_point_is_drawn_where_it_is(case_llr):
    # A strong case LR leaves most SS trials below it (miss rate far above 50 %): the axes
    # reach that point instead of stopping at 50 %.
    rng = np.random.default_rng(11)
    ss, ds = rng.normal(2.0, 1.0, 400), rng.normal(-1.0, 2.0, 900)
    assert 0 < np.mean(ds >= case_llr) < 1 and 0 < np.mean(ss < case_llr) < 1
    fig = plots.det(ss, ds, case_llr=case_llr)
    line, p_fa, p_miss = _case_point(fig)
    assert line.get_marker() == "s" and "drawn at the axis edge" not in line.get_label()
    assert p_fa == pytest.approx(np.mean(ds >= case_llr), rel=1e-9)  # brute force
    assert p_miss == pytest.approx(np.mean(ss < case_llr), rel=1e-9)
    x_lim, y_lim = norm.cdf(fig.axes[0].get_xlim()), norm.cdf(fig.axes[0].get_ylim())
    assert x_lim[0] < p_fa < x_lim[1] and y_lim[0] < p_miss < y_lim[1]


def test_det_case_point_beyond_every_trial_is_drawn_at_the_edge():
    rng = np.random.default_rng(11)
    ss, ds = rng.normal(2.0, 1.0, 400), rng.normal(-1.0, 1.2, 900)
    case_llr = ds.max() + 0.01  # no false alarm: a rate of 0 has no probit position
    line, p_fa, p_miss = _case_point(plots.det(ss, ds, case_llr=case_llr))
    assert line.get_marker() == "<" and "0 % and 100 % drawn at the axis edge" in line.get_label()
    x_lim = norm.cdf(plots.det(ss, ds, case_llr=case_llr).axes[0].get_xlim())
    assert p_fa == pytest.approx(x_lim[0]) and p_miss == pytest.approx(np.mean(ss < case_llr))


# -------------------------------------------------------------------------------- ELUB, PAV
def _elub_lines(ax):
    return [ln for ln in ax.get_lines() if ln.get_color() == plots.ELUB_COLOUR]


@pytest.mark.parametrize("name", ["tippett", "llr_histogram", "llr_overestimation"])
def test_elub_bounds_marked_on_the_log10_lr_axis(name):
    fig = getattr(plots, name)(SS, DS, elub_log10=(-1.25, 2.5))
    lines = _elub_lines(fig.axes[0])
    assert sorted(ln.get_xdata()[0] for ln in lines) == [-1.25, 2.5]
    assert lines[0].get_label() == "ELUB (log10 LR -1.25, +2.50)"
    assert not _elub_lines(getattr(plots, name)(SS, DS).axes[0])


@pytest.mark.parametrize("name", ["llr_histogram", "llr_overestimation"])
def test_each_comparison_is_marked_at_its_log10_lr(name):
    """natural-log LRs 1.0 and -2.3 are drawn at 1/ln 10 and -2.3/ln 10 (log10 units)."""
    fig = getattr(plots, name)(SS, DS, case_llr=[1.0, -2.3], case_labels=["Q1-K1", "Q2-K1"])
    marks = {ln.get_label(): ln.get_xdata()[0] for ln in fig.axes[0].get_lines()
             if ln.get_label() in ("Q1-K1", "Q2-K1")}
    assert marks == pytest.approx({"Q1-K1": 1.0 / math.log(10), "Q2-K1": -2.3 / math.log(10)})


def test_elub_bounds_marked_on_the_pav_and_density_lr_axes():
    fig = plots.pav(SS, DS, llr_input=True, elub_log10=(-1.0, 1.5))
    assert sorted(ln.get_ydata()[0] for ln in _elub_lines(fig.axes[0])) == [-1.0, 1.5]
    fig = plots.score_densities(SS, DS, make_calibrator("gaussian").fit(SS, DS),
                                elub_log10=(-1.0, 1.5))
    right = fig.axes[1]  # the log10 LR axis
    assert sorted(ln.get_ydata()[0] for ln in _elub_lines(right)) == [-1.0, 1.5]


def test_pav_of_llrs_is_log10_on_both_axes_with_the_identity_line():
    fig = plots.pav(SS, DS, llr_input=True)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    from forensic_lr.metrics import pav_fit

    fit = pav_fit(SS, DS)
    step = lines["PAV (optimal) log10 LR"]
    np.testing.assert_allclose(step.get_xdata()[:-1], fit.block_low / np.log(10))
    identity = lines["y = x (well calibrated)"]
    np.testing.assert_allclose(identity.get_xdata(), identity.get_ydata())
    np.testing.assert_allclose(identity.get_xdata(),
                               [min(SS.min(), DS.min()) / np.log(10),
                                max(SS.max(), DS.max()) / np.log(10)])
    assert ax.get_xlabel() == "log10 LR (input)" and ax.get_ylabel() == "PAV log10 LR"
    assert "y = x (well calibrated)" not in {ln.get_label() for ln in
                                             plots.pav(SS, DS).axes[0].get_lines()}


def test_validation_report_caption_matches_the_pav_figure():
    template = (ROOT / "templates" / "validation_report.html").read_text()
    caption = next(line for line in template.splitlines() if "figures.pav" in line)
    assert "y = x." in caption and "ln 10" not in caption and "natural log" not in caption


# ------------------------------------------------------------------- model curves, once
class Counting:
    """A fitted calibrator that counts its calls."""

    def __init__(self, inner):
        self.inner, self.calls = inner, {"density": 0, "llr": 0}

    def density(self, s):
        self.calls["density"] += 1
        return self.inner.density(s)

    def llr(self, s):
        self.calls["llr"] += 1
        return self.inner.llr(s)


def test_case_figures_evaluate_the_model_once():
    """The model is evaluated once, on the grid (the run's curves); the report's figures
    add no evaluation."""
    model = Counting(make_calibrator("kde").fit(SS, DS))
    first = SimpleNamespace(llr=1.2, log10_lr=1.2 / np.log(10), label="E1")
    run = SimpleNamespace(
        result=SimpleNamespace(results=(first,), method=SimpleNamespace(
            elub_log10_lr_low=-1.0, elub_log10_lr_high=1.5), score_direction="higher_is_similar"),
        ss=SS, ds=DS, ss_llr_cv=SS, ds_llr_cv=DS, calibrator=model,
        evidence_scores=np.array([1.0]), curves=plots.model_curves(model, SS, DS, case_score=1.0),
        spec=SimpleNamespace(uncertainty=SimpleNamespace(level=0.95, seed=1)),
    )
    assert model.calls == {"density": 1, "llr": 1}
    figures = case_figures(run)
    assert model.calls == {"density": 1, "llr": 1}
    assert set(figures) == {"tippett", "ape", "ece", "det", "score_densities", "llr_histogram",
                            "llr_overestimation"}
    assert "ELUB (log10 LR -1.00, +1.50)" in figures["tippett"]


def test_model_curves_are_the_models_values_and_reused_without_calling_it():
    fitted = make_calibrator("gaussian").fit(SS, DS)
    curves = plots.model_curves(fitted, SS, DS, case_score=9.0)
    assert curves.score[-1] == 9.0 and curves.score[0] < min(SS.min(), DS.min())
    np.testing.assert_allclose(curves.log10_lr, fitted.llr(curves.score) / np.log(10))
    np.testing.assert_allclose(curves.pdf_ss, norm.pdf(curves.score, SS.mean(), SS.std()))

    class Refuses:
        def llr(self, s):
            raise AssertionError("the model was evaluated again")

        density = llr

    fig = plots.score_densities(SS, DS, Refuses(), curves=curves)
    labels = {ln.get_label() for ax in fig.axes for ln in ax.get_lines()}
    assert {"fitted same-source density", "log10 LR (right axis)"} <= labels


# ----------------------------------------------------------------------------- layout
WIDE = RNG.normal(0.0, 4.0, 300), RNG.normal(-9.0, 5.0, 3000)  # log10 LRs from -8 to +5


@pytest.mark.parametrize("name", ["pav", "tippett", "det", "llr_histogram", "score_densities"])
def test_everything_drawn_fits_inside_the_figure_for_wide_ranges(name):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ss, ds = WIDE
    fig = {
        "pav": lambda: plots.pav(ss, ds, llr_input=True, xlabel="cross-validated log10 LR"),
        "tippett": lambda: plots.tippett(ss, ds, case_llr=3.4 * LN10, elub_log10=(-2.0, 2.45)),
        "det": lambda: plots.det(ss, ds, case_llr=7.8),
        "llr_histogram": lambda: plots.llr_histogram(ss, ds, case_llr=7.8),
        "score_densities": lambda: plots.score_densities(
            ss, ds, make_calibrator("gaussian").fit(ss, ds), case_score=12.0,
            elub_log10=(-2.0, 2.45)),
    }[name]()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    drawn = fig.get_tightbbox(renderer)  # inches
    assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01
    assert drawn.x1 <= 6.3 + 0.01 and drawn.y1 <= 3.6 + 0.01
    legend = fig.legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not legend.overlaps(ax.get_tightbbox(renderer))
