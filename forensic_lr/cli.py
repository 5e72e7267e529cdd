"""The ``forensic-lr`` command line: parses arguments, calls the library, writes files.

Every subcommand is a ``_cmd_<name>(args) -> int`` function. User mistakes raise
:class:`forensic_lr.errors.ForensicLRError`; :func:`main` prints their message
without a traceback and returns 2.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

from . import __version__
from .cli_compare import add_ci_arguments, ci_record, print_ci
from .cli_compare import add_parser as add_compare_parser
from .cli_fusion import add_parser as add_fusion_parser
from .cli_label_noise import add_parser as add_label_noise_parser
from .cli_multiclass import add_parser as add_multiclass_parser
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
    _add_verbosity(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    _add_validate_parser(sub)

    _add_calibrate_parser(sub)
    _add_case_parsers(sub)
    add_multiclass_parser(sub)
    add_fusion_parser(sub)
    add_label_noise_parser(sub)
    add_compare_parser(sub)
    for command in sub.choices.values():  # -v/-q also accepted after the command name
        _add_verbosity(command, default=argparse.SUPPRESS)
    return parser


def _add_verbosity(p: argparse.ArgumentParser, default=False) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="store_true", default=default,
                       help="more messages")
    group.add_argument("-q", "--quiet", action="store_true", default=default,
                       help="errors only")


def _add_validate_parser(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="performance metrics of a set of LLRs (or raw scores), plots, validation report",
        description="Metrics of LLRs of same-source and different-source trials. With "
        "--calibrate/--compare/--report the inputs are raw scores, calibrated by "
        "cross-validation.",
    )
    _add_llr_inputs(p)
    p.add_argument("--log-base", choices=("e", "10", "2"), default="e",
                   help="base of the input LLRs (default e, natural log)")
    p.add_argument("--direction", choices=("higher_is_similar", "lower_is_similar"),
                   default="higher_is_similar", help="raw-score direction (with --calibrate)")
    p.add_argument("--prior", type=float, action="append", default=[], metavar="P",
                   help="also give the normalised DCF and min DCF at this target prior "
                   "(repeatable)")
    p.add_argument("--c-miss", type=float, default=1.0, help="cost of a miss (default 1)")
    p.add_argument("--c-fa", type=float, default=1.0, help="cost of a false alarm (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plots", metavar="DIR", help="write the figures (SVG) to this folder")
    p.add_argument("--report", metavar="DIR",
                   help="raw scores: write a validation-study report (PDF, HTML, JSON) here")
    p.add_argument("--criteria", metavar="FILE",
                   help="lab criteria for --report (TOML/JSON, keys as [validation.criteria])")
    about = p.add_argument_group("validation report identity (--report)")
    about.add_argument("--title", help="title of the study")
    about.add_argument("--laboratory", help="laboratory that ran the study")
    about.add_argument("--analyst", help="who ran the study")
    about.add_argument("--date", help="date of the study (printed as given)")
    about.add_argument("--data-description", metavar="TEXT",
                       help="the data: population, conditions, the system that produced the "
                       "scores")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    add_ci_arguments(p)
    p.set_defaults(func=_cmd_validate)


def _cmd_validate(args: argparse.Namespace) -> int:
    """``forensic-lr validate``: metrics of LLRs, or of raw scores calibrated by CV."""
    if args.report:
        return _validation_report(args)
    if args.calibrate or args.compare:
        return _validate_raw_scores(args)
    import json
    from pathlib import Path

    from . import plots
    from .metrics import dcf, evaluate, min_dcf
    from .output import write_outputs
    from .scores import load_scores

    _check_validate_args(args)
    data = load_scores(ss=args.ss, ds=args.ds, scores=args.scores, log_base=args.log_base)
    result = evaluate(data.ss, data.ds).to_dict()
    result["dcf"] = [
        {
            "p_target": p,
            "dcf": dcf(data.ss, data.ds, p, args.c_miss, args.c_fa, normalize=True),
            "min_dcf": min_dcf(data.ss, data.ds, p, args.c_miss, args.c_fa, normalize=True),
        }
        for p in args.prior
    ]
    ci = ci_record(args, data, data.ss, data.ds)
    if ci is not None:
        result["ci"] = ci
    if args.plots:
        figures = {
            "tippett.svg": plots.tippett_svg(data.ss, data.ds),
            "tippett_type2.svg": plots.tippett_svg(data.ss, data.ds, kind="II"),
            "ape.svg": plots.ape_svg(data.ss, data.ds),
            "ece.svg": plots.ece_svg(data.ss, data.ds),
            "det.svg": plots.det_svg(data.ss, data.ds),
            "roc.svg": plots.roc_svg(data.ss, data.ds),
            "pav.svg": plots.pav_svg(data.ss, data.ds, llr_input=True, xlabel="input log10 LR"),
            "llr_hist.svg": plots.llr_histogram_svg(data.ss, data.ds),
        }
        write_outputs(Path(args.plots), {k: v.encode() for k, v in figures.items()},
                      force=args.force)
    result = _json_safe(result)
    if args.json:
        print(json.dumps(result, indent=2, allow_nan=False))
        return EXIT_OK
    _print_validation_table(result, args)
    if ci is not None:
        print_ci(result["ci"])
    return EXIT_OK


def _check_validate_args(args: argparse.Namespace) -> None:
    """Input and option mistakes of ``validate``, named by their command-line flags."""
    from pathlib import Path

    from .errors import InputError

    if args.scores is not None and (args.ss is not None or args.ds is not None):
        raise InputError("give either --scores FILE or --ss FILE --ds FILE, not both")
    if args.scores is None and (args.ss is None or args.ds is None):
        missing = "--ds" if args.ss is not None else "--ss" if args.ds is not None else None
        hint = f"{missing} is missing; " if missing else ""
        raise InputError(f"{hint}give --ss FILE and --ds FILE, or one labelled --scores FILE")
    if args.direction != "higher_is_similar":
        raise InputError(
            "--direction applies to raw scores (with --calibrate, --compare or --report); "
            "LLRs already point towards Hp: remove --direction"
        )
    for p in args.prior:
        if not 0.0 < p < 1.0:
            raise InputError(f"--prior {p:g}: a target prior must lie strictly between 0 and 1")
    for flag, cost in (("--c-miss", args.c_miss), ("--c-fa", args.c_fa)):
        if not cost > 0.0:
            raise InputError(f"{flag} {cost:g}: costs must be positive numbers")
    out = Path(args.plots) if args.plots else None
    if out is not None and out.is_dir() and any(out.iterdir()) and not args.force:
        # the same rule as output.write_outputs, checked before the figures are drawn
        raise InputError(
            f"--plots folder {out} is not empty; choose an empty or new folder, or use "
            "--force to overwrite its files"
        )


def _json_safe(value):
    """Plain JSON values: NaN/inf (e.g. devPAV when the classes do not overlap) -> None."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _print_validation_table(result: dict, args: argparse.Namespace) -> None:
    """The metrics of ``validate`` as a readable two-column table on stdout."""
    base = {"e": "natural-log", "10": "log10", "2": "log2"}[args.log_base]
    print(f"validation of {base} LRs (metrics computed on natural-log LLRs)")
    labels = {
        "n_ss": "same-source trials", "n_ds": "different-source trials",
        "cllr": "Cllr (bits)", "min_cllr": "minimum Cllr (bits)", "cllr_cal": "Cllr_cal (bits)",
        "eer": "EER (convex hull)", "auc": "AUC", "rmep": "RMEP (SS with LR < 1)",
        "rmed": "RMED (DS with LR > 1)", "devpav": "devPAV",
    }
    for key, label in labels.items():
        value = result[key]
        if value is None:
            text = "undefined"  # devPAV when the SS and DS LLRs do not overlap
        elif isinstance(value, int):
            text = str(value)
        else:
            text = f"{value:.4f}"
        print(f"{label:<26} {text:>10}")
    for row in result["dcf"]:
        print(f"DCF at p_target={row['p_target']:g} (c_miss={args.c_miss:g}, "
              f"c_fa={args.c_fa:g}): actual {row['dcf']:.4f}, minimum {row['min_dcf']:.4f} "
              "(normalised)")
    if args.plots and not args.quiet:
        print(f"figures written to {args.plots}")


