"""LLR overestimation: how far an LR system's log10 LRs lie from the empirical LRs of its
own output ("the LR of the LR is the LR")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .._checks import check_pair
from .._numbers import LN10
from ..defaults import DEFAULT_SEED

__all__ = ["OverestimationBand", "llr_overestimation", "llr_overestimation_band",
           "llr_overestimation_curve", "robust_normal_reference"]

#: Points of the grid of system log10 LRs on which the overestimation is averaged.
GRID_POINTS = 100
#: Share of each class's LLRs left out at either end when the grid's range is chosen.
TAIL = 0.001
#: Interquartile range of the standard normal distribution, ``2 Phi^-1(3/4)``.
NORMAL_IQR = 1.3489795003921634


def hazen_quantile(values: np.ndarray, q: float) -> float:
    """The ``q`` quantile of sorted ``values`` by Hazen's rule (position ``n q + 1/2``,
    1-based, linear between neighbours; numpy's ``method="hazen"``), +-inf allowed: a
    quantile between an infinite and a finite value is the infinite one."""
    pos = float(np.clip(values.size * q - 0.5, 0, values.size - 1))
    i = int(np.floor(pos))
    t = pos - i
    a, b = float(values[i]), float(values[min(i + 1, values.size - 1)])
    if t == 0 or a == b:
        return a
    if np.isinf(a) or np.isinf(b):
        return np.nan if np.isinf(a) and np.isinf(b) else (a if np.isinf(a) else b)
    return a + t * (b - a)


def _sorted_quantile(values: np.ndarray, q: float) -> float:
    """numpy's default (linear) ``q`` quantile of sorted finite ``values``: position
    ``(n - 1) q``, linear between neighbours."""
    pos = (values.size - 1) * q
    i = int(pos)
    upper = values[min(i + 1, values.size - 1)]
    return float(values[i] + (pos - i) * (upper - values[i]))


def robust_normal_reference(values: np.ndarray, *, presorted: bool = False) -> float:
    """Kernel bandwidth ``(4 / (3 n))^(1/5) min(sd, IQR / 1.349)``, NaN for fewer than two
    values or no spread.

    The normal-reference bandwidth with Silverman's robust spread ``A = min(sd, IQR/1.349)``
    (Silverman 1986, sec. 3.4.2: ``1.06 A n^(-1/5)``, here with its exact constants:
    ``(4/3)^(1/5) = 1.0592`` and 1.349 the IQR of the standard normal); sd with
    ``ddof = 1``, quartiles by linear interpolation. It is KDEpy's ``"silverman"`` rule,
    which the lir package uses for the LLR overestimation. ``presorted``: ``values`` are
    sorted (the quartiles are then read off them).
    """
    n = values.size
    if n < 2:
        return np.nan
    if presorted:
        q75, q25 = _sorted_quantile(values, 0.75), _sorted_quantile(values, 0.25)
    else:
        q75, q25 = np.percentile(values, [75, 25])
    spread = min(float(np.std(values, ddof=1)), (q75 - q25) / NORMAL_IQR)
    return spread * (0.75 * n) ** -0.2 if spread > 0 else np.nan


#: Kernel terms the exact sum may take (all grid points together) before the densities
#: are taken from linearly binned values instead (where that is faster: about 10^6 values).
EXACT_TERMS = 10_000_000
#: Bins per bandwidth of the binned densities (bin width ``h / BINS_PER_BANDWIDTH``).
BINS_PER_BANDWIDTH = 128


def _log_density(grid: np.ndarray, values: np.ndarray, h: float, *,
                 exact_terms: int = EXACT_TERMS) -> np.ndarray:
    """``log((1/n) sum_i N(g; x_i, h^2))`` at each grid point ``g`` from sorted ``values``:
    each of the ``n`` values counts in ``n``, an infinite one adds no density.

    Each point's sum is taken relative to its nearest value (distance ``d``) over the values
    within ``sqrt(d^2 + 2 (ln n + 30) h^2)`` of it; the others together change the density
    by less than ``e^-30`` (relative). One pass over that window per grid point, memory
    O(n). When the windows hold more than ``exact_terms`` values in all (about 10^6 values
    and more per class), the values are linearly binned first
    (:func:`_log_density_binned`).
    """
    x = values[np.isfinite(values)]
    pos = np.clip(np.searchsorted(x, grid), 1, x.size - 1)
    nearest = np.where(grid - x[pos - 1] <= x[pos] - grid, pos - 1, pos)
    near = np.abs(x[nearest] - grid)
    half = np.sqrt(near * near + 2.0 * (np.log(x.size) + 30.0) * h * h)
    # the nearest value always in its window (grid - half may round past it)
    first = np.minimum(np.searchsorted(x, grid - half, side="left"), nearest)
    stop = np.maximum(np.searchsorted(x, grid + half, side="right"), nearest + 1)
    norm = np.log(values.size) + np.log(h) + 0.5 * np.log(2 * np.pi)
    if int((stop - first).sum()) > exact_terms:
        return _log_density_binned(grid, x[first.min():stop.max()], h, half) - norm
    c = -0.5 / (h * h)
    total = np.empty(grid.size)
    for k in range(grid.size):  # 100 grid points, each vectorised over its window
        t = x[first[k]:stop[k]] - grid[k]
        t *= t
        t -= near[k] * near[k]
        t *= c
        total[k] = np.exp(t, out=t).sum()
    return np.log(total) + c * near * near - norm


def _log_density_binned(grid: np.ndarray, x: np.ndarray, h: float,
                        half: np.ndarray) -> np.ndarray:
    """``log sum_i exp(-(g - x_i)^2 / (2 h^2))`` at each grid point from linearly binned
    sorted finite ``x`` (Silverman [1]_; Wand and Jones [2]_, appendix D).

    Each value is split between the two nearest of equally spaced bin centres ``b_j``
    (width ``delta = h / BINS_PER_BANDWIDTH``) in proportion to its closeness, so the
    bins keep the values' count and mean; the sum is then
    ``sum_j w_j exp(-(g - b_j)^2 / (2 h^2))`` over the bins within ``half`` of ``g``,
    in log space. The kernel's linear interpolation errs by at most ``delta^2 / (8 h^2)``
    = 8e-6 of its peak (relatively more only in gaps many bandwidths wide, where the
    density is negligible); the tests hold the result to the exact sum. A few passes over
    the values and O(grid x bins) after, against O(grid x n) for the exact sum.

    References
    ----------
    .. [1] B. W. Silverman, "Kernel density estimation using the fast Fourier transform",
           Applied Statistics 31 (1982) 93-99.
    .. [2] M. P. Wand, M. C. Jones, *Kernel Smoothing*, Chapman and Hall, 1995.
    """
    delta = h / BINS_PER_BANDWIDTH
    where = x - x[0]
    where *= 1.0 / delta
    index = where.astype(np.int64)
    where -= index  # now each value's share of the upper bin
    bins = int(index[-1]) + 2
    upper = np.bincount(index, where, minlength=bins)
    weights = np.bincount(index, minlength=bins) - upper
    weights[1:] += upper[:-1]
    centres = x[0] + delta * np.arange(bins)
    first = np.searchsorted(centres, grid - half - delta, side="left")
    stop = np.searchsorted(centres, grid + half + delta, side="right")
    out = np.empty(grid.size)
    for k in range(grid.size):  # 100 grid points, each vectorised over its bins
        d = (centres[first[k]:stop[k]] - grid[k]) / h
        out[k] = logsumexp(-0.5 * d * d, b=weights[first[k]:stop[k]])
    return out


def llr_overestimation_curve(ss_llr, ds_llr, *, points: int = GRID_POINTS
                             ) -> tuple[np.ndarray, np.ndarray] | None:
    """The LLR overestimation ``(grid, o(grid))`` in log10 units, None where undefined.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source (Hp) and different-source (Hd) trials (+-inf
        allowed).
    points : int
        Number of grid points.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray) or None
        ``grid`` of system log10 LRs and the overestimation at each; None when the two
        classes' log10 LRs do not overlap (see below), or a class has fewer than two
        values in the range or no spread there.

    Notes
    -----
    With ``x`` the log10 LRs, the grid has ``points`` equally spaced values from
    ``max(Q_p(0.001), Q_d(0.001))`` to ``min(Q_p(0.999), Q_d(0.999))`` (``Q`` the Hazen
    quantile of each class: the range where both classes have LRs, without their most
    extreme 0.1 %). At each grid point ``g``, the empirical LR is the ratio of Gaussian
    kernel density estimates of the Hp and Hd log10 LRs, ``f_p(g) / f_d(g)``, and the
    overestimation is ``o(g) = g - log10(f_p(g) / f_d(g))``: +1 means the system's LRs
    there are ten times too large, 0 that they are what their own distributions support.
    Each class's bandwidth is :func:`robust_normal_reference` of its log10 LRs inside the
    grid's range, applied to all of them. Densities are summed in log space, so far tails
    do not underflow. This is the LLR-overestimation of the lir package [1]_ (from
    version 1.8, ``calc_llr_overestimation``, without its fiducial interval).

    References
    ----------
    .. [1] Netherlands Forensic Institute, *lir: likelihood ratio library*, version 1.8,
           2026 (``lir.algorithms.llr_overestimation``).
    .. [2] B. W. Silverman, *Density Estimation for Statistics and Data Analysis*,
           Chapman and Hall, 1986, sec. 3.4.2.
    """
    return curve_of_sorted(*(np.sort(v) for v in check_pair(ss_llr, ds_llr)), points=points)


def _grid(ss: np.ndarray, ds: np.ndarray, points: int) -> np.ndarray | None:
    """The curve's grid of natural-log LLRs from the classes' sorted LLRs (None: no
    overlap): ``points`` values from ``max(Q_p(0.001), Q_d(0.001))`` to
    ``min(Q_p(0.999), Q_d(0.999))``, Hazen quantiles."""
    lo = max(hazen_quantile(ss, TAIL), hazen_quantile(ds, TAIL))
    hi = min(hazen_quantile(ss, 1 - TAIL), hazen_quantile(ds, 1 - TAIL))
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        return None
    return np.linspace(lo, hi, points)


def curve_of_sorted(ss: np.ndarray, ds: np.ndarray, *, points: int = GRID_POINTS
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`llr_overestimation_curve` of sorted natural-log LLRs (checked already).

    Values so extreme that a bandwidth's square or a density leaves the floating-point
    range (e.g. LLRs of 1e-159 apart) make the curve undefined (None), never a warning.
    """
    with np.errstate(all="ignore"):
        # in natural-log units: the grid and the bandwidths scale by ln 10 and the two
        # classes' densities by the same factor, which cancels in their ratio
        grid = _grid(ss, ds, points)
        if grid is None:
            return None
        lo, hi = grid[0], grid[-1]
        log_f = []
        for values in (ss, ds):
            inside = values[np.searchsorted(values, lo):np.searchsorted(values, hi, "right")]
            h = robust_normal_reference(inside, presorted=True)
            if not h * h > 0:  # also a bandwidth whose square underflows to 0
                return None
            log_f.append(_log_density(grid, values, h))
        grid = grid / LN10
        over = grid - (log_f[0] - log_f[1]) / LN10
    return (grid, over) if np.all(np.isfinite(over)) else None


