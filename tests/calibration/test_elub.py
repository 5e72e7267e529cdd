"""ELUB bounds against a brute-force evaluation of their definition, and the ELUB wrapper.

The reference ``brute_elub`` spells out the definition of Vergeer et al. (2016) in the
operational form of the lir package (one misleading LR added to each side, bound = the
innermost threshold where the system is worse than the neutral LR = 1, moved one 0.01
step towards 0): a dense (n x thresholds) acceptance matrix and plain means, nothing
shared with the sorted/searchsorted implementation.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.calibration import (
    ELUB,
    GaussianCalibrator,
    KDECalibrator,
    LogisticCalibrator,
    PAVCalibrator,
    elub_bounds,
)
from forensic_lr.calibration.elub import elub_bounds_log10
from forensic_lr.errors import InputError, NotFittedError

LN10 = np.log(10.0)
GRID = np.arange(-800, 801) / 100  # log10 thresholds, far beyond the limits below


def _on_grid(llr):
    """log10 LRs, a value within 1e-12 of a multiple of 0.01 taken to lie on it (the
    definition's convention for LRs given on the grid)."""
    with np.errstate(invalid="ignore"):
        v = np.asarray(llr, dtype=float) / LN10
        near = np.round(v, 2)
        return np.where(np.abs(v - near) <= 1e-12, near, v)


def brute_elub(ss_llr, ds_llr):
    """Definition evaluated threshold by threshold, in log10 units."""
    hp = np.append(_on_grid(ss_llr), -np.inf)  # misleading Hp trial: LR = 0
    hd = np.append(_on_grid(ds_llr), np.inf)  # misleading Hd trial: LR = inf
    accept_hp = hp[:, None] > GRID[None, :]  # decide "Hp" when LR > threshold
    accept_hd = hd[:, None] > GRID[None, :]
    theta = 10.0**GRID
    cost_sys = (1 - accept_hp.mean(axis=0)) + theta * accept_hd.mean(axis=0)
    neutral_accepts = 1.0 > theta  # the neutral system reports LR = 1 for every trial
    cost_neutral = (1 - neutral_accepts) + theta * neutral_accepts
    worse = cost_neutral / cost_sys < 1
    lower = GRID[(GRID <= 0) & worse].max() + 0.01
    upper = GRID[(GRID >= 0) & worse].min() - 0.01
    return round(min(lower, 0.0), 2), round(max(upper, 0.0), 2)


@pytest.mark.parametrize("seed", range(4))
def test_elub_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(2.5, 2, 40), rng.normal(-2.5, 2, 70)
    low, high = elub_bounds(ss, ds)
    ref = brute_elub(ss, ds)
    assert low / LN10 == pytest.approx(ref[0], abs=1e-12)
    assert high / LN10 == pytest.approx(ref[1], abs=1e-12)
    assert elub_bounds_log10(ss, ds) == ref
    assert -np.log10(41) < ref[0] <= 0 <= ref[1] < np.log10(71)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-30, 30), min_size=1, max_size=25),
    st.lists(st.floats(-30, 30), min_size=1, max_size=25),
    st.booleans(),
)
def test_elub_property_against_brute_force(ss, ds, with_inf):
    ss, ds = np.array(ss), np.array(ds)
    if with_inf:  # PAV-type LLRs: infinite values are legal
        ss, ds = np.append(ss, np.inf), np.append(ds, -np.inf)
    assert elub_bounds_log10(ss, ds) == brute_elub(ss, ds)
    low, high = elub_bounds_log10(ss, ds)
    assert -np.log10(ss.size + 1) < low <= 0 <= high < np.log10(ds.size + 1)


def test_elub_of_perfect_separation_reaches_the_sample_size_limits():
    # every SS LLR +inf, every DS LLR -inf: the only limit is the added misleading LR,
    # so the bounds are the last grid points strictly inside -+log10(n + 1).
    low, high = elub_bounds_log10(np.full(99, np.inf), np.full(999, -np.inf))
    assert (low, high) == (-1.99, 2.99)  # log10(100) = 2, log10(1000) = 3
    assert (low, high) == brute_elub(np.full(99, np.inf), np.full(999, -np.inf))


def test_elub_of_an_uninformative_system_is_zero():
    # LLRs carrying the wrong sign everywhere: worse than neutral on both sides of 0
    assert elub_bounds(np.full(20, -3.0), np.full(20, 3.0)) == (0.0, 0.0)


