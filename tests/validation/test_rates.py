"""Exact binomial (Clopper-Pearson) intervals of counted rates.

Reference values: scipy.stats.binomtest(k, n).proportion_ci(level, method="exact")
(scipy >= 1.7), an implementation through the binomial tail sums; and the closed form
1 - (alpha/2)^(1/n) of the upper end for 0 of n.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, binomtest

from forensic_lr.errors import InputError
from forensic_lr.metrics import rmed, rmep
from forensic_lr.validation.rates import clopper_pearson, misleading_rates


def test_zero_of_twelve_is_at_most_26_5_percent():
    low, high = clopper_pearson(0, 12, 0.95)
    assert low == 0.0
    assert high == pytest.approx(1 - 0.025 ** (1 / 12), abs=1e-15)
    assert f"{100 * high:.1f}" == "26.5"


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 400), data=st.data(),
       level=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_equals_scipy_binomtest(n, data, level):
    k = data.draw(st.integers(0, n))
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    low, high = clopper_pearson(k, n, level)
    assert low == pytest.approx(ci.low, abs=1e-10)
    assert high == pytest.approx(ci.high, abs=1e-10)


@pytest.mark.parametrize(("k", "n"), [(1, 12), (3, 40), (139, 3000), (11, 12)])
def test_ends_solve_the_binomial_tail_equations(k, n):
    # Definition: P(X >= k | p_low) = alpha/2 and P(X <= k | p_high) = alpha/2.
    low, high = clopper_pearson(k, n, 0.95)
    assert binom.sf(k - 1, n, low) == pytest.approx(0.025, rel=1e-8)
    assert binom.cdf(k, n, high) == pytest.approx(0.025, rel=1e-8)


def test_bad_counts_are_input_errors():
    for args in [(3, 2), (-1, 5), (0, 0)]:
        with pytest.raises(InputError, match="count"):
            clopper_pearson(*args)
    with pytest.raises(InputError, match="level"):
        clopper_pearson(1, 5, 1.0)


def test_misleading_rates_count_what_rmep_and_rmed_measure():
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(1, 1, 57), rng.normal(-1, 1, 301)
    ss[:3] = 0.0  # LR = 1 exactly is not misleading
    p, d = misleading_rates(ss, ds)
    assert (p.name, d.name) == ("rmep", "rmed")
    assert p.count == int(np.sum(ss < 0)) and p.total == 57
    assert d.count == int(np.sum(ds > 0)) and d.total == 301
    assert p.rate == pytest.approx(rmep(ss, ds), abs=1e-15)
    assert d.rate == pytest.approx(rmed(ss, ds), abs=1e-15)
    assert (p.low, p.high) == clopper_pearson(p.count, 57)
