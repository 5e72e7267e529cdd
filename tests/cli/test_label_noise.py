"""Tests of ``forensic-lr label-noise`` (parser built with cli_label_noise.add_parser).

Expected numbers are hand computations (see tests/test_label_noise.py for their derivation).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from forensic_lr.cli.label_noise import _cmd_label_noise, add_parser
from forensic_lr.errors import InputError


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="forensic-lr")
    sub = parser.add_subparsers(dest="command")
    add_parser(sub)
    args = parser.parse_args(argv)
    assert args.func is _cmd_label_noise
    return args.func(args)


def test_correct_json(capsys):
    # P0 = 0.75 / 0.85 = 15/17, R0 = 0.196875 / 0.25 = 0.7875 (by hand)
    argv = "label-noise correct --precision 0.8 --recall 0.7 --expert-prevalence 0.3"
    rc = run([*argv.split(), "--alpha", "0.1", "--beta", "0.05", "--n", "1000", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["precision"] == pytest.approx(15 / 17, abs=1e-15)
    assert out["recall"] == pytest.approx(0.7875, abs=1e-15)
    assert out["n_items"] == 1000 and out["model"] == "conditional"


def test_correct_text_eps(capsys):
    # P0 = 0.7 / 0.8 = 87.50 %, R0 = 0.91875 = 91.88 % (by hand)
    rc = run("label-noise correct --precision 0.8 --recall 0.7 --pi-hat 0.3 --eps 0.1".split())
    assert rc == 0
    text = capsys.readouterr().out
    assert "corrected P0 = 87.50%" in text and "corrected R0 = 91.88%" in text
    assert "independent" in text


def test_correct_errors():
    base = "label-noise correct --precision 0.8 --recall 0.7 --pi-hat 0.3".split()
    with pytest.raises(InputError, match=r"below 0\.5"):
        run([*base, "--eps", "0.5"])
    with pytest.raises(InputError, match="not both"):
        run([*base, "--eps", "0.1", "--alpha", "0.1"])
    with pytest.raises(InputError, match="alpha \\+ beta"):
        run([*base, "--alpha", "0.5", "--beta", "0.5"])
    with pytest.raises(InputError, match="both alpha"):
        run(base)


def test_estimate(tmp_path, capsys):
    rng = np.random.default_rng(1)
    c0 = rng.random(2000) < 0.3
    j = np.where(c0[:, None], rng.random((2000, 3)) >= 0.1, rng.random((2000, 3)) < 0.05)
    f = tmp_path / "judgements.csv"
    f.write_text("A,B,C\n" + "\n".join(",".join(str(int(v)) for v in row) for row in j) + "\n")
    assert run(["label-noise", "estimate", "--judgements", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_items"] == 2000 and out["judgements"]["assessors"] == ["A", "B", "C"]
    # asymptotic SEs at n = 2000, m = 3 (Fisher information by enumeration, fisher_se in
    # test_label_noise.py): 0.0109 (pi), 0.0091 (alpha), 0.0040 (beta); bounds are 5 SE
    assert abs(out["prevalence"] - 0.3) < 0.055
    assert abs(out["alpha"] - 0.1) < 0.045 and abs(out["beta"] - 0.05) < 0.02
    assert run(["label-noise", "estimate", "--judgements", str(f)]) == 0
    assert "alpha =" in capsys.readouterr().out


def test_estimate_errors(tmp_path):
    f = tmp_path / "j.csv"
    f.write_text("A,B\n1,0\n0,2\n")
    with pytest.raises(InputError, match="line 3, column 'B'"):
        run(["label-noise", "estimate", "--judgements", str(f)])
    f.write_text("A,B\n1,0\n0,0\n1,1\n")
    with pytest.raises(InputError, match="not identifiable"):
        run(["label-noise", "estimate", "--judgements", str(f)])
