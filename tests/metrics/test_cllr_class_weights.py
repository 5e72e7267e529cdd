"""Cllr, minCllr and Cllr_cal with class weights, against sums written out here and a PAV
written in the test (pool adjacent violators on a stack, an algorithm other than the
package's scipy-based one)."""

import math

import numpy as np
import pytest

from forensic_lr.errors import InputError
from forensic_lr.metrics import cllr, cllr_cal, min_cllr


def _data(seed):
    rng = np.random.default_rng(seed)
    return rng.normal(1.5, 1.5, 37), rng.normal(-1.0, 2.0, 61)


def _costs(ss, ds):
    """Mean SS and DS costs in bits, term by term with math.log2 (LR = e^llr)."""
    c_ss = math.fsum(math.log2(1 + math.exp(-x)) for x in ss) / len(ss)
    c_ds = math.fsum(math.log2(1 + math.exp(x)) for x in ds) / len(ds)
    return c_ss, c_ds


def _stack_pav_llr(ss, ds):
    """PAV posterior of 'same source' over the sorted LLRs (ties none here), as LLRs."""
    x = np.concatenate([ss, ds])
    y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])[np.argsort(x)]
    blocks = []  # [sum of labels, count]
    for label in y:
        blocks.append([label, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    p = np.concatenate([np.full(int(n), t / n) for t, n in blocks])
    with np.errstate(divide="ignore"):
        llr = np.log(p) - np.log1p(-p) - math.log(ss.size / ds.size)
    out = np.empty_like(llr)
    out[np.argsort(x)] = llr
    return out[:ss.size], out[ss.size:]


def _weighted(c_ss, c_ds, w_ss, w_ds):
    return ((w_ss * c_ss if w_ss else 0.0) + (w_ds * c_ds if w_ds else 0.0)) / (w_ss + w_ds)


@pytest.mark.parametrize("weights", [(1, 1), (1, 3), (2.5, 0.5), (1, 0), (0, 1)])
def test_weighted_cllr_against_the_sums(weights):
    ss, ds = _data(1)
    expected = _weighted(*_costs(ss, ds), *weights)
    assert cllr(ss, ds, class_weights=weights) == pytest.approx(expected, rel=1e-13)


def test_equal_weights_are_the_usual_cllr_and_only_ratios_matter():
    ss, ds = _data(2)
    assert cllr(ss, ds, class_weights=(1, 1)) == pytest.approx(cllr(ss, ds), rel=1e-15)
    assert cllr(ss, ds, class_weights=(2, 6)) == pytest.approx(
        cllr(ss, ds, class_weights=(1, 3)), rel=1e-15)


@pytest.mark.parametrize("weights", [(1, 1), (1, 4), (3, 1), (1, 0)])
def test_weighted_min_cllr_against_a_stack_pav(weights):
    ss, ds = _data(3)
    p_ss, p_ds = _stack_pav_llr(ss, ds)
    with np.errstate(over="ignore"):  # -inf LLRs only in blocks without SS, and vice versa
        c_ss = math.fsum(np.logaddexp(0, -p_ss)) / ss.size / math.log(2)
        c_ds = math.fsum(np.logaddexp(0, p_ds)) / ds.size / math.log(2)
    expected = _weighted(c_ss, c_ds, *weights)
    assert min_cllr(ss, ds, class_weights=weights) == pytest.approx(expected, rel=1e-12)
    assert cllr_cal(ss, ds, class_weights=weights) == pytest.approx(
        _weighted(*_costs(ss, ds), *weights) - expected, rel=1e-10, abs=1e-13)


def test_a_class_of_weight_zero_is_left_out_even_when_infinite():
    assert cllr([-np.inf, 2.0], [0.0], class_weights=(0, 1)) == pytest.approx(1.0)
    assert cllr([-np.inf, 2.0], [0.0]) == np.inf


@pytest.mark.parametrize("weights", [(0, 0), (-1, 1), (1, np.inf), (1,), "ab"])
def test_bad_class_weights_are_refused(weights):
    with pytest.raises(InputError, match="class_weights"):
        cllr([1.0], [-1.0], class_weights=weights)
