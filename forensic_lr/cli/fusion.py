"""``forensic-lr fusion worst-case``: worst-case errors of a fused system.

Wired into :mod:`forensic_lr.cli` through :func:`add_parser`; the handler is
:func:`_cmd_fusion`. Two inputs:

* ``--counts F.json`` -- the intervened confusion counts and the model's (case (a));
* ``--decisions F --labels F --component NAME --fuser and|or|majority|TABLE`` -- decisions of
  every component on a labelled data set (case (b)).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from .common import print_json

if TYPE_CHECKING:
    from ..studies.fusion import Confusion, WorstCase


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``fusion`` command (with its ``worst-case`` subcommand) to ``subparsers``."""
    p = subparsers.add_parser(
        "fusion", help="evaluate one component of a fused binary system (worst case)"
    )
    sub = p.add_subparsers(dest="fusion_command", metavar="SUBCOMMAND")
    sub.required = True
    w = sub.add_parser(
        "worst-case",
        help="worst-case errors of the fused system with a model of given confusion matrix",
        description=(
            "Give either --counts, or --decisions, --labels, --component and --fuser. "
            "Decisions and labels are 1/0 (or p/n); 1 = positive."
        ),
    )
    w.add_argument("--counts", metavar="F.json", help="system_pos, system_neg and model counts")
    w.add_argument("--decisions", metavar="FILE", help="CSV, header = component names")
    w.add_argument("--labels", metavar="FILE", help="CSV, one column: true class per instance")
    w.add_argument("--component", metavar="NAME", help="the component S* to evaluate")
    w.add_argument(
        "--fuser",
        metavar="and|or|majority|TABLE",
        help="fusion rule, or a CSV/JSON truth table file with a 'fused' column",
    )
    w.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_cmd_fusion)
    return p


def _cmd_fusion(args: argparse.Namespace) -> int:
    """Run ``fusion worst-case``; print a table (or JSON) and return 0."""
    result = _worst_case(args)
    if args.json:
        print_json(result.to_dict())
    else:
        print(_format(result, getattr(args, "component", None)))
    return 0


def _worst_case(args: argparse.Namespace) -> WorstCase:
    from ..studies.fusion import (
        FUSERS,
        read_counts,
        read_decisions,
        read_labels,
        read_truth_table,
        worst_case,
        worst_case_from_decisions,
    )

    table_args = {
        "--decisions": args.decisions,
        "--labels": args.labels,
        "--component": args.component,
        "--fuser": args.fuser,
    }
    if args.counts is not None:
        given = [k for k, v in table_args.items() if v is not None]
        if given:
            raise InputError(f"--counts cannot be combined with {', '.join(given)}; give one input")
        c = read_counts(args.counts)
        return worst_case(c["system_pos"], c["system_neg"], c["model"])
    missing = [k for k, v in table_args.items() if v is None]
    if missing:
        raise InputError(
            f"missing {', '.join(missing)}: give --counts F.json, or all of --decisions, "
            "--labels, --component and --fuser"
        )
    names, decisions = read_decisions(args.decisions)
    labels = read_labels(args.labels)
    if labels.size != decisions.shape[0]:
        raise InputError(
            f"{args.labels} has {labels.size} labels but {args.decisions} has "
            f"{decisions.shape[0]} rows of decisions; give one label per row, in the same order"
        )
    if args.component not in names:
        raise InputError(
            f"unknown component {args.component!r}; the header of {args.decisions} names "
            f"{list(names)}; use one of those names",
            path=args.decisions,
        )
    if args.fuser.lower() in FUSERS:
        fuser = args.fuser.lower()
    elif Path(args.fuser).is_file():
        fuser = read_truth_table(args.fuser, names)
    else:
        raise InputError(
            f"--fuser {args.fuser!r} is neither {', '.join(FUSERS)} nor an existing truth table "
            "file (CSV or JSON with a 'fused' column)"
        )
    return worst_case_from_decisions(decisions, labels, names, args.component, fuser)


def _num(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:.6g}"


def _format(r: WorstCase, component: str | None) -> str:
    def row(label: str, c: Confusion) -> str:
        return f"  {label:<22}" + "".join(f"{_num(v):>12}" for v in (c.tp, c.fn, c.fp, c.tn))

    who = f"component {component!r}" if component else "the component S*"
    lines = [
        f"Worst case of the fused system with {who} replaced by a model",
        "with the model's confusion matrix.",
        "",
        f"  {'confusion counts':<22}" + "".join(f"{h:>12}" for h in ("TP", "FN", "FP", "TN")),
        row("system, S* -> p", r.counts.system_pos),
        row("system, S* -> n", r.counts.system_neg),
        row("model M", r.counts.model),
    ]
    if r.transferred:
        lines += [
            "  rescaled to the model's data set (per-class accuracy):",
            row("system, S* -> p", r.system_pos),
            row("system, S* -> n", r.system_neg),
        ]
    t = r.types
    lines += [
        "",
        "  instance types         type 1 (always right)  type 3 (right iff M right)  type 4",
        f"  positive class         {_num(t.pos_type1):>21}  {_num(t.pos_type3):>26}  "
        f"{_num(t.pos_type4):>6}",
        f"  negative class         {_num(t.neg_type1):>21}  {_num(t.neg_type3):>26}  "
        f"{_num(t.neg_type4):>6}",
        "",
        f"  worst-case FN      {_num(r.worst_fn):>10} of {_num(r.n_pos)} positives "
        f"(rate {r.worst_fnr:.4f})",
        f"  worst-case FP      {_num(r.worst_fp):>10} of {_num(r.n_neg)} negatives "
        f"(rate {r.worst_fpr:.4f})",
        f"  worst-case errors  {_num(r.worst_errors):>10} of {_num(r.n_pos + r.n_neg)} "
        f"(rate {r.worst_error_rate:.4f})",
    ]
    a = r.counts.actual
    if a is not None:
        lines.append(
            f"  actual errors      {_num(a.fn + a.fp):>10} (FN {a.fn}, FP {a.fp}) with the "
            "component's own decisions"
        )
    return "\n".join(lines)
