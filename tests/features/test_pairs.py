"""Pairs of units: every same-source and different-source pair, checked against a double
loop; seeded sampling; and no source on both sides of any cross-validation split."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.errors import InputError
from forensic_lr.features import make_pairs, measurements_from_arrays, split_by_sources, units_of
from forensic_lr.features.pairs import _from_linear
from forensic_lr.resampling import source_folds


def _loop_pairs(sources):
    """The definition, one pair at a time (independent of the vectorised code)."""
    return {(i, j, sources[i] == sources[j])
            for i, j in itertools.combinations(range(len(sources)), 2)}


@given(st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=40))
def test_all_pairs_are_those_of_a_double_loop(sources):
    pairs = make_pairs(sources)
    got = set(zip(pairs.first.tolist(), pairs.second.tolist(), pairs.same.tolist(), strict=True))
    assert got == _loop_pairs(sources)
    assert len(got) == pairs.first.size  # no pair twice
    assert pairs.different_total == sum(not s for *_, s in got)
    np.testing.assert_array_equal(pairs.sources[:, 0], np.asarray(sources)[pairs.first])
    np.testing.assert_array_equal(pairs.sources[:, 1], np.asarray(sources)[pairs.second])
    assert not pairs.sampled


def test_linear_index_of_the_upper_triangle_inverts_numpy_triu_indices():
    for n in (2, 3, 7, 50):
        i, j = np.triu_indices(n, 1)
        a, b = _from_linear(np.arange(i.size), n)
        np.testing.assert_array_equal(a, i)
        np.testing.assert_array_equal(b, j)


def test_sampled_different_source_pairs_are_seeded_distinct_and_keep_all_same_source():
    sources = np.repeat(np.arange(300), 3)
    every = make_pairs(sources)
    pairs = make_pairs(sources, max_different=5000, seed=7)
    assert pairs.sampled and (~pairs.same).sum() == 5000
    assert pairs.different_total == (~every.same).sum() == 900 * 899 // 2 - 900
    np.testing.assert_array_equal(pairs.first[pairs.same], every.first[every.same])
    ds = set(zip(pairs.first[~pairs.same].tolist(), pairs.second[~pairs.same].tolist(),
                 strict=True))
    assert len(ds) == 5000
    assert all(sources[i] != sources[j] for i, j in ds)
    again = make_pairs(sources, max_different=5000, seed=7)
    np.testing.assert_array_equal(again.first, pairs.first)
    other = make_pairs(sources, max_different=5000, seed=8)
    assert not np.array_equal(other.first, pairs.first)
    # uniform: the share of sampled pairs within the first 450 units is that of all DS
    # pairs (100,575 of 403,650), within 4 binomial standard errors
    low = np.mean([j < 450 for _, j in ds])
    share = (450 * 449 // 2 - 450) / pairs.different_total
    assert abs(low - share) < 4 * np.sqrt(share * (1 - share) / 5000)


def test_units_by_item_average_replicates_and_by_source_split_each_source_in_halves():
    values = np.array([[1.0], [3.0], [10.0], [20.0], [30.0], [5.0], [7.0]])
    m = measurements_from_arrays(values, ["a", "a", "a", "b", "b", "c", "c"],
                                 items=["1", "1", "2", "1", "2", "1", "1"])
    items = units_of(m, "item")
    got = sorted(zip(items.sources.tolist(), items.means[:, 0].tolist(), items.counts.tolist(),
                     strict=True))
    assert got == [("a", 2.0, 2), ("a", 10.0, 1), ("b", 20.0, 1), ("b", 30.0, 1), ("c", 6.0, 2)]
    halves = units_of(m, "source")  # a: rows 1-2 | 3; b: 1 | 2; c: 1 | 2
    got = sorted(zip(halves.sources.tolist(), halves.means[:, 0].tolist(), strict=True))
    assert got == [("a", 2.0), ("a", 10.0), ("b", 20.0), ("b", 30.0), ("c", 5.0), ("c", 7.0)]
    assert units_of(m, "row").means.shape == (7, 1)
    with pytest.raises(InputError, match="'row', 'item' or 'source'"):
        units_of(m, "fragment")


@settings(max_examples=60)
@given(st.lists(st.integers(0, 11), min_size=4, max_size=60), st.integers(2, 4),
       st.integers(0, 2**32 - 1))
def test_no_source_is_on_both_sides_of_any_fold(sources, folds, seed):
    """Pairs of units, split by the project's source folds (the folds a case's validation
    uses) or by any random set of test sources: a training pair never shares a source with
    a test pair."""
    pairs = make_pairs(sources)
    rng = np.random.default_rng(seed)
    test_sources = rng.choice(np.unique(pairs.sources), size=rng.integers(1, 4))
    train, test = split_by_sources(pairs, test_sources)
    assert not set(pairs.sources[train].ravel()) & set(pairs.sources[test].ravel())
    assert set(pairs.sources[test].ravel()) <= set(test_sources.astype(str))
    if not pairs.same.any() or pairs.same.all() or len(set(sources)) < folds:
        return
    try:
        splits = source_folds(pairs.ss_sources, pairs.ds_sources, folds=folds, seed=seed)
    except InputError:  # too few training pairs left for this draw: nothing to check
        return
    ss, ds = pairs.ss_sources, pairs.ds_sources
    for split in splits:
        trained = set(ss[split.train_ss].ravel()) | set(ds[split.train_ds].ravel())
        tested = set(ss[split.test_ss].ravel()) | set(ds[split.test_ds].ravel())
        assert not trained & tested


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=10, max_size=16).filter(lambda c: max(c) > 1),
       st.integers(3, 5),
       st.integers(0, 2**32 - 1))
def test_out_of_fold_never_fits_on_a_source_of_the_pairs_it_scores(counts, folds, seed):
    """The model that scores a pair never saw a measurement of either of its sources, and
    every pair is scored exactly once (10 to 16 sources with 1 to 5 measurements each)."""
    from forensic_lr.features import measurements_from_arrays, out_of_fold

    sources = np.repeat(np.arange(len(counts)), counts)
    values = np.arange(sources.size, dtype=float)[:, None] + sources[:, None] * 100.0
    m = measurements_from_arrays(values, sources)
    units = units_of(m, "row")
    pairs = make_pairs(units.sources)
    seen = []

    def fit(train):
        return set(train.sources.tolist())

    def compare(trained, u, p):
        assert not trained & set(p.sources.ravel().tolist())
        seen.append(p.first.size)
        return np.zeros(p.first.size)

    try:
        out = out_of_fold(fit, compare, m, units, pairs, folds=folds, seed=seed)
    except InputError as exc:  # the folds' own rule: 2 training pairs of each class
        assert "training trials" in str(exc)
        return
    assert sum(seen) == pairs.first.size and not np.isnan(out).any()
