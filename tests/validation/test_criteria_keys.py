"""A mistyped criterion key is an input error naming the closest criterion and every valid
key: from the API (``check_criteria``) as from a case file, a lab profile or a criteria file."""

from __future__ import annotations

import pytest

from forensic_lr.casework import load_case
from forensic_lr.casework.profile import load_profile
from forensic_lr.casework.spec import Criteria
from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.validation import check_criteria

#: The keys a case file accepts under [validation.criteria] (the case-file schema, not the
#: metric catalogue that the message is built from).
VALID = tuple(Criteria.model_fields)


def _names_every_key(text: str) -> None:
    assert len(VALID) == 9
    for key in VALID:
        assert key in text, key


def test_api_typo_is_an_input_error_with_the_closest_key():
    with pytest.raises(InputError) as info:
        check_criteria({"cllr_max": 0.5, "cllr_maxx": 0.5}, {"cllr": 0.3})
    text = str(info.value)
    assert "'cllr_maxx' is not a validation criterion; did you mean 'cllr_max'?" in text
    _names_every_key(text)
    assert not isinstance(info.value, KeyError)


def test_api_key_with_nothing_close_lists_the_keys_only():
    with pytest.raises(InputError) as info:
        check_criteria({"speed": 1.0}, {"cllr": 0.3})
    assert "did you mean" not in str(info.value)
    _names_every_key(str(info.value))


def test_valid_keys_still_work():
    (result,) = check_criteria({"cllr_max": 0.5}, {"cllr": 0.3}, rule="estimate")
    assert result.met and result.metric == "cllr"


def test_case_file_typo_names_the_closest_key(small_case, tmp_path):
    case = small_case(tmp_path / "c", 'id = "K-1"')
    case.write_text(case.read_text() + "\n[validation.criteria]\nrmep_mx = 0.1\n")
    with pytest.raises(InputError) as info:
        load_case(case)
    text = str(info.value)
    assert "[validation] criteria.rmep_mx: unknown key" in text
    assert "did you mean 'rmep_max'?" in text
    _names_every_key(text)


def test_run_exits_2_with_the_same_hint(small_case, tmp_path, capsys):
    case = small_case(tmp_path / "c", 'id = "K-1"')
    case.write_text(case.read_text() + "\n[validation.criteria]\ncllr_maxx = 0.5\n")
    assert main(["run", str(case), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'cllr_max'?" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_lab_profile_typo_names_the_closest_key(tmp_path):
    profile = tmp_path / "lab.toml"
    profile.write_text('[criteria]\neer_maxi = 0.1\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_profile(profile)
    assert "did you mean 'eer_max'?" in str(info.value)


def test_criteria_file_typo_names_the_closest_key(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(1)
    np.savetxt(tmp_path / "ss.csv", rng.normal(2, 1, 40))
    np.savetxt(tmp_path / "ds.csv", rng.normal(0, 1, 60))
    (tmp_path / "crit.toml").write_text("auc_mn = 0.9\n", encoding="utf-8")
    argv = ["validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
            "--calibrate", "logistic", "--report", str(tmp_path / "r"),
            "--criteria", str(tmp_path / "crit.toml")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "did you mean 'auc_min'?" in err
    _names_every_key(err)
