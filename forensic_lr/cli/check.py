"""``forensic-lr check CASE.toml``: is a case file ready for a final report? Writes nothing.

Validates the case file, reads every input file and lists the placeholders left from the
``init`` template and the fields a final report requires
(:func:`forensic_lr.casework.checklist.check_case`). Exit 0 when ready, 2 otherwise.
"""

from __future__ import annotations

import argparse

from .common import EXIT_OK, EXIT_USER_ERROR


def add_parser(sub) -> None:
    """Add the ``check`` subcommand."""
    p = sub.add_parser(
        "check", help="check a case file: inputs, placeholders, fields a final report needs",
        description="Validate a case file, read every input it names and list placeholders "
        "left from the `forensic-lr init` template and fields a final report requires. "
        "Writes nothing; exit status 0 when ready, 2 otherwise.",
    )
    p.add_argument("case", metavar="CASE.toml", help="the case file (TOML or JSON)")
    p.add_argument("--lab", metavar="LAB.toml", default=None,
                   help="the laboratory's profile, as `run --lab` takes it (its criteria and "
                        "defaults count)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``forensic-lr check CASE``: print what a final report still lacks."""
    from ..casework.checklist import check_case, format_problems
    from ..casework.spec import load_case

    missing: list[str] = []
    spec = load_case(args.case, missing_files=missing, lab=args.lab)
    checklist = check_case(spec, read_inputs=not missing)
    quiet = getattr(args, "quiet", False)
    if not quiet:
        for r in checklist.inputs:
            what = "comparisons" if r.section == "measurements" else "scores"
            print(f"read [{r.section}] {r.key} = {r.file!r}: {r.n:,} {what}")
    if checklist.ready and not missing:
        if not quiet:
            print(f"{args.case}: ready for a final report")
            for note in checklist.notes:
                print(f"  recorded when known: {note}")
        return EXIT_OK
    fields = f"{len(checklist.problems)} field(s) to fill"
    draft = "or run with --draft for a report marked DRAFT"
    if missing:
        fields += f" and {len(missing)} missing file(s)"
        draft += ", once the files exist"
    print(f"{args.case}: not ready for a final report; {fields} ({draft}):")
    print(format_problems(checklist.problems))
    for message in missing:
        print(f"  - {message}")
    if not quiet:
        for note in checklist.notes:
            print(f"  recorded when known: {note}")
    return EXIT_USER_ERROR
