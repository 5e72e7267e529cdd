"""Products of draw counts with a fixed table, exact in float64 on every machine.

The bootstrap hooks that take moments or node weights of many replicates form them as one
matrix product of the replicates' draw counts with a table fixed by the background. A
floating-point product's last bits depend on the order of its sums, which BLAS chooses by
blocking and number of threads; :func:`exact_sum_split` splits the table so that every
partial sum is exact, and the result is the same bits whatever that order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exact_sum_split"]


def exact_sum_split(table: np.ndarray, total: int) -> np.ndarray:
    """``[T1, T2]`` with ``T1 + T2 = table`` to 2^-(2p+1), whose products with counts are exact.

    For entries ``|T| <= 1`` and rows of non-negative integer counts summing to at most
    ``total < 2^p'``: ``T1`` is ``table`` rounded to a multiple of ``2^-p`` and ``T2`` the
    remainder rounded to a multiple of ``2^-2p``, with ``p = 52 - ceil(log2(total + 1))``.
    Every partial sum of ``counts @ T1`` is then an integer multiple of ``2^-p`` below
    ``total`` (fewer than 53 significant bits), and likewise for ``T2``, so both products
    are exact in float64 whatever the order of summation (BLAS blocking, number of
    threads); ``counts @ T1 + counts @ T2`` rounded once is the moment to the rounding
    unit, the same on every machine.
    """
    unit = 2.0 ** (52 - int(np.ceil(np.log2(total + 1))))  # scaling by it is exact
    out = np.empty((table.shape[0], 2 * table.shape[1]))
    first, second = out[:, : table.shape[1]], out[:, table.shape[1] :]
    np.multiply(table, unit, out=second)  # the scaled table, in place (no temporary)
    np.rint(second, out=first)
    second -= first  # exact: the rounding error of each entry
    second *= unit
    np.rint(second, out=second)
    first /= unit
    second /= unit * unit
    return out
