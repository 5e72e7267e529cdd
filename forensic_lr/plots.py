"""Figures as SVG text (matplotlib, Agg backend, no global pyplot state).

Every function builds its own :class:`matplotlib.figure.Figure`, returns the SVG as a
string and releases the figure. Output is deterministic: the same input gives the
same bytes (fixed SVG id salt, no date). Axes name their log base.
"""

from __future__ import annotations

import functools
import io

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure
from scipy.special import ndtri

from . import metrics
from ._checks import check_pair
from .errors import InputError

_LOG10_E = float(np.log10(np.e))
_SIZE = (6.3, 3.6)
_STYLE = {
    "svg.hashsalt": "forensic-lr",
    "svg.fonttype": "none",  # text stays text: smaller SVG, faster PDF, selectable
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
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

    @functools.wraps(draw)  # ``__wrapped__`` gives the Figure (used by the tests)
    def wrapper(*args, **kwargs) -> str:
        with matplotlib.rc_context(_STYLE):
            return _svg(draw(*args, **kwargs))

    return wrapper


def _legend(fig: Figure, ax, extra=None) -> None:
    """One legend below the axes, so it never covers data."""
    handles, labels = ax.get_legend_handles_labels()
    if extra is not None:
        more = extra.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    longest = max((len(text) for text in labels), default=0)
    columns = 3 if longest <= 28 else 2 if longest <= 45 else 1  # fits 6.3 in at 9 pt
    fig.legend(
        handles, labels, loc="outside lower center", ncols=min(columns, len(labels)),
        frameon=False,
    )


def _mark(ax, x: float | None, label: str) -> None:
    if x is not None and np.isfinite(x):
        ax.axvline(x, color=CASE_COLOUR, linewidth=1.5, linestyle="--", label=label)


@_styled
def tippett_svg(ss_llr, ds_llr, *, case_log10_lr=None, kind: str = "I"):
    """Tippett plot of SS and DS log10 LRs.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed: they
        count in the proportions but have no abscissa).
    case_log10_lr : float, optional
        This case's log10 LR, marked by a vertical line.
    kind : {"I", "II"}
        ``"I"`` (the usual form [1]_): both curves show the share of trials with
        log10 LR >= x. ``"II"``: the SS curve shows the share with log10 LR <= x (rising
        to the right) and the DS curve the share >= x (rising to the left), the
        presentation common in forensic voice comparison [2]_; at x = 0 the SS curve
        reads the RMEP and the DS curve the RMED.

    Returns
    -------
    str
        SVG text.

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
    data = metrics.tippett(ss_llr, ds_llr)
    fig, ax = _figure()
    x = data.log10_lr
    if kind == "I":
        ax.step(x, data.ss_prop_ge, where="pre", color=SS_COLOUR, label="same source: LR >= x")
    else:
        ss, _ = check_pair(ss_llr, ds_llr)
        ss10 = np.sort(ss * _LOG10_E)
        ss_le = np.searchsorted(ss10, x, side="right") / ss10.size
        ax.step(x, ss_le, where="post", color=SS_COLOUR, label="same source: LR <= x")
    ax.step(
        x, data.ds_prop_ge, where="pre", color=DS_COLOUR, label="different source: LR >= x"
    )
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
    """APE curve: Bayes error rate against prior log10 odds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS and DS trials (+-inf allowed).
    case_llr : float, optional
        Marks the prior log10 odds ``-case_llr / ln 10`` at which this case's LR brings
        the posterior odds to 1 (where it changes the decision).

    Returns
    -------
    str
        SVG text.

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
    """Empirical cross-entropy (ECE, bits) against prior log10 odds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS and DS trials (+-inf allowed).
    case_llr : float, optional
        Marks the prior log10 odds ``-case_llr / ln 10`` at which this case's LR would
        bring the posterior odds to 1.

    Returns
    -------
    str
        SVG text.

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


_DET_TICKS = np.array([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5])
_DET_RANGE = (0.001, 0.5)  # the conventional 0.1 % to 50 % of DET plots


@_styled
def det_svg(ss_llr, ds_llr, *, case_llr=None):
    """DET plot: miss against false-alarm rate on probit axes from 0.1 % to 50 %.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs (or any score-like values) of SS and DS trials.
    case_llr : float, optional
        Marks the operating point of a threshold at this case's LLR (share of SS below
        it, of DS at or above it).

    Returns
    -------
    str
        SVG text.

    Notes
    -----
    Both axes are warped by the probit ``Phi^-1(p)`` [1]_ so that normal score
    distributions give straight lines; ticks and range follow the usual 0.1 %-50 %
    convention [2]_. The empirical curve (``metrics.roc``), its convex hull and the EER
    point on the hull (``metrics.eer``) are drawn; points outside the range are clipped.

    References
    ----------
    .. [1] A. Martin, G. Doddington, T. Kamm, M. Ordowski, M. Przybocki, "The DET curve in
           assessment of detection task performance", Proc. Eurospeech (1997) 1895-1898.
    .. [2] D. A. van Leeuwen, ROCAnalysis.jl documentation, "DET plot".
    """
    curve = metrics.roc(ss_llr, ds_llr)
    hull = metrics.roc_convex_hull(ss_llr, ds_llr)
    eer = metrics.eer(ss_llr, ds_llr)
    fig, ax = _figure()
    lim = ndtri(np.array(_DET_RANGE))
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
    if _DET_RANGE[0] <= eer <= _DET_RANGE[1]:
        ax.plot([ndtri(eer)], [ndtri(eer)], "o", color=CASE_COLOUR, label=f"EER = {eer:.1%}")
    else:
        ax.plot([], [], "o", color=CASE_COLOUR, label=f"EER = {eer:.1%} (outside the range)")
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
    ax.set_ylabel("miss rate\n(same source judged different)")
    ax.set_title("Detection error trade-off (DET)")
    _legend(fig, ax)
    return fig


@_styled
def roc_svg(ss_llr, ds_llr):
    """ROC: hit rate against false-alarm rate, with its convex hull and the AUC.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        LLRs (or any score-like values) of SS and DS trials.

    Returns
    -------
    str
        SVG text.

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
    """PAV transform: each score's optimal (PAV) log10 LR, a non-decreasing step curve.

    Parameters
    ----------
    ss_scores, ds_scores : array_like
        Scores (or LLRs) of SS and DS trials.
    xlabel : str
        Label of the x axis (say which log base if the inputs are LLRs).

    Returns
    -------
    str
        SVG text.

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
    fig, ax = _figure()
    x = np.append(fit.block_low, fit.block_high[-1])
    y10 = fit.llr * _LOG10_E
    finite = np.isfinite(y10)
    if finite.any():
        low, high = y10[finite].min(), y10[finite].max()
    else:
        low, high = -1.0, 1.0
    pad = 0.1 * max(high - low, 1.0)
    shown = np.clip(y10, low - pad, high + pad)  # +-inf blocks sit at the plot's edge
    ax.step(x, np.append(shown, shown[-1]), where="post", color=SS_COLOUR,
            label="PAV (optimal) log10 LR")
    for sign, marker, text in ((1, "^", "+inf"), (-1, "v", "-inf")):
        edge = np.isinf(y10) & (np.sign(y10) == sign)
        if edge.any():
            centre = 0.5 * (fit.block_low[edge] + fit.block_high[edge])
            ax.plot(centre, shown[edge], marker, color=SS_COLOUR,
                    label=f"block with log10 LR = {text} (drawn at the edge)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("log10 LR")
    ax.set_title("Pool-adjacent-violators transform")
    _legend(fig, ax)
    return fig


def _histogram(ax, ss, ds, bins, *, hidden=(0, 0)) -> None:
    """Density histograms of DS then SS values; ``hidden`` counts values not shown."""
    for values, colour, name, n_hidden in (
        (ds, DS_COLOUR, "different source", hidden[1]),
        (ss, SS_COLOUR, "same source", hidden[0]),
    ):
        note = f", {n_hidden} infinite not shown" if n_hidden else ""
        label = f"{name} (n = {values.size + n_hidden}{note})"
        if values.size:
            ax.hist(values, bins=bins, density=True, alpha=0.45, color=colour, label=label)
        else:
            ax.plot([], [], color=colour, label=label)


def _bins(values: np.ndarray) -> np.ndarray:
    """Shared bin edges: 10 to 60 bins, about 20 values per bin."""
    if values.size == 0:
        return np.linspace(-1.0, 1.0, 11)
    return np.histogram_bin_edges(values, bins=min(60, max(10, values.size // 20)))


@_styled
def llr_histogram_svg(ss_llr, ds_llr, *, case_llr=None):
    """Histograms of the SS and DS log10 LRs.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of SS and DS trials; +-inf are counted in the legend, not drawn.
    case_llr : float, optional
        This case's natural-log LR, marked at ``case_llr / ln 10``.

    Returns
    -------
    str
        SVG text.

    Notes
    -----
    Both classes share the bin edges; each histogram is a density (area 1), so classes
    of different sizes compare directly: ``log10 LR = llr / ln 10``.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    ss_ok, ds_ok = np.isfinite(ss), np.isfinite(ds)
    ss10, ds10 = ss[ss_ok] * _LOG10_E, ds[ds_ok] * _LOG10_E
    fig, ax = _figure()
    bins = _bins(np.concatenate([ss10, ds10]))
    hidden = (int(ss.size - ss_ok.sum()), int(ds.size - ds_ok.sum()))
    _histogram(ax, ss10, ds10, bins, hidden=hidden)
    if case_llr is not None:
        _mark(ax, case_llr * _LOG10_E, "this case")
    ax.set_xlabel("log10 LR")
    ax.set_ylabel("density")
    ax.set_title("Distribution of log10 LRs")
    _legend(fig, ax)
    return fig


