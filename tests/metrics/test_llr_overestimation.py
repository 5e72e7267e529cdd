"""LLR overestimation against the values the lir package's tests print and a plain-Python
definition written here."""

from __future__ import annotations

import math
import statistics
import warnings

import numpy as np
import pytest
from scipy.stats.mstats import mquantiles

from forensic_lr.metrics import evaluate_llrs, llr_overestimation, llr_overestimation_curve

MU = math.log(100.0)  # calibrated Gaussian LLRs: N(+-mu, 2 mu) in natural logs
SIGMA = math.sqrt(2 * MU)


def _gaussian_system(n: int, *, shift: float = 0.0, scale: float = 1.0):
    """lir's test systems: seed 42, H1 then H2 draws; LLRs scaled, then shifted (ln)."""
    rng = np.random.default_rng(42)
    ss = rng.normal(MU, SIGMA, n) * scale + shift
    ds = rng.normal(-MU, SIGMA, n) * scale + shift
    return ss, ds


@pytest.mark.parametrize(("n", "shift", "scale", "printed"), [
    (100, 0.0, 1.0, 0.2473928),           # small perfect system
    (1000, 0.0, 1.0, 0.0736284),          # big perfect system
    (1000, math.log(10.0), 1.0, 0.9678462),  # shifted by one log10 unit
    (1000, 0.0, 3.0, 2.1476174),          # exaggerating three times
])
def test_values_printed_by_lir(n, shift, scale, printed):
    # lir's tests/algorithms/test_llr_overestimation.py asserts these to 7 decimals
    ss, ds = _gaussian_system(n, shift=shift, scale=scale)
    assert llr_overestimation(ss, ds) == pytest.approx(printed, abs=1.5e-7)
    assert evaluate_llrs(ss, ds, check=False).llr_overestimation == llr_overestimation(ss, ds)


def _brute_force_curve(ss_llr, ds_llr, points=100):
    """The definition, term by term: Hazen quantiles (scipy's mquantiles with
    alphap = betap = 1/2), the bandwidth from statistics' stdev and quartiles, each
    density a sum of math.exp kernels over every value (an infinite one adds 0)."""
    classes = [np.asarray(v, dtype=float) / math.log(10.0) for v in (ss_llr, ds_llr)]

    def hazen(values, p):
        return float(mquantiles(values, [p], alphap=0.5, betap=0.5)[0])

    lo = max(hazen(v, 0.001) for v in classes)
    hi = min(hazen(v, 0.999) for v in classes)
    grid = [lo + (hi - lo) * k / (points - 1) for k in range(points)]
    log_f = []
    for values in classes:
        inside = [float(x) for x in values if lo <= x <= hi]
        q = statistics.quantiles(inside, n=4, method="inclusive")
        spread = min(statistics.stdev(inside), (q[2] - q[0]) / 1.3489795003921634)
        h = spread * (0.75 * len(inside)) ** -0.2
        dens = []
        for g in grid:
            total = sum(math.exp(-0.5 * ((g - x) / h) ** 2) for x in values if math.isfinite(x))
            dens.append(math.log(total / (len(values) * h * math.sqrt(2 * math.pi))))
        log_f.append(dens)
    return np.array(grid), np.array([g - (a - b) / math.log(10.0)
                                     for g, a, b in zip(grid, *log_f, strict=True)])


@pytest.mark.parametrize("seed", range(6))
def test_curve_equals_the_plain_python_definition(seed):
    rng = np.random.default_rng(seed)
    n_ss, n_ds = rng.integers(20, 80), rng.integers(40, 200)
    ss = np.round(rng.normal(2.0, 2.5, n_ss), 1)  # ties on a 0.1 grid
    ds = np.round(rng.normal(-2.0, 2.0, n_ds) * rng.uniform(0.5, 2.0), 1)
    grid, over = llr_overestimation_curve(ss, ds)
    ref_grid, ref = _brute_force_curve(ss, ds)
    np.testing.assert_allclose(grid, ref_grid, rtol=0, atol=1e-12)
    np.testing.assert_allclose(over, ref, rtol=0, atol=1e-9)
    assert llr_overestimation(ss, ds) == pytest.approx(np.mean(np.abs(ref)), abs=1e-9)


