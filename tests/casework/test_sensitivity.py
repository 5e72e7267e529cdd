"""The sensitivity section: the LR under other methods, relevance factors and background resamples.

Independent values: ``forensic-lr calibrate --method M`` run as a separate command with the
case's ELUB flag (the must-show of the section), the Gaussian method for the suspect-adapted
population model (the same ML two-normal model), and a slow looped bootstrap that builds
each resample trial by trial from the same random draws.
"""

from __future__ import annotations

import copy
import json
import math
import re
import warnings

import numpy as np
import pytest

from forensic_lr import cli, plots
from forensic_lr._resources import examples_dir
from forensic_lr.calibration import ELUB, background_only_methods, make_calibrator
from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.sensitivity import background_bootstrap, sensitivity_analysis
from forensic_lr.casework.verbal import load_scale
from forensic_lr.io.scores import orient


def _case(tmp_path, name: str, *, elub: bool | None = None):
    """A copy of a worked case with no interval (fast) and, if given, the ELUB setting."""
    folder = examples_dir() / name
    text = (folder / "case.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^method = "(bootstrap|bayes)"', 'method = "none"', text)
    if elub is not None:
        text = re.sub(r"(?m)^elub = (true|false)", f"elub = {str(elub).lower()}", text)
    for f in folder.glob("*.csv"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "case.toml").write_text(text, encoding="utf-8")
    spec = load_case(tmp_path / "case.toml")
    assert spec.uncertainty.method == "none"
    assert elub is None or spec.method.elub is elub
    return spec


def _run(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_case_full(spec)


def _calibrate(capsys, folder, method, scores, *, elub, direction="higher_is_similar"):
    argv = ["calibrate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--method", method, "--interval", "none", "--direction", direction, "--json"]
    argv += ["--elub"] if elub else ["--no-elub"]
    for s in scores:
        argv += ["--score", repr(s)]
    assert cli.main(argv) == 0
    return [r["log10_lr"] for r in json.loads(capsys.readouterr().out)["results"]]


@pytest.mark.parametrize("elub", [False, True])
def test_table_equals_forensic_lr_calibrate_for_every_method(tmp_path, capsys, elub):
    spec = _case(tmp_path, "small-background", elub=elub)
    run = _run(spec)
    s = run.result.sensitivity
    assert s.elub_applied is elub
    names = [r.calibrator for r in s.rows if r.group == "calibrator"]
    assert names == list(background_only_methods())  # bayes (the case's) among them
    for row in s.rows:  # the models' own values: calibrate without --elub
        expected = _calibrate(capsys, tmp_path, row.calibrator, spec.evidence.values,
                              elub=False)
        assert row.log10_lr == pytest.approx(expected, abs=1e-12), row.calibrator
    case_row = next(r for r in s.rows if r.is_case)
    assert case_row.calibrator == "bayes"
    e = run.result.results[0]
    assert case_row.log10_lr[0] == pytest.approx(e.llr_unbounded / math.log(10), abs=1e-12)
    # the case's one ELUB is stated beside the unbounded values when applied
    m = run.result.method
    assert s.elub_log10 == ((m.elub_log10_lr_low, m.elub_log10_lr_high) if elub else None)
    assert ("the reported LR is limited to the ELUB" in s.summary[0]) is elub


def test_distances_use_the_case_direction(tmp_path, capsys):
    spec = _case(tmp_path, "glass-distance", elub=True)
    run = _run(spec)
    for row in run.result.sensitivity.rows:
        got = row.log10_lr
        expected = _calibrate(capsys, tmp_path, row.calibrator, spec.evidence.values,
                              elub=False, direction="lower_is_similar")
        assert got == pytest.approx(expected, abs=1e-12), row.calibrator


def test_spread_levels_and_sentence_follow_the_rows(tmp_path):
    spec = _case(tmp_path, "small-background")
    s = _run(spec).result.sensitivity
    values = [r.log10_lr[0] for r in s.rows]
    assert s.spread_log10[0] == pytest.approx(max(values) - min(values), abs=1e-15)
    ordered = [r.levels[0] for r in sorted(s.rows, key=lambda r: r.log10_lr[0])]
    assert s.levels_reached[0] == tuple(dict.fromkeys(ordered))
    assert len(s.levels_reached[0]) > 1  # 41 (pav) to 1.1e6 (logistic): the band changes
    text = s.summary[0]
    assert f"from {min(values):+.2f} to {max(values):+.2f}" in text
    assert "the verbal equivalent changes between" in text
    assert f"spread of {max(values) - min(values):.2f} log10 units" in text


def test_relevance_factors_and_population_model(tmp_path):
    spec = _case(tmp_path, "suspect-adapted")
    run = _run(spec)
    s = run.result.sensitivity
    rel = {r.label: r for r in s.rows if r.group == "relevance"}
    assert set(rel) == {f"relevance r = {r:g}" for r in (2, 4, 8, 16, 32)} | {
        "population model (no adaptation)"}
    assert rel["relevance r = 8"].is_case  # the case's relevance = 8.0
    assert rel["relevance r = 8"].log10_lr[0] == pytest.approx(run.result.results[0].log10_lr)
    # With no suspect scores the adapted model is the population's ML two-normal model.
    gaussian = next(r for r in s.rows if r.calibrator == "gaussian")
    assert rel["population model (no adaptation)"].log10_lr == pytest.approx(
        gaussian.log10_lr, abs=1e-12)
    # The values the example's README states: r = 2: 15, 8: 12, 32: 10, population 8.9
    # (the more weight on the suspect's low scores, the higher the LR at 4.85).
    from forensic_lr.casework.verbal import format_lr
    got = {k: format_lr(r.log10_lr[0]) for k, r in rel.items()}
    assert got["relevance r = 2"] == "15" and got["relevance r = 8"] == "12"
    assert got["relevance r = 32"] == "10" and got["population model (no adaptation)"] == "8.9"
    assert "relevance factors" in s.summary[0]


def _slow_bootstrap(template, ss, ds, x, sources, n, seed):
    """Trial-by-trial resamples from the same random draws as the fast version."""
    rng = np.random.default_rng(seed)
    ids = sorted(set(np.ravel(sources[0])) | set(np.ravel(sources[1])))
    code = {s: i for i, s in enumerate(ids)}
    out = []
    for _ in range(n):
        draws = rng.integers(0, len(ids), len(ids))
        m = [int(np.sum(draws == i)) for i in range(len(ids))]
        s_list, d_list = [], []
        for values, pairs, target in ((ss, sources[0], s_list), (ds, sources[1], d_list)):
            for v, (a, b) in zip(values, pairs, strict=True):
                times = m[code[a]] if a == b else m[code[a]] * m[code[b]]
                target.extend([v] * times)
        s_arr, d_arr = np.array(s_list), np.array(d_list)
        if s_arr.size < 2 or d_arr.size < 2 or np.ptp(s_arr) == 0 or np.ptp(d_arr) == 0:
            continue
        out.append(copy.deepcopy(template).fit(s_arr, d_arr).llr(x) / math.log(10))
    return np.array(out)


def test_background_bootstrap_by_source_equals_a_looped_resample(make_background):
    ss, ds = make_background(5, 40, 90)
    rng = np.random.default_rng(1)
    names = np.array([f"S{i}" for i in range(10)])
    own = rng.integers(0, 10, ss.size)
    ss_src = np.stack([names[own], names[own]], axis=1)
    a, b = rng.integers(0, 10, ds.size), rng.integers(0, 9, ds.size)
    b = np.where(b >= a, b + 1, b)  # a different source
    ds_src = np.stack([names[a], names[b]], axis=1)
    x = np.array([1.0, 2.5])
    template = ELUB(make_calibrator("gaussian"))
    boot = background_bootstrap(template, ss, ds, x, sources=(ss_src, ds_src), n=60,
                                level=0.9, seed=11)
    slow = _slow_bootstrap(template, ss, ds, x, (ss_src, ds_src), 60, 11)
    assert boot.by == "source" and boot.n_sources == 10
    assert boot.n - boot.n_failed == len(slow)
    np.testing.assert_allclose(boot.log10_lr_low, np.quantile(slow, 0.05, axis=0), atol=1e-12)
    np.testing.assert_allclose(boot.log10_lr_high, np.quantile(slow, 0.95, axis=0), atol=1e-12)
    np.testing.assert_allclose(boot.log10_lr_median, np.median(slow, axis=0), atol=1e-12)


def test_background_bootstrap_by_trial_loops_a_method_without_hook(make_background):
    ss, ds = make_background(2, 30, 70)
    x = np.array([0.5])
    template = make_calibrator("four_pl")
    assert not hasattr(template, "bootstrap_llr")
    boot = background_bootstrap(template, ss, ds, x, n=40, seed=3)
    rng = np.random.default_rng(3)
    slow = []
    for _ in range(40):
        i = rng.integers(0, ss.size, ss.size)
        j = rng.integers(0, ds.size, ds.size)
        # the same multiset as the fast version's counts (order does not change the fit)
        s, d = np.sort(ss[i]), np.sort(ds[j])
        slow.append(copy.deepcopy(template).fit(s, d).llr(x)[0] / math.log(10))
    assert boot.by == "trial" and boot.n_failed == 0
    assert boot.log10_lr_median[0] == pytest.approx(np.median(slow), abs=1e-9)


@pytest.mark.parametrize("name, elub", [("logistic", False), ("logistic", True),
                                        ("gaussian", True), ("bayes", True), ("scal", True),
                                        ("kde", True), ("student_t", True)])
@pytest.mark.parametrize("chunk", [None, 1_000])
def test_background_bootstrap_by_trial_equals_looped_refits_on_the_same_draws(
        make_background, monkeypatch, name, elub, chunk):
    # The vectorised hooks (with each replicate's own ELUB bounds) against refitting the
    # case's template, ELUB included, on the very resamples the hook drew, block by block
    # (with a small chunk, bootstrap_fits is evaluated in several blocks of replicates).
    import forensic_lr.casework.sensitivity as sensitivity
    from forensic_lr.resampling import bootstrap_index_chunks

    if chunk is not None:
        monkeypatch.setattr(sensitivity, "CHUNK_DRAWS", chunk)
    ss, ds = make_background(2, 30, 70)
    x = np.array([0.5, 3.0])
    template = ELUB(make_calibrator(name)) if elub else make_calibrator(name)
    n = 12  # each looped replicate refits the method and its ELUB (S-cal: about 1 s)
    boot = background_bootstrap(template, ss, ds, x, n=n, level=0.9, seed=3)
    size = x.size + (ss.size + ds.size if elub else 0)
    # a method with bootstrap_fits (or with ELUB, bootstrap_elub) draws all replicates at
    # once; else one hook call per block
    hooks = ("bootstrap_fits", "bootstrap_elub") if elub else ("bootstrap_fits",)
    once = any(hasattr(make_calibrator(name), hook) for hook in hooks)
    block = n if once else max(1, sensitivity.CHUNK_DRAWS // size)
    rng = np.random.default_rng(3)
    slow = []
    for start in range(0, n, block):
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, min(block, n - start), ss.size,
                                                     ds.size):
            for i, j in zip(idx_ss, idx_ds, strict=True):
                with warnings.catch_warnings():  # S-cal's saturation notes: not tested here
                    warnings.simplefilter("ignore")
                    fitted = copy.deepcopy(template).fit(ss[i], ds[j])
                slow.append(fitted.llr(x) / math.log(10))
    slow = np.array(slow)
    assert boot.by == "trial" and boot.n_failed == 0 and len(slow) == n
    np.testing.assert_allclose(boot.log10_lr_low, np.quantile(slow, 0.05, axis=0), atol=1e-7)
    np.testing.assert_allclose(boot.log10_lr_median, np.median(slow, axis=0), atol=1e-7)
    np.testing.assert_allclose(boot.log10_lr_high, np.quantile(slow, 0.95, axis=0), atol=1e-7)


def test_case_with_sources_folds_and_resamples_by_source(tmp_path, make_background):
    ss, ds = make_background(9, 60, 150)
    rng = np.random.default_rng(4)
    lines = ["label,score,source_a,source_b"]
    for v in ss:
        s = f"P{rng.integers(0, 12)}"
        lines.append(f"ss,{float(v)!r},{s},{s}")
    for v in ds:
        a, b = rng.choice(12, 2, replace=False)
        lines.append(f"ds,{float(v)!r},P{a},P{b}")
    (tmp_path / "scores.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "case.toml").write_text(
        '[case]\nid = "S1"\n[propositions]\nhp = "a"\nhd = "b"\n[evidence]\nscore = 2.0\n'
        '[background]\nscores = "scores.csv"\n[method]\ncalibrator = "gaussian"\n'
        '[uncertainty]\nmethod = "none"\n[validation]\nfolds = 4\n', encoding="utf-8")
    result = _run(load_case(tmp_path / "case.toml")).result
    assert result.validation.folds_by == "source" and result.validation.n_sources == 12
    assert result.validation.metric_intervals["by"] == "source"
    assert result.sensitivity.bootstrap.by == "source"
    assert "(by source)" in result.sensitivity.summary[0]


def test_failed_method_is_a_row_with_a_note(make_background):
    ss, ds = make_background(1, 10, 20)
    s = sensitivity_analysis(
        ss, ds, [1.0], calibrator="gaussian", options={"equal_variance": "maybe"},
        scale=load_scale("enfsi"), labels=["E1"],
    )
    own = next(r for r in s.rows if r.is_case)
    assert own.log10_lr == (None,) and "could not be fitted" in own.note
    assert s.spread_log10[0] is not None  # the other methods still count


def test_plot_function_and_svg_wrapper(tmp_path):
    spec = _case(tmp_path, "suspect-adapted")
    s = _run(spec).result.sensitivity
    fig = plots.sensitivity(s, elub_log10=(-2.0, 1.2))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "population model (no adaptation)" in labels and labels[-1].startswith("background")
    assert "relevance r = 8" not in labels  # the case's own row is drawn once
    from matplotlib.figure import Figure
    other = Figure()
    ax = other.add_subplot()
    assert plots.sensitivity(s, ax=ax) is other
    svg = plots.sensitivity_svg(s)
    assert svg.startswith("<?xml") and "log10 LR" in svg


def test_direction_is_applied_once(make_background):
    # Evidence is given as measured; background already score-like (as the pipeline has it).
    ss, ds = make_background(0, 40, 80)
    dist_ss, dist_ds = -ss, -ds
    s = sensitivity_analysis(
        orient(dist_ss, "lower_is_similar"), orient(dist_ds, "lower_is_similar"), [-2.0],
        calibrator="gaussian", direction="lower_is_similar", scale=load_scale("enfsi"),
        labels=["E1"],
    )
    t = sensitivity_analysis(ss, ds, [2.0], calibrator="gaussian", scale=load_scale("enfsi"),
                             labels=["E1"])
    assert s.rows[0].log10_lr == pytest.approx(t.rows[0].log10_lr, abs=1e-12)


def test_robustness_levels_use_the_laboratorys_wording_below_the_first_band():
    # Equal-variance normals 0.3 apart: every method gives an LR between 1 and 2 at the
    # midpoint + 0.5, a range the ENFSI scale leaves to the laboratory ("limited support").
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(0.3, 1.0, 400), rng.normal(0.0, 1.0, 400)
    s = sensitivity_analysis(ss, ds, [0.65], calibrator="gaussian",
                             scale=load_scale("enfsi"), below_first_band="limited",
                             labels=["E1"])
    values = [(r.log10_lr[0], r.levels[0]) for r in s.rows if r.log10_lr[0] is not None]
    between = [level for v, level in values if 0 < v < math.log10(2)]
    assert between and set(between) == {"limited support"}
    default = sensitivity_analysis(ss, ds, [0.65], calibrator="gaussian",
                                   scale=load_scale("enfsi"), labels=["E1"])
    assert "no verbal equivalent" in {r.levels[0] for r in default.rows}
