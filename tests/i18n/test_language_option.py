"""`[report] language` and `--language`: an unknown or untranslated language is refused
before any work, with exit code 2 and a message naming the key and the fix."""

from __future__ import annotations

import shutil

from forensic_lr._resources import examples_dir
from forensic_lr.cli import main


def test_run_refuses_a_language_without_catalogue(tmp_path, capsys, monkeypatch):
    import forensic_lr.i18n as i18n

    monkeypatch.setattr(i18n, "locale_dir", lambda: tmp_path / "no-catalogues")
    code = main(["run", str(examples_dir() / "voice" / "case.toml"), "--out",
                 str(tmp_path / "out"), "--language", "fr"])
    assert code == 2
    err = capsys.readouterr().err
    assert "[report] language" in err and "'fr' (French) has no 'report' catalogue" in err
    assert not (tmp_path / "out").exists()


def test_case_file_language_outside_the_list(tmp_path, capsys):
    folder = tmp_path / "voice"
    shutil.copytree(examples_dir() / "voice", folder)
    case = folder / "case.toml"
    case.write_text(case.read_text(encoding="utf-8").replace(
        "[report]\n", '[report]\nlanguage = "pt"\n'), encoding="utf-8")
    assert main(["check", str(case)]) == 2
    err = capsys.readouterr().err
    assert "[report] language" in err and "'de'" in err  # the choices are listed


def test_unknown_language_option_names_the_choices(capsys):
    try:
        main(["run", "x.toml", "--out", "y", "--language", "pt"])
    except SystemExit as exc:  # argparse: exit 2 with the choices
        assert exc.code == 2
    assert "es" in capsys.readouterr().err
