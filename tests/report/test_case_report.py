"""The expert report: content agrees with result.json, escaping, safe fetching, overrides."""

import dataclasses
import io
import json
import math
import re
import shutil

import pytest
from pypdf import PdfReader

from forensic_lr import report
from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import InputError
from forensic_lr.report import build_report, pdf
from forensic_lr.report.pdf import SafeFetcher, html_to_pdf
from forensic_lr.report.render import odds_markup


@pytest.fixture(scope="module")
def voice_case(tmp_path_factory):
    """The voice worked case with a hostile examiner name, run once for the module."""
    folder = tmp_path_factory.mktemp("voice")
    shutil.copytree(examples_dir() / "voice", folder, dirs_exist_ok=True)
    text = (folder / "case.toml").read_text()
    text = text.replace('examiner = "A. Examiner"', 'examiner = "<script>alert(1)</script>"')
    # ELUB off (the worked case bounds): the tests below read the unbounded LR and its note
    text = text.replace("elub = true", "elub = false")
    (folder / "case.toml").write_text(text)
    run = run_case_full(load_case(folder / "case.toml"))
    return run, build_report(run)


def pdf_text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages)


def test_pdf_states_the_numbers_of_result_json(voice_case):
    _, files = voice_case
    result = json.loads(files["result.json"])
    text = " ".join(pdf_text(files["report.pdf"]).split())
    e = result["results"][0]
    assert f"LR = {e['lr_text']}" in text
    assert f"LR = {e['log10_lr']:+.2f}" in text
    assert f"about {e['lr_text']} times more probable" in text
    assert result["case"]["id"] in text and result["report_id"] in text
    assert e["verbal"]["level"] in text
    assert " ".join(result["propositions"]["hp"].rstrip(".").split()) in text
    low, high = e["interval"]["log10_lr_low"], e["interval"]["log10_lr_high"]
    assert f"[{low:+.2f}, {high:+.2f}]" in text
    cllr = result["validation"]["metrics"]["cllr"]
    assert f"{cllr:.3f}" in text


def test_every_page_has_ids_and_page_x_of_y(voice_case):
    run, files = voice_case
    reader = PdfReader(io.BytesIO(files["report.pdf"]))
    n = len(reader.pages)
    for i, page in enumerate(reader.pages, start=1):
        text = page.extract_text()
        assert f"Page {i} of {n}" in text
        assert run.result.case.id in text and run.result.report_id in text


def test_report_order_follows_the_outline(voice_case):
    _, files = voice_case
    html = files["report.html"].decode()
    headings = [
        "1 Conclusion", "3 Propositions", "5 Method and background data", "6 Evaluation",
        "7 Validation of the method", "8 Limitations and warnings", "Annex A", "Annex C",
    ]
    positions = [html.index(h) for h in headings]
    assert positions == sorted(positions)
    # never a probability of a proposition
    assert not re.search(r"probability (that|of) (Hp|Hd|the suspect)", html)


def test_user_text_is_escaped(voice_case):
    _, files = voice_case
    html = files["report.html"].decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html


def test_figures_are_shipped_and_inlined(voice_case):
    _, files = voice_case
    html = files["report.html"].decode()
    for name in ("tippett", "ape", "ece", "det", "score_densities", "llr_overestimation"):
        assert f"figures/{name}.svg" in files
    assert html.count("<svg") >= 6
    assert "<?xml" not in html


def test_overestimation_figure_marks_the_case_with_the_cases_level(voice_case):
    """Figure 6: the curve of the cross-validated LRs, the fiducial band at the case's
    interval level (95 %), this case's reported log10 LR marked; the sensitivity figure
    follows as figure 7."""
    _, files = voice_case
    text = " ".join(files_text(files["report.html"]).split())
    assert ("Figure 6. LLR overestimation of the cross-validated log10 LRs (lir package, "
            "version 1.8) with its 95 % fiducial interval") in text
    assert "The dashed line marks this case's log10 LR." in text
    assert text.index("Figure 6. LLR") < text.index("Figure 7. log10 LR of Q1-K1")
    svg = files["figures/llr_overestimation.svg"].decode()
    assert "this case" in svg and "95 % fiducial interval" in svg


def test_prior_odds_annex_by_hand():
    # prior odds 1 to 100 (log10 -2) with LR 2,400 (log10 3.38): posterior 24 to 1
    assert str(odds_markup(-2 + 3.38)) == "24 to 1"
    assert str(odds_markup(-6 + 3.38)) == "1 to 420"
    assert str(odds_markup(-6 - 2)) == "1 to 1.0 × 10<sup>8</sup>"
    assert str(odds_markup(-math.log10(2))) == "1 to 2"  # as the LR "1/2", not "1 to 2.0"
    assert str(odds_markup(-math.log10(2.5))) == "1 to 2.5"


