"""The fiducial band of the LLR overestimation curve, against an independent implementation
written here from lir 1.8's definition (sorted uniform draws of every value, scipy's
interp1d and savgol_filter), and the order-statistics sampler against its Beta laws."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.interpolate import interp1d
from scipy.signal import savgol_filter

from forensic_lr.metrics.overestimation import (
    fiducial_densities,
    llr_overestimation_band,
    llr_overestimation_curve,
    order_statistics_sampler,
    smoothing_half_window,
)

LN10 = np.log(10.0)


def reference_densities(data: np.ndarray, grid: np.ndarray, cdfs: np.ndarray) -> np.ndarray:
    """lir's fiducial densities written out: ``cdfs`` (n, draws) sorted uniforms at the
    sorted data; interpolation (extrapolating) on the grid extended by half a window each
    side, clipped to [0, 1]; first-derivative Savitzky-Golay filter of order 2; negatives
    set to 0; the extension cut off. Returns (grid points, draws)."""
    inside = int(np.sum((data >= grid.min()) & (data <= grid.max())))
    half = int(len(grid) * 0.1 * 2 ** np.log10(100 / inside))
    step = grid[1] - grid[0]
    extended = np.concatenate((np.linspace(grid[0] - half * step, grid[0] - step, half), grid,
                               np.linspace(grid[-1] + step, grid[-1] + half * step, half)))
    values = interp1d(np.sort(data), cdfs, axis=0, kind="linear",
                      fill_value="extrapolate")(extended)
    values = np.clip(values, 0, 1)
    pdf = savgol_filter(values, 2 * half + 1, polyorder=2, axis=0, deriv=1, delta=step,
                        mode="nearest")
    pdf[pdf < 0] = 0
    return pdf[half:-half]


def reference_band(ss10: np.ndarray, ds10: np.ndarray, grid: np.ndarray, draws: int,
                   seed: int, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """lir's band: each class's ``draws`` sorted uniform samples, the densities' ratio per
    draw (0 densities undefined), Hazen percentiles over the draws, NaN where more than 5 %
    are undefined; returns the overestimation's (low, high) edges."""
    rng = np.random.default_rng(seed)
    pdfs = []
    for data in (ss10, ds10):
        cdfs = np.sort(rng.uniform(size=(len(data), draws)), axis=0)
        pdf = reference_densities(data, grid, cdfs)
        pdf[pdf == 0] = np.nan
        pdfs.append(pdf)
    ratio = pdfs[0] / pdfs[1]
    low_lr, _, high_lr = np.nanpercentile(ratio, (100 * alpha / 2, 50, 100 * (1 - alpha / 2)),
                                          axis=1, method="hazen")
    bad = np.sum(np.isnan(ratio), axis=1) > 0.05 * draws
    low, high = grid - np.log10(high_lr), grid - np.log10(low_lr)
    low[bad] = high[bad] = np.nan
    return low, high


def test_densities_equal_the_interpolated_savitzky_golay_derivative_on_the_same_draws():
    rng = np.random.default_rng(5)
    data = np.round(rng.normal(0.0, 1.0, 80), 1)  # ties inside, none at either end
    data = np.sort(data)
    data[0], data[-1] = data[1] - 0.3, data[-2] + 0.25
    grid = np.linspace(-1.2, 1.4, 100)
    draws = 50
    cdfs = np.sort(rng.uniform(size=(data.size, draws)), axis=0)

    def u_at(ranks, n_draws):
        assert n_draws == draws
        return cdfs[ranks - 1, :].T

    ours = fiducial_densities(data, 0, data.size, grid, u_at, draws)
    np.testing.assert_allclose(ours, reference_densities(data, grid, cdfs).T, rtol=0,
                               atol=1e-10)


@pytest.mark.parametrize("n, ranks", [(10, [1, 5, 10]), (1000, [1, 2, 500, 999, 1000])])
def test_order_statistics_follow_their_beta_laws(n, ranks):
    """U_(k) ~ Beta(k, n + 1 - k); U_(j) - U_(i) ~ Beta(j - i, n + 1 - (j - i))."""
    u = order_statistics_sampler(n, np.random.default_rng(11))(np.array(ranks), 20_000)
    assert np.all(np.diff(u, axis=1) > 0)
    for j, k in enumerate(ranks):
        assert stats.kstest(u[:, j], stats.beta(k, n + 1 - k).cdf).pvalue > 1e-3
    gap = ranks[-1] - ranks[0]
    assert stats.kstest(u[:, -1] - u[:, 0], stats.beta(gap, n + 1 - gap).cdf).pvalue > 1e-3


