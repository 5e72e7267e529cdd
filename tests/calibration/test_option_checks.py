"""Option values a calibrator cannot use are refused when the calibrator is made - before any
file is read - with the option named, and the faces say where the option came from
(``--option`` on the command line, ``[method.options]`` in a case file)."""

from __future__ import annotations

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.calibration import make_calibrator
from forensic_lr.cli import main
from forensic_lr.errors import InputError

VOICE = examples_dir() / "voice"

BAD = [
    ("gaussian", {"equal_variance": 1}, "equal_variance must be true or false"),
    ("logistic", {"l2": -1}, "l2 must be a number >= 0"),
    ("logistic", {"quadratic": "yes"}, "quadratic must be true or false"),
    ("kde", {"bandwidth": 0}, "bandwidth must be a positive number"),
    ("kde", {"bandwidth": "wide"}, "bandwidth must be 'silverman', 'scott'"),
    ("scal", {"max_abs_llr": "abc"}, "max_abs_llr must be a positive number"),
    ("student_t", {"df": float("nan")}, "df must be a positive number"),
    ("suspect_map", {"relevance": -2}, "relevance must be a number >= 0"),
    ("unsupervised", {"prior_weight": True}, "prior_weight must be a positive number"),
    ("bayes", {"mode": "mean"}, "mode must be 'predictive' or 'map'"),
    ("bayes", {"kappa0": 0}, "kappa0 must be a positive number"),
    ("bayes", {"prior_mean": float("inf")}, "prior_mean must be a finite number"),
]


@pytest.mark.parametrize("name, options, words", BAD)
def test_make_calibrator_refuses_unusable_option_values(name, options, words):
    with pytest.raises(InputError, match=words):
        make_calibrator(name, **options)


@pytest.mark.parametrize("name, options", [
    ("gaussian", {"equal_variance": True}), ("logistic", {"l2": 0, "quadratic": True}),
    ("kde", {"bandwidth": "scott"}), ("kde", {"bandwidth": 0.5}), ("student_t", {"df": None}),
    ("suspect_map", {"relevance": 0}), ("bayes", {"prior_mean": -3.0, "mode": "map"}),
])
def test_usable_option_values_are_accepted(name, options):
    make_calibrator(name, **options)


def test_command_line_names_the_option_before_reading_files(tmp_path, capsys):
    missing = str(tmp_path / "not-there.csv")
    code = main(["calibrate", "--ss", missing, "--ds", missing, "--method", "student_t",
                 "--score", "3", "--option", "df=abc"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--option df must be a positive number" in err and "not-there" not in err


@pytest.mark.parametrize("options, words", [
    ("{l2 = -1}", "[method.options] l2 must be a number >= 0"),
    ("{fo = 1}", "[method.options] unknown option(s) fo"),
])
def test_case_file_names_its_section(tmp_path, capsys, options, words):
    text = (VOICE / "case.toml").read_text(encoding="utf-8")
    text = text.replace('calibrator = "bayes"', f'calibrator = "logistic"\noptions = {options}')
    text = text.replace('method = "bayes"', 'method = "bootstrap"')
    case = tmp_path / "case.toml"
    case.write_text(text, encoding="utf-8")
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((VOICE / name).read_bytes())
    assert main(["run", str(case), "--out", str(tmp_path / "out"), "--draft"]) == 2
    err = capsys.readouterr().err
    assert words in err and "(top level)" not in err
    assert not (tmp_path / "out").exists()
