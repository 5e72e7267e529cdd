"""Criteria against their uncertainty: a criterion is met only when the metric's value and its
one-sided 95 % bound on the unfavourable side both meet it (the laboratory may choose the
value alone); a metric without an interval is judged on its value, and the report says so.

Independent values: scipy.stats.beta for the one-sided Clopper-Pearson bound, numpy's
quantile of replicates computed by the slow definition (each bootstrap sample expanded with
np.repeat and evaluated) for the percentile bound, and the bias-corrected level
Phi(2 z0 + z_0.95) computed with scipy.stats.norm for the bias-corrected one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import ForensicLRWarning
from forensic_lr.metrics import evaluate
from forensic_lr.report import build_report
from forensic_lr.validation import bootstrap_metrics, check_criteria
from forensic_lr.validation.rates import misleading_rates
from forensic_lr.validation.replicates import replicate_weights
from forensic_lr.validation.weighted_metrics import METRICS, sort_system


def _rates(n_ss, k_ss, n_ds, k_ds):
    """LLRs with ``k_ss`` of ``n_ss`` same-source and ``k_ds`` of ``n_ds`` different-source
    comparisons misleading."""
    ss = np.r_[-np.ones(k_ss), np.ones(n_ss - k_ss)] * 2.0
    ds = np.r_[np.ones(k_ds), -np.ones(n_ds - k_ds)] * 2.0
    return ss, ds


def test_15_same_source_comparisons_cannot_show_rmep_below_10_percent():
    ss, ds = _rates(15, 1, 40, 2)
    metrics = evaluate(ss, ds).to_dict()
    rates = misleading_rates(ss, ds)
    (rmep, rmed) = check_criteria({"rmep_max": 0.10, "rmed_max": 0.10}, metrics, rates=rates)
    # 1 of 15: 6.7 %, but its one-sided 95 % upper bound is B^-1(0.95; 2, 14) = 27.9 %
    assert rmep.value == pytest.approx(1 / 15)
    assert rmep.bound == pytest.approx(stats.beta.ppf(0.95, 2, 14), rel=1e-12)
    assert rmep.bound == pytest.approx(0.2794, abs=1e-4)
    assert rmep.bound_source == "exact binomial" and not rmep.met
    assert rmed.bound == pytest.approx(stats.beta.ppf(0.95, 3, 38), rel=1e-12) and not rmed.met
    # even none of 15 cannot: the bound is 1 - 0.05^(1/15) = 18.1 %
    ss0, _ = _rates(15, 0, 40, 2)
    (zero,) = check_criteria({"rmep_max": 0.10}, evaluate(ss0, ds).to_dict(),
                             rates=misleading_rates(ss0, ds))
    assert zero.value == 0 and zero.bound == pytest.approx(1 - 0.05 ** (1 / 15)) and not zero.met
    # the laboratory's rule "estimate": the value alone decides
    (alone, _) = check_criteria({"rmep_max": 0.10, "rmed_max": 0.10}, metrics, rates=rates,
                                rule="estimate")
    assert alone.met and alone.rule == "estimate"


def _slow_replicates(ss, ds, n, seed):
    """The replicates by definition: the same draws, each sample expanded and evaluated."""
    s = sort_system(ss, ds)
    draws, _ = replicate_weights("trial", np.random.default_rng(seed), n, [s], None, None)
    reps = []
    for [(c_ss, c_ds)] in draws:
        w_ss, w_ds = np.empty_like(c_ss), np.empty_like(c_ds)
        w_ss[s.order_ss], w_ds[s.order_ds] = c_ss, c_ds
        e = evaluate(np.repeat(ss, w_ss), np.repeat(ds, w_ds)).to_dict()
        reps.append([e[m] for m in METRICS])
    return np.array(reps)


def test_bootstrap_bounds_are_the_one_sided_quantiles():
    rng = np.random.default_rng(3)
    ss, ds = rng.normal(1.5, 1.5, 30), rng.normal(-1.5, 1.5, 60)
    reps = _slow_replicates(ss, ds, 200, seed=4)
    estimate = evaluate(ss, ds).to_dict()
    pct = bootstrap_metrics(ss, ds, n=200, seed=4, interval="percentile")
    bc = bootstrap_metrics(ss, ds, n=200, seed=4)
    for j, m in enumerate(METRICS):
        column = np.sort(reps[:, j])
        assert pct[m].bound_high == pytest.approx(np.quantile(column, 0.95), rel=1e-9)
        assert pct[m].bound_low == pytest.approx(np.quantile(column, 0.05), rel=1e-9)
        # bias-corrected: the quantile at Phi(2 z0 + z_0.95), z0 from the share below
        share = (np.sum(column < estimate[m]) + 0.5 * np.sum(column == estimate[m])) / 200
        share = min(max(share, 0.5 / 200), 1 - 0.5 / 200)
        z0 = stats.norm.ppf(share)
        upper = stats.norm.cdf(2 * z0 + stats.norm.ppf(0.95))
        lower = stats.norm.cdf(2 * z0 - stats.norm.ppf(0.95))
        if 1 / 200 <= upper and lower <= 1 - 1 / 200:  # else the percentile fallback
            assert bc[m].bound_high == pytest.approx(np.quantile(column, upper), rel=1e-9)
            assert bc[m].bound_low == pytest.approx(np.quantile(column, lower), rel=1e-9)
    # the one-sided 95 % bounds are the ends of the two-sided 90 % interval
    ninety = bootstrap_metrics(ss, ds, n=200, seed=4, level=0.90)
    assert bc["cllr"].bound_high == ninety["cllr"].high
    assert bc["auc"].bound_low == ninety["auc"].low


def test_criterion_uses_the_bound_on_the_unfavourable_side():
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(2, 1.5, 25), rng.normal(-2, 1.5, 50)
    intervals = bootstrap_metrics(ss, ds, n=300, seed=1).to_dict()
    metrics = evaluate(ss, ds).to_dict()
    cllr = intervals["intervals"]["cllr"]
    auc = intervals["intervals"]["auc"]
    between = (cllr["estimate"] + cllr["bound_high"]) / 2  # estimate passes, bound fails
    (c, a, d) = check_criteria({"cllr_max": between, "auc_min": auc["bound_low"] - 1e-9,
                                "devpav_max": 5.0}, metrics, intervals=intervals)
    assert c.bound == cllr["bound_high"] and c.bound_source == "bootstrap by trial"
    assert metrics["cllr"] <= between and not c.met
    assert a.bound == auc["bound_low"] and a.met
    assert d.bound is None and d.bound_source == "none" and d.met  # judged on its value
    (c2,) = check_criteria({"cllr_max": cllr["bound_high"] + 1e-9}, metrics,
                           intervals=intervals)
    assert c2.met


CASE = """\
[case]
id = "CU-1"
[propositions]
hp = "same source"
hd = "different sources"
[evidence]
score = 1.0
[background]
ss = "ss.csv"
ds = "ds.csv"
[uncertainty]
method = "none"
[validation]
folds = 5
{rule}
[validation.criteria]
cllr_max = 0.5
rmep_max = 0.1
devpav_max = 2.0
"""


@pytest.mark.parametrize("rule", ["", 'criteria_rule = "estimate"'])
def test_a_15_40_background_in_a_case_report(tmp_path, rule):
    rng = np.random.default_rng(15)
    np.savetxt(tmp_path / "ss.csv", rng.normal(2.5, 1.0, 15))
    np.savetxt(tmp_path / "ds.csv", rng.normal(0.0, 1.0, 40))
    (tmp_path / "case.toml").write_text(CASE.format(rule=rule), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(load_case(tmp_path / "case.toml"))
    crit = {c.name: c for c in run.result.validation.criteria}
    rmep = crit["rmep_max"]
    k = next(r.count for r in run.result.validation.rates if r.name == "rmep")
    assert rmep.bound == pytest.approx(stats.beta.ppf(0.95, k + 1, 15 - k), rel=1e-12)
    assert crit["devpav_max"].bound is None
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    section = html[html.index("Laboratory validation criteria"):]
    if rule:
        assert rmep.met == (rmep.value <= 0.1) and rmep.rule == "estimate"
        assert "Rule of the laboratory: a criterion is met when the" in section
        assert "One-sided 95 % bound" not in section
    else:
        assert not rmep.met  # 15 same-source comparisons cannot show 10 %
        assert run.result.conclusion.status == "withheld"
        reason = next(r for r in run.result.conclusion.reasons if "RMEP" in r)
        assert f"one-sided 95 % upper bound {100 * rmep.bound:.1f} %" in reason
        assert "One-sided 95 % bound" in section
        assert "devPAV has no interval and is judged on the value alone" in section


def test_the_study_judges_each_method_with_its_bounds():
    from forensic_lr.validation import run_validation_study

    rng = np.random.default_rng(15)
    ss, ds = rng.normal(2.5, 1.0, 15), rng.normal(0.0, 1.0, 40)
    study = run_validation_study(ss, ds, methods=["gaussian", "logistic"],
                                 criteria={"rmep_max": 0.1, "cllr_max": 0.9},
                                 metric_intervals={"n": 200, "seed": 2})
    for row in study.methods:
        rmep, cllr = row.criteria
        assert rmep.bound_source == "exact binomial" and not rmep.met
        assert cllr.bound_source == "bootstrap by trial" and cllr.bound is not None
    # without intervals, Cllr is judged on its value and says so; rates keep their bound
    study = run_validation_study(ss, ds, methods=["gaussian"],
                                 criteria={"rmep_max": 0.1, "cllr_max": 0.9})
    rmep, cllr = study.methods[0].criteria
    assert rmep.bound is not None and cllr.bound is None and cllr.bound_source == "none"
