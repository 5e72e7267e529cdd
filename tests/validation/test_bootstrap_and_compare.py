"""Validation-study statistics: weighted bootstrap metrics, DeLong, source resampling, folds.

Expected values come from independent computations: the metrics of an explicitly
expanded data set (np.repeat + forensic_lr.evaluate, which sorts the expanded data),
brute-force O(n^2) placement values and covariances, scikit-learn's roc_auc_score,
closed forms of a calibrated normal LLR model and scipy numerical integration.
"""

import json
from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from sklearn.metrics import roc_auc_score

from forensic_lr.calibration import make_calibrator
from forensic_lr.errors import InputError
from forensic_lr.io.scores import load_scores
from forensic_lr.metrics import evaluate
from forensic_lr.resampling import source_folds, trial_counts
from forensic_lr.uncertainty import cross_validated_llr
from forensic_lr.validation import (
    METRICS,
    bootstrap_metrics,
    compare_systems,
    delong_test,
    placement_values,
)
from forensic_lr.validation.replicates import _bc_levels, interval_bounds, replicate_weights
from forensic_lr.validation.weighted_metrics import replicate_metrics, sort_system

llr_values = st.sampled_from([-np.inf, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, np.inf])


def _expanded(ss, ds, w_ss, w_ds):
    e = asdict(evaluate(np.repeat(ss, w_ss), np.repeat(ds, w_ds)))  # values, inf kept
    return np.array([e[m] for m in METRICS])


# --------------------------------------------------------------------------- weighted metrics
@settings(max_examples=60, deadline=None)
@given(
    st.lists(llr_values, min_size=1, max_size=12),
    st.lists(llr_values, min_size=1, max_size=12),
    st.data(),
)
def test_weighted_metrics_equal_metrics_of_expanded_data(ss, ds, data):
    # Independent value: evaluate() on the data set holding trial t w_t times.
    ss, ds = np.array(ss), np.array(ds)
    w_ss = np.array(data.draw(st.lists(st.integers(0, 3), min_size=ss.size, max_size=ss.size)))
    w_ds = np.array(data.draw(st.lists(st.integers(0, 3), min_size=ds.size, max_size=ds.size)))
    w_ss[data.draw(st.integers(0, ss.size - 1))] += 1  # both classes keep a trial
    w_ds[data.draw(st.integers(0, ds.size - 1))] += 1
    s = sort_system(ss, ds)
    got = replicate_metrics(s, w_ss[s.order_ss], w_ds[s.order_ds])
    np.testing.assert_allclose(got, _expanded(ss, ds, w_ss, w_ds), rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(llr_values, min_size=1, max_size=12),
    st.lists(llr_values, min_size=1, max_size=12),
)
def test_sorting_values_only_gives_the_same_units(ss, ds):
    # A trial bootstrap of one system sorts the values only (no argsort): every field
    # but the input order must equal the stable sort's, ties and infinities included.
    ss, ds = np.array(ss), np.array(ds)
    full, values = sort_system(ss, ds), sort_system(ss, ds, orders=False)
    assert values.order_ss is None and values.order_ds is None
    for name, value in vars(full).items():
        if name.startswith("order_"):
            continue
        if name.startswith("read_"):
            np.testing.assert_array_equal(value.positions, getattr(values, name).positions)
        else:
            np.testing.assert_array_equal(value, getattr(values, name), err_msg=name)


def test_weighted_metrics_continuous_scores():
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(1, 1.5, 400), rng.normal(-1, 1.5, 700)
    s = sort_system(ss, ds)
    for _ in range(3):
        w_ss, w_ds = rng.integers(0, 4, ss.size), rng.integers(0, 4, ds.size)
        got = replicate_metrics(s, w_ss[s.order_ss], w_ds[s.order_ds])
        np.testing.assert_allclose(got, _expanded(ss, ds, w_ss, w_ds), rtol=1e-9)


