"""``forensic-lr multiclass``: temperature calibration of a multiclass classifier's logits.

Wired into :mod:`forensic_lr.cli` through :func:`add_parser`; the handler is
:func:`_cmd_multiclass`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InputError
from .common import add_table_options, print_json

if TYPE_CHECKING:
    from ..output import OutputFolder

_SHOWN = ("accuracy", "nll", "ece", "mce", "brier", "reliability", "resolution", "uncertainty")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``multiclass`` command to ``subparsers``."""
    p = subparsers.add_parser(
        "multiclass",
        help="temperature calibration (TS or EC) of a multiclass classifier's logits",
        description="Fit a temperature on validation logits and report calibration before and "
        "after: on the test set when given, otherwise on the validation set (optimistic).",
    )
    p.add_argument("--val-logits", required=True, metavar="FILE", help="n x K logits (npy/CSV)")
    p.add_argument(
        "--val-labels", required=True, metavar="FILE", help="0-based class index per row"
    )
    p.add_argument("--test-logits", metavar="FILE", help="held-out logits to evaluate on")
    p.add_argument("--test-labels", metavar="FILE", help="held-out labels")
    p.add_argument(
        "--method",
        choices=("ec", "ts"),  # the keys of forensic_lr.studies.multiclass.METHODS
        default="ts",
        help="ts: temperature scaling, the temperature minimising the validation NLL (Guo et "
        "al. 2017); ec: expectation-consistent temperature, mean top-label confidence = "
        "validation accuracy (Clarte et al. 2023) (default ts)",
    )
    p.add_argument("--t-min", type=float, default=None, metavar="T",
                   help="smallest temperature searched (default 0.01)")
    p.add_argument("--t-max", type=float, default=None, metavar="T",
                   help="largest temperature searched (default 100 for ts, 10 for ec)")
    p.add_argument("--bins", type=int, default=15, help="bins for ECE, MCE, Brier (default 15)")
    p.add_argument(
        "--binning",
        choices=("width", "mass"),
        default="width",
        help="equal-width (default) or equal-mass bins",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plots", metavar="DIR", help="write reliability diagrams (SVG) here")
    p.add_argument("--force", action="store_true", help="replace the plots of an earlier run")
    add_table_options(p, columns=False)
    p.set_defaults(func=_cmd_multiclass)
    return p


def _load(logits_path: str, labels_path: str, what: str, args: argparse.Namespace):
    from ..io.matrix import read_labels, read_matrix  # numpy: imported when used
    from ..studies.multiclass import check_labels

    z = read_matrix(logits_path, what=f"{what} logits", decimal=args.decimal, sheet=args.sheet)
    y = read_labels(labels_path, what=f"{what} labels", decimal=args.decimal, sheet=args.sheet)
    if y.size != z.shape[0]:
        raise InputError(
            f"{labels_path} has {y.size} labels but {logits_path} has {z.shape[0]} rows; "
            "give one label per row of logits"
        )
    return z, check_labels(y, z.shape[0], z.shape[1], name=str(labels_path))


def _cmd_multiclass(args: argparse.Namespace) -> int:
    """``forensic-lr multiclass``; a ``--plots`` folder is checked and locked for the run."""
    from ..limits import check_count
    from ..output import OutputFolder

    check_count("bins", args.bins, "--bins")
    if not args.plots:
        return _multiclass(args, None)
    inputs = [f for f in (args.val_logits, args.val_labels, args.test_logits, args.test_labels)
              if f]
    with OutputFolder(args.plots, force=args.force, inputs=inputs, option="--plots") as folder:
        return _multiclass(args, folder)


def _multiclass(args: argparse.Namespace, folder: OutputFolder | None) -> int:
    # scipy-heavy: imported when the command runs, not at start-up
    from ..studies.multiclass import METHODS, calibration_metrics, reliability_diagram, softmax

    val_z, val_y = _load(args.val_logits, args.val_labels, "validation", args)
    if (args.test_logits is None) != (args.test_labels is None):
        raise InputError("give both --test-logits and --test-labels, or neither")
    if args.test_logits:
        z, y = _load(args.test_logits, args.test_labels, "test", args)
        if z.shape[1] != val_z.shape[1]:
            raise InputError(
                f"the test logits have {z.shape[1]} classes, the validation logits "
                f"{val_z.shape[1]}; both must come from the same classifier"
            )
        evaluated_on = "test"
    else:
        z, y, evaluated_on = val_z, val_y, "validation"
    bounds = {k: v for k, v in (("t_min", args.t_min), ("t_max", args.t_max)) if v is not None}
    temperature = METHODS[args.method](**bounds).fit(val_z, val_y).temperature_
    options = {"bins": args.bins, "binning": args.binning}
    before = calibration_metrics(z, y, **options)
    after = calibration_metrics(z, y, temperature=temperature, **options)
    if folder is not None:
        from .. import plots

        figures = {
            f"reliability_{name}.svg": plots.reliability_svg(
                reliability_diagram(softmax(z, t), y, **options),
                title=f"{title} ({evaluated_on} set)",
            ).encode()
            for name, t, title in (
                ("before", 1.0, "Uncalibrated"),
                ("after", temperature, f"T = {temperature:.3f}"),
            )
        }
        folder.commit(figures)
    record = {
        "method": args.method,
        "temperature": temperature,
        "evaluated_on": evaluated_on,
        "bins": args.bins,
        "binning": args.binning,
        "before": {k: getattr(before, k) for k in _SHOWN},
        "after": {k: getattr(after, k) for k in _SHOWN},
    }
    if args.json:
        print_json(record)
        return 0
    print(
        f"method {args.method}: temperature T = {temperature:.4f} "
        f"(fitted on {val_y.size} validation items)"
    )
    print(f"metrics on the {evaluated_on} set ({y.size} items, {args.bins} {args.binning} bins):")
    print(f"{'':<13}{'before':>10}{'after':>10}")
    for key in _SHOWN:
        print(f"{key:<13}{record['before'][key]:>10.4f}{record['after'][key]:>10.4f}")
    if args.plots:
        print(f"reliability diagrams written to {args.plots}")
    return 0
