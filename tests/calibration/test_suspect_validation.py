"""Validating the suspect-adapted method as applied: folds by source, each held-out source
adapted to its own same-source trials.

Expected values come from a plain loop written here: for every held-out trial, a
``suspect_map`` calibrator is made and fitted by hand with the public API
(``make_calibrator(...).fit(train_ss, train_ds).llr(...)``) on the trials of no held-out
source, with the trial's suspect source's other same-source trials as ``suspect_ss`` (the
library computes the leave-one-out moments by a downdate instead, in one pass per split).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.calibration import ELUB, make_calibrator
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.resampling import source_folds
from forensic_lr.uncertainty import cross_validated_llr


def _background(seed: int, n_sources: int = 6, per_source=(3, 7), ds_only: bool = True):
    """Scores with speaker ids: each source its own SS level; DS trials over source pairs.

    With ``ds_only`` one more source ("X") appears only as the second item of DS trials,
    so that those trials take their first source as the suspect.
    """
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(n_sources)]
    counts = rng.integers(per_source[0], per_source[1] + 1, n_sources)
    level = rng.normal(2.0, 0.6, n_sources)
    ss_src = np.repeat(names, counts)
    ss = rng.normal(np.repeat(level, counts), 0.5)
    pairs = [(a, b) for a in names for b in names if a != b]
    pairs = [pairs[i] for i in rng.choice(len(pairs), size=len(pairs) // 2, replace=False)]
    if ds_only:
        pairs += [(a, "X") for a in names[:3]]
    ds_src = np.array(pairs)
    ds = rng.normal(-1.0, 1.0, len(pairs))
    return ss, ds, ss_src, ds_src


def _suspect_of(ss_src, a, b):
    """The suspect source of a DS trial: the second item's, unless it has < 2 SS trials."""
    return b if np.sum(ss_src == b) >= 2 else a


def _by_hand(ss, ds, ss_src, ds_src, relevance, splits):
    """Out-of-fold LLRs, one hand-fitted calibrator per held-out trial."""
    out_ss, out_ds = np.full(ss.size, np.nan), np.full(ds.size, np.nan)
    for split in splits:
        train_ss, train_ds = ss[split.train_ss], ds[split.train_ds]
        for t in split.test_ss:
            others = (ss_src == ss_src[t]) & (np.arange(ss.size) != t)
            cal = make_calibrator("suspect_map", suspect_ss=ss[others], relevance=relevance)
            out_ss[t] = cal.fit(train_ss, train_ds).llr([ss[t]])[0]
        for t in split.test_ds:
            suspect = ss[ss_src == _suspect_of(ss_src, *ds_src[t])]
            cal = make_calibrator("suspect_map", suspect_ss=suspect, relevance=relevance)
            out_ds[t] = cal.fit(train_ss, train_ds).llr([ds[t]])[0]
    return out_ss, out_ds


def _loso_by_hand(ss, ds, ss_src, ds_src, relevance):
    """Leave one source out, with the training sets written out too (no library splits)."""
    out_ss, out_ds = np.empty(ss.size), np.empty(ds.size)
    for t in range(ss.size):
        j = ss_src[t]
        train_ds = ds[(ds_src != j).all(axis=1)]
        others = (ss_src == j) & (np.arange(ss.size) != t)
        cal = make_calibrator("suspect_map", suspect_ss=ss[others], relevance=relevance)
        out_ss[t] = cal.fit(ss[ss_src != j], train_ds).llr([ss[t]])[0]
    for t in range(ds.size):
        a, b = ds_src[t]
        train_ss = ss[(ss_src != a) & (ss_src != b)]
        train_ds = ds[~np.isin(ds_src, (a, b)).any(axis=1)]
        suspect = ss[ss_src == _suspect_of(ss_src, a, b)]
        cal = make_calibrator("suspect_map", suspect_ss=suspect, relevance=relevance)
        out_ds[t] = cal.fit(train_ss, train_ds).llr([ds[t]])[0]
    return out_ss, out_ds


def _cv(ss, ds, ss_src, ds_src, relevance=8.0, folds=None, seed=0, suspect=(0.0, 1.0, 2.0)):
    cal = make_calibrator("suspect_map", suspect_ss=np.array(suspect), relevance=relevance)
    return cross_validated_llr(ss, ds, cal, folds=folds, seed=seed, ss_sources=ss_src,
                               ds_sources=ds_src)


@pytest.mark.parametrize("relevance", [8.0, 0.5, 0.0])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_leave_one_source_out_equals_a_plain_loop(seed, relevance):
    ss, ds, ss_src, ds_src = _background(seed)
    got = _cv(ss, ds, ss_src, ds_src, relevance)
    expected = _loso_by_hand(ss, ds, ss_src, ds_src, relevance)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("folds", [4, 6])
def test_source_folds_equal_a_plain_loop(folds):
    ss, ds, ss_src, ds_src = _background(4, n_sources=12)
    got = _cv(ss, ds, ss_src, ds_src, 16.0, folds=folds, seed=9)
    splits = source_folds(ss_src, ds_src, folds=folds, seed=9)
    expected = _by_hand(ss, ds, ss_src, ds_src, 16.0, splits)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-10, atol=1e-10)


def test_the_case_suspect_scores_play_no_part_in_the_validation():
    """Each held-out source takes the suspect's place: the case's own scores are not used."""
    ss, ds, ss_src, ds_src = _background(5)
    one = _cv(ss, ds, ss_src, ds_src, suspect=(0.0, 1.0))
    other = _cv(ss, ds, ss_src, ds_src, suspect=(9.0, 7.5, 8.0))
    np.testing.assert_array_equal(one[0], other[0])
    np.testing.assert_array_equal(one[1], other[1])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), which=st.integers(0, 5), shift=st.floats(-3, 3))
