"""Inputs that used to run quietly into a misleading result: a 300-digit LR, the population
model run by a suspect-adapted method, the same background given for both propositions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from forensic_lr._resources import examples_dir
from forensic_lr.casework import evaluate_evidence
from forensic_lr.casework.verbal import HUGE_LOG10, format_log10, format_lr
from forensic_lr.cli import main
from forensic_lr.errors import InputError

VOICE = examples_dir() / "voice"
BACKGROUND = ["--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv")]


def test_huge_lr_is_written_with_a_scientific_exponent():
    assert format_lr(2.28e300) == "10^(2.3 × 10^300)"
    assert format_lr(-2.28e300) == "1/10^(2.3 × 10^300)"
    assert format_lr(HUGE_LOG10 - 1) == "1.0 × 10^999999"
    assert format_log10(2.28e300) == "2.3 × 10^300"
    assert format_log10(-2.28e300, 2, sign=True) == "-2.3 × 10^300"
    assert format_log10(1.23456, 2, sign=True) == "+1.23"


@given(st.floats(-1e308, 1e308, allow_nan=False))
def test_texts_stay_short_and_keep_the_order_of_magnitude(x):
    text = format_lr(x)
    assert len(text) < 40
    if abs(x) >= HUGE_LOG10:  # the printed exponent is the log10 LR to two figures
        exponent = float(text.split("(")[1].split(" ×")[0]) * 10 ** int(text.split("^")[-1][:-1])
        assert math.isclose(exponent, abs(x), rel_tol=0.05)
    assert len(format_log10(x)) < 40


def test_calibrate_text_prints_no_huge_digits(capsys):
    assert main(["calibrate", *BACKGROUND, "--method", "logistic", "--score", "1e300",
                 "--n", "100", "--no-elub"]) == 0
    out = capsys.readouterr().out
    assert "LR = 10^(2.3 × 10^300)" in out
    assert max(len(line) for line in out.splitlines()) < 400
    assert not any(len(word) > 30 for word in out.split())


def test_suspect_map_without_suspect_scores_is_an_input_error(make_background, capsys):
    ss, ds = make_background()
    with pytest.raises(InputError, match=r"method suspect_map needs the suspect's own "
                                         r"same-source scores.*--suspect-ss FILE"):
        evaluate_evidence(ss, ds, [1.0], calibrator="suspect_map", interval="none")
    given_scores = evaluate_evidence(ss, ds, [1.0], calibrator="suspect_map", interval="none",
                                     extra={"suspect_ss": ss[:10] + 0.1})
    assert given_scores.method.params["n_suspect"] == 10
    capsys.readouterr()
    assert main(["calibrate", *BACKGROUND, "--method", "suspect_map", "--score", "5.0"]) == 2
    err = capsys.readouterr().err
    assert "suspect_map needs the suspect's own same-source scores" in err
    assert "--suspect-ss FILE" in err and "Traceback" not in err


def test_case_with_suspect_map_and_no_suspect_file_is_refused(tmp_path, capsys):
    case = (VOICE / "case.toml").read_text(encoding="utf-8")
    case = case.replace('calibrator = "bayes"', 'calibrator = "suspect_map"')
    assert 'calibrator = "suspect_map"' in case
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((VOICE / name).read_bytes())
    (tmp_path / "case.toml").write_text(case, encoding="utf-8")
    assert main(["run", str(tmp_path / "case.toml"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "suspect_map" in err and "suspect_ss" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_same_values_for_both_backgrounds_warn(make_background):
    ss, _ = make_background()
    record = evaluate_evidence(ss, ss[::-1].copy(), [1.0], calibrator="gaussian",
                               interval="none")
    assert any("same file given for both" in w for w in record.warnings)


def test_calibrate_refuses_one_file_for_both_backgrounds(capsys):
    ss = str(VOICE / "ss.csv")
    assert main(["calibrate", "--ss", ss, "--ds", str(VOICE / "." / "ss.csv"),
                 "--method", "gaussian", "--score", "5", "--interval", "none"]) == 2
    err = capsys.readouterr().err
    assert "same file" in err and err.count("ss.csv") == 2


def test_distinct_backgrounds_raise_no_input_warning():
    rng = np.random.default_rng(0)
    record = evaluate_evidence(rng.normal(2, 1, 50), rng.normal(0, 1, 50), [1.0],
                               calibrator="gaussian", interval="none")
    assert not any("same file" in w for w in record.warnings)


def test_case_with_a_score_of_1e300_reports_without_huge_digits(tmp_path):
    import re
    import shutil


    case = tmp_path / "case"
    shutil.copytree(VOICE, case)
    text = (case / "case.toml").read_text(encoding="utf-8")
    for old, new in (("score = 5.96", "score = 1e300"), ('calibrator = "bayes"',
                     'calibrator = "logistic"'), ("elub = true", "elub = false"),
                     ('method = "bayes"', 'method = "bootstrap"'), ("n = 4000", "n = 100")):
        assert old in text
        text = text.replace(old, new, 1)
    (case / "case.toml").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(case / "case.toml"), "--out", str(out), "--format",
                 "html,json"]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "10^(2.3 × 10<sup>300</sup>)" in html
    assert max(len(run) for run in re.findall(r"[0-9][0-9,.]*", html)) < 20


def test_a_boolean_score_in_the_case_file_is_refused(tmp_path):
    import shutil

    import pytest

    from forensic_lr._resources import examples_dir
    from forensic_lr.casework import load_case
    from forensic_lr.errors import InputError

    folder = tmp_path / "voice"
    shutil.copytree(examples_dir() / "voice", folder)
    text = (folder / "case.toml").read_text(encoding="utf-8")
    (folder / "case.toml").write_text(text.replace("score = 5.96", "score = true"),
                                      encoding="utf-8")
    with pytest.raises(InputError, match="true/false is not a score"):
        load_case(folder / "case.toml")


@pytest.mark.parametrize("how", ["same path", "symlink", "copy"])
@pytest.mark.parametrize("command", ["validate", "calibrate", "run"])
def test_one_file_for_both_backgrounds_is_refused_by_every_command(tmp_path, capsys, how,
                                                                   command):
    import shutil
    ss = tmp_path / "ss.csv"
    shutil.copy(VOICE / "ss.csv", ss)
    ds = {"same path": ss, "symlink": tmp_path / "ds.csv", "copy": tmp_path / "ds.csv"}[how]
    if how == "symlink":
        ds.symlink_to(ss)
    elif how == "copy":
        shutil.copy(ss, ds)
    if command == "run":
        case = tmp_path / "case.toml"
        text = (VOICE / "case.toml").read_text(encoding="utf-8")
        case.write_text(text.replace('ds = "ds.csv"', f'ds = "{ds.name}"'), encoding="utf-8")
        argv = ["run", str(case), "--out", str(tmp_path / "out"), "--draft", "--format", "json"]
    else:
        argv = [command, "--ss", str(ss), "--ds", str(ds)]
        if command == "calibrate":
            argv += ["--method", "gaussian", "--score", "5", "--interval", "none"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert ("same file" in err or "identical contents" in err) and "Traceback" not in err
    assert str(ss) in err or "ss.csv" in err
    assert not (tmp_path / "out").exists()
