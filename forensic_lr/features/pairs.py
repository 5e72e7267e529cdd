"""Comparisons built from a measurement table: same-source and different-source pairs.

A comparison sets one *unit* of measurements against another: a row, an item (its
replicate rows averaged), or half of a source's rows. Each pair keeps both units' source
ids, so that cross-validation folds and bootstrap draws go by source
(:func:`forensic_lr.resampling.source_folds`): no source is then on both the training and
the test side of a split. Pairs are built with array operations, never a loop over pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..defaults import DEFAULT_SEED
from ..errors import InputError
from ..records import Serialisable
from ..resampling import source_folds
from .measurements import Measurements

__all__ = ["Pairs", "Units", "fold_tests", "make_pairs", "out_of_fold", "pair_units",
           "split_by_sources", "units_of"]

UnitKind = Literal["row", "item", "source", "whole"]


@dataclass(frozen=True, eq=False)
class Units(Serialisable):
    """The units a comparison sets against each other.

    Attributes
    ----------
    means : numpy.ndarray
        ``(u, d)``: each unit's mean feature values (its replicates averaged).
    counts : numpy.ndarray
        ``(u,)``: replicate rows per unit.
    sources : numpy.ndarray
        ``(u,)`` str: each unit's source.
    unit_of_row : numpy.ndarray
        ``(n,)``: the unit of each row of the measurement table.
    """

    means: np.ndarray
    counts: np.ndarray
    sources: np.ndarray
    unit_of_row: np.ndarray


def _groups(m: Measurements, by: UnitKind) -> np.ndarray:
    """The unit number of each row (0..u-1, in order of first appearance by key)."""
    n = m.sources.size
    if by == "row":
        return np.arange(n)
    if by == "item":
        keys = np.char.add(np.char.add(m.sources, "\x1f"), m.items)
        return np.unique(keys, return_inverse=True)[1].reshape(-1)
    if by == "whole":
        return np.unique(m.sources, return_inverse=True)[1].reshape(-1)
    if by == "source":
        # each source's rows in file order, the first ceil(k/2) one unit, the rest another
        codes = np.unique(m.sources, return_inverse=True)[1].reshape(-1)
        order = np.argsort(codes, kind="stable")
        sorted_codes = codes[order]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        sizes = np.diff(np.r_[starts, n])
        rank = np.arange(n) - np.repeat(starts, sizes)
        half = np.empty(n, dtype=np.intp)
        half[order] = rank >= np.repeat((sizes + 1) // 2, sizes)
        return np.unique(codes * 2 + half, return_inverse=True)[1].reshape(-1)
    raise InputError(f"unit must be 'row', 'item' or 'source'; got {by!r}")


def units_of(m: Measurements, by: UnitKind = "item") -> Units:
    """The units of a measurement table.

    Parameters
    ----------
    m : Measurements
    by : {"row", "item", "source", "whole"}
        ``"row"``: every measurement; ``"item"`` (default): the rows of one item (its
        replicates) averaged; ``"source"``: each source's rows split in two halves in
        table order (the first ``ceil(k/2)`` and the rest), each half averaged, so that
        a source gives one same-source comparison of its two halves; ``"whole"``: all
        rows of a source averaged (a case item's measurements, for its comparisons).
    """
    unit = _groups(m, by)
    u = int(unit.max()) + 1
    counts = np.bincount(unit, minlength=u)
    sums = np.zeros((u, m.values.shape[1]))
    np.add.at(sums, unit, m.values)
    sources = np.empty(u, dtype=m.sources.dtype)
    sources[unit] = m.sources
    return Units(sums / counts[:, None], counts, sources, unit)


@dataclass(frozen=True, eq=False)
class Pairs(Serialisable):
    """Comparisons of units: ``first[k]`` against ``second[k]``.

    Attributes
    ----------
    first, second : numpy.ndarray
        ``(p,)`` unit indices, ``first < second``.
    same : numpy.ndarray
        ``(p,)`` bool: same source (Hp true).
    sources : numpy.ndarray
        ``(p, 2)`` str: the two units' sources.
    different_total : int
        Different-source pairs there are in all (more than kept when they were sampled).
    """

    first: np.ndarray
    second: np.ndarray
    same: np.ndarray
    sources: np.ndarray
    different_total: int

    @property
    def ss_sources(self) -> np.ndarray:
        """``(n_ss, 2)`` source ids of the same-source pairs (both equal)."""
        return self.sources[self.same]

    @property
    def ds_sources(self) -> np.ndarray:
        """``(n_ds, 2)`` source ids of the different-source pairs."""
        return self.sources[~self.same]

    @property
    def sampled(self) -> bool:
        """Whether the different-source pairs are a sample of all of them."""
        return int((~self.same).sum()) < self.different_total

    def select(self, mask: np.ndarray) -> Pairs:
        """The pairs where ``mask`` holds (``different_total`` unchanged)."""
        return Pairs(self.first[mask], self.second[mask], self.same[mask],
                     self.sources[mask], self.different_total)


def _same_source_pairs(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(i, j)``, ``i < j``, of units with the same code, without a loop.

    Units sorted by code form one block per code; the unit at sorted position ``p`` of a
    block ending at ``e`` pairs with positions ``p+1 .. e-1``.
    """
    n = codes.size
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    ends = np.repeat(np.r_[starts[1:], n], np.diff(np.r_[starts, n]))
    after = ends - np.arange(n) - 1
    total = int(after.sum())
    offsets = np.arange(total) - np.repeat(np.cumsum(after) - after, after)
    a = order[np.repeat(np.arange(n), after)]
    b = order[np.repeat(np.arange(n) + 1, after) + offsets]
    return np.minimum(a, b), np.maximum(a, b)


def _from_linear(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-major index ``k`` of the upper triangle (``i < j``) of an ``n x n`` matrix ->
    ``(i, j)``; row ``i`` starts at ``i (2n - i - 1) / 2``."""
    rows = np.arange(n - 1, dtype=np.int64)
    starts = rows * (2 * n - rows - 1) // 2
    i = np.searchsorted(starts, k, side="right") - 1
    return i, k - starts[i] + i + 1


def _different_source_pairs(codes: np.ndarray, n_ss: int, max_ds: int | None,
                            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """All different-source pairs, or ``max_ds`` of them drawn without replacement."""
    n = codes.size
    total_pairs = n * (n - 1) // 2
    total_ds = total_pairs - n_ss
    if max_ds is None or total_ds <= max_ds:
        i, j = np.triu_indices(n, 1)
        keep = codes[i] != codes[j]
        return i[keep], j[keep], total_ds
    draw = min(total_pairs, int(max_ds * total_pairs / total_ds * 1.05) + 64)
    while True:  # at most a few rounds: each draw holds enough DS pairs on average
        k = rng.choice(total_pairs, size=draw, replace=False)
        i, j = _from_linear(k, n)
        keep = np.flatnonzero(codes[i] != codes[j])[:max_ds]
        if keep.size == max_ds:
            chosen = np.sort(k[keep])
            i, j = _from_linear(chosen, n)
            return i, j, total_ds
        draw = min(total_pairs, draw * 2)


def make_pairs(sources, *, max_different: int | None = None,
               seed: int = DEFAULT_SEED) -> Pairs:
    """All same-source pairs and all (or a seeded sample of) different-source pairs.

    Parameters
    ----------
    sources : array_like
        ``(u,)`` the source of each unit (:attr:`Units.sources`).
    max_different : int, optional
        Keep at most this many different-source pairs, drawn uniformly without replacement
        with ``seed`` (default: all of them).
    seed : int
        Seed of that draw.

    Returns
    -------
    Pairs
        Same-source pairs first, then different-source pairs, each in order of
        ``(first, second)``.

    Notes
    -----
    ``u`` units of which ``u_s`` come from source ``s`` give ``sum_s u_s (u_s - 1) / 2``
    same-source and ``u (u - 1) / 2`` minus that different-source pairs. The sample is
    drawn from the row-major indices of the upper triangle of the ``u x u`` comparison
    matrix (never built when sampling), keeping the first ``max_different`` that join two
    sources.
    """
    src = np.asarray(sources).astype(str)
    if src.ndim != 1 or src.size < 2:
        raise InputError(f"pairs need at least 2 units with one source id each; got shape "
                         f"{src.shape}")
    if max_different is not None and (isinstance(max_different, bool) or max_different < 1):
        raise InputError(f"max_different must be a whole number >= 1 or None; got "
                         f"{max_different!r}")
    codes = np.unique(src, return_inverse=True)[1].reshape(-1)
    ss_i, ss_j = _same_source_pairs(codes)
    order = np.lexsort((ss_j, ss_i))
    ss_i, ss_j = ss_i[order], ss_j[order]
    ds_i, ds_j, total_ds = _different_source_pairs(codes, ss_i.size, max_different,
                                                    np.random.default_rng(seed))
    first, second = np.r_[ss_i, ds_i].astype(np.intp), np.r_[ss_j, ds_j].astype(np.intp)
    same = np.r_[np.ones(ss_i.size, bool), np.zeros(ds_i.size, bool)]
    return Pairs(first, second, same, np.column_stack([src[first], src[second]]),
                 int(total_ds))


def pair_units(m: Measurements, by: UnitKind = "item", *, max_different: int | None = None,
               seed: int = DEFAULT_SEED) -> tuple[Units, Pairs]:
    """:func:`units_of` a table and :func:`make_pairs` of its units."""
    units = units_of(m, by)
    pairs = make_pairs(units.sources, max_different=max_different, seed=seed)
    if not pairs.same.any():
        raise InputError(f"no same-source pairs: no source has two {by}s; measure some "
                         "sources more than once (or compare rows: unit = 'row')")
    return units, pairs


def split_by_sources(pairs: Pairs, test_sources) -> tuple[np.ndarray, np.ndarray]:
    """``(train, test)`` masks of the pairs for a split of the sources.

    A test pair has both sources among ``test_sources``, a training pair neither; a pair
    joining a test and a training source is in neither (it would mix the two sides).
    """
    in_test = np.isin(pairs.sources, np.asarray(test_sources).astype(str))
    return ~in_test.any(axis=1), in_test.all(axis=1)


def out_of_fold(fit: Callable[[Measurements], Any],
                compare: Callable[[Any, Units, Pairs], np.ndarray], m: Measurements,
                units: Units, pairs: Pairs, *, folds: int | None = 5,
                seed: int = DEFAULT_SEED) -> np.ndarray:
    """Each pair's value from a model fitted without its sources.

    The pairs are split by :func:`~forensic_lr.resampling.source_folds` (by their two
    source ids, the folds of a case's validation); for each split ``fit`` gets the
    measurements of every source that no test pair of the split involves, and
    ``compare(fitted, units, test_pairs)`` gives the test pairs' values.
    """
    out = np.full(pairs.same.size, np.nan)
    for test, held_out in fold_tests(pairs, folds=folds, seed=seed):
        train = m.select(~np.isin(m.sources, held_out))
        out[test] = compare(fit(train), units, pairs.select(test))
    return out


def fold_tests(pairs: Pairs, *, folds: int | None = 5,
               seed: int = DEFAULT_SEED) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(test, held_out)`` of each split of :func:`out_of_fold`: the indices of its test
    pairs and the sources they involve, which the split's model is fitted without."""
    ss_index, ds_index = np.flatnonzero(pairs.same), np.flatnonzero(~pairs.same)
    out = []
    for split in source_folds(pairs.ss_sources, pairs.ds_sources, folds=folds, seed=seed):
        test = np.r_[ss_index[split.test_ss], ds_index[split.test_ds]]
        out.append((test, np.unique(pairs.sources[test])))
    return out