def llr_overestimation(ss_llr, ds_llr) -> float:
    """Mean absolute LLR overestimation ``mean_g |o(g)|`` over the grid of
    :func:`llr_overestimation_curve` (log10 units; 0 for LRs exactly as large as their own
    distributions support); NaN where the curve is undefined.

    The lir package's metric ``llr_overestimation`` [1]_; it returns NaN also when the
    overestimation is exactly 0 at some grid point, this one does not.

    References
    ----------
    .. [1] Netherlands Forensic Institute, *lir: likelihood ratio library*, version 1.8,
           2026 (``lir.metrics.overestimation``).
    """
    return overestimation_of_sorted(*(np.sort(v) for v in check_pair(ss_llr, ds_llr)))


def overestimation_of_sorted(ss: np.ndarray, ds: np.ndarray) -> float:
    """:func:`llr_overestimation` of sorted natural-log LLRs (checked already)."""
    curve = curve_of_sorted(ss, ds)
    return np.nan if curve is None else float(np.mean(np.abs(curve[1])))


# ------------------------------------------------------------------------ fiducial band
#: Fiducial distributions drawn per class for the band (lir's default).
FIDUCIAL_DRAWS = 1000
#: Half the smoothing window as a share of the grid's points, for 100 values in the grid's
#: range (lir's ``smoothing_grid_fraction``).
SMOOTHING_SHARE = 0.1
#: Grid points where more than this share of the draws gives no empirical LR (a density
#: of 0) have no band.
MAX_UNDEFINED_SHARE = 0.05

