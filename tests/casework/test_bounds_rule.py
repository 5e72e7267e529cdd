"""The bounds rule of a case: ``[method] bounds = "elub" | "iv" | "n-source" | "fixed"``.

* Each rule, run end to end, bounds the reported LR by values computed here independently:
  ELUB and invariance verification by the brute-force references of their own tests
  (``tests.calibration.test_elub``, ``tests.calibration.test_invariance``) applied to the
  run's out-of-fold LLRs; the N-source bound by log10 of the number of sources counted
  by hand from the ids this file writes; the fixed bounds are the values written.
* The rule is recorded (``bounds_rule``) and named in every sentence of the record and
  the report that names the bound; an ELUB case's record keeps its ELUB sentences.
* A laboratory's rule is a floor: a case may not choose another rule or wider fixed
  bounds, may choose narrower ones.
* Bad input (fixed bounds missing or on the wrong side of 0, fixed bounds with another
  rule, the N-source bound without sources) is an input error naming the key: exit 2.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import warnings

import numpy as np
import pytest

from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.i18n import translations
from forensic_lr.i18n.messages import message_text
from forensic_lr.report import build_report
from tests.calibration.test_elub import brute_elub
from tests.calibration.test_invariance import _brute_iv

LN10 = math.log(10.0)
#: The sources of the background written below: same-source pairs of S01..S20 (two each),
#: different-source pairs drawn from S01..S25: 25 distinct ids, counted by hand.
N_SOURCES = 25
SS_IDS = [f"S{i:02d}" for i in range(1, 21)]
ALL_IDS = [f"S{i:02d}" for i in range(1, 26)]


def _write_case(folder, method: str, *, score: float = 6.0, lab: str | None = None):
    """A small gaussian case with source ids; ``method``: the lines of ``[method]``."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    ss_rows = ["score,source_a,source_b"] + [
        f"{rng.normal(2.0, 1.0):.4f},{s},{s}" for s in SS_IDS for _ in range(2)]
    ds_rows = ["score,source_a,source_b"]
    for _ in range(150):
        a, b = rng.choice(len(ALL_IDS), size=2, replace=False)
        ds_rows.append(f"{rng.normal(-1.0, 1.2):.4f},{ALL_IDS[a]},{ALL_IDS[b]}")
    (folder / "ss.csv").write_text("\n".join(ss_rows) + "\n", encoding="utf-8")
    (folder / "ds.csv").write_text("\n".join(ds_rows) + "\n", encoding="utf-8")
    report = f'lab_profile = "{lab}"\n' if lab else ""
    (folder / "case.toml").write_text(f"""\
[case]
id = "BR-1"
[propositions]
hp = "The questioned and reference items come from the same source."
hd = "The questioned and reference items come from different sources."
[evidence]
score = {score}
labels = ["Q1-K1"]
[background]
ss = "ss.csv"
ds = "ds.csv"
[method]
calibrator = "gaussian"
{method}
[uncertainty]
method = "none"
seed = 7
[validation]
folds = 3
[report]
formats = ["json"]
{report}""", encoding="utf-8")
    return folder / "case.toml"


