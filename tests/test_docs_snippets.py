"""Every block fenced as ```python in README.md, docs/ and the examples' READMEs runs as written.

Each page's blocks run in order in one fresh process (as a reader pastes them into one
session), from the repository root as the pages say - a temporary folder holding links to
every top-level entry of the repository, so that a file a snippet writes lands there and not
in the checkout. A block that fails names its page and the block's first line.

Where the system can fork, each page's process is forked from one interpreter started for
this module (:data:`_SERVER`), which has only imported the third-party libraries the pages
use (numpy, scipy, matplotlib, scikit-learn; about 1.5 s of processor time an interpreter)
and nothing of forensic_lr: a page still imports forensic_lr itself, from a process no other
page ran in. Elsewhere each page runs in a new interpreter.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "case_examples").glob("*/README.md"))]
    return [p for p in pages if FENCE.search(p.read_text(encoding="utf-8"))]


def _program(page: Path) -> str:
    """The page's blocks in order, each announcing its line number before it runs."""
    text = page.read_text(encoding="utf-8")
    parts = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 2
        parts.append(f"print('--- {page.name} line {line}', flush=True)\n{m.group(1)}")
    return "\n".join(parts)


def test_the_pages_with_python_blocks_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in _pages()}
    assert {"README.md", "docs/user/scores.md", "docs/methods/calibration.md"} <= names


#: The fork server: imports the third-party libraries, then for each request (one JSON line:
#: program, cwd, stdout and stderr files) forks a child that runs the program as ``python -c``
#: would (a new ``__main__``, ``sys.argv == ["-c"]``, a traceback and exit status 1 on an
#: uncaught exception, killed after 300 s), and answers the child's exit status.
_SERVER = r"""
import builtins, json, os, signal, sys, traceback, types
for name in ("numpy", "scipy.stats", "scipy.optimize", "scipy.special", "matplotlib.pyplot",
             "sklearn.base", "sklearn.model_selection"):
    try:
        __import__(name)
    except ImportError:
        pass

def child(job):
    os.chdir(job["cwd"])
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                            (1, job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        os.dup2(os.open(path, flags), fd)
    signal.alarm(300)
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"], sys.argv = main, ["-c"]
    code = 0
    try:
        exec(compile(job["program"], "<string>", "exec"), main.__dict__)
    except SystemExit as stop:  # as the interpreter ends on sys.exit(code)
        code = 0 if stop.code is None else stop.code
        if not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        child(job)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


def _environment() -> dict[str, str]:
    return {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def run_page(tmp_path_factory):
    """``run_page(program, cwd)``: the program run in a fresh process from ``cwd``, as
    ``python -c program``: ``(exit status, stdout, stderr)``."""
    if not hasattr(os, "fork"):
        def fresh(program: str, cwd: Path) -> tuple[int, str, str]:
            done = subprocess.run([sys.executable, "-c", program], cwd=cwd, env=_environment(),
                                  capture_output=True, text=True, timeout=300)
            return done.returncode, done.stdout, done.stderr
        yield fresh
        return
    server = subprocess.Popen([sys.executable, "-c", _SERVER], env=_environment(),
                              cwd=tmp_path_factory.mktemp("server"), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)

    def forked(program: str, cwd: Path) -> tuple[int, str, str]:
        out, err = cwd.parent / "stdout.txt", cwd.parent / "stderr.txt"
        server.stdin.write(json.dumps({"program": program, "cwd": str(cwd),
                                       "stdout": str(out), "stderr": str(err)}) + "\n")
        server.stdin.flush()
        code = int(server.stdout.readline())
        return code, out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8")

    yield forked
    server.stdin.close()
    server.wait(timeout=60)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_python_block_runs_as_written(page: Path, tmp_path: Path, run_page):
    root = tmp_path / "root"
    root.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    before = {p.name for p in ROOT.iterdir()}
    code, stdout, stderr = run_page(_program(page), root)
    last = [line for line in stdout.splitlines() if line.startswith("--- ")]
    assert code == 0, (
        f"{page.relative_to(ROOT)}: the block at {last[-1][4:] if last else 'the start'} "
        f"failed:\n{stderr[-3000:]}")
    assert {p.name for p in ROOT.iterdir()} == before, "a snippet wrote into the checkout"
