"""Figures: valid, labelled, deterministic SVG; robust to extreme inputs; no extrapolation."""

import functools
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from forensic_lr import plots
from forensic_lr.calibration import make_calibrator
from forensic_lr.studies.multiclass import reliability_diagram, softmax

LN10 = math.log(10.0)

RNG = np.random.default_rng(0)
SS, DS = RNG.normal(2, 1.5, 80), RNG.normal(-2, 1.5, 200)

FIGURES = {
    "tippett": lambda: plots.tippett_svg(SS, DS, case_llr=1.0 * LN10),
    "tippett2": lambda: plots.tippett_svg(SS, DS, kind="II"),
    "ape": lambda: plots.ape_svg(SS, DS, case_llr=2.0),
    "ece": lambda: plots.ece_svg(SS, DS),
    "det": lambda: plots.det_svg(SS, DS),
    "roc": lambda: plots.roc_svg(SS, DS),
    "pav": lambda: plots.pav_svg(SS, DS),
    "hist": lambda: plots.llr_histogram_svg(SS, DS, case_llr=2.0),
    "density": lambda: plots.score_density_svg(
        SS, DS, make_calibrator("gaussian").fit(SS, DS), case_score=1.0
    ),
}
LABELS = {
    "tippett": "log10 LR (x)", "ape": "prior log10 odds", "ece": "prior log10 odds",
    "det": "false alarm rate (different source judged same)", "roc": "hit rate",
    "hist": "log10 LR", "density": "score",
}


@functools.cache
def rendered(name: str) -> str:
    return FIGURES[name]()


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_svg_is_valid_xml(name):
    root = ET.fromstring(rendered(name).encode())
    assert root.tag.endswith("svg")


@pytest.mark.parametrize("name", ["tippett", "det", "density"])
def test_svg_is_deterministic(name):
    assert rendered(name) == FIGURES[name]()  # same bytes: fixed hash salt, no date


@pytest.mark.parametrize("name", sorted(LABELS))
def test_axis_labels_name_the_log_base(name):
    # text is kept as SVG <text> elements (svg.fonttype "none")
    assert f">{LABELS[name]}</text>" in rendered(name)


def test_reliability_diagram_plot():
    z = RNG.normal(size=(300, 4)) * 3
    y = RNG.integers(0, 4, 300)
    svg = plots.reliability_svg(reliability_diagram(softmax(z), y), title="Test")
    assert ">Test: ECE = " in svg


