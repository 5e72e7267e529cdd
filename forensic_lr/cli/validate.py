"""``forensic-lr validate``: metrics of LLRs, or a validation study of raw scores.

Three uses of one command (all options kept):

* LLRs in (``--ss/--ds`` or ``--scores``): the metrics, DCF at chosen priors, figures
  (``--plots``) and bootstrap intervals (``--ci bootstrap``);
* raw scores with ``--calibrate M`` or ``--compare M1,M2``: the cross-validated metrics of
  each method, from :func:`forensic_lr.validation.run_validation_study`;
* raw scores with ``--report DIR``: the validation-study report (the same study, rendered).
"""

from __future__ import annotations

import argparse
import math
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from ..calibration import method_names, methods_help
from ..defaults import DEFAULT_SEED
from ..errors import InputError
from ..i18n import N_
from ..i18n.classes import CLASS_SCHEMES, ClassNames, class_labels
from ..limits import check_count
from .common import (
    EXIT_OK,
    Stages,
    add_csv_locale_option,
    add_language_option,
    add_llr_inputs,
    add_table_options,
    print_json,
    score_inputs,
    seed_value,
    table_options,
)
from .compare import add_ci_arguments, ci_options, print_ci

if TYPE_CHECKING:
    from ..output import OutputFolder
    from ..records import LLRMetrics, StatedBounds, SupportedRange

def add_parser(sub) -> None:
    """Add the ``validate`` subcommand."""
    p = sub.add_parser(
        "validate",
        help="performance metrics of a set of LLRs (or raw scores), plots, validation report",
        description="Metrics of LLRs of same-source and different-source trials. With "
        "--calibrate/--compare/--report the inputs are raw scores, calibrated by "
        "cross-validation.",
    )
    add_llr_inputs(p)
    p.add_argument("--log-base", choices=("e", "10", "2"), default="e",
                   help="base of the input LLRs (default e, natural log)")
    p.add_argument("--direction", choices=("higher_is_similar", "lower_is_similar"),
                   default="higher_is_similar", help="raw-score direction (with --calibrate)")
    p.add_argument("--classes", choices=CLASS_SCHEMES, default=None,
                   help="what the trials are: 'source' comparisons (default; same-source "
                   "trials have Hp true) or trials of 'propositions' that are not about "
                   "sources (e.g. above or below a legal limit), named by --hp-class and "
                   "--hd-class in the summary, the figures and the report (with --case: "
                   "the case file's [propositions] classes)")
    p.add_argument("--hp-class", metavar="LABEL", default=None,
                   help="with --classes propositions: a short name of the trials with Hp "
                   "true, e.g. 'above the limit'")
    p.add_argument("--hd-class", metavar="LABEL", default=None,
                   help="with --classes propositions: a short name of the trials with Hd "
                   "true, e.g. 'at or below the limit'")
    p.add_argument("--prior", type=float, action="append", default=[], metavar="P",
                   help="also give the normalised DCF and min DCF at this target prior "
                   "(repeatable)")
    p.add_argument("--c-miss", type=float, default=1.0, help="cost of a miss (default 1)")
    p.add_argument("--c-fa", type=float, default=1.0, help="cost of a false alarm (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--csv", metavar="FILE",
                   help="also write the metrics as CSV: a header system,<metric>,... and one "
                   "line per method (or the input LLRs), full precision")
    add_csv_locale_option(p, "the --csv file")
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
    add_language_option(about, "en")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    add_ci_arguments(p)
    add_table_options(p)
    g = p.add_argument_group("raw scores (calibrated by cross-validation)")
    g.add_argument(
        "--calibrate", choices=(*method_names(), "none"), metavar="METHOD",
        help="inputs are raw scores: out-of-fold LLRs from this calibrator, then the metrics; "
        "none: the inputs are the system's own LLRs (--log-base), validated as they are. "
        + methods_help(),
    )
    g.add_argument(
        "--compare", metavar="M1,M2,...",
        help="inputs are raw scores: one row of cross-validated metrics per method",
    )
    g.add_argument("--folds", type=int, default=5,
                   help="cross-validation folds (default 5); with source columns the folds "
                   "are by source and 0 means leave-one-source-out")
    g.add_argument("--fold-seed", type=seed_value, default=None,
                   help=f"seed of the fold shuffles (default: the case's seed with --case, "
                   f"else {DEFAULT_SEED}, the case files' default, so that a case and a study "
                   "on the same data use the same folds)")
    g.add_argument("--case", metavar="CASE.toml",
                   help="take the background files (read as run reads them), score "
                   "direction, folds, fold seed, lab criteria and (unless --calibrate/"
                   "--compare) the method from a case file: the case's method, with its "
                   "options, extra score inputs and ELUB, is validated by the same code as "
                   "run, so the metrics are those of the case report")
    g.add_argument("--data-role", choices=("development", "validation"),
                   help="what these data were to the method, for the validation matrix "
                   "(default: development when several methods are compared, else validation)")
    p.set_defaults(func=run)


