"""`forensic-lr check`, and `run` refusing an unfinished case file unless --draft."""

from __future__ import annotations

import json
import warnings

import pytest

from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning


@pytest.fixture
def template_case(tmp_path):
    assert main(["-q", "init", str(tmp_path / "case")]) == 0
    folder = tmp_path / "case"
    (folder / "ss.csv").write_text("\n".join(str(1.5 + 0.1 * i) for i in range(20)) + "\n")
    (folder / "ds.csv").write_text("\n".join(str(-1.0 + 0.1 * i) for i in range(30)) + "\n")
    text = (folder / "case.toml").read_text().replace("n = 1000", "n = 100")
    text = text.replace("# score = 3.2 ", "score = 1.0   ")
    (folder / "case.toml").write_text(text.replace("folds = 5", "folds = 3"))
    return folder / "case.toml"


def _run(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return main(args)


def test_check_names_every_placeholder_and_writes_nothing(template_case, capsys):
    before = sorted(p.name for p in template_case.parent.iterdir())
    assert main(["check", str(template_case)]) == 2
    out = capsys.readouterr().out
    for field in ("[case] id", "[case] examiner", "[evidence] description", "[propositions] hp",
                  "[system] name", "[background] population", "[validation] study_id",
                  "[case] items", "--draft"):
        assert field in out
    assert "20 scores" in out and "30 scores" in out
    assert sorted(p.name for p in template_case.parent.iterdir()) == before


def test_check_passes_a_worked_case(tmp_path, capsys):
    assert main(["-q", "examples", "copy", "voice", str(tmp_path / "v")]) == 0
    assert main(["check", str(tmp_path / "v" / "case.toml")]) == 0
    out = capsys.readouterr().out
    assert "ready for a final report" in out and "reviewer" in out


def test_run_refuses_the_template_and_names_each_field(template_case, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(["run", str(template_case), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--draft" in err and "[case] id" in err and "[validation] study_date" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_draft_marks_every_pdf_page_and_result_json(template_case, tmp_path, capsys):
    pypdf = pytest.importorskip("pypdf")
    out = tmp_path / "out"
    assert _run(["run", str(template_case), "--out", str(out), "--draft"]) == 0
    assert "DRAFT - not for court" in capsys.readouterr().out
    result = json.loads((out / "result.json").read_text())
    assert result["draft"] is True
    assert any(r.startswith("[case] id") for r in result["draft_reasons"])
    pages = pypdf.PdfReader(out / "report.pdf").pages
    assert len(pages) > 1
    for page in pages:
        assert "DRAFT - not for court" in page.extract_text()
    assert "DRAFT - not for court" in (out / "report.html").read_text()


def test_a_ready_case_is_no_draft(tmp_path):
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "c")]) == 0
    case = tmp_path / "c" / "case.toml"
    case.write_text(case.read_text().replace("n = 1000", "n = 100"))
    assert _run(["-q", "run", str(case), "--out", str(tmp_path / "o"), "--format", "json"]) == 0
    result = json.loads((tmp_path / "o" / "result.json").read_text())
    assert result["draft"] is False and result["draft_reasons"] == []
    assert result["details"]["system"]["name"].startswith("3D toolmark")
    assert result["case"]["items"][0]["seal"]


def test_a_lab_template_without_the_draft_mark_is_refused(template_case, tmp_path, capsys):
    lab = template_case.parent / "lab"
    lab.mkdir()
    (lab / "case_report.html").write_text("<html><body>{{ r.case.id }}</body></html>")
    text = template_case.read_text().replace('# template_dir = "templates"',
                                             'template_dir = "lab"')
    template_case.write_text(text)
    assert _run(["run", str(template_case), "--out", str(tmp_path / "o"), "--draft",
                 "--format", "html"]) == 2
    assert "draft_mark.html" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_check_of_a_fresh_init_template_names_every_placeholder_and_the_missing_files(
        tmp_path, capsys):
    from forensic_lr.cli import main as cli_main

    assert cli_main(["-q", "init", str(tmp_path / "new")]) == 0
    capsys.readouterr()
    assert cli_main(["check", str(tmp_path / "new" / "case.toml")]) == 2
    out = capsys.readouterr().out
    for field in ("[case] id", "[case] examiner", "[propositions] hp", "[evidence] score",
                  "[background] ss: ", "ss.csv: file not found", "[background] ds: ",
                  "ds.csv: file not found"):
        assert field in out, field
    assert not any(p.name not in ("case.toml",) for p in (tmp_path / "new").iterdir())


def test_draft_run_prints_every_field_check_lists(template_case, tmp_path, capsys):
    assert main(["check", str(template_case)]) == 2
    listed = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  - [")]
    assert len(listed) > 10
    assert _run(["run", str(template_case), "--out", str(tmp_path / "o"), "--draft",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert f"a final report still lacks {len(listed)} field(s)" in out
    printed = [ln for ln in out.splitlines() if ln.startswith("  - [")]
    assert printed == listed
    result = json.loads((tmp_path / "o" / "result.json").read_text())
    assert ["  - " + r for r in result["draft_reasons"]] == listed


def test_draft_of_a_ready_case_says_it_lacks_nothing(tmp_path, capsys):
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "c")]) == 0
    case = tmp_path / "c" / "case.toml"
    case.write_text(case.read_text().replace("n = 1000", "n = 100"))
    assert _run(["run", str(case), "--out", str(tmp_path / "o"), "--draft",
                 "--format", "json"]) == 0
    assert "lacks nothing a final report requires" in capsys.readouterr().out
