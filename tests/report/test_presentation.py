"""What a reader sees in the rendered worked reports: no "-0.000", no words run together,
criteria in their metric's unit, the scale paragraph of the scale in use, the ENFSI source,
the software version, section 2 only where the case file states something."""

from __future__ import annotations

import dataclasses
import html
import re
import warnings

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import ForensicLRWarning
from forensic_lr.metrics.catalogue import fixed, metric
from forensic_lr.report import build_report

EXAMPLES = ("voice", "small-background", "glass-distance", "suspect-adapted")


def _run(spec):
    unc = spec.uncertainty.model_copy(update={"n": 100})
    spec = spec.model_copy(update={"uncertainty": unc})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return run_case_full(spec)


def _text(run) -> str:
    """The report's visible text: tags, styles and inline figures removed, one space."""
    return _visible(build_report(run, formats=("html",))["report.html"].decode("utf-8"))


def _visible(page: str) -> str:
    """The visible text of the report's HTML ``page`` (see :func:`_text`)."""
    page = re.sub(r"<(style|svg)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<(h[1-6]|p|li|tr|td|th|div|dt|dd|figcaption|br)\b[^>]*>", " ", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


@pytest.fixture(scope="module")
def texts(worked):
    """The visible text of each worked example's report, as shipped."""
    return {name: _visible(worked.html(name)) for name in EXAMPLES}


@pytest.mark.parametrize("name", EXAMPLES)
def test_no_negative_zero_and_no_words_run_together(texts, name):
    text = texts[name]
    assert not re.search(r"[-\u2212]0(\.0+)?(?![.\d])", text), re.search(
        r".{40}[-\u2212]0(\.0+)?(?![.\d]).{20}", text)
    assert not re.search(r"(1/|1 to )\d+\.0(?![\d.]| ×)", text)  # "1/2.0", "1 to 2.0"
    # a sentence end or a number run into the next word ("rev 3The", "laboratory's.Validation")
    joined = re.findall(r"\S*(?:[a-z0-9'][.;:]|\d)[A-Z][a-z]{2,}\S*", text)
    assert joined == []


@pytest.mark.parametrize("name", EXAMPLES)
def test_version_alone_when_no_source_revision(texts, name, monkeypatch):
    text = texts[name]
    assert "source revision: unknown" not in text and "source revision unknown" not in text
    assert re.search(r"forensic-lr version \d", text)


def test_installed_package_prints_the_version_alone(monkeypatch):
    import forensic_lr.casework.pipeline as pipeline

    monkeypatch.setattr(pipeline, "source_revision", lambda: "unknown")
    text = _text(_run(load_case(examples_dir() / "voice" / "case.toml")))
    assert "unknown" not in text.split("forensic-lr version")[1][:60]


def test_enfsi_report_cites_the_guidelines_table(texts):
    text = texts["voice"]  # the ENFSI scale
    assert "could not be checked" not in text
    assert "bands from the guideline's table of verbal equivalents" in text
    # the example of the scale paragraph comes from the scale in use
    assert "so an LR of 2 is in 2 to 10" in text


def test_scale_paragraph_example_is_a_band_of_the_scale_in_use(texts):
    text = texts["glass-distance"]  # the NFC scale: 6, 100, 6,000, 1,000,000
    assert "NFC" in text
    assert "so an LR of 6 is in 6 to 100" in text and "a printed 10" not in text


def test_criteria_thresholds_in_the_metrics_unit():
    spec = load_case(examples_dir() / "small-background" / "case.toml",
                     overrides={"validation": {"criteria": {"eer_max": 0.001}}})
    run = _run(spec)
    eer = next(c for c in run.result.validation.criteria if c.metric == "eer")
    assert not eer.met
    shown = f"{fixed(100 * eer.value, 1)} %"  # the EER as the metrics table prints it
    text = _text(run)
    assert f"<= 0.1 % {shown}" in text  # the criteria table: required, obtained
    assert "<= 0.001" not in text
    warning = next(w for w in run.result.warnings if "eer_max not met" in w)
    assert f"cross-validated EER = {shown}" in warning
    assert warning.endswith(", required <= 0.1 %")
    if eer.bound is not None:
        assert f"bound {fixed(100 * eer.bound, 1)} %" in warning
    assert metric("eer").limit(0.05) == "5 %" and metric("cllr").limit(0.5) == "0.5"


def test_a_final_report_leaves_out_an_empty_section_2():
    spec = load_case(examples_dir() / "voice" / "case.toml")
    case = spec.case.model_copy(update={"instructions": "", "conditioning": ""})
    run = _run(spec.model_copy(update={"case": case}))
    final = _text(run)
    assert "None stated" not in final and "Instructions and case information" not in final
    for number, title in ((2, "Propositions"), (3, "Items and findings"),
                          (4, "Method and background data"), (5, "Evaluation"),
                          (6, "Validation of the method"), (7, "Limitations and warnings"),
                          (8, "Declaration")):
        assert f" {number} {title} " in final
    assert "propositions stated in section 2;" in final
    draft = dataclasses.replace(run, result=run.result.model_copy(update={"draft": True}))
    text = _text(draft)
    assert "2 Instructions and case information" in text and "None stated" in text
    assert "3 Propositions" in text


def test_fixed_never_prints_a_negative_zero():
    assert fixed(-0.0004, 3) == "0.000" and fixed(-0.0004, 3, sign=True) == "+0.000"
    assert fixed(-0.0006, 3) == "-0.001" and fixed(-0.0, 2) == "0.00"
    assert fixed(1.2345, 2, sign=True) == "+1.23"


def test_policy_annex_with_a_laboratory_sop_keeps_its_spaces(tmp_path):
    lab = tmp_path / "lab" / "lab.toml"
    lab.parent.mkdir()
    lab.write_text('[laboratory]\nname = "Forensic Institute Example"\n'
                   '[verbal_scale]\nscale = "enfsi"\nconfirmed_by = "J. Doe"\n'
                   '[criteria]\nsop = "SOP-VAL-03 rev 3"\ncllr_max = 0.6\n', encoding="utf-8")
    text = _text(_run(load_case(examples_dir() / "voice" / "case.toml", lab=lab)))
    assert "laboratory's. Validation criteria: SOP-VAL-03 rev 3" in text
    assert re.findall(r"\S*(?:[a-z0-9'][.;:]|\d)[A-Z][a-z]{2,}\S*", text) == []