@_styled
def score_density_svg(ss, ds, calibrator=None, *, case_score=None):
    """Histograms of the raw SS and DS scores with the fitted model.

    Parameters
    ----------
    ss, ds : array_like
        Raw (score-like) background scores of SS and DS trials; finite.
    calibrator : fitted calibrator, optional
        If it has ``density(scores) -> (pdf_ss, pdf_ds)`` its class densities are drawn;
        its ``llr`` is drawn as log10 LR on a second y axis.
    case_score : float, optional
        This case's score, marked by a vertical line (the grid is widened to include it).

    Returns
    -------
    str
        SVG text.

    Notes
    -----
    For a generative model the LR curve is ``log10 LR(s) = log10 pdf_ss(s) - log10
    pdf_ds(s)``: the right axis reads the ratio of the two drawn densities.
    """
    ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False)
    fig, ax = _figure()
    both = np.concatenate([ss, ds])
    _histogram(ax, ss, ds, _bins(both))
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
    """Top-label reliability diagram (see ``studies.multiclass.reliability_diagram``)."""
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


@_styled
def paired_comparison_svg(comparison):
    """Bootstrap distributions of the paired differences in Cllr and minCllr (``a - b``).

    Parameters
    ----------
    comparison : forensic_lr.validation.bootstrap.PairedComparison
        Its ``replicates`` (NaN replicates are skipped; infinite ones are counted in the
        title), its intervals of the differences, ``level``, ``interval`` and ``names``.

    Notes
    -----
    One histogram per metric, a dashed line at 0 (no difference) and the reported
    interval as a shaded band: when the band lies left of 0, system ``a`` has the lower
    cost.
    """
    a, b = comparison.names
    from .validation.bootstrap import INTERVALS

    kind = INTERVALS[comparison.interval]
    fig = Figure(figsize=_SIZE, layout="constrained")
    axes = fig.subplots(1, 2, sharey=False)
    colours = (SS_COLOUR, DS_COLOUR)
    panels = (
        (comparison.replicates["cllr"], comparison.cllr_diff, "Cllr"),
        (comparison.replicates["min_cllr"], comparison.min_cllr_diff, "minCllr"),
    )
    for ax, (values, diff, label), colour in zip(axes, panels, colours, strict=True):
        v = np.asarray(values, dtype=np.float64)
        v = v[~np.isnan(v)]
        finite = v[np.isfinite(v)]
        title = f"{label}: {a} - {b} (bits)"
        if finite.size < v.size:
            title += f"\n{v.size - finite.size} infinite replicate(s) not drawn"
        if finite.size:
            ax.hist(finite, bins=40, color=colour, alpha=0.6, label="bootstrap replicates")
        if np.isfinite(diff.low) and np.isfinite(diff.high):
            ax.axvspan(diff.low, diff.high, color=colour, alpha=0.15,
                       label=f"{100 * comparison.level:g}% {kind} interval")
        ax.axvline(0.0, color=REF_COLOUR, linestyle="--", label="no difference")
        ax.set_xlabel(f"difference in {label} (bits)")
        ax.set_title(title)
    axes[0].set_ylabel("replicates")
    _legend(fig, axes[0])
    return fig