def test_elub_rejects_nan():
    with pytest.raises(InputError, match="NaN"):
        elub_bounds([0.0, np.nan], [0.0])


# ---------------------------------------------------------------------- the wrapper


@pytest.mark.parametrize(
    "inner",
    [GaussianCalibrator(equal_variance=True), LogisticCalibrator(), PAVCalibrator()],
    ids=repr,
)
def test_wrapper_bounds_are_those_of_the_training_llrs(make_background, inner):
    ss, ds = make_background(11, 25, 60)
    cal = ELUB(inner).fit(ss, ds)
    expected = brute_elub(inner.llr(ss), inner.llr(ds))  # inner was fitted by cal.fit
    assert cal.bounds_log10_ == expected
    assert cal.bounds_ == pytest.approx((expected[0] * LN10, expected[1] * LN10), rel=1e-15)
    far = np.array([-1e6, -50.0, 1.5, 50.0, 1e6])
    llr = cal.llr(far)
    assert np.all(np.isfinite(llr))
    assert llr[0] >= cal.bounds_[0] and llr[-1] <= cal.bounds_[1]
    inside = (inner.llr(far) > cal.bounds_[0]) & (inner.llr(far) < cal.bounds_[1])
    assert np.array_equal(llr[inside], inner.llr(far)[inside])
    assert np.array_equal(cal.unbounded_llr(far), inner.llr(far))


def test_wrapper_params_and_densities(make_background):
    ss, ds = make_background(2, 30, 40)
    cal = ELUB(GaussianCalibrator()).fit(ss, ds)
    params = json.loads(json.dumps(cal.params()))
    assert params["elub_log10_lr_low"] == cal.bounds_log10_[0]
    assert params["elub_log10_lr_high"] == cal.bounds_log10_[1]
    assert params["mean_ss"] == pytest.approx(ss.mean())
    assert cal.name == "gaussian"
    pdf_ss, _ = cal.density([3.0])
    assert pdf_ss[0] == pytest.approx(GaussianCalibrator().fit(ss, ds).density([3.0])[0][0])
    # logistic regression has no densities: hasattr says so instead of failing later
    assert not hasattr(ELUB(LogisticCalibrator()).fit(ss, ds), "density")
    with pytest.raises(NotFittedError):  # the wrapped calibrator is not fitted yet
        ELUB(KDECalibrator()).density([0.0])


def test_wrapper_before_fit():
    with pytest.raises(NotFittedError):
        ELUB(PAVCalibrator()).llr([0.0])


def brute_elub_on_grid(k_ss: np.ndarray, k_ds: np.ndarray) -> tuple[float, float]:
    """The definition for log10 LRs given exactly as ``k / 100``: every comparison of an LLR
    with a threshold ``j / 100`` made in integers (``k > j``), so no rounding enters."""
    grid = np.arange(-800, 801)
    accept_hp = np.append(k_ss, -10**6)[:, None] > grid[None, :]
    accept_hd = np.append(k_ds, 10**6)[:, None] > grid[None, :]
    theta = 10.0 ** (grid / 100)
    cost_sys = (1 - accept_hp.mean(axis=0)) + theta * accept_hd.mean(axis=0)
    cost_neutral = np.where(grid < 0, theta, 1.0)
    worse = cost_sys > cost_neutral
    lower = grid[(grid <= 0) & worse].max() + 1
    upper = grid[(grid >= 0) & worse].min() - 1
    return min(lower, 0) / 100, max(upper, 0) / 100


def test_llrs_on_the_threshold_grid_give_the_exact_bounds():
    """Log10 LRs on the 0.01 grid (reported LRs often are), converted to natural-log LLRs:
    the ln -> log10 round trip must not move a value across its own threshold. 3,000
    random sets, none off the definition."""
    rng = np.random.default_rng(2026)
    off = 0
    for _ in range(3000):
        n_ss, n_ds = rng.integers(1, 40, size=2)
        k_ss = rng.integers(-150, 250, n_ss)
        k_ds = rng.integers(-250, 150, n_ds)
        got = elub_bounds_log10(k_ss / 100 * LN10, k_ds / 100 * LN10)
        off += got != brute_elub_on_grid(k_ss, k_ds)
    assert off == 0
