"""The ``forensic-lr`` command line: parses arguments, calls the library, writes files.

Every subcommand is a ``_cmd_<name>(args) -> int`` function. User mistakes raise
:class:`forensic_lr.errors.ForensicLRError`; :func:`main` prints their message
without a traceback and returns 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .errors import ForensicLRError

EXIT_OK = 0
EXIT_USER_ERROR = 2


def _progress_bar(label: str):
    """Return a ``callback(done, total)`` drawing a bar on a terminal's stderr, or None."""
    if not sys.stderr.isatty():
        return None

    def callback(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return callback


def _add_llr_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ss", metavar="FILE", help="same-source (Hp true) values, one file")
    p.add_argument("--ds", metavar="FILE", help="different-source (Hd true) values, one file")
    p.add_argument(
        "--scores", metavar="FILE", help="one file with label,score columns (instead of --ss/--ds)"
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="forensic-lr",
        description="Calibrated likelihood ratios, method validation and expert reports.",
    )
    parser.add_argument("--version", action="version", version=f"forensic-lr {__version__}")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-v", "--verbose", action="store_true", help="more messages")
    verbosity.add_argument("-q", "--quiet", action="store_true", help="errors only")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("validate", help="performance metrics of a set of LLRs (or raw scores)")
    _add_llr_inputs(p)
    p.set_defaults(func=_cmd_validate)

    return parser


def _cmd_validate(args: argparse.Namespace) -> int:
    raise NotImplementedError


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ForensicLRError as exc:
        print(f"forensic-lr: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("forensic-lr: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
