"""PAV against a plain-Python PAV, extreme and infinite LLRs, and hypothesis properties.

Independent values: a textbook stack-based pool-adjacent-violators written here with exact
integer comparisons (not scipy's solver), closed-form costs for +-1e3 and +-inf LLRs, and
algebraic properties that any correct implementation must satisfy.
"""

import json
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr import metrics as m
from forensic_lr.errors import ForensicLRWarning, InputError

LN2 = math.log(2)


def python_pav_llr(ss, ds):
    """Per-trial PAV LLR by the stack algorithm on tie groups (exact integer arithmetic).

    Groups of equal values enter in ascending order as [n_ss, n_ds]; while the SS share of
    the top block does not exceed that of the block below (n1/(n1+m1) >= n2/(n2+m2),
    compared by cross-multiplication), the two are pooled.
    """
    c_ss, c_ds = Counter(ss), Counter(ds)
    blocks = []  # [n_ss, n_ds, values]
    for v in sorted(set(ss) | set(ds)):
        blocks.append([c_ss[v], c_ds[v], [v]])
        while len(blocks) > 1:
            (a1, b1, v1), (a2, b2, v2) = blocks[-2], blocks[-1]
            if a1 * (a2 + b2) >= a2 * (a1 + b1):  # share below >= share on top: pool
                blocks[-2:] = [[a1 + a2, b1 + b2, v1 + v2]]
            else:
                break
    llr = {}
    for a, b, values in blocks:
        lr = (
            math.inf
            if b == 0
            else -math.inf
            if a == 0
            else math.log(a / len(ss)) - math.log(b / len(ds))
        )
        llr.update(dict.fromkeys(values, lr))
    return np.array([llr[v] for v in ss]), np.array([llr[v] for v in ds])


def python_cllr(ss, ds):
    """Cllr in bits by the textbook formula (finite, moderate LLRs only)."""
    c_ss = sum(math.log2(1 + math.exp(-x)) for x in ss) / len(ss)
    c_ds = sum(math.log2(1 + math.exp(x)) for x in ds) / len(ds)
    return 0.5 * (c_ss + c_ds)


values_with_ties = st.lists(st.integers(-6, 6).map(float), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(ss=values_with_ties, ds=values_with_ties)
def test_pav_llr_and_min_cllr_match_plain_python_pav(ss, ds):
    want_ss, want_ds = python_pav_llr(ss, ds)
    got_ss, got_ds = m.pav_llr(ss, ds)
    for got, want in ((got_ss, want_ss), (got_ds, want_ds)):
        assert np.array_equal(np.isinf(got), np.isinf(want))
        assert np.array_equal(got[np.isinf(got)], want[np.isinf(want)])
        assert np.allclose(got[np.isfinite(got)], want[np.isfinite(want)], atol=1e-12)
    # minCllr = Cllr of those LLRs, the 0*inf terms being 0 (inf only on its own side)
    cost_ss = [math.log2(1 + math.exp(-x)) if x != math.inf else 0.0 for x in want_ss]
    cost_ds = [math.log2(1 + math.exp(x)) if x != -math.inf else 0.0 for x in want_ds]
    want = 0.5 * (sum(cost_ss) / len(ss) + sum(cost_ds) / len(ds))
    assert m.min_cllr(ss, ds) == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=40, unique=True),
    data=st.data(),
)
def test_pav_without_ties_matches_plain_python_pav(values, data):
    # distinct values take the fast path (runs straight from the SS/DS pattern)
    k = data.draw(st.integers(1, len(values) - 1))
    ss, ds = values[:k], values[k:]
    want_ss, want_ds = python_pav_llr(ss, ds)
    got_ss, got_ds = m.pav_llr(ss, ds)
    assert np.allclose(got_ss, want_ss, atol=1e-12, equal_nan=False)
    assert np.allclose(got_ds, want_ds, atol=1e-12, equal_nan=False)
    assert m.evaluate(ss, ds).auc == pytest.approx(
        np.mean(np.subtract.outer(ss, ds) > 0), abs=1e-12
    )  # brute-force O(n^2) AUC (no ties here)


