"""The further calibrators in the case pipeline, the report and ``calibrate``.

Expected values come from: the MAP adaptation written out here in its textbook form
(Reynolds et al. 2000, eq. 11-14, the ``alpha E[x^2]`` form, not the library's centred
form) with scipy.stats.norm densities; scikit-learn's LogisticRegression for the
recalibration slope and offset; the closed form of calibrated Gaussian LLRs (van Leeuwen
and Brummer 2013: if SS scores are N(mu, 2 mu) and DS scores N(-mu, 2 mu), the score is
its own LLR, so a recalibration has slope 1 and offset 0); hashlib for SHA-256.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from forensic_lr._resources import examples_dir
from forensic_lr.calibration import calibration_checks, make_calibrator
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError

LN10 = math.log(10.0)
CASE = examples_dir() / "suspect-adapted"


def _scores(path):
    """The score column of one of the example's background files (score,source... CSV)."""
    return np.loadtxt(path, delimiter=",", skiprows=1, usecols=0)


def _fast(spec, n=200):
    unc = spec.uncertainty.model_copy(update={"n": n})
    return spec.model_copy(update={"uncertainty": unc})


def _quiet(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return run_case_full(spec)


@pytest.fixture(scope="module")
def suspect_run():
    return _quiet(_fast(load_case(CASE / "case.toml")))


def _write(path, values):
    path.write_text("".join(f"{float(v)!r}\n" for v in values), encoding="utf-8")


def _case(tmp_path, *, calibrator, background="", options="", score=1.0, direction=None,
          uncertainty='method = "none"'):
    """A minimal case file in tmp_path (ss.csv / ds.csv must be written by the caller)."""
    text = f"""
[case]
id = "T-1"
[propositions]
hp = "same"
hd = "different"
[evidence]
score = {score}
{f'score_direction = "{direction}"' if direction else ""}
[background]
ss = "ss.csv"
ds = "ds.csv"
{background}
[method]
calibrator = "{calibrator}"
elub = false
[method.options]
{options}
[uncertainty]
{uncertainty}
seed = 7
[validation]
folds = 3
"""
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def background(tmp_path):
    rng = np.random.default_rng(11)
    ss, ds = rng.normal(2.0, 1.0, 200), rng.normal(-1.0, 1.2, 400)
    _write(tmp_path / "ss.csv", ss)
    _write(tmp_path / "ds.csv", ds)
    return ss, ds


# ---------------------------------------------------------------- case-file rules


@pytest.mark.parametrize(
    ("calibrator", "background_keys", "options", "words"),
    [
        ("bayes", 'suspect_ss = "sus.csv"', "", ["[background] suspect_ss", "suspect_map"]),
        ("gaussian", 'unlabelled = "unl.csv"', "", ["[background] unlabelled", "unsupervised"]),
        ("suspect_map", 'unlabelled = "unl.csv"', "", ["[background] unlabelled"]),
        ("unsupervised", "", "", ["unlabelled", 'unlabelled = "unlabelled.csv"']),
        ("suspect_map", "", 'suspect_ss = "sus.csv"', ["[method.options] suspect_ss",
                                                        "[background]"]),
    ],
)
def test_extra_score_keys_need_their_method(tmp_path, background, calibrator, background_keys,
                                            options, words):
    _write(tmp_path / "sus.csv", [1.0, 2.0, 3.0])
    _write(tmp_path / "unl.csv", np.linspace(-2, 3, 40))
    path = _case(tmp_path, calibrator=calibrator, background=background_keys, options=options)
    with pytest.raises(InputError) as err:
        load_case(path)
    for word in words:
        assert word in str(err.value)


def test_missing_suspect_file_names_the_key(tmp_path, background):
    path = _case(tmp_path, calibrator="suspect_map", background='suspect_ss = "nope.csv"')
    with pytest.raises(InputError, match=r"\[background\] suspect_ss: .*: file not found"):
        load_case(path)


def test_one_suspect_score_is_an_error_naming_the_fix(tmp_path, background):
    _write(tmp_path / "sus.csv", [1.5])
    spec = load_case(_case(tmp_path, calibrator="suspect_map",
                           background='suspect_ss = "sus.csv"'))
    with pytest.raises(InputError, match="at least 2"):
        _quiet(spec)


# ---------------------------------------------------------------- suspect-adapted case


def _map_by_hand(pop, suspect, r):
    """Reynolds et al. (2000) eq. 11-14, written from the paper: alpha E[x^2] form."""
    n = suspect.size
    alpha = n / (n + r)
    mu_pop, var_pop = pop.mean(), pop.var()          # ML moments (ddof = 0)
    mu = alpha * suspect.mean() + (1 - alpha) * mu_pop
    var = alpha * np.mean(suspect**2) + (1 - alpha) * (var_pop + mu_pop**2) - mu**2
    return mu, math.sqrt(var)


def test_suspect_case_lr_equals_direct_and_hand_computation(suspect_run):
    ss = _scores(CASE / "ss.csv")
    ds = _scores(CASE / "ds.csv")
    suspect = np.loadtxt(CASE / "suspect_ss.csv")
    result = suspect_run.result
    e = result.results[0]
    relevance = suspect_run.spec.method.options["relevance"]
    direct = make_calibrator("suspect_map", suspect_ss=suspect, relevance=relevance)
    assert e.llr == pytest.approx(float(direct.fit(ss, ds).llr([e.score])[0]), rel=1e-12)
    mu, sd = _map_by_hand(ss, suspect, relevance)
    by_hand = stats.norm.logpdf(e.score, mu, sd) - stats.norm.logpdf(e.score, ds.mean(), ds.std())
    assert e.llr == pytest.approx(by_hand, rel=1e-9)
    assert e.log10_lr == pytest.approx(by_hand / LN10, rel=1e-9)
    # the population model gives another LR: the suspect scores were used
    population = stats.norm.logpdf(e.score, ss.mean(), ss.std()) - stats.norm.logpdf(
        e.score, ds.mean(), ds.std())
    assert abs(e.llr - population) > 0.1
    p = result.method.params
    assert p["n_suspect"] == suspect.size == 8
    assert p["mean_shift_sd"] == pytest.approx((mu - ss.mean()) / ss.std(), rel=1e-9)
    assert p["sd_ratio"] == pytest.approx(sd / ss.std(), rel=1e-9)


def test_suspect_case_records_file_hashes_summary_and_limitation(suspect_run):
    result = suspect_run.result
    digest = hashlib.sha256((CASE / "suspect_ss.csv").read_bytes()).hexdigest()
    assert result.provenance.inputs["suspect_ss.csv"] == digest
    summary = result.background_suspect_ss
    suspect = np.loadtxt(CASE / "suspect_ss.csv")
    assert (summary.n, summary.sha256) == (8, digest)
    assert summary.mean == pytest.approx(suspect.mean(), rel=1e-12)
    assert result.background_unlabelled is None
    assert any("not validation data" in text and "each background source" in text
               for text in result.limitations)


def test_bootstrap_and_folds_refit_with_the_suspect_scores(suspect_run):
    """Interval and CV LLRs from a loop written here over the same draws / folds."""
    from forensic_lr.io.scores import load_scores
    from forensic_lr.uncertainty import cross_validated_llr

    ss, ds = suspect_run.ss, suspect_run.ds
    suspect = np.loadtxt(CASE / "suspect_ss.csv")
    spec = suspect_run.spec
    e = suspect_run.result.results[0]
    # bootstrap draws as fixed in docs/dev/architecture.md, refitted one by one here
    rng = np.random.default_rng(spec.uncertainty.seed)
    n = spec.uncertainty.n
    idx_ss = rng.integers(0, ss.size, (n, ss.size))
    idx_ds = rng.integers(0, ds.size, (n, ds.size))
    llrs = []
    for i_ss, i_ds in zip(idx_ss, idx_ds, strict=True):
        s, d = ss[i_ss], ds[i_ds]
        mu, sd = _map_by_hand(s, suspect, 8.0)
        llrs.append(stats.norm.logpdf(e.score, mu, sd)
                    - stats.norm.logpdf(e.score, d.mean(), d.std()))
    low, high = np.percentile(llrs, [2.5, 97.5])
    assert e.interval.log10_lr_low == pytest.approx(low / LN10, rel=1e-3, abs=1e-3)
    assert e.interval.log10_lr_high == pytest.approx(high / LN10, rel=1e-3, abs=1e-3)
    # the validation leaves one speaker out (40 folds, 40 speakers) and adapts the model
    # to each left-out speaker's own scores; tests/calibration/test_suspect_validation.py
    # checks that against a plain loop of hand-made fits on these data
    assert suspect_run.result.validation.folds_by == "source"
    assert suspect_run.result.validation.n_sources == spec.validation.folds == 40
    data = load_scores(ss=str(CASE / "ss.csv"), ds=str(CASE / "ds.csv"))
    relevance = spec.method.options["relevance"]
    loso = cross_validated_llr(
        ss, ds, make_calibrator("suspect_map", suspect_ss=suspect, relevance=relevance),
        folds=None, ss_sources=data.ss_sources, ds_sources=data.ds_sources)
    np.testing.assert_array_equal(loso[0], suspect_run.ss_llr_cv)
    np.testing.assert_array_equal(loso[1], suspect_run.ds_llr_cv)
    # not the population model's (gaussian) out-of-fold LLRs
    pop_ss, _ = cross_validated_llr(ss, ds, make_calibrator("gaussian"), folds=None,
                                    ss_sources=data.ss_sources, ds_sources=data.ds_sources)
    assert not np.allclose(pop_ss, suspect_run.ss_llr_cv)


def test_result_json_byte_identical_across_runs():
    spec = _fast(load_case(CASE / "case.toml"), n=100)
    assert _quiet(spec).result.to_json() == _quiet(spec).result.to_json()


def test_distances_negate_the_suspect_scores_too(tmp_path, background):
    ss, ds = background
    suspect = np.array([1.2, 1.9, 0.8, 1.5])
    _write(tmp_path / "sus.csv", suspect)
    up = _quiet(load_case(_case(tmp_path, calibrator="suspect_map", score=1.3,
                                background='suspect_ss = "sus.csv"')))
    _write(tmp_path / "ss.csv", -ss)
    _write(tmp_path / "ds.csv", -ds)
    _write(tmp_path / "sus.csv", -suspect)
    down = _quiet(load_case(_case(tmp_path, calibrator="suspect_map", score=-1.3,
                                  direction="lower_is_similar",
                                  background='suspect_ss = "sus.csv"')))
    assert down.result.results[0].llr == pytest.approx(up.result.results[0].llr, rel=1e-12)
    assert down.result.background_suspect_ss.mean == pytest.approx(-suspect.mean())


# ---------------------------------------------------------------- calibration checks


def test_checks_in_result_json_equal_a_direct_call_and_sklearn(suspect_run):
    from sklearn.linear_model import LogisticRegression

    from forensic_lr.report import build_report

    stored = json.loads(build_report(suspect_run, formats=("json",))["result.json"])
    checks = stored["validation"]["calibration_checks"]
    direct = calibration_checks(suspect_run.ss_llr_cv, suspect_run.ds_llr_cv).to_dict()
    assert checks == json.loads(json.dumps(direct))
    # independent: prior-weighted logistic regression by scikit-learn (no penalty)
    ss, ds = suspect_run.ss_llr_cv, suspect_run.ds_llr_cv
    x = np.concatenate([ss, ds])[:, None]
    y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
    w = np.concatenate([np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)])
    model = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000)
    model.fit(x, y, sample_weight=w * y.size)
    assert checks["recalibration"]["slope"] == pytest.approx(model.coef_[0, 0], rel=1e-4)
    assert checks["recalibration"]["offset"] == pytest.approx(model.intercept_[0], abs=1e-4)
    # Gaussian consistency ratios from their definition
    assert checks["gaussian"]["ratio_ss"] == pytest.approx(ss.var(ddof=1) / (2 * ss.mean()))
    assert checks["gaussian"]["ratio_ds"] == pytest.approx(ds.var(ddof=1) / (-2 * ds.mean()))


