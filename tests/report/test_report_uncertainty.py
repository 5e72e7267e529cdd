"""How the case report qualifies its numbers: counts with rates, metric intervals, exact
binomial intervals, no zero-width intervals, the model annex and the configuration table.

Independent values: Clopper-Pearson ends from scipy.stats.binomtest (exact), PAV's cap
log10(n_ds + 1) computed here, the printed LR read back from the report.
"""

from __future__ import annotations

import html as html_lib
import math
import re
import shutil
import warnings

import numpy as np
import pytest
from scipy.stats import binomtest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.report import build_report, case_context

WORKED = ("voice", "small-background", "suspect-adapted", "glass-distance")
_EQUAL_ENDS = re.compile(r"\[\s*([+\-\u2212]?[\d.,]+)\s*(%?)\s*,\s*\1\s*\2\s*\]")
#: A sentence glued to the next one by a template's whitespace control.
_GLUED = re.compile(r"[a-z)]\.[A-Z][a-z]")


def _copy(tmp_path, name, replace=()):
    folder = tmp_path / name
    shutil.copytree(examples_dir() / name, folder)
    text = (folder / "case.toml").read_text(encoding="utf-8")
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    (folder / "case.toml").write_text(text, encoding="utf-8")
    return load_case(folder / "case.toml")


