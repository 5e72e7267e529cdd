"""Independent jobs on several processes (:func:`forensic_lr.parallel.run_jobs`, on the standard
library's process pool): the same values, order, warnings and errors as calling them one
after the other, whatever the number of workers and the start method (spawn as on
Windows and macOS); no process left; each job taken by the next free process; progress
drawn only by the process that owns it.

Independent values: the jobs called one by one in this process (the slow definition).
"""

import io
import multiprocessing
import os
import threading
import time
import warnings
from functools import partial

import pytest

from forensic_lr import parallel
from forensic_lr.parallel import run_jobs


def _repeated(i: int) -> list[int]:
    return [i] * i


def _fails() -> None:
    raise ValueError("no such figure")


def _warns() -> int:
    warnings.warn("drawn in a pool process", UserWarning, stacklevel=1)
    return 2


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _blas_threads() -> list[int]:
    import numpy as np  # noqa: F401  (loads the BLAS library)
    from threadpoolctl import threadpool_info

    return sorted({pool["num_threads"] for pool in threadpool_info()
                   if pool["user_api"] == "blas"})


def _mark(path) -> int:
    path.write_text("started")
    return os.getpid()


def _wait_for(path) -> int:
    """Keeps this process busy until a pool process has written ``path`` (at most 60 s)."""
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return os.getpid()


def _jobs():
    return {f"job{i}": partial(_repeated, i) for i in range(7)}


def test_run_jobs_returns_every_value_in_order(no_children_left):
    jobs = _jobs()
    expected = {name: job() for name, job in jobs.items()}
    for workers in (1, 2, 4):
        got = run_jobs(jobs, workers)
        assert got == expected and list(got) == list(expected)
    assert run_jobs({}, 2) == {}
    assert no_children_left()


def test_jobs_run_under_spawn_as_on_windows_and_macos(monkeypatch, tmp_path):
    """Nothing relies on fork: picklable jobs give the same values in spawned processes."""
    spawned = multiprocessing.get_context("spawn")
    monkeypatch.setattr(parallel, "_context", lambda: spawned)
    marker = tmp_path / "marker"
    jobs = {"here": partial(_wait_for, marker), "there": partial(_mark, marker), **_jobs()}
    got = run_jobs(jobs, 2)
    assert {k: v for k, v in got.items() if k.startswith("job")} == {
        name: job() for name, job in _jobs().items()}
    assert list(got) == list(jobs)
    assert got["here"] == os.getpid() != got["there"]  # "there" ran in a spawned process
    assert multiprocessing.active_children() == []  # (spawn's resource tracker stays)


def test_a_failing_job_raises_its_own_error_here_and_leaves_no_process(no_children_left):
    for jobs in ({"a": partial(_pid_after, 0.5), "b": _fails},  # fails in the pool
                 {"a": _fails, "b": partial(_pid_after, 0.5)}):  # fails here
        with pytest.raises(ValueError, match="no such figure"):
            run_jobs(jobs, 2)
        assert no_children_left()


def test_warnings_of_a_pool_job_are_raised_here():
    # job "a" keeps this process busy, so that "b" runs in the pool
    with pytest.warns(UserWarning, match="drawn in a pool process"):
        got = run_jobs({"a": partial(_pid_after, 1.0), "b": _warns}, 2)
    assert got["b"] == 2 and got["a"] == os.getpid()


def _children_and_threads() -> tuple[int, int]:
    return len(multiprocessing.active_children()), threading.active_count()


def test_the_pool_starts_before_the_first_job_here(no_children_left):
    # forked from this (only) thread before job a runs here: a process forked from the
    # feeding thread while a job here holds a lock (e.g. BLAS's, when it sets its threads)
    # would start with that lock held and wait for ever
    threads = threading.active_count()
    got = run_jobs({"a": _children_and_threads, "b": partial(_pid_after, 0.0)}, 2)
    children, threads_in_a = got["a"]
    assert children == 1 and threads_in_a > threads  # the pool (and its threads) exist
    assert no_children_left()


def test_a_free_process_takes_the_next_job(no_children_left):
    # job a runs here; the pool process takes b (long) while a still runs, so c and d are
    # taken here as soon as a ends instead of waiting behind b in the pool
    jobs = {"a": partial(_pid_after, 1.0), "b": partial(_pid_after, 2.5),
            "c": partial(_pid_after, 0.0), "d": partial(_pid_after, 0.0)}
    pids = run_jobs(jobs, 2)
    assert list(pids) == ["a", "b", "c", "d"]
    here = os.getpid()
    assert pids["a"] == here and pids["b"] != here
    assert pids["c"] == here and pids["d"] == here
    assert no_children_left()


@pytest.mark.parametrize("workers", [1, 3])
def test_progress_counts_finished_jobs_up_to_all(workers):
    seen = []
    run_jobs(_jobs(), workers, progress=lambda done, total: seen.append((done, total)))
    done = [d for d, _ in seen]
    assert done == sorted(done) and seen[-1] == (7, 7) and {t for _, t in seen} == {7}


def test_progress_is_drawn_only_by_the_process_that_owns_the_terminal(monkeypatch):
    from forensic_lr.cli.common import Stages

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    callback = Stages(stream=stream).for_stage("sensitivity")
    real = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: real + 1)  # as seen from another process
    callback(1, 2)
    assert stream.getvalue() == ""
    monkeypatch.setattr(os, "getpid", lambda: real)
    callback(1, 2)
    assert "sensitivity" in stream.getvalue()


@pytest.mark.parametrize("workers", [1, 2])
def test_jobs_run_with_one_blas_thread_in_every_process(workers, no_children_left):
    before = _blas_threads()
    got = run_jobs({"a": _blas_threads, "b": _blas_threads, "c": _blas_threads}, workers)
    assert all(value in ([], [1]) for value in got.values())
    assert _blas_threads() == before  # the limit ends with the call
    assert no_children_left()


def test_default_workers_is_the_cores_this_process_may_use():
    if hasattr(os, "sched_getaffinity"):
        expected = len(os.sched_getaffinity(0))
    else:
        expected = os.cpu_count() or 1
    assert parallel.default_workers() == expected >= 1


def test_spawn_where_other_threads_run(monkeypatch):
    """A forked child would inherit other threads' locks in whatever state they are."""
    default = multiprocessing.get_start_method()
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 2)
    assert parallel._context().get_start_method() == ("spawn" if default == "fork" else default)
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    assert parallel._context().get_start_method() == default
