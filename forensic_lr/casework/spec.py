"""The case file an examiner writes: sections, validation and the commented template.

A case file is TOML (or JSON) with the sections ``[case]``, ``[propositions]``,
``[evidence]``, ``[background]``, ``[method]``, ``[uncertainty]``, ``[validation]``
and ``[report]``. :func:`load_case` reads it into a frozen, validated
:class:`CaseSpec`; unknown keys and bad values raise
:class:`~forensic_lr.errors.InputError` naming the file, the key and the fix.

:class:`~forensic_lr.records.CaseResult` (in the records layer) is what
:func:`forensic_lr.casework.run_case` returns and what ``result.json`` holds.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from ..calibration import DEFAULT_CALIBRATOR, extra_inputs
from ..defaults import DEFAULT_BOUNDS, DEFAULT_MAX_DIFFERENT
from ..errors import InputError, excerpt
from ..i18n import check_language
from ..io.paths import input_file, input_folder, resolve_path
from ..limits import LIMITS, check_settings_sizes
from ..records import (
    BoundsRule,
    CaseDetails,
    CaseInfo,
    LabInfo,
    Propositions,
    ScoreDirection,
    ScoringSystem,
)
from ..resampling import (
    DEFAULT_DRAWS,
    DEFAULT_INTERVAL,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    LEVEL_RANGE,
    MIN_REPLICATES,
)
from .case_template import case_template as case_template  # re-exported (forensic-lr init)
from .profile import apply_profile
from .schema import BEYOND_BACKGROUND as BEYOND_BACKGROUND  # re-exported
from .schema import (
    BeyondBackground,
    Criteria,
    ReportLanguage,
    check_fixed_bounds,
    format_validation_error,
    problem_list,
    value_hint,
)
from .schema import Section as _Section

ReportFormat = Literal["pdf", "html", "json"]


# --------------------------------------------------------------------------- case file


class Evidence(_Section):
    """``[evidence]``: the questioned-vs-suspect comparison score(s).

    A case file without a score validates (the ``init`` template leaves it out, so that
    ``forensic-lr check`` lists it with every other field still to fill; any number,
    0 included, is a score), but nothing can be evaluated without one: the case pipeline
    refuses it, draft or not.
    """

    score: StrictFloat | None = None
    scores: tuple[StrictFloat, ...] | None = None
    labels: tuple[str, ...] | None = Field(
        default=None, description="one name per score, e.g. the questioned recording's id"
    )
    description: str = ""
    score_direction: ScoreDirection = "higher_is_similar"
    scores_file: str | None = Field(
        default=None, description="a file with label and score columns, one evidence score "
        "per line (instead of score/scores and labels)"
    )

    @field_validator("score", "scores", mode="before")
    @classmethod
    def _numbers_not_booleans(cls, value: Any) -> Any:
        """``score = true`` would become 1.0: a score must be written as a number."""
        values = value if isinstance(value, list | tuple) else [value]
        if any(isinstance(v, bool) for v in values):
            raise ValueError("true/false is not a score; write the number, e.g. score = 1.84")
        return value

    @model_validator(mode="after")
    def _one_of_score_or_scores(self) -> Evidence:
        if self.scores_file is not None:  # the scores are read by case_from_dict
            if self.score is not None or self.scores is not None or self.labels is not None:
                raise ValueError(
                    "give the evidence scores either in 'scores_file' (labels in the file) or "
                    "as 'score'/'scores' with 'labels', not both")
            return self
        if self.score is not None and self.scores is not None:
            raise ValueError("give exactly one of 'score = 3.2' or 'scores = [3.2, 1.1]'")
        values = self.values
        if self.scores is not None and not values:
            raise ValueError("'scores' is empty; give at least one score")
        if any(v != v or v in (float("inf"), float("-inf")) for v in values):
            raise ValueError("evidence scores must be finite numbers")
        if self.labels is not None and len(self.labels) != len(values):
            raise ValueError(f"'labels' has {len(self.labels)} names for {len(values)} scores")
        return self

    @property
    def values(self) -> tuple[float, ...]:
        """The evidence score(s) as given (before any direction change)."""
        return (self.score,) if self.score is not None else tuple(self.scores or ())


class _BackgroundFiles(_Section):
    """``[background]``: the score files (paths relative to the case file).

    ``ss`` and ``ds`` (or one labelled ``scores`` file) are the population background.
    :class:`Background` adds one key per extra score input a calibrator declares
    (:attr:`~forensic_lr.calibration.base.BaseCalibrator.extra_inputs`, e.g.
    ``suspect_ss`` of ``suspect_map`` and ``unlabelled`` of ``unsupervised``).
    """

    ss: str | None = None
    ds: str | None = None
    scores: str | None = Field(default=None, description="one file with label,score columns")
    description: str = ""
    population: str = Field(default="", description="the relevant population the data represent")
    population_justification: str = Field(
        default="", description="why that population is the relevant one for this case"
    )
    sources: StrictInt | str | None = Field(
        default=None, description="number of distinct sources behind the comparisons, or why "
        "it is not known"
    )

    @field_validator("sources", mode="before")
    @classmethod
    def _sources_counted(cls, value: Any) -> Any:
        if isinstance(value, bool) or (isinstance(value, int) and value < 1):
            raise ValueError(f"{value!r} is not a number of sources; give a whole number >= 1 "
                             "or a sentence saying why it is not known")
        return value
    score_column: str | StrictInt | None = Field(
        default=None, description="the score column, by header name or 1-based position"
    )
    label_column: str | StrictInt | None = Field(
        default=None, description="the label column of a labelled 'scores' file"
    )
    source_column: str | StrictInt | None = Field(default=None, description="the source-id column")

    @field_validator("score_column", "label_column", "source_column", mode="before")
    @classmethod
    def _column_not_boolean(cls, value: Any) -> Any:
        """``score_column = true`` used to become column 1."""
        if isinstance(value, bool):
            raise ValueError(f"{str(value).lower()} is not a column; give the column's header "
                             'name in quotes (score_column = "score") or its position from 1 '
                             "(score_column = 2)")
        return value
    decimal: Literal[".", ","] | None = Field(
        default=None, description="decimal separator (default: detected)"
    )
    sheet: str | None = Field(default=None, description="the sheet of .xlsx files")

    def reading(self) -> dict[str, Any]:
        """How to read the score tables (keyword arguments of the io readers)."""
        return {"score_column": self.score_column, "label_column": self.label_column,
                "source_column": self.source_column, "decimal": self.decimal,
                "sheet": self.sheet}

    @model_validator(mode="after")
    def _files_given(self) -> Background:
        if self.scores is not None and (self.ss is not None or self.ds is not None):
            raise ValueError("give either 'scores' (one labelled file) or 'ss' and 'ds', not both")
        if (self.ss is None) != (self.ds is None):
            raise ValueError("give both 'ss' and 'ds' files (or one labelled 'scores' file)")
        return self

    @property
    def has_files(self) -> bool:
        """Whether score files are named (a case from measurements names none)."""
        return self.scores is not None or self.ss is not None


#: ``[background]``: the population background and, as declared by the calibrators, the
#: extra score files of the methods that take them (one optional path per key).
Background = create_model(
    "Background",
    __base__=_BackgroundFiles,
    __module__=__name__,
    **{key: (str | None, Field(default=None, description=f"{spec.help} ({method})"))
       for key, (spec, method) in extra_inputs().items()},
)
Background.__doc__ = _BackgroundFiles.__doc__


class MeasurementsSection(_Section):
    """``[measurements]``: a case from feature values instead of comparison scores.

    ``database`` is the population database (one row per measurement: ``source``, an
    optional ``item`` and the feature columns); ``items`` holds the case's questioned and
    control items' replicate measurements (an ``item`` column with the ids of ``[case]
    items``, and the same feature columns). The comparisons' values come from ``model``:
    the two-level model of Aitken and Lucy (2004) or a score function; ``[method]``
    calibrates them on the population's same-source and different-source comparisons
    (:mod:`forensic_lr.features.comparisons`).
    """

    database: str = Field(description="the population database of measurements (CSV, TSV or "
                          ".xlsx): source, optional item, feature columns")
    items: str = Field(description="the case items' measurements: an item column (Q1, K1, "
                       "...) and the database's feature columns, one row per replicate")
    compare: tuple[tuple[str, str], ...] | None = Field(
        default=None, description='the comparisons as pairs of item ids, e.g. [["Q1", "K1"]] '
        "(default: the two items of the items file)")
    model: Literal["two_level", "score"] = Field(
        default="two_level", description="two_level (Aitken and Lucy 2004: accounts for "
        "typicality) or score (a similarity-only score function)")
    score: str = Field(default="standardised", description="the score function of model = "
                       '"score": standardised, euclidean, manhattan or cosine')
    between: Literal["normal", "kde"] = Field(
        default="normal", description="the two-level model's between-source distribution")
    bandwidth: StrictFloat | None = Field(
        default=None, gt=0, description="the kernel bandwidth of between = \"kde\" (default: "
        "Aitken and Lucy's rule)")
    unit: Literal["row", "item", "source"] = Field(
        default="item", description="what a population comparison compares: rows, items "
        "(replicates averaged) or halves of a source's rows")
    max_different: StrictInt | None = Field(
        default=DEFAULT_MAX_DIFFERENT, ge=1, description="different-source population pairs "
        "kept (a seeded sample beyond it)")
    source_column: str | StrictInt = Field(default="source",
                                           description="the database's source column")
    item_column: str | StrictInt = Field(
        default="item", description="the item column (the items file's item ids; the "
        "database's replicate groups, if it has one)")
    feature_columns: tuple[str, ...] | None = Field(
        default=None, description="the feature columns (default: every other column of the "
        "database)")
    decimal: Literal[".", ","] | None = Field(default=None, description="decimal separator")
    sheet: str | None = Field(default=None, description="the sheet of .xlsx files")

    @model_validator(mode="after")
    def _model_options(self) -> MeasurementsSection:
        if self.model == "score" and ("between" in self.model_fields_set
                                      or self.bandwidth is not None):
            raise ValueError('between and bandwidth apply to model = "two_level"; remove them')
        if self.model == "two_level" and "score" in self.model_fields_set:
            raise ValueError('score applies to model = "score"; remove it or set model = "score"')
        try:
            self.feature_model()
        except InputError as exc:
            raise ValueError(str(exc)) from None
        return self

    def feature_model(self):
        """The :class:`~forensic_lr.features.comparisons.FeatureModel` of this section."""
        from ..features.comparisons import FeatureModel

        return FeatureModel(kind=self.model, score=self.score, between=self.between,
                            bandwidth=self.bandwidth)


class FusionSection(_Section):
    """``[fusion]``: several systems' scores per comparison, fused into one LLR.

    The background files (``[background] ss``/``ds`` or ``scores``) hold one score column
    per system, named in ``systems``; ``scores`` gives the case's comparisons, one list
    per comparison with a score per system in the same order. Logistic-regression fusion
    (:class:`~forensic_lr.calibration.fusion.LogisticFusion`) turns each comparison's
    scores into one LLR; the background's fused LLRs, each from a fusion fitted without
    the comparison's fold (its sources, when the files name them), are what ``[method]``
    calibrates and the validation evaluates.
    """

    systems: tuple[str | StrictInt, ...] = Field(
        min_length=2, description="the background files' score columns, one per fused "
        "system (header names or 1-based positions)")
    scores: tuple[tuple[StrictFloat, ...], ...] = Field(
        min_length=1, description="the case's comparisons: one list per comparison, a score "
        "per system in the order of systems, e.g. [[5.2, 0.81]]")
    labels: tuple[str, ...] | None = Field(
        default=None, description="one name per comparison, e.g. \"Q1-K1\"")
    prior: StrictFloat = Field(default=0.5, gt=0, lt=1, description="the prior of the "
                               "fusion's Cllr objective (FoCal's prior; 0.5: Cllr itself)")
    l2: StrictFloat = Field(default=0.0, ge=0, description="ridge penalty on the weights "
                            "of the standardised scores")

    @field_validator("systems", mode="before")
    @classmethod
    def _columns_not_booleans(cls, value: Any) -> Any:
        if isinstance(value, list | tuple) and any(isinstance(v, bool) for v in value):
            raise ValueError("true/false is not a column; name each system's score column "
                             'in quotes (systems = ["asr", "formants"]) or by position from 1')
        return value

    @model_validator(mode="after")
    def _one_score_per_system(self) -> FusionSection:
        k = len(self.systems)
        for i, row in enumerate(self.scores):
            if len(row) != k:
                raise ValueError(f"scores[{i}] has {len(row)} score(s) for {k} systems "
                                 f"({', '.join(map(str, self.systems))}); give one per system")
            if any(v != v or v in (float("inf"), float("-inf")) for v in row):
                raise ValueError(f"scores[{i}]: evidence scores must be finite numbers")
        if self.labels is not None and len(self.labels) != len(self.scores):
            raise ValueError(f"labels has {len(self.labels)} names for {len(self.scores)} "
                             "comparisons")
        if len(set(map(str, self.systems))) != k:
            raise ValueError("systems names a column twice; name each system's column once")
        return self


class Method(_Section):
    """``[method]``: the calibrator, its options and whether ELUB bounds apply.

    ``method = "kde"`` is accepted as another spelling of ``calibrator = "kde"`` (the
    command line has both ``--calibrator`` and ``--method``); giving both is an error.
    ELUB bounding is on unless the case (or the lab profile) says ``elub = false``; the
    bounds come from the cross-validated LLRs of the case's validation unless
    ``elub_from = "in-sample"`` (lir's rule: the fitted model's LLRs of its own training
    scores).

    ``bounds`` names the rule of the bounds (:data:`~forensic_lr.defaults.BOUNDS_RULES`):
    ``"elub"`` (the default), ``"iv"`` (invariance verification), ``"n-source"`` (LR in
    ``[1/N, N]`` for the ``N`` sources the background files name) or ``"fixed"`` (the
    laboratory's ``fixed_bounds = [low, high]``, log10 LR). ``elub`` (on or off) and
    ``elub_from`` keep their names and apply to every rule (``elub_from`` only matters for
    the rules computed from LLRs, ELUB and IV).
    """

    calibrator: str = DEFAULT_CALIBRATOR
    options: dict[str, float | int | bool | str] = Field(default_factory=dict)
    elub: StrictBool = True
    elub_from: Literal["cross-validated", "in-sample"] = "cross-validated"
    bounds: BoundsRule = DEFAULT_BOUNDS
    fixed_bounds: tuple[StrictFloat, StrictFloat] | None = None

    @model_validator(mode="before")
    @classmethod
    def _method_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "method" in data:
            if "calibrator" in data:
                raise ValueError(
                    "give the calibrator once: 'calibrator' and 'method' are two spellings "
                    "of the same key; remove one"
                )
            data = {("calibrator" if k == "method" else k): v for k, v in data.items()}
        return data

    @model_validator(mode="after")
    def _fixed_bounds(self) -> Method:
        check_fixed_bounds(self.bounds, self.fixed_bounds)
        return self

    @field_validator("calibrator")
    @classmethod
    def _known_calibrator(cls, value: str) -> str:
        from ..calibration import CALIBRATORS

        if value not in CALIBRATORS:
            raise ValueError(f"unknown calibrator {value!r}; choose one of {sorted(CALIBRATORS)}")
        return value


class Uncertainty(_Section):
    """``[uncertainty]``: how the interval around the LR is computed.

    Without ``n``: the library's default draws of the interval kind (1000 bootstrap
    replicates, 4000 posterior draws), as ``forensic-lr calibrate`` and
    :func:`~forensic_lr.casework.evaluate_evidence` use.
    """

    method: Literal["bootstrap", "bayes", "none"] = DEFAULT_INTERVAL
    level: StrictFloat = Field(default=DEFAULT_LEVEL, gt=LEVEL_RANGE[0], lt=LEVEL_RANGE[1])
    n: StrictInt = Field(default=DEFAULT_DRAWS[DEFAULT_INTERVAL], ge=MIN_REPLICATES,
                         le=LIMITS["replicates"].most)
    seed: StrictInt = Field(default=DEFAULT_SEED, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _draws_of_the_kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and "n" not in data and data.get("method") == "bayes":
            return {**data, "n": DEFAULT_DRAWS["bayes"]}
        return data


class Validation(_Section):
    """``[validation]``: cross-validation of the method on the background data."""

    folds: StrictInt = Field(default=5, ge=2, le=LIMITS["folds"].most)
    criteria: Criteria = Field(default_factory=Criteria)
    criteria_rule: Literal["estimate_and_bound", "estimate"] = Field(
        default="estimate_and_bound", description="a criterion is met when its value and its "
        "one-sided 95 % bound both meet it, or (the laboratory's choice) its value alone")
    conditions: str = Field(
        default="", description="how the validation data and conditions compare with the case's"
    )
    study: str = Field(default="", description="a separate validation study of the method, if any")
    study_id: str = Field(default="", description="identifier of the validation study")
    study_date: datetime.date | str | None = Field(
        default=None, description="date of the validation study (or why there is none)"
    )


class ReportOptions(_Section):
    """``[report]``: what to render and how."""

    language: ReportLanguage = Field(
        default="en", description="language of the report's text, numbers and dates: en, es, "
        "de, fr, nl or sv (docs/user/report-languages.md); result.json does not depend on it")
    verbal_scale: str = "enfsi"
    formats: tuple[ReportFormat, ...] = ("pdf", "html", "json")
    template_dir: str | None = Field(
        default=None, description="a lab's template folder, searched before the shipped one"
    )
    lab_profile: str | None = Field(
        default=None, description="the laboratory's profile (lab.toml), relative to the case file"
    )
    prior_odds_table: StrictBool = Field(
        default=True, description="print the annex table of prior odds to posterior odds"
    )
    below_first_band: Literal["number", "neutral", "limited"] = Field(
        default="number",
        description="wording of an LR below the first band of a scale that leaves it "
        "undefined (ENFSI: 1 < LR < 2): the number only, 'no support' or 'limited support'",
    )

    @field_validator("language")
    @classmethod
    def _catalogue_complete(cls, language: str) -> str:
        """A language whose report catalogue is missing or incomplete is refused here,
        before any work (:func:`forensic_lr.i18n.check_language`)."""
        return check_language(language, "report")


class Opinion(_Section):
    """``[opinion]``: the opinion policy's thresholds and a case's written override.

    The conclusion is withheld when a laboratory criterion fails, an evidence score lies
    outside the background, the calibration falls between the background's bulk and the
    evidence score, or a calibration check departs from its ideal by more than these
    effect sizes (with its interval excluding the ideal); ``override = true`` with a
    written ``justification`` reports it anyway, printing the justification.
    """

    override: StrictBool = False
    justification: str = ""
    beyond_background: BeyondBackground = Field(
        default="withhold-unbounded",
        description="an evidence score outside the pooled background range: withhold an LR "
        "that ELUB does not limit (default), withhold always, or report it",
    )
    lab_override: StrictBool = Field(
        default=False, description="depart from the laboratory profile's policy (looser "
        "criteria, thresholds or scale) in this case, with a written justification")
    lab_override_justification: str = ""
    slope_min: StrictFloat = Field(default=0.8, gt=0, lt=1)
    slope_max: StrictFloat = Field(default=1.25, gt=1)
    offset_max: StrictFloat = Field(
        default=0.7, gt=0, description="largest |recalibration offset| (natural log) accepted"
    )
    monotonic_tolerance_log10: StrictFloat = Field(default=0.05, ge=0, le=1)
    monotonic_quantiles: tuple[StrictFloat, StrictFloat] = (0.0, 1.0)

    @model_validator(mode="after")
    def _override_needs_justification(self) -> Opinion:
        if self.override and len(self.justification.strip()) < 20:
            raise ValueError(
                "override = true needs a written justification (at least 20 characters): "
                'add justification = "why the opinion is given despite the reasons"'
            )
        if self.justification.strip() and not self.override:
            raise ValueError(
                "a justification is given but override is not set; add override = true or "
                "remove the justification"
            )
        if self.lab_override and len(self.lab_override_justification.strip()) < 20:
            raise ValueError(
                "lab_override = true needs a written lab_override_justification (at least 20 "
                'characters): add lab_override_justification = "why this case departs from '
                'the laboratory\'s policy"'
            )
        if self.lab_override_justification.strip() and not self.lab_override:
            raise ValueError(
                "a lab_override_justification is given but lab_override is not set; add "
                "lab_override = true or remove the justification"
            )
        lo, hi = self.monotonic_quantiles
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(
                f"monotonic_quantiles = {list(self.monotonic_quantiles)} must satisfy "
                "0 <= low < high <= 1"
            )
        return self


class CaseSpec(_Section):
    """A whole case file, validated. ``base_dir`` is the folder of the case file."""

    case: CaseInfo
    propositions: Propositions
    evidence: Evidence = Field(default_factory=Evidence)
    background: Background = Field(default_factory=Background)
    measurements: MeasurementsSection | None = None
    fusion: FusionSection | None = None
    system: ScoringSystem = Field(default_factory=ScoringSystem)
    method: Method = Field(default_factory=Method)
    uncertainty: Uncertainty = Field(default_factory=Uncertainty)
    validation: Validation = Field(default_factory=Validation)
    report: ReportOptions = Field(default_factory=ReportOptions)
    opinion: Opinion = Field(default_factory=Opinion)
    base_dir: Path = Field(default=Path("."), exclude=True)
    #: folders outside the case folder that the case's paths may name (a lab's shared
    #: background data); never read from the case file itself
    data_roots: tuple[Path, ...] = Field(default=(), exclude=True)
    source_sha256: str | None = Field(
        default=None, exclude=True, description="SHA-256 of the case file (set by load_case)"
    )
    #: what the lab profile states (set by case_from_dict from the profile, never from the
    #: case file), its SHA-256 and where each policy setting came from
    lab: LabInfo | None = Field(default=None, exclude=True)
    lab_sha256: str | None = Field(default=None, exclude=True)
    settings_sources: dict[str, str] = Field(default_factory=dict, exclude=True)
    #: the evidence scores as written in the case file ("5.50"), set by load_case
    score_texts: tuple[str, ...] | None = Field(default=None, exclude=True)
    #: a [fusion] case's background scores as read and the fusion fitted on them
    #: (:class:`~forensic_lr.casework.fused.FusedInputs`), set by load_case: the run reads
    #: and fits nothing twice
    fused_inputs: Any = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _options_usable(self) -> CaseSpec:
        """The method's options, checked by the calibrator itself (extra inputs aside: the
        next check names those)."""
        from ..calibration import CALIBRATORS, make_calibrator

        name = self.method.calibrator
        options = {k: v for k, v in self.method.options.items() if k not in extra_inputs()}
        if name in CALIBRATORS:
            try:
                make_calibrator(name, **options)
            except InputError as exc:
                raise ValueError(f"[method.options] {str(exc).removeprefix('option ')}") from None
        return self

    @model_validator(mode="after")
    def _extra_scores_match_method(self) -> CaseSpec:
        name, bg = self.method.calibrator, self.background
        problems = []  # all of them at once
        for key, (spec, method) in extra_inputs().items():
            if key in self.method.options:
                problems.append(
                    f"[method.options] {key}: give the score file under [background] "
                    f'{key} = "file.csv" instead of as a method option'
                )
            if getattr(bg, key) is not None and name != method:
                problems.append(
                    f"[background] {key} is only used by [method] calibrator = "
                    f'"{method}", got {name!r}; remove {key} or use calibrator = "{method}"'
                )
            if name == method and spec.required and getattr(bg, key) is None:
                problems.append(
                    f'[method] calibrator = "{method}" needs {spec.help}: add '
                    f'[background] {key} = "{key}.csv"'
                )
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _scores_or_measurements(self) -> CaseSpec:
        """Score files and an evidence score, or ``[measurements]`` (which gives both)."""
        bg, ev = self.background, self.evidence
        if self.measurements is None:
            if not bg.has_files:
                raise ValueError("[background] give both 'ss' and 'ds' files (or one labelled "
                                 "'scores' file), or a [measurements] section")
            return self
        problems = []
        if bg.has_files:
            problems.append("[background] ss/ds/scores: a case from [measurements] takes its "
                            "background comparisons from the database; remove the score files")
        if ev.values or ev.scores_file is not None:
            problems.append("[evidence] score: a case from [measurements] computes its "
                            "comparison values from the items file; remove score, scores and "
                            "scores_file")
        if "score_direction" in ev.model_fields_set:
            problems.append("[evidence] score_direction: set by [measurements] model (a "
                            "distance is lower_is_similar, the two-level LLR higher); remove it")
        for spec, method in extra_inputs().values():
            if self.method.calibrator == method and spec.required:
                problems.append(f'[method] calibrator = "{method}" needs {spec.help}, which a '
                                "case from [measurements] does not have; choose another "
                                "calibrator")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _fusion_inputs(self) -> CaseSpec:
        """A ``[fusion]`` case takes its scores from that section and its score files."""
        if self.fusion is None:
            return self
        bg, ev = self.background, self.evidence
        problems = []
        if self.measurements is not None:
            problems.append("[fusion] fuses score files; a case from [measurements] has none: "
                            "remove one of the two sections")
        if ev.values or ev.scores_file is not None or ev.labels is not None:
            problems.append("[evidence] score/scores/labels: a [fusion] case gives its "
                            "comparisons in [fusion] scores (one list per comparison) and "
                            "labels; remove them from [evidence]")
        if "score_direction" in ev.model_fields_set:
            problems.append("[evidence] score_direction: the fused value is a log LR (higher "
                            "supports Hp; a distance gets a negative weight); remove it")
        if bg.score_column is not None:
            problems.append("[background] score_column: the [fusion] systems name the score "
                            "columns; remove score_column")
        for key, (spec, method) in extra_inputs().items():
            if getattr(bg, key) is not None or (self.method.calibrator == method
                                                and spec.required):
                problems.append(f'[method] calibrator = "{method}" takes one score per '
                                "comparison; choose another calibrator for a [fusion] case")
        if problems:
            raise ValueError("; ".join(dict.fromkeys(problems)))
        return self

    @model_validator(mode="after")
    def _propositions_given(self) -> CaseSpec:
        """hp and hd, unless each comparison has a ``[[propositions.comparison]]`` table."""
        props = self.propositions
        missing = [k for k in ("hp", "hd") if not props.comparison and getattr(props, k) is None]
        if missing:
            raise ValueError("; ".join(
                f"[propositions] {k}: required but missing; give hp and hd, or one "
                "[[propositions.comparison]] table (label, hp, hd) per comparison"
                for k in missing))
        return self

    @model_validator(mode="after")
    def _source_models_need_source_classes(self) -> CaseSpec:
        """Measurement pairs and the suspect-adapted model compare sources: they cannot
        serve trials of propositions that are not about sources."""
        if self.propositions.classes == "source":
            return self
        if self.measurements is not None:
            raise ValueError('[propositions] classes = "propositions" with [measurements]: '
                             "the population's pairs are comparisons of sources; remove "
                             "classes, hp_class and hd_class, or give background scores")
        if self.method.calibrator == "suspect_map":
            raise ValueError('[propositions] classes = "propositions" with [method] '
                             'calibrator = "suspect_map": the model adapts to a suspect\'s '
                             "own same-source scores; choose another calibrator")
        return self

    @model_validator(mode="after")
    def _posterior_interval_needs_posterior(self) -> CaseSpec:
        from ..calibration import CALIBRATORS

        if self.uncertainty.method == "bayes" and not CALIBRATORS[self.method.calibrator].posterior:
            raise ValueError(
                '[uncertainty] method = "bayes" needs [method] calibrator = "bayes" (a '
                f'method with a posterior), got {self.method.calibrator!r}; use method = '
                '"bootstrap" or "none" instead'
            )
        return self

    def resolve(self, relative: str) -> Path:
        """A path from the case file, made absolute against the case file's folder.

        The path must lie, after symbolic links, inside the case folder or one of
        ``data_roots``: absolute paths elsewhere, ``..`` climbing out and links leading
        out are refused (:class:`~forensic_lr.errors.InputError`), so that a case file
        cannot make the tool read, hash or quote an arbitrary file; so are symbolic link
        loops and over-long paths (:func:`~forensic_lr.io.paths.resolve_path`).
        """
        path = resolve_path(self.base_dir / relative)
        roots = (self.base_dir, *self.data_roots)
        if not any(path.is_relative_to(resolve_path(root)) for root in roots):
            where = "the case folder" + (" or the lab's data folders" if self.data_roots else "")
            raise InputError(
                f"path {excerpt(relative)} leads outside {where} (after symbolic links); "
                "put the file in the case folder and name it relative to the case file"
            )
        return path

    @property
    def comparison_labels(self) -> tuple[str, ...]:
        """The comparisons' labels: ``[evidence] labels`` (or the scores file's); else, for
        one score and two items, their ids ("Q1-K1"); else "E1", "E2", ..."""
        ev, items = self.evidence, self.case.items
        if not ev.labels and len(ev.values) == 1 and len(items) == 2:
            return (f"{items[0].id}-{items[1].id}",)
        return ev.labels or tuple(f"E{i + 1}" for i in range(len(ev.values)))

    def details(self, source_revision: str = "unknown") -> CaseDetails:
        """The scoring system, population and validation study a final report names."""
        bg, val = self.background, self.validation
        return CaseDetails(
            system=self.system, population=bg.population,
            population_justification=bg.population_justification, sources=bg.sources,
            validation_study_id=val.study_id, validation_study_date=val.study_date,
            source_revision=source_revision,
        )

    def input_paths(self) -> list[Path]:
        """Every file and folder the case file names (score files, templates, scale file)."""
        bg, report = self.background, self.report
        names = [bg.ss, bg.ds, bg.scores, *(getattr(bg, key) for key in extra_inputs()),
                 report.template_dir, self.evidence.scores_file]
        if self.measurements is not None:
            names += [self.measurements.database, self.measurements.items]
        if report.verbal_scale.lower().endswith(".json"):
            names.append(report.verbal_scale)
        return [self.resolve(name) for name in names if name is not None]


def _decode_case_text(path: Path, raw: bytes) -> str:
    """The case file's text: UTF-8 with or without a byte-order mark; UTF-16 is refused."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in raw[:200]:
        raise InputError(
            f"{path}: the case file is UTF-16 text; save it as UTF-8 (in Notepad: Save as, "
            "Encoding UTF-8)"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: the case file is not UTF-8 text (byte {exc.start + 1}); save it as UTF-8"
        ) from None