#: ``u_at(ranks, draws)``: a ``(draws, len(ranks))`` array of uniform order statistics
#: ``U_(k)`` (1-based ranks ``k``, increasing), jointly from one sorted uniform sample per draw
OrderStatistics = Callable[[np.ndarray, int], np.ndarray]


@dataclass(frozen=True)
class OverestimationBand:
    """The LLR overestimation curve with its fiducial band (log10 units).

    Attributes
    ----------
    grid, overestimation : numpy.ndarray
        As :func:`llr_overestimation_curve`.
    low, high : numpy.ndarray
        The band's lower and upper edge at each grid point (NaN where undefined).
    level : float
        Its coverage (0.95: from the 2.5th to the 97.5th percentile of the draws).
    draws : int
        Fiducial distributions drawn per class.
    seed : int
        Seed of the draws.
    """

    grid: np.ndarray
    overestimation: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    draws: int
    seed: int


def order_statistics_sampler(n: int, rng: np.random.Generator) -> OrderStatistics:
    """Joint draws of chosen order statistics ``U_(k)`` of ``n`` independent uniforms.

    ``U_(k) = S_k / S_(n+1)`` with ``S_k`` the sum of ``k`` independent standard
    exponentials (Devroye [1]_, ch. V.2), so the statistics at ranks ``k_1 < ... < k_m`` are
    cumulative sums of Gamma(``k_j - k_(j-1)``) spacings divided by their total with a last
    Gamma(``n + 1 - k_m``): O(m) work per draw, whatever ``n`` (sorting ``n`` uniforms per
    draw gives the same distribution at O(n log n)).

    References
    ----------
    .. [1] L. Devroye, *Non-Uniform Random Variate Generation*, Springer, 1986.
    """

    def u_at(ranks: np.ndarray, draws: int) -> np.ndarray:
        shapes = np.diff(np.concatenate(([0], ranks, [n + 1]))).astype(np.float64)
        sums = np.cumsum(rng.standard_gamma(shapes, size=(draws, shapes.size)), axis=1)
        return sums[:, :-1] / sums[:, -1:]

    return u_at