def test_fetcher_refuses_files_outside_templates_and_urls(tmp_path):
    inside = tmp_path / "templates"
    inside.mkdir()
    (inside / "logo.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'
    )
    html = (
        '<img src="logo.svg"><img src="file:///etc/passwd">'
        '<img src="http://example.com/x.png"><link rel="stylesheet" href="https://e.com/a.css">'
    )
    fetcher = SafeFetcher([inside])
    with pytest.raises(InputError, match="3 resource"):  # an error, not a missing image
        html_to_pdf(html, roots=[inside], fetcher=fetcher)
    assert sorted(fetcher.refused) == sorted(
        ["file:///etc/passwd", "http://example.com/x.png", "https://e.com/a.css"]
    )


def test_pdf_bytes_are_reproducible():
    html = "<h1>Report</h1><p>LR = 2,400</p>"
    assert html_to_pdf(html, roots=["."]) == html_to_pdf(html, roots=["."])


def test_lab_template_dir_overrides_one_template(voice_case, tmp_path, no_figures):
    run, _ = voice_case
    (tmp_path / "case_report.html").write_text("<p>LAB TEMPLATE {{ r.case.id }}</p>")
    files = build_report(run, formats=("html",), template_dir=tmp_path)
    assert files["report.html"].decode() == f"<p>LAB TEMPLATE {run.result.case.id}</p>"


@pytest.fixture
def no_figures(monkeypatch):
    """Skip drawing the figures (tested elsewhere) where only the text matters."""
    names = ("tippett", "ape", "ece", "det", "score_densities", "llr_histogram",
             "llr_overestimation")
    monkeypatch.setattr(report, "case_figures", lambda run, **_: {n: "<svg></svg>" for n in names})


def _with_log10_lr(run, log10_lr, lr_text):
    """The run with its first LR replaced (to render other conclusions without re-running)."""
    e = run.result.results[0]
    e = e.model_copy(update={"log10_lr": log10_lr, "lr_text": lr_text})
    result = run.result.model_copy(update={"results": (e, *run.result.results[1:])})
    return dataclasses.replace(run, result=result)


def test_lr_below_one_reverses_the_sentence(voice_case, no_figures):
    run, _ = voice_case
    # LR = 1/20: log10 = -1.30; by hand the findings are 20 times more probable under Hd
    html = build_report(_with_log10_lr(run, -1.30103, "1/20"), formats=("html",))
    text = " ".join(files_text(html["report.html"]).split())
    hp = run.result.propositions.hp.rstrip(".")
    hd = run.result.propositions.hd.rstrip(".")
    assert f"about 20 times more probable if “{hd}” (Hd) than if “{hp}” (Hp)" in text
    assert "LR = 1/20" in text


def test_lr_of_one_supports_neither(voice_case, no_figures):
    run, _ = voice_case
    html = build_report(_with_log10_lr(run, 0.0, "1.0"), formats=("html",))
    assert "equally probable" in files_text(html["report.html"])
    assert "1.0 times" not in files_text(html["report.html"])


def files_text(data: bytes) -> str:
    """HTML bytes as text with the tags removed (entities left as they are)."""
    return re.sub(r"<[^>]+>", "", data.decode())


def test_html_and_figures_identical_across_renders(voice_case):
    run, files = voice_case
    again = build_report(run, formats=("html", "json"))
    for name, data in again.items():
        assert data == files[name], name


def test_lab_template_cannot_fetch_outside_its_folder(voice_case, tmp_path, monkeypatch,
                                                    no_figures):
    run, _ = voice_case
    (tmp_path / "case_report.html").write_text(
        '<p>{{ r.case.id }}</p><img src="file:///etc/passwd">'
        '<img src="http://example.com/logo.png"><link rel="stylesheet" href="https://e.com/x.css">'
    )
    fetchers = []

    class Recording(SafeFetcher):
        def __init__(self, roots):
            super().__init__(roots)
            fetchers.append(self)

    monkeypatch.setattr(pdf, "SafeFetcher", Recording)
    with pytest.raises(InputError, match=r"case_report\.html refers to 3 resource"):
        build_report(run, formats=("pdf",), template_dir=tmp_path)
    assert fetchers == []  # the rendered HTML is refused before the PDF renderer starts
    html = (tmp_path / "case_report.html").read_text().replace("{{ r.case.id }}", "x")
    with pytest.raises(InputError, match="may not fetch"):  # and the renderer refuses too
        pdf.html_to_pdf(html, roots=[tmp_path])
    assert sorted(fetchers[0].refused) == sorted(
        ["file:///etc/passwd", "http://example.com/logo.png", "https://e.com/x.css"]
    )


