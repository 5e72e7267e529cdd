"""One path check for every file a command reads: loops, over-long names, special files.

Each hostile path below is rebuilt from its description (a symbolic link that points at
itself, one inside a sub-folder that loops, a name longer than NAME_MAX, a named pipe, a
folder, /dev/zero) and given to every command that reads a file: each must end with exit
status 2 within 20 s, with a message that names the path and what it is, and write nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.io.paths import input_file, input_folder, resolve_path

EXAMPLE = Path(__file__).resolve().parents[2] / "case_examples" / "voice"
LOOP = "symbolic link loop"


def _hostile(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, words the message must hold)."""
    (tmp_path / "self.csv").symlink_to("self.csv")
    (tmp_path / "sub").symlink_to("sub")
    os.mkfifo(tmp_path / "pipe.csv")
    (tmp_path / "folder.csv").mkdir()
    return {
        "loop": (tmp_path / "self.csv", LOOP),
        "loop in a sub-folder": (tmp_path / "sub" / "ss.csv", LOOP),
        "long name": (tmp_path / ("n" * 300 + ".csv"), "longer than the system allows"),
        "long path": (tmp_path / ("d/" * 2500 + "ss.csv"), "longer than the system allows"),
        "fifo": (tmp_path / "pipe.csv", "named pipe (FIFO)"),
        "folder": (tmp_path / "folder.csv", "is a folder"),
        "device": (Path("/dev/zero"), "is a device"),
    }


@pytest.fixture
def hostile(tmp_path):
    return _hostile(tmp_path)


@pytest.mark.parametrize("name", ["loop", "loop in a sub-folder", "long name", "long path",
                                  "fifo", "folder", "device"])
def test_input_file_names_what_the_path_is(hostile, name):
    path, words = hostile[name]
    with pytest.raises(InputError, match=re.escape(words)) as info:
        input_file(path, "score file")
    assert len(str(info.value)) < 600  # an over-long path is cut in the message


def test_regular_file_and_folder_pass(tmp_path):
    (tmp_path / "a.csv").write_text("1\n")
    assert input_file(tmp_path / "a.csv") == tmp_path / "a.csv"
    assert input_folder(tmp_path) == tmp_path
    with pytest.raises(InputError, match="is a file, not a template folder"):
        input_folder(tmp_path / "a.csv", "template folder")
    with pytest.raises(InputError, match="score file not found; check the path"):
        input_file(tmp_path / "missing.csv", "score file")


def test_resolve_path_refuses_loops_and_nul(tmp_path):
    (tmp_path / "x").symlink_to("x")
    with pytest.raises(InputError, match=LOOP):
        resolve_path(tmp_path / "x" / "ss.csv")
    with pytest.raises(InputError, match="NUL character"):
        resolve_path("a\x00b")
    assert resolve_path(tmp_path / "missing.csv") == (tmp_path / "missing.csv").resolve()


def _commands(bad: str) -> dict[str, list[str]]:
    """Every command that reads a data file, with ``bad`` as that file."""
    good = str(EXAMPLE / "ds.csv")
    return {
        "validate": ["validate", "--ss", bad, "--ds", good],
        "calibrate": ["calibrate", "--ss", bad, "--ds", good, "--method", "gaussian",
                      "--score", "1"],
        "compare": ["compare", "--a", bad, "--b", good],
        "multiclass": ["multiclass", "--val-logits", bad, "--val-labels", good],
        "label-noise": ["label-noise", "estimate", "--judgements", bad],
        "fusion": ["fusion", "worst-case", "--counts", bad],
        "validate --criteria": ["validate", "--ss", good, "--ds", str(EXAMPLE / "ss.csv"),
                                "--criteria", bad, "--report", "out"],
        "run --lab": ["run", str(EXAMPLE / "case.toml"), "--lab", bad, "--out", "out"],
        "run case": ["run", bad, "--out", "out"],
        "check case": ["check", bad],
    }


