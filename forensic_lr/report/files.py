"""Write a case report or a validation report into a folder, from Python.

The same files as ``forensic-lr run`` and ``forensic-lr validate --report`` write, through
the same output folder rules (:class:`forensic_lr.output.OutputFolder`: checked, locked,
written all or nothing, a previous report set replaced only with ``force=True``, never a
folder holding one of the inputs).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import ForensicLRError, InputError
from ..output import OutputFolder
from ..records import CaseResult, ValidationStudy
from . import build_report
from .validation import build_validation_report

__all__ = ["write_case_report", "write_validation_report"]


def write_case_report(run, folder: str | Path, *, formats: Sequence[str] | None = None,
                      force: bool = False) -> list[Path]:
    """Render a case run and write its report files into ``folder``.

    Parameters
    ----------
    run : forensic_lr.casework.pipeline.CaseRun
        A finished run, as :func:`forensic_lr.run_case_full` returns it (the record and
        the arrays its figures are drawn from).
    folder : path
        The output folder; created if missing.
    formats : sequence of {"pdf", "html", "json"}, optional
        Default: the case's ``[report] formats``.
    force : bool
        Replace a report set written there before.

    Returns
    -------
    list of Path
        The files written: ``report.pdf``, ``report.html``, ``result.json`` (as asked) and
        ``figures/*.svg``. A run that is not a draft must be ready for a final report
        (the checklist of ``forensic-lr check``), else InputError lists what it lacks;
        ``forensic_lr.casework.open_case(case_file, draft=True).run()`` gives a draft run,
        marked DRAFT - not for court. The PDF is signed when the laboratory profile names a
        certificate (``[signing]``), as on the command line; a draft is never signed.
    """
    if isinstance(run, CaseResult):
        raise ForensicLRError(
            "write_case_report needs the case run with the arrays its figures are drawn "
            "from: pass forensic_lr.run_case_full(case) (its .result is this record), not "
            "run_case's record"
        )
    if not run.result.draft:
        _refuse_unready(run.spec)
    formats = tuple(run.spec.report.formats if formats is None else formats)
    inputs = [*run.spec.input_paths(),
              *([run.spec.lab.profile_file] if run.spec.lab and run.spec.lab.profile_file
                else [])]
    with OutputFolder(folder, force=force, inputs=inputs, option="folder",
                      force_hint="force=True") as target:
        files = build_report(run, formats)
        if "pdf" in files and not run.result.draft:
            files["report.pdf"] = _signed(run, files["report.pdf"])
        return target.commit(files)


def _refuse_unready(spec) -> None:
    """A final report of a case the checklist says is not ready is refused, as on the
    command line (:func:`~forensic_lr.casework.checklist.check_case`)."""
    from ..casework.checklist import check_case, format_problems

    checklist = check_case(spec, read_inputs=False)
    if not checklist.ready:
        raise InputError(
            f"case {spec.case.id}: not ready for a final report; fill these "
            f"{len(checklist.problems)} field(s) in the case file, or write a report marked "
            "DRAFT - not for court from a draft run, "
            "forensic_lr.casework.open_case(case_file, draft=True).run():\n"
            + format_problems(checklist.problems)
        )


def _signed(run, pdf: bytes) -> bytes:
    """``pdf`` signed by the certificate the lab profile names, else as it is."""
    from ..casework.signing import case_reason, profile_signer, sign_pdf

    signer = profile_signer(run.spec)
    if signer is None:
        return pdf
    return sign_pdf(pdf, signer, reason=case_reason(run.spec.case.id))


def write_validation_report(study: ValidationStudy, folder: str | Path, *,
                            formats: Sequence[str] = ("pdf", "html", "json"),
                            direction: str = "higher_is_similar", language: str = "en",
                            force: bool = False) -> list[Path]:
    """Render a validation study and write its report files into ``folder``.

    Parameters
    ----------
    study : ValidationStudy
        As :func:`forensic_lr.run_validation_study` returns it (with the arrays behind its
        figures; a study read back from JSON has none).
    folder : path
        The output folder; created if missing.
    formats : sequence of {"pdf", "html", "json"}
        ``validation_report.pdf``, ``validation_report.html``, ``validation.json``; the
        figures (``figures/*.svg``) come with either report.
    direction : {"higher_is_similar", "lower_is_similar"}
        How the raw scores were measured (distances are drawn as measured).
    language : str
        The report's language (:data:`forensic_lr.i18n.SUPPORTED_LANGUAGES`).
    force : bool
        Replace a report set written there before.

    Returns
    -------
    list of Path
        The files written.
    """
    with OutputFolder(folder, force=force, inputs=list(study.inputs), option="folder",
                      force_hint="force=True") as target:
        files = build_validation_report(study, formats, direction=direction, language=language)
        return target.commit(files)
