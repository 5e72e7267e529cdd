"""`[evidence] scores_file`: many evidence scores of one case from a labelled file."""

from __future__ import annotations

import hashlib
import warnings

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.evidence_file import read_evidence_file
from forensic_lr.casework.pipeline import run_case
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import ForensicLRWarning, InputError

SMALL = examples_dir() / "small-background"


@pytest.fixture
def case(tmp_path):
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((SMALL / name).read_bytes())
    text = (SMALL / "case.toml").read_text(encoding="utf-8").replace("n = 1000", "n = 100")
    (tmp_path / "case.toml").write_text(
        text.replace("score = 3.5", 'scores_file = "evidence.csv"'), encoding="utf-8")
    return tmp_path / "case.toml"


def test_file_scores_equal_inline_scores(case, tmp_path):
    (tmp_path / "evidence.csv").write_text("item;Score;Label\nx;3.5;Q1-K1\ny;1.0;Q1-K2\n")
    spec = load_case(case)
    assert spec.evidence.labels == ("Q1-K1", "Q1-K2")
    assert spec.evidence.values == (3.5, 1.0)
    inline = tmp_path / "inline.toml"
    inline.write_text(case.read_text().replace(
        'scores_file = "evidence.csv"', 'scores = [3.5, 1.0]\nlabels = ["Q1-K1", "Q1-K2"]'))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        a, b = run_case(spec), run_case(load_case(inline))
    assert [r.log10_lr for r in a.results] == [r.log10_lr for r in b.results]
    assert [r.label for r in a.results] == ["Q1-K1", "Q1-K2"]
    digest = hashlib.sha256((tmp_path / "evidence.csv").read_bytes()).hexdigest()
    assert a.provenance.inputs["evidence.csv"] == digest


@pytest.mark.parametrize("content, expected", [
    ("name,score\nQ1,1\n", "no 'label' column"),
    ("label,score\nQ1,1\nQ1,2\n", "line 3, column 'label': label 'Q1' repeats line 2"),
    ("label;score\nQ1;1,84\n", "line 2, column 'score': score '1,84' is not a number (write a"),
    ("label,score\nQ1,inf\n", "not a finite number"),
    ("label,score\n,1\n", "empty label"),
    ("label,score\n", "no scores"),
])
def test_bad_evidence_files_name_line_column_value(tmp_path, content, expected):
    (tmp_path / "e.csv").write_text(content)
    with pytest.raises(InputError, match=r"e\.csv") as info:
        read_evidence_file(tmp_path / "e.csv")
    assert expected in str(info.value)


def test_file_and_inline_scores_together_are_refused(case, tmp_path):
    (tmp_path / "evidence.csv").write_text("label,score\nQ1,1\n")
    case.write_text(case.read_text().replace('scores_file = "evidence.csv"',
                                             'scores_file = "evidence.csv"\nscore = 2.0'))
    with pytest.raises(InputError, match=r"\[evidence\].*scores_file.*not both"):
        load_case(case)


def test_missing_evidence_file_names_the_key(case):
    with pytest.raises(InputError, match=r"\[evidence\] scores_file: .*: file not found"):
        load_case(case)