def test_no_trial_both_adapts_the_model_and_is_scored_by_it(seed, which, shift):
    """What a held-out trial may depend on, and only that (leave one source out).

    * a same-source trial of source j: the training trials (no trial of j) and j's other
      same-source trials. Changing j's different-source trials changes none of j's
      same-source LLRs;
    * a different-source trial (a, b) with suspect b: the training trials (neither a nor b)
      and b's same-source trials. Changing a's same-source trials leaves it unchanged;
    * another source's trials depend on j only through the population model fitted on j's
      trials: a change of j's same-source scores that keeps their mean and sum of squared
      deviations (a reflection about the mean) changes no LLR but those of j's own
      same-source trials, each adapted to the others.
    """
    ss, ds, ss_src, ds_src = _background(seed)
    j = f"s{which}"
    base_ss, base_ds = _cv(ss, ds, ss_src, ds_src)

    touched = (ds_src == j).any(axis=1)
    moved = _cv(ss, np.where(touched, ds + shift, ds), ss_src, ds_src)
    own = ss_src == j
    np.testing.assert_array_equal(moved[0][own], base_ss[own])

    second_is_suspect = (ds_src[:, 1] != j) & (ds_src[:, 0] == j) & (
        [np.sum(ss_src == b) >= 2 for b in ds_src[:, 1]])
    moved = _cv(np.where(own, ss + shift, ss), ds, ss_src, ds_src)
    np.testing.assert_array_equal(moved[1][second_is_suspect], base_ds[second_is_suspect])

    reflected = np.where(own, 2 * ss[own].mean() - ss, ss)
    moved = _cv(reflected, ds, ss_src, ds_src)
    np.testing.assert_allclose(moved[0][~own], base_ss[~own], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(moved[1], base_ds, rtol=1e-9, atol=1e-9)
    if np.ptp(ss[own]) > 1e-6:  # j's own trials are scored by models adapted to the others
        assert not np.allclose(moved[0][own], base_ss[own], rtol=1e-9, atol=1e-9)


def test_elub_wrapped_method_bounds_the_per_source_llrs():
    ss, ds, ss_src, ds_src = _background(6)
    cal = make_calibrator("suspect_map", suspect_ss=np.array([0.0, 1.0]), relevance=8.0)
    bounded = cross_validated_llr(ss, ds, ELUB(cal), folds=None, ss_sources=ss_src,
                                  ds_sources=ds_src)
    raw = _cv(ss, ds, ss_src, ds_src, suspect=(0.0, 1.0))
    splits = source_folds(ss_src, ds_src, folds=None)
    for split in splits:  # each split clipped to the bounds of ELUB fitted on its training
        fitted = ELUB(make_calibrator("suspect_map", suspect_ss=np.array([0.0, 1.0]),
                                      relevance=8.0)).fit(ss[split.train_ss], ds[split.train_ds])
        np.testing.assert_array_equal(bounded[0][split.test_ss],
                                      np.clip(raw[0][split.test_ss], *fitted.bounds_))
        np.testing.assert_array_equal(bounded[1][split.test_ds],
                                      np.clip(raw[1][split.test_ds], *fitted.bounds_))


def test_without_sources_the_population_model_is_validated_and_a_warning_says_so():
    ss, ds, _, _ = _background(7)
    cal = make_calibrator("suspect_map", suspect_ss=np.array([0.0, 1.0, 3.0]))
    with pytest.warns(ForensicLRWarning, match="name no sources.*population model only"):
        got = cross_validated_llr(ss, ds, cal, folds=3, seed=2)
    expected = cross_validated_llr(ss, ds, make_calibrator("gaussian"), folds=3, seed=2)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_sources_too_small_to_adapt_to_are_named():
    ss, ds, ss_src, ds_src = _background(8)
    ss_src = ss_src.copy()
    ss_src[np.flatnonzero(ss_src == "s2")[2:]] = "s0"  # s2 keeps 2 same-source trials
    with pytest.raises(InputError, match=r"source\(s\) 's2' .*fewer than 3 trials.*at least 3"):
        _cv(ss, ds, ss_src, ds_src)
    ss, ds, ss_src, ds_src = _background(8)
    ds_src = np.vstack([ds_src, [["Y", "X"]]])
    ds = np.append(ds, -1.0)
    with pytest.raises(InputError, match=r"between sources 'Y', 'X': neither source has 2"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _cv(ss, ds, ss_src, ds_src)


def test_worked_case_data_leave_one_speaker_out_equals_a_plain_loop():
    """The suspect-adapted example names 40 speakers: its validation is the plain loop."""
    from forensic_lr._resources import examples_dir
    from forensic_lr.io.scores import load_scores

    folder = examples_dir() / "suspect-adapted"
    data = load_scores(ss=str(folder / "ss.csv"), ds=str(folder / "ds.csv"))
    ss_src, ds_src = data.ss_sources[:, 0], data.ds_sources
    assert np.unique(ss_src).size == 40 and np.all(np.unique(ss_src, return_counts=True)[1] == 9)
    got = _cv(data.ss, data.ds, data.ss_sources, ds_src)
    expected = _loso_by_hand(data.ss, data.ds, ss_src, ds_src, 8.0)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-10, atol=1e-10)
