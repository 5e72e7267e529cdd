"""Every command on generated hostile input: exit 0 or 2, never a traceback, never past
the time limit.

Hypothesis generates counts (negative, zero, one below and above each limit, huge,
not a number), paths (missing, a folder, a device, a symbolic-link loop, a name longer
than the system allows, an empty or binary file, a file of one huge line), file contents
(numbers, text, non-finite values, 5,000-digit integers) and case files (deep nesting,
long texts and lists, huge integers, paths of each kind, counts). Each call runs in this
process under an alarm of :data:`LIMIT` seconds; an exception other than the exit of the
argument parser is a traceback a user would see. Few examples per command keep the whole
file under a minute.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import tempfile
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from forensic_lr._resources import examples_dir
from forensic_lr.cli import main

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer") or os.name != "posix",
                                reason="the per-call time limit uses a POSIX interval timer")

#: Seconds one call may take.
LIMIT = 20.0

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True, database=None,
                    phases=(Phase.explicit, Phase.generate),  # no shrinking: keep it fast
                    suppress_health_check=[HealthCheck.too_slow])

PATH_KINDS = ("missing", "folder", "device", "loop", "long name", "empty", "binary",
              "huge line", "good")
COUNTS = st.sampled_from(["-1", "0", "1", "99", "100", "100001", "1000000000", "1" + "0" * 30,
                          "abc", "1e3", ""])
CELL = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=40),
    st.sampled_from(["9" * 5000, "1e308", "-1e309", "#x", "a,b,c", "0", "1", "p", "n"]),
)
CONTENT = st.lists(CELL, min_size=0, max_size=25).map("\n".join)


class _Overrun(BaseException):
    """The call ran past :data:`LIMIT` (a BaseException: no handler of the code takes it)."""


def _call(argv: list[str], allowed=(0, 2)) -> int:
    """``main(argv)``'s exit status under the time limit, its output swallowed."""
    def alarm(*_):
        raise _Overrun(f"{argv[:3]} ran past {LIMIT} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, LIMIT)
    start = time.monotonic()
    sink = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), \
                contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: a malformed option
                code = exc.code
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < LIMIT
    assert code in allowed, (argv, code, sink.getvalue()[-500:])
    assert "Traceback" not in sink.getvalue()
    return code


def _path(folder: Path, kind: str, content: str, name: str) -> str:
    """A path of the given kind in ``folder`` (``content`` for a good file)."""
    path = folder / name
    if kind == "missing":
        return str(path)
    if kind == "folder":
        path.mkdir()
    elif kind == "device":
        return os.devnull
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "long name":
        return str(folder / ("x" * 300))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 8)
    elif kind == "huge line":
        path.write_text("1," * 500_000 + "\n")
    else:
        path.write_text(content + "\n", encoding="utf-8", errors="surrogatepass")
    return str(path)


@contextlib.contextmanager
def _folder():
    folder = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _files(folder: Path, kinds, contents) -> list[str]:
    return [_path(folder, k, c, f"f{i}.csv")
            for i, (k, c) in enumerate(zip(kinds, contents, strict=True))]


@SETTINGS
@given(kinds=st.tuples(*[st.sampled_from(PATH_KINDS)] * 2), contents=st.tuples(CONTENT, CONTENT),
       n=COUNTS, folds=COUNTS, command=st.sampled_from(["calibrate", "validate", "compare"]))
def test_score_commands(kinds, contents, n, folds, command):
    with _folder() as folder:
        a, b = _files(folder, kinds, contents)
        _call(_score_argv(command, a, b, n, folds, folder))


def _score_argv(command, a, b, n, folds, folder) -> list[str]:
    return {
        "calibrate": ["calibrate", "--ss", a, "--ds", b, "--method", "gaussian", "--score", "1",
                      "--n", n],
        "validate": ["validate", "--ss", a, "--ds", b, "--calibrate", "gaussian", "--folds",
                     folds, "--ci", "bootstrap", "--n", n, "--report", str(folder / "out")],
        "compare": ["compare", "--a", a, "--b", b, "--n", n],
    }[command]