def test_pav_fit_blocks_and_to_dict():
    # sorted pooled with counts (n_ss, n_ds): 0:(0,2) 1:(1,1) 2:(1,0) 3:(0,1) 4:(2,0)
    # shares 0, .5, 1, 0, 1 -> {2, 3} violate and pool to (1,1) share .5, which equals the
    # share of {1}: pooled (or not) they get the same value. Blocks by LLR:
    # [0] -inf; [1..3] n_ss 2 n_ds 2 -> log(2/4) - log(2/4) = 0; [4] +inf.
    ss, ds = [1.0, 2.0, 4.0, 4.0], [0.0, 0.0, 1.0, 3.0]
    got_ss, got_ds = m.pav_llr(ss, ds)
    assert got_ss.tolist() == [0.0, 0.0, np.inf, np.inf]
    assert got_ds.tolist() == [-np.inf, -np.inf, 0.0, 0.0]
    fit = m.pav_fit(ss, ds)
    d = fit.to_dict()
    assert set(d) == {"block_low", "block_high", "n_ss", "n_ds", "llr"}
    assert d["block_low"][0] == 0.0 and d["block_high"][-1] == 4.0
    assert sum(d["n_ss"]) == 4 and sum(d["n_ds"]) == 4


# ---------------------------------------------------------------------- extreme values
def test_cllr_closed_forms_for_extreme_llrs():
    # log2(1 + e^-1000) = 0 in double precision; log2(1 + e^1000) = 1000 / ln 2 (+ e^-1000)
    # ss = [1e3, -1e3] -> mean cost 500/ln2; ds = [-1e3] -> 0; Cllr = 250 / ln 2
    assert m.cllr([1e3, -1e3], [-1e3]) == pytest.approx(250 / LN2, rel=1e-15)
    assert m.cllr([np.inf, 1e3], [-np.inf, -1e3]) == 0.0
    assert m.cllr([np.inf], [np.inf]) == np.inf
    assert m.cllr([0.0], [-np.inf]) == pytest.approx(0.5)  # SS: log2(2) = 1, halved
    # min_cllr stays finite whatever the magnitudes: it depends on the order only
    assert m.min_cllr([-np.inf, 1e3], [np.inf, -1e3]) == pytest.approx(
        m.min_cllr([-2.0, 1.0], [2.0, -1.0]), abs=1e-15
    )
    assert m.cllr_cal([-np.inf], [0.0]) == np.inf


@pytest.mark.parametrize("seed", range(3))
def test_cllr_against_textbook_formula(seed):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(1, 2, 50), rng.normal(-1, 2, 70)
    assert m.cllr(ss, ds) == pytest.approx(python_cllr(ss, ds), rel=1e-13)


