"""Run independent jobs (the figures of a report, the stages of a case) on several cores.

Each job is a pure, deterministic function of data this process already holds: a figure of
a report (matplotlib builds it and writes its SVG text), or a stage of a case whose result
does not depend on the others (the sensitivity analysis beside the evidence evaluation and
the validation). :func:`call_forked` spreads such jobs over processes forked from this one
(the children inherit the data and the imported modules, so nothing is pickled on the way
in and nothing is imported again) and returns the same values as calling them one after
the other: byte for byte those of a serial run, in the same order.

It falls back to calling the jobs here, one after the other, where forking is unsafe or
useless: not Linux (Windows has no ``os.fork``; on macOS system frameworks are not safe
in a forked child), one idle core, one job, or other Python threads running
(a web server's: a lock one of them holds would stay locked in the child). A forked child
repeats some warm-up work (for figures: fonts, text measures, about 15 % of their processor
time): on a machine whose cores are all busy it would only add that, so by default only
idle cores are used (:func:`idle_cores`).

:func:`collector_paused` keeps Python's cyclic garbage collector off while such a job
allocates many small objects (matplotlib, weasyprint).
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from typing import TypeVar

from threadpoolctl import threadpool_limits

__all__ = [
    "MAX_JOBS", "call_forked", "can_fork", "collector_paused", "idle_cores", "one_blas_thread",
    "usable_cores",
]

T = TypeVar("T")

#: Most jobs :func:`call_forked` shares out between processes (each job after the first is one
#: byte value of its ticket pipe); more run one after the other in this process.
MAX_JOBS = 256


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def idle_cores() -> int:
    """Usable cores not busy with other work: ``cores + 1 - running``, from 1 to ``cores``.

    ``running`` is the number of processes running or ready to run at this moment, this
    one included (hence the + 1): on Linux the kernel's current count (the fourth field
    of ``/proc/loadavg``, the fewest of a few readings 2 ms apart), elsewhere the load
    average over the last minute, rounded down, as ``make --load-average`` reads it. The
    current count is used where there is one because the average remembers this program's
    own work: after a minute of cases run one after the other on two cores it nears 2,
    and every core would look busy. Where the system gives neither, every usable core
    counts as idle.
    """
    cores = usable_cores()
    running = _running_now()
    if running is None:
        try:
            running = math.floor(os.getloadavg()[0])
        except (AttributeError, OSError):
            return cores
    return max(1, min(cores, cores + 1 - running))


def _running_now(samples: int = 5, pause: float = 0.002) -> int | None:
    """Processes running or ready to run now, this one counted once; None where not known.

    The kernel's count (``/proc/loadavg``) is of threads, this process's own included:
    after a matrix product its BLAS threads keep spinning for a while (OpenBLAS waits
    busily before it sleeps) and would look like other work. So this process's running
    threads (``/proc/self/task/*/stat``, state ``R``) are taken off and the process
    counted as one. The fewest of ``samples`` readings ``pause`` seconds apart: a process
    that runs for a moment (a system task, a program starting) is not other work that
    keeps a core busy.
    """
    counts = []
    for i in range(samples):
        if i:
            time.sleep(pause)
        try:
            with open("/proc/loadavg", encoding="ascii") as status:
                running = int(status.read().split()[3].split("/")[0])
        except (OSError, IndexError, ValueError):
            return None
        counts.append(max(1, running - _own_running_threads() + 1))
    return min(counts)


def _own_running_threads() -> int:
    """This process's threads running or ready to run (state ``R``); 1 where not known."""
    own = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 1
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/stat", encoding="ascii", errors="replace") as stat:
                own += stat.read().rpartition(")")[2].split()[0] == "R"
        except (OSError, IndexError):
            continue  # a thread that ended meanwhile
    return max(own, 1)


@contextlib.contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector for the block, as it was after it.

    Rendering allocates some hundred thousand small objects per report (weasyprint's
    boxes, styles and text layouts; matplotlib's artists); every 700 allocations start a
    collection of the youngest objects, and every tenth of those one of the older ones,
    which walks much of what the process holds (a case run's records, matplotlib,
    weasyprint itself): about a fifth of the PDF time. Paused, the cycles the renderer
    leaves are freed at the first collection after the block. A collector the caller had
    paused stays paused.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def can_fork() -> bool:
    """Whether :func:`call_forked` may fork here: Linux (on macOS system frameworks are not
    safe in a forked child; Windows cannot fork) and no other Python thread running."""
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and threading.active_count() == 1)


def _serial(jobs: Mapping[str, Callable[[], T]], names) -> dict[str, T]:
    return {name: jobs[name]() for name in names}


def _claimed(tickets: int, names: list[str]):
    """The names of the jobs this process claims, one ticket (byte) at a time, until none
    is left: whichever process is free takes the next job."""
    while ticket := os.read(tickets, 1):
        yield names[ticket[0]]


#: Seconds between a child's looks at whether its parent is still there.
PARENT_POLL = 0.2


def _end_with_parent(parent: int) -> None:
    """In a child: a daemon thread ends the process once ``parent`` is gone.

    A parent killed outright (``kill -9``) runs no clean-up, and its children would compute
    on for minutes; an orphan is adopted by another process, so :func:`os.getppid` then
    names another process. Portable (no ``prctl``), checked every :data:`PARENT_POLL` s.
    """
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="forensic-lr-parent-watch", daemon=True).start()


def _child(jobs, names, tickets: int, write_fd: int, parent: int) -> None:
    """In the forked child: run the jobs it claims, send ``(values, warnings)`` through
    ``write_fd`` (the values of the jobs done before any that failed: the parent runs the
    missing ones again) and leave without running the parent's exit code; end at once if
    the parent is gone (:func:`_end_with_parent`)."""
    status = 1
    values: dict = {}
    try:
        _end_with_parent(parent)
        with warnings.catch_warnings(record=True) as caught:
            try:
                for name in _claimed(tickets, names):
                    values[name] = jobs[name]()
                status = 0
            except BaseException:  # the parent runs this job again and raises the real error
                pass
        payload = pickle.dumps((values, [(str(w.message), w.category) for w in caught]),
                               protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(payload)
    finally:
        os._exit(status)


def call_forked(jobs: Mapping[str, Callable[[], T]], workers: int | None = None
                ) -> dict[str, T]:
    """``{name: job()}`` for every job, computed in up to ``workers`` processes.

    Parameters
    ----------
    jobs : mapping of name -> callable without arguments
        Independent, deterministic jobs whose values can be pickled (SVG text, result
        records).
    workers : int, optional
        Processes to use, this one included (default: :func:`idle_cores`).

    Returns
    -------
    dict
        The values in the order of ``jobs``, equal to ``{name: job() for name, job in
        jobs.items()}``.

    Notes
    -----
    The first job always runs in this process (it may report progress to a terminal,
    which only this process draws on). The others are claimed in order by whichever
    process is free: each job is one byte in a pipe the processes share, and reading a
    byte from a pipe is atomic, so no job runs twice and a short job never waits behind
    a long one dealt to the same process. A job that fails in a child is run again in
    this process, so that its exception is raised here with its own type and traceback;
    so is any job a child claimed but did not finish. Warnings a child's jobs raise are
    raised again here (same message and category). Each child is waited for, and ended
    if this process's own jobs fail, so that none outlives the call; a child whose parent
    is killed outright ends within :data:`PARENT_POLL` seconds.

    Every job runs with one BLAS thread (``threadpoolctl``), in this process and in the
    children, however many processes there are: the processes are the parallelism, and
    two processes with a pool of BLAS threads each oversubscribe the cores (OpenBLAS
    threads wait busily between products; measured on 2 cores, an S-cal case's stages
    took 4.9 s side by side against 4.7 s one after the other, and 2.4 s with one BLAS
    thread each). The values then also do not depend on the number of cores or workers:
    a product summed by one thread is summed in one order.
    """
    with one_blas_thread():  # inherited by the children
        return _spread(jobs, workers)


@contextlib.contextmanager
def one_blas_thread():
    """Matrix products on one BLAS thread in this process (``threadpoolctl``), as a context
    manager or, ``@one_blas_thread()``, a function decorator.

    Used wherever results must not depend on the machine: a product summed by one thread is
    summed in one order, whatever the number of cores (:func:`call_forked`'s jobs, and the
    evidence evaluation, so that ``calibrate`` and ``run`` give the same bits).
    """
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _spread(jobs: Mapping[str, Callable[[], T]], workers: int | None) -> dict[str, T]:
    """:func:`call_forked`'s work, under its limit of one BLAS thread."""
    names = list(jobs)
    if not 1 < len(names) <= MAX_JOBS or not can_fork():  # before the cores are read (10 ms)
        return _serial(jobs, names)
    n = min(workers or idle_cores(), len(names))
    if n <= 1:
        return _serial(jobs, names)
    tickets, tickets_in = os.pipe()
    os.write(tickets_in, bytes(range(1, len(names))))  # job 0 is this process's own
    os.close(tickets_in)  # all claimed: a read then finds the pipe empty and closed
    children: list[tuple[int, int]] = []
    results: dict[str, T] = {}
    gc.freeze()  # the children's collector leaves the inherited objects (and their pages) alone
    parent = os.getpid()
    try:
        for _ in range(n - 1):
            read_fd, write_fd = os.pipe()
            with warnings.catch_warnings():
                # Python >= 3.12 warns about forking a process with threads of any kind (a
                # BLAS pool counts); the child only runs the jobs and never returns.
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:
                os.close(read_fd)
                _child(jobs, names, tickets, write_fd, parent)
            os.close(write_fd)
            children.append((pid, read_fd))
        gc.unfreeze()
        results[names[0]] = jobs[names[0]]()
        for name in _claimed(tickets, names):
            results[name] = jobs[name]()
        while children:
            pid, read_fd = children.pop(0)
            with os.fdopen(read_fd, "rb") as pipe:
                data = pipe.read()
            os.waitpid(pid, 0)
            if data:
                values, caught = pickle.loads(data)
                for message, category in caught:
                    warnings.warn(message, category, stacklevel=2)
                results.update(values)
        # jobs a child failed or could not finish: here, where a failure raises its error
        results.update(_serial(jobs, [name for name in names if name not in results]))
    finally:
        gc.unfreeze()
        os.close(tickets)
        for pid, read_fd in children:  # left only when this process's jobs failed
            os.close(read_fd)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return {name: results[name] for name in names}