def test_weighted_metrics_with_large_uneven_weights():
    # Source-bootstrap-like weights (products of draws, many zeros) on rounded scores,
    # so the PAV shortcut over the chain of the unweighted blocks is put to work.
    rng = np.random.default_rng(11)
    ss, ds = np.round(rng.normal(1, 2, 1500), 1), np.round(rng.normal(-1, 2, 2500), 1)
    s = sort_system(ss, ds)
    for _ in range(3):
        w_ss = rng.poisson(1, ss.size) * rng.poisson(1, ss.size)
        w_ds = rng.poisson(1, ds.size) * rng.poisson(2, ds.size)
        got = replicate_metrics(s, w_ss[s.order_ss], w_ds[s.order_ds])
        np.testing.assert_allclose(got, _expanded(ss, ds, w_ss, w_ds), rtol=1e-9)


def test_weighted_metrics_beyond_int32_totals_take_the_full_pav():
    # Scaling every weight by 2**22 changes no metric (all are ratios of weights); the
    # totals pass 2**31, where the hull shortcut is skipped.
    rng = np.random.default_rng(12)
    ss, ds = rng.normal(1, 2, 800), rng.normal(-1, 2, 1200)
    s = sort_system(ss, ds)
    w_ss, w_ds = rng.integers(0, 3, ss.size), rng.integers(0, 3, ds.size)
    small = replicate_metrics(s, w_ss[s.order_ss], w_ds[s.order_ds])
    big = replicate_metrics(s, w_ss[s.order_ss] << 22, w_ds[s.order_ds] << 22)
    np.testing.assert_allclose(big, small, rtol=1e-12)