def test_evaluate_with_infinite_llrs_is_finite_where_it_should_be():
    ss = np.array([np.inf, 2.0, 1.0, -0.5])
    ds = np.array([-np.inf, -2.0, 0.5, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from inf arithmetic
        e = m.evaluate(ss, ds)
    # Cllr by hand: SS costs log2(1+e^-x): 0, log2(1+e^-2), log2(1+e^-1), log2(1+e^.5);
    # DS costs log2(1+e^x): 0, log2(1+e^-2), log2(1+e^.5), log2(1+e^-1). Both sums are
    # S = log2(1+e^-2) + log2(1+e^-1) + log2(1+e^.5), so Cllr = 0.5 S/4 + 0.5 S/4 = S/4.
    s = math.log2(1 + math.exp(-2)) + math.log2(1 + math.exp(-1)) + math.log2(1 + math.exp(0.5))
    assert e.cllr == pytest.approx(s / 4, rel=1e-14)
    assert math.isfinite(e.min_cllr) and 0 <= e.min_cllr <= e.cllr
    # sorted pooled: -inf d, -2 d, -1 d, -.5 s, .5 d, 1 s, 2 s, inf s -> AUC: SS beat
    # 3, 4, 4, 4 of the 4 DS -> 15/16; RMEP 1/4 (-0.5), RMED 1/4 (0.5)
    assert e.auc == pytest.approx(15 / 16)
    assert e.rmep == 0.25 and e.rmed == 0.25
    json.dumps(e.to_dict())


def test_evaluation_to_dict_holds_plain_python_types():
    e = m.evaluate([1.0, 2.0, -1.0], [-1.0, 0.0, 3.0])
    d = e.to_dict()
    assert list(d) == [
        "n_ss", "n_ds", "cllr", "min_cllr", "cllr_cal", "eer", "auc", "rmep", "rmed", "devpav",
        "llr_overestimation",
    ]  # fmt: skip
    assert type(d["n_ss"]) is int and all(type(d[k]) is float for k in list(d)[2:])
    assert json.loads(json.dumps(d)) == d


# ---------------------------------------------------------------------- properties
special = st.sampled_from([-np.inf, -1e3, -1.0, 0.0, 1.0, 1e3, np.inf])
finite = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 1))
llrs = st.lists(st.one_of(special, finite), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(ss=llrs, ds=llrs)
def test_no_warnings_and_bounded_results_with_extreme_llrs(ss, ds):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numerical warning (overflow, invalid value)
        # the input checks' own warnings (raw scores, swapped classes) may fire on such data
        warnings.simplefilter("ignore", ForensicLRWarning)
        e = m.evaluate(ss, ds)
        ape = m.ape_curve(ss, ds, plo=np.linspace(-5, 5, 11))
        ece = m.ece_curve(ss, ds, plo=np.linspace(-5, 5, 11))
        m.tippett(ss, ds)
        m.det_points(ss, ds)
    assert 0.0 <= e.min_cllr <= 1.0 + 1e-12 and e.min_cllr <= e.cllr + 1e-12
    assert 0.0 <= e.eer <= 0.5 and 0.0 <= e.auc <= 1.0
    assert e.eer <= m.eer_interpolated(ss, ds) + 1e-12
    assert not np.isnan(e.cllr) and not np.isnan(e.cllr_cal)
    assert np.all(ape.minimum <= ape.actual + 1e-12)
    assert np.all(ape.minimum <= ape.reference + 1e-12)
    assert np.all(ece.calibrated <= ece.actual + 1e-12)
    assert np.all(ece.calibrated <= ece.reference + 1e-12)
    assert not np.any(np.isnan(ape.actual)) and not np.any(np.isnan(ece.actual))


@settings(max_examples=40, deadline=None)
@given(n_ss=st.integers(1, 50), n_ds=st.integers(1, 50))
def test_all_zero_llrs_cost_exactly_one_bit(n_ss, n_ds):
    assert m.cllr(np.zeros(n_ss), np.zeros(n_ds)) == pytest.approx(1.0, abs=1e-15)
    assert m.min_cllr(np.zeros(n_ss), np.zeros(n_ds)) == pytest.approx(1.0, abs=1e-15)
    assert m.eer(np.zeros(n_ss), np.zeros(n_ds)) == pytest.approx(0.5)
    assert m.auc(np.zeros(n_ss), np.zeros(n_ds)) == 0.5


@settings(max_examples=60, deadline=None)
@given(ss=llrs, ds=llrs, seed=st.integers(0, 2**16))
def test_shuffle_invariance_and_auc_symmetry(ss, ds, seed):
    rng = np.random.default_rng(seed)
    a = m.evaluate(ss, ds).to_dict()
    b = m.evaluate(rng.permutation(ss), rng.permutation(ds)).to_dict()
    assert b == pytest.approx(a, nan_ok=True)
    assert m.auc(ss, ds) + m.auc(ds, ss) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(ss=llrs, ds=llrs, scale=st.floats(0.1, 10), shift=st.floats(-5, 5))
def test_order_based_metrics_are_invariant_to_increasing_maps(ss, ds, scale, shift):
    # x -> scale * x**3 + shift is strictly increasing on the values used (integers / 10
    # up to 50 in size and +-1e3, +-inf), and keeps distinct values distinct.
    ss, ds = np.array(ss), np.array(ds)
    e = m.evaluate(ss, ds)
    moved = m.evaluate(scale * ss**3 + shift, scale * ds**3 + shift)
    assert moved.min_cllr == pytest.approx(e.min_cllr, abs=1e-9)
    assert moved.eer == pytest.approx(e.eer, abs=1e-12)
    assert moved.auc == pytest.approx(e.auc, abs=1e-12)
    assert m.min_dcf(scale * ss**3 + shift, scale * ds**3 + shift, 0.3) == pytest.approx(
        m.min_dcf(ss, ds, 0.3), abs=1e-12
    )


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "fn", [m.cllr, m.min_cllr, m.cllr_cal, m.eer, m.auc, m.roc, m.devpav, m.tippett, m.pav_fit]
)
@pytest.mark.parametrize(
    ("bad", "words"),
    [([1.0, np.nan], "NaN"), ([], "at least"), ([[1.0], [2.0]], "one-dimensional")],
    ids=["nan", "empty", "2d"],
)
def test_bad_input_is_named(fn, bad, words):
    with pytest.raises(InputError, match=words):
        fn(bad, [0.0])
    with pytest.raises(InputError, match=words):
        fn([0.0], bad)


