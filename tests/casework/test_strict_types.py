"""Case files and lab profiles are typed strictly: nothing is quietly converted.

Rebuilt from the description: ``seed = true`` became 1, ``score_column = true`` column 1,
``elub = "yes"`` true and ``folds = "5"`` 5. Each is now an error naming the section, the
key, the value as written and the type expected; ``run`` exits 2 and writes nothing. A
whole number where a number is expected is still a number (``cllr_max = 1``). A data file
that is a named pipe is named as one, and ``prior_variance = 1e308`` names the option.
"""

from __future__ import annotations

import os

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.profile import load_profile
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import InputError

VOICE = (examples_dir() / "voice" / "case.toml").read_text(encoding="utf-8")


@pytest.fixture
def folder(tmp_path):
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((examples_dir() / "voice" / name).read_bytes())
    return tmp_path


def _case(folder, old: str, new: str):
    assert old in VOICE
    path = folder / "case.toml"
    path.write_text(VOICE.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("seed = 20261122", "seed = true",
     "[uncertainty] seed: true is not a whole number; write the number itself"),
    ('ss = "ss.csv"', 'ss = "ss.csv"\nscore_column = true',
     "[background] score_column: true is not a column"),
    ("elub = true", 'elub = "yes"',
     '[method] elub: "yes" is not true or false; write true or false, without quotes'),
    ("folds = 5", 'folds = "5"',
     '[validation] folds: "5" is not a whole number (it is text, in quotes)'),
    ("n = 4000", "n = 4000.0", "[uncertainty] n: 4000.0 is not a whole number; write 4000"),
    ("level = 0.95", 'level = "0.95"', '[uncertainty] level: "0.95" is not a number'),
    ("score = 5.96", 'score = "5.96"', '[evidence] score: "5.96" is not a number'),
    ("cllr_max = 0.5", "cllr_max = true",
     "[validation] criteria.cllr_max: true is not a number"),
    ('[report]', '[report]\nprior_odds_table = 1',
     "[report] prior_odds_table: 1 is not true or false"),
])
def test_loose_values_in_a_case_file_are_refused(folder, capsys, old, new, expected):
    path = _case(folder, old, new)
    with pytest.raises(InputError) as info:
        load_case(path)
    assert expected in str(info.value) and str(path) in str(info.value)
    assert main(["run", str(path), "--out", str(folder / "out")]) == 2
    assert expected in capsys.readouterr().err
    assert not (folder / "out").exists()


def test_whole_numbers_are_numbers_and_typed_values_pass(folder):
    spec = load_case(_case(folder, "cllr_max = 0.5", "cllr_max = 1"))
    assert spec.validation.criteria.cllr_max == 1.0
    assert isinstance(spec.validation.criteria.cllr_max, float)
    spec = load_case(_case(folder, 'ss = "ss.csv"', 'ss = "ss.csv"\nscore_column = 1'))
    assert spec.background.score_column == 1
    spec = load_case(_case(folder, "score = 5.96", "score = 6"))
    assert spec.evidence.values == (6.0,)


@pytest.mark.parametrize(("text", "expected"), [
    ('[method]\nelub = "yes"\n', '[method] elub: "yes" is not true or false'),
    ('[validation]\nfolds = "5"\n', '[validation] folds: "5" is not a whole number'),
    ("[uncertainty]\nn = true\n", "[uncertainty] n: true is not a whole number"),
    ('[uncertainty]\nlevel = "0.9"\n', '[uncertainty] level: "0.9" is not a number'),
    ("[report]\nprior_odds_table = 0\n", "[report] prior_odds_table: 0 is not true or false"),
    ("[criteria]\ncllr_max = false\n", "[criteria] cllr_max: false is not a number"),
    ("[opinion]\nslope_min = \"0.8\"\n", '[opinion] slope_min: "0.8" is not a number'),
])
def test_loose_values_in_a_lab_profile_are_refused(tmp_path, text, expected):
    path = tmp_path / "lab.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_profile(path)
    assert expected in str(info.value) and str(path) in str(info.value)


def test_a_named_pipe_as_background_is_named_as_one(folder, capsys):
    (folder / "ss.csv").unlink()
    os.mkfifo(folder / "ss.csv")
    path = _case(folder, "elub = true", "elub = true")
    assert main(["run", str(path), "--out", str(folder / "out")]) == 2
    err = capsys.readouterr().err
    assert "[background] ss" in err and "named pipe (FIFO)" in err and "not found" not in err
    assert not (folder / "out").exists()


def test_huge_prior_variance_names_the_option(folder, capsys):
    path = _case(folder, "elub = true", "elub = true\noptions = { prior_variance = 1e308 }")
    assert main(["run", str(path), "--out", str(folder / "out")]) == 2
    err = capsys.readouterr().err
    assert "prior_variance = 1e+308" in err and "floating-point range" in err
    assert not (folder / "out").exists()
    assert main(["calibrate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
                 "--method", "bayes", "--score", "5", "--option", "prior_variance=1e308"]) == 2
    assert "prior_variance = 1e+308" in capsys.readouterr().err


def test_a_calibrator_option_written_as_text_is_refused(folder):
    path = _case(folder, "elub = true", 'elub = true\noptions = { prior_variance = "5" }')
    with pytest.raises(InputError, match=r"prior_variance must be a positive number, got "
                                         r"'5' \(text, in quotes\)"):
        load_case(path)
