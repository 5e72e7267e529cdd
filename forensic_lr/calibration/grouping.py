"""Weighted scores pooled into groups of neighbours: a cheap stand-in for a warm start.

The S-cal and Student-t fits solve their objective first on a few thousand groups of
neighbouring (sorted) scores, and the S-cal bootstrap hook each replicate on a few hundred;
each group is replaced by two points that keep its weight, mean and variance (:func:`pool`).
They then finish with exact Newton steps on every distinct score from that start. The grouped
objective is not the exact one; it only has to put the start within the region where Newton's
method on the exact objective converges quadratically, so the answer is the exact optimum
whatever the grouping (by Taylor's theorem, ``sum_i w_i f(x_i)`` over a group equals
``W f(m) + f''(m) W v / 2 + f^(3)(m) M_3 / 6 + ...`` with its weight ``W``, mean ``m``,
variance ``v`` and third central moment ``M_3``: the two points keep the first two terms).
"""

from __future__ import annotations

import numpy as np

#: Number of scores from which ``fit`` (S-cal: both classes; Student-t: one class) starts
#: from a grouped solution. Below it the groups would be nearly the scores themselves, and
#: the direct path is cheap.
GROUPED_FROM = 2000
#: Most groups per class by count for the warm starts of ``fit`` (S-cal, Student-t) ...
FIT_GROUPS = 256
#: ... and widest group in ``arcsinh`` of the standardised score.
WIDTH = 0.005


def distinct_weights(values: np.ndarray, weight: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct ``values`` and how many times each occurs (as float64), or, with
    ``weight``, the summed weight of each."""
    if weight is None:
        distinct, counts = np.unique(values, return_counts=True)
        return distinct, counts.astype(np.float64)
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, np.bincount(inverse, weights=weight, minlength=distinct.size)


def group_starts(values: np.ndarray, groups: int = FIT_GROUPS, width: float = WIDTH) -> np.ndarray:
    """First index of each group of neighbours among the sorted standardised ``values``.

    A new group starts where the rank crosses a multiple of ``n / groups`` (so no group holds
    more than about ``n / groups`` values) or where ``arcsinh(values)`` crosses a multiple of
    ``width`` (so no group is wider than ``width`` near 0, nor wider than a share ``width``
    of its distance from 0 far out: far outliers are not pooled with the bulk). At most
    ``groups + 2 arcsinh(max |v|) / width`` groups (about 6000 for ``|v| <= 10^6``).
    """
    n = values.size
    by_rank = (np.arange(n) * min(groups, n)) // n
    by_value = np.floor(np.arcsinh(values) / width)
    change = (np.diff(by_rank) != 0) | (np.diff(by_value) != 0)
    return np.r_[0, np.flatnonzero(change) + 1]


def pool(values: np.ndarray, weights: np.ndarray, starts: np.ndarray):
    """Two weighted points per run of sorted ``values``, with its weight, mean and variance.

    Parameters
    ----------
    values : ndarray, shape (n,)
        Sorted scores.
    weights : ndarray, shape (n,) or (k, n)
        Non-negative weights (one row per weighting).
    starts : ndarray of int
        From :func:`group_starts`.

    Returns
    -------
    points, totals : ndarray, shape (2 G,) or (k, 2 G)
        For group ``g`` with total weight ``W_g = sum_{i in g} w_i``, weighted mean
        ``m_g`` and weighted variance ``v_g``: the points ``m_g - sqrt(v_g)`` and
        ``m_g + sqrt(v_g)`` (first the G lower, then the G upper points), each weighing
        ``W_g / 2`` (a group of weight 0 gets its plain centre twice). They keep the
        weight, mean and variance of every group, so a smooth objective
        ``sum_i w_i f(x_i)`` changes by ``f^(3) / 6`` times the group's third central
        moment plus ``O(f^(4) h^4)``: ``O(h^3)`` for groups of width ``h``, and much less
        where a group is nearly symmetric (most groups of a smooth density); pooling each
        group at its mean alone would change it by ``f''/2`` times the variance, ``O(h^2)``.
    """
    ends = np.r_[starts[1:], values.size]
    centre = (values[starts] + values[ends - 1]) / 2
    dev = values - np.repeat(centre, ends - starts)  # centred in each group: no cancellation
    totals = np.add.reduceat(weights, starts, axis=-1)
    first = np.add.reduceat(weights * dev, starts, axis=-1)
    second = np.add.reduceat(weights * dev * dev, starts, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = np.where(totals > 0, first / totals, 0.0)
        spread = np.sqrt(np.maximum(np.where(totals > 0, second / totals, 0.0) - shift**2, 0.0))
    mean = centre + shift
    half = totals / 2
    return (np.concatenate([mean - spread, mean + spread], axis=-1),
            np.concatenate([half, half], axis=-1))
