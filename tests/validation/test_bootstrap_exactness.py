"""The fast paths of the validation-study bootstrap against their slow definitions.

Independent values: ``np.cumsum`` of the counts for the running totals,
``np.argsort(kind="stable")`` for the sort, the pooled-merge construction of the units
for the tie-free shortcut, and, for whole bootstrap runs, the slow definition of a
replicate: expand the data with ``np.repeat`` by the drawn counts and call
``forensic_lr.evaluate`` (same draws, same metrics).
"""

import warnings
from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.metrics import evaluate
from forensic_lr.resampling import RunningTotals
from forensic_lr.validation import METRICS, bootstrap_metrics, compare_systems
from forensic_lr.validation.replicates import interval_bounds, replicate_weights
from forensic_lr.validation.weighted_metrics import (
    _stable_order,
    _units,
    _units_without_ties,
    sort_system,
)


def _cumsum_at(counts, positions):
    return np.concatenate([[0], np.cumsum(counts.astype(np.int64))])[positions]


def _expanded(ss, ds, w_ss, w_ds):
    with warnings.catch_warnings():  # the inputs' warnings (an infinite LLR) are not tested here
        warnings.simplefilter("ignore", ForensicLRWarning)
        e = asdict(evaluate(np.repeat(ss, w_ss), np.repeat(ds, w_ds)))
    return np.array([e[m] for m in METRICS])


# --------------------------------------------------------------------------- running totals
@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 70),
    st.sampled_from([np.uint8, np.uint16, np.int64]),
    st.sampled_from([1, 13, 31, 32, 255]),
    st.integers(0, 2**32 - 1),
)
def test_running_totals_equal_cumsum(size, dtype, top, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, top + 1, size).astype(dtype)
    positions = rng.integers(0, size + 1, 20)
    positions[:2] = (0, size)
    got = RunningTotals(positions, size)(counts)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _cumsum_at(counts, positions))


def test_running_totals_refuse_counts_of_another_length():
    with pytest.raises(ValueError):
        RunningTotals([0, 1], 3)(np.ones(4, dtype=np.int64))


# --------------------------------------------------------------------------- sorting and units
@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf]), min_size=1,
                max_size=60), st.booleans())
def test_stable_order_is_the_stable_argsort(values, continuous):
    x = np.array(values)
    if continuous:
        x = x + np.random.default_rng(len(values)).normal(0, 1, x.size) * np.isfinite(x)
    order, sorted_x = _stable_order(x)
    np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(sorted_x, np.sort(x))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1), st.booleans())
def test_units_without_ties_equal_the_merged_units(n_ss, n_ds, seed, within_ties):
    rng = np.random.default_rng(seed)
    pool = rng.permutation(np.arange(n_ss + n_ds) * 0.5 - 3.0)  # distinct across classes
    ss, ds = np.sort(pool[:n_ss]), np.sort(pool[n_ss:])
    if within_ties:  # repeated values inside one class are not cross-class ties
        ss, ds = np.sort(np.repeat(ss, 2)), np.sort(np.repeat(ds, 3))
    fast = _units_without_ties(ss, ds)
    assert fast is not None
    for got, expected in zip(fast, _units(ss, ds), strict=True):
        np.testing.assert_array_equal(got, expected)


def test_units_without_ties_declines_cross_class_ties():
    assert _units_without_ties(np.array([0.0, 1.0]), np.array([1.0, 2.0])) is None
    assert _units_without_ties(np.array([np.inf]), np.array([-1.0, np.inf])) is None


# --------------------------------------------------------------------------- replicate metrics
llr_values = st.sampled_from([-np.inf, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, np.inf])


def test_replicate_r_draws_from_the_seed_stream_jumped_r_times():
    # Independent value: the counts drawn by hand from numpy's PCG64 of the seed, jumped r
    # times: a multinomial draw for each class, and source multiplicities by source.
    rng = np.random.default_rng(2)
    ss, ds = rng.normal(1, 1, 40), rng.normal(-1, 1, 65)
    s = sort_system(ss, ds)
    draws, _ = replicate_weights("trial", np.random.default_rng(7), 4, [s], None, None)
    for r, [(c_ss, c_ds)] in enumerate(draws):
        own = np.random.Generator(np.random.default_rng(7).bit_generator.jumped(r))
        np.testing.assert_array_equal(c_ss, np.bincount(own.integers(0, 40, 40), minlength=40))
        np.testing.assert_array_equal(c_ds, np.bincount(own.integers(0, 65, 65), minlength=65))
    src_ss, src_ds = np.arange(40) % 5, np.column_stack([np.arange(ds.size) % 5,
                                                         (np.arange(ds.size) + 1) % 5])
    draws, k = replicate_weights("source", np.random.default_rng(7), 3, [s], src_ss, src_ds)
    for r, [(c_ss, _)] in enumerate(draws):
        own = np.random.Generator(np.random.default_rng(7).bit_generator.jumped(r))
        m = np.bincount(own.integers(0, k, k), minlength=k)
        np.testing.assert_array_equal(c_ss, m[src_ss[s.order_ss]])


