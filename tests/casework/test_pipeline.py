"""The case pipeline: each worked case against direct computations, determinism, warnings."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case, run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.casework.verbal import format_lr, verbal_equivalent
from forensic_lr.errors import ForensicLRWarning, InputError

LN10 = math.log(10.0)
EXAMPLES = ("voice", "small-background", "glass-distance")


def _fast(spec, **uncertainty):
    """The same case with few bootstrap replicates / draws (keeps the tests fast)."""
    unc = spec.uncertainty.model_copy(update={"n": 200, **uncertainty})
    return spec.model_copy(update={"uncertainty": unc})


def _quiet_run(spec, progress=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return run_case_full(spec, progress)


@pytest.fixture(scope="module")
def runs():
    return {name: _quiet_run(_fast(load_case(examples_dir() / name / "case.toml")))
            for name in EXAMPLES}


def _cllr_bits(ss_llr, ds_llr):
    """Cllr from its definition (Brummer & du Preez 2006), written out here independently."""
    ss_term = np.mean(np.logaddexp(0, -ss_llr))
    ds_term = np.mean(np.logaddexp(0, ds_llr))
    return 0.5 * (ss_term + ds_term) / math.log(2)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_lr_equals_direct_calibrator_computation(runs, name):
    from forensic_lr.calibration import ELUB, make_calibrator

    run = runs[name]
    spec = run.spec
    folder = examples_dir() / name
    sign = -1.0 if spec.evidence.score_direction == "lower_is_similar" else 1.0
    ss = sign * np.loadtxt(folder / "ss.csv")
    ds = sign * np.loadtxt(folder / "ds.csv")
    np.testing.assert_array_equal(run.ss, ss)
    np.testing.assert_array_equal(run.ds, ds)
    x = sign * np.asarray(spec.evidence.values)
    model = make_calibrator(spec.method.calibrator, **spec.method.options)
    if spec.method.elub:
        model = ELUB(model)
    expected = model.fit(ss, ds).llr(x)
    for i, r in enumerate(run.result.results):
        assert r.score == spec.evidence.values[i] and r.score_used == x[i]
        assert r.llr == pytest.approx(expected[i], rel=1e-12, abs=1e-12)
        assert r.log10_lr == pytest.approx(r.llr / LN10, rel=1e-15)
        assert r.lr_text == format_lr(r.log10_lr)
        assert r.verbal == verbal_equivalent(r.log10_lr, spec.report.verbal_scale)
        assert r.bounded == (r.llr != r.llr_unbounded)
        if r.interval is not None:
            assert r.interval.level == spec.uncertainty.level
            assert r.interval.log10_lr_low <= r.interval.log10_lr_high


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_summaries_provenance_and_validation(runs, name):
    run = runs[name]
    res = run.result
    folder = examples_dir() / name
    for cls in ("ss", "ds"):
        summary = getattr(res, f"background_{cls}")
        raw = np.loadtxt(folder / f"{cls}.csv")  # the file's own scale (no direction)
        assert summary.file == f"{cls}.csv" and summary.n == raw.size
        assert summary.minimum == raw.min() and summary.maximum == raw.max()
        assert summary.mean == pytest.approx(raw.mean(), rel=1e-12)
        assert summary.sd == pytest.approx(np.std(raw, ddof=1), rel=1e-12)
        digest = hashlib.sha256((folder / f"{cls}.csv").read_bytes()).hexdigest()
        assert summary.sha256 == digest == res.provenance.inputs[f"{cls}.csv"]
    case_bytes = (folder / "case.toml").read_bytes()
    assert res.provenance.case_file_sha256 == hashlib.sha256(case_bytes).hexdigest()
    assert res.provenance.software["numpy"] == np.__version__
    assert res.provenance.seed == run.spec.uncertainty.seed
    assert res.provenance.configuration["uncertainty"]["n"] == 200
    # the cross-validated metrics describe the out-of-fold LLRs of every background score
    assert run.ss_llr_cv.shape == run.ss.shape and run.ds_llr_cv.shape == run.ds.shape
    m = res.validation.metrics
    assert (m["n_ss"], m["n_ds"]) == (run.ss.size, run.ds.size)
    assert m["cllr"] == pytest.approx(_cllr_bits(run.ss_llr_cv, run.ds_llr_cv), rel=1e-9)
    assert m["rmep"] == pytest.approx(np.mean(run.ss_llr_cv < 0))
    assert m["rmed"] == pytest.approx(np.mean(run.ds_llr_cv > 0))
    for c in res.validation.criteria:
        assert c.value == m[c.metric]
        assert c.met == (c.value <= c.threshold if c.comparison == "<=" else c.value >= c.threshold)
    json.loads(res.to_json())  # standard JSON (no NaN/Infinity tokens)
    assert "Infinity" not in res.to_json() and "NaN" not in res.to_json()


def test_voice_case_matches_the_seed_story(runs):
    r = runs["voice"].result.results[0]
    # score 5.96 lies between the SS (about 4-7) and DS (about 2-5) ranges: support for Hp
    assert r.verbal.favours == "hp" and 1 < r.log10_lr < 4
    assert runs["voice"].result.validation.all_criteria_met is True


def test_result_json_is_byte_identical_across_runs():
    spec = _fast(load_case(examples_dir() / "small-background" / "case.toml"))
    first = _quiet_run(spec).result.to_json()
    second = _quiet_run(copy.deepcopy(spec)).result.to_json()
    assert first == second
    other_seed = _quiet_run(_fast(spec, seed=1)).result.to_json()
    assert other_seed != first


def test_small_background_warns_and_bayes_shrinks(runs):
    res = runs["small-background"].result
    assert res.warnings  # small classes: the report must say so
    assert res.validation.all_criteria_met is False  # cllr_max = 0.1 is not met
    assert any("cllr_max not met" in w for w in res.warnings)
    spec = runs["small-background"].spec
    gauss = spec.model_copy(update={"method": spec.method.model_copy(
        update={"calibrator": "gaussian", "options": {}})})
    g = _quiet_run(gauss).result.results[0].log10_lr
    b = res.results[0].log10_lr
    # the posterior predictive is less extreme than the ML plug-in with 12 SS scores
    assert 0 < b < g and g - b > 0.1


def test_gaussian_case_against_closed_form(tmp_path):
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(2, 1, 60), rng.normal(-1, 1.5, 80)
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    (tmp_path / "case.toml").write_text(
        '[case]\nid = "G1"\n[propositions]\nhp = "a"\nhd = "b"\n'
        "[evidence]\nscores = [0.5, 2.5, 9.0]\n"
        '[background]\nss = "ss.csv"\nds = "ds.csv"\n'
        '[method]\ncalibrator = "gaussian"\nelub = false\n[uncertainty]\nmethod = "none"\n',
        encoding="utf-8",
    )
    spec = load_case(tmp_path / "case.toml")
    with pytest.warns(ForensicLRWarning):
        res = run_case(spec)
    x = np.array([0.5, 2.5, 9.0])
    # ML normal densities (ddof=0), scipy.stats
    expected = stats.norm.logpdf(x, ss.mean(), ss.std()) - stats.norm.logpdf(x, ds.mean(), ds.std())
    got = np.array([r.llr for r in res.results])
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert [r.label for r in res.results] == ["E1", "E2", "E3"]
    assert [r.extrapolated for r in res.results] == [False, False, True]
    assert all(r.interval is None for r in res.results)
    assert any("9" in w for w in res.warnings)  # the extrapolation warning names the score


def test_bayes_interval_needs_bayes_calibrator():
    spec = load_case(examples_dir() / "glass-distance" / "case.toml")
    with pytest.raises(InputError, match=r'calibrator = "bayes"'):
        run_case(_fast(spec, method="bayes"))


def test_bad_background_value_is_an_error(tmp_path):
    (tmp_path / "ss.csv").write_text("1.0\nnan\n2.0\n", encoding="utf-8")
    (tmp_path / "ds.csv").write_text("0.0\n-1.0\n0.5\n", encoding="utf-8")
    (tmp_path / "case.toml").write_text(
        '[case]\nid = "N1"\n[propositions]\nhp = "a"\nhd = "b"\n[evidence]\nscore = 1\n'
        '[background]\nss = "ss.csv"\nds = "ds.csv"\n', encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"ss\.csv"):
        run_case(load_case(tmp_path / "case.toml"))


def test_progress_reaches_the_end():
    spec = _fast(load_case(examples_dir() / "small-background" / "case.toml"))
    calls = []
    _quiet_run(spec, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] == 200


def test_one_labelled_background_file_with_distances(tmp_path):
    rng = np.random.default_rng(11)
    ss, ds = np.abs(rng.normal(0, 1, 30)), rng.uniform(1, 6, 50)
    rows = [f"ss,{float(v)!r}" for v in ss] + [f"ds,{float(v)!r}" for v in ds]
    (tmp_path / "bg.csv").write_text("label,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "case.toml").write_text(
        '[case]\nid = "D1"\n[propositions]\nhp = "a"\nhd = "b"\n'
        '[evidence]\nscore = 0.5\nscore_direction = "lower_is_similar"\n'
        '[background]\nscores = "bg.csv"\n'
        '[method]\ncalibrator = "gaussian"\nelub = false\n[uncertainty]\nmethod = "none"\n',
        encoding="utf-8",
    )
    res = run_case(load_case(tmp_path / "case.toml"))
    r = res.results[0]
    assert (r.score, r.score_used) == (0.5, -0.5)
    # negated distances: N(-0.5; -mean_ss, sd_ss) / N(-0.5; -mean_ds, sd_ds), scipy.stats
    expected = stats.norm.logpdf(0.5, ss.mean(), ss.std()) - stats.norm.logpdf(
        0.5, ds.mean(), ds.std())
    assert r.llr == pytest.approx(expected, rel=1e-10)
    assert r.verbal.favours == "hp"
    # summaries are on the scale of the file (distances, not negated)
    assert res.background_ss.minimum == pytest.approx(ss.min())
    assert res.background_ds.maximum == pytest.approx(ds.max())
    assert res.background_ss.file == res.background_ds.file == "bg.csv"
    digest = hashlib.sha256((tmp_path / "bg.csv").read_bytes()).hexdigest()
    assert res.provenance.inputs == {"bg.csv": digest}


def test_elub_bounds_the_lr_and_its_interval(tmp_path):
    rng = np.random.default_rng(3)
    np.savetxt(tmp_path / "ss.csv", rng.normal(2, 1, 40))
    np.savetxt(tmp_path / "ds.csv", rng.normal(-2, 1, 60))
    (tmp_path / "case.toml").write_text(
        '[case]\nid = "B1"\n[propositions]\nhp = "a"\nhd = "b"\n'
        '[evidence]\nscores = [0.0, 8.0]\n[background]\nss = "ss.csv"\nds = "ds.csv"\n'
        '[method]\ncalibrator = "gaussian"\nelub = true\n'
        '[uncertainty]\nmethod = "bootstrap"\nn = 200\n',
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        res = run_case(load_case(tmp_path / "case.toml"))
    high = res.method.elub_log10_lr_high
    # Vergeer et al. 2016: the upper bound stays below log10(n_ds + 1), here log10(61)
    assert 0 <= high < math.log10(61)
    mid, far = res.results
    assert not mid.bounded and mid.interval.note == ""
    assert far.bounded and far.llr_unbounded > far.llr
    assert far.log10_lr == pytest.approx(high, rel=1e-12)
    assert far.interval.log10_lr_high == pytest.approx(high, rel=1e-12)
    assert far.interval.clipped and far.interval.log10_lr_high_unbounded > high
    assert far.uncertainty.startswith(f"LR limited to {format_lr(high)} ")
    assert "at least" not in far.uncertainty
    assert far.lr_text == format_lr(high)
    # the one ELUB: that of the validation's cross-validated LLRs, everywhere
    assert res.validation.elub_log10 == (res.method.elub_log10_lr_low, high)


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_report_states_its_result(runs, name):
    """Render every worked case; the PDF text agrees with result.json (read with pypdf)."""
    import io

    from pypdf import PdfReader

    from forensic_lr.report import build_report

    files = build_report(runs[name], formats=("pdf", "json"))
    result = json.loads(files["result.json"])
    reader = PdfReader(io.BytesIO(files["report.pdf"]))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    withheld = result["conclusion"]["status"] == "withheld"
    if withheld:  # page 1 gives the reasons; section 6 keeps the computed values
        assert "No evaluative opinion can be given because" in text
    for e in result["results"]:
        shown = e["lr_text"] if withheld else f"LR = {e['lr_text']}"
        assert shown.replace("^", "") in text.replace("^", "")
        assert f"{e['log10_lr']:+.2f}" in text
        # a withheld report prints no verbal level (issue: withheld means withheld everywhere)
        assert (e["verbal"]["level"] in text) != withheld
    assert result["case"]["id"] in text and result["report_id"] in text
    for key in ("hp", "hd"):
        assert " ".join(result["propositions"][key].rstrip(".").split()) in text
    assert f"Page {len(reader.pages)} of {len(reader.pages)}" in text
