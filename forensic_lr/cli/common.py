"""Helpers every command module shares: progress bar, option parsing, JSON and output checks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InputError

EXIT_OK = 0
EXIT_USER_ERROR = 2


def progress_bar(label: str, args: argparse.Namespace | None = None) -> Callable | None:
    """A ``callback(done, total)`` drawing a bar on a terminal's stderr, or None.

    None when stderr is not a terminal (piped, CI) or with ``--quiet``.
    """
    if not sys.stderr.isatty() or (args is not None and getattr(args, "quiet", False)):
        return None

    def callback(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return callback


def add_verbosity(p: argparse.ArgumentParser, default: Any = False) -> None:
    """``-v/--verbose`` and ``-q/--quiet`` (mutually exclusive)."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="store_true", default=default,
                       help="more messages")
    group.add_argument("-q", "--quiet", action="store_true", default=default,
                       help="errors only")


def add_llr_inputs(p: argparse.ArgumentParser) -> None:
    """``--ss``/``--ds`` or one labelled ``--scores`` file."""
    p.add_argument("--ss", metavar="FILE", help="same-source (Hp true) values, one file")
    p.add_argument("--ds", metavar="FILE", help="different-source (Hd true) values, one file")
    p.add_argument(
        "--scores", metavar="FILE", help="one file with label,score columns (instead of --ss/--ds)"
    )


def add_table_options(p: argparse.ArgumentParser, *, columns: bool = True) -> None:
    """How to read the score tables: columns by name or position, decimal comma, sheet."""
    g = p.add_argument_group("reading the score files (spreadsheet exports)")
    if columns:
        g.add_argument("--column", metavar="NAME|N",
                       help="the score column, by header name or 1-based position")
        g.add_argument("--label-column", metavar="NAME|N",
                       help="the label column of a labelled file (ss/ds)")
        g.add_argument("--source-column", metavar="NAME|N", help="the source-id column")
    g.add_argument("--decimal", choices=(".", ","), default=None,
                   help="decimal separator (default: detected; ',' in ';'-separated files)")
    g.add_argument("--sheet", metavar="NAME", help="the sheet of an .xlsx workbook (default first)")


def table_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of :func:`forensic_lr.io.load_scores` from :func:`add_table_options`."""
    from ..io.scores import column_choice

    options: dict[str, Any] = {"decimal": args.decimal, "sheet": args.sheet}
    for key, flag in (("score_column", "column"), ("label_column", "label_column"),
                      ("source_column", "source_column")):
        if hasattr(args, flag):
            options[key] = column_choice(getattr(args, flag))
    return options


def print_json(value: Any) -> None:
    """Print a record, dataclass or dict as canonical JSON (non-finite numbers as null)."""
    from ..records import dumps

    sys.stdout.write(dumps(value))


def parse_options(items: Sequence[str]) -> dict:
    """``["k=v", ...]`` -> dict; values read as JSON (true, 3, 0.5, "x") or kept as text."""
    options: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise InputError(
                f"--option {item!r} is not KEY=VALUE; write e.g. --option equal_variance=true"
            )
        try:
            value = json.loads(text.strip().lower() if text.strip() in ("True", "False") else text)
        except json.JSONDecodeError:
            value = text
        options[key.strip()] = value
    return options


def seed_value(text: str) -> int:
    """An argparse type for random seeds: a whole number >= 0 (numpy's SeedSequence)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed; give a whole number >= 0, "
                                          "e.g. 20261122")
    return value


def score_inputs(args: argparse.Namespace) -> list[str]:
    """The input files named on the command line (an output folder may not hold them)."""
    names = ("ss", "ds", "scores", "criteria", "suspect_ss", "unlabelled")
    return [getattr(args, n) for n in names if getattr(args, n, None)]
