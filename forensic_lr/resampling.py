"""Resampling: bootstrap draws, inf-safe quantiles of replicates, cross-validation folds.

One home for the random parts every uncertainty computation shares:

* :func:`bootstrap_index_chunks` - index draws of the LR bootstrap, in memory-bounded blocks;
* :func:`trial_counts` / :func:`poisson_counts` - replicate weights of the metric bootstrap
  (:func:`trial_draw` / :func:`poisson_bits` take their random part from the generator,
  :func:`counts_of_draw` / :func:`poisson_from_bits` the rest, in any thread), and
  :class:`RunningTotals` - their running totals at chosen positions;
* :func:`quantile_rows` - type-7 quantiles of replicates, safe with infinite values;
* :func:`fold_ids` and :func:`source_folds` - cross-validation splits by trial or by source.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .limits import check_count

__all__ = [
    "DEFAULT_DRAWS",
    "DEFAULT_INTERVAL",
    "DEFAULT_LEVEL",
    "DEFAULT_SEED",
    "POISSON_FROM",
    "Progress",
    "RunningTotals",
    "SourceSplit",
    "bootstrap_index_chunks",
    "check_interval_options",
    "coded_sources",
    "counts_of_draw",
    "fold_ids",
    "narrowest_uint",
    "poisson_bits",
    "poisson_counts",
    "poisson_from_bits",
    "quantile_rows",
    "source_codes",
    "source_folds",
    "sparse_true_positions",
    "stage_progress",
    "trial_counts",
    "trial_draw",
]

#: The default random seed of cases and studies (the case file's ``[uncertainty] seed``): a case
#: and a validation study of the same data use the same folds unless told otherwise.
DEFAULT_SEED = 20261122

#: The level of every interval unless told otherwise (case file, command line, library).
DEFAULT_LEVEL = 0.95
#: The interval of a reported LR unless told otherwise (case file, ``calibrate``, library).
DEFAULT_INTERVAL = "bootstrap"
#: Default number of draws per interval kind (bootstrap replicates, posterior samples).
DEFAULT_DRAWS = {"bootstrap": 1000, "bayes": 4000, "none": 0}

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


#: Largest number of index draws held in memory at once: 8 MB of int64 per array. At
#: 4,000,000 (32 MB, the C allocator's ceiling for reusing freed blocks) every chunk came
#: from fresh memory, page faults included: the LR bootstrap of 10^4 / 10^5 scores took
#: 1.65 s instead of 1.2 s (logistic), 0.89 s instead of 0.68 s (gaussian), and 0.1-0.2 s
#: more for student_t and scal (medians of 5 fresh processes each). Smaller chunks did
#: not gain: 250,000 was slower again for kde, gaussian and scal.
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


#: Classes with at least this many trials get Poisson(1) bootstrap counts.
POISSON_FROM = 50_000


def _poisson_tables() -> tuple[list[int], np.ndarray]:
    """Step tables for Poisson(1) counts from 32 random bits, read one byte first.

    Count ``k`` (k = 0..4) owns ``floor(256 pmf(k))`` consecutive values of the first
    byte ``u``: ``count = #{k : u >= byte_steps[k]}`` (4 steps). The byte values from
    ``byte_steps[4]`` up (3 of 256) carry what remains of every count's probability;
    there 24 more bits make ``v``, uniform below ``3 * 2**24``, and
    ``count = #{k : v >= top_steps[k]}``, the steps being the cumulative remainders
    ``pmf(k) - floor(256 pmf(k)) / 256`` in units of ``2**-32``. Each count thus gets
    its Poisson(1) probability ``e^-1 / k!`` to within ``2**-32``.
    """
    pmf = np.array([math.exp(-1.0) / math.factorial(k) for k in range(24)])
    in_byte = np.zeros(pmf.size)
    in_byte[:5] = np.floor(256 * pmf[:5])
    byte_steps = [int(x) for x in np.cumsum(in_byte[:5])]
    top_steps = np.round(2.0**32 * np.cumsum(pmf - in_byte / 256))
    top_steps = top_steps[top_steps < (256 - byte_steps[-1]) * 2.0**24]
    return byte_steps, top_steps.astype(np.int64)


_BYTE_STEPS, _TOP_STEPS = _poisson_tables()


def _top_buckets(shift: int) -> tuple[np.ndarray, np.ndarray]:
    """Look-up tables for ``#{k : v >= _TOP_STEPS[k]}`` by the bucket ``v >> shift``.

    ``counts[b]`` is the count at the bucket's first value ``b << shift``; ``split[b]``
    says that a step falls inside the bucket after its first value, where the count must
    be found by comparing ``v`` itself (10 of the 12,288 buckets of ``shift = 12``).
    """
    n_buckets = (256 - _BYTE_STEPS[-1]) << (24 - shift)
    first = np.arange(n_buckets, dtype=np.int64) << shift
    counts = np.searchsorted(_TOP_STEPS, first, side="right").astype(np.uint8)
    split = np.searchsorted(_TOP_STEPS, first + (1 << shift) - 1, side="right") > counts
    return counts, split


_TOP_SHIFT = 12
_TOP_COUNTS, _TOP_SPLIT = _top_buckets(_TOP_SHIFT)


def narrowest_uint(largest: int) -> type:
    """The narrowest unsigned integer type holding ``largest`` (narrow weights sum fastest)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def trial_counts(rng: np.random.Generator, size: int) -> np.ndarray:
    """How often each of ``size`` trials is drawn in one bootstrap replicate.

    Below :data:`POISSON_FROM` trials: ``size`` draws with replacement (multinomial
    counts). From there on: independent Poisson(1) counts, the Poisson bootstrap [1]_;
    the class size then varies by about ``sqrt(size)`` (under 0.5 %), which changes
    nothing measurable in the intervals while sparing a scatter over ``size`` counters.
    Equal to ``counts_of_draw(trial_draw(rng, size))``.

    References
    ----------
    .. [1] J. A. Hanley, B. MacGibbon, "Creating non-parametric bootstrap samples using
       Poisson frequencies", Computer Methods and Programs in Biomedicine 83 (2006) 57-62.
    """
    return counts_of_draw(trial_draw(rng, size))


