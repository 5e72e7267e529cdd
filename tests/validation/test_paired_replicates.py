"""The Cllr-only replicate of a comparison and the DeLong placements against their slow
definitions.

Independent values: Cllr and minCllr of the explicitly resampled arrays
(``np.repeat`` by the drawn counts, then ``forensic_lr.metrics.cllr`` / ``min_cllr``);
placement values counted pairwise.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.metrics import cllr, min_cllr
from forensic_lr.resampling import trial_counts
from forensic_lr.validation import compare_systems
from forensic_lr.validation.compare import _placements, placement_values
from forensic_lr.validation.replicates import replicate_weights
from forensic_lr.validation.weighted_metrics import replicate_cllrs, replicate_metrics, sort_system

# --------------------------------------------------------------------------- Cllr-only replicate
llr_values = st.sampled_from([-np.inf, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, np.inf])


def _expanded_cllrs(ss, ds, w_ss, w_ds):
    r_ss, r_ds = np.repeat(ss, w_ss), np.repeat(ds, w_ds)
    return np.array([cllr(r_ss, r_ds), min_cllr(r_ss, r_ds)])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(llr_values, min_size=1, max_size=30),
    st.lists(llr_values, min_size=1, max_size=30),
    st.integers(0, 2**32 - 1),
)
def test_replicate_cllrs_equal_cllr_and_min_cllr_of_resampled_arrays(ss, ds, seed):
    ss, ds = np.array(ss), np.array(ds)
    rng = np.random.default_rng(seed)
    w_ss, w_ds = trial_counts(rng, ss.size), trial_counts(rng, ds.size)
    w_ss[rng.integers(ss.size)] += 1
    w_ds[rng.integers(ds.size)] += 1
    s = sort_system(ss, ds)
    got = replicate_cllrs(s, w_ss[s.order_ss], w_ds[s.order_ds])
    want = _expanded_cllrs(ss, ds, w_ss, w_ds)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(got, replicate_metrics(s, w_ss[s.order_ss],
                                                          w_ds[s.order_ds])[:2])


def test_replicate_cllrs_are_nan_without_a_class():
    s = sort_system(np.array([1.0, 2.0]), np.array([0.0, -1.0]))
    assert np.isnan(replicate_cllrs(s, np.array([0, 0]), np.array([1, 1]))).all()
    assert np.isnan(replicate_cllrs(s, np.array([1, 0]), np.array([0, 0]))).all()


@pytest.mark.parametrize("workers", [1, 2])
def test_paired_replicates_equal_resampled_cllrs(workers):
    # Ties within and across classes and an infinite LLR.
    rng = np.random.default_rng(11)
    a_ss = np.round(rng.normal(2, 2, 505), 2)
    a_ds = np.append(np.round(rng.normal(-2, 2, 3_009), 2), -np.inf)
    b_ss = np.round(a_ss + rng.normal(0, 1, a_ss.size), 1)
    b_ds = np.round(a_ds + rng.normal(0, 1, a_ds.size), 1)
    res = compare_systems(a_ss, a_ds, b_ss, b_ds, n=4, seed=8, workers=workers)
    systems = [sort_system(a_ss, a_ds), sort_system(b_ss, b_ds)]
    draws, _ = replicate_weights("trial", np.random.default_rng(8), 4, systems, None, None)
    for r, pair in enumerate(draws):
        values = []
        for s, (c_ss, c_ds), (ss, ds) in zip(systems, pair, ((a_ss, a_ds), (b_ss, b_ds)),
                                             strict=True):
            w_ss, w_ds = np.empty_like(c_ss), np.empty_like(c_ds)
            w_ss[s.order_ss], w_ds[s.order_ds] = c_ss, c_ds
            values.append(_expanded_cllrs(ss, ds, w_ss, w_ds))
        diff = values[0] - values[1]
        assert res.replicates["cllr"][r] == pytest.approx(diff[0], abs=1e-10)
        assert res.replicates["min_cllr"][r] == pytest.approx(diff[1], abs=1e-10)


# --------------------------------------------------------------------------- DeLong placements
@settings(max_examples=50, deadline=None)
@given(
    st.lists(llr_values, min_size=1, max_size=25),
    st.lists(llr_values, min_size=1, max_size=25),
)
def test_placements_equal_pairwise_counts(ss, ds):
    ss, ds = np.array(ss), np.array(ds)
    v_ss, v_ds = placement_values(ss, ds)
    want_ss = [(np.sum(ds < x) + 0.5 * np.sum(ds == x)) / ds.size for x in ss]
    want_ds = [(np.sum(ss > x) + 0.5 * np.sum(ss == x)) / ss.size for x in ds]
    np.testing.assert_allclose(v_ss, want_ss, rtol=0, atol=1e-15)
    np.testing.assert_allclose(v_ds, want_ds, rtol=0, atol=1e-15)
    s = sort_system(ss, ds)  # the stable orders the comparison passes give the same values
    got = _placements(ss, ds, s.order_ss, s.order_ds)
    np.testing.assert_array_equal(got[0], v_ss)
    np.testing.assert_array_equal(got[1], v_ds)
