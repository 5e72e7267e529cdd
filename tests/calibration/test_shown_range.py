"""The figures' score range: all scores, unless different-source scores reach far below the
same-source ones (a feature-based model's LLRs); then the cut tail is counted in the legend."""

import numpy as np

from forensic_lr import plots
from forensic_lr.calibration.curves import model_curves, shown_range
from forensic_lr.calibration.logistic import LogisticCalibrator


def test_ordinary_scores_are_shown_whole():
    rng = np.random.default_rng(1)
    ss, ds = rng.normal(5.5, 0.6, 300), rng.normal(3.4, 0.65, 3000)
    assert shown_range(ss, ds) == (min(ss.min(), ds.min()), max(ss.max(), ds.max()))


def test_a_far_tail_of_different_source_scores_is_cut_one_ss_range_below_the_ss_scores():
    rng = np.random.default_rng(2)
    ss = rng.uniform(0, 10, 200)
    ds = np.r_[rng.uniform(-5000, -100, 900), rng.uniform(-15, 5, 100)]
    low, high = shown_range(ss, ds)
    assert low == ss.min() - (ss.max() - ss.min()) and high == max(ss.max(), ds.max())
    hidden = int((ds < low).sum())  # counted here, independently of the plotting code
    fig = plots.score_densities(ss, ds, LogisticCalibrator().fit(ss, ds))
    legends = [*fig.legends, *(a.get_legend() for a in fig.axes)]
    labels = [t.get_text() for legend in legends if legend for t in legend.get_texts()]
    assert any(f"{hidden:,} below {low:,.4g} not shown" in text for text in labels), labels
    grid = model_curves(LogisticCalibrator().fit(ss, ds), ss, ds).score
    span = high - low
    assert grid[0] == low - 0.05 * span and grid[-1] == high + 0.05 * span


def test_the_tippett_plot_starts_where_the_far_tail_is_cut_and_counts_it():
    rng = np.random.default_rng(3)
    ss = rng.uniform(0, 10, 200)
    ds = np.r_[rng.uniform(-5000, -100, 900), rng.uniform(-15, 5, 100), -np.inf]
    low = (ss.min() - (ss.max() - ss.min())) * np.log10(np.e)
    fig = plots.tippett(ss, ds)
    assert fig.axes[0].get_xlim()[0] == low
    hidden = int((ds * np.log10(np.e) < low).sum())  # the -inf counts as beyond too
    labels = [t.get_text() for a in fig.axes if a.get_legend() for t in a.get_legend().get_texts()]
    labels += [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert any(f"({hidden:,} LRs below {low:,.4g} not shown)" in text for text in labels), labels
    ordinary = plots.tippett(rng.normal(2, 1, 100), rng.normal(-2, 1, 100))
    assert "not shown" not in " ".join(
        t.get_text() for a in ordinary.axes if a.get_legend() for t in a.get_legend().get_texts())
