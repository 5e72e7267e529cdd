"""PAV calibration against scikit-learn's IsotonicRegression (balanced sample weights).

Reference: scikit-learn 1.9 ``IsotonicRegression(increasing=True)`` fitted to labels
(1 = SS, 0 = DS) with weights 1/(2 N_ss) and 1/(2 N_ds), so that its fitted value is the
posterior at equal priors and ``logit`` of it is the prior-neutral LLR of the block.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit
from sklearn.isotonic import IsotonicRegression

from forensic_lr.calibration import PAVCalibrator
from forensic_lr.errors import NotFittedError


def sklearn_llr(ss, ds, at):
    x = np.concatenate([ss, ds])
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    w = np.r_[np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)]
    iso = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(x, y, sample_weight=w)
    with np.errstate(divide="ignore"):
        return logit(iso.predict(at))


def data(seed, n_ss=40, n_ds=90, decimals=1):
    rng = np.random.default_rng(seed)
    # rounding creates ties between and within classes
    return (
        np.round(rng.normal(2.0, 1.5, n_ss), decimals),
        np.round(rng.normal(0.0, 1.5, n_ds), decimals),
    )


@pytest.mark.parametrize("seed", range(3))
def test_block_values_match_sklearn_isotonic(seed):
    ss, ds = data(seed)
    cal = PAVCalibrator().fit(ss, ds)
    params = cal.params()
    centres, block_llr = np.array(params["block_centres"]), np.array(params["block_llr"])
    ref = sklearn_llr(ss, ds, centres)
    low, high = params["llr_lower_bound"], params["llr_upper_bound"]
    assert low == pytest.approx(-np.log(ss.size + 1)) and high == pytest.approx(np.log(ds.size + 1))
    finite = np.isfinite(ref)
    assert cal.llr(centres)[finite] == pytest.approx(ref[finite], rel=1e-9, abs=1e-9)
    assert np.all(block_llr[~finite] == np.where(ref[~finite] > 0, high, low))
    assert np.all(block_llr[finite] > low) and np.all(block_llr[finite] < high)


def test_at_the_training_points():
    # At each training score the LLR is the straight line between sklearn's (clipped)
    # block values at the two neighbouring block centres (midpoints of the block ranges).
    ss, ds = data(4, 60, 120)
    cal = PAVCalibrator().fit(ss, ds)
    bounds = (-np.log(ss.size + 1), np.log(ds.size + 1))
    x = np.concatenate([ss, ds])
    centres = np.array(cal.params()["block_centres"])
    x = x[(x >= centres[0]) & (x <= centres[-1])]
    i = np.clip(np.searchsorted(centres, x, side="right"), 1, centres.size - 1)
    left, right = centres[i - 1], centres[i]
    v_left = np.clip(sklearn_llr(ss, ds, left), *bounds)
    v_right = np.clip(sklearn_llr(ss, ds, right), *bounds)
    expected = v_left + (x - left) / (right - left) * (v_right - v_left)
    assert cal.llr(x) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_linear_interpolation_between_centres():
    ss, ds = data(5)
    cal = PAVCalibrator().fit(ss, ds)
    centres = np.array(cal.params()["block_centres"])
    values = cal.llr(centres)
    mid = 0.25 * centres[:-1] + 0.75 * centres[1:]
    assert cal.llr(mid) == pytest.approx(0.25 * values[:-1] + 0.75 * values[1:], abs=1e-12)
    # constant beyond the outermost centres
    assert cal.llr([-1e6, 1e6]).tolist() == [values[0], values[-1]]


def test_separated_classes_give_the_finite_bounds():
    cal = PAVCalibrator().fit([5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0])
    assert cal.llr([-100.0, 100.0]).tolist() == [-np.log(4), np.log(5)]
    params = json.loads(json.dumps(cal.params()))
    assert params["n_blocks"] == 2


def test_not_fitted():
    with pytest.raises(NotFittedError):
        PAVCalibrator().llr([0.0])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-8, 8), min_size=2, max_size=30),
    st.lists(st.integers(-8, 8), min_size=2, max_size=30),
)
def test_pav_llr_is_monotone_finite_and_bounded(ss, ds):
    ss, ds = np.array(ss, float), np.array(ds, float)
    if ss.min() == ss.max() or ds.min() == ds.max():
        return  # constant classes are rejected (tested in test_calibration_base)
    cal = PAVCalibrator().fit(ss, ds)
    s = np.r_[-1e6, np.linspace(-10, 10, 401), 1e6]
    llr = cal.llr(s)
    assert np.all(np.isfinite(llr))
    assert np.all(np.diff(llr) >= 0)
    assert np.all(llr >= -np.log(ss.size + 1)) and np.all(llr <= np.log(ds.size + 1))
