"""Reports are PDF/A-3b with their record embedded as an associated file.

The independent values: the ``result.json`` / ``validation.json`` the same run wrote as
files (the embedded copy must equal them byte for byte), read back through two PDF readers
that share no code with the writer (pypdf always; poppler's ``pdfinfo``, ``pdfdetach`` and
``pdffonts`` when installed), and the case file's own fields for the metadata.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

pytest.importorskip("weasyprint")
pypdf = pytest.importorskip("pypdf")

from forensic_lr.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def case_run(tmp_path_factory, small_case):
    """A small case run (draft: the case file lacks what a final report needs)."""
    folder = tmp_path_factory.mktemp("archive")
    small_case(folder, 'id = "ARC-7"\nreport_id = "ARC-7-R2"\nlaboratory = "Lab of Archives"\n'
               'examiner = "A. Examiner"\ndate = 2026-03-02')
    out = folder / "out"
    assert main(["-q", "run", str(folder / "case.toml"), "--out", str(out), "--draft"]) == 0
    return out


def _xmp(reader) -> str:
    return reader.trailer["/Root"]["/Metadata"].get_object().get_data().decode("utf-8")


def test_case_report_embeds_result_json_byte_for_byte(case_run):
    reader = pypdf.PdfReader(case_run / "report.pdf")
    assert reader.attachments["result.json"] == [(case_run / "result.json").read_bytes()]
    # a PDF/A-3 associated file: listed in the catalog's /AF, relationship Data, JSON type
    root = reader.trailer["/Root"]
    # (weasyprint lists the one file spec twice: once per way it finds it)
    specs = [r.get_object() for r in {ref.idnum: ref for ref in root["/AF"]}.values()]
    assert [s["/UF"] for s in specs] == ["result.json"]
    assert specs[0]["/AFRelationship"] == "/Data"
    stream = specs[0]["/EF"]["/F"].get_object()
    assert stream["/Subtype"] == "/application#2Fjson" or stream["/Subtype"] == \
        "/application/json"
    # the embedded file is dated by the case, not by the clock
    assert stream["/Params"]["/ModDate"] == "D:20260302000000Z"


def test_case_report_is_pdf_a3b_with_the_case_in_its_metadata(case_run):
    reader = pypdf.PdfReader(case_run / "report.pdf")
    xmp = _xmp(reader)
    assert 'pdfaid:part="3"' in xmp and 'pdfaid:conformance="B"' in xmp
    assert reader.pdf_header == "%PDF-1.7"
    info = reader.metadata
    assert info.title == "Draft evaluative report (not for court) ARC-7-R2: case ARC-7"
    assert info.author == "A. Examiner"
    for text in ("ARC-7-R2", "case ARC-7", "Lab of Archives"):
        assert text in info.subject
    import forensic_lr

    software = f"forensic-lr {forensic_lr.__version__}"
    assert info["/Creator"] == software
    keywords = info["/Keywords"]
    for text in ("case ARC-7", "report ARC-7-R2", "laboratory Lab of Archives",
                 "examiner A. Examiner", "date 2026-03-02", software):
        assert text in keywords
    assert info["/CreationDate"].startswith("D:20260302")
    # the XMP copy says the same (PDF/A requires both to agree)
    for text in (info.title, "A. Examiner", keywords, software, "2026-03-02"):
        assert text in xmp
    # every font the pages use is embedded (a FontFile stream in its descriptor)
    fonts = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            for descendant in font.get("/DescendantFonts", [font]):
                descriptor = descendant.get_object()["/FontDescriptor"].get_object()
                assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
                fonts.add(descriptor["/FontName"])
    assert fonts


@pytest.mark.skipif(shutil.which("pdfdetach") is None or shutil.which("pdfinfo") is None,
                    reason="poppler-utils not installed")
def test_poppler_sees_pdf_a3_and_extracts_the_same_result_json(case_run, tmp_path):
    pdf = case_run / "report.pdf"
    meta = subprocess.run(["pdfinfo", "-meta", str(pdf)], capture_output=True, text=True,
                          check=True).stdout
    assert re.search(r'pdfaid:part="3"', meta) and 'pdfaid:conformance="B"' in meta
    listed = subprocess.run(["pdfdetach", "-list", str(pdf)], capture_output=True, text=True,
                            check=True).stdout
    assert listed.splitlines() == ["1 embedded files", "1: result.json"]
    subprocess.run(["pdfdetach", "-save", "1", "-o", str(tmp_path / "r.json"), str(pdf)],
                   check=True)
    assert (tmp_path / "r.json").read_bytes() == (case_run / "result.json").read_bytes()
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts and all(line.split()[-5] == "yes" for line in fonts)  # the 'emb' column


def test_validation_report_embeds_validation_json(tmp_path):
    from forensic_lr.report.validation import build_validation_report
    from forensic_lr.validation import run_validation_study

    rng = np.random.default_rng(5)
    study = run_validation_study(rng.normal(2.0, 1.0, 60), rng.normal(-1.0, 1.0, 120),
                                 methods=("gaussian",), folds=3, seed=2,
                                 about={"title": "Study S", "laboratory": "Lab L",
                                        "analyst": "B. Analyst", "date": "2026-11-23"})
    files = build_validation_report(study, formats=("pdf", "json"))
    (tmp_path / "v.pdf").write_bytes(files["validation_report.pdf"])
    reader = pypdf.PdfReader(tmp_path / "v.pdf")
    assert reader.attachments["validation.json"] == [files["validation.json"]]
    xmp = _xmp(reader)
    assert 'pdfaid:part="3"' in xmp and 'pdfaid:conformance="B"' in xmp
    assert reader.metadata.title == "Validation study: Study S"
    assert reader.metadata.author == "B. Analyst"
    assert "Lab L" in reader.metadata.subject
    if shutil.which("pdfdetach"):
        listed = subprocess.run(["pdfdetach", "-list", str(tmp_path / "v.pdf")],
                                capture_output=True, text=True, check=True).stdout
        assert "1: validation.json" in listed