def _run(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_case_full(load_case(path, **kwargs))


def _hand_counted_sources(folder) -> int:
    ids = set()
    for name in ("ss.csv", "ds.csv"):
        for line in (folder / name).read_text().splitlines()[1:]:
            ids.update(line.split(",")[1:])
    return len(ids)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One run per rule (the same data, folds and seed)."""
    methods = {"elub": "", "iv": 'bounds = "iv"', "n-source": 'bounds = "n-source"',
               "fixed": 'bounds = "fixed"\nfixed_bounds = [-1.5, 1.25]'}
    out = {}
    for rule, lines in methods.items():
        folder = tmp_path_factory.mktemp(rule)
        out[rule] = (folder, _run(_write_case(folder, lines)))
    return out


def _expected(rule, folder, run):
    if rule == "elub":
        return brute_elub(run.ss_llr_cv, run.ds_llr_cv)
    if rule == "iv":
        return _brute_iv(run.ss_llr_cv / LN10, run.ds_llr_cv / LN10)
    if rule == "n-source":
        assert _hand_counted_sources(folder) == N_SOURCES
        return -math.log10(N_SOURCES), math.log10(N_SOURCES)
    return -1.5, 1.25


@pytest.mark.parametrize("rule", ["elub", "iv", "n-source", "fixed"])
def test_each_rule_bounds_the_lr_by_its_independent_value(runs, rule):
    folder, run = runs[rule]
    r = run.result
    low, high = _expected(rule, folder, run)
    assert r.method.bounds_rule == r.validation.bounds_rule == r.sensitivity.bounds_rule == rule
    assert r.method.elub_applied
    assert r.method.elub_log10_lr_low == pytest.approx(low, abs=1e-9)
    assert r.method.elub_log10_lr_high == pytest.approx(high, abs=1e-9)
    assert r.validation.elub_log10 == (r.method.elub_log10_lr_low, r.method.elub_log10_lr_high)
    assert r.sensitivity.elub_log10 == r.validation.elub_log10
    assert r.validation.n_sources == N_SOURCES
    e = r.results[0]
    model = e.llr_unbounded / LN10
    assert model > high  # the score lies beyond every rule's upper bound here
    assert e.bounded and e.log10_lr == pytest.approx(high, abs=1e-9)
    # the limited metrics are those of the out-of-fold LLRs clipped to the same bounds
    assert r.validation.metrics_limited is not None
    data = json.loads(r.to_json())
    assert data["method"]["bounds_rule"] == rule


@pytest.mark.parametrize("rule", ["iv", "n-source", "fixed"])
def test_the_record_names_the_rule_applied(runs, rule):
    r = runs[rule][1].result
    term = {"iv": "invariance verification", "n-source": "N-source bound",
            "fixed": "fixed bounds set by the laboratory"}[rule]
    limited = r.results[0].uncertainty_messages[0]
    assert limited.code == "evidence.limited.largest.rule"
    assert limited.params["rule_term"] == term
    assert f"the upper bound ({term})" in r.results[0].uncertainty
    assert "ELUB" not in r.results[0].uncertainty
    assert all("ELUB" not in s for s in r.sensitivity.summary)
    # in every language the rule is named in its words
    for language in ("es", "de", "fr", "nl", "sv"):
        said = message_text(limited.code, limited.params, language)
        assert translations(language, "report").gettext(term) in said, language


def test_an_elub_case_keeps_its_elub_sentences(runs):
    r = runs["elub"][1].result
    assert r.results[0].uncertainty_messages[0].code == "evidence.limited.largest"
    assert "rule_term" not in r.results[0].uncertainty_messages[0].params
    assert "(ELUB)" in r.results[0].uncertainty


def _html(run, language: str) -> str:
    spec = run.spec.model_copy(update={
        "report": run.spec.report.model_copy(update={"language": language})})
    html = build_report(dataclasses.replace(run, spec=spec), formats=("html",))["report.html"]
    return re.sub(r"\s+", " ", html.decode("utf-8"))


@pytest.mark.parametrize("language", ["en", "es", "de", "fr", "nl", "sv"])
def test_the_report_names_the_n_source_bound_not_elub(runs, language):
    html = _html(runs["n-source"][1], language)
    _ = translations(language, "report").gettext
    main_elub = _("Empirical lower and upper bounds (ELUB, Vergeer et al. 2016): %(data)s "
                  "support\nlog<sub>10</sub> LR between %(low)s and\n%(high)s.")
    assert re.sub(r"\s+", " ", main_elub.split("%(data)s")[0]) not in html
    assert _("N-source bound") in html
    if language == "en":
        assert ("N-source bound: the background data come from 25 sources, and no LR is "
                "taken to give more than a factor 25 of support") in html
        assert "limited (N-source bound); model" in html
        assert "N-source bound (log10 LR -1.40, +1.40)" in html.replace("−", "-")


def test_the_report_names_iv_with_its_paper(runs):
    html = _html(runs["iv"][1], "en")
    assert "Invariance-verification bounds (Alberink et al. 2025)" in html
    assert "Vergeer" not in html  # neither in the text nor in the glossary (annex B)
    assert "Invariance verification (log10 LR" in html  # the figures' legends


@pytest.mark.parametrize("rule", ["iv", "n-source", "fixed"])
def test_a_report_under_another_rule_never_calls_its_bounds_elub(runs, rule):
    """ELUB is named once only: the annex E row of ``elub_from``, which the IV bounds share
    ("LRs the ELUB or invariance-verification bounds come from"); the beyond-background
    rule's meaning and the glossary follow the rule applied."""
    html = re.sub(r"<[^>]+>", " ", _html(runs[rule][1], "en"))
    assert "ELUB limits" not in html
    assert "bounds applied to the reported LR limit it" in html
    assert html.count("ELUB") == 1, [m.start() for m in re.finditer("ELUB", html)]


def test_an_elub_report_explains_elub_in_its_glossary(runs):
    html = _html(runs["elub"][1], "en")
    glossary = html.split("Annex B")[-1]
    assert "Empirical lower and upper bounds: the range of LRs" in glossary


# ------------------------------------------------------------------- the laboratory's floor

def _lab(folder, text: str):
    path = folder / "lab.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_lab_rule_is_a_floor(tmp_path):
    lab = _lab(tmp_path, '[method]\nbounds = "fixed"\nfixed_bounds = [-2.0, 2.0]\n')
    other = _write_case(tmp_path / "iv", 'bounds = "iv"')
    with pytest.raises(InputError, match=r"\[method\] bounds = 'iv'.*sets 'fixed'"):
        load_case(other, lab=lab)
    wider = _write_case(tmp_path / "wide", 'bounds = "fixed"\nfixed_bounds = [-3.0, 2.0]')
    with pytest.raises(InputError, match=r"\[method\] fixed_bounds"):
        load_case(wider, lab=lab)
    # narrower bounds are stricter: allowed, and annex E says so
    narrow = _write_case(tmp_path / "narrow", 'bounds = "fixed"\nfixed_bounds = [-1.0, 1.5]')
    spec = load_case(narrow, lab=lab)
    assert spec.method.fixed_bounds == (-1.0, 1.5)
    run = _run(narrow, lab=lab)
    rows = {p.key: p for p in run.result.policy}
    assert rows["method.fixed_bounds"].relation == "stricter"
    assert rows["method.bounds"].value == "fixed"
    assert (run.result.method.elub_log10_lr_low, run.result.method.elub_log10_lr_high) == (
        -1.0, 1.5)
    # a case that says nothing takes the laboratory's rule and bounds
    silent = _write_case(tmp_path / "silent", "")
    spec = load_case(silent, lab=lab)
    assert (spec.method.bounds, spec.method.fixed_bounds) == ("fixed", (-2.0, 2.0))
    assert spec.settings_sources["method.bounds"] == "lab profile"


def test_a_lab_profile_checks_its_own_bounds(tmp_path):
    lab = _lab(tmp_path, "[method]\nfixed_bounds = [-2.0, 2.0]\n")
    case = _write_case(tmp_path / "c", "")
    with pytest.raises(InputError, match="fixed_bounds"):
        load_case(case, lab=lab)


# --------------------------------------------------------------------------------- bad input

@pytest.mark.parametrize(("lines", "needle"), [
    ('bounds = "fixed"', "fixed_bounds"),
    ('bounds = "fixed"\nfixed_bounds = [0.5, 2.0]', "fixed_bounds"),
    ('bounds = "fixed"\nfixed_bounds = [-2.0, -0.5]', "fixed_bounds"),
    ('fixed_bounds = [-2.0, 2.0]', "fixed_bounds"),
    ('bounds = "static"', "bounds"),
])
def test_bad_bounds_in_a_case_file_exit_2_naming_the_key(tmp_path, capsys, lines, needle):
    case = _write_case(tmp_path / "c", lines)
    code = main(["-q", "run", str(case), "--out", str(tmp_path / "out"), "--draft"])
    err = capsys.readouterr().err
    assert code == 2
    assert "[method]" in err and needle in err and "Traceback" not in err


def test_n_source_without_sources_exits_2(tmp_path, capsys):
    case = _write_case(tmp_path / "c", 'bounds = "n-source"')
    for name in ("ss.csv", "ds.csv"):  # the score column only
        rows = (tmp_path / "c" / name).read_text().splitlines()
        (tmp_path / "c" / name).write_text(
            "\n".join(["score"] + [r.split(",")[0] for r in rows[1:]]) + "\n")
    code = main(["-q", "run", str(case), "--out", str(tmp_path / "out"), "--draft"])
    err = capsys.readouterr().err
    assert code == 2 and '[method] bounds = "n-source"' in err and "source" in err


def test_calibrate_takes_the_same_rules(tmp_path, capsys):
    folder = tmp_path / "c"
    _write_case(folder, "")
    common = ["-q", "calibrate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
              "--column", "score", "--score", "6", "--interval", "none", "--json"]
    assert main([*common, "--bounds", "fixed", "--fixed-bounds", "-1", "0.75"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bounds_rule"] == "fixed"
    assert out["elub"] == {"log10_lr_low": -1.0, "log10_lr_high": 0.75}
    assert out["results"][0]["log10_lr"] == pytest.approx(0.75, abs=1e-12)
    assert main([*common, "--bounds", "n-source"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["elub"]["log10_lr_high"] == pytest.approx(math.log10(N_SOURCES), abs=1e-12)
    for bad in (["--bounds", "fixed"], ["--bounds", "fixed", "--fixed-bounds", "1", "2"],
                ["--fixed-bounds", "-1", "1"]):
        assert main([*common, *bad]) == 2
        err = capsys.readouterr().err
        assert "--fixed-bounds" in err or "fixed_bounds" in err


def test_run_bounds_option_overrides_the_case(tmp_path, capsys):
    case = _write_case(tmp_path / "c", "")
    out = tmp_path / "out"
    assert main(["-q", "run", str(case), "--out", str(out), "--draft",
                 "--bounds", "n-source"]) == 0
    capsys.readouterr()
    result = json.loads((out / "result.json").read_text())
    assert result["method"]["bounds_rule"] == "n-source"
    assert result["method"]["elub_log10_lr_high"] == pytest.approx(math.log10(N_SOURCES))
    rows = {p["key"]: p for p in result["policy"]}
    assert rows["method.bounds"]["source"] == "command line"