@pytest.mark.parametrize("n", [1, 999, 1000, 1001, 2001, 100_000])
def test_cllr_agrees_with_an_exactly_rounded_sum_of_logaddexp(n):
    # Reference: math.fsum (exactly rounded sum) of np.logaddexp terms, a different
    # algorithm from the library's chunked product of (1 + e^-|x|). Sizes straddle the
    # chunk length 1000; LLRs include large margins (terms ~ e^-40) and +-1e3.
    rng = np.random.default_rng(n)
    ss = np.r_[rng.normal(3, 4, n), 40.0, -1e3, 1e3]
    ds = np.r_[rng.normal(-3, 4, 2 * n), -40.0, 1e3, -1e3]
    want = 0.5 * (
        math.fsum(np.logaddexp(0, -ss)) / ss.size + math.fsum(np.logaddexp(0, ds)) / ds.size
    )
    assert m.cllr(ss, ds) == pytest.approx(want / LN2, rel=1e-14, abs=1e-15)


def test_rates_of_misleading_evidence_with_zeros_and_infinities():
    # SS below 0: -1, -inf (0 and -0.0 are LR = 1, not misleading) -> 2/6
    # DS above 0: 1, +inf -> 2/6
    ss = [-1.0, 0.0, -0.0, 2.0, -np.inf, 3.0]
    ds = [0.0, -0.0, 1.0, np.inf, -2.0, -5.0]
    e = m.evaluate(ss, ds)
    assert e.rmep == m.rmep(ss, ds) == pytest.approx(2 / 6)
    assert e.rmed == m.rmed(ss, ds) == pytest.approx(2 / 6)


@settings(max_examples=60, deadline=None)
@given(
    ss=st.lists(st.integers(-5, 5).map(lambda k: 2.0 * k), min_size=1, max_size=30),
    ds=st.lists(st.integers(-5, 5).map(lambda k: 2.0 * k + 1), min_size=1, max_size=30),
)
def test_pav_with_ties_inside_classes_only_matches_plain_python_pav(ss, ds):
    # even SS and odd DS values: many ties within a class, none across (the fast path)
    want_ss, want_ds = python_pav_llr(ss, ds)
    got_ss, got_ds = m.pav_llr(ss, ds)
    assert np.allclose(got_ss, want_ss, atol=1e-12)
    assert np.allclose(got_ds, want_ds, atol=1e-12)
    brute = np.subtract.outer(np.array(ss), np.array(ds))
    assert m.evaluate(ss, ds).auc == pytest.approx(np.mean(brute > 0), abs=1e-12)


def test_devpav_agrees_with_lir_on_small_tied_sets():
    """lir (Netherlands Forensic Institute) devpav, version installed in the test env.

    300 small random sets on a 0.5 grid: heavy ties, single-class blocks at the ends,
    sets where PAV leaves one finite point or none (NaN in both implementations).
    """
    lir_devpav = pytest.importorskip("lir.metrics.devpav").devpav
    rng = np.random.default_rng(1)
    for _ in range(300):
        n_ss, n_ds = rng.integers(1, 15, size=2)
        ss, ds = rng.integers(-4, 5, n_ss) * 0.5, rng.integers(-6, 3, n_ds) * 0.5
        y = np.r_[np.ones(n_ss), np.zeros(n_ds)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # lir warns on degenerate sets
            want = lir_devpav(np.r_[ss, ds] / math.log(10), y)  # lir takes log10 LRs
        got = m.devpav(ss, ds)
        assert got == pytest.approx(want, rel=1e-9, nan_ok=True), (ss, ds)


def test_swapped_check_with_a_middle_pair_of_minus_and_plus_infinity_says_nothing():
    """ds = [-inf, inf]: the mean is undefined and so is the median (their average); no
    sign, no warning, no RuntimeWarning (found by the property test above)."""
    from forensic_lr.metrics.llr_checks import swapped_sign

    assert swapped_sign(np.array([-np.inf]), np.array([-np.inf, np.inf])) is None