# ---------------------------------------------------------------- drawn data, by brute force
def figure_of(function, *args, draw=False, **kwargs):
    """The matplotlib Figure behind an ``*_svg`` function, in the package style (and laid
    out and drawn by Agg if ``draw``)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    with matplotlib.rc_context(plots._STYLE):
        fig = function.__wrapped__(*args, **kwargs)
        if draw:
            FigureCanvasAgg(fig).draw()
    return fig


def curves(fig):
    ax = fig.axes[0]
    return {line.get_label(): line for line in ax.get_lines()}


def test_tippett_type_one_steps_match_brute_force():
    fig = figure_of(plots.tippett_svg, SS, DS)
    lines = curves(fig)
    ss10, ds10 = SS / np.log(10), DS / np.log(10)
    probes = np.linspace(min(ss10.min(), ds10.min()), max(ss10.max(), ds10.max()), 997)[1:-1]
    for label, values in (("same source: LR >= x", ss10), ("different source: LR >= x", ds10)):
        line = lines[label]
        assert line.get_drawstyle() == "steps-pre"  # value on (x[i-1], x[i]] is y[i]
        x, y = line.get_xdata(), line.get_ydata()
        drawn = y[np.searchsorted(x, probes, side="left")]
        # brute force O(n * m): share of trials with log10 LR >= probe
        expected = (values[None, :] >= probes[:, None]).mean(axis=1)
        np.testing.assert_allclose(drawn, expected, atol=1e-12)


def test_tippett_type_two_same_source_curve_is_the_cdf():
    fig = figure_of(plots.tippett_svg, SS, DS, kind="II")
    line = curves(fig)["same source: LR <= x"]
    assert line.get_drawstyle() == "steps-post"  # value on [x[i], x[i+1]) is y[i]
    x, y = line.get_xdata(), line.get_ydata()
    ss10 = SS / np.log(10)
    probes = np.linspace(x[0], x[-1], 991)
    drawn = y[np.searchsorted(x, probes, side="right") - 1]
    expected = (ss10[None, :] <= probes[:, None]).mean(axis=1)
    np.testing.assert_allclose(drawn, expected, atol=1e-12)
    # at x = 0 the type II curves read the rates of misleading evidence
    assert drawn[np.searchsorted(probes, 0.0)] == pytest.approx(np.mean(SS <= 0), abs=0.02)


@pytest.mark.parametrize("kind", ["I", "II"])
@pytest.mark.parametrize(
    ("ss", "ds"),
    [(SS, DS), (np.array([np.inf, 3.0, -1.0]), np.array([-np.inf, -2.0])),
     (np.array([0.5, 0.5]), np.array([0.5, -0.5]))],
)
def test_tippett_never_extrapolates(ss, ds, kind):
    fig = figure_of(plots.tippett_svg, ss, ds, kind=kind)
    finite = np.concatenate([ss, ds])
    finite = finite[np.isfinite(finite)] / np.log(10)
    for label, line in curves(fig).items():
        if label.startswith(("same", "different")):
            x = np.asarray(line.get_xdata(), dtype=float)
            assert x.min() == pytest.approx(finite.min())
            assert x.max() == pytest.approx(finite.max())


def test_pav_curve_is_the_optimal_llr_by_block():
    # hand example: scores 1..6, labels ds ss ds ss ss ss -> PAV blocks
    # [1] (0 ss / 1 ds), [2,3] (1/1), [4,5,6] (3/0); N_ss = 4, N_ds = 2
    # block LLRs: log(0/4) - log(1/2) = -inf; log(1/4) - log(1/2) = log 0.5; +inf
    fig = figure_of(plots.pav_svg, np.array([2.0, 4, 5, 6]), np.array([1.0, 3]))
    line = curves(fig)["PAV (optimal) log10 LR"]
    x, y = line.get_xdata(), line.get_ydata()
    assert x.tolist() == [1.0, 2.0, 4.0, 6.0]
    assert y[1] == pytest.approx(np.log10(0.5))
    assert y[0] < y[1] < y[2]  # the infinite blocks are drawn at the plot's edges
    labels = set(curves(fig))
    assert "block with log10 LR = +inf (drawn at the edge)" in labels
    assert "block with log10 LR = -inf (drawn at the edge)" in labels


def test_det_axes_span_conventional_ticks_down_to_the_data():
    svg = rendered("det")
    for tick in ("0.5%", "1%", "10%", "50%"):
        assert f">{tick}</text>" in svg
    fig = figure_of(plots.det_svg, SS, DS)
    from scipy.stats import norm

    # 200 DS trials: the smallest false-alarm rate is 0.5 %, so the axis starts at the
    # conventional tick below it (0.2 %) instead of an empty 0.1 %-0.2 % band
    assert fig.axes[0].get_xlim() == pytest.approx(norm.ppf([0.002, 0.5]))
    eer_point = next(ln for label, ln in curves(fig).items() if label.startswith("EER"))
    from forensic_lr.metrics import eer

    assert eer_point.get_xdata()[0] == pytest.approx(norm.ppf(eer(SS, DS)))


ALL = {
    "tippett": lambda ss, ds: plots.tippett_svg(ss, ds, case_llr=0.5 * LN10),
    "tippett2": lambda ss, ds: plots.tippett_svg(ss, ds, kind="II"),
    "ape": lambda ss, ds: plots.ape_svg(ss, ds, case_llr=1.0),
    "ece": lambda ss, ds: plots.ece_svg(ss, ds, case_llr=1.0),
    "det": lambda ss, ds: plots.det_svg(ss, ds, case_llr=1.0),
    "roc": plots.roc_svg,
    "pav": plots.pav_svg,
    "hist": lambda ss, ds: plots.llr_histogram_svg(ss, ds, case_llr=1.0),
}


@pytest.mark.parametrize("name", sorted(ALL))
def test_two_trials_per_class_ties_and_infinite_llrs(name):
    # 2 per class, +-inf on both sides and a tie across the classes
    ss, ds = np.array([np.inf, 3.0]), np.array([3.0, -np.inf])
    root = ET.fromstring(ALL[name](ss, ds).encode())
    assert root.tag.endswith("svg")


def test_score_density_without_density_and_without_calibrator():
    logistic = make_calibrator("logistic").fit(SS, DS)
    assert not hasattr(logistic, "density")
    with_curve = plots.score_density_svg(SS, DS, logistic, case_score=0.0)
    assert ">log10 LR</text>" in with_curve and "fitted same-source density" not in with_curve
    bare = plots.score_density_svg(np.array([1.0, 2.0]), np.array([0.0, 0.5]))
    assert ">score</text>" in bare and ">log10 LR</text>" not in bare


def test_case_is_marked():
    assert ">this case; LRs at or above it:</text>" in rendered("tippett")
    below = plots.tippett_svg(SS, DS, case_llr=-0.5 * LN10)
    assert ">this case; LRs at or below it:</text>" in below
    assert ">this case's score</text>" in rendered("density")


def test_bad_kind_is_an_input_error():
    from forensic_lr.errors import InputError

    with pytest.raises(InputError, match="'I' or 'II'"):
        plots.tippett_svg(SS, DS, kind="III")


@pytest.mark.parametrize("name", ["tippett", "ape", "ece", "det", "roc", "pav", "hist", "density"])
def test_legible_and_nothing_covered_or_cut_off(name):
    function, args, kwargs = {
        "tippett": (plots.tippett_svg, (SS, DS), {"case_llr": LN10}),
        "ape": (plots.ape_svg, (SS, DS), {"case_llr": 2.0}),
        "ece": (plots.ece_svg, (SS, DS), {"case_llr": 2.0}),
        "det": (plots.det_svg, (SS, DS), {"case_llr": 1.0}),
        "roc": (plots.roc_svg, (SS, DS), {}),
        "pav": (plots.pav_svg, (SS, DS), {}),
        "hist": (plots.llr_histogram_svg, (SS, DS), {"case_llr": 2.0}),
        "density": (plots.score_density_svg,
                    (SS, DS, make_calibrator("gaussian").fit(SS, DS)), {"case_score": 1.0}),
    }[name]
    from matplotlib.text import Text

    fig = figure_of(function, *args, draw=True, **kwargs)
    assert tuple(fig.get_size_inches()) == pytest.approx((6.3, 3.6))
    renderer = fig.canvas.get_renderer()
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text():
            assert text.get_fontsize() >= 9, text.get_text()
    drawn = fig.get_tightbbox(renderer)  # inches; everything drawn, ticks in view only
    assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01
    assert drawn.x1 <= 6.3 + 0.01 and drawn.y1 <= 3.6 + 0.01
    legend = fig.legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not legend.overlaps(ax.get_window_extent(renderer))