def _validation_report(args: argparse.Namespace) -> int:
    """``validate --report DIR``: cross-validated comparison of methods, rendered."""
    import json
    import tomllib
    from pathlib import Path

    from pydantic import ValidationError

    from .case import Criteria
    from .errors import InputError
    from .output import write_outputs
    from .report.validation import build_validation_report
    from .scores import load_scores

    out = Path(args.report)
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise InputError(f"output folder {out} is not empty; choose a new folder or use --force")
    if args.compare:
        methods = tuple(m.strip() for m in args.compare.split(",") if m.strip())
    elif args.calibrate:
        methods = (args.calibrate,)
    else:
        methods = _CALIBRATION_METHODS[:5]  # the five basic methods; --compare for more
    unknown = [m for m in methods if m not in _CALIBRATION_METHODS]
    if unknown:
        raise InputError(
            f"unknown method(s) {unknown}; choose from {', '.join(_CALIBRATION_METHODS)}"
        )
    criteria = None
    if args.criteria:
        path = Path(args.criteria)
        try:
            raw = (tomllib.loads(path.read_text()) if path.suffix.lower() == ".toml"
                   else json.loads(path.read_text()))
            criteria = Criteria(**raw.get("criteria", raw))
        except FileNotFoundError:
            raise InputError("criteria file not found", path=str(path)) from None
        except (ValueError, TypeError, ValidationError) as exc:
            raise InputError(f"not a valid criteria file ({exc}); use keys such as "
                             "cllr_max = 0.5, eer_max = 0.1", path=str(path)) from None
    data = load_scores(ss=args.ss, ds=args.ds, scores=args.scores, direction=args.direction)
    groups = (data.ss_sources, data.ds_sources) if data.has_sources else None
    intervals = None
    if args.ci == "bootstrap":
        intervals = {"by": args.by, "n": args.n, "level": args.level, "seed": args.seed,
                     "interval": args.interval}
    files = build_validation_report(
        data.ss, data.ds, methods=methods,
        folds=None if groups is not None and args.folds == 0 else args.folds,
        seed=args.fold_seed, criteria=criteria, inputs=data.files, groups=groups,
        intervals=intervals,
        about={"title": args.title, "laboratory": args.laboratory, "analyst": args.analyst,
               "date": args.date, "data": args.data_description},
    )
    written = write_outputs(out, files, force=args.force)
    if not args.quiet:
        print(f"wrote {len(written)} file(s) to {out}")
    return EXIT_OK


