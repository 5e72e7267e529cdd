"""Running totals by groups of 64 one-byte counts equal the plain cumulative sums."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.resampling import RunningTotals


def _cumsum_at(counts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    total = np.concatenate([[0], np.cumsum(counts.astype(np.int64))])
    return total[positions]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(64, 700),
    st.sampled_from([1, 2, 13, 31]),
    st.integers(0, 2**32 - 1),
    st.integers(0, 7),
)
def test_grouped_totals_equal_cumsum_at_every_alignment(size, top, seed, offset):
    """Counts below 32 take the grouped path; every position (group starts and ends, the
    words after the last full group, the partial last word) is checked, with the counts
    starting at each byte offset of a word."""
    rng = np.random.default_rng(seed)
    buffer = rng.integers(0, top + 1, size + offset).astype(np.uint8)
    counts = buffer[offset:]
    counts[rng.integers(0, size, 2)] = top  # the largest count occurs
    positions = np.arange(size + 1)
    rng.shuffle(positions)
    got = RunningTotals(positions, size)(counts)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _cumsum_at(counts, positions))


def test_grouped_and_word_paths_agree_across_the_count_limit():
    """One count of 32 sends the same data through the word-by-word path: same totals."""
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 32, 10_007).astype(np.uint8)
    positions = np.sort(rng.integers(0, counts.size + 1, 3_000))
    totals = RunningTotals(positions, counts.size)
    below = totals(counts)
    np.testing.assert_array_equal(below, _cumsum_at(counts, positions))
    counts[-1] = 32
    np.testing.assert_array_equal(totals(counts), _cumsum_at(counts, positions))
