"""The study readers quote cells as the score readers do: short, printable excerpts.

A 300-character cell (here a line of a password file, with a control character) must
not come back whole in the message of ``label-noise`` or ``fusion``.
"""

from __future__ import annotations

import pytest

from forensic_lr.cli import main

CELL = "root:x:0:0:root:/root:/bin/bash\x1b[2J" + "z" * 270


def _message(args, capsys) -> str:
    assert main(args) == 2
    captured = capsys.readouterr()
    return captured.out + captured.err


def _check_short(text: str) -> None:
    assert CELL not in text and "z" * 60 not in text
    assert "\x1b" not in text  # the control character is escaped
    assert "(30" in text and "characters)" in text  # the length is noted, as excerpt() does


def test_label_noise_quotes_a_long_cell_shortly(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_text(f"item,A,B\n1,1,0\n2,{CELL},1\n")
    text = _message(["label-noise", "estimate", "--judgements", str(path)], capsys)
    assert "j.csv, line 3, column 'A'" in text
    _check_short(text)


def test_label_noise_quotes_a_long_header_shortly(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_text(f"item,A,{CELL}\n1,1,0\n2,1,maybe\n")
    text = _message(["label-noise", "estimate", "--judgements", str(path)], capsys)
    assert "'maybe'" in text
    _check_short(text)


@pytest.mark.parametrize("where", ["value", "header"])
def test_fusion_quotes_a_long_cell_shortly(tmp_path, capsys, where):
    decisions, labels = tmp_path / "d.csv", tmp_path / "y.csv"
    if where == "value":
        decisions.write_text(f"A,B\n1,0\n{CELL},1\n")
    else:
        decisions.write_text(f"A,{CELL}\n1,0\n1,maybe\n")
    labels.write_text("1\n0\n")
    text = _message(["fusion", "worst-case", "--decisions", str(decisions), "--labels",
                     str(labels), "--component", "A", "--fuser", "or"], capsys)
    _check_short(text)


def test_fusion_counts_file_quotes_a_long_value_shortly(tmp_path, capsys):
    import json

    counts = {k: {"tp": 1, "fn": 1, "fp": 1, "tn": 1} for k in ("system_pos", "model")}
    counts["system_neg"] = {"tp": CELL, "fn": 1, "fp": 1, "tn": 1}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(counts))
    _check_short(_message(["fusion", "worst-case", "--counts", str(path)], capsys))
