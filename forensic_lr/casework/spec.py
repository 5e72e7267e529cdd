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

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import InputError, excerpt
from ..records import CaseInfo, Propositions, ScoreDirection

ReportFormat = Literal["pdf", "html", "json"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- case file


class Evidence(_Section):
    """``[evidence]``: the questioned-vs-suspect comparison score(s)."""

    score: float | None = None
    scores: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = Field(
        default=None, description="one name per score, e.g. the questioned recording's id"
    )
    description: str = ""
    score_direction: ScoreDirection = "higher_is_similar"

    @model_validator(mode="after")
    def _one_of_score_or_scores(self) -> Evidence:
        if (self.score is None) == (self.scores is None):
            raise ValueError("give exactly one of 'score = 3.2' or 'scores = [3.2, 1.1]'")
        values = self.values
        if not values:
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


class Background(_Section):
    """``[background]``: the score files (paths relative to the case file).

    ``ss`` and ``ds`` (or one labelled ``scores`` file) are the population background;
    ``suspect_ss`` (same-source scores of the suspect, calibrator ``suspect_map``) and
    ``unlabelled`` (case-condition scores of unknown ground truth, calibrator
    ``unsupervised``) are the extra data of those two methods.
    """

    ss: str | None = None
    ds: str | None = None
    scores: str | None = Field(default=None, description="one file with label,score columns")
    suspect_ss: str | None = Field(
        default=None, description="the suspect's own same-source scores (suspect_map)"
    )
    unlabelled: str | None = Field(
        default=None, description="unlabelled case-condition scores (unsupervised)"
    )
    description: str = ""

    @model_validator(mode="after")
    def _files_given(self) -> Background:
        if self.scores is not None and (self.ss is not None or self.ds is not None):
            raise ValueError("give either 'scores' (one labelled file) or 'ss' and 'ds', not both")
        if self.scores is None and (self.ss is None or self.ds is None):
            raise ValueError("give both 'ss' and 'ds' files (or one labelled 'scores' file)")
        return self


class Method(_Section):
    """``[method]``: the calibrator, its options and whether ELUB bounds apply."""

    calibrator: str = "bayes"
    options: dict[str, float | int | bool | str] = Field(default_factory=dict)
    elub: bool = False

    @field_validator("calibrator")
    @classmethod
    def _known_calibrator(cls, value: str) -> str:
        from ..calibration import CALIBRATORS

        if value not in CALIBRATORS:
            raise ValueError(f"unknown calibrator {value!r}; choose one of {sorted(CALIBRATORS)}")
        return value


class Uncertainty(_Section):
    """``[uncertainty]``: how the interval around the LR is computed."""

    method: Literal["bootstrap", "bayes", "none"] = "bootstrap"
    level: float = Field(default=0.95, gt=0.5, lt=1.0)
    n: int = Field(default=1000, ge=100, le=100_000)
    seed: int = Field(default=20261122, ge=0)


class Criteria(_Section):
    """Optional laboratory validation criteria; each is checked against the CV metrics."""

    cllr_max: float | None = Field(default=None, gt=0)
    min_cllr_max: float | None = Field(default=None, gt=0)
    cllr_cal_max: float | None = Field(default=None, ge=0)
    eer_max: float | None = Field(default=None, gt=0, le=0.5)
    auc_min: float | None = Field(default=None, ge=0.5, le=1)
    rmep_max: float | None = Field(default=None, ge=0, le=1)
    rmed_max: float | None = Field(default=None, ge=0, le=1)
    devpav_max: float | None = Field(default=None, gt=0)


class Validation(_Section):
    """``[validation]``: cross-validation of the method on the background data."""

    folds: int = Field(default=5, ge=2, le=50)
    criteria: Criteria = Field(default_factory=Criteria)
    conditions: str = Field(
        default="", description="how the validation data and conditions compare with the case's"
    )
    study: str = Field(default="", description="a separate validation study of the method, if any")


class ReportOptions(_Section):
    """``[report]``: what to render and how."""

    language: Literal["en"] = "en"
    verbal_scale: str = "enfsi"
    formats: tuple[ReportFormat, ...] = ("pdf", "html", "json")
    template_dir: str | None = Field(
        default=None, description="a lab's template folder, searched before the shipped one"
    )
    prior_odds_table: bool = Field(
        default=True,
        description="print the table of illustrative prior and posterior odds in annex A",
    )


class CaseSpec(_Section):
    """A whole case file, validated. ``base_dir`` is the folder of the case file."""

    case: CaseInfo
    propositions: Propositions
    evidence: Evidence
    background: Background
    method: Method = Field(default_factory=Method)
    uncertainty: Uncertainty = Field(default_factory=Uncertainty)
    validation: Validation = Field(default_factory=Validation)
    report: ReportOptions = Field(default_factory=ReportOptions)
    base_dir: Path = Field(default=Path("."), exclude=True)
    #: folders outside the case folder that the case's paths may name (a lab's shared
    #: background data); never read from the case file itself
    data_roots: tuple[Path, ...] = Field(default=(), exclude=True)
    source_sha256: str | None = Field(
        default=None, exclude=True, description="SHA-256 of the case file (set by load_case)"
    )

    @model_validator(mode="after")
    def _extra_scores_match_method(self) -> CaseSpec:
        from ..calibration import extra_inputs

        name, bg = self.method.calibrator, self.background
        for key, (spec, method) in extra_inputs().items():
            if key in self.method.options:
                raise ValueError(
                    f"[method.options] {key}: give the score file under [background] "
                    f'{key} = "file.csv" instead of as a method option'
                )
            if getattr(bg, key) is not None and name != method:
                raise ValueError(
                    f"[background] {key} is only used by [method] calibrator = "
                    f'"{method}", got {name!r}; remove {key} or use calibrator = "{method}"'
                )
            if name == method and spec.required and getattr(bg, key) is None:
                raise ValueError(
                    f'[method] calibrator = "{method}" needs {spec.help}: add '
                    f'[background] {key} = "{key}.csv"'
                )
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
        cannot make the tool read, hash or quote an arbitrary file.
        """
        if "\x00" in relative:
            raise InputError(f"path {excerpt(relative)} contains a NUL character")
        path = (self.base_dir / relative).resolve()
        roots = (self.base_dir, *self.data_roots)
        if not any(path.is_relative_to(Path(root).resolve()) for root in roots):
            where = "the case folder" + (" or the lab's data folders" if self.data_roots else "")
            raise InputError(
                f"path {excerpt(relative)} leads outside {where} (after symbolic links); "
                "put the file in the case folder and name it relative to the case file"
            )
        return path

    def input_paths(self) -> list[Path]:
        """Every file and folder the case file names (score files, templates, scale file)."""
        bg, report = self.background, self.report
        names = [bg.ss, bg.ds, bg.scores, bg.suspect_ss, bg.unlabelled, report.template_dir]
        if report.verbal_scale.lower().endswith(".json"):
            names.append(report.verbal_scale)
        return [self.resolve(name) for name in names if name is not None]


def _format_validation_error(path: str, exc: ValidationError) -> str:
    lines = [f"{path}: the case file has {exc.error_count()} problem(s):"]
    for err in exc.errors():
        loc = [str(p) for p in err["loc"] if p != "base_dir"]
        where = f"[{loc[0]}] {'.'.join(loc[1:])}" if len(loc) > 1 else (
            f"[{loc[0]}]" if loc else "(top level)"
        )
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key; remove it or check its spelling against `forensic-lr init`"
        elif err["type"] == "missing":
            msg = "required but missing"
        lines.append(f"  - {where}: {msg}")
    return "\n".join(lines)


_INTERNAL_KEYS = ("base_dir", "data_roots", "source_sha256")


def case_from_dict(
    data: dict[str, Any], *, base_dir: Path, source: str = "case", source_sha256: str | None = None,
    data_roots: tuple[Path, ...] = (),
) -> CaseSpec:
    """Validate a parsed case file; errors name the section, the key and the fix.

    Besides the schema, the background files and ``template_dir`` must exist and the
    verbal scale must be a shipped key or a valid JSON scale file (paths relative to
    ``base_dir``, inside it or one of ``data_roots``: see :meth:`CaseSpec.resolve`).
    """
    from .verbal import load_scale

    internal = [k for k in _INTERNAL_KEYS if k in data]
    if internal:
        raise InputError(
            f"{source}: the case file has 1 problem(s):\n  - (top level) {internal[0]}: "
            "unknown key; remove it or check its spelling against `forensic-lr init`"
        )
    try:
        spec = CaseSpec.model_validate(
            {**data, "base_dir": base_dir, "source_sha256": source_sha256,
             "data_roots": tuple(data_roots)}
        )
    except ValidationError as exc:
        raise InputError(_format_validation_error(source, exc)) from None
    from ..calibration import extra_inputs

    def resolved(section: str, key: str, name: str) -> Path:
        try:
            return spec.resolve(name)
        except InputError as exc:
            raise InputError(f"{source}: [{section}] {key}: {exc}") from None

    for key in ("ss", "ds", "scores", *extra_inputs()):
        name = getattr(spec.background, key)
        if name is not None and not resolved("background", key, name).is_file():
            raise InputError(
                f"{source}: [background] {key}: file not found: {spec.resolve(name)}; "
                "paths are relative to the case file's folder"
            )
    template_dir = spec.report.template_dir
    if template_dir is not None and not resolved("report", "template_dir", template_dir).is_dir():
        raise InputError(
            f"{source}: [report] template_dir: folder not found: {spec.resolve(template_dir)}; "
            "remove the key to use the shipped templates"
        )
    scale = spec.report.verbal_scale
    if scale.lower().endswith(".json"):
        scale = str(resolved("report", "verbal_scale", scale))
    try:
        load_scale(scale)
    except InputError as exc:
        raise InputError(f"{source}: [report] verbal_scale: {exc}") from None
    return spec


def load_case(path: str | Path, *, data_roots: tuple[Path, ...] = ()) -> CaseSpec:
    """Read and validate a case file (``.toml`` or ``.json``).

    Paths in the case file must lie inside its folder or one of ``data_roots`` (folders
    a lab profile names for shared background data).

    Raises
    ------
    InputError
        The file is missing, is not valid TOML/JSON, or breaks the schema
        (the message lists every problem with its section and key).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"case file not found: {path}")
    raw = path.read_bytes()
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(raw)
        else:
            data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot parse the case file ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: the case file must be a table of sections")
    return case_from_dict(
        data,
        base_dir=path.resolve().parent,
        source=str(path),
        source_sha256=hashlib.sha256(raw).hexdigest(),
        data_roots=data_roots,
    )


