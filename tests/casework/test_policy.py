"""The opinion policy on the worked cases: bounded or withheld headlines, every reason on
page 1, written overrides, non-monotonic calibration, and the band of the printed LR."""

from __future__ import annotations

import json
import math
import shutil
import warnings

import numpy as np
import pytest
from markupsafe import escape
from scipy.optimize import brentq

from forensic_lr._resources import examples_dir
from forensic_lr.calibration import make_calibrator
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.policy import WITHHELD_OPENING
from forensic_lr.casework.spec import load_case
from forensic_lr.casework.verbal import format_lr, load_scale, verbal_equivalent
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.report import build_report


def _fast(spec):
    """The same case without an interval (the policy does not depend on it)."""
    return spec.model_copy(update={"uncertainty": spec.uncertainty.model_copy(
        update={"method": "none"})})


def _run(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return run_case_full(_fast(spec))


def _page_one(run) -> str:
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    return html[html.index("<h2>1 Conclusion</h2>"):html.index("<h2>2 Instructions")]


def _copy(name, tmp_path, extra: str = ""):
    folder = tmp_path / name
    shutil.copytree(examples_dir() / name, folder)
    if extra:
        with (folder / "case.toml").open("a", encoding="utf-8") as f:
            f.write("\n" + extra)
    return folder / "case.toml"


def test_voice_page_one_gives_the_bounded_lr():
    run = _run(load_case(examples_dir() / "voice" / "case.toml"))
    e = run.result.results[0]
    assert run.result.method.elub_applied and e.bounded
    assert e.log10_lr == pytest.approx(2.45) and e.lr_text == "280"
    page = " ".join(_page_one(run).split())
    assert "+2.45" in page and "LR = 280" in page
    # worded as a limit with the model's value beside it, never as a minimum
    assert ("The LR is limited to 280, the largest LR the validation data support (the model "
            "gives 2,400)") in page
    assert "at least" not in page


def test_voice_without_elub_states_the_bounded_value_beside_the_lr():
    run = _run(load_case(examples_dir() / "voice" / "case.toml",
                         overrides={"method": {"elub": False}}))
    assert run.result.results[0].lr_text == "2,400"
    (note,) = run.result.conclusion.elub_notes
    limited = ("with ELUB it would be limited to LR = 280 (log10 LR +2.45), the largest LR "
               "the validation data support")
    assert limited in note
    page = " ".join(_page_one(run).split())
    assert "2,400" in page and limited in page
    assert {p.key: p.source for p in run.result.policy}["method.elub"] == "command line"


def test_small_background_is_withheld_with_every_reason_on_page_one():
    run = _run(load_case(examples_dir() / "small-background" / "case.toml"))
    c = run.result.conclusion
    assert c.status == "withheld" and len(c.reasons) == 2
    assert "validation criterion on Cllr" in c.reasons[0] and "0.198" in c.reasons[0]
    assert "outside the range of the background scores" in c.reasons[1]
    assert c.statement.startswith("No evaluative opinion can be given because (1) ")
    page = _page_one(run)
    assert "Conclusion withheld" in page and "No evaluative opinion can be given because" in page
    for reason in c.reasons:
        assert str(escape(reason)) in page
    assert "LR = 460" not in page and "moderately strong support" not in page
    # every number is kept
    assert run.result.results[0].lr_text == "460"


def test_withheld_run_exits_zero_and_keeps_the_numbers(tmp_path, capsys):
    case = examples_dir() / "small-background" / "case.toml"
    assert main(["run", str(case), "--out", str(tmp_path / "out"), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "conclusion withheld: No evaluative opinion can be given because" in out
    data = json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8"))
    assert data["conclusion"]["status"] == "withheld"
    assert len(data["conclusion"]["reasons"]) == 2 and data["conclusion"]["justification"] == ""
    assert data["results"][0]["lr_text"] == "460" and data["results"][0]["interval"]


def test_override_prints_the_justification(tmp_path):
    why = ("The court asked for the evaluation despite the small validation set; "
           "the limits are explained in section 8.")
    case = _copy("small-background", tmp_path,
                 f'[opinion]\noverride = true\njustification = "{why}"\n')
    run = _run(load_case(case))
    c = run.result.conclusion
    assert c.status == "overridden" and c.justification == why and len(c.reasons) == 2
    page = _page_one(run)
    assert "Opinion given on a written override" in page and why in page
    assert "LR = 460" in page
    assert {p.key: p.source for p in run.result.policy}["opinion.override"] == "case file"


@pytest.mark.parametrize(("extra", "message"), [
    ("[opinion]\noverride = true\n", "needs a written justification"),
    ('[opinion]\njustification = "because the court asked for it"\n', "override is not set"),
])
def test_override_needs_a_justification_and_vice_versa(tmp_path, extra, message):
    with pytest.raises(InputError, match=message):
        load_case(_copy("small-background", tmp_path, extra))


def test_glass_distance_with_kde_is_withheld_for_non_monotonic_calibration():
    spec = load_case(examples_dir() / "glass-distance" / "case.toml",
                     overrides={"method": {"calibrator": "kde"}})
    run = _run(spec)
    c = run.result.conclusion
    assert c.status == "withheld"
    assert any(r.startswith("the calibration is not monotonic where it matters") for r in c.reasons)
    assert "distance" in " ".join(c.reasons)
    assert "not monotonic" in _page_one(run)
    # with a monotonic method the same case gives no such reason
    logistic = _run(load_case(examples_dir() / "glass-distance" / "case.toml",
                              overrides={"method": {"calibrator": "logistic"}}))
    assert not any("monotonic" in r for r in logistic.result.conclusion.reasons)


#: A Bayesian model whose strong prior (worth 50 scores) pulls both class means to the
#: pooled one: on the voice data its cross-validated LRs are too weak and shifted to Hd.
_TOO_WEAK = "[method.options]\nkappa0 = 50.0\nalpha0 = 50.0\n"


def test_recalibration_beyond_the_lab_effect_size_withholds(tmp_path):
    run = _run(load_case(_copy("voice", tmp_path, _TOO_WEAK)))
    reasons = run.result.conclusion.reasons
    rec = run.result.validation.calibration_checks["recalibration"]
    assert rec["slope"] > 1.25 and rec["slope_interval"][0] > 1  # the check's own numbers
    assert any("recalibration slope" in r and "too weak" in r for r in reasons)
    assert any("recalibration offset" in r and "towards Hd" in r for r in reasons)


def test_slope_bounds_are_lab_settings(tmp_path):
    case = _copy("voice", tmp_path, _TOO_WEAK + "[opinion]\nslope_max = 2.0\noffset_max = 2.0\n")
    run = _run(load_case(case))
    assert not any("recalibration" in r for r in run.result.conclusion.reasons)


def test_an_lr_of_9_97_prints_9_97_and_gets_the_band_of_9_97(tmp_path):
    rng = np.random.default_rng(97)
    ss, ds = rng.normal(2.0, 1.0, 400), rng.normal(-1.0, 1.2, 800)
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    fitted = make_calibrator("gaussian").fit(ss, ds)
    score = brentq(lambda s: fitted.llr(np.array([s]))[0] - math.log(9.97), 0.0, 3.0)
    (tmp_path / "case.toml").write_text(
        f'[case]\nid = "V-997"\n[propositions]\nhp = "same"\nhd = "different"\n'
        f"[evidence]\nscore = {score!r}\n"
        '[background]\nss = "ss.csv"\nds = "ds.csv"\n'
        '[method]\nmethod = "gaussian"\nelub = false\n', encoding="utf-8")
    run = _run(load_case(tmp_path / "case.toml"))
    e = run.result.results[0]
    assert 10 ** e.log10_lr == pytest.approx(9.97, rel=1e-9)
    # the band of the computed LR; "10" and "+1.00" would read as moderate support
    assert (e.lr_text, e.log10_text) == ("9.97", "+0.999")
    assert e.verbal.level == "weak support"
    # page 1 prints the same forms: the LR, its log10 and "about N times" agree
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    page_one = " ".join(html[:html.index("<h2>", html.index("<h2>1 Conclusion</h2>") + 1)].split())
    assert "LR = 9.97 &nbsp;(log<sub>10</sub> LR = +0.999)" in page_one
    assert "about 9.97 times more probable" in page_one and "weak support" in page_one
    # and by hand on the edges: rounding never moves an LR into another band
    scale = load_scale("enfsi")
    for lr, text, level in [(9.94, "9.9", "weak support"), (9.95, "9.95", "weak support"),
                            (999.4, "999", "moderately strong support"),
                            (1000.4, "1,000", "strong support"),
                            (994.9, "990", "moderately strong support"),
                            (1.96, "1.96", "no verbal equivalent")]:
        assert format_lr(math.log10(lr), scale) == text
        assert verbal_equivalent(math.log10(lr), scale).level == level


@pytest.mark.parametrize(("setting", "level", "favours"), [
    ("number", "no verbal equivalent", "hp"),
    ("neutral", "no support for either proposition", "neither"),
    ("limited", "limited support", "hp"),
])
def test_wording_between_1_and_2_is_the_labs_choice(setting, level, favours):
    v = verbal_equivalent(math.log10(1.5), "enfsi", below_first_band=setting)
    assert (v.level, v.favours) == (level, favours)
    if setting == "number":
        assert "no verbal equivalent" in v.statement and "only the number" in v.statement
    # the NFC scale defines 1/6 < LR < 6 itself (level 0): the setting does not apply
    assert verbal_equivalent(math.log10(1.5), "nfc", below_first_band=setting).favours == (
        "neither")
    # an LR of 1.04 is above 1 (it prints "1.04" unless that range is neutral)
    v = verbal_equivalent(math.log10(1.04), "enfsi", below_first_band=setting)
    assert v.favours == favours
    assert format_lr(math.log10(1.04), load_scale("enfsi"), below_first_band=setting) == (
        "1.0" if favours == "neither" else "1.04")


def test_method_is_another_spelling_of_calibrator(tmp_path):
    case = _copy("small-background", tmp_path)
    text = case.read_text(encoding="utf-8").replace('calibrator = "bayes"', 'method = "gaussian"')
    case.write_text(text, encoding="utf-8")
    assert load_case(case).method.calibrator == "gaussian"
    case.write_text(text.replace('method = "gaussian"',
                                 'method = "gaussian"\ncalibrator = "bayes"'), encoding="utf-8")
    with pytest.raises(InputError, match="two spellings of the same key"):
        load_case(case)


def test_withheld_opening_is_the_exact_wording():
    assert WITHHELD_OPENING == "no evaluative opinion can be given because"


def test_a_calibration_that_cannot_be_checked_is_a_reason():
    from forensic_lr.casework.policy import decide_conclusion

    class NaNCurve:
        def llr(self, scores):
            return np.full(np.shape(scores), np.nan)

    run = _run(load_case(examples_dir() / "voice" / "case.toml"))
    c = decide_conclusion(run.result, run.spec.opinion, calibrator=NaNCurve(), ss=run.ss,
                          ds=run.ds, evidence=run.evidence_scores)
    assert c.status == "withheld"
    assert c.reasons == ("the monotonicity of the calibration could not be checked (the "
                         "calibrator returned NaN LLRs on the check grid)",)