# ---- calibrate / raw-score validation (uncertainty engineer) -------------------------------

#: Methods that need only the SS and DS background scores (suspect_map and unsupervised
#: need extra case-condition scores: only `calibrate` and case files pass them).
_CALIBRATION_METHODS = ("gaussian", "bayes", "logistic", "pav", "kde", "scal", "student_t")
#: Methods of `calibrate`: the above plus those fed by --suspect-ss / --unlabelled.
_CALIBRATE_METHODS = (*_CALIBRATION_METHODS, "suspect_map", "unsupervised")
#: Extra score file option -> (calibrator option, the only method that uses it).
_EXTRA_SCORE_OPTIONS = {
    "suspect_ss": ("--suspect-ss", "suspect_map"),
    "unlabelled": ("--unlabelled", "unsupervised"),
}


def _add_calibrate_parser(sub) -> None:
    """Add the ``calibrate`` subcommand and the raw-score options of ``validate``."""
    p = sub.add_parser(
        "calibrate", help="calibrated LR of evidence score(s) from background SS/DS scores"
    )
    p.add_argument("--ss", required=True, metavar="FILE", help="same-source (Hp true) scores")
    p.add_argument("--ds", required=True, metavar="FILE", help="different-source (Hd true) scores")
    p.add_argument("--method", required=True, choices=_CALIBRATE_METHODS, help="calibrator")
    p.add_argument(
        "--suspect-ss", metavar="FILE",
        help="the suspect's own same-source scores (--method suspect_map only)",
    )
    p.add_argument(
        "--unlabelled", metavar="FILE",
        help="unlabelled case-condition scores (required by --method unsupervised)",
    )
    p.add_argument(
        "--score", required=True, action="append", type=float, metavar="S",
        help="evidence score (repeat for several)",
    )
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="calibrator option, e.g. equal_variance=true (repeatable)",
    )
    p.add_argument("--elub", action="store_true", help="bound the LLRs by ELUB (Vergeer 2016)")
    p.add_argument(
        "--interval", choices=("bootstrap", "bayes", "none"), default="bootstrap",
        help="interval for the LR (default: bootstrap; bayes needs --method bayes)",
    )
    p.add_argument("--level", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument(
        "--n", type=int, default=None,
        help="bootstrap replicates (default 1000) or posterior draws (default 4000)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--direction", choices=("higher_is_similar", "lower_is_similar"),
        default="higher_is_similar", help="score direction of all scores (default higher)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=_cmd_calibrate)

    v = sub.choices["validate"]
    g = v.add_argument_group("raw scores (calibrated by cross-validation)")
    g.add_argument(
        "--calibrate", choices=_CALIBRATION_METHODS, metavar="METHOD",
        help="inputs are raw scores: out-of-fold LLRs from this calibrator, then the metrics",
    )
    g.add_argument(
        "--compare", metavar="M1,M2,...",
        help="inputs are raw scores: one row of cross-validated metrics per method",
    )
    g.add_argument("--folds", type=int, default=5,
                   help="cross-validation folds (default 5); with source columns the folds "
                   "are by source and 0 means leave-one-source-out")
    g.add_argument("--fold-seed", type=int, default=0, help="seed of the fold shuffles")


def _parse_options(items: Sequence[str]) -> dict:
    """``["k=v", ...]`` -> dict; values read as JSON (true, 3, 0.5, "x") or kept as text."""
    import json

    from .errors import InputError

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


def _json_default(obj):
    """JSON encoder hook for numpy scalars and arrays in calibrator parameters."""
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def _extra_scores(args: argparse.Namespace) -> dict:
    """``--suspect-ss`` / ``--unlabelled`` as calibrator options (score direction applied).

    Same rules as the case file: each only with its method; ``unsupervised`` needs
    ``--unlabelled``.
    """
    from .errors import InputError
    from .scores import read_score_file

    extra = {}
    for key, (flag, method) in _EXTRA_SCORE_OPTIONS.items():
        path = getattr(args, key)
        if path is None:
            continue
        if args.method != method:
            raise InputError(
                f"{flag} is only used by --method {method}, got --method {args.method}; "
                f"remove {flag} or use --method {method}"
            )
        values = read_score_file(path, label=key)
        extra[key] = -values if args.direction == "lower_is_similar" else values
    if args.method == "unsupervised" and "unlabelled" not in extra:
        raise InputError(
            "--method unsupervised needs unlabelled case-condition scores: add "
            "--unlabelled FILE (one score per line)"
        )
    return extra


def _calibrate_result(args: argparse.Namespace) -> dict:
    """Run ``calibrate``: the JSON-able result (method, params, results, elub, warnings)."""
    import copy
    import warnings

    import numpy as np

    from ._checks import as_score_array
    from .calibration import ELUB, fit_warnings, make_calibrator
    from .errors import ForensicLRWarning, InputError
    from .scores import load_scores
    from .uncertainty import bayes_interval, bootstrap_interval

    options = _parse_options(args.option)
    data = load_scores(ss=args.ss, ds=args.ds, direction=args.direction)
    raw = as_score_array(args.score, "--score")
    x = -raw if args.direction == "lower_is_similar" else raw
    clash = sorted(set(options) & set(_EXTRA_SCORE_OPTIONS))
    if clash:
        flag = _EXTRA_SCORE_OPTIONS[clash[0]][0]
        raise InputError(f"--option {clash[0]}=...: give the score file with {flag} FILE instead")
    base = make_calibrator(args.method, **_extra_scores(args), **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ForensicLRWarning)
        texts = list(fit_warnings(data.ss, data.ds, x))
        model = ELUB(copy.deepcopy(base)) if args.elub else copy.deepcopy(base)
        model.fit(data.ss, data.ds)
        llr = np.asarray(model.llr(x), dtype=float)
        interval = None
        if args.interval == "bootstrap":
            n = 1000 if args.n is None else args.n
            bar = _progress_bar("bootstrap")
            interval = bootstrap_interval(
                base, data.ss, data.ds, x, n=n, level=args.level, seed=args.seed, progress=bar
            )
        elif args.interval == "bayes":
            n = 4000 if args.n is None else args.n
            fitted = model.calibrator if args.elub else model
            interval = bayes_interval(fitted, x, n=n, level=args.level, seed=args.seed)
    for w in caught:
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=1)
        texts.append(str(w.message))
    elub = None
    low = high = None
    if interval is not None:
        low, high = interval.llr_low, interval.llr_high
    if args.elub:
        lo10, hi10 = (float(b) for b in model.bounds_log10_)
        elub = {"log10_lr_low": lo10, "log10_lr_high": hi10}
        if low is not None:  # the reported LR is bounded, so is its interval
            bounds = (lo10 * np.log(10.0), hi10 * np.log(10.0))
            low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    results = []
    with np.errstate(over="ignore"):
        lr = np.exp(llr)  # display only; every computation above uses llr
    for i, score in enumerate(raw):
        item = {
            "score": float(score),
            "llr": float(llr[i]),
            "log10_lr": float(llr[i] / np.log(10.0)),
            "lr": float(lr[i]),
            "interval": None,
        }
        if low is not None:
            item["interval"] = {
                "level": float(args.level),
                "log10_lr_low": float(low[i] / np.log(10.0)),
                "log10_lr_high": float(high[i] / np.log(10.0)),
            }
        results.append(item)
    return {
        "method": args.method,
        "params": model.params(),
        "results": results,
        "elub": elub,
        "warnings": list(dict.fromkeys(texts)),
    }


def _cmd_calibrate(args: argparse.Namespace) -> int:
    """``forensic-lr calibrate``: LR(s) of the evidence score(s), as text or JSON."""
    import json

    from .verbal import format_lr

    out = _calibrate_result(args)
    if args.json:
        print(json.dumps(out, indent=2, default=_json_default))
        return EXIT_OK
    print(f"method: {out['method']}")
    for r in out["results"]:
        print(
            f"score {r['score']:g}: LR = {format_lr(r['log10_lr'])}"
            f"  (log10 LR = {r['log10_lr']:.3f}, natural-log LR = {r['llr']:.3f})"
        )
        if r["interval"] is not None:
            iv = r["interval"]
            print(
                f"  {100 * iv['level']:g} % {args.interval} interval of log10 LR: "
                f"[{iv['log10_lr_low']:.3f}, {iv['log10_lr_high']:.3f}]"
            )
    if out["elub"] is not None:
        e = out["elub"]
        print(f"ELUB bounds of log10 LR: [{e['log10_lr_low']:.3f}, {e['log10_lr_high']:.3f}]")
    for text in out["warnings"]:
        print(f"warning: {text}")
    return EXIT_OK


def _validate_raw_scores(args: argparse.Namespace) -> int:
    """``validate --calibrate M [--folds K]`` or ``--compare M1,M2``: cross-validated metrics.

    The inputs are raw scores; each method's out-of-fold LLRs
    (:func:`forensic_lr.uncertainty.cross_validated_llr`) are evaluated with
    :func:`forensic_lr.metrics.evaluate`. JSON: one object (``--calibrate``) or a list
    of objects (``--compare``), each ``{"method", "folds", <Evaluation fields>}``.
    """
    import json

    from .calibration import make_calibrator
    from .errors import InputError
    from .metrics import evaluate
    from .scores import load_scores
    from .uncertainty import cross_validated_llr

    if args.calibrate and args.compare:
        raise InputError("give either --calibrate METHOD or --compare M1,M2,..., not both")
    if args.compare:
        methods = [m.strip() for m in args.compare.split(",") if m.strip()]
        unknown = [m for m in methods if m not in _CALIBRATION_METHODS]
        if unknown or not methods:
            raise InputError(
                f"--compare: unknown method(s) {unknown or args.compare!r}; "
                f"choose from {','.join(_CALIBRATION_METHODS)}"
            )
    else:
        methods = [args.calibrate]
    data = load_scores(
        ss=args.ss, ds=args.ds, scores=args.scores,
        direction=getattr(args, "direction", "higher_is_similar"),
    )
    rows = []
    groups = (data.ss_sources, data.ds_sources) if data.has_sources else None
    folds = None if groups is not None and args.folds == 0 else args.folds  # 0: leave one out
    for method in methods:
        ss_llr, ds_llr = cross_validated_llr(
            data.ss, data.ds, make_calibrator(method), folds=folds, seed=args.fold_seed,
            groups=groups,
        )
        row = {"method": method, "folds": args.folds, **evaluate(ss_llr, ds_llr).to_dict()}
        row["folds_by"] = "source" if groups is not None else "trial"
        ci = ci_record(args, data, ss_llr, ds_llr)
        if ci is not None:
            row["ci"] = ci
        rows.append(row)
    if getattr(args, "json", False):
        print(json.dumps(rows if args.compare else rows[0], indent=2, default=_json_default))
        return EXIT_OK
    keys = [k for k in rows[0] if k not in ("method", "folds", "folds_by", "ci")]
    folds_text = "leave-one-source-out" if folds is None else f"{args.folds} folds"
    print(f"cross-validated metrics ({folds_text} by {rows[0]['folds_by']}, "
          f"seed {args.fold_seed})")
    print(f"{'method':<10}" + "".join(f"{k:>10}" for k in keys))
    for row in rows:
        cells = "".join(
            f"{row[k]:>10.4g}" if isinstance(row[k], float) else f"{row[k]:>10}" for k in keys
        )
        print(f"{row['method']:<10}{cells}")
    for row in rows:
        if "ci" in row:
            print(f"{row['method']}:")
            print_ci(row["ci"])
    return EXIT_OK

# ---- run / examples / init (case pipeline engineer) ----------------------------------------


def _add_case_parsers(sub) -> None:
    """Add the ``run``, ``examples`` and ``init`` subcommands."""
    p = sub.add_parser("run", help="run a case file: LR, validation and the expert report")
    p.add_argument("case", metavar="CASE.toml", help="the case file (TOML or JSON)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the report files")
    p.add_argument("--force", action="store_true", help="overwrite files in a non-empty --out")
    p.add_argument(
        "--format", metavar="pdf,html,json", default=None,
        help="formats to write (default: [report] formats of the case file)",
    )
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("examples", help="list the worked cases, or copy one to a folder")
    esub = p.add_subparsers(dest="examples_command", metavar="copy")
    c = esub.add_parser("copy", help="copy a worked case to a folder")
    c.add_argument("name", help="the case's name (see `forensic-lr examples`)")
    c.add_argument("dir", help="destination folder")
    c.add_argument("--force", action="store_true", help="overwrite files in a non-empty DIR")
    p.set_defaults(func=_cmd_examples)

    p = sub.add_parser("init", help="write a commented case-file template to a folder")
    p.add_argument("dir", help="folder for case.toml (created if missing)")
    p.add_argument("--force", action="store_true", help="overwrite an existing case.toml")
    p.set_defaults(func=_cmd_init)


def _parse_formats(text: str | None, default: Sequence[str]) -> tuple[str, ...]:
    from .errors import InputError

    if text is None:
        return tuple(default)
    formats = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    bad = [f for f in formats if f not in ("pdf", "html", "json")]
    if bad or not formats:
        raise InputError(f"--format {text!r}: use a comma-separated list of pdf, html, json")
    return formats


def _cmd_run(args: argparse.Namespace) -> int:
    """``forensic-lr run CASE --out DIR``: evaluate, validate and write the report files."""
    import warnings
    from pathlib import Path

    from .case import load_case
    from .errors import ForensicLRWarning, InputError
    from .output import write_outputs
    from .pipeline import run_case_full
    from .report import build_report

    spec = load_case(args.case)
    formats = _parse_formats(args.format, spec.report.formats)
    out = Path(args.out)
    if out.is_dir() and any(out.iterdir()) and not args.force:  # fail before the long work
        raise InputError(
            f"output folder {out} is not empty; choose an empty or new folder, "
            "or use --force to overwrite its files"
        )
    with warnings.catch_warnings():  # their texts are in the result and printed below
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(spec, progress=None if args.quiet else _progress_bar("bootstrap"))
    files = build_report(run, formats)  # everything in memory before anything is written
    written = write_outputs(out, files, force=args.force)
    if args.quiet:
        return EXIT_OK
    for r in run.result.results:
        print(
            f"{r.label}: score {r.score:g} -> LR = {r.lr_text} (log10 LR = {r.log10_lr:.2f}); "
            f"{r.verbal.statement}"
        )
    for text in run.result.warnings:
        print(f"warning: {text}")
    print(f"wrote {len(written)} file(s) to {out}")
    if args.verbose:
        for path in written:
            print(f"  {path}")
    return EXIT_OK


def _example_cases() -> dict[str, tuple[str, object]]:
    """Worked cases: name -> (one-line summary from its README, folder)."""
    from ._resources import examples_dir

    cases = {}
    root = examples_dir()
    for folder in sorted(p for p in root.iterdir() if (p / "case.toml").is_file()):
        summary = ""
        readme = folder / "README.md"
        if readme.is_file():
            lines = [ln.strip() for ln in readme.read_text(encoding="utf-8").splitlines()]
            summary = next((ln for ln in lines if ln and not ln.startswith("#")), "")
        cases[folder.name] = (summary, folder)
    return cases


def _cmd_examples(args: argparse.Namespace) -> int:
    """``forensic-lr examples [copy NAME DIR]``: list the worked cases or copy one."""
    from pathlib import Path

    from .errors import InputError
    from .output import write_outputs

    cases = _example_cases()
    if args.examples_command != "copy":
        width = max((len(n) for n in cases), default=0)
        for name, (summary, _) in cases.items():
            print(f"{name:<{width}}  {summary}")
        print("\ncopy one with: forensic-lr examples copy NAME DIR")
        return EXIT_OK
    if args.name not in cases:
        raise InputError(f"no worked case {args.name!r}; choose one of {sorted(cases)}")
    folder = cases[args.name][1]
    files = {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    write_outputs(Path(args.dir), files, force=args.force)
    if not args.quiet:
        print(f"copied the {args.name!r} case to {args.dir}")
        print(f"run it with: forensic-lr run {Path(args.dir) / 'case.toml'} --out report")
    return EXIT_OK


def _cmd_init(args: argparse.Namespace) -> int:
    """``forensic-lr init DIR``: write a commented case-file template and say what next."""
    from pathlib import Path

    from .case import case_template
    from .errors import InputError
    from .output import write_outputs

    target = Path(args.dir) / "case.toml"
    if target.exists() and not args.force:
        raise InputError(f"{target} exists; choose another folder or use --force to replace it")
    write_outputs(Path(args.dir), {"case.toml": case_template().encode("utf-8")}, force=True)
    if not args.quiet:
        print(f"wrote {target}. Next:")
        print("  1. put the same-source scores in ss.csv and the different-source scores in")
        print("     ds.csv next to it (one score per line; or change [background])")
        print("  2. edit case.toml: case details, propositions, the evidence score, the method")
        print(f"  3. run: forensic-lr run {target} --out report")
    return EXIT_OK



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