# --------------------------------------------------------------------------- template

_TEMPLATE = '''\
# forensic-lr case file. Lines starting with '#' are comments. Every optional key is
# shown with its default value; delete what you do not need. Full reference:
# docs/user/case-file.md. Run with:  forensic-lr run case.toml --out report

[case]
id = "CASE-0001"              # required: the laboratory's case number (letters, digits, ._/ -)
# report_id = "CASE-0001-R1"  # default: "<id>-R1"
title = ""                    # e.g. "Comparison of an intercepted call with a reference recording"
laboratory = ""               # name of the laboratory
examiner = ""                 # name of the examiner who signs the report
# date = 2026-01-31           # date of the report (TOML date); default: not shown
requester = ""                # who asked for the examination
instructions = ""             # the questions the requester asked
conditioning = ""             # the case information the evaluation relies on
# items = [                   # the items received and examined
#   { id = "Q1", description = "questioned recording" },
#   { id = "K1", description = "reference recording of the suspect" },
# ]                           # optional per item: received = "2026-02-28, sealed bag 1"
                              #   and examined = "2 min 40 s of net speech"
# declaration = ""            # the examiner's declaration; default: the report's standard
                              #   statement (independence, duty to the court, competence)

[propositions]                # required: a pair of mutually exclusive propositions
hp = "The questioned and reference items come from the same source."
hd = "The questioned and reference items come from different sources."

[evidence]
score = 0.0                   # required: the comparison score of this case (or:
# scores = [1.2, 3.4]         #   several scores, then give one of the two only)
# labels = ["Q1-K1", "Q2-K1"] # one name per score; default "Q1-K1" for one score and
                              #   two items (their ids), else "E1", "E2", ...
description = ""             # how the score was obtained (system, version, settings)
score_direction = "higher_is_similar"   # or "lower_is_similar" for distances

[background]                  # paths relative to this file
ss = "ss.csv"                 # same-source scores (Hp true), one per line
ds = "ds.csv"                 # different-source scores (Hd true), one per line
# scores = "scores.csv"       # instead of ss/ds: one file with label,score columns
# suspect_ss = "suspect_ss.csv"  # calibrator "suspect_map" only: the suspect's own
                              #   same-source scores under the case conditions (>= 2)
# unlabelled = "unlabelled.csv"  # calibrator "unsupervised" only (and required by it):
                              #   case-condition scores of unknown ground truth (>= 10)
description = ""             # what population and conditions the background represents

[method]
calibrator = "bayes"          # gaussian | bayes | logistic | pav | kde | scal | student_t
                              #   | suspect_map | unsupervised
elub = false                  # bound the LR by ELUB (Vergeer et al. 2016)

[method.options]              # options of the calibrator, e.g. equal_variance = true
                              # (gaussian), mode = "map" (bayes), relevance = 16
                              # (suspect_map), prior_weight = 10 (unsupervised); default: none

[uncertainty]
method = "bootstrap"          # bootstrap | bayes (calibrator "bayes" only) | none
level = 0.95                  # coverage of the interval (between 0.5 and 1)
n = 1000                      # bootstrap replicates or posterior draws (100 to 100000)
seed = 20261122               # random seed: same seed, same result

[validation]
folds = 5                     # K-fold cross-validation of the method (2 to 50)
conditions = ""               # how the validation data (speakers, devices, durations,
                              #   conditions) compare with this case's; printed in the report
study = ""                    # reference to a separate validation study of the method, if any

[validation.criteria]         # optional laboratory criteria on the cross-validated metrics
# cllr_max = 0.5              # Cllr (bits) at most
# min_cllr_max = 0.4          # minimum Cllr (bits) at most
# cllr_cal_max = 0.1          # calibration loss Cllr - minCllr (bits) at most
# eer_max = 0.1               # equal error rate at most
# auc_min = 0.9               # area under the ROC curve at least
# rmep_max = 0.1              # rate of misleading evidence for Hp (SS with LR < 1) at most
# rmed_max = 0.1              # rate of misleading evidence for Hd (DS with LR > 1) at most
# devpav_max = 0.5            # devPAV calibration deviation at most

[report]
language = "en"
verbal_scale = "enfsi"        # enfsi | afsp | nfc | path of a lab's JSON scale file
formats = ["pdf", "html", "json"]
# template_dir = "templates"  # a lab's template folder, searched before the shipped one
# prior_odds_table = false    # leave out annex A's table of illustrative prior odds
'''


def case_template() -> str:
    """A commented case file with every key and its default (``forensic-lr init``)."""
    return _TEMPLATE