def test_infinite_llrs_count_in_n_and_add_no_density():
    rng = np.random.default_rng(7)
    ss = np.r_[rng.normal(2.0, 2.0, 300), np.inf]
    ds = np.r_[rng.normal(-2.0, 2.0, 500), -np.inf, -np.inf]
    # with 300 + 1 values the 0.1 % tails are interpolated between finite values only
    grid, over = llr_overestimation_curve(ss, ds)
    same = np.r_[ss[:-1], 1e300], np.r_[ds[:-2], -1e300, -1e300]  # far away: density 0
    grid2, over2 = llr_overestimation_curve(*same)
    np.testing.assert_allclose(over, over2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(grid, grid2, rtol=0, atol=1e-12)


def test_a_shift_of_calibrated_llrs_is_found_as_the_shift():
    # For calibrated LLRs log10 f_ss(x)/f_ds(x) = x; shifted by c (log10) the empirical
    # log10 LR at y is y - c, so o(y) = c everywhere: the metric tends to |c|.
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(MU, SIGMA, 20_000), rng.normal(-MU, SIGMA, 20_000)
    for c in (-1.0, 0.5, 1.0):
        assert llr_overestimation(ss + c * math.log(10), ds + c * math.log(10)) == \
            pytest.approx(abs(c), abs=0.06)
    assert llr_overestimation(ss, ds) < 0.06


def test_no_overlap_is_undefined():
    assert llr_overestimation_curve([5.0, 6.0, 7.0], [-3.0, -2.0, -1.0]) is None
    assert math.isnan(llr_overestimation([5.0, 6.0, 7.0], [-3.0, -2.0, -1.0]))
    assert math.isnan(evaluate_llrs([5.0, 6.0, 7.0], [-3.0, -2.0, -1.0],
                                    check=False).llr_overestimation)


def test_values_beyond_floating_point_range_are_undefined_without_warnings():
    # hypothesis found LLRs 1e-159 apart: the bandwidth's square underflows
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(llr_overestimation([7.9e-159, 9.3e-180], [0.0, 1.0]))
        # a positive bandwidth of a few subnormal values whose square is 0 (a Python
        # float, so a ZeroDivisionError before: found by hypothesis through evaluate)
        values = [0.0, 1.0, 3.0, 2.225073858507203e-309, 5e-324, -1.0, 2.0, -2.0]
        assert math.isnan(llr_overestimation(values[:6], values[6:]))


@pytest.mark.parametrize("seed", [0, 1])
def test_binned_densities_equal_the_exact_sums(seed):
    """Above about 10^6 values the densities come from linearly binned values: forced on
    at 2 x 10^4 values (with infinite ones counting in n), they equal the exact window sums
    to 2e-6 (natural log), and the overestimation curve to 1e-6 log10."""
    from forensic_lr.metrics import overestimation as ov

    rng = np.random.default_rng(seed)
    x = np.sort(np.r_[rng.standard_t(5, 20_000), [-np.inf, np.inf]])
    grid = np.linspace(-2.5, 2.5, 100)
    h = ov.robust_normal_reference(x[np.isfinite(x)])
    exact = ov._log_density(grid, x, h, exact_terms=10**15)
    binned = ov._log_density(grid, x, h, exact_terms=0)
    assert np.max(np.abs(binned - exact)) < 2e-6
    # the overestimation: log10(f_ss / f_ds) from each, the same to 1e-6
    y = np.sort(rng.normal(0.5, 1.2, 20_000))
    hy = ov.robust_normal_reference(y)
    exact_y = ov._log_density(grid, y, hy, exact_terms=10**15)
    binned_y = ov._log_density(grid, y, hy, exact_terms=0)
    assert np.max(np.abs((binned - binned_y) - (exact - exact_y))) / math.log(10) < 1e-6