def _refuse_ignored(args: argparse.Namespace) -> None:
    """Options that the chosen use of ``validate`` would ignore are errors, with the reason."""
    raw = bool((args.calibrate and args.calibrate != "none") or args.compare or args.report
               or getattr(args, "case", None))
    given = []
    if raw:
        if args.prior or args.c_miss != 1.0 or args.c_fa != 1.0:
            given.append(("--prior/--c-miss/--c-fa", "the DCF rows are computed for LLRs "
                          "(without --calibrate, --compare or --report)"))
        if args.log_base != "e" and args.calibrate != "none":
            given.append(("--log-base", "raw scores have no logarithm base; it applies to "
                          "LLRs (without --calibrate, --compare or --report)"))
        if args.report and args.plots:
            given.append(("--plots", "the --report folder holds the figures already"))
        if args.report and args.csv:
            given.append(("--csv", "the --report folder holds the study as JSON "
                          "(validation.json); use --calibrate or --compare for CSV"))
        if args.report and args.json:
            given.append(("--json", "the --report folder holds the study as JSON "
                          "(validation.json)"))
        if args.compare and args.plots and not args.report:
            given.append(("--plots", "the figures are of one method: use --calibrate METHOD "
                          "(or --report DIR for every method)"))
    else:
        if args.folds != 5 or args.fold_seed is not None:
            given.append(("--folds/--fold-seed", "cross-validation applies to raw scores "
                          "(with --calibrate, --compare or --report)"))
    if args.csv_locale and not args.csv:
        given.append(("--csv-locale", "it says how the --csv file is written: add --csv FILE"))
    if not args.report:
        identity = ("criteria", "title", "laboratory", "analyst", "date", "data_description")
        named = [f"--{k.replace('_', '-')}" for k in identity if getattr(args, k) is not None]
        if named:
            given.append(("/".join(named), "they are printed in the validation-study report "
                          "only: add --report DIR"))
    if given:
        flags, reason = given[0]
        raise InputError(f"{flags} would be ignored: {reason}; remove the option")


#: The options of ``validate --report`` a study's record keeps (``command_options``), so
#: that ``verify --study`` can re-run it: inputs (as given), how they are read, the study's
#: settings and the report's identity; not the output options, nor the language
#: (validation.json does not depend on it; ``verify`` reads it from the PDF).
STUDY_OPTIONS = ("ss", "ds", "scores", "case", "criteria", "log_base", "direction", "column",
                 "label_column", "source_column", "decimal", "sheet", "calibrate", "compare",
                 "folds", "fold_seed", "data_role", "ci", "by", "n", "seed", "level",
                 "interval", "title", "laboratory", "analyst", "date", "data_description",
                 "classes", "hp_class", "hd_class")


def _command_options(args: argparse.Namespace) -> dict:
    """The :data:`STUDY_OPTIONS` (and the calibrators' extra score inputs) given, as set on
    the command line, before ``--case`` fills any in."""
    from ..calibration import extra_inputs

    names = (*STUDY_OPTIONS, *extra_inputs())
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


