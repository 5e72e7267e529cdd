"""The case checklist: placeholders from the init template and fields a final report needs."""

from __future__ import annotations

import tomllib

import pytest

from forensic_lr.casework.checklist import check_case
from forensic_lr.casework.spec import case_from_dict, case_template, load_case
from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.provenance import source_revision


@pytest.fixture
def template_case(tmp_path):
    """The unfilled `init` template with three scores per class."""
    assert main(["-q", "init", str(tmp_path)]) == 0
    (tmp_path / "ss.csv").write_text("1\n2\n3\n")
    (tmp_path / "ds.csv").write_text("0\n-1\n1\n")
    return tmp_path / "case.toml"


EXPECTED_TEMPLATE_PROBLEMS = [
    "[case] id", "[case] examiner", "[case] date", "[case] items", "[propositions] hp",
    "[propositions] hd", "[evidence] score", "[evidence] description",
    "[background] description", "[background] population",
    "[background] population_justification", "[background] sources", "[system] name",
    "[system] version", "[system] settings", "[validation] study_id", "[validation] study_date",
    "[validation] criteria",
]


def test_every_placeholder_of_the_template_is_named(template_case):
    checklist = check_case(load_case(template_case))
    assert not checklist.ready
    named = [f"[{p.section}] {p.key}" for p in checklist.problems]
    assert sorted(named) == sorted(EXPECTED_TEMPLATE_PROBLEMS)
    # case-file order: sections never go back
    order = ["case", "propositions", "evidence", "background", "system", "validation"]
    ranks = [order.index(p.section) for p in checklist.problems]
    assert ranks == sorted(ranks)
    assert [(r.key, r.n) for r in checklist.inputs] == [("ss", 3), ("ds", 3)]


@pytest.mark.parametrize("name", ["voice", "glass-distance", "small-background",
                                  "suspect-adapted"])
def test_worked_cases_are_ready(name):
    from forensic_lr._resources import examples_dir

    checklist = check_case(load_case(examples_dir() / name / "case.toml"))
    assert checklist.ready, [str(p) for p in checklist.problems]


def _filled(tmp_path) -> dict:
    from forensic_lr._resources import examples_dir

    data = tomllib.loads((examples_dir() / "voice" / "case.toml").read_text(encoding="utf-8"))
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((examples_dir() / "voice" / name).read_bytes())
    return data


def test_each_item_custody_field_is_required(tmp_path):
    data = _filled(tmp_path)
    data["case"]["items"][1]["seal"] = "  "
    del data["case"]["items"][0]["condition"]
    spec = case_from_dict(data, base_dir=tmp_path)
    names = [f"[{p.section}] {p.key}" for p in check_case(spec).problems]
    assert names == ["[case] items[0] (Q1) condition", "[case] items[1] (K1) seal"]


def test_score_zero_is_a_score_and_template_propositions_are_placeholders(tmp_path):
    data = _filled(tmp_path)
    template = tomllib.loads(case_template())
    data["evidence"] = {"score": 0, "description": "x"}
    data["propositions"]["hd"] = template["propositions"]["hd"]
    spec = case_from_dict(data, base_dir=tmp_path)
    assert spec.evidence.values == (0.0,)
    names = [f"[{p.section}] {p.key}" for p in check_case(spec).problems]
    assert names == ["[propositions] hd"]


def test_a_case_without_a_score_is_listed_and_never_run(tmp_path):
    from forensic_lr.casework import run_case

    data = _filled(tmp_path)
    data["evidence"] = {"description": "x"}
    spec = case_from_dict(data, base_dir=tmp_path)
    problems = check_case(spec).problems
    assert [f"[{p.section}] {p.key}" for p in problems] == ["[evidence] score"]
    assert "even for a draft" in problems[0].message
    with pytest.raises(InputError, match=r"\[evidence\] score: .*score = 3.2"):
        run_case(spec)


def test_reviewer_and_revision_are_notes_never_problems(tmp_path):
    data = _filled(tmp_path)
    spec = case_from_dict(data, base_dir=tmp_path)
    checklist = check_case(spec)
    assert checklist.ready
    notes = {f"[{n.section}] {n.key}": n.message for n in checklist.notes}
    assert "[case] reviewer" in notes
    assert notes["[provenance] source revision"].startswith(source_revision()[:7])
    data["case"]["reviewer"] = "D. Reviewer"
    notes = [n.key for n in check_case(case_from_dict(data, base_dir=tmp_path)).notes]
    assert "reviewer" not in notes


def test_sources_and_study_date_take_a_number_date_or_a_sentence(tmp_path):
    import datetime

    data = _filled(tmp_path)
    data["background"]["sources"] = 120
    data["validation"]["study_date"] = datetime.date(2026, 1, 15)
    spec = case_from_dict(data, base_dir=tmp_path)
    assert check_case(spec).ready
    assert spec.details().sources == 120
    assert spec.details().validation_study_date == datetime.date(2026, 1, 15)


def test_unreadable_input_names_the_key(template_case):
    (template_case.parent / "ds.csv").write_text("0\nabc\n1\n")
    with pytest.raises(InputError, match=r"\[background\].*ds.csv.*line 2"):
        check_case(load_case(template_case))


def test_source_revision_is_a_commit_or_unknown():
    import re

    assert re.fullmatch(r"[0-9a-f]{40}|unknown", source_revision())


def test_sources_must_be_a_count_or_a_sentence(tmp_path):
    data = _filled(tmp_path)
    for bad in (0, -3, True):
        data["background"]["sources"] = bad
        with pytest.raises(InputError, match=r"\[background\] sources"):
            case_from_dict(data, base_dir=tmp_path)


def test_a_final_report_needs_validation_criteria(tmp_path, capsys):
    """A case without criteria anywhere (case file or lab profile) is not ready, and `run`
    refuses it without --draft; criteria from the lab profile alone make it ready."""
    data = _filled(tmp_path)
    data["validation"].pop("criteria", None)
    spec = case_from_dict(data, base_dir=tmp_path)
    names = [f"[{p.section}] {p.key}" for p in check_case(spec).problems]
    assert names == ["[validation] criteria"]
    import shutil

    from forensic_lr._resources import examples_dir

    folder = tmp_path / "voice"
    shutil.copytree(examples_dir() / "voice", folder)
    case = folder / "case.toml"
    text = case.read_text(encoding="utf-8")
    case.write_text(text.replace("[validation.criteria]\ncllr_max = 0.5\neer_max = 0.1\n", ""),
                    encoding="utf-8")
    assert "criteria" not in case.read_text(encoding="utf-8")
    assert main(["check", str(case)]) == 2
    assert "[validation] criteria: required for a final report" in capsys.readouterr().out
    out = tmp_path / "out"
    assert main(["-q", "run", str(case), "--out", str(out), "--format", "json"]) == 2
    assert "[validation] criteria" in capsys.readouterr().err and not out.exists()
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "lab.toml").write_text("[criteria]\ncllr_max = 0.5\n", encoding="utf-8")
    spec = load_case(case, lab=lab / "lab.toml")
    assert check_case(spec).ready
    assert main(["-q", "check", str(case), "--lab", str(lab / "lab.toml")]) == 0
