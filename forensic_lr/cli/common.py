"""Helpers every command module shares: progress bar, option parsing, JSON and output checks."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

from ..errors import InputError

EXIT_OK = 0
EXIT_USER_ERROR = 2


def progress_bar(label: str, args: argparse.Namespace | None = None) -> Callable | None:
    """A ``callback(done, total)`` drawing the bar of stage ``label`` (:class:`Stages`), or None.

    None when stderr is not a terminal (piped, CI) or with ``--quiet``.
    """
    stages = Stages(args)
    return stages.for_stage(label) if stages.show else None


def _duration(seconds: float) -> str:
    """An estimate of time: ``"less than 1 s"``, ``"about 42 s"``, ``"about 3 min 05 s"``."""
    if seconds < 1:
        return "less than 1 s"
    seconds = round(seconds)
    return f"about {seconds} s" if seconds < 60 else (
        f"about {seconds // 60} min {seconds % 60:02d} s")


class Stages:
    """Stage names, a bar with an estimate of the time left, and stage timings.

    The library's long steps report ``progress(done, total)``; :meth:`for_stage` gives one
    such callback per named stage (what :func:`forensic_lr.resampling.stage_progress` asks
    for), :meth:`stage` times a step without a count (reading, rendering). The bar is drawn
    on stderr only when it is a terminal and ``--quiet`` is off; with ``-v`` :meth:`finish`
    lists every stage's time on stderr. The time left is the mean time per unit so far
    times the units left.
    """

    WIDTH = 30

    def __init__(self, args: argparse.Namespace | None = None, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        quiet = bool(getattr(args, "quiet", False))
        self.show = not quiet and self.stream.isatty()
        self.verbose = bool(getattr(args, "verbose", False)) and not quiet
        self.clock = clock
        self.timings: dict[str, float] = {}
        self.pid = os.getpid()  # a stage computed in a forked process draws nothing

    def _line(self, text: str, end: str = "") -> None:
        if self.show:
            self.stream.write(f"\r\033[K{text}{end}")
            self.stream.flush()

    def for_stage(self, name: str) -> Callable[[int, int], None]:
        """A ``callback(done, total)`` drawing the bar of stage ``name``."""
        start = self.clock()

        def callback(done: int, total: int) -> None:
            if os.getpid() != self.pid:  # only the process that owns the terminal line draws
                return
            elapsed = self.clock() - start
            self.timings[name] = elapsed
            filled = int(self.WIDTH * done / max(total, 1))
            left = ""
            if 0 < done < total:
                left = f", {_duration(elapsed / done * (total - done))} left"
            self._line(f"{name} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total}"
                       f"{left}", "\n" if done >= total else "")

        return callback

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a step without a count; its name is shown while it runs."""
        start = self.clock()
        self._line(f"{name} ...")
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + self.clock() - start
            self._line("")

    def finish(self) -> None:
        """With ``-v``: every stage's time on stderr."""
        if self.verbose and self.timings:
            width = max(len(n) for n in self.timings)
            self.stream.write("stage timings:\n" + "".join(
                f"  {n:<{width}}  {t:8.2f} s\n" for n, t in self.timings.items()))
            self.stream.flush()


#: The mark printed beside an estimate that lies outside its own interval.
OUTSIDE_MARK = "  <- estimate outside its interval"


def outside_interval(estimate, low, high, digits: int = 4) -> str:
    """:data:`OUTSIDE_MARK` when ``estimate`` lies outside ``[low, high]`` as printed with
    ``digits`` decimals (:func:`forensic_lr._numbers.interval_misses`, the reports' rule),
    else ``""``.

    Bias-corrected bootstrap intervals, and posterior intervals around a posterior
    predictive estimate, may exclude the estimate; the terminal says so wherever it shows
    one. Undefined values are not flagged.
    """
    from .._numbers import interval_misses

    return OUTSIDE_MARK if interval_misses(estimate, low, high, digits) else ""


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


def add_language_option(p: argparse.ArgumentParser, default: str) -> None:
    """``--language``: the report's language (docs/user/report-languages.md)."""
    from ..i18n import SUPPORTED_LANGUAGES

    p.add_argument("--language", choices=SUPPORTED_LANGUAGES, default=None,
                   help=f"language of the report's text, numbers and dates (default: {default})")


def add_csv_locale_option(p: argparse.ArgumentParser, files: str) -> None:
    """``--csv-locale LANG``: write ``files`` as LANG's spreadsheets read CSV
    (:func:`forensic_lr.i18n.spreadsheet.csv_text`; docs/user/report-languages.md)."""
    from ..i18n import SUPPORTED_LANGUAGES

    p.add_argument("--csv-locale", choices=SUPPORTED_LANGUAGES, default=None, metavar="LANG",
                   help=f"write {files} as a spreadsheet in this language reads CSV: for "
                   "de, es, fr, nl, sv ';' between cells and a decimal comma (default: "
                   f"en, ',' and a decimal point); one of {', '.join(SUPPORTED_LANGUAGES)}")


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


def method_overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]] | None:
    """``run --calibrator/--elub/--bounds`` as case-file overrides (the command line wins)."""
    method = {k: v for k in ("calibrator", "elub", "bounds")
              if (v := getattr(args, k, None)) is not None}
    return {"method": method} if method else None


def format_option(text: str | None) -> tuple[str, ...] | None:
    """``run --format pdf,json`` as a tuple (None without the option: the case's formats)."""
    if text is None:
        return None
    formats = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    bad = [f for f in formats if f not in ("pdf", "html", "json")]
    if bad or not formats:
        raise InputError(f"--format {text!r}: use a comma-separated list of pdf, html, json")
    return formats


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
    from ..calibration import extra_inputs

    names = ("ss", "ds", "scores", "criteria", *extra_inputs())
    return [getattr(args, n) for n in names if getattr(args, n, None)]
