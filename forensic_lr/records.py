"""The typed result records every face reads, and their one JSON serialiser.

This is the bottom layer of the package: the case pipeline
(:mod:`forensic_lr.casework`) and the validation study (:mod:`forensic_lr.validation`)
fill these records; the command line, the reports, notebooks and the web app only read
them. Records are frozen pydantic models (:class:`Record`); numeric results of the
metric kernels (e.g. :class:`forensic_lr.metrics.Evaluation`) are frozen dataclasses
that enter a record through :func:`jsonable`.

JSON rule (one place, :func:`jsonable`): standard JSON has no infinity or NaN, so every
non-finite float (inf, -inf, NaN) is written as ``null``; numpy scalars and arrays become
plain numbers and lists; keys are sorted and the text ends with a newline, so the same
record gives the same bytes. Every result object of the package has the same two methods:
``to_dict()`` (the JSON form as plain Python values, :func:`jsonable`) and ``to_json()``
(the canonical text, :func:`dumps`): records through :class:`Record`, the frozen
dataclasses of the numeric kernels through :class:`Serialisable`. A result with its own
JSON shape (e.g. base-10 bounds of natural-log values) builds that shape and passes it
through :func:`jsonable`, never a rule of its own. Code that computes with the values
reads the attributes (or ``dataclasses.asdict``), not the JSON form.
"""

from __future__ import annotations

import dataclasses
import datetime
import html
import json
import math
from collections.abc import Mapping
from pathlib import PurePath
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    WrapValidator,
    model_serializer,
    model_validator,
)

from .display import Table, Tabular, warning_notes
from .errors import ForensicLRError
from .i18n import N_
from .i18n.classes import DEFAULT_CLASSES, MAX_LABEL, ClassNames, class_labels

__all__ = [
    "CaseDetails",
    "CaseInfo",
    "CaseResult",
    "ComparisonPropositions",
    "Conclusion",
    "CriterionResult",
    "DCFRow",
    "EvidenceEvaluation",
    "EvidenceLR",
    "EvidenceResult",
    "FusedSystem",
    "FusionModel",
    "Interval",
    "Item",
    "LLRMetrics",
    "LabInfo",
    "MethodDescription",
    "MethodMetrics",
    "MethodResult",
    "NamedClasses",
    "ParamRow",
    "PolicySetting",
    "Propositions",
    "Provenance",
    "RateCount",
    "Record",
    "Review",
    "ScoreDirection",
    "ScoreSummary",
    "ScoringSystem",
    "Sensitivity",
    "SensitivityBootstrap",
    "SensitivityRow",
    "Serialisable",
    "StatedBounds",
    "StudyMethod",
    "SupportedRange",
    "ValidationResult",
    "ValidationStudy",
    "VerbalEquivalent",
    "dumps",
    "jsonable",
]

ScoreDirection = Literal["higher_is_similar", "lower_is_similar"]
#: A rule that bounds a reported LR (:data:`forensic_lr.defaults.BOUNDS_RULES`).
BoundsRule = Literal["elub", "iv", "n-source", "fixed"]
#: Each bounds rule as reports name it (texts of the report catalogue, translated where
#: printed): ELUB (Vergeer et al. 2016), invariance verification (Alberink et al. 2025),
#: the N-source bound (LR in [1/N, N]) and the laboratory's fixed bounds.
BOUNDS_TERMS: dict[str, str] = {
    "elub": N_("ELUB"),
    "iv": N_("invariance verification"),
    "n-source": N_("N-source bound"),
    "fixed": N_("fixed bounds set by the laboratory"),
}


def _text_kept(value: Any, handler: Any) -> Any:
    """A text validated as ``str``, the very object kept when it is a ``str`` subclass (a
    :class:`forensic_lr.i18n.messages.Coded` sentence keeps its code)."""
    checked = handler(value)
    return value if isinstance(value, str) else checked


#: A record's text field that keeps a coded sentence's code and parameters in memory (JSON:
#: its English text only), so that a run reads a warning's code where it was raised.
Text = Annotated[str, WrapValidator(_text_kept)]


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON types: the serialiser of every record and table.

    Pydantic models are dumped in JSON mode, dataclasses field by field, numpy scalars and
    arrays become Python numbers and lists, tuples become lists, dates ISO text, paths
    POSIX text; a non-finite float (inf, -inf, NaN) becomes None (JSON ``null``).
    """
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, PurePath):
        return value.as_posix()
    return value


def dumps(value: Any) -> str:
    """Canonical JSON text of ``value`` (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(jsonable(value), indent=2, sort_keys=True, allow_nan=False,
                      ensure_ascii=False) + "\n"


class Serialisable:
    """Mixin of the frozen result dataclasses: the JSON form of :class:`Record`.

    ``to_dict()`` is :func:`jsonable` of every field (non-finite floats as None, arrays as
    lists), ``to_json()`` its canonical text (:func:`dumps`).
    """

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (see :func:`jsonable`)."""
        return jsonable(self)

    def to_json(self) -> str:
        """Canonical JSON text (:func:`dumps`)."""
        return dumps(self)


def _short(value: Any) -> str:
    """A value for ``repr``: numbers rounded, long sequences summarised."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple) and any(isinstance(v, Record) for v in value):
        kinds = sorted({type(v).__name__ for v in value})
        return f"[{len(value)} {'/'.join(kinds)}]"
    if isinstance(value, list | tuple) and len(value) > 3:
        return f"[{len(value)} items]"
    if isinstance(value, Mapping) and len(value) > 4:
        return f"{{{len(value)} entries}}"
    if isinstance(value, Record):
        return f"{type(value).__name__}(...)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Record(BaseModel):
    """Base of every result record: frozen, no unknown fields, one JSON form."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (see :func:`jsonable`)."""
        return jsonable(self)

    def to_json(self) -> str:
        """Canonical JSON text (:func:`dumps`): the same record gives the same bytes."""
        return dumps(self)

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={_short(getattr(self, name))}" for name in type(self).model_fields
        )
        return f"{type(self).__name__}({fields})"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """A small two-column table for notebooks (sequences summarised, not printed)."""
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
            f"<td style='text-align:left'>{html.escape(_short(getattr(self, name)))}</td></tr>"
            for name in type(self).model_fields
        )
        return f"<table><caption>{type(self).__name__}</caption>{rows}</table>"