def trial_draw(rng: np.random.Generator, size: int):
    """The random part of :func:`trial_counts`, taken from ``rng`` in the same order.

    The multinomial counts themselves for small classes, the :func:`poisson_bits` of the
    Poisson counts for large ones; :func:`counts_of_draw` finishes either (in any thread).
    """
    if size < POISSON_FROM:
        return np.bincount(rng.integers(0, size, size), minlength=size)
    return poisson_bits(rng, size)


def counts_of_draw(draw, out: np.ndarray | None = None) -> np.ndarray:
    """The counts of a :func:`trial_draw` (``out``: as in :func:`poisson_from_bits`)."""
    if isinstance(draw, np.ndarray):
        return draw
    return poisson_from_bits(*draw, out=out)


def poisson_counts(rng: np.random.Generator, size: int) -> np.ndarray:
    """Poisson(1) variates (uint8), probabilities exact to ``2**-32`` (:func:`_poisson_tables`).

    One random byte per trial and four vectorised comparisons settle 98.8 % of the
    counts; the rest (first byte among the top 3 values) draw 24 more bits. Equal to
    ``poisson_from_bits(*poisson_bits(rng, size))``: the random part and the arithmetic
    part may run in different threads.
    """
    return poisson_from_bits(*poisson_bits(rng, size))


