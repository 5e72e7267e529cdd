"""Bootstrap helpers: index draws shared by the calibrator hooks and the generic loop, and
the inf-safe quantiles of replicates shared by the LR and the validation-metric intervals."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import numpy as np

#: Largest number of index draws held in memory at once.
CHUNK_DRAWS = 4_000_000


def bootstrap_index_chunks(
    rng: np.random.Generator, n: int, n_ss: int, n_ds: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(idx_ss, idx_ds)`` row blocks identical to two one-shot draws.

    The reference draws are ``rng.integers(0, n_ss, (n, n_ss))`` followed by
    ``rng.integers(0, n_ds, (n, n_ds))``: row ``b`` of each is bootstrap replicate ``b``.
    Numpy generators produce the same values whether an array is drawn at once or in
    consecutive row blocks, so a copy of the generator serves the SS rows while the
    original is advanced past them to serve the DS rows; memory stays at one block.
    """
    rows = max(1, CHUNK_DRAWS // max(n_ss, n_ds))
    rng_ss = copy.deepcopy(rng)
    for start in range(0, n, rows):
        rng.integers(0, n_ss, (min(rows, n - start), n_ss))
    for start in range(0, n, rows):
        k = min(rows, n - start)
        yield rng_ss.integers(0, n_ss, (k, n_ss)), rng.integers(0, n_ds, (k, n_ds))


def _quantile_rows(samples: np.ndarray, q: float) -> np.ndarray:
    """Quantile ``q`` of each column of ``samples`` (rows = draws), safe with +-inf.

    Linear interpolation between order statistics (numpy's default "linear" method,
    Hyndman & Fan type 7); when both neighbours are the same infinite value that
    value is returned instead of ``inf - inf = nan``.
    """
    s = np.sort(samples, axis=0)
    pos = q * (s.shape[0] - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, s.shape[0] - 1)
    frac = pos - lo
    a, b = s[lo], s[hi]
    if frac == 0.0:
        return a
    with np.errstate(invalid="ignore"):
        out = a + frac * (b - a)
    return np.where(a == b, a, out)