# --------------------------------------------------------------------------- what the case is


class Item(Record):
    """An item received and examined (e.g. a recording, a fragment)."""

    id: str = Field(min_length=1)
    description: str = ""
    received: str = Field(default="", description="when and how it was received")
    examined: str = Field(default="", description="what was examined, e.g. '2 min 40 s of speech'")
    seal: str = Field(default="", description="seal or package number as received")
    condition: str = Field(default="", description="condition on receipt, e.g. 'seal intact'")


class CaseInfo(Record):
    """``[case]``: who asked what, about which items."""

    id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._/ -]*$")
    report_id: str | None = Field(
        default=None, description="defaults to '<case id>-R1'", max_length=100
    )
    title: str = ""
    laboratory: str = ""
    examiner: str = ""
    date: datetime.date | None = None
    requester: str = ""
    instructions: str = Field(default="", description="the questions the requester asked")
    conditioning: str = Field(default="", description="conditioning (case) information used")
    items: tuple[Item, ...] = ()
    declaration: str = Field(
        default="", description="the examiner's declaration; empty: the report's standard one"
    )
    reviewer: str = Field(default="", description="technical reviewer, when known")

    @property
    def effective_report_id(self) -> str:
        return self.report_id or f"{self.id}-R1"


class ScoringSystem(Record):
    """``[system]``: the scoring system that produced every score of the case."""

    name: str = Field(default="", description="e.g. the automatic speaker recognition system")
    version: str = ""
    settings: str = Field(default="", description="settings and models used for the scores")


class CaseDetails(Record):
    """What a final report must name beyond the numbers (scoring system, population, study).

    ``sources`` is the number of distinct sources (speakers, objects) behind the background
    comparisons, or a sentence saying why it is not known.
    """

    system: ScoringSystem = Field(default_factory=ScoringSystem)
    population: str = ""
    population_justification: str = ""
    sources: int | str | None = None
    validation_study_id: str = ""
    validation_study_date: datetime.date | str | None = None
    source_revision: str = "unknown"


class NamedClasses(Record):
    """The wording of the two classes of background trials (:mod:`forensic_lr.i18n.classes`),
    shared by a case's ``[propositions]`` and a validation study: source comparisons (the
    default, not written to JSON, so that records written before it existed keep their
    bytes), or trials of propositions that are not about sources, named by the labels."""

    classes: Literal["source", "propositions"] = Field(
        default=DEFAULT_CLASSES,
        description="what the background trials are: 'source' comparisons (same-source "
                    "trials have Hp true, different-source trials Hd true), or trials of "
                    "'propositions' that are not about sources, named by hp_class and "
                    "hd_class (docs/user/case-file.md)")
    hp_class: str | None = Field(
        default=None, min_length=1, max_length=MAX_LABEL,
        description="with classes = 'propositions': a short name of the trials with Hp "
                    "true, e.g. 'above the limit'")
    hd_class: str | None = Field(
        default=None, min_length=1, max_length=MAX_LABEL,
        description="with classes = 'propositions': a short name of the trials with Hd "
                    "true, e.g. 'at or below the limit'")

    @model_validator(mode="after")
    def _class_labels(self) -> NamedClasses:
        """hp_class and hd_class with classes = "propositions", and only then."""
        class_labels(self.classes, self.hp_class, self.hd_class)
        return self

    @model_serializer(mode="wrap")
    def _default_classes_unwritten(self, handler) -> dict[str, Any]:
        """The class wording in JSON only when it is not the default."""
        dumped = handler(self)
        if self.classes == DEFAULT_CLASSES:
            for key in ("classes", "hp_class", "hd_class"):
                dumped.pop(key, None)
        return dumped

    @property
    def class_names(self) -> ClassNames:
        """How the report names the two classes of background trials."""
        return class_labels(self.classes, self.hp_class, self.hd_class)


class ComparisonPropositions(Record):
    """``[[propositions.comparison]]``: the propositions of one comparison, by its label."""

    label: str = Field(min_length=1, description="the comparison's label, e.g. 'Q3-K1'")
    hp: str = Field(min_length=1, description="prosecution / same-source proposition")
    hd: str = Field(min_length=1, description="defence / different-source proposition")


