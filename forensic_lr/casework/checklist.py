"""Is a case file ready for a final report? Placeholders and missing fields, by section and key.

:func:`check_case` compares a validated :class:`~forensic_lr.casework.spec.CaseSpec` with the
template ``forensic-lr init`` writes (:func:`~forensic_lr.casework.spec.case_template`) and
with the fields a report that an examiner signs must carry, and reads every input file the
case names. ``forensic-lr check`` prints the result; ``forensic-lr run`` refuses a case with
problems unless ``--draft``, which marks the report (:func:`mark_draft`).

Required for a final report (ENFSI guideline for evaluative reporting, 2015, sections 2-4;
ISO 21043-4/-5; Morrison et al. 2021, consensus on validation of forensic voice comparison):
the scoring system's name, version and settings; the relevant population, why it is the
relevant one and how many sources as well as comparisons stand behind it; the examiner; the
report date; the validation study the method rests on (identifier and date); the
laboratory's validation criteria (in the case file or the lab profile: without them the
metrics describe the method but nothing decides whether it is fit for the case); for every
item, its seal, its condition on receipt, when it was received and what was examined. Recorded
when known, never a reason to refuse: the technical reviewer (a review is a later step) and
the software's source revision ("unknown" for an installed package).
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from dataclasses import dataclass
from typing import Any

from ..i18n.messages import english
from ..records import Message
from .spec import CaseSpec, case_template

__all__ = ["Checklist", "Finding", "InputRead", "check_case", "format_problems", "mark_draft",
           "read_case_inputs"]


@dataclass(frozen=True)
class Finding:
    """One field of the case file: ``[section] key: message``.

    ``code`` and ``params``: the message as a code of the ``messages`` catalogue (a draft
    report prints it in its language); empty for a note without one.
    """

    section: str
    key: str
    message: str
    code: str = ""
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def coded(cls, section: str, key: str, code: str, **params: str) -> Finding:
        """A finding whose message is the English sentence of ``code``."""
        return cls(section, key, english(code, **params), code, tuple(params.items()))

    def __str__(self) -> str:
        return f"[{self.section}] {self.key}: {self.message}"


@dataclass(frozen=True)
class InputRead:
    """An input file the case names, read as the run would read it."""

    section: str
    key: str
    file: str
    n: int


@dataclass(frozen=True)
class Checklist:
    """What ``forensic-lr check`` found.

    Attributes
    ----------
    problems : tuple of Finding
        Placeholders left from the template and fields a final report requires; any of
        them makes ``run`` refuse without ``--draft``.
    notes : tuple of Finding
        Fields recorded when known (technical reviewer, source revision); never a reason
        to refuse.
    inputs : tuple of InputRead
        Every input file read, with its number of values (empty when not read).
    """

    problems: tuple[Finding, ...]
    notes: tuple[Finding, ...]
    inputs: tuple[InputRead, ...] = ()

    @property
    def ready(self) -> bool:
        """True when nothing stands between this case file and a final report."""
        return not self.problems


@functools.cache
def _template() -> dict[str, Any]:
    return tomllib.loads(case_template())


def _placeholders(spec: CaseSpec) -> list[Finding]:
    """Values still equal to the template's examples (the case id, generic propositions)."""
    t = _template()
    found = []
    if spec.case.id == t["case"]["id"]:
        found.append(Finding.coded("case", "id", "checklist.placeholder.case_id",
                                   value=repr(spec.case.id)))
    props = spec.propositions
    for pair in props.comparison or (props,):
        for key in ("hp", "hd"):
            if getattr(pair, key).strip() == t["propositions"][key]:
                found.append(Finding.coded(
                    "propositions", key if pair is props else f"comparison {pair.label} {key}",
                    "checklist.placeholder.proposition"))
    return found


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


#: (section, key) of every field a final report requires (the case file's ``[section] key``,
#: the spec's ``spec.section.key``); what to write is the messages catalogue's
#: ``checklist.required.<section>.<key>``.
_REQUIRED = (
    ("case", "examiner"),
    ("case", "date"),
    ("evidence", "description"),
    ("system", "name"),
    ("system", "version"),
    ("system", "settings"),
    ("background", "description"),
    ("background", "population"),
    ("background", "population_justification"),
    ("background", "sources"),
    ("validation", "study_id"),
    ("validation", "study_date"),
)

#: Sections in the order of the case file (problems are listed in it).
_ORDER = ("case", "propositions", "evidence", "background", "system", "validation")