def _shown(text: str, limit: int = 80) -> str | None:
    """``text`` as typed when it is short and printable (so a fix can quote it), else None."""
    return text if len(text) <= limit and text.isprintable() else None


def _toml_message(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> str:
    """The parser's message, with a fix for the usual slips on the line it names.

    Decimal commas and dotted dates (:func:`~forensic_lr.casework.schema.value_hint`), text
    without quotes (``examiner = Dr. Weiß``), Windows paths whose backslashes start escapes
    in double quotes (``ss = "C:\\data\\ss.csv"``) and inline tables broken over several
    lines.
    """
    message = f"{path}: cannot parse the case file ({_shown(str(exc), 200) or excerpt(exc)})"
    m = re.search(r"at line (\d+)", str(exc))
    lines = text.splitlines()
    if not m or not 0 < int(m.group(1)) <= len(lines):
        return message
    line = lines[int(m.group(1)) - 1].strip()
    key, _, value = (part.strip() for part in line.partition("="))
    where = f"{message}: {_shown(line) or excerpt(line, 60)}"
    bare = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", line)  # without quoted text
    if bare.count("{") > bare.count("}"):
        return (f"{where}; an inline table {{ ... }} must stay on one line in TOML: put it on "
                "one line, or write it as a table of its own, e.g. each item as a "
                "[[case.items]] table (forensic-lr docs case-file)")
    if "\\" in value and value.startswith('"'):
        inner = _shown(value[1:].partition('"')[0])
        fix = (f'{key} = "{inner.replace(chr(92), "/")}", or in single quotes, '
               f"{key} = '{inner}'") if inner else "or in single quotes"
        return (f"{where}; in double quotes a backslash starts an escape: write the path with "
                f"forward slashes, {fix}")
    for token in re.findall(r"[+-]?\d[\d.,/]*\d", value.partition("#")[0]):
        hint = value_hint(token)
        if hint:
            return f"{where}{hint}"
    word = value.partition(" #")[0].strip()
    if word[:1].isalpha() and word not in ("true", "false", "inf", "nan"):
        if word.lower() in ("yes", "no", "on", "off", "true", "false"):
            return f"{where}; write true or false (lower case, no quotes)"
        shown = _shown(word) if '"' not in word else None
        return f"{where}; put text in quotes" + (f': {key} = "{shown}"' if shown else "")
    return message


#: Deepest nesting of tables and lists a case file may have (it needs 4: section, items,
#: item, value); deeper input is damaged or hostile and would exhaust the recursion limit.
MAX_DEPTH = 16


def _check_depth(data: Any, source: str) -> None:
    """Refuse tables or lists nested deeper than :data:`MAX_DEPTH` (one pass, no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else (
            value if isinstance(value, list | tuple) else ())
        for child in children:
            if isinstance(child, dict | list | tuple):
                if depth + 1 > MAX_DEPTH:
                    raise InputError(
                        f"{source}: the case file nests tables or lists more than {MAX_DEPTH} "
                        "levels deep; a case file needs 4 (section, list, item, value)"
                    )
                stack.append((child, depth + 1))


#: what to do about a missing file a case file names
_RELATIVE = "paths are relative to the case file's folder"

_INTERNAL_KEYS = (
    "base_dir", "data_roots", "source_sha256", "lab", "lab_sha256", "settings_sources",
    "score_texts", "fused_inputs",
)


def case_from_dict(
    data: dict[str, Any], *, base_dir: Path, source: str = "case", source_sha256: str | None = None,
    data_roots: tuple[Path, ...] = (), lab: str | Path | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
    missing_files: list[str] | None = None, score_texts: tuple[str, ...] | None = None,
    case_folders: tuple[Path, ...] = (),
) -> CaseSpec:
    """Validate a parsed case file; errors name the section, the key and the fix.

    ``missing_files``: when a list is given, a background file that does not exist is
    appended to it (as a message) instead of raising, so that ``forensic-lr check`` can
    list it with the other problems of a case still being written. ``score_texts``: the
    evidence scores as the case file writes them (see :func:`typed_scores`).

    Besides the schema, the background files and ``template_dir`` must exist and the
    verbal scale must be a shipped key or a valid JSON scale file (paths relative to
    ``base_dir``, inside it or one of ``data_roots``: see :meth:`CaseSpec.resolve`).
    ``lab`` (a lab profile given on the command line, else the case's ``[report]
    lab_profile``) supplies defaults, and ``overrides`` (command-line settings, by section
    and key) win over everything: see :func:`forensic_lr.casework.profile.apply_profile`.
    """
    from .verbal import in_language, load_scale

    _check_depth(data, source)
    check_settings_sizes(data, source)
    internal = [k for k in _INTERNAL_KEYS if k in data]
    if internal:
        raise InputError(
            f"{source}: the case file has 1 problem(s):\n  - (top level) {internal[0]}: "
            "unknown key; remove it or check its spelling against `forensic-lr init`"
        )
    applied = apply_profile(data, base_dir=base_dir, source=source, lab=lab, overrides=overrides,
                            case_folders=case_folders)
    check_settings_sizes(applied.data, f"{source} with its lab profile")
    try:
        spec = CaseSpec.model_validate(
            {**applied.data, "base_dir": base_dir, "source_sha256": source_sha256,
             "data_roots": (*data_roots, *applied.data_roots), "lab": applied.lab,
             "lab_sha256": applied.sha256, "settings_sources": applied.sources,
             "score_texts": score_texts}
        )
    except ValidationError as exc:
        raise InputError(format_validation_error(source, exc)) from None
    problems: list[str] = []  # every problem of the files the case names, listed at once

    def resolved(section: str, key: str, name: str, check=None,
                 hint: str = _RELATIVE) -> Path | None:
        """The path of a key, checked by ``check`` (``input_file`` or ``input_folder``);
        None, with the problem added to ``problems``, when it cannot be used."""
        try:
            path = spec.resolve(name)
            return path if check is None else check(path, hint=hint + _path_hint(name))
        except InputError as exc:
            problems.append(f"[{section}] {key}: {exc}")
            return None

    for key in ("ss", "ds", "scores", *extra_inputs()):
        name = getattr(spec.background, key)
        if name is None:
            continue
        before = len(problems)
        resolved("background", key, name, input_file)
        if missing_files is not None:  # check lists them with the checklist's problems
            missing_files.extend(problems[before:])
            del problems[before:]
    spec = _with_evidence_file(spec, resolved, problems)
    spec = _with_measurements(spec, resolved, problems)
    spec = _with_fusion(spec, problems)
    if spec.evidence.scores_file is None or spec.evidence.scores is not None:  # labels known
        problem = propositions_problem(spec)
        if problem:
            problems.append(problem)
    template_dir = spec.report.template_dir
    if template_dir is not None:
        resolved("report", "template_dir", template_dir, input_folder,
                 "remove the key to use the shipped templates")
    scale = spec.report.verbal_scale
    if scale.lower().endswith(".json"):
        path = resolved("report", "verbal_scale", scale)
        scale = None if path is None else str(path)
    if scale is not None:
        try:
            in_language(load_scale(scale), spec.report.language)
        except InputError as exc:
            problems.append(f"[report] verbal_scale: {exc}")
    if problems:  # with the missing files check would have listed: all at once
        raise InputError(problem_list(source, [*(missing_files or ()), *problems]))
    return spec


def _path_hint(name: str) -> str:
    """A fix for a Windows path whose backslashes TOML read as escapes (``"data\\new.csv"``)."""
    if any(c in name for c in "\t\n\r\b\f"):
        return ("; the path holds a tab, line break or other control character: in double "
                "quotes a backslash starts an escape (\\n, \\t), so write the path with forward "
                "slashes (\"data/new.csv\") or in single quotes ('data\\new.csv')")
    return ""


def _named_items(text: str, ids: list[str]) -> list[str]:
    """The item ids that ``text`` names as a word of their own ("Q1" in "Q1-K1", not "Q10")."""
    return [i for i in ids
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(i)}(?![A-Za-z0-9])", text)]


def propositions_problem(spec: CaseSpec) -> str:
    """Why the propositions do not fit the comparisons, with the tables to write; or "".

    ``[[propositions.comparison]]`` tables must give exactly one table per comparison
    label. A single pair (``hp``, ``hd``) must not name an item (an id of ``[case]
    items``, as a word of its own) that a comparison's label shows it does not involve:
    "Q1 comes from K1" cannot be the proposition of the comparison Q3-K1. A label that
    names no item gives nothing to check.
    """
    props, labels = spec.propositions, spec.comparison_labels
    if props.comparison:
        given = [c.label for c in props.comparison]
        unknown = [x for x in given if x not in labels]
        missing = [x for x in labels if x not in given]
        if not unknown and not missing:
            return ""
        text = "[propositions] the [[propositions.comparison]] tables must match the comparisons"
        text += f" ({', '.join(labels)})"
        if unknown:
            text += f"; no comparison is labelled {', '.join(map(repr, unknown))}"
        if missing:
            text += f"; add a table for {', '.join(map(repr, missing))}:\n" + _tables(missing)
        return text
    ids = [item.id for item in spec.case.items]
    named = _named_items(f"{props.hp}\n{props.hd}", ids)
    wrong = {}
    for label in labels:
        involved = _named_items(label, ids)
        if involved and set(named) - set(involved):
            wrong[label] = [i for i in named if i not in involved]
    if not wrong:
        return ""
    which = "; ".join(f"{label} does not involve {', '.join(i)}" for label, i in wrong.items())
    return (
        f"[propositions] hp and hd name {', '.join(named)}, but comparison {which}: every "
        "conclusion would quote propositions about other items. Give each comparison its "
        "own propositions: replace hp and hd under [propositions] by these tables:\n"
        + _tables(labels, props, wrong)
    )


def _tables(labels, keep: Propositions | None = None, wrong=()) -> str:
    """The ``[[propositions.comparison]]`` tables to write for ``labels`` (TOML text): the
    pair ``keep`` for a label not in ``wrong``, a placeholder to fill in otherwise."""
    out = []
    for label in labels:
        fits = keep is not None and label not in wrong
        hp = keep.hp if fits else f"(Hp of {label}: name its items)"
        hd = keep.hd if fits else f"(Hd of {label}: name its items)"
        out.append(f"  [[propositions.comparison]]\n  label = {json.dumps(label)}\n"
                   f"  hp = {json.dumps(hp, ensure_ascii=False)}\n"
                   f"  hd = {json.dumps(hd, ensure_ascii=False)}")
    return "\n".join(out)


def _with_evidence_file(spec: CaseSpec, resolved, problems: list[str]) -> CaseSpec:
    """The spec with ``[evidence] scores_file`` read into ``scores`` and ``labels``.

    A file that cannot be read adds its problem to ``problems`` and leaves the spec as it is.
    """
    from .evidence_file import read_evidence_file

    name = spec.evidence.scores_file
    path = None if name is None else resolved("evidence", "scores_file", name, input_file)
    if path is None:
        return spec
    try:
        labels, scores = read_evidence_file(path)
    except InputError as exc:
        problems.append(f"[evidence] scores_file: {exc}")
        return spec
    evidence = spec.evidence.model_copy(update={"scores": scores, "labels": labels})
    return spec.model_copy(update={"evidence": evidence})


def _with_measurements(spec: CaseSpec, resolved, problems: list[str]) -> CaseSpec:
    """The spec with the comparisons of ``[measurements]`` as its evidence scores.

    The items' comparisons are computed by the model fitted on the whole database
    (:func:`forensic_lr.casework.measured.case_comparisons`); the score direction is the
    model's. A file that cannot be read adds its problem to ``problems``.
    """
    from .measured import case_comparisons

    section = spec.measurements
    if section is None:
        return spec
    paths = {key: resolved("measurements", key, getattr(section, key), input_file)
             for key in ("database", "items")}
    if None in paths.values():
        return spec
    try:
        labels, values = case_comparisons(section, paths["database"], paths["items"],
                                          [item.id for item in spec.case.items])
    except InputError as exc:
        problems.append(f"[measurements] {exc}")
        return spec
    evidence = spec.evidence.model_copy(update={
        "scores": tuple(values), "labels": labels,
        "score_direction": section.feature_model().direction})
    return spec.model_copy(update={"evidence": evidence,
                                   "score_texts": tuple(f"{v:.6g}" for v in values)})


def _with_fusion(spec: CaseSpec, problems: list[str]) -> CaseSpec:
    """The spec with the fused LLRs of ``[fusion] scores`` as its evidence scores.

    The background files are read once and the fusion is fitted on all their comparisons
    (:func:`forensic_lr.casework.fused.fused_inputs`), kept as ``fused_inputs`` for the
    run; its LLRs are higher-is-similar. A file that cannot be read adds its problem to
    ``problems``.
    """
    from ..errors import ForensicLRError
    from .fused import evidence_llrs, fused_inputs

    section = spec.fusion
    if section is None or problems:
        return spec
    try:
        inputs = fused_inputs(spec)
        values = evidence_llrs(spec, inputs)
    except ForensicLRError as exc:
        problems.append(f"[fusion] {exc}")
        return spec
    items = spec.case.items
    labels = section.labels or (
        (f"{items[0].id}-{items[1].id}",) if len(values) == 1 and len(items) == 2
        else tuple(f"E{i + 1}" for i in range(len(values))))
    evidence = spec.evidence.model_copy(update={"scores": tuple(values), "labels": labels})
    return spec.model_copy(update={"evidence": evidence, "fused_inputs": inputs,
                                   "score_texts": tuple(f"{v:.6g}" for v in values)})


def load_case(path: str | Path, *, data_roots: tuple[Path, ...] = (),
              lab: str | Path | None = None,
              overrides: dict[str, dict[str, Any]] | None = None,
              missing_files: list[str] | None = None,
              case_folders: tuple[Path, ...] = ()) -> CaseSpec:
    """Read and validate a case file (``.toml`` or ``.json``).

    Paths in the case file must lie inside its folder or one of ``data_roots`` (folders
    a lab profile names for shared background data). ``lab`` and ``overrides``: see
    :func:`case_from_dict`. ``case_folders``: the other case folders of a batch (a lab
    profile inside one of them is a case's, not the laboratory's).

    Raises
    ------
    InputError
        The file is missing, is not valid TOML/JSON, or breaks the schema
        (the message lists every problem with its section and key).
    """
    path = input_file(path, "case file")
    raw = path.read_bytes()
    text = _decode_case_text(path, raw)
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(_toml_message(path, text, exc)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: cannot parse the case file ({exc})") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        raise InputError(
            f"{path}: the case file holds an integer of more than "
            f"{sys.get_int_max_str_digits():,} digits; no case-file value needs that many: "
            "check the file"
        ) from None
    except RecursionError:
        raise InputError(
            f"{path}: the case file is nested too deeply (lists or tables inside each other "
            "hundreds of times); a case file needs at most a few levels"
        ) from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: the case file must be a table of sections")
    return case_from_dict(
        data,
        base_dir=resolve_path(path).parent,
        source=str(path),
        source_sha256=hashlib.sha256(raw).hexdigest(),
        data_roots=data_roots,
        lab=lab,
        overrides=overrides,
        missing_files=missing_files,
        case_folders=case_folders,
        score_texts=typed_scores(text, json_file=path.suffix.lower() == ".json"),
    )


def typed_scores(text: str, *, json_file: bool) -> tuple[str, ...] | None:
    """The ``[evidence] score``/``scores`` as written ("5.50", not 5.5), or None.

    The file is parsed a second time with decimal numbers kept as their text (both
    :func:`tomllib.loads` and :func:`json.loads` take ``parse_float``), so a report prints
    the score the examiner typed, trailing zeros included. None when the scores are not
    all numbers there (the schema then reports the problem) or come from a scores file.
    """
    try:
        raw = json.loads(text, parse_float=str) if json_file else tomllib.loads(
            text, parse_float=str)
    except ValueError:
        return None
    evidence = raw.get("evidence") if isinstance(raw, dict) else None
    if not isinstance(evidence, dict):
        return None
    values = evidence.get("scores", [evidence.get("score")])
    if not isinstance(values, list) or not values or any(
            isinstance(v, bool) or not isinstance(v, str | int) for v in values):
        return None
    return tuple(str(v) for v in values)