class Propositions(NamedClasses):
    """``[propositions]``: the pair of mutually exclusive propositions.

    One pair (``hp``, ``hd``) serves a case with one comparison, or several comparisons of
    the same items; several comparisons of different items give each its own pair in
    ``[[propositions.comparison]]`` tables (``comparison``), never both forms. The
    trials' wording (``classes``, ``hp_class``, ``hd_class``): :class:`NamedClasses`.
    """

    hp: str | None = Field(default=None, min_length=1,
                           description="prosecution / same-source proposition")
    hd: str | None = Field(default=None, min_length=1,
                           description="defence / different-source proposition")
    comparison: tuple[ComparisonPropositions, ...] = Field(
        default=(), description="one pair of propositions per comparison, by label"
    )

    @model_validator(mode="after")
    def _one_form(self) -> Propositions:
        """Tables or one pair, not both; one table per label. (A case file without either
        is refused by the case file's schema, which names the missing key.)"""
        if self.comparison:
            if self.hp is not None or self.hd is not None:
                raise ValueError(
                    "give either hp and hd (one pair for every comparison) or one "
                    "[[propositions.comparison]] table per comparison, not both"
                )
            labels = [c.label for c in self.comparison]
            twice = sorted({x for x in labels if labels.count(x) > 1})
            if twice:
                raise ValueError(
                    f"[[propositions.comparison]] label {twice[0]!r} is given twice; give "
                    "each comparison one table"
                )
        return self

    def pair(self, label: str) -> ComparisonPropositions:
        """The propositions of the comparison ``label`` (the one pair, if only one is given).

        Raises KeyError for a label without a ``[[propositions.comparison]]`` table.
        """
        if not self.comparison:
            return ComparisonPropositions(label=label, hp=self.hp, hd=self.hd)
        for c in self.comparison:
            if c.label == label:
                return c
        raise KeyError(label)


# --------------------------------------------------------------------------- methods


class ParamRow(Record):
    """One fitted model quantity as a report shows it.

    ``fmt``: ``"count"``, ``"percent"``, ``"log10"`` or a number of decimals.
    """

    label: str
    value: float | int | None
    fmt: Literal["count", "percent", "log10"] | int = 3


class MethodDescription(Record):
    """What a calibration method is, in words, as the calibrator declares it."""

    name: str                    # the key used in case files and on the command line
    title: str                   # e.g. "Logistic regression calibration"
    summary: str                 # one paragraph for the report
    equation: str = ""           # the model in one line of plain text
    reference: str = ""          # the paper the method comes from
    #: how the cross-validation treats the method with folds by source, where it does more
    #: than refit on each fold's training comparisons (suspect_map: each left-out source
    #: takes the suspect's place)
    validation: str = ""


class MeasurementItem(Record):
    """A case item's measurements as the feature-based model used them."""

    id: str                 # the item id of the items file (and of [case] items)
    replicates: int         # measurements (rows) averaged into the item's mean


class MeasurementModel(Record):
    """How a case from measurements got its comparison values (``[measurements]``).

    ``typicality``: whether the values account for how common the features are in the
    population (the two-level model) or measure similarity only (a score function);
    ``typicality_statement`` says which in words for the report. ``population``: sizes of
    the database and of its comparisons (``out_of_fold``: each population comparison's
    value comes from a model fitted without its sources).
    """

    model: Literal["two_level", "score"]
    title: str
    summary: str
    reference: str = ""
    options: dict[str, float | int | bool | str | None] = Field(default_factory=dict)
    typicality: bool
    typicality_statement: str
    database: str
    database_sha256: str
    items_file: str
    items_sha256: str
    features: tuple[str, ...]
    population: dict[str, Any]
    items: tuple[MeasurementItem, ...] = ()


class FusedSystem(Record):
    """One system of a ``[fusion]`` case: its fusion weight and its performance alone.

    ``weight``: the fusion weight per score unit; ``standardised_weight``: per standard
    deviation of the system's background scores (comparable between systems). ``cllr``,
    ``min_cllr`` and ``eer``: of the system alone, its scores calibrated by logistic
    regression in the same cross-validation folds as the fusion; None, with the reason in
    ``not_computable``, when that calibration cannot be fitted in some fold (e.g. the
    system alone separates the classes).
    """

    name: str
    weight: float
    standardised_weight: float
    cllr: float | None
    min_cllr: float | None
    eer: float | None
    not_computable: str = ""


class FusionModel(Record):
    """How a ``[fusion]`` case fused several systems' scores into one LLR per comparison.

    ``intercept`` and the systems' weights are those of the fusion fitted on all background
    comparisons (``ln LR = intercept + sum weight_i s_i``); ``fused`` holds the Cllr,
    minCllr and EER of the background's out-of-fold fused LLRs (``folds_by``: folds by
    source or by comparison), ``evidence`` each comparison's scores, one per system.
    """

    method: Literal["logistic_regression"] = "logistic_regression"
    title: str
    summary: str
    equation: str
    reference: str
    prior: float
    l2: float
    intercept: float
    systems: tuple[FusedSystem, ...]
    fused: dict[str, float]
    folds_by: Literal["trial", "source"]
    evidence: tuple[tuple[float, ...], ...]
    labels: tuple[str, ...]


