"""Fixtures shared by the test suite (the tests mirror the package's layout)."""

from __future__ import annotations

import os

import numpy as np
import pytest


def gaussian_background(seed: int = 0, n_ss: int = 60, n_ds: int = 200, *, shift: float = 3.0):
    """Raw same-source ~ N(shift, 1) and different-source ~ N(0, 1.5^2) scores."""
    rng = np.random.default_rng(seed)
    return rng.normal(shift, 1.0, n_ss), rng.normal(0.0, 1.5, n_ds)


@pytest.fixture(scope="session")
def make_background():
    """The background generator (:func:`gaussian_background`): ``make_background(seed, n_ss,
    n_ds, shift=3.0)`` gives ``(ss, ds)`` raw scores."""
    return gaussian_background


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:  # this process has no child, running or finished
        return True
    return False


@pytest.fixture(scope="session")
def no_children_left():
    """``no_children_left()`` is True when this process has no child process, running or
    finished and not yet waited for (forked jobs leave none behind)."""
    return _no_children_left