def poisson_bits(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The random part of :func:`poisson_counts`: one byte per trial, 24 more bits per rare byte.

    Returns ``(u, extra)``: ``u`` the ``size`` random bytes, ``extra`` one 24-bit integer
    for each byte of ``u`` from ``_BYTE_STEPS[4]`` up, in the order of the bytes. Only a
    count of the rare bytes is made here (their positions are found in
    :func:`poisson_from_bits`), so this part is short.
    """
    u = rng.bit_generator.random_raw(-(-size // 8)).view(np.uint8)[:size]
    rare = int(np.count_nonzero(u >= _BYTE_STEPS[-1]))
    return u, rng.integers(0, 2**24, rare)


def poisson_from_bits(
    u: np.ndarray, extra: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """The Poisson(1) counts (uint8) given by the draws of :func:`poisson_bits`.

    The comparisons run over blocks of :data:`_BLOCK` bytes that stay in the processor's
    cache (no temporary as large as the data, so no fresh memory per call); the values
    are those of one pass over the whole array. ``out``: a uint8 array of ``u.size`` to
    write the counts into (reused between replicates), else a new one.
    """
    step0, step1, step2, step3, top = _BYTE_STEPS
    counts = np.empty(u.size, dtype=np.uint8) if out is None else out
    flag = np.empty(min(u.size, _BLOCK), dtype=bool)
    rare, rare_bytes = [np.empty(0, dtype=np.intp)], [np.empty(0, dtype=np.uint8)]
    for start in range(0, u.size, _BLOCK):
        part, block = u[start:start + _BLOCK], counts[start:start + _BLOCK]
        is_step = flag[:part.size]
        np.greater_equal(part, step0, out=block.view(bool))
        for step in (step1, step2, step3):
            np.greater_equal(part, step, out=is_step)
            block += is_step.view(np.uint8)
        np.greater_equal(part, top, out=is_step)
        found = sparse_true_positions(is_step)
        rare.append(found + start)
        rare_bytes.append(part.take(found))  # while the block is in the cache
    rare = np.concatenate(rare)
    v = (np.concatenate(rare_bytes).astype(np.int32) - top) << 24 | extra.astype(np.int32)
    bucket = v >> _TOP_SHIFT  # #{k : v >= top_steps[k]} by look-up, compared where split
    rare_counts = _TOP_COUNTS.take(bucket)
    split = np.flatnonzero(_TOP_SPLIT.take(bucket))
    rare_counts[split] = np.searchsorted(_TOP_STEPS, v[split], side="right")
    counts[rare] = rare_counts
    return counts


def sparse_true_positions(flags: np.ndarray) -> np.ndarray:
    """``np.flatnonzero(flags)`` for a contiguous boolean array with few True values.

    numpy finds the True values of an array where fewer than about one in ten is True
    with a branch per value, which the processor mispredicts: about 25 ns per value
    (numpy 2.4), 300 us for the 1.2 % rare bytes of 10^6 Poisson counts. Here the flags
    are read as 64-bit words and the search runs in three denser steps, each above that
    share: the 16-byte chunks holding a True value (17 % of them when 1.2 % of the flags
    are True), their nonzero words (about half), and the flags of those words (13 %).
    Same positions, in the same ascending order, in about three quarters of the time.
    """
    whole = flags.size - flags.size % 16
    words = flags[:whole].view(np.uint64).reshape(-1, 2)
    chunks = np.flatnonzero((words[:, 0] | words[:, 1]) != 0)
    candidates = np.empty((chunks.size, 2), dtype=np.intp)  # the two words of each chunk
    np.multiply(chunks, 2, out=candidates[:, 0])
    np.add(candidates[:, 0], 1, out=candidates[:, 1])
    words, candidates = words.reshape(-1), candidates.reshape(-1)
    nonzero = candidates.take(np.flatnonzero(words.take(candidates) != 0))
    inside = np.flatnonzero(words.take(nonzero).view(bool))
    found = nonzero[inside >> 3] * 8 + (inside & 7)
    if whole == flags.size:
        return found
    return np.concatenate([found, np.flatnonzero(flags[whole:]) + whole])


#: Bytes per block of the vectorised comparisons in :func:`poisson_from_bits` (a quarter
#: of a megabyte: the block and its flags stay in the processor's second-level cache).
_BLOCK = 262_144


#: Masks of the lowest ``r`` bytes of a 64-bit word, r = 0..7.
_LOW_BYTES = np.array([(1 << (8 * r)) - 1 for r in range(8)], dtype=np.uint64)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_BYTE_ONES = np.uint64(0x0101010101010101)
_LANE_ONES = np.uint64(0x0001000100010001)


def _byte_sums(words: np.ndarray, small: bool) -> np.ndarray:
    """Sum of the 8 bytes of each 64-bit word, in int64.

    The product with ``0x0101010101010101`` adds all bytes into the top one (products
    wrap modulo 2**64, which leaves the top byte exact while the sum is below 256): used
    when every byte is below 32 (``small``). Otherwise the odd bytes are first added to
    the even ones, giving four 16-bit lanes of at most 510, and the product with
    ``0x0001000100010001`` adds the lanes into the top one (at most 2040).
    """
    if small:
        return ((words * _BYTE_ONES) >> np.uint64(56)).view(np.int64)
    lanes = (words & _EVEN_BYTES) + ((words >> np.uint64(8)) & _EVEN_BYTES)
    return ((lanes * _LANE_ONES) >> np.uint64(48)).view(np.int64)


class RunningTotals:
    """Reads ``counts[:p].sum()`` at fixed positions ``p`` for many count vectors.

    Parameters
    ----------
    positions : array_like of int
        Where to read, each in ``[0, size]``.
    size : int
        Length of the count vectors.

    Notes
    -----
    Calling the object with integer ``counts`` returns the exact int64 totals. For
    ``uint8`` counts (Poisson bootstrap weights) the bytes are summed eight at a time:
    the counts are read as 64-bit words, each word's byte sum is formed with integer
    masks, shifts and one multiplication (:func:`_byte_sums`), and the running total of
    the words plus the masked low bytes of the word holding ``p`` give the total below
    ``p``. That touches one word per 8 counts instead of writing a running total per
    count. Other integer types take one ``cumsum``.

    When every count is below 32 (Poisson(1) counts of a million trials stay below 15),
    words are first added in groups of eight (64 trials): a byte of such a sum is at most
    ``8 * 31 = 248``, so the 64-bit additions never carry from one byte into the next. The
    partial sums of the group's first ``r`` words are kept for ``r = 0..7``; the running
    total is then taken over the group sums (one per 64 counts, the ``cumsum`` being the
    costly serial step), and the total below ``p`` is the groups before ``p``'s group
    plus the byte sum of (partial sum of the full words before ``p``'s word + the masked
    low bytes of that word), again at most 248 per byte. When no group holds 256 or more
    in all (64 Poisson(1) counts sum to 64 on average), that byte sum is the one
    multiplication of the small case.
    """

    def __init__(self, positions, size: int) -> None:
        self.positions = np.asarray(positions, dtype=np.intp)
        self.size = int(size)
        self.words = self.size // 8
        word, byte = np.divmod(self.positions, 8)
        self._word = word
        self._holding = np.minimum(word, max(self.words - 1, 0))
        self._in_tail = np.flatnonzero(word >= self.words)  # positions in the last part word
        self._mask = _LOW_BYTES[byte]
        self.groups = self.words // 8  # full groups of 8 words (see _grouped)
        group, word_in_group = np.divmod(word, 8)
        self._group = group
        self._partial = word_in_group * (self.groups + 1) + group  # into (8, groups + 1)
        in_groups = word < 8 * self.groups
        self._grouped_word = np.where(in_groups, word, 0)
        self._after_groups = np.flatnonzero(~in_groups)  # read from the last, partial group
        self._word_after = word[self._after_groups] - 8 * self.groups

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        if counts.size != self.size:
            raise ValueError(f"expected {self.size} counts, got {counts.size}")
        m = self.words
        if counts.dtype != np.uint8 or m == 0:
            cum = np.zeros(counts.size + 1, dtype=np.int64)
            np.cumsum(counts, out=cum[1:])
            return cum[self.positions]
        counts = np.ascontiguousarray(counts)
        small = int(counts.max()) < 32
        if small and self.groups:
            return self._grouped(counts)
        words = counts[: 8 * m].view("<u8")
        cum = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(_byte_sums(words, small), out=cum[1:])
        holding = words[self._holding]
        if self._in_tail.size:
            last = np.zeros(8, dtype=np.uint8)  # the counts after the last full word
            last[: counts.size - 8 * m] = counts[8 * m:]
            holding[self._in_tail] = last.view("<u8")[0]
        return cum[self._word] + _byte_sums(holding & self._mask, small)

    def _grouped(self, counts: np.ndarray) -> np.ndarray:
        """The totals of uint8 ``counts`` all below 32, by groups of 8 words (see the class)."""
        g = self.groups
        words = counts[: 64 * g].view("<u8").reshape(g, 8)
        last = np.zeros(8, dtype=np.uint64)  # the words after the full groups, zero-padded
        last.view(np.uint8)[: counts.size - 64 * g] = counts[64 * g:]
        partial = np.empty((8, g + 1), dtype=np.uint64)  # [r, j]: words 0..r-1 of group j
        partial[0] = 0
        for r in range(1, 8):
            np.add(partial[r - 1, :g], words[:, r - 1], out=partial[r, :g])
        partial[1:, g] = np.cumsum(last[:7])
        group_totals = _byte_sums(partial[7, :g] + words[:, 7], False)
        cum = np.zeros(g + 1, dtype=np.int64)
        np.cumsum(group_totals, out=cum[1:])
        holding = words.reshape(-1).take(self._grouped_word)
        holding[self._after_groups] = last[self._word_after]
        holding &= self._mask
        holding += partial.reshape(-1).take(self._partial)
        small = int(group_totals.max(initial=0)) + int(last.view(np.uint8).sum()) < 256
        return cum.take(self._group) + _byte_sums(holding, small)


@dataclass(frozen=True, eq=False)
class SourceSplit:
    """One cross-validation split: indices into the SS and DS arrays."""

    train_ss: np.ndarray
    train_ds: np.ndarray
    test_ss: np.ndarray
    test_ds: np.ndarray

    def to_dict(self) -> dict:
        names = ("train_ss", "train_ds", "test_ss", "test_ds")
        return {k: getattr(self, k).tolist() for k in names}


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
            raise InputError(
                f"leaving out source fold(s) {sorted({int(f), int(g)})} leaves "
                f"{train_ss.size} SS and {train_ds.size} DS training trials (at least 2 of "
                "each needed); use fewer folds or add sources"
            )
        splits.append(SourceSplit(train_ss, train_ds, test_ss, test_ds))
    return tuple(splits)


def fold_ids(size: int, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number of each item: a random permutation dealt round-robin into ``folds`` parts."""
    ids = np.empty(size, dtype=np.intp)
    ids[rng.permutation(size)] = np.arange(size) % folds
    return ids
