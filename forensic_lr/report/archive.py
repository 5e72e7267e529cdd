"""What an archival report PDF carries besides its pages: its record and its metadata.

Reports are written as PDF/A-3b (ISO 19005-3, level B: the pages look the same wherever
and whenever they are opened; fonts embedded, colours in sRGB, metadata in XMP), which
allows files of any type to be embedded as *associated files*. The run's record
(``result.json``, or ``validation.json`` for a validation study) is embedded byte for byte,
with the relationship ``Data`` (ISO 32000-2, 7.11.3: the data the pages present), so the
report file itself holds what ``forensic-lr verify`` checks.

The metadata are the document information dictionary and its XMP copy (title, author,
subject, keywords, creator tool, creation date), kept in standard schemas only (Dublin
Core, XMP basic, Adobe PDF), which PDF/A validators accept without extension schemas.
Every value derives from the record, never from the clock, so the PDF stays reproducible.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

__all__ = ["ARCHIVE_VARIANT", "Archive", "EmbeddedFile", "case_archive", "study_archive"]

#: The PDF variant of every report (weasyprint's name for PDF/A-3, conformance level B).
ARCHIVE_VARIANT = "pdf/a-3b"

#: The date an attachment carries when its record names none (the reference date of
#: reproducible builds, SOURCE_DATE_EPOCH = 0).
_NO_DATE = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


@dataclass(frozen=True)
class EmbeddedFile:
    """One associated file: its name in the PDF, its bytes and a one-line description."""

    name: str
    content: bytes
    description: str


@dataclass(frozen=True)
class Archive:
    """A report's metadata and associated files (see the module docstring).

    ``created`` is a W3C date (``"2026-03-02"``) or None; it dates the document and its
    associated files.
    """

    title: str
    authors: tuple[str, ...]
    subject: str
    keywords: tuple[str, ...]
    creator: str
    created: str | None
    files: tuple[EmbeddedFile, ...]

    @property
    def file_date(self) -> datetime.datetime:
        """The creation and modification date of the associated files."""
        if self.created is None:
            return _NO_DATE
        return datetime.datetime.fromisoformat(self.created).replace(tzinfo=datetime.UTC)


def _iso_date(text) -> str | None:
    """``text`` as a W3C date when it is one (a date or ``YYYY-MM-DD``), else None."""
    if isinstance(text, datetime.date):
        return text.isoformat()
    try:
        return datetime.date.fromisoformat(str(text or "").strip()).isoformat()
    except ValueError:
        return None


def case_archive(result, record: bytes) -> Archive:
    """The archive of a case report: ``record`` is the run's ``result.json`` bytes.

    ``result`` is the :class:`~forensic_lr.records.CaseResult` the record serialises.
    """
    case = result.case
    laboratory = case.laboratory or (result.lab.name if result.lab else "")
    software = f"forensic-lr {result.provenance.software.get('forensic-lr', 'unknown')}"
    kind = "Draft evaluative report (not for court)" if result.draft else "Evaluative report"
    subject = f"{kind} {result.report_id}, case {case.id}"
    if laboratory:
        subject += f", {laboratory}"
    keywords = [f"case {case.id}", f"report {result.report_id}"]
    keywords += [f"laboratory {laboratory}"] if laboratory else []
    keywords += [f"examiner {case.examiner}"] if case.examiner else []
    keywords += [f"date {case.date.isoformat()}"] if case.date else []
    keywords += [software, "likelihood ratio"]
    return Archive(
        title=f"{kind} {result.report_id}: case {case.id}",
        authors=(case.examiner,) if case.examiner else (),
        subject=subject,
        keywords=tuple(keywords),
        creator=software,
        created=_iso_date(case.date),
        files=(EmbeddedFile("result.json", record,
                            "the run's record: inputs' SHA-256, configuration and results"),),
    )


def study_archive(study, record: bytes) -> Archive:
    """The archive of a validation-study report: ``record`` is ``validation.json``'s bytes.

    ``study`` is the :class:`~forensic_lr.records.ValidationStudy` the record serialises.
    """
    about = {k: v for k, v in (study.about or {}).items() if v}
    title = about.get("title") or "Validation study"
    software = f"forensic-lr {study.software.get('forensic-lr', 'unknown')}"
    laboratory = about.get("laboratory", "")
    keywords = [f"laboratory {laboratory}"] if laboratory else []
    keywords += [f"date {about['date']}"] if about.get("date") else []
    keywords += [software, "validation", "likelihood ratio"]
    return Archive(
        title=f"Validation study: {title}" if about.get("title") else title,
        authors=(about["analyst"],) if about.get("analyst") else (),
        subject="Validation study" + (f", {laboratory}" if laboratory else ""),
        keywords=tuple(keywords),
        creator=software,
        created=_iso_date(about.get("date")),
        files=(EmbeddedFile("validation.json", record,
                            "the study's record: inputs' SHA-256, settings and metrics"),),
    )
