"""``forensic-lr run A/case.toml B/case.toml ... --out DIR``: several cases in one go.

Each case is run as ``forensic-lr run`` runs one (the same check, ``--draft`` and
``--format``) into ``DIR/<case id>/``; ``DIR/summary.csv`` and ``DIR/summary.json`` list every
case's status (``final``, ``draft`` or ``failed``), its conclusion (``reported``,
``withheld`` or ``overridden``) with the reasons, its LRs, warnings and error. A withheld
case gives no opinion, so its summary lines carry no LR and no verbal equivalent (the
computed values are in its own ``result.json``). A case that fails
does not stop the others: they are still written, and the exit status is 2. The folder is
committed as a whole (all or nothing, like one case).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..errors import ForensicLRError, InputError, excerpt
from .common import EXIT_OK, EXIT_USER_ERROR, Stages, format_option, method_overrides

__all__ = ["run_batch"]

#: The files a batch writes beside the cases' folders.
BATCH_FILES = ("summary.csv", "summary.json")

SUMMARY_COLUMNS = ("case_file", "case_id", "folder", "status", "conclusion", "reasons",
                   "label", "score", "lr", "log10_lr", "verbal", "warnings", "error")


class _Prefixed:
    """A staged progress whose stage names start with the case id."""

    def __init__(self, stages: Stages, prefix: str) -> None:
        self.stages, self.prefix = stages, prefix

    def for_stage(self, name: str):
        return self.stages.for_stage(f"{self.prefix}: {name}")


def _folder_name(case_id: str, taken: set[str]) -> str:
    """The case id as a folder name (``/`` and spaces become ``_``), unique in the batch."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", case_id).strip("._") or "case"
    name, k = base, 2
    while name.lower() in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name.lower())
    return name


def _refuse_reserved_ids(specs: dict[str, object]) -> None:
    """A case whose folder would take the name of the batch's own files is refused before
    any work (the batch could not write ``summary.json`` beside a folder of that name)."""
    taken: set[str] = set()
    for case, spec in specs.items():
        folder = _folder_name(spec.case.id, taken)
        if folder.lower() in BATCH_FILES:
            raise InputError(
                f"[case] id {excerpt(spec.case.id)} would name the folder {folder}, "
                f"which is one of the batch's own files ({', '.join(BATCH_FILES)}); give the "
                "case another id", path=case)


def _case_folders(args: argparse.Namespace) -> tuple[Path, ...]:
    """The folder of every case of the batch: a lab profile in one of them is a case's own
    (it sets no floor and may not widen where a case reads)."""
    return tuple(Path(case).absolute().parent for case in args.case)


def _signers(specs: dict[str, object], args: argparse.Namespace) -> dict[str, object]:
    """The signer of every laboratory profile the cases use that names a certificate, each
    loaded once before any work (its passphrase read once, from its environment variable or
    a prompt); none for drafts or a batch without PDF."""
    from ..casework.signing import profile_signer

    formats = format_option(args.format)  # None: each case's own formats
    if args.draft or (formats is not None and "pdf" not in formats):
        return {}
    signers: dict[str, object] = {}
    for spec in specs.values():
        profile = spec.lab.profile_file if spec.lab is not None else None
        if profile and profile not in signers:
            signers[profile] = profile_signer(spec)
    return {k: v for k, v in signers.items() if v is not None}


def _signed(spec, run, files: dict[str, bytes], signers: dict[str, object]) -> dict[str, bytes]:
    """``files`` with the final report's PDF signed by its laboratory's signer, if any."""
    from ..casework.signing import case_reason, sign_pdf

    signer = signers.get(spec.lab.profile_file) if spec.lab is not None else None
    if signer is None or run.result.draft or "report.pdf" not in files:
        return files
    return {**files, "report.pdf": sign_pdf(files["report.pdf"], signer,
                                            reason=case_reason(spec.case.id))}


def _one_case(case: str, args: argparse.Namespace, stages: Stages):
    """``(spec, run, files)`` of one case; raises ForensicLRError for a user mistake."""
    from ..casework.job import open_case
    from ..report import build_report

    job = open_case(case, lab=args.lab, calibrator=args.calibrator, elub=args.elub,
                    bounds=args.bounds,
                    language=args.language,
                    draft=args.draft, formats=format_option(args.format),
                    case_folders=_case_folders(args))
    run = job.run(progress=_Prefixed(stages, job.spec.case.id))
    with stages.stage(f"{job.spec.case.id}: rendering"):
        files = build_report(run, job.formats)
    return job.spec, run, files