def test_calibrated_gaussian_case_has_slope_one(tmp_path):
    """SS ~ N(mu, 2 mu), DS ~ N(-mu, 2 mu): the score is its own LLR (closed form)."""
    mu = 2.0
    rng = np.random.default_rng(2013)
    _write(tmp_path / "ss.csv", rng.normal(mu, math.sqrt(2 * mu), 2000))
    _write(tmp_path / "ds.csv", rng.normal(-mu, math.sqrt(2 * mu), 2000))
    path = _case(tmp_path, calibrator="gaussian", options="equal_variance = true")
    result = _quiet(load_case(path)).result
    # the fitted LLR is close to the score itself
    assert result.results[0].llr == pytest.approx(1.0, abs=0.1)
    rec = result.validation.calibration_checks["recalibration"]
    gauss = result.validation.calibration_checks["gaussian"]
    assert rec["slope"] == pytest.approx(1.0, abs=0.06)
    assert rec["offset"] == pytest.approx(0.0, abs=0.06)
    assert rec["slope_interval"][0] < 1 < rec["slope_interval"][1]
    assert rec["offset_interval"][0] < 0 < rec["offset_interval"][1]
    assert gauss["ratio_ss"] == pytest.approx(1.0, abs=0.1)
    assert gauss["ratio_ds"] == pytest.approx(1.0, abs=0.1)
    # EER of N(mu, 2mu) vs N(-mu, 2mu) is Phi(-sqrt(mu/2)); the implied mu is mu
    assert gauss["mu_from_eer"] == pytest.approx(mu, rel=0.15)


