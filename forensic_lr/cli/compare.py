"""``forensic-lr compare`` and the ``--ci`` options of ``validate`` (validation statistics).

``compare`` reads two systems' LLRs on the same trials (two files paired by row order or
by a shared trial-id column, or one file with two LLR columns; see
:mod:`forensic_lr.io.paired`) and prints the paired comparison of
:func:`forensic_lr.validation.bootstrap.compare_systems`.
:func:`add_ci_arguments` and :func:`ci_options` give ``validate`` its bootstrap intervals.

"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:
    from ..io.paired import PairedScores
from ..defaults import DEFAULT_LEVEL, DEFAULT_SEED
from .common import add_table_options, outside_interval, print_json, seed_value


def add_ci_arguments(p: argparse.ArgumentParser, *, switch: bool = True) -> None:
    """The interval options shared by ``validate`` (with the ``--ci`` switch) and ``compare``."""
    g = p.add_argument_group("bootstrap intervals")
    if switch:
        g.add_argument("--ci", choices=("none", "bootstrap"), default="none",
                       help="bootstrap intervals of the metrics (default none)")
    g.add_argument("--by", choices=("auto", "trial", "source"), default="auto",
                   help="resample trials or sources (auto: sources when the files have "
                   "source columns)")
    g.add_argument("--n", type=int, default=1000, help="bootstrap replicates (default 1000)")
    g.add_argument("--seed", type=seed_value, default=DEFAULT_SEED,
                   help=f"bootstrap seed (default {DEFAULT_SEED}, a case file's)")
    g.add_argument("--level", type=float, default=DEFAULT_LEVEL,
                   help=f"interval level (default {DEFAULT_LEVEL})")
    # the keys of validation.INTERVALS, which is not imported at start-up
    g.add_argument("--interval", choices=("bc", "percentile"), default="bc",
                   help="bias-corrected percentile (default) or plain percentile interval")


def ci_options(args: argparse.Namespace) -> dict | None:
    """``--ci bootstrap`` as keyword arguments of ``bootstrap_metrics`` (None without)."""
    if getattr(args, "ci", "none") != "bootstrap":
        return None
    return {"by": args.by, "n": args.n, "level": args.level, "seed": args.seed,
            "interval": args.interval}


def print_ci(record: dict) -> None:
    """Text table of bootstrap intervals (``MetricIntervals.to_dict()``)."""
    pct = f"{100 * record['level']:g}%"
    from ..metrics.catalogue import metric
    from ..validation import INTERVALS

    kind = INTERVALS[record["interval"]]
    print(f"{pct} {kind} bootstrap intervals by {record['by']} ({record['n']} replicates, "
          f"seed {record['seed']})")
    for key, item in record["intervals"].items():
        print(f"{metric(key).label:<26} {_num(item['estimate']):>10}  "
              f"[{_num(item['low'])}, {_num(item['high'])}]"
              + outside_interval(item["estimate"], item["low"], item["high"]))
    print(record["note"])
    for text in record["warnings"]:
        print(f"warning: {text}")


def _num(value) -> str:
    return "undefined" if value is None or not math.isfinite(value) else f"{value:.4f}"


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``compare`` command to ``subparsers``."""
    p = subparsers.add_parser(
        "compare",
        help="paired comparison of two systems' LLRs on the same trials",
        description="Differences in Cllr and minCllr with paired bootstrap intervals, "
        "DeLong's test of the AUC difference and a verdict. Give two labelled files of the "
        "same trials (--a, --b: paired by row order, or by a shared trial-id column with "
        "--id), or one labelled file with two LLR columns (--scores, --columns). Optional "
        "source columns (source, or source_a,source_b) allow resampling by source.",
    )
    p.add_argument("--a", metavar="FILE", help="labelled LLRs of system A (label,score)")
    p.add_argument("--b", metavar="FILE", help="labelled LLRs of system B (label,score)")
    p.add_argument("--id", metavar="COLUMN", dest="id_column",
                   help="trial-id column shared by --a and --b: match rows by it, in any "
                   "order (default: match by row order)")
    p.add_argument("--scores", metavar="FILE",
                   help="one labelled file with both systems' LLRs (instead of --a/--b)")
    p.add_argument("--columns", metavar="A,B",
                   help="the two LLR columns of --scores, e.g. llr_new,llr_old")
    p.add_argument("--names", metavar="A,B",
                   help="names of the two systems (default A,B, or the --columns names)")
    p.add_argument("--log-base", choices=("e", "10", "2"), default="e",
                   help="base of the input LLRs (default e, natural log)")
    add_ci_arguments(p, switch=False)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE", help="write the comparison figure (SVG) here")
    p.add_argument("--force", action="store_true", help="overwrite an existing --plot file")
    add_table_options(p, columns=False)
    p.set_defaults(func=_cmd_compare)
    return p


