"""N-source (source-count) and fixed bounds against values written out here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forensic_lr.calibration import (
    ELUB,
    FixedBounds,
    SourceCountBounds,
    fixed_bounds_log10,
    make_calibrator,
    source_count_bounds_log10,
)
from forensic_lr.errors import InputError


@pytest.mark.parametrize(("n", "expected"), [(1, 0.0), (10, 1.0), (1000, 3.0),
                                             (2, 0.30102999566398120)])
def test_source_count_bounds_are_plus_minus_log10_n(n, expected):
    low, high = source_count_bounds_log10(n)
    assert high == pytest.approx(expected, abs=1e-15) and low == -high


@pytest.mark.parametrize("bad", [0, -3, 2.0, True, "10"])
def test_source_count_needs_a_whole_number(bad):
    with pytest.raises(InputError, match="n_sources must be a whole number"):
        source_count_bounds_log10(bad)


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(1.0, 1.5, 60), rng.normal(-1.0, 1.5, 200)


def test_source_count_bounder_clips_the_calibrators_llrs():
    ss, ds = _data()
    scores = np.linspace(-12, 12, 49)
    free = make_calibrator("logistic").fit(ss, ds)
    bounded = SourceCountBounds(make_calibrator("logistic"), 25).fit(ss, ds)
    ln25 = math.log(25.0)  # log10 25 in natural-log units
    expected = [min(max(v, -ln25), ln25) for v in free.llr(scores)]
    np.testing.assert_allclose(bounded.llr(scores), expected, rtol=0, atol=1e-12)
    assert bounded.bounds_log10_ == pytest.approx((-math.log10(25), math.log10(25)))
    assert bounded.params()["n_sources"] == 25


def test_from_sources_counts_distinct_ids_on_both_sides_of_pairs():
    ss_src = np.array([[0, 0], [1, 1], [2, 2]])
    ds_src = np.array([[0, 1], [0, 2], [1, 7], [2, 9]])
    b = SourceCountBounds.from_sources(make_calibrator("logistic"), ss_src, ds_src)
    assert b.n_sources == len({0, 1, 2, 7, 9})
    labels = SourceCountBounds.from_sources(make_calibrator("logistic"), ["a", "b"],
                                            ["b", "c", "d"])
    assert labels.n_sources == 4


def test_fixed_bounds_clip_and_none_leaves_a_side_open():
    ss, ds = _data(1)
    scores = np.linspace(-15, 15, 61)
    free = make_calibrator("logistic").fit(ss, ds).llr(scores)
    both = FixedBounds(make_calibrator("logistic"), -2.0, 3.0).fit(ss, ds)
    np.testing.assert_allclose(both.llr(scores),
                               np.clip(free, -2.0 * math.log(10), 3.0 * math.log(10)),
                               rtol=0, atol=1e-12)
    upper_only = FixedBounds(make_calibrator("logistic"), None, 1.5).fit(ss, ds)
    assert upper_only.llr(scores).min() == free.min()
    assert upper_only.llr(scores).max() == pytest.approx(1.5 * math.log(10), abs=1e-12)
    assert upper_only.params()["fixed_log10_lr_low"] == -math.inf


@pytest.mark.parametrize(("low", "high", "name"), [(0.5, 2.0, "low"), (-1.0, -0.1, "high"),
                                                   (float("nan"), 1.0, "low"),
                                                   (-1.0, "3", "high")])
def test_fixed_bounds_on_the_wrong_side_of_zero_are_input_errors(low, high, name):
    with pytest.raises(InputError, match=f"fixed bounds: {name} must be a log10 LR"):
        fixed_bounds_log10(low, high)


def test_bounders_are_elub_shaped_and_refit_bounds_per_fit():
    # the bounds do not depend on the training LLRs: the same after any refit
    ss, ds = _data(2)
    for b in (FixedBounds(make_calibrator("gaussian"), -1, 1),
              SourceCountBounds(make_calibrator("gaussian"), 100)):
        assert isinstance(b, ELUB)
        first = b.fit(ss, ds).bounds_
        assert b.fit(ss[:30] + 1.0, ds[:50]).bounds_ == first