def run(args: argparse.Namespace) -> int:
    """``forensic-lr validate``."""
    args.command_options = _command_options(args)
    _refuse_ignored(args)
    check_count("folds", args.folds, "--folds")
    if args.ci == "bootstrap":
        from ..resampling import check_interval_options

        check_interval_options(args.n, args.level, n_name="--n", level_name="--level")
    _from_case(args)
    _check_inputs(args)
    args.class_names = _class_names(args)
    with _locked_output(args) as folder:
        if args.report:
            return _report(args, folder)
        if args.calibrate or args.compare:
            return _raw_scores(args, folder)
        return _llr_metrics(args, folder)


def _locked_output(args: argparse.Namespace) -> AbstractContextManager:
    """The ``--report`` or ``--plots`` folder, checked and locked for the whole run.

    Checked before any work (a mistake costs nothing) and locked until the outputs are
    committed, so a second run to the same folder is refused at once; without either
    option, nothing.
    """
    from ..output import OutputFolder

    for option, path in (("--report", args.report), ("--plots", args.plots)):
        if path:
            return OutputFolder(path, force=args.force, inputs=score_inputs(args), option=option)
    return nullcontext()


# --------------------------------------------------------------------------- LLRs


def _llr_metrics(args: argparse.Namespace, folder: OutputFolder | None) -> int:
    """Metrics, DCF rows, intervals and figures of LLRs
    (:func:`forensic_lr.validation.validate_llr_set`, :func:`forensic_lr.plots.llr_figures`)."""
    import warnings

    from ..errors import ForensicLRWarning
    from ..io.scores import load_scores
    from ..validation import metrics_row, validate_llr_set

    _check_llr_args(args)
    data = load_scores(ss=args.ss, ds=args.ds, scores=args.scores, log_base=args.log_base,
                       **table_options(args))
    with warnings.catch_warnings():  # their texts are in the record, printed below
        warnings.simplefilter("ignore", ForensicLRWarning)
        result = validate_llr_set(
            data.ss, data.ds, priors=args.prior, c_miss=args.c_miss, c_fa=args.c_fa,
            metric_intervals=ci_options(args),
            ss_sources=data.ss_sources, ds_sources=data.ds_sources,
        )
    _write_csv(args, [("input", metrics_row(result))])
    if folder is not None:
        _write_plots(folder, data.ss, data.ds, language=args.language or "en",
                     classes=args.class_names)
    if args.json:
        print_json(result)
        return EXIT_OK
    _print_metrics(result, args)
    _print_ranges([("input", result.supported_range)])
    if result.ci is not None:
        print_ci(result.ci)
    for text in result.warnings:
        print(f"warning: {text}", file=sys.stderr)
    return EXIT_OK


def _write_csv(args: argparse.Namespace, rows) -> None:
    """``--csv FILE``: :func:`forensic_lr.validation.metrics_csv` of ``rows`` (in the
    ``--csv-locale`` conventions), written atomically (never over a file without --force)."""
    if not args.csv:
        return
    from ..output import write_file
    from ..validation import metrics_csv

    write_file(args.csv, metrics_csv(rows, args.csv_locale or "en").encode("utf-8"),
               force=args.force,
               inputs=score_inputs(args), option="--csv")


def _write_plots(folder: OutputFolder, ss, ds, *, xlabel: str = N_("input log10 LR"),
                 language: str = "en", classes: ClassNames | None = None) -> None:
    """The figures of natural-log LLRs ``ss``, ``ds`` into the ``--plots`` folder, their
    texts in ``language`` (``--language``), the classes named as ``classes`` says."""
    from ..plots import llr_figures

    folder.commit({k: v.encode() for k, v in llr_figures(
        ss, ds, xlabel=xlabel, language=language, classes=classes).items()})