def _case_row(result) -> dict:
    """A case's summary entry: status, conclusion with reasons, LRs, warnings.

    A withheld case gives no opinion: its LR, log10 LR and verbal equivalent are None (the
    computed values stay in the case's ``result.json``, marked there as not reported).
    """
    conclusion = result.conclusion
    status = conclusion.status if conclusion is not None else "reported"
    withheld = status == "withheld"
    return {
        "status": "draft" if result.draft else "final",
        "conclusion": status,
        "reasons": list(conclusion.reasons) if conclusion is not None else [],
        "results": [{"label": r.label, "score": r.score,
                     "lr_text": None if withheld else r.lr_text,
                     "log10_lr": None if withheld else round(r.log10_lr, 4),
                     "verbal": None if withheld else r.verbal.level}
                    for r in result.results],
        "warnings": list(result.warnings),
    }


def _summary_files(rows: list[dict], csv_locale: str = "en") -> dict[str, bytes]:
    """``summary.json`` (one entry per case) and ``summary.csv`` (one line per LR).

    ``csv_locale``: the spreadsheet conventions of summary.csv (``--csv-locale``; ``;``
    and the locale's decimal mark in the score and log10 LR, the LR as the locale writes
    it; :func:`forensic_lr.i18n.spreadsheet.csv_text`). summary.json never changes.
    """
    from ..i18n.formatting import localized
    from ..i18n.spreadsheet import csv_text
    from ..records import dumps

    lines = [list(SUMMARY_COLUMNS)]
    for row in rows:
        base = {k: row[k] for k in ("case_file", "case_id", "folder", "status", "conclusion")}
        base["reasons"] = " | ".join(row["reasons"])
        base["warnings"] = " | ".join(row["warnings"])
        base["error"] = row["error"]
        for r in row["results"] or [{}]:
            line = {**base, "label": r.get("label", ""), "score": r.get("score", ""),
                    "lr": localized(r.get("lr_text") or "", csv_locale),
                    "log10_lr": r.get("log10_lr"), "verbal": r.get("verbal") or ""}
            lines.append([line[k] for k in SUMMARY_COLUMNS])
    return {"summary.json": dumps({"cases": rows}).encode("utf-8"),
            "summary.csv": csv_text(lines, csv_locale).encode("utf-8")}


def run_batch(args: argparse.Namespace) -> int:
    """Run every case file of ``args.case`` into its own sub-folder of ``args.out``."""
    from ..casework.spec import load_case
    from ..output import OutputFolder

    stages = Stages(args)
    inputs: list = [args.lab] if args.lab else []
    specs = {}
    for case in args.case:  # the output folder may hold none of the cases' inputs
        inputs.append(case)
        try:
            specs[case] = load_case(case, lab=args.lab, overrides=method_overrides(args),
                                    case_folders=_case_folders(args))
        except ForensicLRError:
            continue  # reported with the case below
        inputs += specs[case].input_paths()
    _refuse_reserved_ids(specs)
    signers = _signers(specs, args)  # before the long work
    rows, files, taken = [], {}, set()
    with OutputFolder(Path(args.out), force=args.force, inputs=inputs) as target:
        for case in args.case:
            row = {"case_file": case, "case_id": "", "folder": "", "status": "failed",
                   "conclusion": "", "reasons": [], "results": [], "warnings": [], "error": ""}
            try:
                spec, run, case_files = _one_case(case, args, stages)
            except ForensicLRError as exc:
                row["error"] = str(exc)
                rows.append(row)
                continue
            case_files = _signed(spec, run, case_files, signers)
            folder = _folder_name(spec.case.id, taken)
            files.update({f"{folder}/{name}": data for name, data in case_files.items()})
            row.update(case_id=spec.case.id, folder=folder, **_case_row(run.result))
            rows.append(row)
        files.update(_summary_files(rows, args.csv_locale or "en"))
        target.commit(files)
    stages.finish()
    failed = [r for r in rows if r["status"] == "failed"]
    if not args.quiet:
        for row in rows:
            if row["status"] == "failed":
                continue
            if row["conclusion"] == "withheld":
                lrs = (f"conclusion withheld ({len(row['reasons'])} reason(s); see its "
                       "report, page 1)")
            else:
                lrs = "; ".join(f"{r['label']} LR = {r['lr_text']}" for r in row["results"])
            print(f"{row['case_id']} ({row['status']}): {lrs}"
                  + (f"; {len(row['warnings'])} warning(s)" if row["warnings"] else ""))
        print(f"wrote {len(rows) - len(failed)} of {len(rows)} case(s) and summary.csv, "
              f"summary.json to {args.out}")
    for row in failed:
        print(f"forensic-lr: error: {row['case_file']}: case not written:\n{row['error']}",
              file=sys.stderr)
    return EXIT_USER_ERROR if failed else EXIT_OK
