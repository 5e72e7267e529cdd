"""One rule for a score beyond the background, with ELUB on and off.

Default (``[opinion] beyond_background = "withhold-unbounded"``): outside the pooled range
of the background scores an LR that ELUB does not limit is withheld; one that ELUB limits
is reported as the limited value, worded as a limit. The voice data (SS 3.21 to 6.88,
DS 1.38 to 6.10): a score of 12 has the model's LR far beyond the upper ELUB bound.
Which class's range a score leaves is information, never a reason: 3.0 lies below every
same-source score (as do 39 % of the different-source scores) and is reported.

Independent values: the background ranges read here from the files with numpy, and the
bound recomputed from the run's out-of-fold LLRs by the brute-force ELUB.
"""

from __future__ import annotations

import dataclasses
import shutil
import warnings

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from tests.calibration.test_elub import brute_elub


def _run(tmp_path, score: float, *, elub: bool = True, rule: str | None = None):
    folder = tmp_path / "voice"
    if not folder.exists():
        shutil.copytree(examples_dir() / "voice", folder)
    overrides = {"method": {"elub": elub}, "evidence": {"score": score},
                 "uncertainty": {"method": "none"}}
    if rule is not None:
        overrides["opinion"] = {"beyond_background": rule}
    spec = load_case(folder / "case.toml", overrides=overrides)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_case_full(spec)


def test_a_limited_lr_beyond_the_background_is_reported_as_the_limit(tmp_path):
    run = _run(tmp_path, 12.0)
    r, (e,) = run.result, run.result.results
    assert e.extrapolated and e.bounded
    high = brute_elub(run.ss_llr_cv, run.ds_llr_cv)[1]
    assert e.log10_lr == pytest.approx(high, abs=1e-12)
    assert r.conclusion.status == "reported", r.conclusion.reasons
    assert e.uncertainty.startswith(f"LR limited to {e.lr_text} ")
    assert {p.key: p.value for p in r.policy}["opinion.beyond_background"] == (
        "withhold-unbounded")


def test_an_unbounded_lr_beyond_the_background_is_withheld(tmp_path):
    run = _run(tmp_path, 12.0, elub=False)
    c = run.result.conclusion
    assert c.status == "withheld"
    (reason,) = [t for t in c.reasons if "outside the range" in t]
    assert "(12)" in reason and "ELUB bounding is off" in reason


@pytest.mark.parametrize(("rule", "elub", "status"), [
    ("withhold", True, "withheld"),      # the old rule: always withheld
    ("report", False, "reported"),       # the lab reports it, saying it extrapolates
])
def test_the_rule_is_the_laboratorys(tmp_path, rule, elub, status):
    run = _run(tmp_path, 12.0, elub=elub, rule=rule)
    assert run.result.conclusion.status == status
    assert {p.key: p.value for p in run.result.policy}["opinion.beyond_background"] == rule


def test_which_class_range_a_score_leaves_is_information_not_a_reason(tmp_path):
    ss = np.loadtxt(examples_dir() / "voice" / "ss.csv", ndmin=1)
    ds = np.loadtxt(examples_dir() / "voice" / "ds.csv", ndmin=1)
    assert ds.min() < 3.0 < ss.min()  # inside the pooled range, below every SS score
    run = _run(tmp_path, 3.0)
    c = run.result.conclusion
    assert c.status == "reported" and not run.result.results[0].extrapolated
    (note,) = c.range_notes
    assert note == (f"the score of Q1-K1 (3) lies below every same-source background score "
                    f"({ss.min():g} to {ss.max():g})")
    assert np.mean(ds < ss.min()) > 0.3  # many DS scores lie there too
    # printed in the report's language from its code (CLDR marks; hand-written Spanish)
    from forensic_lr.report import build_report

    spec = run.spec.model_copy(update={"report": run.spec.report.model_copy(
        update={"language": "es"})})
    es = dataclasses.replace(run, spec=spec)
    html = build_report(es, formats=("html",))["report.html"].decode("utf-8")
    low, high = (f"{v:g}".replace(".", ",") for v in (ss.min(), ss.max()))
    assert (f"La puntuación de Q1-K1 (3) está por debajo de todas las puntuaciones de "
            f"referencia de misma fuente ({low} a {high}).") in html
    assert "lies below every same-source" not in html
