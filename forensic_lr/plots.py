"""Figures as SVG text (matplotlib, Agg backend, no global pyplot state).

Every function builds its own :class:`matplotlib.figure.Figure`, returns the SVG as a
string and releases the figure. Output is deterministic: the same input gives the
same bytes (fixed SVG id salt, no date). Axes name their log base.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure
from scipy.special import ndtri

from . import metrics
from ._checks import check_pair

_LOG10_E = float(np.log10(np.e))
_SIZE = (6.3, 3.6)
_STYLE = {
    "svg.hashsalt": "forensic-lr",
    "svg.fonttype": "none",  # text stays text: smaller SVG, faster PDF, selectable
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
SS_COLOUR, DS_COLOUR, CASE_COLOUR, REF_COLOUR = "#1f5fa8", "#c0392b", "#2e7d32", "#777777"


def _figure() -> tuple[Figure, object]:
    fig = Figure(figsize=_SIZE, layout="constrained")
    return fig, fig.add_subplot()


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    fig.clear()
    return buffer.getvalue()


def _styled(draw):
    """Run a drawing function inside the package's matplotlib style."""

    def wrapper(*args, **kwargs) -> str:
        with matplotlib.rc_context(_STYLE):
            return _svg(draw(*args, **kwargs))

    wrapper.__name__, wrapper.__doc__ = draw.__name__, draw.__doc__
    return wrapper


def _legend(fig: Figure, ax, extra=None) -> None:
    """One legend below the axes, so it never covers data."""
    handles, labels = ax.get_legend_handles_labels()
    if extra is not None:
        more = extra.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    fig.legend(
        handles, labels, loc="outside lower center", ncols=min(3, len(labels)), frameon=False
    )


def _mark(ax, x: float | None, label: str) -> None:
    if x is not None and np.isfinite(x):
        ax.axvline(x, color=CASE_COLOUR, linewidth=1.5, linestyle="--", label=label)


@_styled
def tippett_svg(ss_llr, ds_llr, *, case_log10_lr=None, kind: str = "I"):
    """Tippett plot: share of SS and DS trials with log10 LR at or above x (kind "I").

    Kind "II" shows the SS curve as the share with log10 LR at or *below* x, so the two
    curves cross where the rates of misleading evidence meet. Steps are drawn only over
    the observed log10 LRs: nothing is extrapolated beyond the smallest and largest.
    """
    data = metrics.tippett(ss_llr, ds_llr)
    ss, _ = check_pair(ss_llr, ds_llr)
    fig, ax = _figure()
    x = data.log10_lr
    if kind == "I":
        ss_curve, ss_label = data.ss_prop_ge, "same source: LR >= x"
    elif kind == "II":
        ss10 = np.sort(ss * _LOG10_E)
        ss_curve = np.searchsorted(ss10, x, side="right") / ss10.size
        ss_label = "same source: LR <= x"
    else:
        raise ValueError(f"kind must be 'I' or 'II', got {kind!r}")
    ax.step(x, ss_curve, where="post", color=SS_COLOUR, label=ss_label)
    ax.step(x, data.ds_prop_ge, where="post", color=DS_COLOUR, label="different source: LR >= x")
    ax.axvline(0, color=REF_COLOUR, linewidth=0.8)
    _mark(ax, case_log10_lr, "this case")
    ax.set_xlabel("log10 LR (x)")
    ax.set_ylabel("proportion of trials")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Tippett plot (type {kind})")
    _legend(fig, ax)
    return fig


@_styled
def ape_svg(ss_llr, ds_llr, *, case_llr=None):
    """APE curve: Bayes error rate against prior log10 odds (actual, PAV minimum, reference)."""
    curve = metrics.ape_curve(ss_llr, ds_llr)
    fig, ax = _figure()
    x = curve.plo * _LOG10_E
    ax.plot(x, curve.actual, color=SS_COLOUR, label="actual LRs")
    ax.plot(x, curve.minimum, color=SS_COLOUR, linestyle="--", label="after PAV (minimum)")
    ax.plot(x, curve.reference, color=REF_COLOUR, linestyle=":", label="LR = 1 (no evidence)")
    if case_llr is not None:
        _mark(ax, -case_llr * _LOG10_E, "prior where this case's LR changes the decision")
    ax.set_xlabel("prior log10 odds")
    ax.set_ylabel("Bayes error rate")
    ax.set_title("Applied probability of error (APE)")
    _legend(fig, ax)
    return fig


