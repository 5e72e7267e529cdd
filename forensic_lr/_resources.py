"""Locate the folders shipped with the package (templates, worked cases).

In a wheel they are the sub-packages ``forensic_lr.templates`` and
``forensic_lr.case_examples``; in a source checkout they are the top-level
``templates/`` and ``case_examples/`` folders next to ``forensic_lr/``.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path


def _shipped_dir(subpackage: str, checkout_name: str) -> Path:
    try:
        path = Path(str(importlib.resources.files(f"forensic_lr.{subpackage}")))
        if path.is_dir():
            return path
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parent.parent / checkout_name


def templates_dir() -> Path:
    """The folder holding the report templates and stylesheet."""
    return _shipped_dir("templates", "templates")


def examples_dir() -> Path:
    """The folder holding the worked cases (one sub-folder per case)."""
    return _shipped_dir("case_examples", "case_examples")
