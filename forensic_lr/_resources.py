"""Locate the folders shipped with the package (templates, worked cases).

In a wheel they are the sub-packages ``forensic_lr.templates``,
``forensic_lr.case_examples`` and ``forensic_lr.docs``; in a source checkout they are the
top-level ``templates/``, ``case_examples/`` and ``docs/`` folders next to
``forensic_lr/``.
"""

from __future__ import annotations

from pathlib import Path


def _shipped_dir(subpackage: str, checkout_name: str) -> Path:
    here = Path(__file__).resolve().parent
    installed = here / subpackage  # inside the installed package (wheel layout)
    return installed if installed.is_dir() else here.parent / checkout_name


def templates_dir() -> Path:
    """The folder holding the report templates and stylesheet."""
    return _shipped_dir("templates", "templates")


def examples_dir() -> Path:
    """The folder holding the worked cases (one sub-folder per case)."""
    return _shipped_dir("case_examples", "case_examples")


def docs_dir() -> Path:
    """The folder holding the documentation (``docs/``: tutorial, ``user/``, ``methods/`` ...)."""
    return _shipped_dir("docs", "docs")
