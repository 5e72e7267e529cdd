"""Faster report rendering, same report: figures drawn on several cores, compiled templates
kept, long annex tables laid out from their first row.

Independent values: the figures drawn one after the other in this process (the slow
definition) must equal, byte for byte, those drawn in a process pool; the PDF is read
back with pypdf (its figures still vector drawings, no image); the template cache is
checked against a fresh environment.
"""

import dataclasses
import io

import numpy as np
import pytest
from pypdf import PdfReader

from forensic_lr.report.figures import case_figures
from forensic_lr.report.render import cached_environment, environment, render


@pytest.fixture(scope="module")
def voice_run(worked):
    return worked.run("voice")


def test_figures_drawn_in_a_process_pool_equal_the_serial_ones(voice_run, no_children_left):
    serial = case_figures(voice_run, workers=1)
    for workers in (2, 3):
        pooled = case_figures(voice_run, workers=workers)
        assert list(pooled) == list(serial)  # same figures, same order
        assert pooled == serial  # byte for byte
    assert no_children_left()


class _Untouchable:
    """Stands in for the fitted calibrator: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the report used the calibrator ({name})")


def test_figures_draw_the_curves_of_the_record_and_call_no_model(voice_run):
    """The score-density figure draws ``run.curves`` (the model evaluated by the pipeline);
    with the calibrator replaced by an object that fails on any use, the figures are the
    same bytes, and the curves are the calibrator's own values on their grid."""
    figures = case_figures(voice_run)
    blind = dataclasses.replace(voice_run, calibrator=_Untouchable())
    assert case_figures(blind) == figures
    curves = voice_run.curves
    np.testing.assert_allclose(curves.log10_lr,
                               voice_run.calibrator.llr(curves.score) / np.log(10), rtol=1e-12)
    scores = np.concatenate([voice_run.ss, voice_run.ds, voice_run.evidence_scores])
    span = voice_run.ss.tolist() + voice_run.ds.tolist()
    assert curves.score[0] <= min(scores) and curves.score[-1] >= max(scores)
    assert curves.score[0] == pytest.approx(min(span) - 0.05 * (max(span) - min(span)))


def test_cached_environment_renders_as_a_fresh_one_and_follows_a_lab_folder(tmp_path):
    assert cached_environment() is cached_environment()
    assert cached_environment(tmp_path) is cached_environment(tmp_path)
    context = {"css": "", "r": None}
    fresh = environment(tmp_path)
    (tmp_path / "x.html").write_text("{{ 1.23456 | metric(2) }} {{ 0.5 | percent }}")
    before = cached_environment(tmp_path)
    assert render("x.html", context, tmp_path) == fresh.get_template("x.html").render(
        **context) == "1.23 50.0 %"
    # a file added to the lab folder (an override) is used at once
    (tmp_path / "y.html").write_text("lab override")
    assert cached_environment(tmp_path) is not before
    assert render("y.html", context, tmp_path) == "lab override"


def _image_xobjects(resources) -> int:
    """Image XObjects in ``resources``, looking into form XObjects (the SVG figures)."""
    count = 0
    xobjects = resources.get("/XObject") if resources else None
    for ref in (xobjects or {}).values():
        obj = ref.get_object()
        if obj.get("/Subtype") == "/Image":
            count += 1
        elif obj.get("/Subtype") == "/Form":
            count += _image_xobjects(obj.get("/Resources"))
    return count


def test_pdf_figures_stay_vector_and_the_settings_table_is_fixed(worked):
    files = worked.report("voice")
    reader = PdfReader(io.BytesIO(files["report.pdf"]))
    assert sum(_image_xobjects(page.get("/Resources")) for page in reader.pages) == 0
    text = " ".join(page.extract_text() for page in reader.pages)
    for label in ("different source", "same source", "log10 LR", "prior log10 odds"):
        assert label in text  # figure text is text, not pictures of text
    html = files["report.html"].decode("utf-8")
    assert '<table class="data compact fixed"' in html
    assert "table.fixed { table-layout: fixed; }" in html
    # every setting name of the configuration still on its own row
    assert html.count('<td class="mono">case.') >= 5
