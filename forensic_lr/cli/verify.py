"""``forensic-lr verify REPORT.pdf [--case CASE | --study FILES] [--lab LAB.toml]``: check a
report file.

Validates the report's signatures (:func:`forensic_lr.casework.signing.check_signatures`),
reads the record the report embeds (:func:`forensic_lr.casework.verify.read_report`) and
says what it is; with ``--case`` re-runs the case and compares inputs, record and PDF
(:func:`forensic_lr.casework.verify.check_against_case`); with ``--study`` re-runs a
validation study (:func:`forensic_lr.casework.verify.check_against_study`).
``--trust CERT.pem`` (repeatable) checks each signer's certificate against trust anchors.
Exit 0 when everything checked matches (with --trust: every signature chains to a trust
anchor), 1 when something differs or a signer is not trusted, 2 for input that cannot be
checked.
"""

from __future__ import annotations

import argparse

from .common import EXIT_OK

#: Exit status when the report differs from its record, its case or its signature.
EXIT_DIFFERS = 1


def add_parser(sub) -> None:
    """Add the ``verify`` subcommand."""
    p = sub.add_parser(
        "verify", help="check a report PDF: its embedded record and, with --case, a re-run",
        description="Extract the record a report PDF embeds and say what it is; with --case, "
        "re-run the case and compare the inputs' SHA-256, result.json and (with the same "
        "software versions) the PDF itself, byte for byte. Exit status 0 when everything "
        "checked matches, 1 when something differs, 2 when the input cannot be checked.",
    )
    p.add_argument("report", metavar="REPORT.pdf", help="the report's PDF file")
    p.add_argument("--case", metavar="CASE", default=None,
                   help="the case file (or the folder holding case.toml) to re-run")
    p.add_argument("--study", metavar="FILE_OR_FOLDER", nargs="+", default=None,
                   help="for a validation-study report: its input files, or the folder(s) "
                   "holding them (found by file name); re-runs validate --report with the "
                   "options the record keeps and compares the inputs' SHA-256, "
                   "validation.json and the PDF")
    p.add_argument("--lab", metavar="LAB.toml", default=None,
                   help="the laboratory's profile the report was made with (run --lab)")
    p.add_argument("--trust", metavar="CERT.pem", action="append", default=None,
                   help="a trust anchor (the laboratory's CA or signing certificate, PEM or "
                   "DER); repeatable. A signature is then valid only when its signer's "
                   "certificate chains to one of them; without --trust the signer is not "
                   "checked against any trust anchor")
    p.set_defaults(func=run)


def _describe(report) -> list[str]:
    """What the report is: its case and report ids (or study), state and software."""
    record = report.content
    software = record.get("provenance", {}).get("software") or record.get("software") or {}
    lines = []
    if report.is_case_report:
        case = record.get("case", {})
        state = "draft, not for court" if record.get("draft") else "final"
        lines.append(f"case {case.get('id')}, report {record.get('report_id')} ({state})")
        if case.get("laboratory"):
            lines.append(f"laboratory: {case['laboratory']}")
        if case.get("examiner"):
            lines.append(f"examiner: {case['examiner']}")
        if case.get("date"):
            lines.append(f"date: {case['date']}")
    else:
        about = record.get("about") or {}
        lines.append(f"validation study{': ' + about['title'] if about.get('title') else ''}")
    made = ", ".join(f"{name} {version}" for name, version in software.items())
    lines.append(f"made with: {made or 'no versions recorded'}")
    return lines


def _print_finding(finding) -> None:
    mark = {True: "ok", False: "DIFFERS", None: "note"}[finding.ok]
    print(f"  {mark:<7} {finding.text}")


def run(args: argparse.Namespace) -> int:
    """``forensic-lr verify REPORT.pdf``: print the verdict; 0 matches, 1 differs."""
    from ..casework.signing import check_signatures, load_trust_anchors, validation_data
    from ..casework.verify import Finding, check_against_case, read_report

    trust = load_trust_anchors(args.trust) if args.trust else None
    report = read_report(args.report)
    print(f"{args.report}: embeds {report.record_name}")
    for line in _describe(report):
        print(f"  {line}")
    signatures = check_signatures(report.data, trust)
    findings = [Finding("signature", s.ok, s.text) for s in signatures]
    lta = validation_data(report.data) if signatures else None
    if lta:
        findings.append(Finding("signature", None, lta))
    if not signatures:
        print("  signature: unsigned")
        if report.revisions > 1:
            findings.append(Finding("integrity", False, f"the file has {report.revisions} "
                                    "revisions: it was changed after forensic-lr wrote it"))
    if args.case is not None and args.study is not None:
        from ..errors import InputError

        raise InputError("give --case for a case report or --study for a validation-study "
                         "report, not both")
    if args.study is not None:
        from ..casework.verify import check_against_study
        from .validate import rerun_report

        findings += check_against_study(report, args.study, rerun=rerun_report)
    if args.case is not None:
        from ..report import build_report

        findings += check_against_case(
            report, args.case, lab=args.lab,
            render=lambda run: build_report(run, ("pdf",))["report.pdf"])
    for finding in findings:
        _print_finding(finding)
    differs = [f for f in findings if f.ok is False]
    if differs:
        print(f"verdict: DIFFERS - {differs[0].text.partition(' (')[0]}")
        return EXIT_DIFFERS
    if args.study is not None:
        print("verdict: the report matches its study")
    elif args.case is None:
        print("verdict: record read; give --case (a case report) or --study (a validation-"
              "study report) to re-run and compare")
    else:
        print("verdict: the report matches its case")
    return EXIT_OK
