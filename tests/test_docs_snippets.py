"""Every block fenced as ```python in README.md, docs/ and the examples' READMEs runs as written.

Each page's blocks run in order in one fresh process (as a reader pastes them into one
session), from the repository root as the pages say - a temporary folder holding links to
every top-level entry of the repository, so that a file a snippet writes lands there and not
in the checkout. A block that fails names its page and the block's first line.

The process comes from ``fresh_python`` (tests/conftest.py): where the system can fork, it is
forked from an interpreter that has only imported the third-party libraries the pages use
(numpy, scipy, matplotlib, scikit-learn) and nothing of forensic_lr, so a page still imports
forensic_lr itself, in a process no other page ran in; elsewhere it is a new interpreter.
"""

from __future__ import annotations

import re
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


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_python_block_runs_as_written(page: Path, tmp_path: Path, fresh_python):
    root = tmp_path / "root"
    root.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    before = {p.name for p in ROOT.iterdir()}
    done = fresh_python("-c", _program(page), cwd=root)
    last = [line for line in done.stdout.splitlines() if line.startswith("--- ")]
    assert done.returncode == 0, (
        f"{page.relative_to(ROOT)}: the block at {last[-1][4:] if last else 'the start'} "
        f"failed:\n{done.stderr[-3000:]}")
    assert {p.name for p in ROOT.iterdir()} == before, "a snippet wrote into the checkout"
