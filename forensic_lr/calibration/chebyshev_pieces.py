"""Weighted sums over many sorted scores, as sums over a few Chebyshev nodes.

A bootstrap replicate weights the same distinct scores by its draw counts, and a fit of it
needs sums ``sum_i w_i f(u_i)`` of smooth functions of the score, again and again (each
Newton step, for new parameters). On an interval where ``f`` equals its polynomial
interpolant ``p`` at the ``K + 1`` Chebyshev points to the rounding level, the sum equals
``sum_j Q_j f(x_j)`` over the nodes ``x_j``, with node weights ``Q_j = sum_i w_i l_j(u_i)``
(``l_j`` the Lagrange basis polynomials): ``Q`` is one product of the weights with a fixed
table, and any ``f``'s sum then costs ``K + 1`` evaluations per interval instead of one per
score. :func:`chebyshev_pieces` splits the sorted scores into intervals on which the
functions of a given problem are interpolated to a tolerance, keeping the scores themselves
where they are few, and :meth:`ChebyshevPieces.tail` estimates, for other parameters, how
far each interval's interpolant is from its function (the size of its last Chebyshev
coefficients), so that a fit can check that its node sums were exact.

References: L. N. Trefethen, *Approximation Theory and Approximation Practice*, SIAM, 2013:
ch. 2 (Chebyshev points), 3 (Chebyshev coefficients), 5 (barycentric interpolation) and 8
(geometric convergence for analytic functions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .exact_products import exact_sum_split

#: Polynomial degree ``K`` on each interval (``K + 1`` Chebyshev points of the second kind).
DEGREE = 16
#: An interval of at most this many scores keeps its scores as nodes (no interpolation).
EXACT_UP_TO = 2 * (DEGREE + 1)
#: Most intervals per set of scores; beyond it the functions are too rough to be worth it.
MAX_PIECES = 512

_J = np.arange(DEGREE + 1)
#: Chebyshev points of the second kind ``cos(pi j / K)`` and their barycentric weights
#: ``(-1)^j``, halved at both ends [Trefethen, ch. 5].
_POINTS = np.cos(np.pi * _J / DEGREE)
_BARY = np.where(_J % 2 == 0, 1.0, -1.0) * np.where((_J == 0) | (_J == DEGREE), 0.5, 1.0)
#: The last two Chebyshev coefficients from the values at the points:
#: ``a_k = (2 / K) sum''_j f(x_j) cos(pi k j / K)`` (first and last terms halved, and
#: ``a_K`` halved once more) [Trefethen, ch. 3].
_TAIL = (2.0 / DEGREE) * np.cos(np.pi * np.outer(_J, [DEGREE - 1, DEGREE]) / DEGREE)
_TAIL[[0, -1]] *= 0.5
_TAIL[:, 1] *= 0.5


def lagrange_table(t: np.ndarray) -> np.ndarray:
    """Lagrange basis ``l_j(t)`` of the Chebyshev points at ``t`` in ``[-1, 1]``, ``(n, K + 1)``.

    Barycentric formula of the second kind, ``l_j(t) = (b_j / (t - x_j)) /
    sum_k b_k / (t - x_k)``, exact (a unit row) at the points themselves. Entries lie
    within about ``[-1.03, 1.03]`` (tested at ``K = 16``).
    """
    diff = t[:, None] - _POINTS[None, :]
    at_node = diff == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = _BARY / diff
        table = terms / np.sum(terms, axis=1, keepdims=True)
    hit = at_node.any(axis=1)
    table[hit] = at_node[hit]
    return table


@dataclass(frozen=True, eq=False)
class ChebyshevPieces:
    """Sorted scores cut into consecutive runs, each summed through its nodes.

    Attributes
    ----------
    nodes : ndarray, shape (M,)
        Where the functions are evaluated: ``K + 1`` Chebyshev points per interpolated run,
        the scores themselves in a run kept exact.
    runs : tuple of (start, stop, first_node, table or None)
        Scores ``start:stop`` map to nodes ``first_node:`` through ``table`` (their
        Lagrange rows halved, split for exact products by
        :func:`~forensic_lr.calibration.exact_products.exact_sum_split`), or one to one.
    """

    nodes: np.ndarray
    runs: tuple

    @property
    def interpolated(self) -> np.ndarray:
        """Index of the first node of each interpolated run."""
        return np.array([first for _, _, first, table in self.runs if table is not None],
                        dtype=np.intp)

    def node_weights(self, counts: np.ndarray, total: int) -> np.ndarray:
        """``Q = counts @ L`` per row of ``counts`` (integer draw counts summing to ``total``).

        The products are exact (the table is split so, whatever the order of summation),
        so ``Q`` is the same on every machine and thread count.
        """
        out = np.empty((counts.shape[0], self.nodes.size))
        for start, stop, first, table in self.runs:
            if table is None:
                out[:, first : first + stop - start] = counts[:, start:stop]
                continue
            parts = counts[:, start:stop] @ table
            out[:, first : first + DEGREE + 1] = 2.0 * (parts[:, : DEGREE + 1]
                                                        + parts[:, DEGREE + 1 :])
        return out

    def tail(self, values: np.ndarray) -> np.ndarray:
        """``|a_{K-1}| + |a_K|`` of each interpolated run, from function values at the nodes.

        ``values`` has the nodes on its last axis; the result has one entry per interpolated
        run there instead. For a function analytic near the run the coefficients fall
        geometrically, and the interpolation error is about the size of the last ones
        [Trefethen, ch. 8].
        """
        first = self.interpolated
        at = values[..., first[:, None] + _J]
        return np.sum(np.abs(at @ _TAIL), axis=-1)


def chebyshev_pieces(
    values: np.ndarray, functions: Callable[[np.ndarray], np.ndarray], tol: np.ndarray,
    tail_tol: np.ndarray, total: int,
) -> ChebyshevPieces | None:
    """Cut sorted distinct ``values`` so that every run's interpolant meets ``tol``.

    Parameters
    ----------
    values : ndarray, shape (n,)
        Sorted distinct scores.
    functions : callable
        ``functions(x)`` gives the functions to be summed at the points ``x``, shape
        ``(F, len(x))``.
    tol : ndarray, shape (F,)
        Largest interpolation error allowed for each function at any score.
    tail_tol : ndarray, shape (F,)
        Largest estimate :meth:`ChebyshevPieces.tail` allowed for each function.
    total : int
        Largest sum of a row of the counts :meth:`ChebyshevPieces.node_weights` will take
        (the number of draws).

    Returns
    -------
    ChebyshevPieces or None
        None where more than :data:`MAX_PIECES` runs would be needed.

    Notes
    -----
    A run of more than :data:`EXACT_UP_TO` scores is interpolated on ``[first, last]`` of
    its scores and the error checked at every one of them, and its tail estimate; where
    either is too large the run
    is halved at the middle of that interval (bisection, as adaptive Chebyshev
    approximation does [Trefethen, ch. 3]). Each level of halving looks at every score
    once.
    """
    todo, done = [(0, values.size)], []
    while todo:
        start, stop = todo.pop()
        if stop - start <= EXACT_UP_TO:
            done.append((start, stop, None))
            continue
        low, high = values[start], values[stop - 1]
        t = (2.0 * values[start:stop] - (low + high)) / (high - low)
        table = lagrange_table(t)
        nodes = low + (high - low) * (_POINTS + 1.0) / 2.0
        at_nodes = functions(nodes)
        error = np.max(np.abs(functions(values[start:stop]) - at_nodes @ table.T), axis=1)
        if np.all(error <= tol) and np.all(np.sum(np.abs(at_nodes @ _TAIL), axis=1) <= tail_tol):
            done.append((start, stop, table))
            continue
        if len(done) + len(todo) + 2 > MAX_PIECES:
            return None
        middle = start + int(np.searchsorted(values[start:stop], (low + high) / 2.0))
        todo += [(middle, stop), (start, middle)]
    done.sort(key=lambda run: run[0])
    runs, nodes, first = [], [], 0
    for start, stop, table in done:
        if table is None:
            runs.append((start, stop, first, None))
            nodes.append(values[start:stop])
            first += stop - start
        else:
            low, high = values[start], values[stop - 1]
            # halved (exactly) to entries within [-1, 1], as the exact split needs
            runs.append((start, stop, first, exact_sum_split(table / 2.0, total)))
            nodes.append(low + (high - low) * (_POINTS + 1.0) / 2.0)
            first += DEGREE + 1
    return ChebyshevPieces(np.concatenate(nodes), tuple(runs))
