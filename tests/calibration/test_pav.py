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


def sklearn_edges(ss, ds):
    """scikit-learn's knots (block edges) and the prior-neutral LLR of each."""
    x = np.concatenate([ss, ds])
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    w = np.r_[np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)]
    iso = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(x, y, sample_weight=w)
    with np.errstate(divide="ignore"):
        return iso.X_thresholds_, logit(iso.y_thresholds_)


@pytest.mark.parametrize("seed", range(3))
def test_block_values_match_sklearn_isotonic(seed):
    ss, ds = data(seed)
    cal = PAVCalibrator().fit(ss, ds)
    params = cal.params()
    low_edge, high_edge = np.array(params["block_low"]), np.array(params["block_high"])
    block_llr = np.array(params["block_llr"])
    low, high = params["llr_lower_bound"], params["llr_upper_bound"]
    assert low == pytest.approx(-np.log(ss.size + 1)) and high == pytest.approx(np.log(ds.size + 1))
    for at in (low_edge, high_edge, 0.5 * (low_edge + high_edge)):
        ref = sklearn_llr(ss, ds, at)
        finite = np.isfinite(ref)
        assert cal.llr(at)[finite] == pytest.approx(ref[finite], rel=1e-9, abs=1e-9)
        assert np.all(cal.llr(at)[~finite] == np.where(ref[~finite] > 0, high, low))
    assert np.all(block_llr[np.isfinite(sklearn_llr(ss, ds, low_edge))] > low)


@pytest.mark.parametrize("seed", range(3))
def test_between_block_edges_the_llr_is_interpolated(seed):
    # Knots: scikit-learn's X_thresholds_ (first and last score of each block). Between two
    # knots we interpolate the LLR (logit of sklearn's values, clipped to our bounds)
    # linearly; sklearn interpolates the probability, so both lie between the two values.
    ss, ds = data(seed, 60, 120)
    cal = PAVCalibrator().fit(ss, ds)
    knots, knot_llr = sklearn_edges(ss, ds)
    knot_llr = np.clip(knot_llr, *cal.bounds_)
    t = np.random.default_rng(seed).uniform(0, 1, knots.size - 1)
    x = knots[:-1] + t * np.diff(knots)
    expected = knot_llr[:-1] + t * np.diff(knot_llr)
    assert cal.llr(x) == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert cal.llr(knots) == pytest.approx(knot_llr, rel=1e-9, abs=1e-9)
    sk = np.clip(sklearn_llr(ss, ds, x), *cal.bounds_)
    lo, hi = np.minimum(knot_llr[:-1], knot_llr[1:]), np.maximum(knot_llr[:-1], knot_llr[1:])
    assert np.all((sk >= lo - 1e-9) & (sk <= hi + 1e-9))
    # constant beyond the outermost knots
    assert cal.llr([-1e6, 1e6]).tolist() == [knot_llr[0], knot_llr[-1]]


def test_a_score_inside_a_block_gets_the_blocks_llr():
    # Sorted: DS 0, 0.5; then SS 1, DS 2, SS 3, DS 4, DS 5, which PAV pools into one block
    # [1, 5] (2 of the 5 SS, 3 of the 5 DS: llr = log(2/5) - log(3/5) = log(2/3) < 0);
    # then the pure-SS block [5.5, 6]. The centre interpolation (centres 3 and 5.75) gave
    # the score 4.9 an LLR above 0, on the other side of 1 from its block's; by default
    # it gets the block's value.
    ss = np.array([1.0, 3.0, 5.5, 5.8, 6.0])
    ds = np.array([0.0, 0.5, 2.0, 4.0, 5.0])
    cal = PAVCalibrator().fit(ss, ds)
    knots, knot_llr = sklearn_edges(ss, ds)
    assert knots.tolist() == [0.0, 0.5, 1.0, 5.0, 5.5, 6.0]
    assert knot_llr[2] == pytest.approx(np.log(2 / 3), abs=1e-12)
    inside = np.array([1.0, 2.2, 4.9, 5.0])
    assert cal.llr(inside) == pytest.approx(np.full(4, np.log(2 / 3)), abs=1e-12)
    assert cal.llr(inside) == pytest.approx(sklearn_llr(ss, ds, inside), abs=1e-12)
    centres = PAVCalibrator(interpolation="centres").fit(ss, ds)
    assert centres.llr([4.9])[0] > 0 > cal.llr([4.9])[0]  # the fault the default avoids
    # between the block edges 5 and 5.5: linear in the LLR from log(2/3) to the bound log 6
    assert cal.llr([5.25])[0] == pytest.approx(0.5 * (np.log(2 / 3) + np.log(ds.size + 1)))


def test_centres_option_interpolates_between_block_centres():
    ss, ds = data(5)
    cal = PAVCalibrator(interpolation="centres").fit(ss, ds)
    params = cal.params()
    assert params["interpolation"] == "centres"
    centres = 0.5 * (np.array(params["block_low"]) + np.array(params["block_high"]))
    values = cal.llr(centres)
    # at a centre: the block's value, which is sklearn's anywhere in the block
    ref = np.clip(sklearn_llr(ss, ds, centres), *cal.bounds_)
    assert values == pytest.approx(ref, abs=1e-9)
    mid = 0.25 * centres[:-1] + 0.75 * centres[1:]
    assert cal.llr(mid) == pytest.approx(0.25 * values[:-1] + 0.75 * values[1:], abs=1e-12)
    assert cal.llr([-1e6, 1e6]).tolist() == [values[0], values[-1]]


def test_unknown_interpolation_is_an_input_error():
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.errors import InputError

    with pytest.raises(InputError, match="interpolation must be 'edges'"):
        make_calibrator("pav", interpolation="midpoints")
    assert make_calibrator("pav").interpolation == "edges"


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
    # constant over each block: every score from a block's lowest to its highest value
    params = cal.params()
    for lo, hi, v in zip(params["block_low"], params["block_high"], params["block_llr"],
                         strict=True):
        inside = np.linspace(lo, hi, 7)
        assert np.all(cal.llr(inside) == v)
