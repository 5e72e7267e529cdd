"""open_case / CaseJob: the one sequence behind run, a batch, verify and the web app."""

from __future__ import annotations

import pytest

from forensic_lr.casework import open_case
from forensic_lr.casework.checklist import check_case
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import InputError


@pytest.fixture
def case(tmp_path, small_case):
    return small_case(tmp_path / "c", 'id = "JOB-1"', formats=("json",))


def test_a_case_not_ready_is_refused_naming_every_field(case):
    problems = check_case(load_case(case), read_inputs=False).problems
    assert problems  # the small case lacks final-report fields
    with pytest.raises(InputError) as err:
        open_case(case)
    text = str(err.value)
    assert f"fill these {len(problems)} field(s)" in text and "--draft" in text
    assert all(str(p) in text for p in problems)


def test_a_draft_runs_marked_with_what_it_lacks(case):
    job = open_case(case, draft=True, calibrator="gaussian")
    assert job.formats == ("json",)  # the case's [report] formats
    assert job.spec.method.calibrator == "gaussian"  # the override wins over the case file
    assert job.inputs == (case, case.parent / "ss.csv", case.parent / "ds.csv")
    run = job.run()
    assert run.result.draft is True
    assert run.result.draft_reasons == tuple(str(p) for p in job.checklist.problems)


@pytest.mark.parametrize("formats", [(), ("pdf", "docx")])
def test_unknown_or_no_formats_are_refused(case, formats):
    with pytest.raises(InputError, match="pdf, html, json"):
        open_case(case, draft=True, formats=formats)


def test_run_and_batch_write_the_same_record(tmp_path, small_case, monkeypatch):
    """Two faces, one sequence: a case run alone and the same case in a batch give the
    same result.json, byte for byte."""
    first = small_case(tmp_path / "a", 'id = "JOB-A"', formats=("json",))
    second = small_case(tmp_path / "b", 'id = "JOB-B"', formats=("json",))
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(first), "--out", "one", "--draft", "-q"]) == 0
    assert main(["run", str(first), str(second), "--out", "many", "--draft", "-q"]) == 0
    assert (tmp_path / "one" / "result.json").read_bytes() == (
        tmp_path / "many" / "JOB-A" / "result.json").read_bytes()