class MethodResult(Record):
    """The calibrator of a case as fitted on all background scores."""

    calibrator: str
    options: dict[str, float | int | bool | str]
    params: dict[str, Any]
    #: ELUB bounding applied to the reported LRs ([method] elub)
    elub_applied: bool = False
    #: the empirical bounds (log10 LR) the background supports, applied or not
    elub_log10_lr_low: float | None = None
    elub_log10_lr_high: float | None = None
    #: the LLRs the bounds come from ([method] elub_from): the cross-validated LLRs of the
    #: case's folds and seed (the validation data), or the in-sample LLRs of the fitted model
    elub_from: Literal["cross-validated", "in-sample"] = "cross-validated"
    #: the rule of the bounds ([method] bounds): ELUB (Vergeer et al. 2016), invariance
    #: verification ("iv", Alberink et al. 2025), [1/N, N] for N sources ("n-source") or the
    #: laboratory's fixed bounds ("fixed"); the ``elub_*`` fields above hold its bounds and
    #: whether they apply (their names are kept from when ELUB was the only rule)
    bounds_rule: BoundsRule = "elub"
    description: MethodDescription | None = None
    param_rows: tuple[ParamRow, ...] = ()


# --------------------------------------------------------------------------- evidence


class Message(Record):
    """A text of a record as a stable code and its parameters.

    The sentence is the code's entry in the ``messages`` catalogue of the language
    (:func:`forensic_lr.i18n.messages.message_text`); parameters are texts in the package's
    English form (numbers as ``"0.62"``, ``"95 %"``). The record keeps the English sentence
    beside it, so result.json reads the same in every report language.
    """

    code: str
    params: dict[str, str] = {}


class VerbalEquivalent(Record):
    """The verbal expression for an LR on a named scale."""

    scale: str              # key, e.g. "enfsi"
    scale_name: str         # e.g. "ENFSI Guideline for Evaluative Reporting (2015)"
    level: str              # e.g. "moderately strong support"
    favours: Literal["hp", "hd", "neither"]
    statement: str          # e.g. "moderately strong support for the first proposition ..."


class Interval(Record):
    """An interval of log10 LR (bootstrap confidence or Bayesian credible interval)."""

    method: Literal["bootstrap", "bayes"]
    level: float
    log10_lr_low: float
    log10_lr_high: float
    note: str = ""          # e.g. "12 of 1000 replicates were degenerate and were left out"
    #: the parts of ``note`` (joined by "; ") as codes and parameters (:class:`Message`)
    note_messages: tuple[Message, ...] = ()
    #: True when the interval reached the ELUB bounds and was cut there (limited)
    clipped: bool = False
    #: the model's interval before any ELUB limit (equal to the ends above when not clipped)
    log10_lr_low_unbounded: float | None = None
    log10_lr_high_unbounded: float | None = None
    #: True when the model's ends are equal as printed (two decimals of log10): every
    #: replicate gave the same value (e.g. the PAV cap). The interval is then not
    #: estimable there; reports print the value and say so.
    collapsed: bool = False


class EvidenceLR(Record):
    """The LR of one evidence score, as :func:`~forensic_lr.casework.evaluate_evidence` gives it."""

    score: float            # as given
    score_used: float       # after the score direction (negated distances)
    llr: float              # natural log, after ELUB bounding if enabled
    log10_lr: float
    lr: float               # may be inf in JSON terms when huge; reports use log10_lr
    llr_unbounded: float    # natural log before ELUB bounding
    bounded: bool           # True when ELUB changed the value
    extrapolated: bool      # score outside the background range
    interval: Interval | None = None
    #: the one statement of this LR's uncertainty: its ELUB limit with the model's value,
    #: and the model's interval (limited where it reaches the bound)
    uncertainty: str = ""
    #: the parts of ``uncertainty`` as codes and parameters
    #: (:func:`forensic_lr.i18n.messages.statement` joins them into its sentence)
    uncertainty_messages: tuple[Message, ...] = ()


class EvidenceResult(EvidenceLR):
    """The evaluation of one evidence score in a case: its LR, rounded text and words."""

    label: str
    score_text: str         # the score as written in the case file ("5.50"), else shortest
    lr_text: str            # the LR rounded for the conclusion, e.g. "3,000" or "1/20"
    #: log10 LR as printed beside it: "+3.48"; more decimals near a band edge ("+1.997")
    log10_text: str
    verbal: VerbalEquivalent
    #: Background comparisons (cross-validated LLRs) that support this LR's side at least as
    #: strongly: same-source and different-source counts (the Tippett plot's values here)
    tippett_ss: int | None = None
    tippett_ds: int | None = None


class EvidenceEvaluation(Tabular, Record):
    """A calibrator fitted on background scores and the LR of each evidence score.

    The one record behind ``forensic-lr calibrate`` and the evidence part of a case.
    ``warnings`` are the project's own warnings about this evaluation (extrapolation,
    small classes, fit diagnostics, LRs beyond the ELUB bounds when bounding is off).
    """

    method: MethodResult
    results: tuple[EvidenceLR, ...]
    interval_method: Literal["bootstrap", "bayes", "none"]
    interval_level: float
    interval_n: int
    seed: int
    warnings: tuple[Text, ...] = ()
    limitations: tuple[str, ...] = ()

    def _table(self) -> Table:
        """One row per evidence score: LR, log10 LR and its interval (``repr``, notebooks,
        ``to_frame()``)."""
        m = self.method
        elub = ("" if m.elub_log10_lr_low is None or m.elub_log10_lr_high is None else
                f", ELUB log10 LR [{m.elub_log10_lr_low:+.2f}, {m.elub_log10_lr_high:+.2f}]"
                f" {'applied' if m.elub_applied else 'not applied'}")
        interval = ("no interval" if self.interval_method == "none" else
                    f"{self.interval_method} {self.interval_level:.0%} interval")
        rows = tuple(
            (r.score, r.lr, r.log10_lr,
             None if r.interval is None else r.interval.log10_lr_low,
             None if r.interval is None else r.interval.log10_lr_high,
             r.bounded, r.extrapolated)
            for r in self.results
        )
        return Table(
            title=f"Evidence evaluation: {m.calibrator}{elub}; {interval}",
            columns=("score", "lr", "log10_lr", "log10_low", "log10_high", "bounded",
                     "extrapolated"),
            rows=rows, notes=warning_notes(self.warnings),
        )