def test_neutral_band_is_explained_next_to_the_number(voice_case, no_figures):
    # LR 1.9 lies below the ENFSI first band (LR = 2); with the laboratory's choice
    # "neutral" the report gives the number and says why the wording is neutral.
    from forensic_lr.casework.verbal import verbal_equivalent

    run, _ = voice_case
    e = run.result.results[0].model_copy(
        update={"log10_lr": 0.2788, "lr_text": "1.9",
                "verbal": verbal_equivalent(0.2788, "enfsi", below_first_band="neutral")}
    )
    result = run.result.model_copy(update={"results": (e,)})
    html = build_report(dataclasses.replace(run, result=result), formats=("html",))
    text = " ".join(files_text(html["report.html"]).split())
    assert "about 1.9 times more probable" in text
    assert "(on this scale an LR between 1/2 and 2 counts as no support)" in text


def test_elub_bounds_stated_when_not_applied(voice_case):
    # The voice case has [method] elub = false: the report still states the bounds (the
    # same as the ELUB wrapper fitted to the same data) and that its LR lies beyond them.
    from forensic_lr.calibration import ELUB, make_calibrator

    run, files = voice_case
    result = json.loads(files["result.json"])
    method = result["method"]
    assert method["elub_applied"] is False
    wrapped = ELUB(make_calibrator(run.spec.method.calibrator)).fit(run.ss, run.ds)
    assert (method["elub_log10_lr_low"], method["elub_log10_lr_high"]) == pytest.approx(
        wrapped.bounds_log10_
    )
    e = result["results"][0]
    assert e["log10_lr"] > method["elub_log10_lr_high"]
    assert any("ELUB bounding is off" in w for w in result["warnings"])
    text = " ".join(pdf_text(files["report.pdf"]).split())
    assert "Reported without ELUB bounding" in text
    assert "The bounds were not applied" in text and "lies beyond them" in text
    assert f"{e['verbal']['level']} for Hp" in text  # the verbal column says for which side
    assert "could not be checked" not in text  # the shipped ENFSI bands are the guideline's
    assert "bands from the guideline's table of verbal equivalents" in text


def test_elub_applied_case_states_it():
    run = run_case_full(load_case(examples_dir() / "glass-distance" / "case.toml"))
    assert run.result.method.elub_applied is True
    assert not any("ELUB bounding is off" in w for w in run.result.warnings)
    html = files_text(build_report(run, formats=("html",))["report.html"])
    text = " ".join(html.split())
    assert "An LR beyond them is reported as limited to the bound" in text
    assert "The bounds depend on that split of the background data into 5 folds (seed 7)" in text


def test_log10_filter_never_prints_minus_zero():
    from forensic_lr.report.render import environment

    log10 = environment().filters["log10"]
    assert log10(-0.001) == "+0.00" and log10(-0.006) == "-0.01" and log10(0.5) == "+0.50"


def test_validation_conditions_and_declaration(voice_case, no_figures):
    # The voice case describes its validation conditions; without them the report says
    # that the comparison with the case conditions is missing. The declaration section is
    # the standard one unless the case file gives its own (escaped like all user text).
    run, files = voice_case
    text = " ".join(pdf_text(files["report.pdf"]).split())
    conditions = " ".join(run.spec.validation.conditions.split())
    assert conditions[:60] in text
    assert "9 Declaration" in text and "my duty in giving evidence is to the court" in text
    spec = run.spec.model_copy(update={
        "validation": run.spec.validation.model_copy(update={"conditions": ""}),
        "case": run.spec.case.model_copy(update={"declaration": "I declare <b>this</b>."}),
    })
    config = spec.model_dump(mode="json")
    result = run.result.model_copy(update={
        "case": spec.case,
        "provenance": run.result.provenance.model_copy(update={"configuration": config}),
    })
    html = build_report(dataclasses.replace(run, spec=spec, result=result), formats=("html",))
    page = html["report.html"].decode()
    assert "does not say how the validation data and conditions compare" in page
    assert "I declare &lt;b&gt;this&lt;/b&gt;." in page
    assert "my duty in giving evidence" not in page


def test_items_received_and_examined(voice_case):
    # The voice case gives both fields for each item: section 4 shows them as columns.
    run, files = voice_case
    html = files["report.html"].decode()
    assert "<th>Received</th>" in html and "<th>Examined</th>" in html
    for item in run.spec.case.items:
        assert f"<td>{item.received}</td>" in html and f"<td>{item.examined}</td>" in html
