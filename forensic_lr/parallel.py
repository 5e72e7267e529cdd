"""Run independent jobs (the stages of a case, chunks of bootstrap replicates) on several cores.

Each job is a pure, deterministic function of its inputs. :func:`run_jobs` runs the first
job in this process and shares the others with a pool of processes from the standard
library (:class:`concurrent.futures.ProcessPoolExecutor`); it returns the same values as
calling the jobs one after the other, byte for byte, in the same order. Callers ask for
more than one worker only where a measurement shows a gain at their size on two cores
(``docs/dev/architecture.md``, *Processes*); one worker means no pool at all.

Nothing here depends on the operating system: the pool starts its processes by the
platform's default method (fork on Linux up to Python 3.13, spawn on macOS and
Windows), and by spawn wherever another Python thread runs (a web server's: a lock one
of them holds would stay locked in a forked child). The jobs a pool process may run must
therefore be picklable (module-level functions, ``functools.partial`` of them); they reach
each process once, when it starts, and a job is then sent by name.

:func:`collector_paused` keeps Python's cyclic garbage collector off while such a job
allocates many small objects (matplotlib, weasyprint).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import warnings
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TypeVar

from threadpoolctl import threadpool_limits

from .i18n.messages import raised_text

__all__ = ["collector_paused", "default_workers", "one_blas_thread", "run_jobs"]

T = TypeVar("T")


def default_workers() -> int:
    """Processes a computation may use by default: the cores this process may run on (its
    CPU affinity where the system tells it, as ``taskset`` sets it; else every core)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


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


@contextlib.contextmanager
def one_blas_thread():
    """Matrix products on one BLAS thread in this process (``threadpoolctl``), as a context
    manager or, ``@one_blas_thread()``, a function decorator.

    Used wherever results must not depend on the machine: a product summed by one thread is
    summed in one order, whatever the number of cores (:func:`run_jobs`'s jobs, and the
    evidence evaluation, so that ``calibrate`` and ``run`` give the same bits).
    """
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def run_jobs(jobs: Mapping[str, Callable[[], T]], workers: int = 1,
             progress: Callable[[int, int], None] | None = None) -> dict[str, T]:
    """``{name: job()}`` for every job, computed in up to ``workers`` processes.

    Parameters
    ----------
    jobs : mapping of name -> callable without arguments
        Independent, deterministic jobs whose values can be pickled. Every job but the
        first must be picklable itself when ``workers > 1``.
    workers : int
        Processes to use, this one included; 1 (the default) calls the jobs here, one
        after the other.
    progress : callable(done, total), optional
        Called here with the number of jobs finished (``total`` = all jobs) whenever this
        process learns of one more (its own as it ends, the pool's when it looks).

    Returns
    -------
    dict
        The values in the order of ``jobs``, equal to ``{name: job() for name, job in
        jobs.items()}``.

    Notes
    -----
    The first job always runs in this process (it may report progress to a terminal,
    which only this process draws on). A pool of ``workers - 1`` processes gets the jobs
    table once, as it starts; each pool process that is ready (started, its modules
    imported) and idle is then sent the next job by name, and this process takes the
    next one itself whenever it is free, so a pool process that starts late never holds
    up a job this process could run. A job that fails raises its own exception here. Warnings a pool
    process's jobs raise are raised again here (same message and category). When a job
    fails (or Ctrl-C stops this process), the jobs not started are cancelled and the pool
    ends once the ones it is running have ended: no process outlives the call.

    Every job runs with one BLAS thread (:func:`one_blas_thread`), in this process and in
    the pool's: the processes are the parallelism (two processes with a pool of BLAS
    threads each oversubscribe the cores), and a product summed by one thread is summed
    in one order, so the values do not depend on the number of workers. Ctrl-C stops the
    jobs running in the pool as well as this process's, and pool processes end when
    this process ends, even when it is killed outright (:func:`_start_worker`).
    """
    names = list(jobs)
    processes = min(workers, len(names)) - 1  # besides this one
    with one_blas_thread():
        if processes < 1:
            results = {}
            for name in names:
                results[name] = jobs[name]()
                if progress is not None:
                    progress(len(results), len(names))
            return results
        return _shared(jobs, names, processes, progress)


