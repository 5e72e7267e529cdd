"""Tests of the ``fusion worst-case`` command (forensic_lr.cli.fusion).

Until the command is wired into forensic_lr.cli, the tests build a parser with
``cli_fusion.add_parser`` and call the handler. Expected numbers are hand computed
(see the comments, and tests/test_fusion.py::hand_example for the same data).
"""

from __future__ import annotations

import argparse
import json

import pytest

from forensic_lr.cli import fusion as cli_fusion
from forensic_lr.errors import InputError


def run(argv):
    parser = argparse.ArgumentParser(prog="forensic-lr")
    cli_fusion.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def files(tmp_path):
    # Majority of A, B, C; worked by hand in tests/test_fusion.py: with S* = B the worst case
    # is FN 1 + FP 2 = 3 errors of 6 and the system run with B makes 2 errors.
    (tmp_path / "d.csv").write_text("A,B,C\n1,1,0\n0,1,1\n1,0,0\n0,0,1\n1,1,1\n0,0,0\n")
    (tmp_path / "l.csv").write_text("label\n1\n1\n1\n0\n0\n0\n")
    # majority of 3 as a table, columns in another order than the decisions file
    rows = ["C,B,A,fused"]
    for c in (0, 1):
        for b in (0, 1):
            for a in (0, 1):
                rows.append(f"{c},{b},{a},{int(a + b + c >= 2)}")
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    counts = {
        "system_pos": {"tp": 90, "fn": 10, "fp": 30, "tn": 50},
        "system_neg": {"tp": 60, "fn": 40, "fp": 5, "tn": 75},
        "model": {"tp": 43, "fn": 7, "fp": 100, "tn": 100},
    }
    (tmp_path / "c.json").write_text(json.dumps(counts))
    return tmp_path


def test_decisions_named_fuser_and_table_agree(files, capsys):
    base = ["fusion", "worst-case", "--decisions", str(files / "d.csv")]
    base += ["--labels", str(files / "l.csv"), "--component", "B", "--json"]
    assert run([*base, "--fuser", "majority"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert run([*base, "--fuser", str(files / "t.csv")]) == 0
    table = json.loads(capsys.readouterr().out)
    assert named == table
    assert (named["worst_fn"], named["worst_fp"], named["worst_errors"]) == (1, 2, 3)
    assert named["actual_errors"] == 2
    assert named["worst_error_rate"] == pytest.approx(0.5)


def test_text_output(files, capsys):
    argv = ["fusion", "worst-case", "--decisions", str(files / "d.csv"), "--labels"]
    argv += [str(files / "l.csv"), "--component", "B", "--fuser", "MAJORITY"]
    assert run(argv) == 0
    out = capsys.readouterr().out
    assert "worst-case errors           3 of 6 (rate 0.5000)" in out
    assert "component 'B'" in out


def test_counts_with_transfer(files, capsys):
    # hand computation in tests/test_fusion.py::test_transfer_by_per_class_accuracy:
    # worst FN = 12 of 50, worst FP = 75 of 200
    assert run(["fusion", "worst-case", "--counts", str(files / "c.json"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["transferred"] is True
    assert d["worst_fn"] == pytest.approx(12.0)
    assert d["worst_fp"] == pytest.approx(75.0)
    assert "actual_errors" not in d
    assert run(["fusion", "worst-case", "--counts", str(files / "c.json")]) == 0
    assert "rescaled to the model's data set" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--component", "Z", "--fuser", "or"], "unknown component 'Z'"),
        (["--component", "B", "--fuser", "xor"], "neither and, or, majority"),
        (["--component", "B"], "missing --fuser"),
    ],
)
def test_bad_arguments(files, extra, match):
    argv = ["fusion", "worst-case", "--decisions", str(files / "d.csv")]
    argv += ["--labels", str(files / "l.csv"), *extra]
    with pytest.raises(InputError, match=match):
        run(argv)


def test_mismatched_lengths_and_mixed_inputs(files):
    (files / "l5.csv").write_text("1\n1\n1\n0\n0\n")
    argv = ["fusion", "worst-case", "--decisions", str(files / "d.csv"), "--labels"]
    argv += [str(files / "l5.csv"), "--component", "B", "--fuser", "or"]
    with pytest.raises(InputError, match=r"has 5 labels but .* has 6 rows"):
        run(argv)
    with pytest.raises(InputError, match="cannot be combined with --component"):
        run(["fusion", "worst-case", "--counts", str(files / "c.json"), "--component", "B"])


def test_table_missing_rows(files):
    (files / "bad.csv").write_text("A,B,C,fused\n0,0,0,0\n1,1,1,1\n")
    argv = ["fusion", "worst-case", "--decisions", str(files / "d.csv"), "--labels"]
    argv += [str(files / "l.csv"), "--component", "B", "--fuser", str(files / "bad.csv")]
    with pytest.raises(InputError, match=r"bad\.csv: the truth table has no row for"):
        run(argv)