# --------------------------------------------------------------------------- whole runs
def _looped_intervals(ss, ds, by, n, seed, level, sources=(None, None)):
    """The slow definition: the same draws, each replicate expanded and evaluated."""
    s = sort_system(ss, ds)
    draws, _ = replicate_weights(by, np.random.default_rng(seed), n, [s], *sources)
    reps = []
    for [(c_ss, c_ds)] in draws:
        w_ss, w_ds = np.empty_like(c_ss), np.empty_like(c_ds)
        w_ss[s.order_ss], w_ds[s.order_ds] = c_ss, c_ds  # back to input order
        if w_ss.sum() == 0 or w_ds.sum() == 0:
            reps.append(np.full(len(METRICS), np.nan))
        else:
            reps.append(_expanded(ss, ds, w_ss, w_ds))
    reps = np.array(reps)
    estimate = asdict(evaluate(ss, ds))  # values (inf kept), not the JSON form
    return reps, interval_bounds(reps, [estimate[m] for m in METRICS], level, "bc")


@pytest.mark.parametrize("workers", [1, 2])
def test_trial_bootstrap_equals_resample_then_evaluate(workers):
    rng = np.random.default_rng(5)
    ss = np.round(rng.normal(2, 2, 400), 2)  # ties within and across classes
    ds = np.concatenate([np.round(rng.normal(-2, 2, 3_007), 2), [np.inf]])
    res = bootstrap_metrics(ss, ds, n=12, seed=9, workers=workers)
    _, (low, high, _) = _looped_intervals(ss, ds, "trial", 12, 9, 0.95)
    for j, m in enumerate(METRICS):
        assert res[m].low == pytest.approx(low[j], rel=1e-9, abs=1e-12)
        assert res[m].high == pytest.approx(high[j], rel=1e-9, abs=1e-12)


def test_source_bootstrap_equals_resample_then_evaluate():
    rng = np.random.default_rng(6)
    k = 9
    ss_src = rng.integers(0, k, 150)
    a = rng.integers(0, k, 400)
    ds_src = np.column_stack([a, (a + rng.integers(1, k, a.size)) % k])
    ss, ds = np.round(rng.normal(1.5, 1.5, 150), 1), np.round(rng.normal(-1.5, 1.5, 400), 1)
    res = bootstrap_metrics(ss, ds, ss_sources=ss_src, ds_sources=ds_src, n=25, seed=3,
                            workers=2)
    _, (low, high, _) = _looped_intervals(ss, ds, "source", 25, 3, 0.95, (ss_src, ds_src))
    for j, m in enumerate(METRICS):
        assert res[m].low == pytest.approx(low[j], rel=1e-9, abs=1e-12)
        assert res[m].high == pytest.approx(high[j], rel=1e-9, abs=1e-12)