@_styled
def ece_svg(ss_llr, ds_llr, *, case_llr=None):
    """Empirical cross-entropy (bits) over prior log10 odds (Ramos et al. 2013); with
    ``case_llr``, the prior log10 odds at which this case's LR would bring the posterior
    odds to 1 are marked."""
    curve = metrics.ece_curve(ss_llr, ds_llr)
    fig, ax = _figure()
    x = curve.plo * _LOG10_E
    ax.plot(x, curve.actual, color=SS_COLOUR, label="LRs as computed")
    ax.plot(x, curve.calibrated, color=SS_COLOUR, linestyle="--", label="after PAV calibration")
    ax.plot(x, curve.reference, color=REF_COLOUR, linestyle=":", label="LR = 1 (no evidence)")
    ax.set_xlabel("prior log10 odds")
    if case_llr is not None:
        _mark(ax, -case_llr * _LOG10_E, "prior odds that this case's LR would bring to 1")
    ax.set_ylabel("empirical cross-entropy (bits)")
    ax.set_title("Empirical cross-entropy (ECE)")
    ax.set_ylim(bottom=0)
    _legend(fig, ax)
    return fig


_DET_TICKS = np.array([0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4])


@_styled
def det_svg(ss_llr, ds_llr, *, case_llr=None):
    """DET plot: miss against false-alarm rate on probit axes (0.1 % to 40 %), with the
    ROC convex hull and the EER point (seed 002); with ``case_llr``, the operating point
    of a threshold at this case's LLR (share of SS below it, of DS at or above it)."""
    curve = metrics.roc(ss_llr, ds_llr)
    hull = metrics.roc_convex_hull(ss_llr, ds_llr)
    eer = metrics.eer(ss_llr, ds_llr)
    fig, ax = _figure()
    lim = ndtri(np.array([0.0005, 0.6]))
    with np.errstate(divide="ignore"):
        ax.plot(ndtri(curve.p_fa), ndtri(curve.p_miss), color=SS_COLOUR, label="DET")
        ax.plot(
            ndtri(hull.p_fa),
            ndtri(hull.p_miss),
            color=SS_COLOUR,
            linestyle="--",
            linewidth=0.9,
            label="convex hull",
        )
    ax.plot(lim, lim, color=REF_COLOUR, linewidth=0.6)
    if 0 < eer < 0.6:
        ax.plot([ndtri(eer)], [ndtri(eer)], "o", color=CASE_COLOUR, label=f"EER = {eer:.1%}")
    if case_llr is not None:
        ss, ds = check_pair(ss_llr, ds_llr)
        p_miss, p_fa = np.mean(ss < case_llr), np.mean(ds >= case_llr)
        with np.errstate(divide="ignore"):
            point = ndtri([p_fa, p_miss])
        label = f"threshold at this case's LR ({p_fa:.1%} false alarms, {p_miss:.1%} misses)"
        if np.all((point >= lim[0]) & (point <= lim[1])):
            ax.plot(*point, "s", color=CASE_COLOUR, fillstyle="none", label=label)
        else:  # no marker at a misleading edge position; the rates stay in the legend
            ax.plot(
                [],
                [],
                "s",
                color=CASE_COLOUR,
                fillstyle="none",
                label=label + ", outside the plotted range",
            )
    ticks = ndtri(_DET_TICKS)
    labels = [f"{100 * t:g}%" for t in _DET_TICKS]
    for setter, tick_setter in ((ax.set_xlim, ax.set_xticks), (ax.set_ylim, ax.set_yticks)):
        setter(*lim)
        tick_setter(ticks, labels)
    ax.set_xlabel("false alarm rate (different source judged same)")
    ax.set_ylabel("miss rate (same source judged different)")
    ax.set_title("Detection error trade-off (DET)")
    _legend(fig, ax)
    return fig


@_styled
def roc_svg(ss_llr, ds_llr):
    """ROC: hit rate against false-alarm rate, with its convex hull and the AUC."""
    curve = metrics.roc(ss_llr, ds_llr)
    hull = metrics.roc_convex_hull(ss_llr, ds_llr)
    fig, ax = _figure()
    ax.plot(
        curve.p_fa,
        1 - curve.p_miss,
        color=SS_COLOUR,
        label=f"ROC (AUC = {metrics.auc(ss_llr, ds_llr):.3f})",
    )
    ax.plot(
        hull.p_fa,
        1 - hull.p_miss,
        color=SS_COLOUR,
        linestyle="--",
        linewidth=0.9,
        label="convex hull",
    )
    ax.plot([0, 1], [0, 1], color=REF_COLOUR, linewidth=0.6)
    ax.set_xlabel("false alarm rate")
    ax.set_ylabel("hit rate")
    ax.set_title("Receiver operating characteristic (ROC)")
    _legend(fig, ax)
    return fig


