"""Resampling: bootstrap draws, inf-safe quantiles of replicates, cross-validation folds.

One home for the random parts every uncertainty computation shares:

* :func:`bootstrap_index_chunks` - index draws of the LR bootstrap, in memory-bounded blocks;
* :func:`trial_counts` - replicate weights of the metric bootstrap, and
  :class:`RunningTotals` - their running totals at chosen positions;
* :func:`quantile_rows` - type-7 quantiles of replicates, safe with infinite values;
* :func:`fold_ids` and :func:`source_folds` - cross-validation splits by trial or by source.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .defaults import DEFAULT_DRAWS, DEFAULT_INTERVAL, DEFAULT_LEVEL, DEFAULT_SEED
from .errors import InputError
from .limits import check_count
from .records import Serialisable

__all__ = [
    "DEFAULT_DRAWS",
    "DEFAULT_INTERVAL",
    "DEFAULT_LEVEL",
    "DEFAULT_SEED",
    "Progress",
    "RunningTotals",
    "SourceSplit",
    "bootstrap_index_chunks",
    "check_interval_options",
    "coded_sources",
    "fold_ids",
    "pair_counts",
    "quantile_rows",
    "source_codes",
    "source_draws",
    "source_folds",
    "stage_progress",
    "trial_counts",
]

#: Fewest replicates (bootstrap draws or posterior draws) a reported interval may rest on.
MIN_REPLICATES = 100
#: Interval levels allowed in reports lie strictly between these two.
LEVEL_RANGE = (0.5, 1.0)

#: A progress callback ``progress(done, total)``: the library reports long work through it
#: and never prints; the command line turns it into a bar.
Progress = Callable[[int, int], None]


def stage_progress(progress: Progress | None, stage: str) -> Progress | None:
    """The progress callback for one named stage of a long computation.

    ``progress`` may be a plain ``progress(done, total)`` callback, which receives the
    bootstrap only (``stage == "bootstrap"``; other stages get None), or an object with a
    method ``for_stage(name) -> callback`` (the command line's staged bar), which gets one
    callback per stage: ``"bootstrap"``, ``"cross-validation"``, ...
    """
    if progress is None:
        return None
    for_stage = getattr(progress, "for_stage", None)
    if for_stage is not None:
        return for_stage(stage)
    return progress if stage == "bootstrap" else None


#: Largest number of index draws held in memory at once: 8 MB of int64 per array, below
#: the 32 MB up to which the C allocator reuses freed blocks (a larger chunk would come
#: from fresh memory, page faults included, every time).
CHUNK_DRAWS = 1_000_000


def check_interval_options(
    n: int | None, level: float, *, n_name: str = "n", level_name: str = "level"
) -> None:
    """Refuse replicate counts and levels no reported interval should rest on.

    The one rule of every face (case file, ``calibrate``, ``validate --ci``, ``compare``):
    ``n >= MIN_REPLICATES`` replicates (None: the face's default) and
    ``0.5 < level < 1``. With fewer replicates the percentile ends are the extreme draws
    (with ``n = 1`` a zero-width interval, which may even exclude the estimate); a level at
    or below one half is not a confidence interval anyone reports (Efron & Tibshirani 1993,
    *An Introduction to the Bootstrap*, ch. 13, on replicate counts for percentile
    intervals). The library functions themselves accept any positive ``n``.

    Raises
    ------
    InputError
        Naming ``n_name`` or ``level_name`` (e.g. ``"--n"``) and the value to use instead.
    """
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer))
                          or n < MIN_REPLICATES):
        raise InputError(
            f"{n_name} {n!r} is too few replicates for an interval: use at least "
            f"{MIN_REPLICATES} (e.g. {n_name} 1000)"
        )
    check_count("replicates", n, n_name)
    low, high = LEVEL_RANGE
    if not (isinstance(level, (int, float, np.floating)) and low < float(level) < high):
        raise InputError(
            f"{level_name} {level!r} is not an interval level: give a value strictly "
            f"between {low:g} and {high:g} (e.g. {level_name} 0.95)"
        )


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


def replicate_weights(idx_ss: np.ndarray, idx_ds: np.ndarray, n_ss: int, n_ds: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """A bootstrap replicate's draws as count weights: how often each SS and DS score was
    drawn (multinomial counts), the ``ss_weight``, ``ds_weight`` of a calibrator's ``fit``
    that refits the replicate."""
    return np.bincount(idx_ss, minlength=n_ss), np.bincount(idx_ds, minlength=n_ds)


def quantile_rows(samples: np.ndarray, q: float) -> np.ndarray:
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


def trial_counts(rng: np.random.Generator, size: int) -> np.ndarray:
    """How often each of ``size`` trials is drawn in one bootstrap replicate (int64).

    ``size`` draws with replacement, counted: the multinomial counts of the ordinary
    bootstrap [1]_, at every size (the class size is kept).

    References
    ----------
    .. [1] B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall,
       1993, ch. 6.
    """
    return np.bincount(rng.integers(0, size, size), minlength=size)


def replicate_counts(rng: np.random.Generator, n_ss: int, n_ds: int,
                     codes: tuple[np.ndarray, np.ndarray, int] | None = None,
                     ) -> tuple[np.ndarray, np.ndarray]:
    """How often each SS and each DS trial counts in one bootstrap replicate.

    Trials (``codes`` None): each class resampled with replacement at its own size
    (:func:`trial_counts`, SS then DS). Sources (``codes`` = the source codes of both
    items of each trial and the number of sources ``k``, :func:`source_codes`): ``k``
    sources drawn with replacement, source ``s`` drawn ``m_s`` times; a trial within
    source ``a`` counts ``m_a`` times, a trial between ``a != b`` ``m_a m_b`` times (the
    subsets bootstrap of Bolle et al. [1]_).

    References
    ----------
    .. [1] R. M. Bolle, N. K. Ratha, S. Pankanti, "Error analysis of pattern recognition
       systems - the subsets bootstrap", Computer Vision and Image Understanding 93
       (2004) 1-33.
    """
    if codes is None:
        return trial_counts(rng, n_ss), trial_counts(rng, n_ds)
    return pair_counts(source_draws(rng, codes[2]), codes)


def source_draws(rng: np.random.Generator, k: int) -> np.ndarray:
    """How often each of ``k`` sources is drawn in one bootstrap replicate: ``k`` draws
    with replacement, counted (int64, ``(k,)``); the draw of :func:`replicate_counts` by
    source."""
    return np.bincount(rng.integers(0, k, k), minlength=k)


def pair_counts(draws: np.ndarray, codes: tuple[np.ndarray, np.ndarray, int],
                ) -> tuple[np.ndarray, np.ndarray]:
    """How often each SS and each DS trial counts when source ``s`` is drawn ``draws[s]``
    times (:func:`replicate_counts`): ``m_a`` for a trial within source ``a``, ``m_a m_b``
    for one between ``a != b``. ``draws`` may be ``(r, k)``, one row per replicate (then
    ``(r, n)`` counts)."""
    c_ss, c_ds, _ = codes

    def count(c):
        a, b = draws[..., c[:, 0]], draws[..., c[:, 1]]
        return np.where(c[:, 0] == c[:, 1], a, a * b)

    return count(c_ss), count(c_ds)


class RunningTotals:
    """Reads ``counts[:p].sum()`` at fixed positions ``p`` for many count vectors.

    Parameters
    ----------
    positions : array_like of int
        Where to read, each in ``[0, size]``.
    size : int
        Length of the count vectors.

    Calling the object with integer ``counts`` returns the exact int64 totals. The
    distinct positions below ``size``, with 0, cut the counts into segments; one
    ``np.add.reduceat`` sums each segment and the running total of the segment sums is
    the total below each cut (equal to ``np.cumsum`` read at the positions, without a
    running total per count).
    """

    def __init__(self, positions, size: int) -> None:
        self.positions = np.asarray(positions, dtype=np.intp)
        self.size = int(size)
        cuts = np.unique(np.append(self.positions[self.positions < self.size], 0))
        self._cuts = cuts if self.size else np.empty(0, dtype=np.intp)
        # position p reads the total below cut j (the segments before j); p == size: all
        self._read = np.searchsorted(cuts, self.positions)

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        if counts.size != self.size:
            raise ValueError(f"expected {self.size} counts, got {counts.size}")
        below = np.zeros(self._cuts.size + 1, dtype=np.int64)
        if self.size:
            np.cumsum(np.add.reduceat(counts, self._cuts, dtype=np.int64), out=below[1:])
        return below[self._read]


@dataclass(frozen=True, eq=False)
class SourceSplit(Serialisable):
    """One cross-validation split: indices into the SS and DS arrays."""

    train_ss: np.ndarray
    train_ds: np.ndarray
    test_ss: np.ndarray
    test_ds: np.ndarray


def source_codes(ss_sources, ds_sources, n_ss: int, n_ds: int):
    """Integer codes ``(n, 2)`` of each trial's two sources, and the number of sources.

    A 1-D array gives one source per trial (both columns equal).
    """
    codes_ss, codes_ds, ids = coded_sources(ss_sources, ds_sources, n_ss, n_ds)
    return codes_ss, codes_ds, int(ids.size)


def coded_sources(ss_sources, ds_sources, n_ss: int, n_ds: int):
    """:func:`source_codes` with the ids themselves: ``ids[code]`` is the source's id."""
    arrays = [np.asarray(ss_sources), np.asarray(ds_sources)]
    if not all(a.dtype.kind in "iu" for a in arrays):  # integer ids are coded as they are
        arrays = [a.astype(str) for a in arrays]
    pairs = []
    for arr, values, size, name in zip(
        arrays, (ss_sources, ds_sources), (n_ss, n_ds), ("ss_sources", "ds_sources"),
        strict=True,
    ):
        if arr.ndim == 1:
            arr = np.column_stack([arr, arr])
        if arr.ndim != 2 or arr.shape != (size, 2):
            raise InputError(
                f"{name} must have one id (shape (n,)) or two ids (shape (n, 2)) per trial "
                f"for the {size} trials; got shape {np.shape(values)}"
            )
        pairs.append(arr)
    ids, codes = np.unique(np.concatenate(pairs), return_inverse=True)
    codes = codes.reshape(-1, 2)
    return codes[:n_ss], codes[n_ss:], ids


def source_folds(
    ss_sources, ds_sources, *, folds: int | None = 5, seed: int = DEFAULT_SEED
) -> tuple[SourceSplit, ...]:
    """Cross-validation splits in which no source is in both the training and test trials.

    Parameters
    ----------
    ss_sources, ds_sources : array_like
        Source ids per SS and DS trial, shape ``(n,)`` or ``(n, 2)``.
    folds : int or None
        Number of source folds K (2 <= K <= number of sources); None: one fold per
        source (leave-one-source-out).
    seed : int
        Seed of the random assignment of sources to folds.

    Returns
    -------
    tuple of SourceSplit
        Every trial is in exactly one test set.

    Notes
    -----
    Sources are shuffled and dealt round-robin into K folds. A trial whose sources lie
    in folds ``f`` and ``g`` (``f = g`` for a trial within one fold) is tested in split
    ``{f, g}``, whose training trials are those with no source in fold ``f`` or ``g``.
    So a different-source trial across two folds is scored by a model that saw neither
    of its sources; there is one split per fold pair that occurs, at most
    ``K (K + 1) / 2`` [1]_.

    References
    ----------
    .. [1] T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*,
       2nd ed., Springer, 2009, sec. 7.10.
    """
    n_ss, n_ds = len(np.asarray(ss_sources)), len(np.asarray(ds_sources))
    codes_ss, codes_ds, k = source_codes(ss_sources, ds_sources, n_ss, n_ds)
    if folds is None:
        fold_of = np.arange(k)
    else:
        if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
            raise InputError(f"folds must be an integer >= 2 or None, got {folds!r}")
        if folds > k:
            raise InputError(
                f"{folds} folds are more than the {k} distinct sources (each fold needs at "
                f"least one source); use at most {k} folds, or leave-one-source-out"
            )
        fold_of = np.empty(k, dtype=np.intp)
        fold_of[np.random.default_rng(seed).permutation(k)] = np.arange(k) % int(folds)
    f_ss, f_ds = np.sort(fold_of[codes_ss], axis=1), np.sort(fold_of[codes_ds], axis=1)
    keys = np.unique(np.concatenate([f_ss, f_ds]), axis=0)
    splits = []
    for f, g in keys:
        test_ss = np.flatnonzero((f_ss[:, 0] == f) & (f_ss[:, 1] == g))
        test_ds = np.flatnonzero((f_ds[:, 0] == f) & (f_ds[:, 1] == g))
        train_ss = np.flatnonzero(~np.isin(f_ss, (f, g)).any(axis=1))
        train_ds = np.flatnonzero(~np.isin(f_ds, (f, g)).any(axis=1))
        if train_ss.size < 2 or train_ds.size < 2:
            raise InputError(too_few_training_message(int(f), int(g), int(fold_of.max()) + 1,
                                                      train_ss.size, train_ds.size))
        splits.append(SourceSplit(train_ss, train_ds, test_ss, test_ds))
    return tuple(splits)


def too_few_training_message(f: int, g: int, folds: int, n_ss: int, n_ds: int) -> str:
    """What is wrong and what to do when leaving out source folds ``f`` and ``g`` leaves
    fewer than 2 training trials of a class.

    More folds mean fewer sources per fold, so more training trials in every split (the
    most with leave-one-source-out). A trial comparing sources in folds ``f != g`` is tested
    by a model trained without both folds; with 2 folds that leaves no training trial.
    """
    left_out = sorted({f, g})
    message = (f"leaving out source fold(s) {left_out} leaves {n_ss} SS and {n_ds} DS "
               "training trials (at least 2 of each needed)")
    if len(left_out) == folds:
        message += (f": with {folds} source folds, a trial comparing sources of different "
                    "folds is scored by a model trained without both folds, which leaves "
                    "nothing to train on")
    return (f"{message}; use more folds (at least 3, at most the number of sources; from "
            "Python also folds=None, leave-one-source-out), or add sources")


def fold_ids(size: int, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number of each item: a random permutation dealt round-robin into ``folds`` parts."""
    ids = np.empty(size, dtype=np.intp)
    ids[rng.permutation(size)] = np.arange(size) % folds
    return ids
