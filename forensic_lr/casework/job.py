"""A case file read, checked and run: the sequence that every face of a case shares.

``forensic-lr run`` (one case or a batch), ``forensic-lr verify --case`` and the web app
all do the same thing with a case file: read it (with the lab profile and the method
chosen on the command line or in a form), refuse a final report that the checklist says
is not ready unless a draft was asked for, run the case and mark a draft as such.
:func:`open_case` does the first half (quick: it reads no score file) and returns a
:class:`CaseJob`; its :meth:`CaseJob.run` does the long half. Between the two the caller
may lock its output (the inputs that must not be overwritten are
:attr:`CaseJob.inputs`) or ask a signing passphrase. Rendering is the report layer's:
``forensic_lr.report.build_report(run, job.formats)``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ForensicLRWarning, InputError
from ..records import Review
from ..resampling import Progress
from .checklist import Checklist, check_case, format_problems, mark_draft
from .pipeline import CaseRun, run_case_full
from .spec import CaseSpec, load_case

__all__ = ["FORMATS", "CaseJob", "open_case"]

#: The report formats a case can be rendered to.
FORMATS = ("pdf", "html", "json")


@dataclass(frozen=True, eq=False)
class CaseJob:
    """A case file read and checked, ready to run.

    Attributes
    ----------
    case_file : Path
        The case file as given.
    spec : CaseSpec
        The case as validated (lab profile and overrides applied).
    checklist : Checklist
        What a final report still lacks (:func:`~forensic_lr.casework.checklist.check_case`).
    draft : bool
        Mark the run as a draft ("DRAFT - not for court" on every page).
    formats : tuple of str
        The report formats to render (from :data:`FORMATS`).
    lab : Path or None
        The laboratory's profile given besides the case file.
    """

    case_file: Path
    spec: CaseSpec
    checklist: Checklist
    draft: bool = False
    formats: tuple[str, ...] = FORMATS
    lab: Path | None = None

    @property
    def inputs(self) -> tuple[Path, ...]:
        """Every file the case reads (case file, score files, template folder, scale file,
        lab profile): an output folder may hold none of them."""
        return (self.case_file, *self.spec.input_paths(), *([self.lab] if self.lab else []))

    def run(self, progress: Progress | None = None, review: Review | None = None) -> CaseRun:
        """Run the case (:func:`~forensic_lr.casework.run_case_full`), marked as a draft
        when :attr:`draft` (:func:`~forensic_lr.casework.checklist.mark_draft`), with a
        technical reviewer's approval of its results when ``review`` gives one (the report's
        sign-off block prints it; the numbers do not depend on it).

        The run's warnings are not raised: their texts are in ``run.result.warnings``,
        which every face shows.
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ForensicLRWarning)
            run = run_case_full(self.spec, progress=progress)
        if review is not None:
            run = dataclasses.replace(run, result=run.result.model_copy(
                update={"review": review}))
        return mark_draft(run, self.checklist) if self.draft else run


def open_case(
    case_file: str | Path,
    *,
    lab: str | Path | None = None,
    calibrator: str | None = None,
    elub: bool | None = None,
    bounds: str | None = None,
    draft: bool = False,
    formats: Sequence[str] | None = None,
    case_folders: tuple[Path, ...] = (),
    language: str | None = None,
) -> CaseJob:
    """Read and check a case file; the :class:`CaseJob` that runs it.

    Parameters
    ----------
    case_file : path
        The case file (TOML or JSON).
    lab : path, optional
        The laboratory's profile (wins over the case's ``[report] lab_profile``).
    calibrator, elub, bounds : optional
        The method's calibrator, bounding switch and bounds rule, overriding the case
        file's ``[method]`` (as ``run --calibrator/--elub/--bounds``).
    draft : bool
        Allow a case that is not ready for a final report; the run is marked a draft.
    formats : sequence of {"pdf", "html", "json"}, optional
        Default: the case's ``[report] formats``.
    case_folders : tuple of Path
        The other case folders of a batch (a lab profile inside one is a case's own).
    language : {"en", "es", "de", "fr", "nl", "sv"}, optional
        The report's language, overriding ``[report] language`` (as ``run --language``).

    Raises
    ------
    InputError
        The case file cannot be read or validated; it is not ready for a final report
        and ``draft`` is False (the message lists every field to fill); no or an unknown
        report format.
    """
    method = {k: v for k, v in (("calibrator", calibrator), ("elub", elub), ("bounds", bounds))
              if v is not None}
    overrides = {"method": method} if method else {}
    if language is not None:
        overrides["report"] = {"language": language}
    spec = load_case(case_file, lab=lab, overrides=overrides or None, case_folders=case_folders)
    checklist = check_case(spec, read_inputs=False)
    if not checklist.ready and not draft:
        raise InputError(
            f"{case_file}: not ready for a final report; fill these {len(checklist.problems)} "
            f"field(s), or add --draft for a report marked DRAFT - not for court:\n"
            + format_problems(checklist.problems)
        )
    return CaseJob(case_file=Path(case_file), spec=spec, checklist=checklist, draft=draft,
                   formats=_formats(formats, spec.report.formats),
                   lab=None if lab is None else Path(lab))


def _formats(given: Sequence[str] | None, default: Sequence[str]) -> tuple[str, ...]:
    """The formats asked for, else the case's; none, or one not in :data:`FORMATS`, is an
    error."""
    if given is None:
        if not default:  # with --force it would replace the last report set by nothing
            raise InputError("[report] formats is empty; list at least one of pdf, html, json "
                             '(e.g. formats = ["pdf", "json"]) or give --format')
        return tuple(default)
    bad = [f for f in given if f not in FORMATS]
    if bad or not given:
        raise InputError(f"formats {list(given)!r}: use one or more of pdf, html, json")
    return tuple(dict.fromkeys(given))