@pytest.mark.parametrize("size", [7, 3_000])
def test_trial_counts_keep_the_class_size_and_follow_the_binomial(size):
    # Independent values: each replicate draws `size` trials (the counts sum to it), and a
    # trial's count is Binomial(size, 1/size) (scipy.stats.binom), pooled over replicates.
    rng = np.random.default_rng(size)
    counts = np.concatenate([trial_counts(rng, size) for _ in range(60_000 // size)])
    assert np.all(counts.reshape(-1, size).sum(axis=1) == size)
    freq = np.bincount(counts, minlength=6)[:6] / counts.size
    pmf = stats.binom.pmf(np.arange(6), size, 1 / size)
    se = np.sqrt(pmf * (1 - pmf) / counts.size)
    assert np.all(np.abs(freq - pmf) < 5 * se + 1e-9)


def test_empty_class_gives_nan():
    s = sort_system(np.array([1.0, 2.0]), np.array([-1.0, 0.5]))
    assert np.isnan(replicate_metrics(s, np.array([0, 0]), np.array([1, 1]))).all()


# --------------------------------------------------------------------------- bootstrap API
def test_bootstrap_metrics_result_and_seed():
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(2, 2, 200), rng.normal(-2, 2, 300)
    a = bootstrap_metrics(ss, ds, n=200, seed=5)
    b = bootstrap_metrics(ss, ds, n=200, seed=5)
    assert a.to_dict() == b.to_dict()
    json.dumps(a.to_dict())
    assert a.by == "trial" and a.n_valid == 200 and a.n_sources is None
    ev = evaluate(ss, ds)
    for m in METRICS:
        item = a[m]
        assert item.estimate == pytest.approx(getattr(ev, m))
        assert item.low <= item.high
    # estimates that are not at a bootstrap-bias boundary lie inside their interval
    for m in ("cllr", "eer", "auc", "rmep", "rmed"):
        assert a[m].low <= a[m].estimate <= a[m].high


def test_bootstrap_handles_infinite_llrs():
    ss = np.array([np.inf, 2.0, 1.0, -np.inf, 3.0, 0.5])
    ds = np.array([-np.inf, -2.0, 0.3, np.inf, -1.0, -4.0])
    res = bootstrap_metrics(ss, ds, n=50, seed=1)
    assert res["cllr"].high == np.inf
    assert np.isfinite(res["auc"].low)


def test_bootstrap_input_errors():
    with pytest.raises(InputError, match="source"):
        bootstrap_metrics([1.0, 2.0], [0.0, -1.0], by="source")
    with pytest.raises(InputError, match="level"):
        bootstrap_metrics([1.0, 2.0], [0.0, -1.0], level=95)
    with pytest.raises(InputError, match="shape"):
        bootstrap_metrics([1.0, 2.0], [0.0, -1.0], ss_sources=["a"], ds_sources=["a", "b"])


def _true_values(mu: float) -> dict:
    """Calibrated normal LLRs: ss ~ N(mu, 2 mu), ds ~ N(-mu, 2 mu) (natural log).

    AUC = Phi(2 mu / sqrt(4 mu)) = Phi(sqrt(mu)); RMEP = RMED = Phi(-mu / sqrt(2 mu));
    Cllr by numerical integration of log2(1 + e^-x) against the SS density (the DS term
    is equal by symmetry).
    """
    sd = np.sqrt(2 * mu)
    cost, _ = integrate.quad(
        lambda x: np.logaddexp(0, -x) / np.log(2) * stats.norm.pdf(x, mu, sd), -np.inf, np.inf
    )
    rate = stats.norm.cdf(-mu / sd)
    return {"cllr": cost, "auc": stats.norm.cdf(np.sqrt(mu)), "rmep": rate, "rmed": rate}


def test_bc_levels_by_hand():
    # Efron's BC levels Phi(2 z0 -+ z) computed with scipy.stats.norm; z0 = 0 when half the
    # replicates lie below the estimate (the percentile interval).
    column = np.arange(1.0, 11.0)  # 10 sorted replicates
    assert _bc_levels(column, 5.5, 0.1) == pytest.approx((0.05, 0.95))
    z0 = stats.norm.ppf(0.3)  # 3 of 10 replicates below 3.5
    z = stats.norm.ppf(0.95)
    expected = (stats.norm.cdf(2 * z0 - z), stats.norm.cdf(2 * z0 + z))
    assert _bc_levels(column, 3.5, 0.1) == pytest.approx(expected)
    z0 = stats.norm.ppf(0.25)
    tied = (stats.norm.cdf(2 * z0 - z), stats.norm.cdf(2 * z0 + z))
    assert _bc_levels(column, 3.0, 0.1) == pytest.approx(tied)  # 2 below, 1 tie: p = 0.25
    low, _ = _bc_levels(column, 0.0, 0.1)  # all above: p kept at 1 / (2 B)
    assert low == pytest.approx(stats.norm.cdf(2 * stats.norm.ppf(0.05) - z))


def test_bc_falls_back_to_percentile_when_the_estimate_is_beyond_the_replicates():
    # Replicates 1..100 and an estimate of 0: the corrected levels Phi(2 z0 -+ z) are far
    # below 1/B, so the percentile interval is kept (type-7 quantiles by hand:
    # 1 + 0.025 * 99 = 3.475 and 1 + 0.975 * 99 = 97.525).
    samples = np.arange(1.0, 101.0)[:, None]
    low, high, kept = interval_bounds(samples, [0.0], 0.95, "bc")
    assert kept == [0]
    assert (low[0], high[0]) == pytest.approx((3.475, 97.525))
    low, high, kept = interval_bounds(samples, [50.5], 0.95, "bc")  # z0 = 0: the same interval
    assert kept == [] and (low[0], high[0]) == pytest.approx((3.475, 97.525))


def test_pav_metric_intervals_cover_better_with_bias_correction():
    # minCllr of calibrated normal LLRs equals their Cllr (population). The sample
    # minCllr is optimistic and its bootstrap more so: the percentile interval misses
    # the true value most of the time, the bias-corrected one far less often.
    mu, sims = 2.0, 60
    truth = _true_values(mu)["cllr"]
    rng = np.random.default_rng(7)
    hits = {"bc": 0, "percentile": 0}
    for i in range(sims):
        ss = rng.normal(mu, np.sqrt(2 * mu), 120)
        ds = rng.normal(-mu, np.sqrt(2 * mu), 160)
        for kind in hits:
            res = bootstrap_metrics(ss, ds, n=100, level=0.9, seed=i, interval=kind)
            hits[kind] += res["min_cllr"].low <= truth <= res["min_cllr"].high
    assert hits["percentile"] / sims < 0.65
    assert hits["bc"] / sims >= 0.6
    assert hits["bc"] >= hits["percentile"] + 0.15 * sims


def test_trial_bootstrap_coverage_near_nominal():
    # 80 simulated validation sets of independent trials; the share of 90% percentile
    # intervals holding the true value should be near 0.90 (binomial SE ~ 0.034).
    mu, sims = 2.0, 80
    truth = _true_values(mu)
    rng = np.random.default_rng(20261123)
    hits = {m: 0 for m in truth}
    for i in range(sims):
        ss = rng.normal(mu, np.sqrt(2 * mu), 120)
        ds = rng.normal(-mu, np.sqrt(2 * mu), 160)
        res = bootstrap_metrics(ss, ds, n=100, level=0.9, seed=i)
        for m, value in truth.items():
            hits[m] += res[m].low <= value <= res[m].high
    for m, count in hits.items():
        assert 0.80 <= count / sims <= 0.97, (m, count / sims)


# --------------------------------------------------------------------------- sources
def _clustered(rng, n_sources=12, per=6):
    """Synthetic ids: SS trials within each source, DS trials between pairs of sources."""
    ids = np.array([f"s{i:02d}" for i in range(n_sources)])
    effect = rng.normal(0, 1.5, n_sources)  # source effect shared by its trials
    ss_src = np.repeat(ids, per)
    ss = 2.0 + np.repeat(effect, per) + rng.normal(0, 0.3, ss_src.size)
    a, b = np.triu_indices(n_sources, 1)
    ds_src = np.column_stack([ids[a], ids[b]])
    ds = -2.0 + 0.5 * (effect[a] + effect[b]) + rng.normal(0, 0.3, a.size)
    return ss, ds, ss_src, ds_src


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 8), st.integers(0, 10_000))
def test_source_bootstrap_never_splits_a_source(n_sources, seed):
    rng = np.random.default_rng(seed)
    ss, ds, ss_src, ds_src = _clustered(rng, n_sources, per=3)
    s = sort_system(ss, ds)
    draws, k = replicate_weights("source", rng, 5, [s], ss_src, ds_src)
    assert k == n_sources
    src_ss, src_ds = ss_src[s.order_ss], ds_src[s.order_ds]
    for [(w_ss, w_ds)] in draws:
        # every trial of a source carries the same multiplicity (all in, or all out)
        mult = {}
        for src, w in zip(src_ss, w_ss, strict=True):
            assert mult.setdefault(src, w) == w
        # a DS trial is kept as often as both of its sources were drawn, never alone
        for (a, b), w in zip(src_ds, w_ds, strict=True):
            assert w == mult[a] * mult[b]


def test_source_interval_wider_than_trial_interval_on_clustered_data():
    rng = np.random.default_rng(7)
    ss, ds, ss_src, ds_src = _clustered(rng, n_sources=15, per=8)
    by_trial = bootstrap_metrics(ss, ds, n=300, seed=1, by="trial")
    by_source = bootstrap_metrics(ss, ds, n=300, seed=1, ss_sources=ss_src, ds_sources=ds_src)
    assert by_source.by == "source" and by_source.n_sources == 15
    width = {r.by: r["cllr"].high - r["cllr"].low for r in (by_trial, by_source)}
    assert width["source"] > 1.2 * width["trial"]
    assert "source" in by_source.note


def test_source_folds_share_no_source_and_cover_every_trial():
    rng = np.random.default_rng(2)
    _, _, ss_src, ds_src = _clustered(rng, n_sources=9, per=3)
    for folds in (3, 5, None):
        splits = source_folds(ss_src, ds_src, folds=folds, seed=4)
        seen_ss = np.concatenate([s.test_ss for s in splits])
        seen_ds = np.concatenate([s.test_ds for s in splits])
        assert sorted(seen_ss) == list(range(ss_src.size))
        assert sorted(seen_ds) == list(range(len(ds_src)))
        for split in splits:
            test = set(ss_src[split.test_ss]) | set(ds_src[split.test_ds].ravel())
            train = set(ss_src[split.train_ss]) | set(ds_src[split.train_ds].ravel())
            assert not test & train


def test_leave_one_source_out_has_one_fold_per_source_for_single_ids():
    ss_src = np.array(["a", "a", "b", "b", "c", "c", "d"])
    ds_src = np.array(["a", "b", "c", "d", "d", "a", "b"])
    splits = source_folds(ss_src, ds_src, folds=None)
    assert len(splits) == 4
    with pytest.raises(InputError, match="distinct sources"):
        source_folds(ss_src, ds_src, folds=9)


def test_two_source_folds_with_pair_sources_say_why_and_what_to_do():
    # With 2 folds every split {0, 1} leaves out both folds: nothing is left to train on.
    # The message says so and asks for more folds (the old one said "fewer").
    rng = np.random.default_rng(2)
    _, _, ss_src, ds_src = _clustered(rng, n_sources=9, per=3)
    with pytest.raises(InputError) as exc:
        source_folds(ss_src, ds_src, folds=2, seed=4)
    text = str(exc.value)
    assert "with 2 source folds" in text and "0 SS and 0 DS training trials" in text
    assert "use more folds (at least 3" in text and "folds=None" in text
    assert "fewer" not in text
    # 1-D sources (labels) are split into 2 folds as before
    assert len(source_folds(np.arange(6), np.arange(6), folds=2)) == 2


def test_cross_validated_llr_by_source_matches_direct_fits():
    # Independent value: for chosen trials, fit the calibrator on the trials that share
    # no source (or source fold) with them, by explicit masks.
    rng = np.random.default_rng(11)
    ss, ds, ss_src, ds_src = _clustered(rng, n_sources=8, per=4)
    cal = make_calibrator("gaussian")
    out_ss, out_ds = cross_validated_llr(ss, ds, cal, folds=None, ss_sources=ss_src,
                                         ds_sources=ds_src)
    for i in (0, 13):
        src = ss_src[i]
        keep_ss = ss_src != src
        keep_ds = (ds_src != src).all(axis=1)
        expected = make_calibrator("gaussian").fit(ss[keep_ss], ds[keep_ds]).llr(ss[i : i + 1])
        assert out_ss[i] == pytest.approx(expected[0])
    j = 5
    a, b = ds_src[j]
    keep_ss = (ss_src != a) & (ss_src != b)
    keep_ds = ~np.isin(ds_src, [a, b]).any(axis=1)
    expected = make_calibrator("gaussian").fit(ss[keep_ss], ds[keep_ds]).llr(ds[j : j + 1])
    assert out_ds[j] == pytest.approx(expected[0])


# --------------------------------------------------------------------------- DeLong
def _brute_force_delong(a_ss, a_ds, b_ss, b_ds):
    """Placement values from the full n_ss x n_ds kernel matrix psi (O(n^2))."""

    def psi(x, y):
        return (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])

    pa, pb = psi(a_ss, a_ds), psi(b_ss, b_ds)
    v10 = np.vstack([pa.mean(axis=1), pb.mean(axis=1)])
    v01 = np.vstack([pa.mean(axis=0), pb.mean(axis=0)])
    s10, s01 = np.cov(v10), np.cov(v01)
    contrast = np.array([1.0, -1.0])
    var = contrast @ s10 @ contrast / a_ss.size + contrast @ s01 @ contrast / a_ds.size
    return pa.mean(), pb.mean(), v10, v01, var


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 25), st.integers(3, 25), st.integers(0, 10_000))
def test_delong_matches_brute_force(n_ss, n_ds, seed):
    rng = np.random.default_rng(seed)
    a_ss, a_ds = np.round(rng.normal(1, 1, n_ss), 1), np.round(rng.normal(0, 1, n_ds), 1)
    b_ss = np.round(a_ss + rng.normal(0, 0.7, n_ss), 1)
    b_ds = np.round(a_ds + rng.normal(0, 0.7, n_ds), 1)
    auc_a, auc_b, v10, v01, var = _brute_force_delong(a_ss, a_ds, b_ss, b_ds)
    v_ss, v_ds = placement_values(a_ss, a_ds)
    np.testing.assert_allclose(v_ss, v10[0])
    np.testing.assert_allclose(v_ds, v01[0])
    test = delong_test(a_ss, a_ds, b_ss, b_ds)
    assert test.auc_a == pytest.approx(auc_a)
    assert test.auc_b == pytest.approx(auc_b)
    assert test.se == pytest.approx(np.sqrt(max(var, 0.0)), abs=1e-12)
    if var > 0:
        z = (auc_a - auc_b) / np.sqrt(var)
        assert test.p_value == pytest.approx(2 * stats.norm.sf(abs(z)))


