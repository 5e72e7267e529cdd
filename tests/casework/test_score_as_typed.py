"""The report prints each evidence score as the case file writes it: "5.50" stays "5.50"
(a float would print 5.5), in the evaluation table, the configuration annex and the
command line's summary line."""

from __future__ import annotations

import json
import shutil

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.spec import typed_scores
from forensic_lr.cli import main


@pytest.mark.parametrize("text, json_file, expected", [
    ("[evidence]\nscore = 5.50\n", False, ("5.50",)),
    ("[evidence]\nscores = [1.0, 2.50e1, 3, -0.10]\n", False, ("1.0", "2.50e1", "3", "-0.10")),
    ('{"evidence": {"score": 5.50}}', True, ("5.50",)),
    ('{"evidence": {"scores": [1.250, 7]}}', True, ("1.250", "7")),
    ("[evidence]\nscore = true\n", False, None),
    ("[evidence]\nscores_file = 'e.csv'\n", False, None),
    ("[evidence\n", False, None),
])
def test_typed_scores_keep_the_written_text(text, json_file, expected):
    assert typed_scores(text, json_file=json_file) == expected


def test_report_prints_the_score_as_typed(tmp_path, capsys):
    case_dir = tmp_path / "voice"
    shutil.copytree(examples_dir() / "voice", case_dir)
    case = case_dir / "case.toml"
    case.write_text(case.read_text(encoding="utf-8").replace("score = 5.96", "score = 5.50"),
                    encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(case), "--out", str(out), "--draft", "--format", "html,json"]) == 0
    assert "score 5.50 -> LR" in capsys.readouterr().out
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    (evidence,) = result["results"]
    assert evidence["score"] == 5.5 and evidence["score_text"] == "5.50"
    html = (out / "report.html").read_text(encoding="utf-8")
    assert '<td class="num">5.50</td>' in html
    assert "evidence.score</td><td>5.50<" in html
    assert "evidence.scores<" not in html  # the case gives one score, not a list


def test_distance_scores_print_as_typed_never_negated(tmp_path):
    case_dir = tmp_path / "glass"
    shutil.copytree(examples_dir() / "glass-distance", case_dir)
    case = case_dir / "case.toml"
    case.write_text(case.read_text(encoding="utf-8").replace("score = 1.4", "score = 1.40"),
                    encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(case), "--out", str(out), "--draft", "--format", "html"]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert '<td class="num">1.40</td><td>yes</td>' in html
    assert "-1.40" not in html and "negated distance" not in html