# --------------------------------------------------------------------------- validation


class ScoreSummary(Record):
    file: str
    sha256: str
    n: int
    minimum: float
    maximum: float
    mean: float
    sd: float


class CriterionResult(Record):
    """A laboratory criterion against its metric (:func:`forensic_lr.validation.check_criteria`).

    ``bound``: the metric's one-sided 95 % confidence bound on the unfavourable side (upper
    for ``<=``, lower for ``>=``), None when the metric has none; ``bound_source`` says
    where it came from ("bootstrap by source", "bootstrap by trial", "exact binomial" or
    "none"); ``rule``: ``"estimate_and_bound"`` (met when value and bound both pass) or
    ``"estimate"`` (the value alone, the laboratory's choice).
    """

    name: str               # e.g. "cllr_max"
    metric: str             # e.g. "cllr"
    comparison: Literal["<=", ">="]
    threshold: float
    value: float
    met: bool
    bound: float | None = None
    bound_source: str = "none"
    rule: Literal["estimate_and_bound", "estimate"] = "estimate_and_bound"


class RateCount(Record):
    """A rate counted on validation trials with its interval.

    ``name``: ``"rmep"`` (same-source trials with LR < 1) or ``"rmed"`` (different-source
    trials with LR > 1); ``low``/``high``: the interval of ``count / total``, by
    ``interval``: the exact binomial (Clopper-Pearson) interval, which assumes independent
    trials, or the bootstrap by source of the other metrics
    (:func:`forensic_lr.validation.rates.misleading_rates`).
    """

    name: str
    count: int
    total: int
    rate: float
    level: float
    low: float
    high: float
    interval: Literal["exact binomial", "bootstrap by source"] = "exact binomial"


class ValidationResult(Record):
    """The validation of one method: :func:`forensic_lr.validation.validate_method`'s record.

    The case pipeline and the validation study both fill it from that one function, so a
    case and ``forensic-lr validate --case`` give the same numbers. Every metric, check and
    criterion is of the unbounded out-of-fold LLRs.
    """

    #: folds of the cross-validation (None: leave one source out, or LLRs given as they are)
    folds: int | None
    seed: int = 0
    metrics: dict[str, float | int | None]   # asdict(Evaluation) of out-of-fold LLRs
    criteria: tuple[CriterionResult, ...] = ()
    all_criteria_met: bool | None = None     # None when the lab gave no criteria
    #: the empirical lower and upper bounds (ELUB, log10) of the out-of-fold LLRs: the bound
    #: a case applies by default; it depends on the folds and their seed. With another
    #: ``bounds_rule`` the bounds of that rule (the name is kept)
    elub_log10: tuple[float, float] | None = None
    #: the rule of ``elub_log10`` and ``metrics_limited`` (as MethodResult.bounds_rule)
    bounds_rule: BoundsRule = "elub"
    #: with ELUB on: the metrics of the out-of-fold LLRs limited to ``elub_log10`` (labelled
    #: as such: the bound comes from the same LLRs)
    metrics_limited: dict[str, float | int | None] | None = None
    #: calibration_checks(ss_cv, ds_cv).to_dict(): recalibration slope/offset and the
    #: Gaussian consistency of the out-of-fold LLRs (van Leeuwen and Brummer 2013)
    calibration_checks: dict[str, Any] | None = None
    #: how the folds were drawn: by comparison (trial) or by source (no source on both sides)
    folds_by: Literal["trial", "source"] = "trial"
    n_sources: int | None = None
    #: bootstrap_metrics(...).to_dict() of the out-of-fold LLRs (source-aware with sources)
    metric_intervals: dict[str, Any] | None = None
    #: misleading evidence as counts with their intervals (by source where sources are named)
    rates: tuple[RateCount, ...] = ()


class DCFRow(Record):
    """Normalised detection cost at one target prior: actual (Bayes threshold) and minimum."""

    p_target: float
    c_miss: float
    c_fa: float
    dcf: float
    min_dcf: float


class SupportedRange(Record):
    """The range of LRs a set of validated LLRs supports, by two rules computed from them
    (:func:`forensic_lr.validation.supported_range`): the empirical lower and upper bounds
    (ELUB, Vergeer et al. 2016) and the invariance-verification bounds (Alberink et al.
    2025, submitted), each ``(low, high)`` in log10 LR with ``low <= 0 <= high``, or None
    where that rule cannot be computed from these LLRs."""

    #: which LLRs the bounds come from: the out-of-fold LLRs of a calibrated method, or a
    #: system's own LLRs validated as given
    llrs: Literal["cross-validated", "as given"]
    elub_log10: tuple[float, float] | None = None
    iv_log10: tuple[float, float] | None = None


