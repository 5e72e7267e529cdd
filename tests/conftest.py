"""Fixtures shared by the test suite (the tests mirror the package's layout)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy.stats import norm


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


def _loop_rate_intervals(ss, ds, ss_src, ds_src, k, n, seed, level, interval):
    """The rates' intervals by a plain loop over the replicates (reference)."""
    mis_ss, mis_ds = ss < 0, ds > 0
    bits = np.random.default_rng(seed).bit_generator
    reps = {"rmep": [], "rmed": []}
    for r in range(n):
        m = np.bincount(np.random.Generator(bits.jumped(r)).integers(0, k, k), minlength=k)
        w_ss = m[ss_src].astype(float)
        w_ds = np.where(ds_src[:, 0] == ds_src[:, 1], m[ds_src[:, 0]],
                        m[ds_src[:, 0]] * m[ds_src[:, 1]]).astype(float)
        if w_ss.sum() == 0 or w_ds.sum() == 0:
            continue  # a class without trials: the replicate is left out
        reps["rmep"].append(w_ss @ mis_ss / w_ss.sum())
        reps["rmed"].append(w_ds @ mis_ds / w_ds.sum())
    out = {}
    alpha = 1 - level
    for name, estimate in (("rmep", mis_ss.mean()), ("rmed", mis_ds.mean())):
        values = np.sort(reps[name])
        q = np.array([alpha / 2, 1 - alpha / 2])
        if interval == "bc":
            share = (np.sum(values < estimate) + 0.5 * np.sum(values == estimate)) / values.size
            share = min(max(share, 0.5 / values.size), 1 - 0.5 / values.size)
            z0 = norm.ppf(share)
            q = norm.cdf(2 * z0 + norm.ppf(q))
        out[name] = tuple(np.quantile(values, q))
    return out


@pytest.fixture(scope="session")
def loop_rate_intervals():
    """RMEP and RMED intervals by source from a plain loop over the bootstrap replicates:
    ``loop_rate_intervals(ss_llr, ds_llr, ss_src, ds_src, k, n, seed, level, interval)``
    with integer source codes ``0..k-1`` (ss: shape (n,), ds: shape (n, 2)) in the order of
    the ids' sort; the reference of :func:`forensic_lr.validation.rates.misleading_rates`."""
    return _loop_rate_intervals
