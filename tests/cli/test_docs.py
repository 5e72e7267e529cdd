"""`forensic-lr docs [NAME]`: every page of docs/ ships with the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from forensic_lr._resources import docs_dir
from forensic_lr.casework.spec import case_template
from forensic_lr.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md"))


def test_docs_lists_and_prints_every_page(capsys):
    assert main(["docs"]) == 0
    listed = capsys.readouterr().out
    for page in PAGES:
        full = page.relative_to(ROOT / "docs").with_suffix("").as_posix()
        assert page.stem in listed
        assert main(["docs", full]) == 0
        assert capsys.readouterr().out == page.read_text(encoding="utf-8")


def test_user_pages_the_tutorial_and_unique_file_names_need_no_folder(capsys):
    for short, path in [("case-file", "user/case-file.md"), ("tutorial", "tutorial.md"),
                        ("metrics", "methods/metrics.md"), ("limits.md", "user/limits.md")]:
        assert main(["docs", short]) == 0
        assert capsys.readouterr().out == (ROOT / "docs" / path).read_text(encoding="utf-8")


def test_unknown_page_names_the_choices(capsys):
    assert main(["docs", "nope"]) == 2
    err = capsys.readouterr().err
    assert "case-file" in err and "tutorial" in err


def test_a_wheel_holds_every_page_and_every_package_file(tmp_path):
    """What `pip install .` installs: build the wheel and read its file list. Every file of
    the package folder is in it too, so that a new subpackage or data file (a catalogue, a
    scale) missing from pyproject.toml's lists fails here rather than on a user's machine."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                           "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    wheel = next(tmp_path.glob("forensic_lr-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for page in PAGES:
        assert f"forensic_lr/docs/{page.relative_to(ROOT / 'docs').as_posix()}" in names
    assert docs_dir() == ROOT / "docs"
    package = ROOT / "forensic_lr"
    missing = [
        path.relative_to(ROOT).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
        and path.relative_to(ROOT).as_posix() not in names
    ]
    assert not missing, f"add to pyproject.toml's packages / package-data: {missing}"


def test_init_points_to_shipped_docs(tmp_path, capsys):
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "forensic-lr docs case-file" in out and "forensic-lr check" in out
    assert "forensic-lr docs case-file" in case_template()
    assert "docs/user" not in case_template()
