"""``forensic-lr run``, ``examples`` and ``init``: the case-file commands.

``run`` reads a case file, calls :func:`forensic_lr.casework.run_case_full` and renders
the report (:func:`forensic_lr.report.build_report`); ``examples`` lists and copies the
worked cases; ``init`` writes a commented case-file template.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..calibration import methods_help
from ..defaults import BOUNDS_RULES, DEFAULT_BOUNDS
from ..errors import InputError
from .common import EXIT_OK, add_csv_locale_option, add_language_option


def add_parsers(sub) -> None:
    """Add the ``run``, ``examples`` and ``init`` subcommands."""
    p = sub.add_parser("run", help="run a case file: LR, validation and the expert report")
    p.add_argument("case", metavar="CASE.toml", nargs="+",
                   help="the case file (TOML or JSON); several files run as a batch: one "
                   "sub-folder per case (named by case id) in --out and a summary")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the report files")
    p.add_argument("--draft", action="store_true",
                   help="write the report although the case file still has placeholders or "
                   "lacks fields a final report requires (see `forensic-lr check`); every "
                   "page says DRAFT - not for court, and result.json has draft: true")
    p.add_argument("--force", action="store_true",
                   help="replace the output of an earlier run in --out (the whole set)")
    p.add_argument(
        "--format", metavar="pdf,html,json", default=None,
        help="formats to write (default: [report] formats of the case file)",
    )
    p.add_argument("--lab", metavar="LAB.toml", default=None,
                   help="the laboratory's profile: defaults for what the case file leaves "
                        "out (wins over [report] lab_profile)")
    p.add_argument("--calibrator", "--method", dest="calibrator", metavar="NAME", default=None,
                   help="calibration method, overriding the case file's [method] calibrator: "
                        + methods_help())
    p.add_argument("--elub", action=argparse.BooleanOptionalAction, default=None,
                   help="bound the LR by the rule of --bounds (default: the case file, then "
                        "the lab profile, then on)")
    p.add_argument("--bounds", choices=BOUNDS_RULES, default=None,
                   help=f"the rule of the bounds, overriding the case file's [method] bounds "
                        f"(default: the case file, then the lab profile, then "
                        f"{DEFAULT_BOUNDS}): elub, iv (invariance verification), n-source "
                        f"(LR in [1/N, N] for N sources) or fixed ([method] fixed_bounds)"),
    add_language_option(p, "[report] language of the case file, then the lab profile, then en")
    add_csv_locale_option(p, "a batch's summary.csv")
    p.set_defaults(func=run)

    p = sub.add_parser("examples", help="list the worked examples, or copy one to a folder")
    esub = p.add_subparsers(dest="examples_command", metavar="copy")
    c = esub.add_parser("copy", help="copy a worked case to a folder")
    c.add_argument("name", help="the case's name (see `forensic-lr examples`)")
    c.add_argument("dir", help="destination folder")
    c.add_argument("--force", action="store_true",
                   help="replace a worked case copied to DIR before (the whole folder, "
                   "only if none of its files was changed since)")
    p.set_defaults(func=examples)

    p = sub.add_parser("init", help="write a commented case-file template to a folder")
    p.add_argument("dir", help="folder for case.toml (created if missing)")
    p.add_argument("--force", action="store_true", help="overwrite an existing case.toml")
    p.add_argument("--lab", metavar="LAB.toml", default=None,
                   help="the laboratory's profile: leave out of the template the keys it sets")
    p.set_defaults(func=init)


#: What the terminal says of a case with several evidence scores (the report says the same).
SEVERAL_SCORES = (
    "one LR per comparison; forensic-lr never multiplies the LRs of comparisons that share an "
    "item or a source: they are not independent, and their product would overstate the evidence"
)


def draft_notice(reasons: Sequence[str]) -> str:
    """What the terminal says of a draft: every field a final report still lacks, or none."""
    from ..casework.checklist import format_problems

    if not reasons:
        return ("DRAFT - not for court (--draft was given; the case file lacks nothing a final "
                "report requires: run without --draft for a final report)")
    return (f"DRAFT - not for court: a final report still lacks {len(reasons)} field(s) "
            f"(`forensic-lr check` lists the same):\n{format_problems(reasons)}")


def run(args: argparse.Namespace) -> int:
    """``forensic-lr run CASE --out DIR``: evaluate, validate and write the report files."""
    from pathlib import Path

    from ..casework.job import open_case
    from ..output import OutputFolder
    from ..report import build_report
    from .common import Stages, format_option

    if len(args.case) > 1:
        from .batch import run_batch

        return run_batch(args)
    if args.csv_locale:
        from ..errors import InputError

        raise InputError("--csv-locale would be ignored: it says how a batch's summary.csv "
                         "is written, and one case writes none; remove the option")
    stages = Stages(args)
    formats = format_option(args.format)
    with stages.stage("reading the case"):
        job = open_case(args.case[0], lab=args.lab, calibrator=args.calibrator, elub=args.elub,
                        bounds=args.bounds,
                        draft=args.draft, formats=formats, language=args.language)
    signer = None
    if "pdf" in job.formats and not args.draft:  # asked before the long work; drafts never
        from ..casework.signing import profile_signer

        signer = profile_signer(job.spec)
    out = Path(args.out)
    # checked and locked before the long work; committed all or nothing
    with OutputFolder(out, force=args.force, inputs=job.inputs) as target:
        run = job.run(progress=stages)
        with stages.stage("rendering"):
            files = build_report(run, job.formats)  # all in memory before anything is written
        if signer is not None:
            from ..casework.signing import case_reason, sign_pdf

            files["report.pdf"] = sign_pdf(files["report.pdf"], signer,
                                           reason=case_reason(job.spec.case.id))
        written = target.commit(files)
    stages.finish()
    if args.quiet:
        return EXIT_OK
    conclusion = run.result.conclusion
    withheld = conclusion is not None and conclusion.status == "withheld"
    if run.result.draft:
        print(draft_notice(run.result.draft_reasons))
    for r in run.result.results:
        print(
            f"{r.label}: score {r.score_text} -> LR = {r.lr_text} (log10 LR = {r.log10_text}); "
            + ("computed, not given as an opinion" if withheld else r.verbal.statement)
        )
        if r.bounded:  # worded as a limit, with the model's value
            print(f"  {r.uncertainty}")
    if conclusion is not None and conclusion.status != "reported":
        print(f"conclusion {conclusion.status}: {conclusion.statement}")
    if conclusion is not None and conclusion.status == "overridden":
        print(f"justification: {conclusion.justification}")
    for note in conclusion.elub_notes if conclusion is not None else ():
        print(f"ELUB: {note}")
    if conclusion is not None and conclusion.lab_departures:
        for departure in conclusion.lab_departures:
            print(f"departure from the laboratory's policy: {departure}")
        print(f"justification of the departure: {conclusion.lab_justification}")
    if len(run.result.results) > 1:
        print(f"note: {SEVERAL_SCORES}")
    for text in run.result.warnings:
        print(f"warning: {text}")
    if signer is not None:
        print(f"report.pdf signed by {signer.name}")
    print(f"wrote {len(written)} file(s) to {out}")
    if args.verbose:
        for path in written:
            print(f"  {path}")
    return EXIT_OK


def _example_cases() -> dict[str, tuple[str, object]]:
    """Worked examples: name -> (one-line summary from its README, folder).

    Every folder of the shipped examples with a ``case.toml`` (a case) or a ``README.md``
    (a study example run by the commands its README gives).
    """
    import re

    from .._resources import examples_dir

    cases = {}
    root = examples_dir()
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        readme = folder / "README.md"
        if not (folder / "case.toml").is_file() and not readme.is_file():
            continue
        summary = ""
        if readme.is_file():
            lines = [ln.strip() for ln in readme.read_text(encoding="utf-8").splitlines()]
            heading = next((ln for ln in lines if ln.startswith("# ")), "")
            summary = next((ln for ln in lines if ln and not ln.startswith("#")), "")
            if not (folder / "case.toml").is_file():  # a study: its title says what it is
                summary = heading.lstrip("# ").partition(":")[2].strip() or summary
            summary = re.sub(r"\*\*|`", "", summary)
            summary = summary[:1].upper() + summary[1:]
        cases[folder.name] = (summary, folder)
    return cases


def examples(args: argparse.Namespace) -> int:
    """``forensic-lr examples [copy NAME DIR]``: list the worked cases or copy one."""
    from pathlib import Path

    from ..errors import InputError
    from ..output import CASE_FOLDER, write_outputs

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
    write_outputs(Path(args.dir), files, force=args.force, inputs=[folder], option="DIR",
                  kind=CASE_FOLDER)
    if not args.quiet:
        print(f"copied the {args.name!r} example to {args.dir}")
        if (folder / "case.toml").is_file():
            print(f"run it with: forensic-lr run {Path(args.dir) / 'case.toml'} --out report")
        else:
            print(f"follow {Path(args.dir) / 'README.md'}: run its commands in {args.dir}")
    return EXIT_OK


def init(args: argparse.Namespace) -> int:
    """``forensic-lr init DIR``: write a commented case-file template and say what next."""
    from pathlib import Path

    from ..casework.spec import case_template
    from ..output import write_file

    target = Path(args.dir) / "case.toml"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder {target.parent}: {exc.strerror}") from None
    if args.lab is not None:
        from ..casework.profile import profile_template

        text = profile_template(args.lab)
    else:
        text = case_template()
    write_file(target, text.encode("utf-8"), force=args.force, option="case.toml")
    if not args.quiet:
        print(f"wrote {target}. Next:")
        print("  1. put the same-source scores in ss.csv and the different-source scores in")
        print("     ds.csv next to it (one score per line; or change [background])")
        print("  2. edit case.toml: case details, propositions, the evidence score, the method")
        print("     (every key is explained in: forensic-lr docs case-file)")
        print(f"  3. check what a final report still lacks: forensic-lr check {target}")
        print(f"  4. run: forensic-lr run {target} --out report   (--draft until step 3 passes)")
    return EXIT_OK
