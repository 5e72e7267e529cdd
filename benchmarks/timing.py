"""Timing helper shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Smallest wall-clock time in seconds of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def elapsed(fn: Callable[[], object]) -> float:
    """Wall-clock time in seconds of one call of ``fn``."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