def smoothing_half_window(in_range: int, points: int) -> int:
    """Half the smoothing window in grid points: ``points x 0.1 x 2^(log10(100 / m))`` for
    ``m`` values in the grid's range, truncated, at least 1 (lir's rule: 10 % of the grid
    for 100 values, 20 % for 10, about 5 % for 1,000; lir fails where it truncates to 0,
    above about 200,000 values)."""
    share = SMOOTHING_SHARE * 2.0 ** np.log10(100.0 / in_range)
    return max(int(points * share), 1)


def fiducial_densities(x: np.ndarray, n_below: int, n: int, grid: np.ndarray,
                       u_at: OrderStatistics, draws: int) -> np.ndarray | None:
    """Densities of ``draws`` fiducial distributions of one class at the grid points,
    ``(draws, grid.size)``; None without two distinct finite values.

    Parameters
    ----------
    x : numpy.ndarray
        The class's sorted finite values (log10 LRs).
    n_below, n : int
        Values at -inf (ranked first) and all values.
    grid : numpy.ndarray
        Equally spaced points.
    u_at : callable
        The joint order statistics (:func:`order_statistics_sampler`).

    Notes
    -----
    A fiducial distribution function takes the value ``U_(r)`` at the value of rank ``r``,
    ``U_(1) < ... < U_(n)`` sorted uniforms; between values it is linear (after the last of
    tied values, before the first of the next), and beyond the outermost values it goes on
    along the outermost segment between distinct values; it is clipped to [0, 1]. Its
    density is the slope of a quadratic least-squares fit over ``2 w + 1`` grid points
    centred on each grid point (the first-derivative Savitzky-Golay filter [1]_, with
    ``w`` = :func:`smoothing_half_window`), which for a symmetric window is
    ``sum_k k F(g + k d) / (d sum_k k^2)``, ``k = -w..w``; negative slopes count as 0. The
    window reaches ``w`` points beyond the grid at each end, where the function is
    evaluated as well (lir's extended grid, so no filter edge rule applies).

    References
    ----------
    .. [1] A. Savitzky, M. J. E. Golay, "Smoothing and differentiation of data by
           simplified least squares procedures", Analytical Chemistry 36 (1964) 1627-1639.
    """
    if x.size < 2 or x[0] == x[-1]:
        return None
    step = grid[1] - grid[0]
    in_range = int(np.searchsorted(x, grid[-1], "right") - np.searchsorted(x, grid[0]))
    w = smoothing_half_window(max(in_range, 1), grid.size)
    points = grid[0] + step * np.arange(-w, grid.size + w)
    # the two values each point lies between (0-based positions in x)
    hi = np.searchsorted(x, points, side="left")
    first_above_min = int(np.searchsorted(x, x[0], side="right"))  # first value > min
    last_below_max = int(np.searchsorted(x, x[-1], side="left")) - 1  # last value < max
    hi = np.where(hi <= 0, first_above_min, hi)
    hi = np.where(hi >= x.size, last_below_max + 1, hi)
    lo = hi - 1
    t = (points - x[lo]) / (x[hi] - x[lo])
    ranks, where = np.unique(np.concatenate((lo, hi)) + n_below + 1, return_inverse=True)
    u = u_at(ranks, draws)
    u_lo, u_hi = u[:, where[:points.size]], u[:, where[points.size:]]
    cdf = np.clip(u_lo + (u_hi - u_lo) * t, 0.0, 1.0)
    k = np.arange(-w, w + 1, dtype=np.float64)
    kernel = k / (step * float(k @ k))
    # correlate each row with the kernel; column j of the result is grid point j
    windows = np.lib.stride_tricks.sliding_window_view(cdf, 2 * w + 1, axis=1)
    return np.maximum(windows @ kernel, 0.0)


