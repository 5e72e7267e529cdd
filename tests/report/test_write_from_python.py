"""write_case_report and write_validation_report write from Python the same files, byte for
byte, as ``forensic-lr run`` and ``forensic-lr validate --report``, under the same output
folder rules; the report text built from Python names no command-line option."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from pypdf import PdfReader

import forensic_lr as flr
from forensic_lr.casework import open_case
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRError, InputError

#: a command-line option in running text: "--" and a word (not an HTML comment's "-->")
OPTION = re.compile(r"(?<![-!<\w])--[a-z][a-z-]+")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_case_report_as_the_command_line_writes_it(tmp_path, small_case):
    case = small_case(tmp_path / "case", 'id = "PY-1"', formats=("pdf", "html", "json"))
    assert main(["run", str(case), "--out", str(tmp_path / "cli"), "--draft", "--quiet"]) == 0
    run = open_case(case, draft=True).run()
    written = flr.write_case_report(run, tmp_path / "py")
    cli, py = _files(tmp_path / "cli"), _files(tmp_path / "py")
    assert cli.keys() == py.keys() and {"report.pdf", "report.html", "result.json"} <= py.keys()
    assert {p.relative_to(tmp_path / "py").as_posix() for p in written} <= py.keys()
    for name in cli:
        assert cli[name] == py[name], name
    html = py["report.html"].decode()
    assert not OPTION.findall(re.sub(r"<style.*?</style>", "", html, flags=re.S))
    text = "".join(page.extract_text() for page in PdfReader(tmp_path / "py" / "report.pdf").pages)
    assert "PY-1" in text and "DRAFT - not for court" in text and not OPTION.findall(text)


def test_case_report_folder_rules(tmp_path, small_case):
    case = small_case(tmp_path / "case", 'id = "PY-2"', formats=("json",))
    run = flr.run_case_full(flr.load_case(case))
    with pytest.raises(ForensicLRError, match="run_case_full"):
        flr.write_case_report(run.result, tmp_path / "out")
    # not ready for a final report, not a draft: refused as on the command line
    with pytest.raises(InputError, match=r"(?s)not ready for a final report.*\[case\] examiner"):
        flr.write_case_report(run, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    run = open_case(case, draft=True).run()
    first = flr.write_case_report(run, tmp_path / "out")
    assert [p.name for p in first] == ["result.json"]
    with pytest.raises(InputError) as refused:  # a previous report set: only with force
        flr.write_case_report(run, tmp_path / "out")
    # said as a Python caller writes it, not as the command-line option
    assert "force=True" in str(refused.value) and "--force" not in str(refused.value)
    flr.write_case_report(run, tmp_path / "out", force=True)
    with pytest.raises(InputError):           # never into the folder of the inputs
        flr.write_case_report(run, tmp_path / "case", force=True)


def test_validation_report_as_the_command_line_writes_it(tmp_path):
    rng = np.random.default_rng(8)
    ss, ds = tmp_path / "ss.csv", tmp_path / "ds.csv"
    np.savetxt(ss, rng.normal(2.0, 1.0, 60), fmt="%.4f")
    np.savetxt(ds, rng.normal(-1.0, 1.2, 150), fmt="%.4f")
    assert main(["validate", "--ss", str(ss), "--ds", str(ds), "--compare", "logistic,pav",
                 "--report", str(tmp_path / "cli"), "--quiet"]) == 0
    data = flr.load_scores(ss=str(ss), ds=str(ds))
    study = flr.run_validation_study(data.ss, data.ds, methods=["logistic", "pav"],
                                     inputs=data.files)
    flr.write_validation_report(study, tmp_path / "py")
    cli, py = _files(tmp_path / "cli"), _files(tmp_path / "py")
    assert cli.keys() == py.keys()
    assert {"validation.json", "validation_report.html", "validation_report.pdf"} <= py.keys()
    # the command line's record keeps its options for verify --study; Python's has none
    # (docs/user/verify.md), which the PDF embeds and the output manifest hashes
    cli_record, py_record = (json.loads(files.pop("validation.json")) for files in (cli, py))
    assert cli_record.pop("command_options")["compare"] == "logistic,pav"
    assert py_record.pop("command_options") is None
    assert cli_record == py_record
    cli_text, py_text = ([page.extract_text() for page in PdfReader(io.BytesIO(
        files.pop("validation_report.pdf"))).pages] for files in (cli, py))
    assert cli_text == py_text
    del cli[".forensic-lr-output.json"], py[".forensic-lr-output.json"]
    for name in cli:  # the HTML report and every figure, byte for byte
        assert cli[name] == py[name], name
    html = py["validation_report.html"].decode()
    assert "No description of the data was given" in html
    assert not OPTION.findall(re.sub(r"<style.*?</style>", "", html, flags=re.S))
    with pytest.raises(InputError):           # never into the folder of the inputs
        flr.write_validation_report(study, tmp_path, force=True)
