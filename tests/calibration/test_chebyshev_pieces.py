"""Sums over sorted scores through Chebyshev nodes equal the sums over the scores.

References: numpy's own Chebyshev least-squares fit (a different algorithm: at K + 1 points
it is the interpolant) and direct sums over the scores.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import chebyshev

from forensic_lr.calibration.chebyshev_pieces import (
    DEGREE,
    EXACT_UP_TO,
    MAX_PIECES,
    chebyshev_pieces,
    lagrange_table,
)

POINTS = np.cos(np.pi * np.arange(DEGREE + 1) / DEGREE)


def test_lagrange_rows_are_the_interpolant_of_numpys_chebyshev_fit():
    rng = np.random.default_rng(0)
    t = np.r_[rng.uniform(-1, 1, 500), POINTS, -1.0, 1.0]
    table = lagrange_table(t)
    for f in (np.exp, lambda x: 1 / (1 + 4 * x * x), np.sin):
        fitted = chebyshev.Chebyshev.fit(POINTS, f(POINTS), DEGREE, domain=[-1, 1])
        np.testing.assert_allclose(table @ f(POINTS), fitted(t), atol=1e-13)
    np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-14)
    # at the points themselves: unit rows, exactly
    assert np.array_equal(table[500:500 + DEGREE + 1], np.eye(DEGREE + 1))
    assert np.abs(lagrange_table(np.linspace(-1, 1, 20001))).max() <= 1.05


def _sorted_scores(rng, n, ties=False):
    x = np.sort(rng.normal(0.0, 1.5, n))
    return np.unique(np.round(x, 2)) if ties else x


def test_runs_meet_the_tolerance_at_every_score():
    rng = np.random.default_rng(1)
    x = _sorted_scores(rng, 20000)

    def functions(p):
        return np.stack([np.tanh(3 * p), np.log1p(np.exp(2 * p)), p * np.exp(-p * p)])

    tol = np.full(3, 1e-12)
    pieces = chebyshev_pieces(x, functions, tol, np.full(3, 1e-10), total=x.size)
    assert pieces is not None and pieces.nodes.size < x.size / 20
    covered = np.concatenate([np.arange(a, b) for a, b, _, _ in pieces.runs])
    assert np.array_equal(covered, np.arange(x.size))  # every score in one run, in order
    for start, stop, first, table in pieces.runs:
        if table is None:
            assert np.array_equal(pieces.nodes[first : first + stop - start], x[start:stop])
            continue
        low, high = x[start], x[stop - 1]
        nodes = pieces.nodes[first : first + DEGREE + 1]
        np.testing.assert_allclose(nodes, low + (high - low) * (POINTS + 1) / 2, rtol=1e-15)
        exact = functions(x[start:stop])
        for at_nodes, at_scores in zip(functions(nodes), exact, strict=True):
            # numpy's fit through the nodes, at the run's scores
            fitted = chebyshev.Chebyshev.fit(nodes, at_nodes, DEGREE, domain=[low, high])
            assert np.max(np.abs(at_scores - fitted(x[start:stop]))) <= 1e-12


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4000), k=st.integers(1, 5),
       ties=st.booleans())
def test_node_weights_give_the_sums_over_the_scores(seed, n, k, ties):
    rng = np.random.default_rng(seed)
    x = _sorted_scores(rng, n, ties)

    def functions(p):
        return np.stack([np.sin(p), np.exp(0.3 * p)])

    pieces = chebyshev_pieces(x, functions, np.full(2, 1e-13), np.full(2, 1e-11), total=n)
    counts = rng.multinomial(n, np.full(x.size, 1 / x.size), size=k).astype(np.float64)
    q = pieces.node_weights(counts, n)
    want = counts @ functions(x).T  # (k, 2): the sums over the scores
    got = q @ functions(pieces.nodes).T
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-10 * n)
    # the weights of each run add up to the run's draws (the Lagrange rows sum to 1)
    np.testing.assert_allclose(q.sum(axis=1), counts.sum(axis=1), rtol=1e-13)
    # a polynomial of degree K on each run is summed exactly (to the rounding level)
    cubic = x**3 - 2 * x
    np.testing.assert_allclose(q @ (pieces.nodes**3 - 2 * pieces.nodes), counts @ cubic,
                               rtol=1e-12, atol=1e-9 * n)


def test_node_weights_do_not_depend_on_the_order_of_summation():
    """The exact split makes ``counts @ table`` independent of BLAS blocking and threads."""
    rng = np.random.default_rng(2)
    x = _sorted_scores(rng, 30000)
    pieces = chebyshev_pieces(x, lambda p: np.stack([np.tanh(p)]), np.array([1e-13]),
                              np.array([1e-11]), total=x.size)
    counts = rng.multinomial(x.size, np.full(x.size, 1 / x.size), size=7).astype(np.float64)
    whole = pieces.node_weights(counts, x.size)
    one_by_one = np.vstack([pieces.node_weights(row[None], x.size) for row in counts])
    reversed_rows = pieces.node_weights(counts[::-1], x.size)[::-1]
    assert np.array_equal(whole, one_by_one) and np.array_equal(whole, reversed_rows)


def test_tail_is_the_last_chebyshev_coefficients():
    rng = np.random.default_rng(3)
    x = _sorted_scores(rng, 2000)
    pieces = chebyshev_pieces(x, lambda p: np.stack([np.exp(p)]), np.array([1e-13]),
                              np.array([1e-11]), total=x.size)
    first = pieces.interpolated
    assert first.size >= 1
    coef = rng.normal(size=(4, DEGREE + 1))  # known coefficients on each run's interval
    values = np.zeros((4, pieces.nodes.size))
    for start, stop, at, table in pieces.runs:
        if table is not None:
            low, high = x[start], x[stop - 1]
            t = (2 * pieces.nodes[at : at + DEGREE + 1] - low - high) / (high - low)
            values[:, at : at + DEGREE + 1] = np.stack([chebyshev.chebval(t, c) for c in coef])
    tail = pieces.tail(values)
    want = np.abs(coef[:, -2]) + np.abs(coef[:, -1])
    np.testing.assert_allclose(tail, np.repeat(want[:, None], first.size, axis=1), rtol=1e-9)


def test_rough_functions_give_up_and_few_scores_stay_exact():
    x = np.linspace(-1, 1, 50000)  # oscillations far finer than the scores' spacing
    assert chebyshev_pieces(x, lambda p: np.stack([np.sin(1e6 * p)]), np.array([1e-13]),
                            np.array([1e-11]), total=x.size) is None
    few = np.linspace(0, 1, EXACT_UP_TO)
    pieces = chebyshev_pieces(few, lambda p: np.stack([p]), np.array([1e-13]),
                              np.array([1e-11]), total=few.size)
    assert np.array_equal(pieces.nodes, few) and pieces.interpolated.size == 0
    assert MAX_PIECES >= 2


@pytest.mark.parametrize("total", [10, 10**6])
def test_exact_products_hold_for_the_largest_counts(total):
    x = np.linspace(-3, 3, 500)
    pieces = chebyshev_pieces(x, lambda p: np.stack([np.sin(p)]), np.array([1e-13]),
                              np.array([1e-11]), total=total)
    counts = np.zeros((1, x.size))
    counts[0, 123] = total  # every draw on one score
    q = pieces.node_weights(counts, total)
    np.testing.assert_allclose(q @ np.sin(pieces.nodes), total * np.sin(x[123]), rtol=1e-13)