@_styled
def pav_svg(ss_scores, ds_scores, *, xlabel: str = "score"):
    """PAV transform: score (or LLR) against the optimal log10 LR of its block."""
    fit = metrics.pav_fit(ss_scores, ds_scores)
    fig, ax = _figure()
    x = np.column_stack([fit.block_low, fit.block_high]).ravel()
    y = np.repeat(fit.llr * _LOG10_E, 2)
    finite = np.isfinite(y)
    ax.plot(x[finite], y[finite], color=SS_COLOUR, label="PAV (optimal) log10 LR")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("log10 LR")
    ax.set_title("Pool-adjacent-violators transform")
    _legend(fig, ax)
    return fig


def _histogram(ax, ss, ds, bins):
    ax.hist(
        ds,
        bins=bins,
        density=True,
        alpha=0.45,
        color=DS_COLOUR,
        label=f"different source (n = {ds.size})",
    )
    ax.hist(
        ss,
        bins=bins,
        density=True,
        alpha=0.45,
        color=SS_COLOUR,
        label=f"same source (n = {ss.size})",
    )


@_styled
def llr_histogram_svg(ss_llr, ds_llr, *, case_llr=None):
    """Histograms of the SS and DS log10 LRs (infinite values left out)."""
    ss, ds = check_pair(ss_llr, ds_llr)
    ss10, ds10 = ss[np.isfinite(ss)] * _LOG10_E, ds[np.isfinite(ds)] * _LOG10_E
    fig, ax = _figure()
    both = np.concatenate([ss10, ds10])
    bins = np.histogram_bin_edges(both, bins=min(60, max(10, both.size // 20)))
    _histogram(ax, ss10, ds10, bins)
    if case_llr is not None:
        _mark(ax, case_llr * _LOG10_E, "this case")
    ax.set_xlabel("log10 LR")
    ax.set_ylabel("density")
    ax.set_title("Distribution of log10 LRs")
    _legend(fig, ax)
    return fig


@_styled
def score_density_svg(ss, ds, calibrator=None, *, case_score=None):
    """Histograms of the raw SS and DS scores, the calibrator's class densities when it has
    them, and its log10 LR curve on a second axis."""
    ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False)
    fig, ax = _figure()
    both = np.concatenate([ss, ds])
    bins = np.histogram_bin_edges(both, bins=min(60, max(10, both.size // 20)))
    _histogram(ax, ss, ds, bins)
    span = both.max() - both.min()
    grid = np.linspace(both.min() - 0.05 * span, both.max() + 0.05 * span, 400)
    if case_score is not None:
        grid = np.linspace(min(grid[0], case_score), max(grid[-1], case_score), 400)
    if calibrator is not None and hasattr(calibrator, "density"):
        pdf_ss, pdf_ds = calibrator.density(grid)
        ax.plot(grid, pdf_ss, color=SS_COLOUR, label="fitted same-source density")
        ax.plot(grid, pdf_ds, color=DS_COLOUR, label="fitted different-source density")
    _mark(ax, case_score, "this case's score")
    ax.set_xlabel("score")
    ax.set_ylabel("density")
    if calibrator is not None:
        twin = ax.twinx()
        twin.plot(
            grid,
            calibrator.llr(grid) * _LOG10_E,
            color="black",
            linewidth=1,
            linestyle="-.",
            label="log10 LR (right axis)",
        )
        twin.set_ylabel("log10 LR")
        twin.grid(False)
        _legend(fig, ax, twin)
    else:
        _legend(fig, ax)
    ax.set_title("Background scores and the fitted model")
    return fig


@_styled
def reliability_svg(diagram, *, title: str = "Reliability diagram"):
    """Top-label reliability diagram from :func:`forensic_lr.multiclass.reliability_diagram`."""
    fig, ax = _figure()
    used = diagram.count > 0
    edges = diagram.bin_edges
    centres = 0.5 * (edges[:-1] + edges[1:])
    widths = np.diff(edges)
    ax.bar(
        centres[used],
        diagram.accuracy[used],
        width=widths[used] * 0.95,
        color=SS_COLOUR,
        alpha=0.6,
        label="accuracy in bin",
    )
    ax.plot(
        diagram.confidence[used],
        diagram.accuracy[used],
        "o",
        color=SS_COLOUR,
        markersize=3,
        label="(mean confidence, accuracy)",
    )
    ax.plot([0, 1], [0, 1], color=REF_COLOUR, linestyle=":", label="perfect calibration")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence (top-label probability)")
    ax.set_ylabel("accuracy")
    ax.set_title(f"{title}: ECE = {diagram.ece:.3f}")
    _legend(fig, ax)
    return fig