def test_band_agrees_with_lirs_algorithm_to_monte_carlo_precision():
    rng = np.random.default_rng(23)
    ss, ds = rng.normal(1.0, 1.2, 120), rng.normal(-1.5, 1.2, 500)  # natural-log LLRs
    band = llr_overestimation_band(ss, ds, draws=4000, seed=1)
    grid, over = llr_overestimation_curve(ss, ds)
    np.testing.assert_allclose(band.grid, grid)
    np.testing.assert_allclose(band.overestimation, over)
    low, high = reference_band(ss / LN10, ds / LN10, grid, 4000, seed=2)
    low2, high2 = reference_band(ss / LN10, ds / LN10, grid, 4000, seed=3)
    # two runs of the reference with different draws set the Monte Carlo scale
    scale = np.nanmax(np.abs(np.concatenate((low - low2, high - high2))))
    assert 0 < scale < 0.1
    np.testing.assert_array_equal(np.isnan(band.low), np.isnan(low))
    defined = ~np.isnan(low)
    assert defined.sum() > 80
    assert np.max(np.abs(band.low - low)[defined]) < 2 * scale
    assert np.max(np.abs(band.high - high)[defined]) < 2 * scale
    assert np.all(band.low[defined] <= band.high[defined])


def test_band_of_calibrated_llrs_covers_zero_and_is_reproducible():
    """LLRs calibrated by construction (normal with variance 2 mu, classes at +-mu): the
    true overestimation is 0 everywhere; the 95 % band covers it at nearly every point."""
    rng = np.random.default_rng(3)
    mu = 2.0
    ss = rng.normal(mu, np.sqrt(2 * mu), 600)
    ds = rng.normal(-mu, np.sqrt(2 * mu), 3000)
    band = llr_overestimation_band(ss, ds)
    covered = (band.low <= 0) & (0 <= band.high)
    assert covered.mean() >= 0.9
    again = llr_overestimation_band(ss, ds)
    np.testing.assert_array_equal(again.low, band.low)
    other = llr_overestimation_band(ss, ds, seed=7)
    assert not np.array_equal(other.low, band.low)
    assert (band.level, band.draws) == (0.95, 1000)


def test_band_of_overconfident_llrs_lies_above_zero_at_the_large_lrs():
    """LLRs twice what they should be: at large LRs the overestimation and its band lie
    above 0 (the system claims more than its data support), where both classes still have
    values every few hundredths (the different-source values thin out above log10 LR 2.9)."""
    rng = np.random.default_rng(4)
    mu = 2.0
    ss = 2 * rng.normal(mu, np.sqrt(2 * mu), 2000)
    ds = 2 * rng.normal(-mu, np.sqrt(2 * mu), 2000)
    band = llr_overestimation_band(ss, ds)
    top = (band.grid > 1.0) & (band.grid < 2.5)
    assert top.any() and np.all(band.low[top] > 0)


def test_infinite_llrs_and_undefined_cases():
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(1.0, 1.0, 200), rng.normal(-1.0, 1.0, 200)
    with_inf = llr_overestimation_band(np.append(ss, np.inf), np.append(ds, -np.inf))
    assert with_inf is not None and np.isfinite(with_inf.low).any()
    assert llr_overestimation_band(ss + 20, ds - 20) is None  # no overlap: no curve
    with pytest.raises(ValueError, match="level"):
        llr_overestimation_band(ss, ds, level=1.5)


def test_smoothing_window_follows_lirs_rule_and_never_vanishes():
    assert smoothing_half_window(100, 100) == 10
    assert smoothing_half_window(10, 100) == 20
    assert smoothing_half_window(1000, 100) == 5
    assert smoothing_half_window(10**7, 100) == 1  # lir's rule gives 0 here


def test_the_figure_draws_the_curve_and_the_band():
    from forensic_lr import plots

    rng = np.random.default_rng(12)
    ss, ds = rng.normal(1.0, 1.5, 300), rng.normal(-1.0, 1.5, 900)
    band = llr_overestimation_band(ss, ds, seed=5)
    fig = plots.llr_overestimation(ss, ds, seed=5)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    mean = f"{np.mean(np.abs(band.overestimation)):.2f}"
    curve = lines[f"overestimation (mean absolute {mean})"]
    np.testing.assert_array_equal(curve.get_xdata(), band.grid)
    np.testing.assert_array_equal(curve.get_ydata(), band.overestimation)
    np.testing.assert_array_equal(lines["95 % fiducial interval"].get_ydata(), band.low)
    edges = [line for line in fig.axes[0].get_lines() if line.get_label().startswith("_")
             and line.get_linestyle() == ":"]
    assert any(np.array_equal(line.get_ydata(), band.high, equal_nan=True) for line in edges)
    outcomes = np.log(10) * np.array([3.0] * 90 + [-1.0] * 10), np.log(10) * np.array(
        [-1.0] * 990 + [3.0] * 10)  # two values only: no spread inside the range
    texts = [t.get_text() for t in plots.llr_overestimation(*outcomes).axes[0].texts]
    assert any(t.startswith("not defined") for t in texts)