def _class_names(args: argparse.Namespace) -> ClassNames:
    """``--classes``, ``--hp-class`` and ``--hd-class`` checked, or with ``--case`` the case
    file's ``[propositions]`` (given both ways: an error)."""
    spec = getattr(args, "case_spec", None)
    given = [f for f, v in (("--classes", args.classes), ("--hp-class", args.hp_class),
                            ("--hd-class", args.hd_class)) if v is not None]
    if spec is not None:
        if given:
            raise InputError(f"{given[0]}: --case takes the classes of trials from the case "
                             "file's [propositions] classes; remove it, or drop --case")
        return spec.propositions.class_names
    return class_labels(args.classes, args.hp_class, args.hd_class,
                        ("--classes", "--hp-class", "--hd-class"))


def _check_llr_args(args: argparse.Namespace) -> None:
    """Option mistakes of ``validate`` with LLR inputs, named by their command-line flags."""
    if args.direction != "higher_is_similar":
        raise InputError(
            "--direction applies to raw scores (with --calibrate, --compare or --report); "
            "LLRs already point towards Hp: remove --direction"
        )
    for p in args.prior:
        if not 0.0 < p < 1.0:
            raise InputError(f"--prior {p:g}: a target prior must lie strictly between 0 and 1")
    for flag, cost in (("--c-miss", args.c_miss), ("--c-fa", args.c_fa)):
        if not (math.isfinite(cost) and cost > 0.0):
            raise InputError(f"{flag} {cost:g}: a cost must be a positive finite number, such "
                             "as 1 or 10 (only the ratio of the two costs matters)")


def _check_inputs(args: argparse.Namespace) -> None:
    if getattr(args, "case_spec", None) is not None:
        return  # the case file named (and its validation checked) the inputs
    if args.scores is not None and (args.ss is not None or args.ds is not None):
        raise InputError("give either --scores FILE or --ss FILE --ds FILE, not both")
    if args.scores is None and (args.ss is None or args.ds is None):
        missing = "--ds" if args.ss is not None else "--ss" if args.ds is not None else None
        hint = f"{missing} is missing; " if missing else ""
        raise InputError(f"{hint}give --ss FILE and --ds FILE, or one labelled --scores FILE")


def _print_metrics(result: LLRMetrics, args: argparse.Namespace) -> None:
    """The metrics of ``validate`` as a readable two-column table on stdout."""
    from ..metrics.catalogue import METRICS

    base = {"e": "natural-log", "10": "log10", "2": "log2"}[args.log_base]
    print(f"validation of {base} LRs (metrics computed on natural-log LLRs)")
    names = getattr(args, "class_names", None)
    hp, hd = (("same-source trials", "different-source trials") if names is None
              or names.by_source else ("trials with Hp true", "trials with Hd true"))
    print(f"{hp:<26} {result.metrics['n_ss']:>10}")
    print(f"{hd:<26} {result.metrics['n_ds']:>10}")
    for m in METRICS:
        value = result.metrics[m.key]
        text = "undefined" if value is None or value != value else f"{value:.4f}"
        print(f"{m.label:<26} {text:>10}")
    for row in result.dcf:
        print(f"DCF at p_target={row.p_target:g} (c_miss={row.c_miss:g}, "
              f"c_fa={row.c_fa:g}): actual {row.dcf:.4f}, minimum {row.min_dcf:.4f} "
              "(normalised)")
    if args.plots and not args.quiet:
        print(f"figures written to {args.plots}")


