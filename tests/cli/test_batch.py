"""`forensic-lr run A/case.toml B/case.toml --out DIR`: batches, and several evidence scores."""

from __future__ import annotations

import csv
import json
import warnings

import pytest

from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning


def _run(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        return main(args)


@pytest.fixture
def cases(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("voice", "small-background"):
        assert main(["-q", "examples", "copy", name, name]) == 0
    small = tmp_path / "small-background" / "case.toml"
    small.write_text(small.read_text().replace("n = 1000", "n = 100"))
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("ss.csv", "ds.csv"):
        (bad / name).write_bytes((tmp_path / "voice" / name).read_bytes())
    text = (tmp_path / "voice" / "case.toml").read_text()
    (bad / "case.toml").write_text(text.replace("score = 5.96", "score = 5,96"))
    return tmp_path


def test_batch_writes_every_good_case_and_a_summary(cases, capsys):
    argv = ["run", "bad/case.toml", "small-background/case.toml", "voice/case.toml",
            "--out", "out", "--format", "json"]
    assert _run(argv) == 2  # one case failed ...
    captured = capsys.readouterr()
    assert "bad/case.toml" in captured.err and "write 5.96" in captured.err
    out = cases / "out"
    # ... and the others are still written, one folder per case id
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["FVC-2026-017",
                                                                   "TM-2026-004"]
    single = json.loads((out / "FVC-2026-017" / "result.json").read_text())
    summary = json.loads((out / "summary.json").read_text())["cases"]
    assert [c["status"] for c in summary] == ["failed", "final", "final"]
    assert summary[0]["error"] and summary[0]["folder"] == ""
    voice = summary[2]
    assert voice["results"][0]["lr_text"] == single["results"][0]["lr_text"]
    assert voice["results"][0]["log10_lr"] == pytest.approx(single["results"][0]["log10_lr"],
                                                            abs=1e-4)
    assert voice["warnings"] == single["warnings"]
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["status"] for r in rows] == ["failed", "final", "final"]
    assert rows[2]["lr"] == "280" and rows[2]["label"] == "Q1-K1"  # ELUB-bounded voice case


def test_batch_of_the_same_case_twice_gets_two_folders(cases):
    assert _run(["-q", "run", "small-background/case.toml", "small-background/case.toml",
                 "--out", "out", "--format", "json"]) == 0
    assert sorted(p.name for p in (cases / "out").iterdir() if p.is_dir()) == [
        "TM-2026-004", "TM-2026-004-2"]


def test_one_case_keeps_the_single_layout(cases):
    assert _run(["-q", "run", "small-background/case.toml", "--out", "one",
                 "--format", "json"]) == 0
    assert sorted(p.name for p in (cases / "one").iterdir()) == [".forensic-lr-output.json",
                                                                 "result.json"]


def test_several_scores_one_lr_each_never_multiplied(cases, capsys):
    case = cases / "small-background" / "case.toml"
    case.write_text(case.read_text().replace("score = 3.5", "scores = [3.5, 1.0]"))
    assert _run(["run", str(case), "--out", "o", "--format", "html,json"]) == 0
    out = capsys.readouterr().out
    assert "never multiplies" in out
    result = json.loads((cases / "o" / "result.json").read_text())
    assert len(result["results"]) == 2
    html = (cases / "o" / "report.html").read_text()
    assert "never multiplies" in html
