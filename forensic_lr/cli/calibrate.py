"""``forensic-lr calibrate``: the LR of evidence score(s) from background SS and DS scores.

A thin face over :func:`forensic_lr.casework.evaluate_evidence`, the code that also
evaluates the evidence of ``forensic-lr run``: the same inputs, method, ELUB setting,
interval, level and seed give the same numbers on both, and the defaults are a case's
(method, ELUB on, bootstrap interval, level, seed, folds), so ``calibrate`` without
options prints what a case without ``[method]`` section reports for the same data.
"""

from __future__ import annotations

import argparse

from ..calibration import extra_inputs, make_calibrator, method_names, methods_help
from ..defaults import (
    BOUNDS_RULES,
    DEFAULT_BOUNDS,
    DEFAULT_CALIBRATOR,
    DEFAULT_INTERVAL,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
)
from ..errors import InputError
from .common import (
    EXIT_OK,
    add_table_options,
    outside_interval,
    parse_options,
    print_json,
    progress_bar,
    seed_value,
    table_options,
)


def add_parser(sub, *, extra_inputs_options: bool = True) -> None:
    """Add the ``calibrate`` subcommand.

    ``extra_inputs_options``: add the options of the calibrators' extra score inputs (as the
    calibrator classes declare them, which loads every calibrator module); left out when
    another command runs, so that its start-up does not pay for them.
    """
    p = sub.add_parser(
        "calibrate", help="calibrated LR of evidence score(s) from background SS/DS scores"
    )
    p.add_argument("--ss", required=True, metavar="FILE", help="same-source (Hp true) scores")
    p.add_argument("--ds", required=True, metavar="FILE", help="different-source (Hd true) scores")
    p.add_argument("--method", "--calibrator", dest="method", default=DEFAULT_CALIBRATOR,
                   choices=method_names(),
                   help=f"calibration method (default {DEFAULT_CALIBRATOR}, as a case file "
                   f"without [method]; --calibrator: same). {methods_help()}")
    declared = extra_inputs().items() if extra_inputs_options else ()
    for key, (spec, method) in declared:  # as the calibrators declare them
        p.add_argument(spec.flag, dest=key, metavar="FILE", help=f"{spec.help} ("
                       f"{'required by' if spec.required else 'only with'} --method {method})")
    p.add_argument(
        "--score", required=True, action="append", type=float, metavar="S",
        help="evidence score (repeat for several)",
    )
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="calibrator option, e.g. equal_variance=true (repeatable)",
    )
    p.add_argument("--elub", dest="elub", action="store_true", default=True,
                   help="limit the LRs to the empirical lower and upper bounds (ELUB, "
                   "Vergeer et al. 2016) of the cross-validated LRs (--folds, --seed): the "
                   "default, as in a case")
    p.add_argument("--no-elub", dest="elub", action="store_false",
                   help="report the model's LRs unlimited (each LR beyond the ELUB bounds "
                   "gets a warning), as a case with [method] elub = false")
    p.add_argument("--bounds", choices=BOUNDS_RULES, default=DEFAULT_BOUNDS,
                   help=f"the rule of the bounds (default {DEFAULT_BOUNDS}, as a case file "
                   "without [method] bounds): elub; iv, invariance verification (Alberink "
                   "et al. 2025) of the same LRs; n-source, LR in [1/N, N] for the N "
                   "sources of the background files (needs source ids); fixed, "
                   "--fixed-bounds. --elub/--no-elub switch any of them on or off")
    p.add_argument("--fixed-bounds", nargs=2, type=float, metavar=("LOW", "HIGH"),
                   default=None, help="the bounds of --bounds fixed, in log10 LR, "
                   "LOW <= 0 <= HIGH (e.g. --fixed-bounds -4 4)")
    p.add_argument("--elub-from", choices=("cross-validated", "in-sample"),
                   default="cross-validated",
                   help="the LRs the ELUB comes from: the cross-validated LRs of the "
                   "background (default; the folds of a case with the same --folds and "
                   "--seed) or the fitted model's LRs of its own training scores (as the "
                   "lir package computes it)")
    p.add_argument("--folds", type=int, default=5,
                   help="folds of the cross-validation behind the ELUB (default 5); with "
                   "source columns the folds are by source and 0 means leave-one-source-out")
    p.add_argument(
        "--interval", choices=("bootstrap", "bayes", "none"), default=DEFAULT_INTERVAL,
        help=f"interval for the LR (default: {DEFAULT_INTERVAL}; bayes needs --method bayes)",
    )
    p.add_argument("--level", type=float, default=DEFAULT_LEVEL,
                   help=f"interval level (default {DEFAULT_LEVEL})")
    p.add_argument(
        "--n", type=int, default=None,
        help="bootstrap replicates (default 1000) or posterior draws (default 4000)",
    )
    p.add_argument("--seed", type=seed_value, default=DEFAULT_SEED,
                   help=f"seed of the interval's draws and of the folds behind the ELUB "
                   f"(default {DEFAULT_SEED}, a case file's)")
    p.add_argument(
        "--direction", choices=("higher_is_similar", "lower_is_similar"),
        default="higher_is_similar", help="score direction of all scores (default higher)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_table_options(p, columns=False)
    p.add_argument("--column", metavar="NAME|N",
                   help="the score column of every score file, by header name or position")
    p.add_argument("--source-column", metavar="NAME|N",
                   help="the source-id column of the background files (default: a 'source' "
                   "or 'source_a,source_b' column when there is one): the folds behind the "
                   "ELUB are then by source, as in validate and in a case")
    p.set_defaults(func=run)


def evaluation(args: argparse.Namespace):
    """The :class:`~forensic_lr.records.EvidenceEvaluation` of the arguments."""
    from .._checks import as_score_array
    from ..casework import evaluate_evidence
    from ..io.scores import load_scores, orient, read_score_file
    from ..resampling import check_interval_options

    check_interval_options(args.n, args.level, n_name="--n", level_name="--level")
    _check_bounds_options(args.bounds, args.fixed_bounds)
    options = parse_options(args.option)
    try:  # before any file is read
        make_calibrator(args.method, **options)
    except InputError as exc:
        raise InputError(f"--option {str(exc).removeprefix('option ')}") from None
    reading = table_options(args)
    data = load_scores(ss=args.ss, ds=args.ds, direction=args.direction, **reading)
    extra = {
        key: orient(read_score_file(path, label=key, score_column=reading["score_column"],
                                    decimal=args.decimal, sheet=args.sheet), args.direction)
        for key in extra_inputs()
        if (path := getattr(args, key)) is not None
    }
    return evaluate_evidence(
        data.ss, data.ds, as_score_array(args.score, "--score"), args.method,
        options=options, extra=extra, direction=args.direction, elub=args.elub,
        elub_from=args.elub_from, bounds=args.bounds,
        fixed_bounds=None if args.fixed_bounds is None else tuple(args.fixed_bounds),
        ss_sources=data.ss_sources, ds_sources=data.ds_sources,
        folds=None if data.has_sources and args.folds == 0 else args.folds,
        interval=args.interval, n=args.n, level=args.level, seed=args.seed,
        progress=progress_bar("bootstrap", args) if args.interval == "bootstrap" else None,
    )


def _check_bounds_options(rule: str, fixed) -> None:
    """``--bounds fixed`` with ``--fixed-bounds LOW HIGH`` (LOW <= 0 <= HIGH), and
    ``--fixed-bounds`` only with it; checked before any file is read."""
    from ..casework.schema import check_fixed_bounds

    try:
        check_fixed_bounds(rule, None if fixed is None else tuple(fixed))
    except ValueError as exc:
        text = str(exc).replace("fixed_bounds = [low, high]", "--fixed-bounds LOW HIGH")
        raise InputError(f"--bounds/--fixed-bounds: {text}") from None


def as_json(record) -> dict:
    """The JSON of ``calibrate --json``: the method, each score's LR and the ELUB bounds.

    ``elub`` gives the bounds applied (None with ``--no-elub``); ``elub_supported`` the
    bounds the background supports either way; ``elub_from`` the LRs they come from.
    The shape is documented in ``docs/user/calibrate.md``.
    """
    m = record.method
    supported = None
    if m.elub_log10_lr_low is not None:
        supported = {"log10_lr_low": m.elub_log10_lr_low, "log10_lr_high": m.elub_log10_lr_high}
    return {
        "method": m.calibrator,
        "options": m.options,
        "params": m.params,
        "results": [e.to_dict() for e in record.results],
        "elub": supported if m.elub_applied else None,
        "elub_supported": supported,
        "elub_from": m.elub_from,
        "bounds_rule": m.bounds_rule,
        "interval": {"method": record.interval_method, "level": record.interval_level,
                     "n": record.interval_n, "seed": record.seed},
        "warnings": list(record.warnings),
        "limitations": list(record.limitations),
    }


def run(args: argparse.Namespace) -> int:
    """``forensic-lr calibrate``: LR(s) of the evidence score(s), as text or JSON."""
    from .._numbers import format_log10
    from ..casework.verbal import format_lr

    record = evaluation(args)
    if args.json:
        print_json(as_json(record))
        return EXIT_OK
    print(f"method: {record.method.calibrator}")
    for r in record.results:
        print(
            f"score {r.score:g}: LR = {format_lr(r.log10_lr)}"
            f"  (log10 LR = {format_log10(r.log10_lr)}, natural-log LR = {format_log10(r.llr)})"
        )
        if r.bounded or (r.interval is not None and r.interval.clipped):
            print(f"  {r.uncertainty}")  # the limit, the model's value and its interval
        elif r.interval is not None:
            iv = r.interval
            print(
                f"  {100 * iv.level:g} % {args.interval} interval of log10 LR: "
                f"[{format_log10(iv.log10_lr_low)}, {format_log10(iv.log10_lr_high)}]"
                + outside_interval(r.log10_lr, iv.log10_lr_low, iv.log10_lr_high, 3)
            )
    m = record.method
    if m.elub_applied:
        print(f"{RULE_NAMES[m.bounds_rule]} of log10 LR{_from(m)}: "
              f"[{m.elub_log10_lr_low:.3f}, {m.elub_log10_lr_high:.3f}]")
    for text in record.warnings:
        print(f"warning: {text}")
    return EXIT_OK


#: The bounds rules as ``calibrate`` names them in its text output.
RULE_NAMES = {"elub": "ELUB bounds", "iv": "invariance-verification bounds",
              "n-source": "N-source bounds", "fixed": "fixed bounds"}


def _from(m) -> str:
    """`` (cross-validated LRs)`` for the rules computed from LRs, else nothing."""
    return f" ({m.elub_from} LRs)" if m.bounds_rule in ("elub", "iv") else ""