@SETTINGS
@given(kinds=st.tuples(*[st.sampled_from(PATH_KINDS)] * 2), contents=st.tuples(CONTENT, CONTENT),
       count=COUNTS, command=st.sampled_from(["multiclass", "label-noise", "fusion"]))
def test_study_commands(kinds, contents, count, command):
    with _folder() as folder:
        a, b = _files(folder, kinds, contents)
        _call(_study_argv(command, a, b, count))
    if command == "label-noise":
        _call(["label-noise", "correct", "--precision", "0.9", "--recall", "0.8",
               "--expert-prevalence", "0.5", "--eps", "0.1", "--n-items", count])


def _study_argv(command, a, b, count) -> list[str]:
    return {
        "multiclass": ["multiclass", "--val-logits", a, "--val-labels", b, "--bins", count],
        "label-noise": ["label-noise", "estimate", "--judgements", a],
        "fusion": ["fusion", "worst-case", "--decisions", a, "--labels", b, "--component", "A",
                   "--fuser", "or"],
    }[command]


HOSTILE_CASE = st.sampled_from(["depth", "long text", "long list", "huge int", "path", "n",
                                "folds", "formats", "id"])


@SETTINGS
@given(change=HOSTILE_CASE, size=st.sampled_from([0, 1, 10, 100_000]),
       kind=st.sampled_from(PATH_KINDS), count=COUNTS, command=st.sampled_from(["check", "run"]))
def test_case_commands(change, size, kind, count, command):
    with _folder() as folder:
        _call(_case_argv(folder, change, size, kind, count, command))


def _case_argv(folder: Path, change, size, kind, count, command) -> list[str]:
    """A copy of the small-background case changed in one hostile way."""
    assert main(["-q", "examples", "copy", "small-background", str(folder / "case")]) == 0
    case = folder / "case" / "case.toml"
    text = case.read_text().replace("n = 1000", "n = 100")
    edit = {
        "depth": lambda t: t + "\n[extra]\nx = " + "[" * size + "]" * size + "\n",
        "long text": lambda t: t.replace('hp = "', 'hp = "' + "w" * size, 1),
        "long list": lambda t: t.replace("[report]\n", "[report]\nformats = ["
                                         + ", ".join(['"json"'] * max(size, 1)) + "]\n"),
        "huge int": lambda t: t.replace("n = 100", "n = " + "9" * min(size, 5000)),
        "path": lambda t: t.replace('ss = "ss.csv"', 'ss = "'
                                    + Path(_path(folder / "case", kind, "1\n2", "x.csv")).name
                                    + '"'),
        "n": lambda t: t.replace("n = 100", f"n = {count or 0}" if count.isdigit() else
                                 f'n = "{count}"'),
        "folds": lambda t: t + f"\n[validation]\nfolds = {count if count.isdigit() else 0}\n",
        "formats": lambda t: t.replace("[report]\n", "[report]\nformats = []\n"),
        "id": lambda t: t.replace('id = "TM-2026-004"', 'id = "' + "é" * size + '"'),
    }[change]
    case.write_text(edit(text), encoding="utf-8")
    return ["check", str(case)] if command == "check" else [
        "run", str(case), "--out", str(folder / "out"), "--format", "json", "--draft"]


@SETTINGS
@given(kind=st.sampled_from(PATH_KINDS), name=st.text(max_size=300),
       command=st.sampled_from(["init", "examples", "docs", "verify"]))
def test_folder_commands(kind, name, command):
    with _folder() as folder:
        target = _path(folder, kind, "x", "target")
        _call({"init": ["init", target], "examples": ["examples", "copy", "voice", target],
               "docs": ["docs", name], "verify": ["verify", target]}[command],
              allowed=(0, 1, 2) if command == "verify" else (0, 2))  # verify: 1 = differs
    assert (examples_dir() / "voice" / "case.toml").is_file()  # nothing shipped was touched
