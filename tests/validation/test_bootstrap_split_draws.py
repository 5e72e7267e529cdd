"""The split Poisson draw, the Cllr-only replicate of a comparison and the DeLong placements
against their slow definitions.

Independent values: the Poisson(1) counts rebuilt byte by byte in a Python loop from the
same generator stream; Cllr and minCllr of the explicitly resampled arrays
(``np.repeat`` by the drawn counts, then ``forensic_lr.metrics.cllr`` / ``min_cllr``);
placement values counted pairwise.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.metrics import cllr, min_cllr
from forensic_lr.resampling import (
    POISSON_FROM,
    counts_of_draw,
    poisson_bits,
    poisson_counts,
    poisson_from_bits,
    sparse_true_positions,
    trial_counts,
    trial_draw,
)
from forensic_lr.validation import compare_systems
from forensic_lr.validation.bootstrap import (
    _replicate_cllrs,
    _replicate_metrics,
    _replicate_weights,
    _sorted,
)
from forensic_lr.validation.compare import _placements, placement_values


# --------------------------------------------------------------------------- Poisson draw
def _looped_poisson(rng: np.random.Generator, size: int) -> np.ndarray:
    """Poisson(1) counts by the documented byte scheme, one trial at a time."""
    from forensic_lr.resampling import _BYTE_STEPS, _TOP_STEPS

    u = rng.bit_generator.random_raw(-(-size // 8)).view(np.uint8)[:size]
    rare = [i for i in range(size) if u[i] >= _BYTE_STEPS[-1]]
    extra = rng.integers(0, 2**24, len(rare))
    counts = np.array([sum(int(x) >= s for s in _BYTE_STEPS[:4]) for x in u], dtype=np.uint8)
    for j, i in enumerate(rare):
        v = (int(u[i]) - _BYTE_STEPS[-1]) << 24 | int(extra[j])
        counts[i] = sum(v >= int(t) for t in _TOP_STEPS)
    return counts


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 200), st.floats(0, 1), st.integers(0, 2**32 - 1))
def test_sparse_true_positions_equal_flatnonzero(size, share, seed):
    # Independent value: numpy's own search, on any size (whole chunks and a tail) and
    # any share of True flags, from none to all.
    flags = np.random.default_rng(seed).random(size) < share
    np.testing.assert_array_equal(sparse_true_positions(flags), np.flatnonzero(flags))


def test_rare_counts_at_every_step_and_bucket_edge():
    # Independent value: the rare byte's count compared with every step, one by one, at
    # each step, next to it and at the edges of the look-up buckets.
    from forensic_lr.resampling import _BYTE_STEPS, _TOP_SHIFT, _TOP_STEPS

    top = _BYTE_STEPS[-1]
    edges = np.arange(0, (256 - top) << 24, 1 << _TOP_SHIFT)
    v = np.unique(np.concatenate([_TOP_STEPS - 1, _TOP_STEPS, _TOP_STEPS + 1, edges,
                                  edges - 1, [(256 - top) * 2**24 - 1]]))
    v = v[(v >= 0) & (v < (256 - top) << 24)]
    u = (top + (v >> 24)).astype(np.uint8)
    counts = poisson_from_bits(u, v & (2**24 - 1))
    expected = [sum(int(x) >= int(s) for s in _TOP_STEPS) for x in v]
    np.testing.assert_array_equal(counts, expected)


def test_sparse_true_positions_at_the_poisson_share():
    flags = np.random.default_rng(4).integers(0, 256, 262_144 + 21) >= 253
    np.testing.assert_array_equal(sparse_true_positions(flags), np.flatnonzero(flags))


@pytest.mark.parametrize("size", [1, 7, 8, 1000, 262_144 + 13])
def test_split_poisson_draw_equals_looped_scheme(size):
    looped = _looped_poisson(np.random.default_rng(size), size)
    rng = np.random.default_rng(size)
    bits = poisson_bits(rng, size)
    np.testing.assert_array_equal(poisson_from_bits(*bits), looped)
    out = np.full(size, 99, dtype=np.uint8)
    assert poisson_from_bits(*bits, out=out) is out
    np.testing.assert_array_equal(out, looped)
    np.testing.assert_array_equal(poisson_counts(np.random.default_rng(size), size), looped)
    # the generator is left where the one-piece draw leaves it
    assert rng.integers(0, 2**62) == _after(np.random.default_rng(size), size)


def _after(rng, size):
    poisson_counts(rng, size)
    return rng.integers(0, 2**62)


@pytest.mark.parametrize("size", [5, POISSON_FROM - 1, POISSON_FROM])
def test_trial_draw_then_counts_equals_trial_counts(size):
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(2):  # the same stream, replicate after replicate
        np.testing.assert_array_equal(counts_of_draw(trial_draw(a, size)), trial_counts(b, size))


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
    w_ss, w_ds = poisson_counts(rng, ss.size), poisson_counts(rng, ds.size)
    w_ss[rng.integers(ss.size)] += 1
    w_ds[rng.integers(ds.size)] += 1
    s = _sorted(ss, ds)
    got = _replicate_cllrs(s, w_ss[s.order_ss], w_ds[s.order_ds])
    want = _expanded_cllrs(ss, ds, w_ss, w_ds)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(got, _replicate_metrics(s, w_ss[s.order_ss],
                                                          w_ds[s.order_ds])[:2])


def test_replicate_cllrs_are_nan_without_a_class():
    s = _sorted(np.array([1.0, 2.0]), np.array([0.0, -1.0]))
    assert np.isnan(_replicate_cllrs(s, np.array([0, 0]), np.array([1, 1]))).all()
    assert np.isnan(_replicate_cllrs(s, np.array([1, 0]), np.array([0, 0]))).all()


@pytest.mark.parametrize("workers", [1, 2])
def test_paired_replicates_equal_resampled_cllrs_with_poisson_counts(workers):
    # Poisson counts in both classes (the SS class too), ties and an infinite LLR.
    rng = np.random.default_rng(11)
    a_ss = np.round(rng.normal(2, 2, POISSON_FROM + 5), 2)
    a_ds = np.append(np.round(rng.normal(-2, 2, POISSON_FROM + 9), 2), -np.inf)
    b_ss = np.round(a_ss + rng.normal(0, 1, a_ss.size), 1)
    b_ds = np.round(a_ds + rng.normal(0, 1, a_ds.size), 1)
    res = compare_systems(a_ss, a_ds, b_ss, b_ds, n=4, seed=8, workers=workers)
    systems = [_sorted(a_ss, a_ds), _sorted(b_ss, b_ds)]
    draws, _ = _replicate_weights("trial", np.random.default_rng(8), 4, systems, None, None)
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
@settings(max_examples=120, deadline=None)
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
    s = _sorted(ss, ds)  # the stable orders the comparison passes give the same values
    got = _placements(ss, ds, s.order_ss, s.order_ds)
    np.testing.assert_array_equal(got[0], v_ss)
    np.testing.assert_array_equal(got[1], v_ds)