class StatedBounds(Record):
    """The bound a case file's rule states for its reported LR, as a validation study of
    that case (``forensic-lr validate --case``) finds it: the same as the case report's
    (``method.bounds_rule``, ``method.elub_from``, ``method.elub_log10_lr_low/high``)."""

    rule: BoundsRule
    #: the LLRs an ELUB or IV bound comes from ([method] elub_from); None for the N-source
    #: and fixed bounds, which do not depend on LLRs
    source: Literal["cross-validated", "in-sample"] | None = None
    #: ``(low, high)`` log10 LR; None when the rule cannot be computed from these LLRs
    log10: tuple[float, float] | None = None


def _metrics_at_top(self, handler) -> dict[str, Any]:
    """JSON of a record with ``metrics`` and ``ci``: the metrics stand at the top level and
    ``ci`` is left out when None (the shape ``forensic-lr validate --json`` prints)."""
    data = handler(self)
    data.update(data.pop("metrics"))
    if data["ci"] is None:
        del data["ci"]
    return data


class LLRMetrics(Record):
    """The metrics of a system's own LLRs as given
    (:func:`forensic_lr.validation.validate_llr_set`; ``forensic-lr validate --json``).

    In JSON the metrics (``Evaluation`` fields: ``n_ss``, ``cllr``, ...) stand at the top
    level beside ``dcf`` and ``warnings``; ``ci`` is present only with intervals.
    """

    metrics: dict[str, float | int | None]
    dcf: tuple[DCFRow, ...] = ()
    #: bootstrap_metrics(...).to_dict(), when intervals were asked for
    ci: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()
    #: the ELUB and invariance-verification bounds of these LLRs
    supported_range: SupportedRange | None = None

    _flat = model_serializer(mode="wrap")(_metrics_at_top)


class MethodMetrics(Record):
    """One method's cross-validated metrics in a study, as ``forensic-lr validate
    --calibrate/--compare --json`` prints them
    (:func:`forensic_lr.validation.study_method_metrics`).

    In JSON the metrics stand at the top level beside ``method``, ``folds`` (None: leave
    one source out, or LLRs validated as given) and ``folds_by``; ``ci`` only with
    intervals.
    """

    method: str
    folds: int | None
    folds_by: Literal["trial", "source"] | None
    metrics: dict[str, float | int | None]
    ci: dict[str, Any] | None = None
    #: the ELUB and invariance-verification bounds of the LLRs the method's metrics are of
    supported_range: SupportedRange | None = None
    #: with ``--case``, for the case's own method: the bound the case report states
    stated_bounds: StatedBounds | None = None

    _flat = model_serializer(mode="wrap")(_metrics_at_top)


class StudyMethod(ValidationResult):
    """One method's validation in a validation study: its name and description beside it."""

    method: str
    description: MethodDescription | None = None
    #: the ELUB and invariance-verification bounds of the validated LLRs (cross-validated,
    #: or as given), whatever rule ``bounds_rule`` names
    supported_range: SupportedRange | None = None
    #: for a method given as a case applies it (``validate --case``): the bound the case
    #: report states (its rule, from its ``elub_from`` LLRs)
    stated_bounds: StatedBounds | None = None


class ValidationStudy(Tabular, NamedClasses):
    """A validation study: every method cross-validated on one score set.

    ``intervals`` and ``comparisons`` are the bootstrap intervals of the best method's
    metrics and the paired comparisons of the best method with each other one (present
    when intervals were asked for). What the trials are (``classes``, ``hp_class``,
    ``hd_class``): :class:`NamedClasses`.
    """

    about: dict[str, str]
    n_ss: int
    n_ds: int
    folds: int | None
    seed: int
    folds_by: Literal["trial", "source"]
    inputs: dict[str, str]
    criteria: dict[str, float] | None
    methods: tuple[StudyMethod, ...]
    best_method: str
    calibration_checks: dict[str, Any] | None
    validation_matrix: tuple[dict[str, Any], ...]
    software: dict[str, str]
    intervals: dict[str, Any] | None = None
    comparisons: tuple[dict[str, Any], ...] | None = None
    #: what these data were to the method: "development" (the method was chosen or tuned
    #: on them, e.g. the best of several methods) or "validation" (held out from that)
    data_role: Literal["development", "validation"] = "validation"
    #: True when the best method was chosen on the same data its metrics come from
    selected_on_same_data: bool = False
    #: the best method's RMEP and RMED as counts with their intervals
    rates: tuple[RateCount, ...] = ()
    #: the ``forensic-lr validate --report`` options that made the study (input files as
    #: given, output options left out), which ``forensic-lr verify --study`` re-runs; None
    #: for a study run from Python
    command_options: dict[str, Any] | None = None

    _arrays: Any = PrivateAttr(default=None)

    def method(self, name: str) -> StudyMethod:
        """The row of method ``name``."""
        return next(m for m in self.methods if m.method == name)

    def _table(self) -> Table:
        """One row per method: its cross-validated metrics and whether the criteria are met
        (``repr``, notebooks, ``to_frame()``)."""
        keys = ("cllr", "min_cllr", "cllr_cal", "eer", "rmep", "rmed")
        folds = ("leave one source out" if self.folds is None else
                 f"{self.folds} folds by {self.folds_by}")
        notes = () if not self.selected_on_same_data else (
            f"{self.best_method} was chosen on the data its metrics come from "
            "(development data)",)
        trials = (f"{self.n_ss} same-source and {self.n_ds} different-source trials"
                  if self.classes == DEFAULT_CLASSES else
                  f"{self.n_ss} trials with Hp true and {self.n_ds} with Hd true")
        return Table(
            title=f"Validation study: {trials}, {folds}, seed {self.seed}; best method "
                  f"{self.best_method}",
            columns=("method", *keys, "criteria_met"),
            rows=tuple((m.method, *(m.metrics.get(k) for k in keys), m.all_criteria_met)
                       for m in self.methods),
            notes=notes,
        )

    @property
    def arrays(self) -> Any:
        """The out-of-fold LLRs and scores behind the figures (a ``StudyArrays``)."""
        if self._arrays is None:
            raise ForensicLRError(
                "this study record holds no arrays (it was read back from JSON); run "
                "forensic_lr.validation.run_validation_study to draw its figures"
            )
        return self._arrays