def test_delong_auc_agrees_with_scikit_learn():
    rng = np.random.default_rng(1)
    a_ss, a_ds = rng.normal(1, 1, 60), rng.normal(0, 1, 80)
    b_ss, b_ds = a_ss + rng.normal(0, 1, 60), a_ds + rng.normal(0, 1, 80)
    labels = np.r_[np.ones(60), np.zeros(80)]
    test = delong_test(a_ss, a_ds, b_ss, b_ds)
    assert test.auc_a == pytest.approx(roc_auc_score(labels, np.r_[a_ss, a_ds]))
    assert test.auc_b == pytest.approx(roc_auc_score(labels, np.r_[b_ss, b_ds]))


def test_delong_identical_systems():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.5, -1.0])
    test = delong_test(x, y, x, y)
    assert test.difference == 0 and test.se == 0 and test.p_value == 1.0


# --------------------------------------------------------------------------- comparison
def test_compare_identical_systems_cannot_be_told_apart():
    rng = np.random.default_rng(4)
    ss, ds = rng.normal(1, 2, 100), rng.normal(-1, 2, 150)
    res = compare_systems(ss, ds, ss, ds, n=100)
    assert res.cllr_diff.low == res.cllr_diff.high == 0.0
    assert "cannot be told apart" in res.verdict
    json.dumps(res.to_dict())


