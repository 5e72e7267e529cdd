"""Every worked example can be listed and copied, and every command its README gives runs
(by the command line's `main`, which the `forensic-lr` script calls)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.cli import main

EXAMPLES = sorted(p.name for p in examples_dir().iterdir() if (p / "README.md").is_file())


def readme_commands(readme: Path) -> list[str]:
    """The ``forensic-lr`` command lines of a README's code blocks (continuations joined)."""
    commands, block = [], False
    text = readme.read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            block = not block
            continue
        if block and line.strip().startswith("forensic-lr "):
            commands.append(line.strip())
    return commands


def _cli(command: str, cwd: Path, monkeypatch, capsys) -> tuple[int, str]:
    """The command run by the command line's ``main`` in this process from ``cwd`` (the
    ``forensic-lr`` script calls it with the same words): exit status and error output.
    An exception that ``main`` does not turn into an exit status fails the test itself."""
    monkeypatch.chdir(cwd)
    code = main(shlex.split(command, comments=True)[1:])
    return code, capsys.readouterr().err


def test_every_example_is_listed(capsys):
    assert main(["examples"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()[:len(EXAMPLES)]]
    assert listed == EXAMPLES
    assert {"two-systems", "multiclass-logits", "fusion-worst-case", "label-noise"} <= set(
        EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_is_copied_with_its_data(name, tmp_path, capsys):
    assert main(["examples", "copy", name, str(tmp_path / name)]) == 0
    source = examples_dir() / name
    expected = {p.relative_to(source).as_posix() for p in source.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}
    copied = {p.relative_to(tmp_path / name).as_posix() for p in (tmp_path / name).rglob("*")
              if p.is_file() and not p.name.startswith(".")}
    assert copied == expected
    assert "README.md" in copied


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_readme_command_runs(name, tmp_path, monkeypatch, capsys):
    commands = readme_commands(examples_dir() / name / "README.md")
    assert commands, f"{name}/README.md gives no forensic-lr command"
    work = tmp_path / name
    shutil.copytree(examples_dir() / name, work)
    for command in commands:
        code, err = _cli(command, work, monkeypatch, capsys)
        assert code == 0, (command, err[-2000:])
        assert "Traceback" not in err


def test_small_background_switch_to_gaussian_works(tmp_path, monkeypatch, capsys):
    """The README: change calibrator = "bayes" to "gaussian", run again and compare."""
    work = tmp_path / "sb"
    shutil.copytree(examples_dir() / "small-background", work)
    case = work / "case.toml"
    text = case.read_text(encoding="utf-8")
    assert 'calibrator = "bayes"' in text
    case.write_text(re.sub(r'calibrator = "bayes"', 'calibrator = "gaussian"', text),
                    encoding="utf-8")
    code, err = _cli("forensic-lr run case.toml --out g --format json", work, monkeypatch,
                     capsys)
    assert code == 0, err
