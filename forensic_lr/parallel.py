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
import warnings
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["call_forked", "collector_paused", "idle_cores", "usable_cores"]

T = TypeVar("T")


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def idle_cores() -> int:
    """Usable cores not busy with other work: ``cores + 1 - floor(load)``, from 1 to ``cores``.

    ``load`` is the system's load average over the last minute (processes running or
    waiting for a core, this one included, hence the + 1), as ``make --load-average``
    reads it; where the system gives none, every usable core counts as idle.
    """
    cores = usable_cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, min(cores, cores + 1 - math.floor(load)))


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


def _can_fork() -> bool:
    # Linux only: on macOS system frameworks are not safe to use in a forked child
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and threading.active_count() == 1)


def _serial(jobs: Mapping[str, Callable[[], T]], names) -> dict[str, T]:
    return {name: jobs[name]() for name in names}


def _child(jobs, names, write_fd: int) -> None:
    """In the forked child: run ``names``, send ``(values, warnings)`` (or ``None`` if a
    job failed) through ``write_fd``, and leave without running the parent's exit code."""
    status = 1
    try:
        try:
            with warnings.catch_warnings(record=True) as caught:
                values = _serial(jobs, names)
            payload = pickle.dumps(
                (values, [(str(w.message), w.category) for w in caught]),
                protocol=pickle.HIGHEST_PROTOCOL,
            )
            status = 0
        except BaseException:  # the parent runs the jobs again and raises the real error
            payload = pickle.dumps(None)
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
        Processes to use, this one included (default: :func:`idle_cores`). The jobs are
        dealt out in turn: with two workers this process runs jobs 1, 3, 5, ... and one forked
        child runs jobs 2, 4, 6, ...

    Returns
    -------
    dict
        The values in the order of ``jobs``, equal to ``{name: job() for name, job in
        jobs.items()}``.

    Notes
    -----
    A job that fails in a child is run again in this process, so that its exception is
    raised here with its own type and traceback. Warnings a child's jobs raise are raised
    again here (same message and category). Each child is waited for, and ended if this
    process's own jobs fail, so that none outlives the call.
    """
    names = list(jobs)
    n = min(workers or idle_cores(), len(names))
    if n <= 1 or not _can_fork():
        return _serial(jobs, names)
    groups = [names[i::n] for i in range(n)]
    children: list[tuple[int, int, list[str]]] = []
    results: dict[str, T] = {}
    gc.freeze()  # the children's collector leaves the inherited objects (and their pages) alone
    try:
        for group in groups[1:]:
            read_fd, write_fd = os.pipe()
            with warnings.catch_warnings():
                # Python >= 3.12 warns about forking a process with threads of any kind (a
                # BLAS pool counts); the child only runs the jobs and never returns.
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:
                os.close(read_fd)
                _child(jobs, group, write_fd)
            os.close(write_fd)
            children.append((pid, read_fd, group))
        gc.unfreeze()
        results.update(_serial(jobs, groups[0]))
        while children:
            pid, read_fd, group = children.pop(0)
            with os.fdopen(read_fd, "rb") as pipe:
                data = pipe.read()
            os.waitpid(pid, 0)
            received = pickle.loads(data) if data else None
            if received is None:
                results.update(_serial(jobs, group))
                continue
            values, caught = received
            for message, category in caught:
                warnings.warn(message, category, stacklevel=2)
            results.update(values)
    finally:
        gc.unfreeze()
        for pid, read_fd, _ in children:  # left only when this process's jobs failed
            os.close(read_fd)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return {name: results[name] for name in names}