def _context():
    """The pool's start method: the platform's default, spawn instead of fork when other
    Python threads run (forking copies their locks in whatever state they are)."""
    context = multiprocessing.get_context()
    if context.get_start_method() == "fork" and threading.active_count() > 1:
        return multiprocessing.get_context("spawn")
    return context


def _shared(jobs: Mapping[str, Callable[[], T]], names: list[str], processes: int,
            progress: Callable[[int, int], None] | None) -> dict[str, T]:
    """:func:`run_jobs` with a pool of ``processes`` more processes.

    The pool's processes start first, from this thread (before any job runs here); then a
    thread of this process feeds the pool: each time a pool process is ready or has
    finished a job, it takes the next job from the queue and sends its name there. This
    process's main thread takes the first job, then the next from the same queue
    whenever it is free.
    """
    table = {name: jobs[name] for name in names[1:]}
    queue = deque(names[1:])
    lock = threading.Lock()
    sent: dict[str, Future] = {}
    results: dict[str, T] = {}

    def take() -> str | None:
        with lock:
            return queue.popleft() if queue else None

    def report() -> None:
        if progress is not None:
            with lock:  # the feeder adds to ``sent`` meanwhile
                running = list(sent.values())
            progress(len(results) + sum(f.done() for f in running), len(names))

    with ProcessPoolExecutor(processes, mp_context=_context(), initializer=_start_worker,
                             initargs=(table,)) as pool:
        # the pool's processes start here, from this thread, before this process runs a
        # job: a process forked from another thread while a job here holds a lock (BLAS's
        # own, as a job sets its threads) would start with that lock held and wait for ever
        busy = {pool.submit(_ready) for _ in range(processes)}

        def feed() -> None:
            nonlocal busy
            while busy:
                done, busy = wait(busy, return_when=FIRST_COMPLETED)
                for _ in done:
                    if (name := take()) is None:
                        return
                    future = pool.submit(_run_named, name)
                    with lock:
                        sent[name] = future
                    busy.add(future)

        feeder = threading.Thread(target=feed, name="forensic-lr-pool-feeder", daemon=True)
        feeder.start()
        try:
            name: str | None = names[0]
            while name is not None:
                results[name] = jobs[name]()
                report()
                name = take()
            feeder.join()
            for name in list(sent):
                value, caught = sent.pop(name).result()
                for message, category in caught:
                    warnings.warn(message, category, stacklevel=3)
                results[name] = value
                report()
        except BaseException:
            with lock:
                queue.clear()  # the feeder sends nothing more
            pool.shutdown(cancel_futures=True)  # the jobs running there end, then the pool
            raise
    return {name: results[name] for name in names}


#: In a pool process: the jobs table it was started with.
_TABLE: Mapping[str, Callable[[], object]] = {}


def _start_worker(table: Mapping[str, Callable[[], object]]) -> None:
    """In a pool process, once: keep the jobs table, one BLAS thread, Ctrl-C stops only a
    running job (:func:`_interrupt`), and end the process when its parent ends.

    A parent killed outright (``kill -9``) runs no clean-up, and its pool would compute on:
    :func:`multiprocessing.parent_process`'s sentinel becomes ready when the parent ends
    (whatever the start method and operating system), and a daemon thread waiting on it
    then ends this process.
    """
    global _TABLE
    _TABLE = table
    threadpool_limits(limits=1, user_api="blas")
    signal.signal(signal.SIGINT, _interrupt)
    parent = multiprocessing.parent_process()
    if parent is not None:
        def watch() -> None:
            multiprocessing.connection.wait([parent.sentinel])
            os._exit(1)

        threading.Thread(target=watch, name="forensic-lr-parent-watch", daemon=True).start()


#: In a pool process: whether a job is running.
_RUNNING = False


def _interrupt(signum, frame) -> None:
    """Ctrl-C in a pool process (a terminal sends it to the whole process group): a running
    job stops with KeyboardInterrupt, which the pool sends back to this process's parent;
    an idle pool process ignores it (the parent, interrupted too, ends the pool)."""
    if _RUNNING:
        raise KeyboardInterrupt


def _ready() -> None:
    """A pool process has started and taken its jobs table."""


def _run_named(name: str):
    """In a pool process: ``(value, warnings)`` of the job ``name``."""
    global _RUNNING
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _RUNNING = True
        try:
            value = _TABLE[name]()
        finally:
            _RUNNING = False
    return value, [(raised_text(w.message), w.category) for w in caught]