def test_compare_detects_the_better_system():
    rng = np.random.default_rng(5)
    truth_ss, truth_ds = rng.normal(3, np.sqrt(6), 300), rng.normal(-3, np.sqrt(6), 300)
    noisy_ss, noisy_ds = 0.3 * truth_ss + rng.normal(0, 1, 300), 0.3 * truth_ds + rng.normal(
        0, 1, 300
    )
    res = compare_systems(truth_ss, truth_ds, noisy_ss, noisy_ds, names=("new", "old"), n=200)
    assert res.cllr_diff.high < 0 and res.min_cllr_diff.high < 0
    assert "new has the lower Cllr" in res.verdict
    assert res.delong.difference > 0 and res.delong.p_value < 0.01
    assert res.replicates["cllr"].shape == (200,)


def test_compare_needs_the_same_trials():
    with pytest.raises(InputError, match="same trials"):
        compare_systems([1.0, 2.0], [0.0, -1.0], [1.0, 2.0, 3.0], [0.0, -1.0])


# --------------------------------------------------------------------------- score files
def test_load_scores_with_source_columns(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text(
        "label,score,source_a,source_b\nss,1,A,A\nss,2,B,B\nds,-1,A,B\nds,0,B,C\n"
    )
    data = load_scores(scores=path)
    assert data.ss_sources.tolist() == [["A", "A"], ["B", "B"]]
    assert data.ds_sources.tolist() == [["A", "B"], ["B", "C"]]
    assert data.to_dict()["n_sources"] == 3
    (tmp_path / "ss.csv").write_text("score,source\n1,A\n2,B\n")
    (tmp_path / "ds.csv").write_text("score,source\n-1,A\n0,C\n")
    data = load_scores(ss=tmp_path / "ss.csv", ds=tmp_path / "ds.csv")
    assert data.ds_sources.tolist() == [["A", "A"], ["C", "C"]]
    items = [
        {"label": label, "score": score, "source": source}
        for label, score, source in [
            ("ss", 1, "x"), ("ss", 2, "y"), ("ds", 0, "x"), ("ds", -1, "y")
        ]
    ]
    (tmp_path / "i.json").write_text(json.dumps(items))
    assert load_scores(scores=tmp_path / "i.json").ss_sources[:, 0].tolist() == ["x", "y"]
    plain = tmp_path / "plain.csv"
    plain.write_text("label,score\nss,1\nss,2\nds,0\nds,-1\n")
    assert load_scores(scores=plain).ss_sources is None


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("label,score,source_a,source_b\nss,1,A,B\nss,2,B,B\nds,-1,A,B\nds,0,B,C\n",
         r"line 2, column 'source_b': a same-source trial"),
        ("label,score,source_a,source_b\nss,1,A,A\nss,2,B,B\nds,-1,A,A\nds,0,B,C\n",
         r"line 4, column 'source_b': a different-source trial"),
        ("label,score,source\nss,1,A\nss,2, \nds,-1,A\nds,0,B\n",
         r"line 3, column 'source': source id is empty"),
        ("label,score,source,source_a\nss,1,A,A\nss,2,B,B\nds,-1,A,B\nds,0,B,C\n",
         "both a 'source' column"),
        ("label,score,source_a\nss,1,A\nss,2,B\nds,-1,A\nds,0,B\n", "no 'source_b' column"),
    ],
)
def test_source_column_errors_name_file_and_line(tmp_path, text, match):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        load_scores(scores=path)


