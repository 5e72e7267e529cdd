"""Case-file mistakes a European examiner makes: decimal commas, dotted dates, encodings."""

from __future__ import annotations

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import InputError

VOICE = (examples_dir() / "voice" / "case.toml").read_text(encoding="utf-8")


@pytest.fixture
def folder(tmp_path):
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((examples_dir() / "voice" / name).read_bytes())
    return tmp_path


def _error(folder, text: str | bytes) -> str:
    path = folder / "case.toml"
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    with pytest.raises(InputError) as info:
        load_case(path)
    return str(info.value)


def test_decimal_comma_in_toml_says_write_a_point(folder):
    message = _error(folder, VOICE.replace("score = 5.96", "score = 5,96"))
    assert "line 22" in message and "score = 5,96;" in message and "write 5.96" in message


def test_dotted_date_in_toml_says_write_iso_dates(folder):
    message = _error(folder, VOICE.replace("date = 2026-03-02", "date = 02.03.2026"))
    assert "write dates as year-month-day, e.g. 2026-03-02" in message


def test_quoted_decimal_comma_shows_value_and_key(folder):
    message = _error(folder, VOICE.replace("score = 5.96", 'score = "5,96"'))
    assert '[evidence] score: "5,96" is not a number; write 5.96' in message
    assert "pydantic" not in message and "http" not in message


def test_quoted_dotted_date_shows_the_iso_date(folder):
    message = _error(folder, VOICE.replace("date = 2026-03-02", 'date = "2.3.2026"'))
    assert '[case] date: "2.3.2026" is not a date' in message and "2026-03-02" in message


def test_nested_key_paths_and_values_in_own_words(folder):
    text = VOICE.replace('seal = "DVD no. 1, seal 2026-0417"', "seal = 3")
    text = text.replace('method = "bayes"\nlevel', 'method = "bootstrapp"\nlevel')
    message = _error(folder, text)
    assert "[case] items[0].seal: 3 is not text" in message
    assert '[uncertainty] method: "bootstrapp" is not one of the allowed values' in message
    assert "http" not in message


def test_long_values_are_cut(folder):
    message = _error(folder, VOICE.replace("score = 5.96", 'score = "' + "9" * 5000 + ',1"'))
    assert len(message) < 400 and "..." in message


def test_utf8_bom_is_accepted(folder):
    (folder / "case.toml").write_bytes(b"\xef\xbb\xbf" + VOICE.encode("utf-8"))
    assert load_case(folder / "case.toml").case.id == "FVC-2026-017"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_is_refused_with_its_name(folder, encoding):
    assert "UTF-16" in _error(folder, VOICE.encode(encoding))


def test_deep_nesting_is_a_named_error(folder):
    message = _error(folder, VOICE + "\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested too deeply" in message


def test_cli_exit_2_without_traceback(folder, capsys):
    (folder / "case.toml").write_text(VOICE.replace("score = 5.96", "score = 5,96"))
    assert main(["check", str(folder / "case.toml")]) == 2
    err = capsys.readouterr().err
    assert "write 5.96" in err and "Traceback" not in err
