"""RMEP and RMED intervals by source: the bootstrap by source of the other metrics.

Reference: a plain loop over the replicates written from the definition (tests/conftest.py: (sources
drawn with replacement from the same jumped PCG64 streams, a same-source trial weighted
by its source's count, a different-source trial by the product of its two sources'
counts, the weighted share of misleading trials), with numpy's quantiles and Efron's
bias-corrected levels from scipy.stats.norm; and scipy's binomtest for the counts of
none, where no draw of sources can move the rate.)
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from forensic_lr.validation.bootstrap import bootstrap_metrics
from forensic_lr.validation.rates import BY_SOURCE, EXACT, misleading_rates


def _data(seed=11, k=9):
    rng = np.random.default_rng(seed)
    ss_src = np.repeat(np.arange(k), 6)  # six same-source trials per source
    ss = rng.normal(1.0, 1.5, ss_src.size) + rng.normal(0, 1, k)[ss_src]  # a source effect
    a, b = np.triu_indices(k, 1)
    ds_src = np.column_stack([np.repeat(a, 2), np.repeat(b, 2)])  # two trials per pair
    ds = rng.normal(-1.5, 1.5, ds_src.shape[0])
    return ss, ds, ss_src, ds_src, k


@pytest.mark.parametrize("interval", ["percentile", "bc"])
def test_rates_by_source_equal_a_plain_loop_bootstrap(interval, loop_rate_intervals):
    ss, ds, ss_src, ds_src, k = _data()
    boot = bootstrap_metrics(ss, ds, ss_sources=ss_src, ds_sources=ds_src, n=300, seed=5,
                             interval=interval, workers=1).to_dict()
    p, d = misleading_rates(ss, ds, 0.95, metric_intervals=boot)
    assert 0 < p.count < p.total and 0 < d.count < d.total
    expected = loop_rate_intervals(ss, ds, ss_src, ds_src, k, 300, 5, 0.95, interval)
    for rate in (p, d):
        assert rate.interval == BY_SOURCE
        assert (rate.low, rate.high) == pytest.approx(expected[rate.name], abs=1e-12)
    # the source effect makes the by-source interval of RMEP wider than the binomial one
    cp = binomtest(p.count, p.total).proportion_ci(0.95, method="exact")
    assert p.high - p.low > cp.high - cp.low


def test_a_rate_of_none_keeps_the_exact_interval_by_source():
    ss, ds, ss_src, ds_src, _ = _data()
    ss = np.abs(ss) + 0.1  # no misleading same-source trial
    boot = bootstrap_metrics(ss, ds, ss_sources=ss_src, ds_sources=ds_src, n=50, seed=1,
                             workers=1).to_dict()
    p, d = misleading_rates(ss, ds, 0.95, metric_intervals=boot)
    assert (p.count, p.interval, p.low) == (0, EXACT, 0.0)
    assert p.high == pytest.approx(1 - 0.025 ** (1 / ss.size), abs=1e-15)  # closed form
    assert d.interval == BY_SOURCE
    assert p.interval == "exact binomial"
    assert d.model_dump()["interval"] == "bootstrap by source"


def test_without_sources_the_intervals_stay_exact_binomial():
    ss, ds, *_ = _data()
    boot = bootstrap_metrics(ss, ds, n=50, seed=1, workers=1).to_dict()
    for rate in misleading_rates(ss, ds, 0.95, metric_intervals=boot):
        ci = binomtest(rate.count, rate.total).proportion_ci(0.95, method="exact")
        assert rate.interval == EXACT
        assert (rate.low, rate.high) == pytest.approx((ci.low, ci.high), abs=1e-10)


def test_validation_study_gives_rates_by_source(loop_rate_intervals):
    import html as html_lib
    import re

    from forensic_lr.report.validation import build_validation_report
    from forensic_lr.validation.study import run_validation_study

    rng = np.random.default_rng(8)
    k = 10
    ss_src = np.repeat(np.arange(k), 8)
    ss = rng.normal(2.0, 1.5, ss_src.size) + rng.normal(0, 1, k)[ss_src]
    a, b = np.triu_indices(k, 1)
    ds_src = np.column_stack([a, b])
    ds = rng.normal(-1.0, 1.5, ds_src.shape[0])
    study = run_validation_study(ss, ds, methods=["gaussian"], folds=5, seed=3,
                                 ss_sources=ss_src, ds_sources=ds_src,
                                 metric_intervals={"n": 200, "seed": 4, "workers": 1})
    ss_llr, ds_llr = study.arrays.llrs["gaussian"]
    expected = loop_rate_intervals(ss_llr, ds_llr, ss_src, ds_src, k, 200, 4, 0.95, "bc")
    raw = build_validation_report(study, formats=("html",))["validation_report.html"].decode()
    text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", raw)).split())
    for rate in study.rates:
        if not 0 < rate.count < rate.total:
            assert rate.interval == EXACT
            assert "(exact binomial, as if the comparisons were independent)" in text
            continue
        assert rate.interval == BY_SOURCE
        assert (rate.low, rate.high) == pytest.approx(expected[rate.name], abs=1e-12)
        assert f"[{100 * rate.low:.1f} %, {100 * rate.high:.1f} %] (bootstrap by source)" in text
    assert "Their intervals come from the same resampling of sources" in text