def test_sources_in_one_class_file_only_is_an_error(tmp_path):
    (tmp_path / "ss.csv").write_text("score,source\n1,A\n2,B\n")
    (tmp_path / "ds.csv").write_text("score\n-1\n0\n")
    with pytest.raises(InputError, match=r"ds.csv: has no source column"):
        load_scores(ss=tmp_path / "ss.csv", ds=tmp_path / "ds.csv")


def test_p_value_text_never_prints_zero():
    from forensic_lr.validation import p_text

    assert p_text(0.0) == "< 1e-300"
    assert p_text(0.012345) == "= 0.0123"
    # two systems with a huge AUC difference: Phi(-z) underflows, the verdict says so
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(3, 1, 4000), rng.normal(-3, 1, 4000)
    poor_ss, poor_ds = ss + rng.normal(0, 6, ss.size), ds + rng.normal(0, 6, ds.size)
    res = compare_systems(ss, ds, poor_ss, poor_ds, n=20)
    assert res.delong.p_value == 0.0 and "DeLong p < 1e-300" in res.verdict


def test_metrics_whose_bias_correction_cannot_be_read_are_listed():
    # Independent value: a metric is listed exactly when its estimate lies below (or above)
    # all but at most a share 1/B of the replicates, counted here from the replicates'
    # own intervals: a percentile interval that misses the estimate on the replicates' side.
    # PAV's own LLRs: Cllr_cal is 0 (Cllr = minCllr), and every replicate's is at least 0.
    from forensic_lr.metrics.pav import pav_llr

    rng = np.random.default_rng(4)
    ss, ds = pav_llr(rng.normal(1, 1, 60), rng.normal(-1, 1, 90))
    res = bootstrap_metrics(ss, ds, n=200, seed=3)
    assert res["cllr_cal"].estimate == pytest.approx(0.0, abs=1e-12)
    assert "cllr_cal" in res.percentile and set(res.percentile) <= set(METRICS)
    from forensic_lr.metrics.catalogue import metric

    for m in res.percentile:  # named as the reports print them
        assert f"{metric(m).short}: the estimate lies beyond nearly all bootstrap" in " ".join(
            res.warnings)
    assert res.to_dict()["percentile"] == list(res.percentile)
    flat = bootstrap_metrics(ss, ds, n=200, seed=3, interval="percentile")
    assert flat.percentile == ()
    for m in res.percentile:  # kept as the plain percentile interval
        assert (res[m].low, res[m].high) == (flat[m].low, flat[m].high)
