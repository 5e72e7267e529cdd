"""The ``forensic-lr`` command line: one module per command, each a thin face on the library.

Every command module has ``add_parser(subparsers)`` and a ``run(args) -> int``; they parse,
call the library and write files, never compute. User mistakes raise
:class:`forensic_lr.errors.ForensicLRError`; :func:`main` prints their message without a
traceback and returns 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

from .. import __version__
from ..errors import ForensicLRError
from . import (
    calibrate,
    case,
    check,
    compare,
    docs,
    fusion,
    label_noise,
    multiclass,
    serve,
    sign,
    validate,
    verify,
)
from .common import EXIT_USER_ERROR, add_verbosity

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as for any command whose reader stopped early

__all__ = ["main"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command (``-v/-q`` accepted before or after the command name).

    ``command``: the command about to run, when known; ``calibrate``'s options for the
    calibrators' extra inputs are built only for it (or when no command is known).
    """
    parser = argparse.ArgumentParser(
        prog="forensic-lr",
        description="Calibrated likelihood ratios, method validation and expert reports.",
    )
    parser.add_argument("--version", action="version", version=f"forensic-lr {__version__}")
    add_verbosity(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    validate.add_parser(sub)
    calibrate.add_parser(sub, extra_inputs_options=command in (None, "calibrate"))
    case.add_parsers(sub)
    check.add_parser(sub)
    docs.add_parser(sub)
    multiclass.add_parser(sub)
    fusion.add_parser(sub)
    label_noise.add_parser(sub)
    compare.add_parser(sub)
    verify.add_parser(sub)
    sign.add_parser(sub)
    serve.add_parser(sub)
    for command in sub.choices.values():
        add_verbosity(command, default=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), "")
    args = build_parser(command).parse_args(argv)
    try:
        with warnings.catch_warnings():
            if not args.verbose:
                # numerical RuntimeWarnings (overflow in exp...) are not for the user; an
                # appended filter yields to any filter already set (python -W, pytest)
                warnings.filterwarnings("ignore", category=RuntimeWarning, append=True)
            status = args.func(args)
            sys.stdout.flush()  # a reader that closed the pipe shows here, not at exit
            return status
    except ForensicLRError as exc:
        print(f"forensic-lr: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("forensic-lr: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) has what it wanted: stop quietly, and keep Python from
        # complaining when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