#: Custody fields of every item (what to write: ``checklist.required.item.<key>``).
_ITEM_FIELDS = ("seal", "condition", "received", "examined")


def _missing(spec: CaseSpec) -> list[Finding]:
    found = []
    if not spec.evidence.values:
        found.append(Finding.coded("evidence", "score", "checklist.required.evidence.score"))
    for section, key in _REQUIRED:
        if _blank(getattr(getattr(spec, section), key)):
            found.append(Finding.coded(section, key, f"checklist.required.{section}.{key}"))
    if not any(v is not None for v in spec.validation.criteria.model_dump().values()):
        found.append(Finding.coded("validation", "criteria",
                                   "checklist.required.validation.criteria"))
    items = spec.case.items
    if not items:
        found.append(Finding.coded("case", "items", "checklist.required.case.items"))
    for i, item in enumerate(items):
        for key in _ITEM_FIELDS:
            if _blank(getattr(item, key)):
                found.append(Finding.coded("case", f"items[{i}] ({item.id}) {key}",
                                           f"checklist.required.item.{key}"))
    return found


def _notes(spec: CaseSpec, revision: str) -> list[Finding]:
    notes = []
    if _blank(spec.case.reviewer):
        notes.append(Finding("case", "reviewer", "not recorded (the technical review is a later "
                             "step that adds its sign-off)"))
    notes.append(Finding("provenance", "source revision", revision if revision != "unknown"
                         else "unknown (an installed package has no source checkout)"))
    return notes


def read_case_inputs(spec: CaseSpec) -> tuple[InputRead, ...]:
    """Read every score file the case names, as ``run`` reads it; errors name the file and line.

    The same reader as the case pipeline (:func:`~forensic_lr.casework.inputs.load_background`
    and :func:`~forensic_lr.casework.inputs.load_extra_inputs`): the case's score and label
    columns, decimal separator, sheet and source column apply, so a file ``run`` accepts is
    read here and one it refuses is refused with the same message.

    Raises
    ------
    InputError
        A file that cannot be read as scores (the reader's message, with the case key).
    """
    from .inputs import load_background, load_extra_inputs

    _, summaries, hashes, files = load_background(spec)
    _, extra = load_extra_inputs(spec, hashes, files)
    bg = spec.background
    if spec.measurements is not None:
        m = spec.measurements
        reads = [InputRead("measurements", "database", m.database,
                           summaries["ss"].n + summaries["ds"].n)]
    elif bg.scores is not None:
        reads = [InputRead("background", "scores", bg.scores,
                           summaries["ss"].n + summaries["ds"].n)]
    else:
        reads = [InputRead("background", k, getattr(bg, k), summaries[k].n) for k in ("ss", "ds")]
    reads += [InputRead("background", key, s.file, s.n) for key, s in extra.items()]
    return tuple(reads)


def check_case(spec: CaseSpec, *, read_inputs: bool = True) -> Checklist:
    """Placeholders, missing final-report fields and (optionally) every input file read.

    Parameters
    ----------
    spec : CaseSpec
        A case file as :func:`~forensic_lr.casework.load_case` validated it.
    read_inputs : bool
        Also read every score file (:func:`read_case_inputs`); its errors raise.

    Returns
    -------
    Checklist
        ``problems`` (by section in case-file order, placeholders first) and
        ``notes``; ``ready`` when there are no problems.
    """
    from ..provenance import source_revision

    inputs = read_case_inputs(spec) if read_inputs else ()
    problems = sorted(_placeholders(spec) + _missing(spec), key=lambda f: _ORDER.index(f.section))
    return Checklist(
        problems=tuple(problems),
        notes=tuple(_notes(spec, source_revision())),
        inputs=inputs,
    )


def format_problems(problems, indent: str = "  - ") -> str:
    """One line per problem: ``[section] key: what to write``."""
    return "\n".join(f"{indent}{p}" for p in problems)


def mark_draft(run, checklist: Checklist):
    """The case run marked as a draft, with what a final report still lacks.

    ``result.draft`` is True and ``result.draft_reasons`` lists the checklist's problems;
    the report prints "DRAFT - not for court" on every page.
    """
    result = run.result.model_copy(update={
        "draft": True, "draft_reasons": tuple(str(p) for p in checklist.problems),
        "draft_reason_messages": tuple(
            Message(code=p.code, params={"section": p.section, "key": p.key, **dict(p.params)})
            for p in checklist.problems),
    })
    return dataclasses.replace(run, result=result)
