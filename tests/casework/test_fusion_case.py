"""Case files with [fusion]: several systems' scores per comparison fused into one LLR by
logistic-regression fusion, then calibrated and validated by the one case pipeline.

Independent values: the fusion weights and the case's fused value from scikit-learn's
LogisticRegression (no penalty, balanced class weights) on the columns read with numpy;
the record's fused metrics from metrics.cllr of the pipeline's background; the
out-of-fold values from fusions fitted by the test without each fold's sources.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from forensic_lr.calibration import LogisticFusion
from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.errors import InputError
from forensic_lr.metrics import cllr
from forensic_lr.resampling import source_folds

sklearn_linear = pytest.importorskip("sklearn.linear_model")

CASE = """\
[case]
id = "F-1"
items = [{{ id = "Q1", description = "call" }}, {{ id = "K1", description = "reference" }}]
[propositions]
hp = "same speaker"
hd = "another speaker"
[evidence]
description = "two systems"
{evidence}
[fusion]
systems = ["a", "b"]
scores = [[2.5, 0.7]]
{fusion}
[background]
scores = "scores.csv"
{background}
[method]
calibrator = "logistic"
[uncertainty]
method = "none"
seed = 4
[validation]
folds = 4
"""


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(21)
    rows = ["label,a,b,c,source_a,source_b"]
    for s in range(24):
        for z in rng.normal(size=(5, 3)):
            rows.append(f"ss,{2 + z[0]:.5f},{1 + z[1]:.5f},{z[2]:.5f},S{s},S{s}")
    for _ in range(300):
        i, j = rng.choice(24, 2, replace=False)
        z = rng.normal(size=3)
        rows.append(f"ds,{z[0]:.5f},{z[1]:.5f},{z[2]:.5f},S{i},S{j}")
    (tmp_path / "scores.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp_path


def _case(folder, evidence="", fusion="", background=""):
    path = folder / "case.toml"
    path.write_text(CASE.format(evidence=evidence, fusion=fusion, background=background),
                    encoding="utf-8")
    return load_case(path)


def _columns(folder):
    table = np.genfromtxt(folder / "scores.csv", delimiter=",", names=True, dtype=None,
                          encoding="utf-8")
    x = np.column_stack([table["a"], table["b"]])
    return x, table["label"] == "ss", table


def _sklearn(x, y, prior=0.5):
    """(a, b) of the prior-weighted logistic regression fitted by scikit-learn."""
    weight = np.where(y, prior / y.sum(), (1 - prior) / (~y).sum()) * y.size
    m, s = x.mean(axis=0), x.std(axis=0)
    fit = sklearn_linear.LogisticRegression(C=np.inf, tol=1e-12, max_iter=100_000).fit(
        (x - m) / s, y, sample_weight=weight)
    b = fit.coef_[0] / s
    return fit.intercept_[0] - b @ m - np.log(prior / (1 - prior)), b


@pytest.mark.parametrize("prior", [0.5, 0.3])
def test_the_evidence_is_the_fused_llr_of_the_fusion_fitted_on_all_background(folder, prior):
    spec = _case(folder, fusion=f"prior = {prior}")
    x, y, _ = _columns(folder)
    a, b = _sklearn(x, y, prior)
    assert spec.evidence.values == pytest.approx((a + b @ [2.5, 0.7],), abs=1e-6)
    assert spec.evidence.labels == ("Q1-K1",)
    assert spec.evidence.score_direction == "higher_is_similar"


def test_a_run_records_systems_weights_and_validates_out_of_fold_by_source(folder):
    spec = _case(folder)
    run = run_case_full(spec)
    f = run.result.fusion
    x, y, table = _columns(folder)
    a, b = _sklearn(x, y)
    assert [s.name for s in f.systems] == ["a", "b"]
    assert f.intercept == pytest.approx(a, abs=1e-6)
    assert [s.weight for s in f.systems] == pytest.approx(list(b), rel=1e-6)
    assert f.folds_by == "source" and run.result.validation.folds_by == "source"
    assert f.evidence == ((2.5, 0.7),) and f.labels == ("Q1-K1",)
    assert f.fused["cllr"] == pytest.approx(cllr(run.ss, run.ds), rel=1e-12)
    # every background value is that of a fusion the test fits without the fold's sources
    sources = np.column_stack([table["source_a"], table["source_b"]])
    expected = np.empty(y.size)
    ss_index, ds_index = np.flatnonzero(y), np.flatnonzero(~y)
    for split in source_folds(sources[y][:, 0], sources[~y], folds=4, seed=4):
        train = np.r_[ss_index[split.train_ss], ds_index[split.train_ds]]
        test = np.r_[ss_index[split.test_ss], ds_index[split.test_ds]]
        held_out = set(sources[test].ravel())
        assert not held_out & set(sources[train].ravel())
        ta, tb = _sklearn(x[train], y[train])
        expected[test] = ta + x[test] @ tb
    assert np.r_[run.ss, run.ds] == pytest.approx(np.r_[expected[y], expected[~y]], abs=1e-5)
    assert run_case_full(_case(folder)).result.to_json() == run.result.to_json()


def test_the_report_names_the_systems_the_method_its_references_and_the_weights(folder):
    from forensic_lr.report import build_report

    run = run_case_full(_case(folder))
    html = build_report(run, ("html",))["report.html"].decode("utf-8")
    assert "Logistic-regression fusion" in html and "Pigeon" in html and "FoCal" in html
    assert "fuses the scores of 2 systems (a, b)" in html
    assert "Weight per score unit" in html
    weight = run.result.fusion.systems[0].weight
    assert f"{weight:.3g}" in html
    assert "uncertainty of the fusion weights" not in html  # no interval, nothing to qualify


def test_page_1_and_the_interval_say_what_the_fused_scores_interval_resamples(folder):
    """The bootstrap refits both stages (the fusion and the calibration, by source here):
    page 1 and the interval's explanation say so, in English and in Spanish (typed here).
    A Bayesian interval (the calibrator's posterior) holds the fusion weights fixed: it says
    that instead."""
    from forensic_lr.report import build_report

    path = folder / "case.toml"
    _case(folder)
    text = path.read_text(encoding="utf-8").replace('method = "none"',
                                                    'method = "bootstrap"\nn = 100')
    bayes = text.replace('calibrator = "logistic"', 'calibrator = "bayes"').replace(
        'method = "bootstrap"', 'method = "bayes"')
    for case, language, page_1, section, absent in (
            (text, "en", "includes the uncertainty of the fusion weights: each bootstrap "
             "replicate refits the fusion and then the calibration",
             "each replicate draws the sources with replacement", "held fixed"),
            (text, "es", "incluye la incertidumbre de los pesos de la fusión: cada réplica "
             "bootstrap reajusta la fusión",
             "cada réplica extrae las fuentes con reemplazo", "se mantienen fijos"),
            (bayes, "en", "leaves out the uncertainty of the fusion weights, which are held "
             "fixed", "the interval resamples the calibration of the fused values only",
             "refits both stages")):
        path.write_text(case + f'\n[report]\nlanguage = "{language}"\n', encoding="utf-8")
        run = run_case_full(load_case(path))
        assert run.result.results[0].interval is not None
        html = build_report(run, ("html",))["report.html"].decode("utf-8")
        conclusion, _, rest = html.partition("<h2>")[2].partition("<h2>")
        assert page_1 in conclusion and section in rest, language
        assert absent not in html, language
        # the interval's kind names what it resampled: the sources, not the two sets apart
        if case is text and language == "en":
            assert ("percentile bootstrap interval (the background's sources resampled, as "
                    "described below)") in " ".join(rest.split())
            assert "sets resampled separately" not in " ".join(rest.split())


@pytest.mark.parametrize("evidence, fusion, background, wanted", [
    ("score = 2.0", "", "", "[evidence] score/scores/labels: a [fusion] case"),
    ('score_direction = "lower_is_similar"', "", "", "[evidence] score_direction"),
    ("", "", 'score_column = "a"', "[background] score_column"),
    ("", "labels = ['x', 'y']", "", "labels has 2 names for 1 comparisons"),
])
def test_bad_fusion_sections_name_the_key_and_the_fix(folder, evidence, fusion, background,
                                                        wanted):
    with pytest.raises(InputError) as info:
        _case(folder, evidence, fusion, background)
    assert wanted in str(info.value)


def test_a_row_with_the_wrong_number_of_scores_is_refused(folder):
    path = folder / "case.toml"
    text = CASE.format(evidence="", fusion="", background="").replace(
        "scores = [[2.5, 0.7]]", "scores = [[2.5, 0.7, 1.0]]")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\[0\] has 3 score\(s\) for 2 systems"):
        load_case(path)


def test_an_unknown_system_column_names_the_file_and_exits_2(folder, capsys):
    from forensic_lr.cli import main

    path = folder / "case.toml"
    path.write_text(CASE.format(evidence="", fusion="", background="").replace(
        'systems = ["a", "b"]', 'systems = ["a", "pitch"]'), encoding="utf-8")
    assert main(["run", str(path), "--out", str(folder / "out")]) == 2
    err = capsys.readouterr().err
    assert "[fusion] [background] systems 'a', 'pitch'" in err and "scores.csv" in err
    assert "has no 'pitch' column" in err and "check [fusion] systems" in err
    assert "Traceback" not in err


def test_validate_case_gives_the_runs_cllr(folder, capsys):
    from forensic_lr.cli import main

    spec = _case(folder)
    assert main(["validate", "--case", str(folder / "case.toml"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["cllr"] == pytest.approx(run_case_full(spec).result.validation.metrics[
        "cllr"], rel=1e-12)


def test_the_shipped_example_fuses_its_two_systems():
    from forensic_lr._resources import examples_dir
    from forensic_lr.io.paths import resolve_path

    folder = resolve_path(examples_dir() / "voice-fusion")
    spec = load_case(folder / "case.toml")
    table = np.genfromtxt(folder / "scores.csv", delimiter=",", names=True, dtype=None,
                          encoding="utf-8")
    x = np.column_stack([table["asr"], table["formants"]])
    a, b = _sklearn(x, table["label"] == "ss")
    assert spec.evidence.values == pytest.approx((a + b @ [5.61, 1.42],), abs=1e-6)
    fitted = LogisticFusion().fit(x[table["label"] == "ss"], x[table["label"] == "ds"])
    assert fitted.coefficients()[1] == pytest.approx(b, rel=1e-6)


def test_a_run_reads_the_background_file_once_and_fits_the_full_fusion_once(folder,
                                                                             monkeypatch):
    """Loading and running the case read scores.csv in one pass and fit the fusion on all
    background comparisons once (the evidence values and the record's weights share it)."""
    import forensic_lr.io.scores as scores_module

    reads, full_fits = [], []
    read_table = scores_module.read_table

    def counted_read(path, *args, **kwargs):
        reads.append(str(path))
        return read_table(path, *args, **kwargs)

    fit = LogisticFusion.fit

    def counted_fit(self, ss, ds, *args, **kwargs):
        full_fits.append(len(ss) + len(ds))
        return fit(self, ss, ds, *args, **kwargs)

    monkeypatch.setattr(scores_module, "read_table", counted_read)
    monkeypatch.setattr(LogisticFusion, "fit", counted_fit)
    run = run_case_full(_case(folder))
    assert [p for p in reads if p.endswith("scores.csv")] == [str(folder / "scores.csv")]
    n = len(run.ss) + len(run.ds)
    assert full_fits.count(n) == 1 and max(full_fits) == n  # the rest: fold fits


def test_a_system_that_alone_separates_the_classes_is_not_computable_alone(tmp_path):
    """System a alone separates same-source from different-source comparisons: its own
    logistic calibration has no finite solution, so its row says why (a warning with its
    code), while the fused system (penalised fusion and calibration) is validated."""
    from forensic_lr.report import build_report

    rng = np.random.default_rng(8)
    rows = ["label,a,b,source_a,source_b"]
    for s in range(20):
        for z in rng.normal(size=(4, 2)):
            rows.append(f"ss,{4 + 0.3 * z[0]:.5f},{1 + z[1]:.5f},S{s},S{s}")
    for _ in range(200):
        i, j = rng.choice(20, 2, replace=False)
        z = rng.normal(size=2)
        rows.append(f"ds,{0.3 * z[0]:.5f},{z[1]:.5f},S{i},S{j}")
    (tmp_path / "scores.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    text = CASE.format(evidence="", fusion="l2 = 0.01", background="").replace(
        'calibrator = "logistic"', 'calibrator = "logistic"\noptions = { l2 = 0.01 }')
    (tmp_path / "case.toml").write_text(text, encoding="utf-8")
    with pytest.warns(Warning, match="system a alone"):
        run = run_case_full(load_case(tmp_path / "case.toml"))
    a, b = run.result.fusion.systems
    assert a.cllr is None and a.min_cllr is None and a.eer is None
    assert "no finite solution" in a.not_computable
    assert b.cllr is not None and not b.not_computable
    assert run.result.validation.metrics["cllr"] == pytest.approx(cllr(run.ss_llr_cv,
                                                                       run.ds_llr_cv))
    codes = [m.code for m in run.result.warning_messages if m is not None]
    assert "warning.fusion_system_not_computable" in codes
    html = build_report(run, ("html",))["report.html"].decode("utf-8")
    assert "not computable alone: its logistic calibration cannot be fitted" in html