def llr_overestimation_band(ss_llr, ds_llr, *, level: float = 0.95,
                            draws: int = FIDUCIAL_DRAWS, seed: int = DEFAULT_SEED,
                            points: int = GRID_POINTS) -> OverestimationBand | None:
    """The LLR overestimation curve with its fiducial band; None where the curve is
    undefined.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source (Hp) and different-source (Hd) trials (+-inf
        allowed).
    level : float
        Coverage of the band (default 95 %).
    draws : int
        Fiducial distributions per class (default 1,000, lir's).
    seed : int
        Seed of the draws (the same inputs and seed give the same band).
    points : int
        Grid points, as :func:`llr_overestimation_curve`.

    Notes
    -----
    The band of the lir package's LLR-overestimation plot [1]_ (version 1.8,
    ``calc_llr_overestimation`` with ``calc_fiducial_density_functions``), from its
    definition: each class's log10 LRs give ``draws`` fiducial distribution functions and
    their smoothed densities (:func:`fiducial_densities`); draw ``j`` gives the empirical
    LR ``f_p,j(g) / f_d,j(g)`` at each grid point ``g`` (undefined where either density is
    0). Its ``(1 - level) / 2``, and ``(1 + level) / 2`` percentiles over the draws (Hazen's
    rule, undefined draws left out) give the band ``g - log10(percentile)``: the upper
    edge from the low percentile. Where more than 5 % of the draws are undefined the band
    is NaN. The draws use :func:`order_statistics_sampler` (the same distributions as
    lir's sorted uniforms, not the same random numbers, so a band agrees with lir's to
    Monte Carlo precision).

    References
    ----------
    .. [1] Netherlands Forensic Institute, *lir: likelihood ratio library*, version 1.8,
           2026 (``lir.algorithms.llr_overestimation``).
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie between 0 and 1; got {level!r}")
    if int(draws) < 1:
        raise ValueError(f"draws must be a positive whole number; got {draws!r}")
    ss, ds = (np.sort(v) for v in check_pair(ss_llr, ds_llr))
    curve = curve_of_sorted(ss, ds, points=points)
    if curve is None:
        return None
    grid, over = curve
    rng = np.random.default_rng(seed)
    densities = []
    for values in (ss, ds):
        finite = values[np.isfinite(values)] / LN10
        n_below = int(np.searchsorted(values, -np.inf, side="right"))
        f = fiducial_densities(finite, n_below, values.size, grid,
                               order_statistics_sampler(values.size, rng), int(draws))
        if f is None:
            return None
        densities.append(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where((densities[0] > 0) & (densities[1] > 0),
                         densities[0] / densities[1], np.nan)
        tails = 100.0 * np.array([(1 - level) / 2, (1 + level) / 2])
        undefined = np.isnan(ratio).sum(axis=0) > MAX_UNDEFINED_SHARE * int(draws)
        ratio[:, undefined] = 1.0  # kept out of the percentiles, then NaN
        lr_low, lr_high = np.nanpercentile(ratio, tails, axis=0, method="hazen")
        low, high = grid - np.log10(lr_high), grid - np.log10(lr_low)
    low[undefined] = high[undefined] = np.nan
    return OverestimationBand(grid, over, low, high, float(level), int(draws), int(seed))
