"""Two systems on one Axes: each figure function takes ``label=``, ``color=`` and matplotlib
keywords; every line drawn is checked against the inputs by a brute-force computation of
what it shows (not by the metrics module that drew it)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from scipy.special import expit, ndtr
from scipy.stats import norm

from forensic_lr import make_calibrator, plots

LOG10_E = 1 / np.log(10)
A, B = ("old", "#1b9e77"), ("new", "#d95f02")


def _systems():
    rng = np.random.default_rng(7)
    return {
        A: (rng.normal(1.5, 1.5, 60), rng.normal(-1.5, 1.5, 90)),
        B: (rng.normal(3.0, 2.0, 50), rng.normal(-2.5, 2.0, 80)),
    }


def _draw(function, **kwargs) -> tuple[Figure, dict]:
    fig = Figure()
    ax = fig.add_subplot()
    systems = _systems()
    for (name, colour), (ss, ds) in systems.items():
        out = function(ss, ds, label=name, color=colour, ax=ax, **kwargs)
        assert out is fig
    return fig, systems


def _lines(ax, name: str, text: str):
    """The lines (or patches) of system ``name`` whose legend entry is ``name: text``."""
    found = [a for a in [*ax.lines, *ax.patches] if a.get_label() == f"{name}: {text}"]
    assert len(found) == 1, (name, text, [a.get_label() for a in ax.lines])
    return found[0]


def _colour(artist) -> str:
    get = getattr(artist, "get_color", None) or artist.get_edgecolor
    return to_hex(get())


def test_tippett_two_systems():
    fig, systems = _draw(plots.tippett)
    ax = fig.axes[0]
    for (name, colour), (ss, ds) in systems.items():
        for values, text in ((ss, "same source: LR >= x"), (ds, "different source: LR >= x")):
            line = _lines(ax, name, text)
            assert _colour(line) == colour
            x = line.get_xdata()
            brute = [(values * LOG10_E >= v - 1e-12).mean() for v in x]
            np.testing.assert_allclose(line.get_ydata(), brute, atol=1e-12)
        assert _lines(ax, name, "different source: LR >= x").get_linestyle() == "--"
        assert _lines(ax, name, "same source: LR >= x").get_linestyle() == "-"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sum(lab.startswith("old: ") for lab in labels) == 2
    assert sum(lab.startswith("new: ") for lab in labels) == 2


def _bayes_error(ss, ds, plo):
    """Bayes error at prior log odds plo, threshold -plo, by counting."""
    return expit(plo) * np.mean(ss < -plo) + expit(-plo) * np.mean(ds >= -plo)


def _ece(ss, ds, plo):
    """Empirical cross-entropy in bits at prior log odds plo (Ramos et al. 2013)."""
    hp = expit(plo) * np.mean(np.logaddexp(0, -(ss + plo))) / np.log(2)
    hd = expit(-plo) * np.mean(np.logaddexp(0, ds + plo)) / np.log(2)
    return hp + hd


@pytest.mark.parametrize(("function", "text", "truth"), [
    (plots.ape, "actual LRs", _bayes_error),
    (plots.ece, "LRs as computed", _ece),
])
def test_ape_and_ece_two_systems(function, text, truth):
    fig, systems = _draw(function, linewidth=2.5)
    ax = fig.axes[0]
    for (name, colour), (ss, ds) in systems.items():
        line = _lines(ax, name, text)
        assert _colour(line) == colour and line.get_linewidth() == 2.5
        plo = np.asarray(line.get_xdata()) / LOG10_E
        expected = [truth(ss, ds, p) for p in plo]
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-9, atol=1e-12)
    # the reference line is drawn once for both systems
    assert [lab for lab in ax.get_legend_handles_labels()[1]].count("LR = 1 (no evidence)") == 1


def _operating_points(ss, ds):
    """(false alarm, miss) at every threshold t between the values: DS >= t, SS < t."""
    thresholds = np.concatenate([np.unique(np.concatenate([ss, ds])), [np.inf]])
    return {(round(float(np.mean(ds >= t)), 12), round(float(np.mean(ss < t)), 12))
            for t in thresholds}


def test_roc_two_systems():
    fig, systems = _draw(plots.roc)
    ax = fig.axes[0]
    for (name, colour), (ss, ds) in systems.items():
        auc = np.mean(ss[:, None] > ds[None, :]) + 0.5 * np.mean(ss[:, None] == ds[None, :])
        line = _lines(ax, name, f"ROC (AUC = {auc:.3f})")
        assert _colour(line) == colour
        points = _operating_points(ss, ds)
        for fa, hit in zip(line.get_xdata(), line.get_ydata(), strict=True):
            assert (round(fa, 12), round(1 - hit, 12)) in points


def test_det_two_systems_keeps_both_curves_in_view():
    fig, systems = _draw(plots.det)
    ax = fig.axes[0]
    for (name, colour), (ss, ds) in systems.items():
        line = _lines(ax, name, "DET")
        assert _colour(line) == colour
        points = _operating_points(ss, ds)
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        finite = np.isfinite(x) & np.isfinite(y)
        for fa, miss in zip(ndtr(x[finite]), ndtr(y[finite]), strict=True):
            assert (round(float(fa), 12), round(float(miss), 12)) in points
        # both systems' smallest non-zero rates stay inside the axes
        low = min(1 / ss.size, 1 / ds.size)
        assert ndtr(ax.get_xlim()[0]) <= low and ndtr(ax.get_ylim()[0]) <= low


def test_pav_two_systems_against_scikit_learn():
    isotonic = pytest.importorskip("sklearn.isotonic")
    fig, systems = _draw(plots.pav, llr_input=True)
    ax = fig.axes[0]
    for (name, colour), (ss, ds) in systems.items():
        line = _lines(ax, name, "PAV (optimal) log10 LR")
        assert _colour(line) == colour
        x = np.concatenate([ss, ds])
        y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
        w = np.concatenate([np.full(ss.size, 1 / ss.size), np.full(ds.size, 1 / ds.size)])
        p = isotonic.IsotonicRegression().fit(x, y, sample_weight=w).predict(x)
        inside = (p > 0) & (p < 1)
        expected = np.unique(np.round(np.log(p[inside] / (1 - p[inside])) * LOG10_E, 9))
        drawn = np.round(np.asarray(line.get_ydata()), 9)
        finite_blocks = drawn[(drawn > drawn.min()) & (drawn < drawn.max())]
        assert set(finite_blocks) <= set(expected)
    assert ax.get_legend_handles_labels()[1].count("y = x (well calibrated)") == 1


def test_llr_histogram_two_systems():
    fig, systems = _draw(plots.llr_histogram)
    ax = fig.axes[0]
    for (name, colour), (ss, ds) in systems.items():
        for values, text in ((ss, "same source"), (ds, "different source")):
            patch = _lines(ax, name, f"{text} (n = {values.size})")
            assert _colour(patch) == colour and not patch.get_fill()
            data = patch.get_data()
            expected, _ = np.histogram(values * LOG10_E, bins=data.edges, density=True)
            np.testing.assert_allclose(data.values, expected, rtol=1e-12)


def test_score_densities_two_systems_share_the_right_axis():
    fig = Figure()
    ax = fig.add_subplot()
    for (name, colour), (ss, ds) in _systems().items():
        cal = make_calibrator("gaussian").fit(ss, ds)
        plots.score_densities(ss, ds, cal, label=name, color=colour, ax=ax)
        line = _lines(ax, name, "fitted same-source density")
        assert _colour(line) == colour
        grid = np.asarray(line.get_xdata())
        expected = norm.pdf(grid, ss.mean(), ss.std())  # ML estimates, divisor n
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-9)
    assert len(fig.axes) == 2  # one right-hand axis for both systems' log10 LR curves
    twin = fig.axes[1]
    assert sorted(line.get_label() for line in twin.lines) == [
        "new: log10 LR (right axis)", "old: log10 LR (right axis)"]


def test_default_figures_are_unchanged_by_the_new_options():
    ss, ds = _systems()[A]
    assert plots.tippett_svg(ss, ds) == plots.tippett_svg(ss, ds, label=None, color=None)
    fig = plots.tippett(ss, ds)
    colours = {line.get_label(): to_hex(line.get_color()) for line in fig.axes[0].lines}
    assert colours["same source: LR >= x"] == plots.SS_COLOUR
    assert colours["different source: LR >= x"] == plots.DS_COLOUR


def test_two_systems_render_to_png(tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, _ = _draw(plots.tippett)
    path = tmp_path / "two.png"
    FigureCanvasAgg(fig).print_png(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_second_system_in_a_figure_of_ours_gets_one_legend_below():
    (ss_a, ds_a), (ss_b, ds_b) = _systems().values()
    fig = plots.tippett(ss_a, ds_a, label="old", color=A[1])
    plots.tippett(ss_b, ds_b, label="new", color=B[1], ax=fig.axes[0])
    assert fig.axes[0].get_legend() is None and len(fig.legends) == 1
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts == ["old: same source: LR >= x", "old: different source: LR >= x",
                     "new: same source: LR >= x", "new: different source: LR >= x"]
    # the legend lies below the axes, inside the figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    legend, axes = fig.legends[0].get_window_extent(renderer), fig.axes[0].get_window_extent()
    assert legend.y1 <= axes.y0 and legend.y0 >= 0
