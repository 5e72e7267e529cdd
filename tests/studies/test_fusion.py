"""Tests of forensic_lr.studies.fusion (worst-case evaluation of a fused component).

Expected values come from (i) brute-force enumeration of every model with the given
confusion counts over the instances (an independent algorithm: the method's adversary played
exhaustively), (ii) hand computations written next to each test, (iii) the method's own
equalities between counts, and (iv) per-instance re-simulation of the vectorised study.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr._resources import examples_dir
from forensic_lr.errors import InputError
from forensic_lr.studies import fusion
from forensic_lr.studies.fusion import Confusion, TruthTable


# --------------------------------------------------------------------------- helpers
def py_fuse(kind, weights, threshold, bits) -> bool:
    """Fuser evaluated from its definition, in plain Python (independent of TruthTable)."""
    if kind == "and":
        return all(bits)
    if kind == "or":
        return any(bits)
    if kind == "majority":
        return 2 * sum(bits) > len(bits)
    return sum(w * b for w, b in zip(weights, bits, strict=True)) >= threshold


def table_of(kind, weights, threshold, names) -> TruthTable | str:
    if kind in fusion.FUSERS:
        return kind
    rows = itertools.product([0, 1], repeat=len(names))
    return TruthTable(tuple(names), tuple(py_fuse(kind, weights, threshold, r) for r in rows))


def brute_force_worst(others, labels, j, fuse_bits, fn_m, fp_m) -> tuple[int, int]:
    """Max FN and max FP over every model with fn_m false negatives and fp_m false positives.

    others: list of per-instance tuples of the other components' decisions; the model's
    decision is inserted at position j.
    """
    pos = [i for i, y in enumerate(labels) if y]
    neg = [i for i, y in enumerate(labels) if not y]

    def fused(i, m):
        bits = list(others[i])
        bits.insert(j, m)
        return fuse_bits(bits)

    worst_fn = max(
        sum(not fused(i, i not in said_n) for i in pos)
        for said_n in map(set, itertools.combinations(pos, fn_m))
    )
    worst_fp = max(
        sum(fused(i, i in said_p) for i in neg)
        for said_p in map(set, itertools.combinations(neg, fp_m))
    )
    return worst_fn, worst_fp


fuser_strategy = st.one_of(
    st.sampled_from(["and", "or", "majority"]).map(lambda k: (k, None, None)),
    st.tuples(
        st.just("weighted"),
        st.lists(st.integers(0, 3), min_size=3, max_size=3),
        st.integers(0, 6),
    ),
)


# --------------------------------------------------------------------------- brute force
@settings(max_examples=150, deadline=None)
@given(
    k=st.integers(2, 3),
    n=st.integers(2, 9),
    fuser=fuser_strategy,
    data=st.data(),
)
def test_worst_case_equals_brute_force_enumeration(k, n, fuser, data):
    kind, weights, threshold = fuser
    weights = None if weights is None else weights[:k]
    labels = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if all(labels) or not any(labels):
        labels[0] = not labels[0]
    others = data.draw(st.lists(st.tuples(*[st.booleans()] * (k - 1)), min_size=n, max_size=n))
    j = data.draw(st.integers(0, k - 1))
    n_pos = sum(labels)
    fn_m = data.draw(st.integers(0, n_pos))
    fp_m = data.draw(st.integers(0, n - n_pos))
    # a model with exactly fn_m false negatives and fp_m false positives
    model = [False] * fn_m + [True] * (n_pos - fn_m)
    model_neg = [True] * fp_m + [False] * (n - n_pos - fp_m)
    it_p, it_n = iter(model), iter(model_neg)
    m = [next(it_p) if y else next(it_n) for y in labels]
    names = [f"c{i}" for i in range(k)]
    decisions = np.array([[*o[:j], mi, *o[j:]] for o, mi in zip(others, m, strict=True)])
    result = fusion.worst_case_from_decisions(
        decisions, np.array(labels), names, names[j], table_of(kind, weights, threshold, names)
    )
    expected_fn, expected_fp = brute_force_worst(
        others, labels, j, lambda b: py_fuse(kind, weights, threshold, b), fn_m, fp_m
    )
    assert result.worst_fn == expected_fn
    assert result.worst_fp == expected_fp

    # instance types counted one instance at a time from the rule's definition
    def fused_with(i, m):
        return py_fuse(kind, weights, threshold, [*others[i][:j], m, *others[i][j:]])

    kinds = {True: [0, 0, 0, 0], False: [0, 0, 0, 0]}  # counts of types 1..4 per class
    for i, y in enumerate(labels):
        # right when the model is right / when it is wrong (the model is right on a
        # positive when it says p, on a negative when it says n)
        r_right, r_wrong = fused_with(i, y) == y, fused_with(i, not y) == y
        t = {(1, 1): 0, (0, 1): 1, (1, 0): 2, (0, 0): 3}[(r_right, r_wrong)]
        kinds[y][t] += 1
    t = result.types
    assert kinds[True] == [t.pos_type1, 0, t.pos_type3, t.pos_type4]
    assert kinds[False] == [t.neg_type1, 0, t.neg_type3, t.neg_type4]
    # the system actually run with this model can never beat the worst case
    assert result.counts.actual.fn + result.counts.actual.fp <= result.worst_errors


# --------------------------------------------------------------------------- hand examples
def hand_example():
    # Majority of A, B, C with S* = B.  Positives (rows 1-3) have (A, C) = (1,0), (0,1),
    # (1,0): majority with B = 1 needs A + C >= 1 -> all 3 right; with B = 0 needs A + C = 2
    # -> none right.  Negatives (rows 4-6) have (A, C) = (0,1), (1,1), (0,0): with B = 1,
    # rows 4 and 5 are false positives; with B = 0 only row 5.
    decisions = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]])
    labels = np.array([1, 1, 1, 0, 0, 0])
    return decisions, labels, ("A", "B", "C")


def test_hand_example_counts_types_and_worst_case():
    d, y, names = hand_example()
    c = fusion.intervene(d, y, names, "B", "majority")
    assert c.system_pos == Confusion(tp=3, fn=0, fp=2, tn=1)
    assert c.system_neg == Confusion(tp=0, fn=3, fp=1, tn=2)
    # B on positives 1,1,0 -> TP 2, FN 1; on negatives 0,1,0 -> FP 1, TN 2
    assert c.model == Confusion(tp=2, fn=1, fp=1, tn=2)
    # actual fused: rows 1, 2 TP, row 3 (1,0,0) FN; row 4 TN, row 5 FP, row 6 TN
    assert c.actual == Confusion(tp=2, fn=1, fp=1, tn=2)
    r = fusion.worst_case(c.system_pos, c.system_neg, c.model)
    # positives: type1 = TP^{S*->n} = 0, type4 = FN^{S*->p} = 0, type3 = 3 - 0 = 3
    # negatives: type1 = TN^{S*->p} = 1 (row 6), type4 = FP^{S*->n} = 1 (row 5), type3 = 1
    t = r.types
    assert (t.pos_type1, t.pos_type3, t.pos_type4) == (0, 3, 0)
    assert (t.neg_type1, t.neg_type3, t.neg_type4) == (1, 1, 1)
    # worst FN = 0 + min(1, 3) = 1 ; worst FP = 1 + min(1, 2 - 1) = 2 ; total 3 of 6
    assert (r.worst_fn, r.worst_fp, r.worst_errors) == (1, 2, 3)
    assert r.worst_fnr == pytest.approx(1 / 3)
    assert r.worst_fpr == pytest.approx(2 / 3)
    assert r.worst_error_rate == pytest.approx(0.5)
    assert not r.transferred


def test_seed_formula_on_hand_built_tables():
    # P = 100, N = 80.  S*->p: TP 90, FN 10, FP 30, TN 50.  S*->n: TP 60, FN 40, FP 5, TN 75.
    # Seed: type1+ = 60, type4+ = 10, type3+ = 100 - 10 - 60 = 90 - 60 = 30;
    #       type1- = 50, type4- = 5,  type3- = 75 - 50 = 25.
    # Model FN 12, FP 40: worst FN = 10 + min(12, 30) = 22; worst FP = 5 + min(40, 25) = 30.
    sp = {"tp": 90, "fn": 10, "fp": 30, "tn": 50}
    sn = {"tp": 60, "fn": 40, "fp": 5, "tn": 75}
    r = fusion.worst_case(sp, sn, {"tp": 88, "fn": 12, "fp": 40, "tn": 40})
    t = r.types
    assert t.pos_type1 + t.pos_type3 + t.pos_type4 == 100
    assert t.neg_type1 + t.neg_type3 + t.neg_type4 == 80
    assert t.pos_type3 == 100 - sp["fn"] - sn["tp"] == sp["tp"] - sn["tp"] == 30
    assert t.neg_type3 == 80 - sn["fp"] - sp["tn"] == sn["tn"] - sp["tn"] == 25
    assert (r.worst_fn, r.worst_fp) == (22, 30)
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["instance_types"]["positive"] == {"type1": 60, "type2": 0, "type3": 30, "type4": 10}


def test_transfer_by_per_class_accuracy():
    # System data: 100 positives, 80 negatives; model data: 50 positives, 200 negatives.
    # Positive counts x 0.5, negative counts x 2.5:
    # S*->p  TP 45, FN 5, FP 75, TN 125 ; S*->n  TP 30, FN 20, FP 12.5, TN 187.5
    # worst FN = 5 + min(7, 45 - 30) = 12 ; worst FP = 12.5 + min(100, 187.5 - 125) = 75
    sp = Confusion(90, 10, 30, 50)
    sn = Confusion(60, 40, 5, 75)
    assert fusion.transfer_confusion(sp, 50, 200) == Confusion(45.0, 5.0, 75.0, 125.0)
    assert fusion.transfer_confusion(sp, 100, 80) == sp
    r = fusion.worst_case(sp, sn, Confusion(43, 7, 100, 100))
    assert r.transferred
    assert r.worst_fn == pytest.approx(12.0)
    assert r.worst_fp == pytest.approx(75.0)
    assert r.worst_fnr == pytest.approx(12 / 50)
    assert r.to_dict()["system_neg"] == {"tp": 30.0, "fn": 20.0, "fp": 12.5, "tn": 187.5}


@settings(max_examples=50, deadline=None)
@given(
    tp_n=st.integers(0, 20), d3p=st.integers(0, 20), fn_p=st.integers(0, 20),
    tn_p=st.integers(0, 20), d3n=st.integers(0, 20), fp_n=st.integers(0, 20),
    fn_m=st.integers(0, 80), fp_m=st.integers(0, 80),
)  # fmt: skip
def test_worst_case_bounds(tp_n, d3p, fn_p, tn_p, d3n, fp_n, fn_m, fp_m):
    # Build consistent intervened tables from instance type counts (the method's decomposition).
    n_pos, n_neg = tp_n + d3p + fn_p + 1, tn_p + d3n + fp_n + 1
    sp = Confusion(tp=tp_n + d3p + 1, fn=fn_p, fp=n_neg - tn_p, tn=tn_p)
    sn = Confusion(tp=tp_n + 1, fn=n_pos - tp_n - 1, fp=fp_n, tn=tn_p + d3n + 1)
    fn_m, fp_m = min(fn_m, n_pos), min(fp_m, n_neg)
    r = fusion.worst_case(sp, sn, Confusion(n_pos - fn_m, fn_m, fp_m, n_neg - fp_m))
    # the worst case lies between "always wrong" types only and all errors
    assert fn_p <= r.worst_fn <= min(n_pos, fn_p + fn_m)
    assert fp_n <= r.worst_fp <= min(n_neg, fp_n + fp_m)
    # a perfect model adds nothing to the type-4 errors
    perfect = fusion.worst_case(sp, sn, Confusion(n_pos, 0, 0, n_neg))
    assert (perfect.worst_fn, perfect.worst_fp) == (fn_p, fp_n)


# --------------------------------------------------------------------------- fusers
def test_named_fusers_truth_tables():
    # rows in product order 000, 001, ..., 111 for components (a, b, c)
    assert fusion.make_fuser("and", "abc").outputs == (False,) * 7 + (True,)
    assert fusion.make_fuser("or", "abc").outputs == (False,) + (True,) * 7
    # majority of 3: rows with >= 2 ones: 011, 101, 110, 111
    maj = fusion.make_fuser("majority", "abc").outputs
    assert [i for i, v in enumerate(maj) if v] == [3, 5, 6, 7]
    # majority of 2: tie (one of two) is negative -> same as AND
    assert fusion.make_fuser("majority", "ab").outputs == fusion.make_fuser("and", "ab").outputs
    with pytest.raises(InputError, match="unknown fuser 'xor'"):
        fusion.make_fuser("xor", "ab")


def test_non_monotone_fuser_is_rejected():
    xor = TruthTable(("A", "B"), (False, True, True, False))
    assert xor.non_monotone_row("B") == (1, 0)
    d, y = np.array([[0, 1], [1, 1]]), np.array([1, 0])
    with pytest.raises(InputError, match="not monotone in 'B'"):
        fusion.intervene(d, y, ("A", "B"), "B", xor)


def test_reorder_truth_table():
    # fused = A and not-... use a table that is not symmetric: fused = A or (B and C)
    names = ("A", "B", "C")
    rows = list(itertools.product([0, 1], repeat=3))
    t = TruthTable(names, tuple(bool(a or (b and c)) for a, b, c in rows))
    r = fusion.reorder_truth_table(t, ("C", "A", "B"))
    for c, a, b in rows:
        idx = 4 * c + 2 * a + b
        assert r.outputs[idx] == bool(a or (b and c))


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("sp", "sn", "m", "match"),
    [
        ({"tp": -1, "fn": 2, "fp": 1, "tn": 1}, None, None, r"system_pos.tp = -1"),
        ({"tp": 1, "fn": 2, "fp": 1}, None, None, r"missing \['tn'\]"),
        ({"tp": 0, "fn": 0, "fp": 1, "tn": 1}, None, None, "no positive"),
        (None, {"tp": 4, "fn": 0, "fp": 1, "tn": 2}, None, "swapped"),
        (None, {"tp": 1, "fn": 2, "fp": 1, "tn": 2}, None, "same data"),
        (None, None, {"tp": 1.5, "fn": "x", "fp": 1, "tn": 1}, "model.fn = 'x'"),
    ],
)
def test_bad_counts(sp, sn, m, match):
    sp = sp or {"tp": 3, "fn": 1, "fp": 1, "tn": 2}
    sn = sn or {"tp": 2, "fn": 2, "fp": 0, "tn": 3}
    m = m or {"tp": 2, "fn": 2, "fp": 1, "tn": 2}
    with pytest.raises(InputError, match=match):
        fusion.worst_case(sp, sn, m)


def test_bad_decisions():
    d, y, names = hand_example()
    with pytest.raises(InputError, match="labels has 5 values but decisions has 6 rows"):
        fusion.intervene(d, y[:5], names, "B", "or")
    bad = d.copy()
    bad[2, 1] = 2
    with pytest.raises(InputError, match=r"decisions\[2, 1\] = .*not binary"):
        fusion.intervene(bad, y, names, "B", "or")
    with pytest.raises(InputError, match="unknown component 'Z'"):
        fusion.intervene(d, y, names, "Z", "or")
    with pytest.raises(InputError, match="one column per component"):
        fusion.intervene(d[:, :2], y, names, "B", "or")


# --------------------------------------------------------------------------- files
def test_read_files(tmp_path):
    (tmp_path / "d.csv").write_text("A,B,C\n1,1,0\n0,p,1\n# comment\n1,n,0\n")
    names, d = fusion.read_decisions(tmp_path / "d.csv")
    assert names == ("A", "B", "C")
    assert d.tolist() == [[True, True, False], [False, True, True], [True, False, False]]
    (tmp_path / "l.csv").write_text("truth\n1\n0\n1\n")
    assert fusion.read_labels(tmp_path / "l.csv").tolist() == [True, False, True]
    (tmp_path / "l2.csv").write_text("p\nn\n")
    assert fusion.read_labels(tmp_path / "l2.csv").tolist() == [True, False]
    rows = [{"B": b, "A": a, "fused": int(a and b)} for a in (0, 1) for b in (0, 1)]
    (tmp_path / "t.json").write_text(json.dumps(rows))
    t = fusion.read_truth_table(tmp_path / "t.json", ("A", "B"))
    assert t == fusion.make_fuser("and", ("A", "B"))


def test_file_errors_name_file_line_column(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("A,B\n1,0\n1,maybe\n")
    with pytest.raises(InputError, match=r"d.csv, line 3, column 'B': value 'maybe'"):
        fusion.read_decisions(f)
    f.write_text("1,0\n1,1\n")
    with pytest.raises(InputError, match="header of component names"):
        fusion.read_decisions(f)
    f.write_text("A,B\n1,0,1\n")
    with pytest.raises(InputError, match="line 2: 3 values"):
        fusion.read_decisions(f)
    t = tmp_path / "t.csv"
    t.write_text("A,B,fused\n0,0,0\n0,1,0\n1,1,1\n")
    with pytest.raises(InputError, match=r"no row for A=1, B=0"):
        fusion.read_truth_table(t)
    t.write_text("A,B,fused\n0,0,0\n0,1,0\n1,0,0\n1,1,1\n0,1,1\n")
    with pytest.raises(InputError, match=r"line 6: combination .* already given at line 3"):
        fusion.read_truth_table(t)
    t.write_text("A,B,out\n0,0,0\n")
    with pytest.raises(InputError, match="column 'fused'"):
        fusion.read_truth_table(t)
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"system_pos": {"tp": 1, "fn": 1, "fp": 1, "tn": 1}}))
    with pytest.raises(InputError, match="exactly the keys"):
        fusion.read_counts(c)
    c.write_text("{bad json")
    with pytest.raises(InputError, match=r"c\.json, line 1: is not valid JSON"):
        fusion.read_counts(c)
    with pytest.raises(InputError, match="file not found"):
        fusion.read_labels(tmp_path / "nope.csv")


# --------------------------------------------------------------------------- simulation
def test_joint_probabilities_closed_form():
    # a = b = 0.5, rho = 0.95: P11 = 0.25 + 0.95 * 0.25 = 0.4875, P10 = P01 = 0.0125
    p = fusion.joint_correct_probabilities(0.5, 0.5, 0.95)
    np.testing.assert_allclose(p, [0.4875, 0.0125, 0.0125, 0.4875])
    a, b, rho = 0.7, 0.4, -0.3
    p11, p10, p01, p00 = fusion.joint_correct_probabilities(a, b, rho)
    assert p11 + p10 == pytest.approx(a) and p11 + p01 == pytest.approx(b)
    cov = p11 - a * b
    assert cov / np.sqrt(a * (1 - a) * b * (1 - b)) == pytest.approx(rho)
    assert p00 == pytest.approx(1 - a - b + p11)
    # a = 0.9, b = 0.2: a b = 0.18, sd = sqrt(0.09 * 0.16) = 0.12, P11 in [0.1, 0.2]
    # -> rho in [(0.1 - 0.18) / 0.12, (0.2 - 0.18) / 0.12] = [-0.666667, 0.166667]
    with pytest.raises(InputError, match=r"choose rho in \[-0.666667, 0.166667\]"):
        fusion.joint_correct_probabilities(0.9, 0.2, 0.95)


def _per_instance_replicate(seed, n_system, n_model, acc_pos, acc_neg, rho_pos, rho_neg, fuser):
    """First replicate of the study re-done instance by instance with the case (b) code."""
    rng = np.random.default_rng(seed)
    p_pos = fusion.joint_correct_probabilities(*acc_pos, rho_pos)
    p_neg = fusion.joint_correct_probabilities(*acc_neg, rho_neg)
    # same draw order as the library (documented): system +, system -, model +, model -
    sizes = ((n_system, p_pos), (n_system, p_neg), (n_model, p_pos), (n_model, p_neg))
    counts = [rng.multinomial(n, p) for n, p in sizes]
    outcome_bits = [(1, 1), (1, 0), (0, 1), (0, 0)]  # (other right, model right)

    def dataset(c_pos, c_neg):
        rows, labels = [], []
        for c, is_pos in ((c_pos, True), (c_neg, False)):
            for k, (xo, xm) in enumerate(outcome_bits):
                says = (xo, xm) if is_pos else (1 - xo, 1 - xm)
                rows += [says] * int(c[k])
                labels += [is_pos] * int(c[k])
        return np.array(rows), np.array(labels)

    ds, ys = dataset(counts[0], counts[1])
    dm, ym = dataset(counts[2], counts[3])
    names = ("other", "model")
    sysc = fusion.intervene(ds, ys, names, "model", fuser)
    modc = fusion.intervene(dm, ym, names, "model", fuser)
    w = fusion.worst_case(sysc.system_pos, sysc.system_neg, modc.model)
    return w.worst_errors, modc.actual.fn + modc.actual.fp


@pytest.mark.parametrize("fuser", ["or", "and"])
def test_simulation_matches_per_instance_computation(fuser):
    kw = {"acc_pos": (0.7, 0.6), "acc_neg": (0.8, 0.55), "rho_pos": 0.3, "rho_neg": -0.2}
    r = fusion.simulate_worst_case(37, 23, fuser=fuser, n_rep=1, seed=11, **kw)
    worst, real = _per_instance_replicate(11, 37, 23, fuser=fuser, **kw)
    assert r.worst_errors[0] == pytest.approx(worst)
    assert r.real_errors[0] == real


def test_simulation_reproducible_and_seed_experiment_1():
    a = fusion.simulate_worst_case(200, 300, n_rep=500, seed=5)
    b = fusion.simulate_worst_case(200, 300, n_rep=500, seed=5)
    np.testing.assert_array_equal(a.worst_errors, b.worst_errors)
    np.testing.assert_array_equal(a.real_errors, b.real_errors)
    c = fusion.simulate_worst_case(200, 300, n_rep=500, seed=6)
    assert not np.array_equal(a.real_errors, c.real_errors)
    # Experiment 1 (OR, acc 0.5, rho +-0.95).  Expected real errors per class size n:
    # FN = P00(pos) n = 0.4875 n, FP = (1 - P11(neg)) n = 0.9875 n -> 1.475 n.
    big = fusion.simulate_worst_case(10_000, 10_000, n_rep=400, seed=1)
    assert big.real_errors.mean() == pytest.approx(1.475 * 10_000, rel=1e-3)
    # worst ~ 0.5 n + min(.5 n, .5 n) + ... = 1.5 n minus O(sqrt n): the method's claim that
    # P(worst >= real) approaches 1 as both sizes grow.
    assert big.p_worst_ge_real > 0.97
    small = fusion.simulate_worst_case(10, 10, n_rep=400, seed=1)
    assert small.p_worst_ge_real < big.p_worst_ge_real
    d = big.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["standard_error"] == pytest.approx(
        np.sqrt(big.p_worst_ge_real * (1 - big.p_worst_ge_real) / 400)
    )


def test_simulation_experiment_2_ratio_rarely_above_one():
    kw = fusion.random_scenarios(2000, seed=3)
    assert set(np.unique(kw["fuser"])) == {"or", "and"}
    r = fusion.simulate_worst_case(10_000, 10_000, n_rep=2000, seed=4, **kw)
    ratio = r.ratio
    # the method: EvalReal / PeorCaso rarely exceeds 1, and then not by much
    assert np.mean(ratio > 1) < 0.01
    assert np.nanmax(ratio) < 1.1


def test_simulation_bad_parameters():
    with pytest.raises(InputError, match="n_system must be an integer >= 1"):
        fusion.simulate_worst_case(0, 10)
    with pytest.raises(InputError, match="'or' or 'and'"):
        fusion.simulate_worst_case(10, 10, fuser="xor")
    with pytest.raises(InputError, match="acc_other must lie in"):
        fusion.simulate_worst_case(10, 10, acc_pos=(1.5, 0.5))


def test_case_example_counts_file():
    # case_examples/fusion-worst-case/counts.json, worked by hand in its README:
    # positives x 300/1000, negatives x 500/1000 -> S*->p TP 282, FN 18; S*->n TP 234;
    # S*->n FP 20, TN 480; S*->p TN 395.  worst FN = 18 + min(45, 282 - 234) = 63,
    # worst FP = 20 + min(60, 480 - 395) = 80.

    path = examples_dir() / "fusion-worst-case" / "counts.json"
    c = fusion.read_counts(path)
    r = fusion.worst_case(c["system_pos"], c["system_neg"], c["model"])
    assert r.worst_fn == pytest.approx(63.0)
    assert r.worst_fp == pytest.approx(80.0)
    assert r.worst_error_rate == pytest.approx(143 / 800)
