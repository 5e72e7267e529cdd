"""The grid check of a fitted calibration's monotonicity, against hand-made curves and the
glass-distance background with a KDE calibration (which turns down near distance 0)."""

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.calibration import make_calibrator
from forensic_lr.calibration.monotonicity import bulk_span, monotonicity_check
from forensic_lr.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[2] / "case_examples"


class _Curve:
    """A 'fitted calibrator' with a given LLR function (natural log)."""

    def __init__(self, f):
        self.f = f

    def llr(self, scores):
        return self.f(np.asarray(scores, dtype=float))


def test_hand_made_dip_is_found_with_its_size_and_place():
    # log10 LR = s, except a dip to 0 over (2, 3): a fall of 2 from s = 2 ... at s just past 2
    ln10 = math.log(10)
    curve = _Curve(lambda s: np.where((s > 2) & (s < 3), 0.0, s) * ln10)
    check = monotonicity_check(curve, (0.0, 4.0), n_grid=401)
    assert not check.monotonic
    # running maximum just before the dip is 2.0 (grid step 0.01), the dip value 0
    assert check.max_decrease_log10 == pytest.approx(2.0, abs=1e-9)
    assert check.at[0] == pytest.approx(2.0, abs=1e-9)
    assert 2.0 < check.at[1] < 3.0


def test_increasing_curve_passes_and_a_small_wiggle_is_tolerated():
    assert monotonicity_check(_Curve(lambda s: 2 * s), (-5.0, 5.0)).monotonic
    wiggle = _Curve(lambda s: s * math.log(10) + 0.02 * math.log(10) * np.sin(100 * s))
    check = monotonicity_check(wiggle, (0.0, 1.0), tolerance_log10=0.05)
    assert 0 < check.max_decrease_log10 <= 0.04 + 1e-9
    assert check.monotonic
    assert not monotonicity_check(wiggle, (0.0, 1.0), tolerance_log10=0.0).monotonic


def test_infinite_llrs():
    step = _Curve(lambda s: np.where(s < 0, -np.inf, np.inf))
    assert monotonicity_check(step, (-1.0, 1.0)).monotonic
    down = _Curve(lambda s: np.where(s < 0, np.inf, 0.0))
    assert monotonicity_check(down, (-1.0, 1.0)).max_decrease_log10 == math.inf


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=40))
def test_largest_fall_equals_the_looped_definition(values):
    grid_values = np.asarray(values)
    n = grid_values.size
    curve = _Curve(lambda s: np.interp(s, np.arange(n), grid_values) * math.log(10))
    check = monotonicity_check(curve, (0.0, n - 1.0), n_grid=n, tolerance_log10=0.0)
    slow = max(max(grid_values[: i + 1]) - grid_values[i] for i in range(n))
    assert check.max_decrease_log10 == pytest.approx(slow, abs=1e-9)


def test_bulk_span_takes_each_class_and_the_evidence():
    ss = np.arange(101.0)            # quantiles 5 and 95
    ds = np.arange(101.0) - 200      # quantiles -195 and -105
    q = (0.05, 0.95)
    assert bulk_span(ss, ds, quantiles=q) == (-195.0, 95.0)
    assert bulk_span(ss, ds, [120.0], quantiles=q) == (-195.0, 120.0)
    assert bulk_span(ss, ds) == (-200.0, 100.0)
    with pytest.raises(InputError):
        bulk_span(ss, ds, quantiles=(0.9, 0.1))


def test_bad_arguments_are_input_errors():
    curve = _Curve(lambda s: s)
    for kwargs in ({"n_grid": 1}, {"tolerance_log10": -1.0}):
        with pytest.raises(InputError):
            monotonicity_check(curve, (0.0, 1.0), **kwargs)
    with pytest.raises(InputError):
        monotonicity_check(curve, (1.0, 0.0))


def test_glass_distance_with_kde_is_not_monotonic_and_logistic_is():
    folder = EXAMPLES / "glass-distance"
    ss, ds = -np.loadtxt(folder / "ss.csv"), -np.loadtxt(folder / "ds.csv")
    span = bulk_span(ss, ds, [-1.4])
    kde = monotonicity_check(make_calibrator("kde").fit(ss, ds), span)
    assert not kde.monotonic
    # the KDE LR peaks near distance 0.8 and falls by 0.17 in log10 towards the smallest
    # same-source distance (0.43); inside the 5 %-95 % bulk the fall is only 0.02
    assert kde.at[0] > -1.0 and kde.at[1] > kde.at[0]
    assert kde.max_decrease_log10 == pytest.approx(0.172, abs=0.005)
    inner = bulk_span(ss, ds, [-1.4], quantiles=(0.05, 0.95))
    assert monotonicity_check(make_calibrator("kde").fit(ss, ds), inner).monotonic
    assert monotonicity_check(make_calibrator("logistic").fit(ss, ds), span).monotonic