# --------------------------------------------------------------------------- the case


class Provenance(Record):
    software: dict[str, str]                 # package -> version (forensic-lr, numpy, ...)
    inputs: dict[str, str]                   # path relative to the case file -> SHA-256
    #: per input file as received: name (relative to the case file), size, SHA-256 of the
    #: original bytes, detected format, encoding, delimiter, decimal separator, sheet, columns
    input_files: tuple[dict[str, Any], ...] = ()
    case_file_sha256: str
    seed: int
    configuration: dict[str, Any]            # the normalised case file (CaseSpec.model_dump)
    lab_profile_sha256: str | None = None    # SHA-256 of the lab profile file, if one was used


class Conclusion(Record):
    """Whether the report gives an evaluative opinion, and why not.

    ``status``: ``"reported"`` (no reason to withhold), ``"withheld"`` (at least one
    reason, no override) or ``"overridden"`` (reasons, but the case gives an override with
    a written ``justification``, printed in the report). ``reasons`` lists every reason;
    ``statement`` is the sentence the report prints ("no evaluative opinion can be given
    because ..."), empty when reported. ``elub_notes`` state, for LRs beyond the ELUB
    bounds when bounding is off, the value the bounds would give. ``lab_departures``
    names every setting looser than the laboratory's profile, which the case applies on
    its written ``lab_justification`` (``[opinion] lab_override``); page 1 prints both.
    """

    status: Literal["reported", "withheld", "overridden"]
    reasons: tuple[str, ...] = ()
    justification: str = ""
    statement: str = ""
    elub_notes: tuple[str, ...] = ()
    #: which class's range each evidence score leaves (e.g. below every same-source score):
    #: information printed in the report, not a reason to withhold
    range_notes: tuple[str, ...] = ()
    lab_departures: tuple[str, ...] = ()
    lab_justification: str = ""
    #: each reason as a code and its parameters (:class:`Message`), in the order of
    #: ``reasons`` (which holds their English sentences)
    reason_messages: tuple[Message, ...] = ()
    #: each ELUB note as a code and its parameters, in the order of ``elub_notes``
    elub_note_messages: tuple[Message, ...] = ()
    #: each range note as a code and its parameters, in the order of ``range_notes``
    range_note_messages: tuple[Message, ...] = ()
    #: each departure as a code and its parameters, in the order of ``lab_departures``
    lab_departure_messages: tuple[Message, ...] = ()


class PolicySetting(Record):
    """One policy setting of a case and where its value came from."""

    key: str                # e.g. "method.elub"
    label: str              # e.g. "bounds applied to the reported LR"
    value: Any
    source: Literal["command line", "case file", "lab profile", "case folder's profile",
                    "default"]
    #: the laboratory profile's value when the case (or command line) set another one
    lab_value: Any = None
    #: how that value compares with the laboratory's: stricter, looser (only on a written
    #: override, ``[opinion] lab_override``) or differs (a key the floor does not cover)
    relation: Literal["", "stricter", "looser", "differs"] = ""


class LabInfo(Record):
    """What the laboratory's profile (``lab.toml``) states about itself and its policy."""

    name: str = ""
    logo: str = ""                      # file name of the logo (embedded in the report)
    profile_file: str = ""
    scale_confirmed_by: str = ""
    scale_confirmed_on: datetime.date | None = None
    criteria_sop: str = ""
    criteria_date: datetime.date | None = None
    #: the laboratory's own profile (``--lab``, or outside every case folder): its
    #: criteria and opinion thresholds are a floor the case may only tighten; False for a
    #: profile inside the case folder, which only supplies defaults
    sets_floor: bool = False
    #: every setting the profile gives, as ``"section.key"`` -> value
    values: dict[str, Any] = Field(default_factory=dict)


class Review(Record):
    """A technical reviewer's approval of a case run, as the web app's review step records it
    (the report's sign-off block prints it beside the examiner)."""

    reviewer: str = Field(min_length=1)
    date: datetime.date
    decision: Literal["approved"] = "approved"
    comment: str = ""


