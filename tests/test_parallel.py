"""Independent jobs on several cores (:func:`forensic_lr.parallel.call_forked`): the same
values, order, warnings and errors as calling them one after the other, no process left,
each job taken by the next free process, and progress drawn only by the process that owns it.

Independent values: the jobs called one by one in this process (the slow definition).
"""

import io
import os
import time
import warnings

import pytest

from forensic_lr import parallel
from forensic_lr.parallel import call_forked


def test_call_forked_returns_every_value_in_order(no_children_left):
    jobs = {f"job{i}": (lambda i=i: [i] * i) for i in range(7)}
    expected = {name: job() for name, job in jobs.items()}
    for workers in (1, 2, 4, 20):
        got = call_forked(jobs, workers)
        assert got == expected and list(got) == list(expected)
    assert call_forked({}, 2) == {}
    assert no_children_left()


@pytest.mark.parametrize(("cores", "load", "idle"), [
    (2, 0.2, 2), (2, 1.0, 2), (2, 1.9, 2), (2, 2.0, 1), (2, 5.7, 1), (8, 3.5, 6), (1, 0.0, 1),
])
def test_idle_cores_by_the_load_average_where_no_current_count(monkeypatch, cores, load, idle):
    monkeypatch.setattr(parallel, "usable_cores", lambda: cores)
    monkeypatch.setattr(parallel, "_running_now", lambda: None)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert parallel.idle_cores() == idle


@pytest.mark.parametrize(("cores", "running", "idle"), [
    (2, 1, 2), (2, 2, 1), (2, 7, 1), (8, 3, 6), (1, 1, 1),
])
def test_idle_cores_by_the_processes_running_now(monkeypatch, cores, running, idle):
    # a high load average left by this program's own earlier cases does not count
    monkeypatch.setattr(parallel, "usable_cores", lambda: cores)
    monkeypatch.setattr(parallel, "_running_now", lambda: running)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert parallel.idle_cores() == idle


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="Linux only")
def test_the_current_count_is_read_and_counts_this_process():
    assert parallel._running_now() >= 1


def _fails_in_any_process():
    raise ValueError("no such figure")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forking needs a POSIX system")
def test_a_failing_job_raises_its_own_error_here_and_leaves_no_process(no_children_left):
    # job 2 of 2 runs in the child: it fails there and is run again here to raise
    with pytest.raises(ValueError, match="no such figure"):
        call_forked({"a": lambda: 1, "b": _fails_in_any_process}, 2)
    assert no_children_left()
    # this process's own job fails: the child is ended and waited for
    with pytest.raises(ValueError, match="no such figure"):
        call_forked({"a": _fails_in_any_process, "b": lambda: 1}, 2)
    assert no_children_left()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forking needs a POSIX system")
def test_warnings_of_a_forked_job_are_raised_here():
    def warns():
        warnings.warn("drawn in the child", UserWarning, stacklevel=1)
        return 2

    with pytest.warns(UserWarning, match="drawn in the child"):
        assert call_forked({"a": lambda: 1, "b": warns}, 2) == {"a": 1, "b": 2}


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forking needs a POSIX system")
def test_a_free_process_takes_the_next_job(no_children_left):
    # job 0 runs here; the child takes job 1 (long) while job 0 still runs, so jobs 2 and
    # 3 are taken here as soon as job 0 ends instead of waiting behind job 1 in the child
    jobs = {"a": lambda: _pid_after(1.0), "b": lambda: _pid_after(2.0),
            "c": lambda: _pid_after(0.0), "d": lambda: _pid_after(0.0)}
    pids = call_forked(jobs, 2)
    assert list(pids) == ["a", "b", "c", "d"]
    here = os.getpid()
    assert pids["a"] == here and pids["b"] != here
    assert pids["c"] == here and pids["d"] == here
    assert no_children_left()


def test_progress_is_drawn_only_by_the_process_that_owns_the_terminal(monkeypatch):
    from forensic_lr.cli.common import Stages

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    callback = Stages(stream=stream).for_stage("sensitivity")
    real = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: real + 1)  # as seen from a forked child
    callback(1, 2)
    assert stream.getvalue() == ""
    monkeypatch.setattr(os, "getpid", lambda: real)
    callback(1, 2)
    assert "sensitivity" in stream.getvalue()


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="Linux only")
def test_this_process_busy_threads_are_not_other_work(monkeypatch):
    """A busy thread of this process (as BLAS threads spinning after a product) is its own."""
    import threading

    import numpy as np

    stop = threading.Event()
    data = np.random.default_rng(0).random(200_000)

    def busy():  # numpy releases the GIL while it sorts: the thread stays runnable
        while not stop.is_set():
            np.sort(data)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        assert max(parallel._own_running_threads() for _ in range(200)) >= 2
        # the kernel's count minus this process's running threads, plus this process
        monkeypatch.setattr(parallel, "_own_running_threads", lambda: 10**6)
        assert parallel._running_now() == 1
    finally:
        stop.set()
        worker.join()


def _blas_threads():
    from threadpoolctl import threadpool_info

    return sorted({pool["num_threads"] for pool in threadpool_info()
                   if pool["user_api"] == "blas"})


@pytest.mark.parametrize("workers", [1, 2])
def test_jobs_run_with_one_blas_thread_in_every_process(workers, no_children_left):
    import numpy as np  # noqa: F401  (loads the BLAS library)

    before = _blas_threads()
    got = call_forked({"a": _blas_threads, "b": _blas_threads, "c": _blas_threads}, workers)
    assert all(value in ([], [1]) for value in got.values())
    assert _blas_threads() == before  # the limit ends with the call
    assert no_children_left()
