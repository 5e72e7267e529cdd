"""``forensic-lr compare`` and the ``--ci`` options of ``validate`` (validation statistics).

``compare`` reads two labelled LLR files of the same trials (same labels, same order)
and prints the paired comparison of :func:`forensic_lr.validation_stats.compare_systems`.
:func:`add_ci_arguments` and :func:`ci_record` give ``validate`` its bootstrap intervals.
Wired into :mod:`forensic_lr.cli` through :func:`add_parser`.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from .errors import InputError
from .scores import ScoreSet, load_scores

_LABELS = {
    "cllr": "Cllr (bits)", "min_cllr": "minimum Cllr (bits)", "cllr_cal": "Cllr_cal (bits)",
    "eer": "EER (convex hull)", "auc": "AUC", "rmep": "RMEP", "rmed": "RMED",
}


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
    g.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    g.add_argument("--level", type=float, default=0.95, help="interval level (default 0.95)")


def ci_record(args: argparse.Namespace, data: ScoreSet, ss_llr, ds_llr) -> dict | None:
    """``validate --ci bootstrap``: the intervals as a JSON-able dict (None without --ci)."""
    if getattr(args, "ci", "none") != "bootstrap":
        return None
    from .validation_stats import bootstrap_metrics  # scipy-heavy: imported when used

    return bootstrap_metrics(
        ss_llr, ds_llr, by=args.by, ss_sources=data.ss_sources, ds_sources=data.ds_sources,
        n=args.n, level=args.level, seed=args.seed,
    ).to_dict()


def print_ci(record: dict) -> None:
    """Text table of :func:`ci_record`."""
    pct = f"{100 * record['level']:g}%"
    print(f"{pct} bootstrap intervals by {record['by']} ({record['n']} replicates, "
          f"seed {record['seed']})")
    for metric, item in record["intervals"].items():
        print(f"{_LABELS[metric]:<26} {_num(item['estimate']):>10}  "
              f"[{_num(item['low'])}, {_num(item['high'])}]")
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
        "DeLong's test of the AUC difference and a verdict. Both files hold the same "
        "trials in the same order (label,score columns; optional source columns).",
    )
    p.add_argument("--a", required=True, metavar="FILE", help="labelled LLRs of system A")
    p.add_argument("--b", required=True, metavar="FILE", help="labelled LLRs of system B")
    p.add_argument("--names", default="A,B", metavar="A,B", help="names of the two systems")
    p.add_argument("--log-base", choices=("e", "10", "2"), default="e",
                   help="base of the input LLRs (default e, natural log)")
    add_ci_arguments(p, switch=False)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE", help="write the comparison figure (SVG) here")
    p.add_argument("--force", action="store_true", help="overwrite an existing --plot file")
    p.set_defaults(func=_cmd_compare)
    return p


def _same_sources(a: ScoreSet, b: ScoreSet, args) -> tuple:
    """Source ids shared by both files (None if neither has them)."""
    if a.ss_sources is None and b.ss_sources is None:
        return None, None
    if a.ss_sources is None or b.ss_sources is None:
        return (a.ss_sources, a.ds_sources) if b.ss_sources is None else (
            b.ss_sources, b.ds_sources
        )
    same = (
        a.ss_sources.shape == b.ss_sources.shape
        and a.ds_sources.shape == b.ds_sources.shape
        and np.array_equal(a.ss_sources, b.ss_sources)
        and np.array_equal(a.ds_sources, b.ds_sources)
    )
    if not same:
        raise InputError(
            f"--a {args.a} and --b {args.b} name different sources for the same trials; "
            "both files must list the same trials in the same order"
        )
    return a.ss_sources, a.ds_sources


def _cmd_compare(args: argparse.Namespace) -> int:
    """``forensic-lr compare --a A --b B``: paired comparison, as text or JSON."""
    from .validation_stats import compare_systems  # scipy-heavy: imported when used

    names = tuple(n.strip() for n in args.names.split(","))
    if len(names) != 2 or not all(names):
        raise InputError(f"--names {args.names!r}: give two names separated by a comma")
    a = load_scores(scores=args.a, log_base=args.log_base)
    b = load_scores(scores=args.b, log_base=args.log_base)
    if (a.ss.size, a.ds.size) != (b.ss.size, b.ds.size):
        raise InputError(
            f"--a {args.a} has {a.ss.size} SS and {a.ds.size} DS trials but --b {args.b} has "
            f"{b.ss.size} SS and {b.ds.size} DS; both files must list the same trials"
        )
    ss_sources, ds_sources = _same_sources(a, b, args)
    result = compare_systems(
        a.ss, a.ds, b.ss, b.ds, names=names, by=args.by, ss_sources=ss_sources,
        ds_sources=ds_sources, n=args.n, level=args.level, seed=args.seed,
    )
    if args.plot:
        _write_plot(Path(args.plot), result, force=args.force)
    record = result.to_dict()
    record["inputs"] = {**a.files, **b.files}
    if args.json:
        print(json.dumps(_json_safe(record), indent=2, allow_nan=False))
        return 0
    _print_comparison(record, a)
    return 0


def _write_plot(path: Path, result, *, force: bool) -> None:
    """Write the SVG atomically; an existing file is kept unless ``force``."""
    from .plots import paired_comparison_svg

    if path.exists() and not force:
        raise InputError("exists; choose another --plot file or use --force", path=str(path))
    if not path.parent.is_dir():
        raise InputError("folder of --plot does not exist; create it first", path=str(path))
    svg = paired_comparison_svg(
        result.replicates["cllr"], result.replicates["min_cllr"], level=result.level,
        names=result.names,
    )
    partial = path.with_name(path.name + ".partial")
    partial.write_text(svg, encoding="utf-8")
    partial.replace(path)


def _json_safe(value):
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _print_comparison(record: dict, data: ScoreSet) -> None:
    a, b = record["names"]
    pct = f"{100 * record['level']:g}%"
    print(f"paired comparison of {a} and {b} on {data.ss.size} SS and {data.ds.size} DS "
          f"trials (natural-log LLRs; bootstrap by {record['by']}, {record['n']} replicates, "
          f"seed {record['seed']})")
    print(f"{'metric':<22}{a:>10}{b:>10}{a + ' - ' + b:>12}  {pct} interval")
    for key, diff in (("cllr", record["cllr_diff"]), ("min_cllr", record["min_cllr_diff"])):
        print(f"{_LABELS[key]:<22}{_num(record['metrics_a'][key]):>10}"
              f"{_num(record['metrics_b'][key]):>10}{_num(diff['estimate']):>12}  "
              f"[{_num(diff['low'])}, {_num(diff['high'])}]")
    d = record["delong"]
    print(f"{'AUC (DeLong)':<22}{_num(d['auc_a']):>10}{_num(d['auc_b']):>10}"
          f"{_num(d['difference']):>12}  [{_num(d['low'])}, {_num(d['high'])}]  "
          f"z = {d['z']:.3g}, p = {d['p_value']:.3g}")
    print(record["verdict"])
    print(record["note"])
    for text in record["warnings"]:
        print(f"warning: {text}")