def _run(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_case_full(spec)


def _html(run) -> str:
    return _visible(build_report(run, formats=("html",))["report.html"].decode("utf-8"))


def _visible(raw: str) -> str:
    """The report's text: inline figures and tags removed, one space."""
    text = re.sub(r"<svg.*?</svg>", " ", raw, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(html_lib.unescape(text).split())


@pytest.fixture(scope="module")
def small(worked):
    return worked.run("small-background"), _visible(worked.html("small-background"))


def _printed_misses(validation) -> list[str]:
    """Metrics whose bootstrap interval, printed to 3 decimals (or 0.1 %), misses the value
    printed beside it (Cllr_cal: printed Cllr minus printed minimum Cllr)."""
    m, boots = validation.metrics, validation.metric_intervals["intervals"]
    shown = dict(m, cllr_cal=round(round(m["cllr"], 3) - round(m["min_cllr"], 3), 3))
    digits = {"eer": 3}  # a percentage with one decimal: 3 decimals of the fraction
    misses = []
    for key, b in boots.items():
        if key in ("rmep", "rmed"):  # printed with their exact binomial intervals instead
            continue
        d = digits.get(key, 3)
        value, low, high = round(shown[key], d), round(b["low"], d), round(b["high"], d)
        if not low <= value <= high:
            misses.append(key)
    return misses


@pytest.mark.parametrize("name", WORKED)
def test_no_worked_report_prints_an_interval_with_equal_ends(worked, name):
    run = worked.run(name)
    text = _visible(worked.html(name))
    assert not _EQUAL_ENDS.findall(text), _EQUAL_ENDS.findall(text)
    # An interval that misses its estimate is explained beside the table, and only then.
    said = "does not contain its estimate" in text
    assert said == bool(_printed_misses(run.result.validation)), name
    assert not _GLUED.findall(text), _GLUED.findall(text)  # "change.How": a space lost


def test_pav_cap_in_every_replicate_is_not_estimable(tmp_path):
    # With pav, a score above every background score gets the cap log10(n_ds + 1) in
    # every bootstrap replicate: the interval is that value twice.
    spec = _copy(tmp_path, "small-background", [('calibrator = "bayes"', 'calibrator = "pav"'),
                                                   ('mode = "predictive"', '')])
    run = _run(spec)
    e = run.result.results[0]
    cap = math.log10(run.result.background_ds.n + 1)
    assert f"{e.interval.log10_lr_low:+.2f}" == f"{e.interval.log10_lr_high:+.2f}" == f"{cap:+.2f}"
    assert e.interval.collapsed and "not estimable" in e.interval.note
    text = _html(run)
    assert f"not estimable (both ends at {cap:+.2f})" in text
    assert not _EQUAL_ENDS.findall(text)


def test_a_limited_lr_has_one_statement_of_uncertainty(tmp_path):
    """The voice LR is limited by ELUB and the model's whole interval lies beyond the bound:
    the report states the limit, the model's value and its interval once, in the same
    words on page 1 and in section 6, never "at least" and never "not estimable"."""
    spec = _copy(tmp_path, "voice", [])  # the voice case bounds its LR by ELUB
    run = _run(spec)
    e = run.result.results[0]
    high = run.result.method.elub_log10_lr_high
    iv = e.interval
    assert e.bounded and iv.clipped and not iv.collapsed
    assert iv.log10_lr_low == iv.log10_lr_high == high  # the ends stay numbers, flagged
    assert high < iv.log10_lr_low_unbounded < iv.log10_lr_high_unbounded
    text = _html(run)
    model = math.log10(math.e) * e.llr_unbounded
    assert (f"LR limited to {e.lr_text} (log10 LR {high:+.2f}), the largest LR the validation "
            f"data support (ELUB); the model gives") in text
    assert text.count(e.uncertainty) == 2  # page 1 and section 6
    assert f"{model:+.2f}" in e.uncertainty
    assert (f"[{iv.log10_lr_low_unbounded:+.2f}, {iv.log10_lr_high_unbounded:+.2f}]" in text)
    assert "not estimable (both ends" not in text
    assert f"at least {e.lr_text}" not in text and "LR is at least" not in text
    assert not _EQUAL_ENDS.findall(text)
    # a metric whose bias correction cannot be read gets its percentile interval, said so
    plain = run.result.validation.metric_intervals["percentile"]
    assert ("the plain percentile interval is given" in text) == bool(plain)


def test_rates_as_counts_with_exact_intervals(small):
    run, text = small
    rmep = next(r for r in run.result.validation.rates if r.name == "rmep")
    assert (rmep.count, rmep.total) == (0, 12)
    ci = binomtest(0, 12).proportion_ci(0.95, method="exact")
    assert rmep.high == pytest.approx(ci.high, abs=1e-12)
    assert "0 of 12 (0.0 %)" in text and "at most 26.5 %" in text
    rmed = next(r for r in run.result.validation.rates if r.name == "rmed")
    ci = binomtest(rmed.count, rmed.total).proportion_ci(0.95, method="exact")
    assert f"{rmed.count} of {rmed.total}" in text
    assert f"[{100 * ci.low:.1f}, {100 * ci.high:.1f}] %" in text


def test_metric_intervals_and_fold_kind_are_stated(small):
    run, text = small
    v = run.result.validation
    assert v.folds_by == "trial" and v.metric_intervals["by"] == "trial"
    cllr = v.metric_intervals["intervals"]["cllr"]
    assert f"{v.metrics['cllr']:.3f} [{cllr['low']:.3f}, {cllr['high']:.3f}]" in text
    assert "The folds were drawn by comparison" in text


def test_cllr_cal_agrees_with_the_printed_cllr_and_min_cllr(small):
    run, text = small
    m = run.result.validation.metrics
    printed = round(round(m["cllr"], 3) - round(m["min_cllr"], 3), 3)
    assert abs(printed - m["cllr_cal"]) <= 0.001 + 1e-12
    assert f"Cllr_cal (bits) {printed:.3f}" in text


def test_prior_odds_posterior_uses_the_printed_lr(small):
    run, _ = small
    ctx = case_context(run, {})
    printed = float(run.result.results[0].lr_text.replace(",", ""))
    for row in ctx["prior_rows"]:
        assert row["posteriors"][0] == pytest.approx(row["prior"] + math.log10(printed))


def test_prior_odds_table_can_be_switched_off(tmp_path):
    spec = _copy(tmp_path, "small-background",
                 [('verbal_scale = "enfsi"', 'verbal_scale = "enfsi"\nprior_odds_table = false')])
    run = _run(spec)
    assert case_context(run, {})["prior_rows"] == []
    text = _html(run)
    assert "Posterior odds with" not in text and "posterior odds = LR × prior odds" in text


def test_one_warning_grammar_and_default_label(small):
    run, text = small
    assert run.result.results[0].label == "Q1-K1"  # items Q1 and K1, no labels given
    n = len(run.result.warnings)
    if n == 1:
        assert "carries 1 warning; it is listed in section 8" in text
    else:
        assert f"carries {n} warnings; all are listed in section 8" in text
    assert "e.g.:" not in text


def test_model_annex_and_readable_configuration(tmp_path):
    spec = _copy(tmp_path, "small-background",
                 [('title = "Toolmark comparison with a small validation set"',
                   'title = "Werkzeugspur aus Zürich"')])
    run = _run(spec)
    raw = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    text = _html(run)
    assert "Zürich" in text and "\\u00fc" not in raw
    assert "case.title Werkzeugspur aus Zürich" in text  # a table row, not JSON
    assert "Annex C. The model in words and numbers" in text
    d = run.result.method.description
    assert d.title in text and d.reference in text
    mu = run.result.method.params["posterior_ss"]["mu"]
    assert f"posterior_ss.mu {mu:.6g}" in text
    assert "Other methods in the sensitivity analysis" in text
    assert "Logistic regression" in text  # another method's description


def test_bayesian_interval_is_explained_as_a_credible_interval(tmp_path):
    spec = _copy(tmp_path, "voice")
    text = _html(_run(spec))
    assert "posterior credible interval" in text and "posterior probability" in text
    explained = text.split("posterior credible")[1][:400]
    assert "could change with other background data" not in explained


def test_sensitivity_section_is_rendered(small):
    run, text = small
    s = run.result.sensitivity
    assert "Robustness: sensitivity of the LR to the choices made" in text
    # a withheld report keeps its computed values in the one technical table only
    withheld = run.result.conclusion.status == "withheld"
    assert (s.summary[0] in text) != withheld
    assert "Figure 7." in text


def test_significant_figures_keep_trailing_zeros():
    from forensic_lr.report.render import environment

    sig = environment().filters["sig"]
    assert [sig(v) for v in (6.1, 1.38, 100.0, -2.5, 0.0)] == ["6.10", "1.38", "100", "-2.50",
                                                               "0.00"]
    assert sig(5.5, 3) == "5.50" and sig(None) == "n/a"


def test_background_table_prints_three_significant_figures(small):
    run, text = small
    from forensic_lr.report.render import significant

    s = run.result.background_ds
    assert f"{significant(s.minimum)} to {significant(s.maximum)}" in text


def test_interval_misses_compares_the_numbers_as_printed():
    """The one rule of the reports and the command line, by hand: the voice case's
    Cllr_cal, a miss that rounding hides (the command line's old rule, on raw values,
    marked it under numbers that print inside), a percentage (0.1 % = 3 decimals of the
    rate), undefined values, and an infinite end (the old command-line rule ignored it)."""
    from forensic_lr._numbers import interval_misses
    from forensic_lr.cli.common import OUTSIDE_MARK, outside_interval
    from forensic_lr.metrics.catalogue import metric

    assert interval_misses(0.015, 0.018, 0.031, 3)
    assert not interval_misses(0.0181, 0.0182, 0.03, 3)  # 0.018 [0.018, 0.030]
    assert interval_misses(0.0181, 0.0182, 0.03)  # as values, it misses
    pct = metric("eer").decimals
    assert interval_misses(0.0394, 0.0396, 0.05, pct)  # 3.9 % [4.0, 5.0] %
    assert not interval_misses(0.039, 0.031, 0.050, pct)
    assert not interval_misses(float("nan"), 0.1, 0.2, 3)
    assert not interval_misses(None, 0.1, 0.2, 3)
    assert interval_misses(0.05, 0.1, float("inf"), 3)
    assert not interval_misses(float("inf"), 0.1, float("inf"), 3)
    # the command line prints 4 decimals: 0.12344 [0.12346, 0.2] prints 0.1234 [0.1235, ...]
    assert outside_interval(0.12344, 0.12346, 0.2) == OUTSIDE_MARK
    assert outside_interval(0.123444, 0.123446, 0.2) == ""  # 0.1234 [0.1234, 0.2000]


def test_printed_metrics_by_hand():
    """Cllr 0.3124 and minimum Cllr 0.2006 print 0.312 and 0.201; Cllr_cal is printed as
    their difference, 0.111 (0.1118 itself would print 0.112); EER 0.03951 prints 4.0 %."""
    from forensic_lr.metrics.catalogue import printed_metrics

    shown = printed_metrics({"cllr": 0.3124, "min_cllr": 0.2006, "cllr_cal": 0.1118,
                             "eer": 0.03951, "devpav": float("nan")})
    assert shown == {"cllr": 0.312, "min_cllr": 0.201, "cllr_cal": 0.111, "eer": 0.04,
                     "devpav": None}


def test_rates_by_source_in_the_case_report(tmp_path, make_background, loop_rate_intervals):
    """With source columns the rates' intervals come from the bootstrap by source; the
    reference is a plain loop over the same draws (conftest's loop_rate_intervals)."""
    ss, ds = make_background(9, 60, 150, shift=2.0)
    rng = np.random.default_rng(4)
    ss_src = rng.integers(0, 12, ss.size)
    ds_src = np.array([rng.choice(12, 2, replace=False) for _ in ds])
    lines = ["label,score,source_a,source_b"]
    lines += [f"ss,{float(v)!r},P{s:02d},P{s:02d}" for v, s in zip(ss, ss_src, strict=True)]
    lines += [f"ds,{float(v)!r},P{a:02d},P{b:02d}" for v, (a, b) in zip(ds, ds_src, strict=True)]
    (tmp_path / "scores.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "case.toml").write_text(
        '[case]\nid = "S1"\n[propositions]\nhp = "a"\nhd = "b"\n[evidence]\nscore = 2.0\n'
        '[background]\nscores = "scores.csv"\n[method]\ncalibrator = "gaussian"\n'
        '[uncertainty]\nmethod = "none"\n[validation]\nfolds = 4\n', encoding="utf-8")
    run = _run(load_case(tmp_path / "case.toml"))
    v = run.result.validation
    expected = loop_rate_intervals(run.ss_llr_cv, run.ds_llr_cv, ss_src, ds_src, 12,
                               v.metric_intervals["n"], v.seed, 0.95, "bc")
    text = _html(run)
    for rate in v.rates:
        assert 0 < rate.count < rate.total and rate.interval == "bootstrap by source"
        assert (rate.low, rate.high) == pytest.approx(expected[rate.name], abs=1e-12)
        assert f"[{100 * rate.low:.1f}, {100 * rate.high:.1f}] %" in text
    assert "for RMEP and RMED as for the other metrics" in text
    assert "(exact binomial)" not in text


def test_validation_report_prints_cllr_cal_as_the_case_report_does():
    """Both reports print Cllr_cal as the printed Cllr minus the printed minimum Cllr: in
    the validation study's method table every method's three numbers agree by hand
    subtraction. Here the rounded Cllr_cal itself would print otherwise for two methods:
    logistic 0.3824 - 0.2996 = 0.0828 (0.083; printed 0.382 - 0.300 = 0.082) and pav
    0.4259 - 0.3794 = 0.0465 (0.046; printed 0.426 - 0.379 = 0.047)."""
    import re

    import numpy as np

    from forensic_lr.report.validation import build_validation_report
    from forensic_lr.validation import run_validation_study

    rng = np.random.default_rng(5)
    ss, ds = rng.normal(1.5, 1.0, 60), rng.normal(-1.0, 1.0, 120)
    study = run_validation_study(ss, ds, methods=("logistic", "gaussian", "pav"), folds=3,
                                 seed=1)
    html = build_validation_report(study, formats=("html",))["validation_report.html"].decode()
    for row in study.methods:
        m = row.metrics
        shown = round(round(m["cllr"], 3) - round(m["min_cllr"], 3), 3)
        cells = re.search(rf"<td>(?:<strong>)?{row.method}(?:</strong> \(best\))?</td>(.*?)</tr>",
                          html, re.S).group(1)
        numbers = re.findall(r'<td class="num">([^<]*)</td>', cells)
        assert numbers[:3] == [f"{m['cllr']:.3f}", f"{m['min_cllr']:.3f}", f"{shown:.3f}"]