@pytest.mark.parametrize("name", ["loop", "loop in a sub-folder", "long name", "folder"])
def test_every_command_exits_2(tmp_path, name, capsys, monkeypatch):
    """Paths that cannot block: every command in this process, exit 2 and the reason."""
    path, words = _hostile(tmp_path)[name]
    monkeypatch.chdir(tmp_path)
    for command, args in _commands(str(path)).items():
        assert main(args) == 2, command
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (command, err[-800:])
    assert not (tmp_path / "out").exists()


_DRIVER = """
import contextlib, io, json, sys
from forensic_lr.cli import main
done = []
for args in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        done.append((main(args), err.getvalue()))
print(json.dumps(done))
"""


@pytest.mark.parametrize("name", ["fifo", "device"])
def test_every_command_exits_2_within_20_s(tmp_path, name, fresh_python):
    """A named pipe or /dev/zero would block or never end if read: every command in a
    separate process (``fresh_python``), killed if all together take more than 20 s."""
    path, words = _hostile(tmp_path)[name]
    commands = _commands(str(path))
    out = fresh_python("-c", _DRIVER, json.dumps(list(commands.values())), cwd=tmp_path,
                       timeout=20)
    assert out.returncode == 0, out.stderr[-800:]
    for command, (status, err) in zip(commands, json.loads(out.stdout), strict=True):
        assert status == 2, (command, err[-800:])
        assert words in err and "Traceback" not in err, (command, err[-800:])
    assert not (tmp_path / "out").exists()


@pytest.fixture
def case_folder(tmp_path):
    folder = tmp_path / "case"
    shutil.copytree(EXAMPLE, folder)
    return folder


@pytest.mark.parametrize(("target", "words"), [
    ("ss.csv", LOOP), ("sub/ss.csv", LOOP), ("s" * 300 + ".csv", "longer than the system"),
    ("d/" * 2100 + "ss.csv", "longer than the system")])
def test_background_loop_in_run_check_and_batch(case_folder, tmp_path, target, words, capsys):
    """The background file is a loop (directly, or through a looping sub-folder) or has a
    name or path longer than the system allows: run, check and a batch of such cases exit
    2 naming the key and the reason."""
    (case_folder / "ss.csv").unlink()
    (case_folder / "sub").symlink_to("sub")
    if target == "ss.csv":
        (case_folder / "ss.csv").symlink_to("ss.csv")
    case = case_folder / "case.toml"
    case.write_text(case.read_text().replace('ss = "ss.csv"', f'ss = "{target}"'))
    twin = case_folder / "twin.toml"
    shutil.copy(case, twin)
    out = tmp_path / "out"
    for args in (["run", str(case), "--out", str(out)], ["check", str(case)],
                 ["run", str(case), str(twin), "--out", str(tmp_path / "batch")]):
        assert main(args) == 2, args
        text = "".join(capsys.readouterr())
        assert "[background] ss" in text and words in text and target[:6] in text, text
        assert "Traceback" not in text
    assert not out.exists()


def test_score_arrays_unchanged_through_a_good_link(tmp_path):
    """A link to a real file is followed: the scores read are the file's."""
    (tmp_path / "real.csv").write_text("1.5\n2.5\n")
    (tmp_path / "link.csv").symlink_to("real.csv")
    from forensic_lr.io.scores import read_score_file

    np.testing.assert_array_equal(read_score_file(tmp_path / "link.csv"), [1.5, 2.5])


def test_a_long_path_in_a_message_keeps_its_start_and_its_file_name():
    from forensic_lr.io.paths import shown_path

    long = "/lab/cases/" + "2026-" * 60 + "/scores/ss.csv"
    shown = shown_path(long)
    assert shown.startswith("'/lab/cases/") and "scores/ss.csv'" in shown
    assert f"({len(long):,} characters)" in shown and len(shown) < 110
    assert shown_path("/lab/ss.csv") == "/lab/ss.csv"  # short and printable: as given
    assert shown_path("data\new.csv") == repr("data\new.csv")  # a control character escaped