# ---------------------------------------------------------------- unsupervised and scal


def test_unsupervised_case_passes_unlabelled_scores_and_warns(tmp_path, background):
    ss, ds = background
    rng = np.random.default_rng(12)
    unlabelled = np.concatenate([rng.normal(1.6, 1.0, 20), rng.normal(-1.2, 1.1, 40)])
    _write(tmp_path / "unl.csv", unlabelled)
    path = _case(tmp_path, calibrator="unsupervised", background='unlabelled = "unl.csv"',
                 options="prior_weight = 5.0", score=0.7)
    with pytest.warns(ForensicLRWarning, match="only 60 unlabelled scores"):
        run = run_case_full(load_case(path))
    result = run.result
    direct = make_calibrator("unsupervised", unlabelled=unlabelled, prior_weight=5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        expected = float(direct.fit(ss, ds).llr([0.7])[0])
    assert result.results[0].llr == pytest.approx(expected, rel=1e-12)
    assert "only 60 unlabelled scores: the mixture estimate is uncertain" in result.warnings
    assert result.background_unlabelled.n == 60
    digest = hashlib.sha256((tmp_path / "unl.csv").read_bytes()).hexdigest()
    assert result.provenance.inputs["unl.csv"] == digest
    assert any("normally distributed" in text for text in result.limitations)
    # the folds repeat the fit diagnostics with other numbers: summarised in one line
    folds = [t for t in result.warnings if t.startswith("the cross-validation fits raised")]
    assert len(folds) <= 1
    assert sum(t.startswith("the unlabelled scores contain") for t in result.warnings) <= 2


def test_report_method_sections(suspect_run, tmp_path, background):
    """The PDF names the suspect scores; the S-cal report gives its limits (HTML)."""
    from pypdf import PdfReader

    from forensic_lr.report import build_report

    files = build_report(suspect_run, formats=("pdf",))
    reader = PdfReader(io.BytesIO(files["report.pdf"]))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    assert "suspect same-source scores used 8" in text
    assert "Calibration checks" in text and "recalibration slope" in text
    assert "not validation data" in text
    assert "by leave-one-source-out cross-validation (40 folds, one per source)" in text
    assert "Each source left out took the suspect's place" in text
    slope = suspect_run.result.validation.calibration_checks["recalibration"]["slope"]
    assert f"{slope:.2f}" in text

    spec = load_case(_case(tmp_path, calibrator="scal"))
    run = _quiet(spec)
    html = build_report(run, formats=("html",))["report.html"].decode()
    p = run.result.method.params
    assert f"{p['lower_log10_lr']:+.2f}" in html and f"{p['upper_log10_lr']:+.2f}" in html
    assert p["lower_log10_lr"] == pytest.approx(p["lower_llr"] / LN10)


# ---------------------------------------------------------------- command line


def test_cli_calibrate_with_suspect_scores(capsys):
    folder = CASE
    code = main([
        "calibrate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
        "--suspect-ss", str(folder / "suspect_ss.csv"), "--method", "suspect_map",
        "--option", "relevance=8", "--score", "4.85", "--interval", "none", "--json",
    ])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    ss, ds = _scores(folder / "ss.csv"), _scores(folder / "ds.csv")
    mu, sd = _map_by_hand(ss, np.loadtxt(folder / "suspect_ss.csv"), 8.0)
    by_hand = stats.norm.logpdf(4.85, mu, sd) - stats.norm.logpdf(4.85, ds.mean(), ds.std())
    assert out["results"][0]["llr"] == pytest.approx(by_hand, rel=1e-9)
    assert out["params"]["n_suspect"] == 8


@pytest.mark.parametrize(
    ("extra", "method", "message"),
    [
        (["--suspect-ss", "SUS"], "gaussian", "--suspect-ss is only used by --method suspect_map"),
        (["--unlabelled", "SUS"], "bayes", "--unlabelled is only used by --method unsupervised"),
        ([], "unsupervised", "add --unlabelled FILE"),
        ([], "suspect_map", "add --suspect-ss FILE"),
        (["--option", "suspect_ss=x"], "suspect_map", "give the score file with --suspect-ss"),
    ],
)
def test_cli_calibrate_extra_score_rules(capsys, extra, method, message):
    folder = CASE
    extra = [str(folder / "suspect_ss.csv") if a == "SUS" else a for a in extra]
    code = main(["calibrate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
                 "--method", method, "--score", "1", "--interval", "none", *extra])
    assert code == 2
    assert message in capsys.readouterr().err


def test_cli_calibrate_unlabelled_with_distances(tmp_path, background, capsys):
    ss, ds = background
    rng = np.random.default_rng(13)
    unlabelled = np.concatenate([rng.normal(2.0, 1.0, 60), rng.normal(-1.0, 1.2, 140)])
    for name, values in (("ss", ss), ("ds", ds), ("unl", unlabelled)):
        _write(tmp_path / f"n{name}.csv", -values)
    code = main([
        "calibrate", "--ss", str(tmp_path / "nss.csv"), "--ds", str(tmp_path / "nds.csv"),
        "--unlabelled", str(tmp_path / "nunl.csv"), "--method", "unsupervised",
        "--direction", "lower_is_similar", "--score", "-0.5", "--interval", "none", "--json",
    ])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        direct = make_calibrator("unsupervised", unlabelled=unlabelled).fit(ss, ds)
    assert out["results"][0]["llr"] == pytest.approx(float(direct.llr([0.5])[0]), rel=1e-12)
    assert out["params"]["n_unlabelled"] == 200


def test_example_readme_states_what_the_case_prints(suspect_run):
    """The README's numbers, each formatted from the run as the report prints it."""
    readme = " ".join((CASE / "README.md").read_text(encoding="utf-8").split())
    r = suspect_run.result
    p, m = r.method.params, r.validation.metrics
    rec = r.validation.calibration_checks["recalibration"]
    sens = {row.label: row.log10_lr[0] for row in r.sensitivity.rows}
    from forensic_lr.casework.verbal import format_lr

    assert r.conclusion.status == "reported"
    expected = [
        f"LR {r.results[0].lr_text} (log10 LR {r.results[0].log10_lr:+.2f}",
        f"against {format_lr(sens['population model (no adaptation)'])} with the population",
        ", ".join(format_lr(sens[f"relevance r = {k}"]) for k in (2, 4, 8)),
        f"from {p['mean_pop']:.2f} to {p['mean_ss']:.2f}",
        f"a shift of {p['mean_shift_sd']:.2f} population SDs",
        f"(ratio {p['sd_ratio']:.2f})",
        f"adaptation weight {p['alpha']:.2f}",
        f"Cllr {m['cllr']:.3f} (minimum {m['min_cllr']:.3f}), EER {100 * m['eer']:.1f} %",
        "slope of {:.2f} [{:.2f}, {:.2f}]".format(rec["slope"], *rec["slope_interval"]),
        "offset {:.2f} [{:.2f}, {:.2f}]".format(rec["offset"], *rec["offset_interval"]),
        f"`folds = {r.validation.folds}` with {r.validation.n_sources} named speakers",
    ]
    for text in expected:
        assert text in readme, text
    assert r.results[0].verbal.level == "moderate support"
    # docs/user/report.md quotes the example's slope
    docs = Path(__file__).resolve().parents[2] / "docs" / "user" / "report.md"
    text = " ".join(docs.read_text(encoding="utf-8").split())
    assert "`suspect-adapted` shows a slope of {:.2f} [{:.2f}, {:.2f}]".format(
        rec["slope"], *rec["slope_interval"]) in text


def test_example_without_speaker_ids_validates_the_population_model_and_is_withheld(
        tmp_path, suspect_run):
    """The same scores without source columns: the adaptation cannot be validated."""
    import shutil

    folder = tmp_path / "no-ids"
    shutil.copytree(CASE, folder)
    for name in ("ss.csv", "ds.csv"):
        _write(folder / name, _scores(CASE / name))
    text = (folder / "case.toml").read_text(encoding="utf-8")
    (folder / "case.toml").write_text(text.replace("folds = 40", "folds = 5"), encoding="utf-8")
    run = _quiet(_fast(load_case(folder / "case.toml"), n=100))
    r = run.result
    assert r.validation.folds_by == "trial"
    assert any("name no sources" in w and "population model only" in w for w in r.warnings)
    # the out-of-fold LLRs are the population model's (gaussian, the same folds)
    from forensic_lr.uncertainty import cross_validated_llr

    pop = cross_validated_llr(run.ss, run.ds, make_calibrator("gaussian"), folds=5,
                              seed=r.validation.seed)
    np.testing.assert_array_equal(pop[0], run.ss_llr_cv)
    assert r.conclusion.status == "withheld"
    assert any("not the method as applied" in t and "source columns" in t
               for t in r.conclusion.reasons)
    # the LR itself is the adapted model's, as with the speaker ids
    assert r.results[0].llr == suspect_run.result.results[0].llr


def test_validation_report_of_the_case_says_how_sources_were_adapted_to(tmp_path, capsys):
    code = main(["validate", "--case", str(CASE / "case.toml"), "--report", str(tmp_path / "v")])
    assert code == 0, capsys.readouterr().err
    html = (tmp_path / "v" / "validation_report.html").read_text(encoding="utf-8")
    text = " ".join(html.replace("&#39;", "'").split())
    assert "Suspect-adapted Gaussian calibration (MAP): Each source left out took the " \
           "suspect's place" in text
    study = json.loads((tmp_path / "v" / "validation.json").read_text(encoding="utf-8"))
    assert study["folds_by"] == "source"