class CaseResult(Tabular, Record):
    """Everything a run found; serialised as ``result.json`` and rendered as the report."""

    schema_version: int = 1
    case: CaseInfo
    report_id: str
    propositions: Propositions
    evidence_description: str
    score_direction: ScoreDirection
    background_description: str
    background_ss: ScoreSummary
    background_ds: ScoreSummary
    background_suspect_ss: ScoreSummary | None = None     # suspect_map only
    background_unlabelled: ScoreSummary | None = None     # unsupervised only
    #: a case from measurements: the feature-based model, the population and the items
    measurements: MeasurementModel | None = None
    #: a case fusing several systems' scores ([fusion]): weights and each system's own metrics
    fusion: FusionModel | None = None
    method: MethodResult
    results: tuple[EvidenceResult, ...]
    validation: ValidationResult
    warnings: tuple[str, ...] = ()
    #: each warning's code and parameters, in the order of ``warnings`` (None: a text
    #: without a code, printed as written)
    warning_messages: tuple[Message | None, ...] = ()
    limitations: tuple[str, ...] = ()       # method-specific limits stated in the report
    provenance: Provenance
    #: the opinion policy's decision (None only for records made before the policy existed)
    conclusion: Conclusion | None = None
    #: the policy settings of the run and where each came from (command line, case file,
    #: lab profile, default)
    policy: tuple[PolicySetting, ...] = ()
    lab: LabInfo | None = None
    details: CaseDetails | None = None      # scoring system, population, validation study
    draft: bool = False                     # written with --draft: not for court
    draft_reasons: tuple[str, ...] = ()     # what a final report still lacks
    #: each draft reason's message as a code and its parameters (with the field's
    #: ``section`` and ``key``), in the order of ``draft_reasons``
    draft_reason_messages: tuple[Message, ...] = ()
    sensitivity: Sensitivity | None = None
    #: the technical reviewer's approval of this run's results (the web app's final report);
    #: None when no review was recorded (every command-line run)
    review: Review | None = None

    def _table(self) -> Table:
        """One row per evidence score: LR, log10 LR, interval and verbal level; the
        conclusion and the validation's Cllr below (``repr``, notebooks, ``to_frame()``)."""
        status = "" if self.conclusion is None else f"; conclusion {self.conclusion.status}"
        rows = tuple(
            (r.label, r.score, r.lr, r.log10_lr,
             None if r.interval is None else r.interval.log10_lr_low,
             None if r.interval is None else r.interval.log10_lr_high,
             r.verbal.level)
            for r in self.results
        )
        cllr = self.validation.metrics.get("cllr")
        notes = (f"validation: Cllr {'-' if cllr is None else f'{cllr:.4g}'} bits"
                 + ("" if self.validation.all_criteria_met is None else
                    f", criteria {'met' if self.validation.all_criteria_met else 'not met'}"),)
        if self.conclusion is not None and self.conclusion.statement:
            notes += (self.conclusion.statement,)
        return Table(
            title=f"Case {self.case.id}, report {self.report_id}: {self.method.calibrator}"
                  f"{status}",
            columns=("comparison", "score", "lr", "log10_lr", "log10_low", "log10_high",
                     "verbal"),
            rows=rows, notes=notes + warning_notes(self.warnings),
        )


# --------------------------------------------------------------------------- sensitivity


class SensitivityRow(Record):
    """The LR of each evidence score under one alternative choice of the method.

    ``group``: ``"calibrator"`` (another calibration method, default options),
    ``"relevance"`` (suspect_map with another relevance factor, or the population model).
    ``log10_lr`` holds one value per evidence score (None when the method could not be
    fitted; ``note`` says why); ``levels`` the verbal level of each.
    """

    group: Literal["calibrator", "relevance"]
    label: str
    calibrator: str
    options: dict[str, float | int | bool | str] = Field(default_factory=dict)
    log10_lr: tuple[float | None, ...]
    levels: tuple[str, ...] = ()
    is_case: bool = False
    note: str = ""
    description: MethodDescription | None = None


class SensitivityBootstrap(Record):
    """The case's method refitted on bootstrap resamples of the background.

    ``by``: sources resampled (every trial among the drawn sources kept) or trials
    (each class at its own size). Quantiles are per evidence score, log10 LR.
    """

    by: Literal["trial", "source"]
    n: int
    n_failed: int
    level: float
    seed: int
    n_sources: int | None = None
    log10_lr_low: tuple[float, ...]
    log10_lr_median: tuple[float, ...]
    log10_lr_high: tuple[float, ...]
    collapsed: tuple[bool, ...] = ()


class Sensitivity(Record):
    """How much the LR depends on the choice of method, its settings and the background."""

    labels: tuple[str, ...]
    #: whether the case limits its LRs to the ELUB; every value here is unbounded
    elub_applied: bool
    #: the case's ELUB bounds (log10) when applied, stated beside the unbounded values
    #: (with another ``bounds_rule``, that rule's bounds)
    elub_log10: tuple[float, float] | None = None
    #: the rule of those bounds (as MethodResult.bounds_rule)
    bounds_rule: BoundsRule = "elub"
    case_calibrator: str
    case_log10_lr: tuple[float | None, ...]
    rows: tuple[SensitivityRow, ...]
    bootstrap: SensitivityBootstrap | None = None
    #: per evidence score: largest minus smallest log10 LR over all rows
    spread_log10: tuple[float | None, ...]
    #: per evidence score: the verbal levels reached over all rows (sorted, distinct)
    levels_reached: tuple[tuple[str, ...], ...]
    summary: tuple[str, ...] = ()
    #: the sentences of each ``summary`` paragraph as codes and parameters (joined by " ")
    summary_messages: tuple[tuple[Message, ...], ...] = ()


CaseResult.model_rebuild()  # its ``sensitivity`` field names a record defined after it
