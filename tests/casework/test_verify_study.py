"""``forensic-lr verify validation_report.pdf --study FILES_OR_FOLDER``: a validation-study
report re-run from the ``validate`` options its record keeps.

The study is made by ``validate --report`` from one folder and checked from a copy of the
inputs elsewhere (other paths, the same bytes): the inputs' SHA-256 are compared with
hashlib's digests of the files, ``validation.json`` with the embedded one byte for byte,
the PDF with the report. One changed score is named by its file; a changed criteria file
(not an input with a digest) by the first place the record differs.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest

pytest.importorskip("weasyprint")

from forensic_lr.casework.verify import read_report
from forensic_lr.cli import main
from tests.conftest import gaussian_background


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """``(report.pdf, folder of the inputs)`` of a two-method study with lab criteria."""
    root = tmp_path_factory.mktemp("study")
    data = root / "data"
    data.mkdir()
    ss, ds = gaussian_background(seed=5, n_ss=50, n_ds=150)
    np.savetxt(data / "ss.csv", ss, fmt="%.4f")
    np.savetxt(data / "ds.csv", ds, fmt="%.4f")
    (data / "criteria.toml").write_text("cllr_max = 0.5\n", encoding="utf-8")
    assert main(["-q", "validate", "--ss", str(data / "ss.csv"), "--ds", str(data / "ds.csv"),
                 "--compare", "logistic,gaussian", "--folds", "4", "--fold-seed", "9",
                 "--criteria", str(data / "criteria.toml"), "--title", "Study of a system",
                 "--data-description", "simulated scores", "--report", str(root / "report")]
                ) == 0
    return root / "report" / "validation_report.pdf", data


def test_record_keeps_the_validate_options(study):
    pdf, data = study
    record = read_report(pdf).content
    options = record["command_options"]
    assert options["ss"] == str(data / "ss.csv") and options["compare"] == "logistic,gaussian"
    assert options["folds"] == 4 and options["fold_seed"] == 9
    assert "report" not in options and "force" not in options
    assert record["inputs"] == {str(data / name): hashlib.sha256(
        (data / name).read_bytes()).hexdigest() for name in ("ds.csv", "ss.csv")}


def test_study_rerun_from_a_copy_matches(study, tmp_path, capsys):
    pdf, data = study
    copy = tmp_path / "received"
    shutil.copytree(data, copy)
    assert main(["verify", str(pdf), "--study", str(copy)]) == 0
    text = capsys.readouterr().out
    assert "ok      every input has its recorded SHA-256 (ds.csv, ss.csv)" in text
    assert "validation.json recomputed from the inputs equals the embedded one, byte for " \
        "byte" in text
    assert "the PDF re-rendered from the re-run equals the report, byte for byte" in text
    assert text.rstrip().endswith("verdict: the report matches its study")
    # the files themselves instead of their folder
    assert main(["verify", str(pdf), "--study", str(copy / "ss.csv"), str(copy / "ds.csv"),
                 str(copy / "criteria.toml")]) == 0
    capsys.readouterr()


def test_changed_score_is_named(study, tmp_path, capsys):
    pdf, data = study
    copy = tmp_path / "changed"
    shutil.copytree(data, copy)
    lines = (copy / "ds.csv").read_text().splitlines()
    lines[0] = f"{float(lines[0]) + 0.0001:.4f}"
    (copy / "ds.csv").write_text("\n".join(lines) + "\n")
    assert main(["verify", str(pdf), "--study", str(copy)]) == 1
    text = capsys.readouterr().out
    now = hashlib.sha256((copy / "ds.csv").read_bytes()).hexdigest()
    assert "ds.csv: SHA-256 differs (recorded " in text and f"now {now})" in text
    assert text.rstrip().splitlines()[-1] == (
        f"verdict: DIFFERS - {data / 'ds.csv'}: SHA-256 differs")
    assert "recomputed" not in text  # stops at the inputs


def test_changed_criteria_show_in_the_record(study, tmp_path, capsys):
    pdf, data = study
    copy = tmp_path / "criteria"
    shutil.copytree(data, copy)
    (copy / "criteria.toml").write_text("cllr_max = 0.4\n", encoding="utf-8")
    assert main(["verify", str(pdf), "--study", str(copy)]) == 1
    text = capsys.readouterr().out
    assert "validation.json differs first at criteria.cllr_max: the report says 0.5, the " \
        "re-run gives 0.4" in text


def test_study_refusals(study, tmp_path, capsys, small_case):
    pdf, data = study
    assert main(["verify", str(pdf), "--study", str(tmp_path / "nowhere")]) == 2
    assert "--study: no such file or folder" in capsys.readouterr().err
    assert main(["verify", str(pdf), "--study", str(data), "--case", str(data)]) == 2
    assert "not both" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["verify", str(pdf), "--study", str(tmp_path / "empty")]) == 1
    assert "not found among the --study files and folders" in capsys.readouterr().out
    # a case report is re-run with --case
    case = small_case(tmp_path / "case", 'id = "C-1"', formats=("pdf", "json"))
    assert main(["-q", "run", str(case), "--out", str(tmp_path / "out"), "--draft"]) == 0
    assert main(["verify", str(tmp_path / "out" / "report.pdf"), "--study", str(data)]) == 2
    assert "it is a case report; re-run it with --case" in capsys.readouterr().err


def test_study_from_python_has_no_options(study, tmp_path, capsys):
    from forensic_lr import write_validation_report
    from forensic_lr.validation import run_validation_study

    ss, ds = gaussian_background(seed=5, n_ss=50, n_ds=150)
    write_validation_report(run_validation_study(ss, ds, methods=["logistic"], folds=3),
                            tmp_path / "py", formats=("pdf", "json"))
    pdf = tmp_path / "py" / "validation_report.pdf"
    assert json.loads((tmp_path / "py" / "validation.json").read_text())[
        "command_options"] is None
    assert main(["verify", str(pdf), "--study", str(study[1])]) == 2
    assert "keeps no validate options" in capsys.readouterr().err


def test_report_in_another_language_is_rerun_in_it(study, tmp_path, capsys):
    """The language is not in validation.json (the record does not depend on it); verify
    reads it from the PDF (/Lang) and re-renders the German report byte for byte."""
    _, data = study
    out = tmp_path / "de"
    assert main(["-q", "validate", "--ss", str(data / "ss.csv"), "--ds", str(data / "ds.csv"),
                 "--calibrate", "logistic", "--folds", "4", "--language", "de",
                 "--report", str(out)]) == 0
    report = read_report(out / "validation_report.pdf")
    assert report.language == "de" and "language" not in report.content["command_options"]
    assert main(["verify", str(out / "validation_report.pdf"), "--study", str(data)]) == 0
    assert "the PDF re-rendered from the re-run equals the report" in capsys.readouterr().out
