"""`forensic-lr docs [NAME]`: the user documentation ships with the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

from forensic_lr._resources import docs_dir
from forensic_lr.casework.spec import case_template
from forensic_lr.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_docs_lists_and_prints_every_user_page(capsys):
    assert main(["docs"]) == 0
    listed = capsys.readouterr().out
    for page in sorted((ROOT / "docs" / "user").glob("*.md")):
        assert page.stem in listed
        assert main(["docs", page.stem]) == 0
        assert capsys.readouterr().out == page.read_text(encoding="utf-8")


def test_unknown_page_names_the_choices(capsys):
    assert main(["docs", "nope"]) == 2
    assert "case-file" in capsys.readouterr().err


def test_the_docs_are_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setup = config["tool"]["setuptools"]
    assert "forensic_lr.docs" in setup["packages"]
    assert setup["package-dir"]["forensic_lr.docs"] == "docs/user"
    assert "*.md" in setup["package-data"]["forensic_lr.docs"]
    assert docs_dir() == ROOT / "docs" / "user"


def test_init_points_to_shipped_docs(tmp_path, capsys):
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "forensic-lr docs case-file" in out and "forensic-lr check" in out
    assert "forensic-lr docs case-file" in case_template()
    assert "docs/user" not in case_template()
