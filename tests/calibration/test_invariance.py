"""Invariance-verification bounds against a brute-force reference written here: dense
count matrices and a scan over the thresholds in plain Python, straight from the
definition of Alberink et al. (2025)."""

import math

import numpy as np
import pytest

from forensic_lr.calibration import IV, iv_bounds_log10, make_calibrator
from forensic_lr.errors import InputError


def _brute_iv(ss10, ds10, step=0.001, clip=20.0, on_grid=False):
    """The definition; with ``on_grid`` (LLRs multiples of 0.01) comparisons in integers."""
    ss10, ds10 = np.clip(ss10, -clip, clip), np.clip(ds10, -clip, clip)
    start = min(0.0, ss10.min(), ds10.min())
    t = np.arange(start, max(0.0, ss10.max(), ds10.max()) + step, step)
    if on_grid:  # thresholds start + k/1000: compare in units of 0.001
        s_i, d_i = np.round(ss10 * 1000).astype(int), np.round(ds10 * 1000).astype(int)
        t_i = round(start * 1000) + np.arange(t.size)
        t = t_i / 1000
        above_ss, above_ds = s_i[:, None] >= t_i[None, :], d_i[:, None] >= t_i[None, :]
    else:
        above_ss, above_ds = ss10[:, None] >= t[None, :], ds10[:, None] >= t[None, :]
    p_ss = (above_ss.sum(axis=0) + 0.5) / (ss10.size + 1)
    p_ds = (above_ds.sum(axis=0) + 0.5) / (ds10.size + 1)
    upper, lower = None, None
    for k in range(t.size):  # first threshold where the upper delta turns negative
        if math.log10(p_ss[k]) - math.log10(p_ds[k]) - t[k] < 0:
            upper = t[max(k - 1, 0)]
            break
    for k in reversed(range(t.size)):  # last threshold where the lower delta is negative
        if t[k] - math.log10(1 - p_ss[k]) + math.log10(1 - p_ds[k]) < 0:
            lower = t[min(k + 1, t.size - 1)]
            break
    upper = ss10.max() if upper is None else upper
    lower = ds10.min() if lower is None else lower
    return min(lower, 0.0), max(upper, 0.0)


@pytest.mark.parametrize("seed", range(40))
def test_iv_bounds_equal_the_brute_force_definition(seed):
    rng = np.random.default_rng(seed)
    n_ss, n_ds = rng.integers(5, 300, 2)
    shift = rng.uniform(0.2, 3.0)
    ss10 = rng.normal(shift, 1.0, n_ss)
    ds10 = rng.normal(-shift, 1.2, n_ds)
    on_grid = seed % 2 == 0  # ties and values on the threshold grid
    if on_grid:
        ss10, ds10 = np.round(ss10, 2), np.round(ds10, 2)
    ours = iv_bounds_log10(ss10 * math.log(10), ds10 * math.log(10))
    np.testing.assert_allclose(ours, _brute_iv(ss10, ds10, on_grid=on_grid), atol=1e-9)


def test_weights_are_counts_and_infinities_are_clipped():
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(2, 1, 40), rng.normal(-2, 1, 60)
    w_ss, w_ds = rng.integers(0, 3, 40), rng.integers(1, 3, 60)
    assert iv_bounds_log10(ss, ds, w_ss, w_ds) == pytest.approx(
        iv_bounds_log10(np.repeat(ss, w_ss), np.repeat(ds, w_ds)), abs=1e-12)
    ss_inf, ds_inf = np.append(ss, np.inf), np.append(ds, -np.inf)
    clipped = np.append(ss, 20 * math.log(10)), np.append(ds, -20 * math.log(10))
    assert iv_bounds_log10(ss_inf, ds_inf) == iv_bounds_log10(*clipped)


def test_iv_bounder_limits_a_calibrator_to_its_training_bounds():
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(1.5, 1, 80), rng.normal(-1.5, 1, 120)
    bounded = IV(make_calibrator("logistic")).fit(ss, ds)
    plain = make_calibrator("logistic").fit(ss, ds)
    low, high = iv_bounds_log10(plain.llr(ss), plain.llr(ds))
    assert bounded.bounds_log10_ == pytest.approx((low, high), abs=1e-12)
    llr = bounded.llr([-50.0, 0.0, 50.0]) / math.log(10)
    assert llr[0] == pytest.approx(low) and llr[2] == pytest.approx(high)
    assert bounded.params()["iv_log10_lr_high"] == pytest.approx(high)


@pytest.mark.parametrize(("option", "value"), [("step", 0), ("step", -0.01), ("step", np.nan),
                                               ("clip", np.inf), ("clip", 0), ("clip", "20")])
def test_bad_step_or_clip_is_an_input_error_naming_the_option(option, value):
    with pytest.raises(InputError, match=rf"{option} must be a positive finite number.*"
                                         rf"pass e\.g\. {option}="):
        iv_bounds_log10([1.0, 2.0], [-1.0, 0.0], **{option: value})