def _pair_option(value: str | None, option: str) -> tuple[str, str] | None:
    """``"x,y"`` -> ``("x", "y")``; anything but two non-empty names is an error."""
    if value is None:
        return None
    parts = tuple(v.strip() for v in value.split(","))
    if len(parts) != 2 or not all(parts):
        raise InputError(f"{option} {value!r}: give two names separated by a comma")
    return parts


def _load(args: argparse.Namespace) -> PairedScores:
    """The paired LLRs from ``--a/--b [--id]`` or ``--scores --columns``."""
    if args.scores is None and (args.a is None or args.b is None):
        raise InputError("give --a and --b (two files), or --scores with --columns (one file)")
    if args.scores is not None and args.columns is None:
        raise InputError("--scores needs --columns naming its two LLR columns, e.g. "
                         "--columns llr_a,llr_b")
    if args.scores is None and args.columns is not None:
        raise InputError("--columns goes with --scores (one file with two LLR columns)")
    from ..io.paired import load_paired_scores

    return load_paired_scores(
        a=args.a, b=args.b, scores=args.scores, id_column=args.id_column,
        columns=_pair_option(args.columns, "--columns"),
        names=_pair_option(args.names, "--names"), log_base=args.log_base,
        decimal=args.decimal, sheet=args.sheet,
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    """``forensic-lr compare``: paired comparison, as text or JSON."""
    from ..output import check_output_file
    from ..resampling import check_interval_options
    from ..validation import compare_systems  # scipy-heavy: imported when used


    check_interval_options(args.n, args.level, n_name="--n", level_name="--level")
    inputs = [f for f in (args.a, args.b, args.scores) if f]
    if args.plot:  # before the work: the same checks as when the figure is written
        check_output_file(args.plot, force=args.force, inputs=inputs)
    data = _load(args)
    result = compare_systems(
        data.a_ss, data.a_ds, data.b_ss, data.b_ds, names=data.names, by=args.by,
        ss_sources=data.ss_sources, ds_sources=data.ds_sources, n=args.n, level=args.level,
        seed=args.seed, interval=args.interval,
    )
    if args.plot:
        _write_plot(Path(args.plot), result, force=args.force, inputs=inputs)
    record = result.to_dict()
    record["matched_by"] = data.matched_by
    record["inputs"] = dict(data.files)
    if args.json:
        print_json(record)
        return 0
    _print_comparison(record, data)
    return 0


def _write_plot(path: Path, result, *, force: bool, inputs) -> None:
    """Write the SVG atomically; an existing file is kept unless ``force``."""
    from ..output import write_file
    from ..plots import paired_comparison_svg

    write_file(path, paired_comparison_svg(result).encode("utf-8"), force=force, inputs=inputs)


def _print_comparison(record: dict, data: PairedScores) -> None:
    from ..metrics.catalogue import metric
    from ..validation import p_text

    a, b = record["names"]
    pct = f"{100 * record['level']:g}%"
    print(f"paired comparison of {a} and {b} on {data.a_ss.size} SS and {data.a_ds.size} DS "
          f"trials matched by {record['matched_by']} (natural-log LLRs; bootstrap by "
          f"{record['by']}, {record['n']} replicates, seed {record['seed']})")
    kind = "BC" if record["interval"] == "bc" else "percentile"
    print(f"{'metric':<22}{a:>10}{b:>10}{a + ' - ' + b:>12}  {pct} interval ({kind})")
    for key, diff in (("cllr", record["cllr_diff"]), ("min_cllr", record["min_cllr_diff"])):
        print(f"{metric(key).label:<22}{_num(record['metrics_a'][key]):>10}"
              f"{_num(record['metrics_b'][key]):>10}{_num(diff['estimate']):>12}  "
              f"[{_num(diff['low'])}, {_num(diff['high'])}]"
              + outside_interval(diff["estimate"], diff["low"], diff["high"]))
    d = record["delong"]
    print(f"{'AUC (DeLong)':<22}{_num(d['auc_a']):>10}{_num(d['auc_b']):>10}"
          f"{_num(d['difference']):>12}  [{_num(d['low'])}, {_num(d['high'])}]  "
          f"z = {d['z']:.3g}, p {p_text(d['p_value'])}"
          + outside_interval(d["difference"], d["low"], d["high"]))
    print(record["verdict"])
    print(record["note"])
    for text in record["warnings"]:
        print(f"warning: {text}")