def _print_ranges(rows: list[tuple[str, SupportedRange]],
                  case_rows: list[tuple[str, StatedBounds]] = ()) -> None:
    """The range of LRs the validated LLRs support (each row's ELUB and
    invariance-verification bounds, log10 LR, as reports print them), as a second table;
    a bound that could not be computed is said so in words below it, and so is the bound
    a case file's rule states (``case_rows``, ``validate --case``)."""
    from .._numbers import signed_log10
    from ..records import BOUNDS_TERMS

    which = "the LRs as given" if rows[0][1].llrs == "as given" else "the cross-validated LRs"
    print(f"\nrange of LRs these data support (log10 LR, from {which}):")
    print("ELUB, empirical lower and upper bounds (Vergeer et al. 2016); IV, "
          "invariance-verification")
    print("bounds (Alberink et al. 2025, submitted)")
    heads = ("ELUB low", "ELUB high", "IV low", "IV high")
    print(f"{'method':<10}" + "".join(f"{h:>10}" for h in heads))
    missing = []
    for name, bounds in rows:
        cells = []
        for rule, pair in (("ELUB", bounds.elub_log10), ("IV", bounds.iv_log10)):
            if pair is None:
                missing.append(f"{name}: the {rule} bounds cannot be computed from these LRs")
            elif pair == (0.0, 0.0):
                missing.append(f"{name}: by {rule}, these data support no LR other than 1")
            cells += ["-", "-"] if pair is None else [signed_log10(v) for v in pair]
        print(f"{name:<10}" + "".join(f"{c:>10}" for c in cells))
    for text in missing:
        print(text)
    for name, case in case_rows:
        rule = BOUNDS_TERMS[case.rule] + (f" of the {case.source} LRs" if case.source else "")
        if case.log10 is None:
            print(f"{name}: the case's rule ({rule}) cannot be computed from these LRs")
        else:
            low, high = (signed_log10(v) for v in case.log10)
            print(f"{name}: the case report states {low} to {high} ({rule})")


# --------------------------------------------------------------------------- raw scores