def test_paired_comparison_equals_two_looped_evaluations():
    rng = np.random.default_rng(7)
    a_ss, a_ds = rng.normal(2, 2, 400), rng.normal(-2, 2, 3_003)
    b_ss = np.round(a_ss + rng.normal(0, 1, a_ss.size), 1)  # a different sort order
    b_ds = np.round(a_ds + rng.normal(0, 1, a_ds.size), 1)
    res = compare_systems(a_ss, a_ds, b_ss, b_ds, n=8, seed=2, workers=2)
    systems = [sort_system(a_ss, a_ds), sort_system(b_ss, b_ds)]
    draws, _ = replicate_weights("trial", np.random.default_rng(2), 8, systems, None, None)
    for r, pair in enumerate(draws):
        metrics = []
        for s, (c_ss, c_ds), (ss, ds) in zip(systems, pair, ((a_ss, a_ds), (b_ss, b_ds)),
                                             strict=True):
            w_ss, w_ds = np.empty_like(c_ss), np.empty_like(c_ds)
            w_ss[s.order_ss], w_ds[s.order_ds] = c_ss, c_ds
            metrics.append(_expanded(ss, ds, w_ss, w_ds))
        if r == 0:  # the same trial carries the same count in both systems
            np.testing.assert_array_equal(w_ss, pair[0][0][np.argsort(systems[0].order_ss)])
        diff = metrics[0][:2] - metrics[1][:2]
        assert res.replicates["cllr"][r] == pytest.approx(diff[0], rel=1e-9, abs=1e-12)
        assert res.replicates["min_cllr"][r] == pytest.approx(diff[1], rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------- processes
@pytest.fixture
def pooled(monkeypatch):
    """Replicates shared with a process pool at any size (not only from 300,000 trials)."""
    from forensic_lr.validation import replicates as module

    monkeypatch.setattr(module, "REPLICATES_IN_PROCESSES_FROM", 0)


def test_any_number_of_workers_gives_the_serial_results_bit_for_bit(pooled):
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(2, 2, 1_000), rng.normal(-2, 2, 5_011)
    serial = bootstrap_metrics(ss, ds, n=40, seed=1, workers=1)
    for workers in (2, 3):
        assert bootstrap_metrics(ss, ds, n=40, seed=1, workers=workers) == serial
    b_ss, b_ds = ss + rng.normal(0, 1, ss.size), ds + rng.normal(0, 1, ds.size)
    one = compare_systems(ss, ds, b_ss, b_ds, n=30, seed=4, workers=1)
    two = compare_systems(ss, ds, b_ss, b_ds, n=30, seed=4, workers=2)
    for key in ("cllr", "min_cllr"):
        np.testing.assert_array_equal(one.replicates[key], two.replicates[key])
    assert one.to_dict() == two.to_dict()


def test_source_bootstrap_in_processes_gives_the_serial_results(pooled):
    rng = np.random.default_rng(9)
    ss_src = rng.integers(0, 30, 2_000)
    a = rng.integers(0, 30, 6_000)
    ds_src = np.column_stack([a, (a + rng.integers(1, 30, a.size)) % 30])
    ss, ds = rng.normal(2, 2, ss_src.size), rng.normal(-2, 2, a.size)
    kw = dict(ss_sources=ss_src, ds_sources=ds_src, n=30, seed=5)
    assert bootstrap_metrics(ss, ds, workers=1, **kw) == bootstrap_metrics(ss, ds, workers=2,
                                                                          **kw)


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_is_reported_in_order(workers, pooled):
    """Serial (each replicate) or in processes (the chunks finished): rising, to the end."""
    rng = np.random.default_rng(10)
    seen = []
    bootstrap_metrics(rng.normal(1, 1, 50), rng.normal(-1, 1, 60), n=17, workers=workers,
                      progress=lambda done, total: seen.append((done, total)))
    done = [d for d, _ in seen]
    assert done == sorted(done) and seen[-1] == (17, 17) and {t for _, t in seen} == {17}


def test_replicates_stay_in_this_process_below_the_size_that_pays(monkeypatch):
    from forensic_lr.validation import replicates as module

    calls = []
    monkeypatch.setattr(module, "run_jobs", lambda *a, **k: calls.append(a))
    rng = np.random.default_rng(12)
    small = rng.normal(1, 1, 100), rng.normal(-1, 1, module.REPLICATES_IN_PROCESSES_FROM - 101)
    bootstrap_metrics(*small, n=5, seed=1, workers=2)
    assert calls == []


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_bad_workers_is_an_input_error(workers):
    with pytest.raises(InputError, match="workers"):
        bootstrap_metrics([1.0, 2.0], [-1.0, 0.0], n=3, workers=workers)


@pytest.mark.parametrize("processes", [2, 3])
def test_replicates_in_a_process_pool_equal_the_serial_rows(monkeypatch, processes, pooled,
                                                            no_children_left):
    """Each process draws its own replicates' streams: the same rows, in order."""
    from forensic_lr.validation import replicates as module

    rng = np.random.default_rng(11)
    ss, ds = rng.normal(1, 1, 300), rng.normal(-1, 1, 2_500)
    ss_src, ds_src = rng.integers(0, 12, ss.size), rng.integers(0, 12, (ds.size, 2))
    calls = []
    real = module.run_jobs
    monkeypatch.setattr(module, "run_jobs",
                        lambda jobs, w, **k: calls.append((len(jobs), w)) or real(jobs, w, **k))
    for by, extra in (("trial", {}), ("source", {"ss_sources": ss_src, "ds_sources": ds_src})):
        serial = bootstrap_metrics(ss, ds, n=25, seed=4, by=by, workers=1, **extra)
        pooled_run = bootstrap_metrics(ss, ds, n=25, seed=4, by=by, workers=processes, **extra)
        assert pooled_run.to_dict() == serial.to_dict()
        one = compare_systems(ss, ds, ss + 0.3, ds, n=25, seed=4, by=by, workers=1, **extra)
        many = compare_systems(ss, ds, ss + 0.3, ds, n=25, seed=4, by=by, workers=processes,
                               **extra)
        assert many.to_dict() == one.to_dict()
    # the pool was used every time: the point estimates and one chunk per replicate
    assert calls == [(26, processes)] * 4
    assert no_children_left()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 20_000), processes=st.integers(2, 16))
def test_chunks_cover_every_replicate_once(n, processes):
    from forensic_lr.validation.replicates import _chunks

    b = _chunks(n, processes)
    assert b[0] == 0 and b[-1] == n and np.all(np.diff(b) >= 1)  # none empty, in order
    assert b.size - 1 == min(n, 32 * processes) and np.ptp(np.diff(b)) <= 1  # equal chunks