def _methods(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The methods named by ``--calibrate`` or ``--compare`` (None: the study's default)."""
    from ..calibration import background_only_methods

    if args.calibrate and args.compare:
        raise InputError("give either --calibrate METHOD or --compare M1,M2,..., not both")
    if args.compare:
        methods = tuple(m.strip() for m in args.compare.split(",") if m.strip())
    elif args.calibrate:
        methods = (args.calibrate,)
    else:
        return None
    allowed = (*background_only_methods(), "none")
    spec = getattr(args, "case_spec", None)
    if spec is not None:  # the case's own method, with its extra score inputs
        allowed = (*allowed, spec.method.calibrator)
    unknown = [m for m in methods if m not in allowed]
    if unknown or not methods:
        flag = "--compare" if args.compare else "--calibrate"
        raise InputError(
            f"{flag}: unknown method(s) {unknown or args.compare!r}, or methods that need "
            f"case-condition scores besides the background; choose from {','.join(allowed)}"
        )
    return methods


def _from_case(args: argparse.Namespace) -> None:
    """Fill the study's inputs from ``--case`` (the same data, method, folds and seed).

    Files given on the command line as well are a mistake (which would win is unclear).
    The case itself is kept in ``args.case_spec`` for :func:`_study`, which reads its
    background as ``run`` does and validates its method as ``run`` does.
    """
    args.case_spec = None
    if not args.case:
        if args.fold_seed is None:
            args.fold_seed = DEFAULT_SEED
        return
    from ..casework import load_case

    if args.ss or args.ds or args.scores:
        raise InputError("--case takes the background files from the case file; remove "
                         "--ss/--ds/--scores, or drop --case")
    spec = load_case(args.case)
    bg = spec.background
    if bg.scores is not None:
        args.scores = str(spec.resolve(bg.scores))
    elif spec.measurements is None:  # [measurements]: load_case_data forms the comparisons
        args.ss, args.ds = str(spec.resolve(bg.ss)), str(spec.resolve(bg.ds))
    args.direction = spec.evidence.score_direction
    args.folds = spec.validation.folds
    if args.fold_seed is None:
        args.fold_seed = spec.uncertainty.seed
    args.case_criteria = spec.validation.criteria
    args.criteria_rule = spec.validation.criteria_rule
    args.case_spec = spec
    if not (args.calibrate or args.compare):
        args.calibrate = spec.method.calibrator


def _study(args: argparse.Namespace, *, criteria=None, intervals=None, about=None,
           criteria_rule: str = "estimate_and_bound", stages: Stages | None = None):
    """Run :func:`~forensic_lr.validation.run_validation_study` on the raw-score inputs.

    With ``--case`` the background is read as ``run`` reads it (the case's reading
    options and extra score inputs) and the case's own method (its options, extra inputs
    and ELUB) stands for its calibrator's name: its metrics are those of ``run``'s report.
    """
    from ..io.scores import load_scores
    from ..validation import run_validation_study

    methods = _methods(args)
    spec = getattr(args, "case_spec", None)
    if spec is not None:
        from ..casework.pipeline import case_method, load_case_data

        data, extra = load_case_data(spec)
        own = case_method(spec, extra)
        methods = tuple(own if m == own.calibrator else m for m in methods)
    elif methods == ("none",):  # the system's own LLRs: read with their log base
        data = load_scores(ss=args.ss, ds=args.ds, scores=args.scores, log_base=args.log_base,
                           **table_options(args))
    else:
        data = load_scores(ss=args.ss, ds=args.ds, scores=args.scores, direction=args.direction,
                           **table_options(args))
    study = run_validation_study(
        data.ss, data.ds, methods=methods,
        folds=None if data.has_sources and args.folds == 0 else args.folds,
        seed=args.fold_seed, criteria=criteria,
        inputs=_recorded_names(data.files, getattr(args, "recorded_inputs", None)),
        ss_sources=data.ss_sources, ds_sources=data.ds_sources,
        metric_intervals=intervals, about=about, data_role=args.data_role,
        classes=getattr(args, "class_names", None),
        criteria_rule=criteria_rule,
        level=None if spec is None else spec.uncertainty.level,
        progress=(stages or Stages(args)).for_stage("validation study (cross-validation)"),
    )
    return study, data


def _recorded_names(files: dict[str, str], recorded: dict[str, str] | None) -> dict[str, str]:
    """``files`` (name -> SHA-256), each under the name a re-run study's record gives the
    file with the same SHA-256 and file name (``verify --study``: the same bytes, read from
    where they are now); as they are without a record."""
    if not recorded:
        return files
    return {next((r for r, digest in recorded.items()
                  if digest == sha and Path(r).name == Path(name).name), name): sha
            for name, sha in files.items()}


def _raw_scores(args: argparse.Namespace, folder: OutputFolder | None) -> int:
    """``validate --calibrate M`` or ``--compare M1,M2``: cross-validated metrics per method.

    JSON: one object (``--calibrate``) or a list (``--compare``), each a
    :class:`~forensic_lr.records.MethodMetrics`
    (:func:`forensic_lr.validation.study_method_metrics`).
    """
    from ..validation import metrics_row, study_method_metrics

    study, data = _study(args)
    if folder is not None:
        _write_plots(folder, *study.arrays.llrs[study.methods[0].method],
                     xlabel=N_("out-of-fold log10 LR"), language=args.language or "en",
                     classes=args.class_names)
    rows = study_method_metrics(study, metric_intervals=ci_options(args),
                                ss_sources=data.ss_sources, ds_sources=data.ds_sources)
    _write_csv(args, [(row.method, metrics_row(row)) for row in rows])
    if args.json:
        print_json(rows if args.compare else rows[0])
        return EXIT_OK
    keys = list(rows[0].metrics)
    if [row.method for row in rows] == ["none"]:
        print("metrics of the given LLRs (validated as they are: no calibration, no "
              "cross-validation)")
    else:
        folds_text = "leave-one-source-out" if study.folds is None else f"{args.folds} folds"
        print(f"cross-validated metrics ({folds_text} by {study.folds_by}, seed "
              f"{args.fold_seed})")
    widths = [max(10, len(k) + 2) for k in keys]  # a long name keeps a space before it
    print(f"{'method':<10}" + "".join(f"{k:>{w}}" for k, w in zip(keys, widths, strict=True)))
    for row in rows:
        cells = "".join(
            f"{v:>{w}.4g}" if isinstance(v, float) else f"{v!s:>{w}}"
            for v, w in zip((row.metrics[k] for k in keys), widths, strict=True)
        )
        print(f"{row.method:<10}{cells}")
    _print_ranges([(row.method, row.supported_range) for row in rows],
                  [(row.method, row.stated_bounds) for row in rows if row.stated_bounds])
    for row in rows:
        if row.ci is not None:
            print(f"{row.method}:")
            print_ci(row.ci)
    if args.plots and not args.quiet:
        print(f"figures of the out-of-fold LLRs written to {args.plots}")
    return EXIT_OK


def _criteria(path_text: str | None):
    """``--criteria FILE`` (TOML or JSON, keys as ``[validation.criteria]``, and ``rule``
    as the lab profile's ``[criteria] rule``): ``(criteria, rule)``, or ``(None, None)``."""
    from pydantic import ValidationError

    from ..casework.spec import Criteria, format_validation_error
    from ..io.settings_files import read_settings_file

    if not path_text:
        return None, None
    path = Path(path_text)
    raw = read_settings_file(path, "criteria file")
    if not isinstance(raw, dict) or not isinstance(raw.get("criteria", raw), dict):
        raise InputError("a criteria file is a table of keys such as cllr_max = 0.5",
                         path=str(path))
    table = dict(raw.get("criteria", raw))
    rule = table.pop("rule", None)
    if rule not in (None, "estimate_and_bound", "estimate"):
        raise InputError(f"rule = {rule!r}: use \"estimate_and_bound\" (the default: value and "
                         'its one-sided 95 % bound) or "estimate"', path=str(path))
    try:
        return Criteria(**table), rule
    except ValidationError as exc:
        raise InputError(format_validation_error(str(path), exc, "criteria file")
                         + "\n  keys are those of [validation.criteria], e.g. cllr_max = 0.5"
                         ) from None


def _report(args: argparse.Namespace, folder: OutputFolder) -> int:
    """``validate --report DIR``: the validation study, rendered (PDF, HTML, JSON)."""
    stages = Stages(args)
    written = folder.commit(_report_files(args, stages))
    stages.finish()
    if not args.quiet:
        print(f"wrote {len(written)} file(s) to {args.report}")
        if not args.data_description:
            print("note: the report says that no description of the data was given; "
                  "give one with --data-description")
    return EXIT_OK


def rerun_report(options: dict, paths: dict[str, str], recorded_inputs: dict[str, str],
                 language: str | None = None) -> dict[str, bytes]:
    """The files of ``validate --report`` re-made in memory (``verify --study``) from a
    study record's ``command_options``, its input options pointing at ``paths`` (option ->
    the file as it is now), in ``language``; the new record keeps the recorded options,
    and names the input files as ``recorded_inputs`` does."""
    from . import build_parser

    args = build_parser("validate").parse_args(["validate"])
    for name, value in {**options, **paths}.items():
        setattr(args, name, value)
    args.quiet, args.report, args.language = True, "(verify)", language
    args.command_options = dict(options)
    args.recorded_inputs = recorded_inputs
    _refuse_ignored(args)
    _from_case(args)
    _check_inputs(args)
    args.class_names = _class_names(args)
    return _report_files(args, Stages(args))


def _report_files(args: argparse.Namespace, stages: Stages) -> dict[str, bytes]:
    """The study of ``validate --report`` run and rendered, in memory: ``validation.json``,
    the PDF, the HTML and the figures; the record keeps the command's options."""
    from ..report.validation import build_validation_report

    intervals = ci_options(args)
    criteria, rule = _criteria(args.criteria)
    if criteria is None:
        criteria = getattr(args, "case_criteria", None)
    rule = rule or getattr(args, "criteria_rule", None) or "estimate_and_bound"
    study, _ = _study(
        args, criteria=criteria, intervals=intervals, criteria_rule=rule,
        about={"title": args.title, "laboratory": args.laboratory, "analyst": args.analyst,
               "date": args.date, "data": args.data_description}, stages=stages,
    )
    study = study.model_copy(update={"command_options": args.command_options})
    with stages.stage("rendering"):
        return build_validation_report(study, direction=args.direction,
                                       language=args.language or "en")
