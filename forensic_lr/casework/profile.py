"""The laboratory's profile (``lab.toml``): the lab's defaults and policy for every case.

A profile states who the laboratory is (name, logo), the verbal scale it uses and who
confirmed it when, its validation criteria with their SOP reference and date, its ELUB
and opinion policy, its default calibrator and uncertainty settings, whether reports
carry the prior-odds table, the report language, its template folder and extra data
folders. A case names it with ``[report] lab_profile = "..."`` (relative to the case
file; it may lie outside the case folder) or ``forensic-lr run --lab FILE`` gives it.

Precedence, for every setting: command line > case file > profile > built-in default.
:func:`apply_profile` merges the three layers into the case's data before validation and
records where each policy setting (:data:`POLICY_KEYS`) came from; the report prints that
table. Paths in a profile are relative to the profile's folder.

Who gave the profile decides what it may do. The **laboratory's** profile (given with
``--lab``, or named by the case but lying outside every case folder) is a floor: a case
may tighten its criteria and opinion thresholds, never loosen them (:data:`FLOOR`), unless
the case writes ``[opinion] lab_override = true`` with a justification, printed on page 1;
and it may widen where the case reads from (``[data] roots``, a logo, template folder or
scale file outside the case folder). A profile **inside the case folder** is part of the
case: it supplies defaults like the case file, sets no floor, and may name no data roots
and no file outside the case folder.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    model_validator,
)

from ..calibration import CALIBRATORS
from ..errors import InputError, excerpt
from ..i18n import N_
from ..i18n.messages import english
from ..io.paths import input_file, input_folder, resolve_path
from ..io.settings_files import read_settings_file
from ..limits import LIMITS
from ..metrics.catalogue import CRITERIA
from ..records import BOUNDS_TERMS, BoundsRule, LabInfo, PolicySetting, jsonable
from .case_template import case_template
from .schema import (
    BEYOND_BACKGROUND,
    BeyondBackground,
    Criteria,
    ReportLanguage,
    check_fixed_bounds,
    format_validation_error,
)

__all__ = [
    "FLOOR", "POLICY_KEYS", "LabProfile", "ProfileApplied", "apply_profile", "criterion_label",
    "load_profile", "policy_settings", "profile_template", "relation", "setting_label",
    "setting_value_text",
]


class _Table(BaseModel):
    """A table of a lab profile; numbers, whole numbers and true/false are typed strictly,
    as in a case file (:class:`forensic_lr.casework.schema.Section`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Laboratory(_Table):
    name: str = ""
    logo: str | None = Field(default=None, description="PNG, JPEG or SVG file, embedded")


class ScaleTable(_Table):
    scale: str | None = None
    confirmed_by: str = ""
    confirmed_on: datetime.date | None = None
    below_first_band: Literal["number", "neutral", "limited"] | None = None


class CriteriaTable(Criteria):
    """``[criteria]``: the case file's criteria with the SOP they come from and its date."""

    sop: str = ""
    date: datetime.date | None = None
    rule: Literal["estimate_and_bound", "estimate"] | None = None


class MethodTable(_Table):
    calibrator: str | None = None
    elub: StrictBool | None = None
    elub_from: Literal["cross-validated", "in-sample"] | None = None
    bounds: BoundsRule | None = None
    fixed_bounds: tuple[StrictFloat, StrictFloat] | None = None

    @model_validator(mode="after")
    def _fixed_bounds(self) -> MethodTable:
        check_fixed_bounds(self.bounds, self.fixed_bounds)
        return self


class UncertaintyTable(_Table):
    method: Literal["bootstrap", "bayes", "none"] | None = None
    level: StrictFloat | None = Field(default=None, gt=0.5, lt=1.0)
    n: StrictInt | None = Field(default=None, ge=100, le=LIMITS["replicates"].most)


class OpinionTable(_Table):
    slope_min: StrictFloat | None = Field(default=None, gt=0, lt=1)
    slope_max: StrictFloat | None = Field(default=None, gt=1)
    offset_max: StrictFloat | None = Field(default=None, gt=0)
    monotonic_tolerance_log10: StrictFloat | None = Field(default=None, ge=0, le=1)
    monotonic_quantiles: tuple[StrictFloat, StrictFloat] | None = None
    beyond_background: BeyondBackground | None = None


class ReportTable(_Table):
    language: ReportLanguage | None = None
    template_dir: str | None = None
    prior_odds_table: StrictBool | None = None


class DataTable(_Table):
    roots: tuple[str, ...] = ()


class ValidationTable(_Table):
    folds: StrictInt | None = Field(default=None, ge=2, le=50)


class SigningTable(_Table):
    """``[signing]``: the certificate final reports are signed with
    (:mod:`forensic_lr.casework.signing`); the passphrase is never stored here."""

    certificate: str | None = Field(default=None, description="PKCS#12 file (.p12/.pfx)")
    passphrase_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                                       description="environment variable with the passphrase")
    role: str = Field(default="", max_length=200)
    tsa_url: str | None = Field(default=None, pattern=r"^https?://\S+$", max_length=2000,
                                description="timestamp authority (RFC 3161) for PAdES-B-LTA")
    ca_certificates: tuple[str, ...] = Field(
        default=(), description="CA certificates (PEM/DER) the signer's and the timestamp "
        "authority's certificates chain to, for the long-term validation data")


class RecordsTable(_Table):
    """``[records]``: how long the web app keeps a closed case (final or withdrawn) before an
    administrator may delete it, in years from its closing. Not set: no case is deleted."""

    retention_years: StrictInt | None = Field(default=None, ge=0, le=100)


class LabProfile(_Table):
    """A laboratory profile, validated (unknown keys are errors)."""

    laboratory: Laboratory = Field(default_factory=Laboratory)
    verbal_scale: ScaleTable = Field(default_factory=ScaleTable)
    criteria: CriteriaTable = Field(default_factory=CriteriaTable)
    method: MethodTable = Field(default_factory=MethodTable)
    uncertainty: UncertaintyTable = Field(default_factory=UncertaintyTable)
    opinion: OpinionTable = Field(default_factory=OpinionTable)
    report: ReportTable = Field(default_factory=ReportTable)
    data: DataTable = Field(default_factory=DataTable)
    validation: ValidationTable = Field(default_factory=ValidationTable)
    signing: SigningTable = Field(default_factory=SigningTable)
    records: RecordsTable = Field(default_factory=RecordsTable)


#: The policy settings the report's annex lists: (section, key, label). The case-file key
#: is ``[section] key``; for ``validation.criteria.*`` the criteria the lab sets.
POLICY_KEYS: tuple[tuple[str, str, str], ...] = (
    ("method", "calibrator", N_("calibration method")),
    ("method", "elub", N_("bounds applied to the reported LR")),
    ("opinion", "beyond_background", N_("an evidence score outside the background range")),
    ("method", "elub_from", N_("LRs the ELUB or invariance-verification bounds come from")),
    ("method", "bounds", N_("rule of the bounds on the reported LR")),
    ("uncertainty", "method", N_("interval method")),
    ("uncertainty", "level", N_("interval level")),
    ("report", "verbal_scale", N_("verbal scale")),
    ("report", "below_first_band", N_("wording below the scale's first band")),
    ("report", "prior_odds_table", N_("prior-odds table in annex A")),
    ("opinion", "slope_min", N_("lowest recalibration slope accepted")),
    ("opinion", "slope_max", N_("highest recalibration slope accepted")),
    ("opinion", "offset_max", N_("largest |recalibration offset| accepted (natural log)")),
    ("opinion", "monotonic_tolerance_log10", N_("largest fall of the LR curve accepted (log10)")),
    ("opinion", "monotonic_quantiles", N_("span of the monotonicity check (class quantiles)")),
    ("opinion", "override", N_("opinion given despite reasons to withhold")),
    ("opinion", "lab_override", N_("settings looser than the laboratory's profile applied")),
    ("validation", "folds", N_("cross-validation folds")),
    ("validation", "criteria_rule", N_("a validation criterion is met by")),
)
_CRITERIA = tuple(Criteria.model_fields)
#: Where a policy setting came from, as annex E prints it (translated there): the values
#: of :attr:`forensic_lr.records.PolicySetting.source`.
SETTING_SOURCES = FROM_COMMAND_LINE, FROM_CASE, FROM_LAB, FROM_CASE_PROFILE, FROM_DEFAULT = (
    N_("command line"), N_("case file"), N_("lab profile"), N_("case folder's profile"),
    N_("default"))

#: What a keyword value of a policy setting means, as annex E prints it beside the
#: keyword (in the report's language; section 4 words the beyond-background rule with
#: it); the calibration method's is its title.
SETTING_VALUES: dict[str, dict[str, str]] = {
    # ELUB is its name in every language: annex E spells it out
    "method.bounds": {**BOUNDS_TERMS, "elub": N_("empirical lower and upper bounds (ELUB)")},
    "opinion.beyond_background": {
        "withhold": N_("withheld"),
        "withhold-unbounded": N_("withheld unless the bounds applied to the reported LR "
                                 "limit it, and then only the limited value is reported"),
        "report": N_("reported, with its reliance on extrapolation stated"),
    },
    "method.elub_from": {
        "cross-validated": N_("the cross-validated LRs (the background comparisons each "
                              "model did not see)"),
        "in-sample": N_("the LRs the model fitted on all background data gives its own "
                        "background comparisons (in-sample, the rule of the lir package)"),
    },
    "uncertainty.method": {
        "bootstrap": N_("bootstrap confidence interval"),
        "bayes": N_("Bayesian credible interval"),
        "none": N_("no interval"),
    },
    "report.below_first_band": {
        "number": N_("the number only, without a verbal equivalent"),
        "neutral": N_("the scale's neutral wording"),
        "limited": N_('"limited support"'),
    },
}


def criterion_label(key: str) -> tuple[str, dict[str, str]] | None:
    """The label of a validation criterion's setting ``validation.criteria.<name>`` as a
    code of the messages catalogue and its parameters (``policy.setting.criterion_at_most``,
    ``metric_term`` the metric's label), or None for another key."""
    section, _, name = key.rpartition(".")
    if section != "validation.criteria" or name not in CRITERIA:
        return None
    side = "at_least" if name.endswith("_min") else "at_most"
    return f"policy.setting.criterion_{side}", {"metric_term": CRITERIA[name].label}


def setting_label(key: str) -> str:
    """The English label of policy setting ``key``: its text in :data:`POLICY_KEYS` (of
    the report catalogue), a criterion's sentence (:func:`criterion_label`), else the
    case-file key (``[uncertainty] n``)."""
    criterion = criterion_label(key)
    if criterion is not None:
        return english(criterion[0], **criterion[1])
    section, _, name = key.rpartition(".")
    return next((label for s, k, label in POLICY_KEYS if f"{s}.{k}" == key),
                f"[{section}] {name}")


def setting_value_text(key: str, value: Any) -> str:
    """What the keyword ``value`` of policy setting ``key`` means, a catalogue text
    (:data:`SETTING_VALUES`; the calibration method's title), or ``""`` for a value that
    is not such a keyword (a number, a scale's name, a file)."""
    if key == "method.calibrator" and isinstance(value, str):
        return CALIBRATORS[value].title if value in CALIBRATORS else ""
    return SETTING_VALUES.get(key, {}).get(value, "") if isinstance(value, str) else ""


#: How a case may depart from the laboratory's profile without loosening its policy, per
#: key: ``"max"`` (a lower value is stricter, a higher one looser), ``"min"`` (the
#: reverse), ``"span"`` (a wider ``(low, high)`` is stricter, a narrower one looser),
#: ``"inside"`` (a ``(low, high)`` within the laboratory's is stricter, one reaching beyond
#: it looser), ``"on"`` (on is stricter than off), ``"rule"`` (the estimate alone is looser
#: than the estimate and its bound), ``"same"`` (any other value is looser) or the values in
#: order from the strictest (a later one is looser). Keys not listed may differ freely;
#: annex E marks the difference.
FLOOR: dict[str, str | tuple[str, ...]] = {
    **{f"validation.criteria.{k}": ("min" if k.endswith("_min") else "max") for k in _CRITERIA},
    "opinion.slope_min": "min",
    "opinion.slope_max": "max",
    "opinion.offset_max": "max",
    "opinion.monotonic_tolerance_log10": "max",
    "opinion.monotonic_quantiles": "span",
    "validation.folds": "min",
    "validation.criteria_rule": "rule",
    "method.elub": "on",
    "method.elub_from": "same",
    "method.bounds": "same",
    "method.fixed_bounds": "inside",
    "opinion.beyond_background": BEYOND_BACKGROUND,
    "report.verbal_scale": "same",
    "report.below_first_band": "same",
}


def relation(key: str, value: Any, lab_value: Any) -> str:
    """How a case's ``value`` of ``key`` compares with the laboratory's ``lab_value``.

    ``""`` (equal), ``"stricter"``, ``"looser"`` (by :data:`FLOOR`) or ``"differs"`` (a
    key the laboratory's floor does not cover).
    """
    if isinstance(value, list | tuple):
        value, lab_value = tuple(value), tuple(lab_value)
    if value == lab_value:
        return ""
    kind = FLOOR.get(key)
    if kind is None:
        return "differs"
    if isinstance(kind, tuple):
        return "stricter" if kind.index(value) < kind.index(lab_value) else "looser"
    if kind == "same":
        return "looser"
    if kind == "on":
        return "stricter" if value else "looser"
    if kind == "rule":
        return "looser" if value == "estimate" else "stricter"
    if kind == "span":
        wider = value[0] <= lab_value[0] and value[1] >= lab_value[1]
        return "stricter" if wider else "looser"
    if kind == "inside":
        within = value[0] >= lab_value[0] and value[1] <= lab_value[1]
        return "stricter" if within else "looser"
    lower = value < lab_value
    return "stricter" if lower == (kind == "max") else "looser"


@dataclass(frozen=True)
class ProfileApplied:
    """The case's data with the profile and overrides merged in, and what the profile said."""

    data: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    lab: LabInfo | None = None
    sha256: str | None = None
    data_roots: tuple[Path, ...] = ()


def _format_errors(path: Path, exc: ValidationError) -> str:
    """One line per problem, worded as for a case file (key, value as written, the fix)."""
    return format_validation_error(str(path), exc, "lab profile")


def load_profile(path: str | Path, *, confine_to: Path | None = None
                 ) -> tuple[LabProfile, str]:
    """Read and validate a lab profile; returns it and the file's SHA-256.

    ``confine_to``: the case folder of a profile that lies in it. Such a profile may not
    set ``[data] roots``, and its logo, template folder and scale file must lie inside the
    folder (after symbolic links), checked before any of them is looked at.

    Raises
    ------
    InputError
        Missing or unparsable file, unknown keys, bad values, an unknown calibrator, a
        missing logo or template folder, or a confined profile reaching out of its folder
        (naming the file and the key).
    """
    from ..calibration import CALIBRATORS

    path = input_file(path, "lab profile")
    raw = path.read_bytes()
    data = read_settings_file(path, "lab profile")
    try:
        profile = LabProfile.model_validate(data)
    except ValidationError as exc:
        raise InputError(_format_errors(path, exc)) from None
    name = profile.method.calibrator
    if name is not None and name not in CALIBRATORS:
        raise InputError(f"{path}: [method] calibrator: unknown calibrator {name!r}; choose "
                         f"one of {sorted(CALIBRATORS)}")
    folder = resolve_path(path).parent
    if confine_to is not None:
        _confine(path, profile, folder, resolve_path(confine_to))
    checks = [("laboratory", "logo", profile.laboratory.logo, input_file),
              ("signing", "certificate", profile.signing.certificate, input_file),
              ("report", "template_dir", profile.report.template_dir, input_folder)]
    checks += [("data", "roots", root, input_folder) for root in profile.data.roots]
    checks += [("signing", "ca_certificates", cert, input_file)
               for cert in profile.signing.ca_certificates]
    for section, key, value, check in checks:
        try:
            if value is not None:
                check(folder / value, hint="paths in a lab profile are relative to the "
                      "profile's folder")
        except InputError as exc:
            raise InputError(f"{path}: [{section}] {key}: {exc}") from None
    return profile, hashlib.sha256(raw).hexdigest()


def _confine(path: Path, profile: LabProfile, folder: Path, case_folder: Path) -> None:
    """Refuse what a profile inside a case folder may not do (see the module's notes)."""
    refusal = ("a profile inside the case folder is part of the case and may not {}; only "
               "the laboratory's profile (given with --lab, or kept outside every case "
               "folder) may (docs/user/trust-model.md)")
    if profile.data.roots:
        raise InputError(f"{path}: [data] roots: " + refusal.format(
            "add folders the case may read from"))
    if profile.signing.certificate is not None:
        raise InputError(f"{path}: [signing] certificate: " + refusal.format(
            "name a signing certificate"))
    scale = profile.verbal_scale.scale
    named = [("laboratory", "logo", profile.laboratory.logo),
             ("report", "template_dir", profile.report.template_dir),
             ("verbal_scale", "scale", scale if scale and scale.lower().endswith(".json")
              else None)]
    for section, key, value in named:
        if value is None:
            continue
        if "\x00" in value or not resolve_path(folder / value).is_relative_to(case_folder):
            raise InputError(f"{path}: [{section}] {key}: {excerpt(value)} leads outside the "
                             "case folder (after symbolic links); " + refusal.format(
                                 "name a file outside it"))


def _profile_values(profile: LabProfile, folder: Path) -> dict[str, dict[str, Any]]:
    """The profile's settings under the case file's sections and keys (paths absolute)."""
    values: dict[str, dict[str, Any]] = {
        "method": profile.method.model_dump(exclude_none=True),
        "uncertainty": profile.uncertainty.model_dump(exclude_none=True),
        "opinion": profile.opinion.model_dump(exclude_none=True),
        "report": profile.report.model_dump(exclude_none=True),
        "validation.criteria": profile.criteria.model_dump(include=set(_CRITERIA),
                                                           exclude_none=True),
        "validation": profile.validation.model_dump(exclude_none=True),
    }
    if profile.criteria.rule is not None:
        values["validation"]["criteria_rule"] = profile.criteria.rule
    if profile.laboratory.name:
        values["case"] = {"laboratory": profile.laboratory.name}
    scale = profile.verbal_scale
    if scale.scale is not None:
        is_file = scale.scale.lower().endswith(".json")
        values["report"]["verbal_scale"] = str(folder / scale.scale) if is_file else scale.scale
    if scale.below_first_band is not None:
        values["report"]["below_first_band"] = scale.below_first_band
    if "template_dir" in values["report"]:
        values["report"]["template_dir"] = str(folder / values["report"]["template_dir"])
    return values


def _table(data: dict[str, Any], dotted: str) -> dict[str, Any] | None:
    """The sub-table ``a.b`` of ``data`` (None when absent or not a table)."""
    for part in dotted.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def _set(data: dict[str, Any], dotted: str, key: str, value: Any) -> None:
    table = data
    for part in dotted.split("."):
        table = table.setdefault(part, {})
        if not isinstance(table, dict):  # a malformed case: validation will name it
            return
    table[key] = value


def _case_key(section: str, key: str) -> str:
    """``method.method`` is how a case may spell ``method.calibrator``."""
    return "method" if (section, key) == ("method", "calibrator") else key


def _blank(value: Any) -> bool:
    """``""`` (or only spaces) counts as not set: the profile's value applies."""
    return isinstance(value, str) and not value.strip()


def _given(table: dict[str, Any], section: str, key: str) -> bool:
    """Whether a case table sets ``key`` (either spelling), to something not blank."""
    return any(k in table and not _blank(table[k]) for k in {_case_key(section, key), key})


def _value(table: dict[str, Any], section: str, key: str) -> Any:
    return table.get(_case_key(section, key), table.get(key))


def _inside(path: Path, folders) -> bool:
    resolved = resolve_path(path)
    return any(resolved.is_relative_to(resolve_path(f)) for f in folders)


def _comparable(key: str, value: Any, base: Path) -> Any:
    """A value as the floor compares it: a scale file as its absolute path."""
    if key == "report.verbal_scale" and isinstance(value, str) and value.lower().endswith(
            ".json"):
        return str(resolve_path(base / value))
    return value


def _looser_message(source: str, profile_path: Path, looser: list[tuple[str, Any, Any, str]]
                    ) -> str:
    lines = [f"{source}: the case loosens the laboratory's policy ({profile_path}), which a "
             "case may tighten but not loosen:"]
    for key, value, lab_value, where in looser:
        section, _, name = key.rpartition(".")
        lines.append(f"  - [{section}] {name} = {value!r} ({where}): the laboratory's profile "
                     f"sets {lab_value!r}")
    lines.append(
        "  remove these keys (the laboratory's values apply) or make them stricter; to depart "
        "from the laboratory's policy in this case, add under [opinion] lab_override = true "
        'and lab_override_justification = "why" (printed on page 1 of the report)')
    return "\n".join(lines)


def apply_profile(data: dict[str, Any], *, base_dir: Path, source: str = "case",
                  lab: str | Path | None = None,
                  overrides: dict[str, dict[str, Any]] | None = None,
                  case_folders: tuple[Path, ...] = ()) -> ProfileApplied:
    """Merge command-line overrides, the case file and the lab profile (in that order).

    Parameters
    ----------
    data : dict
        The parsed case file (not changed).
    base_dir : Path
        The case file's folder (``[report] lab_profile`` is relative to it).
    source : str
        The case file's name, for messages.
    lab : path, optional
        A profile given on the command line; wins over the case's ``lab_profile``.
    overrides : dict, optional
        Command-line settings by section, e.g. ``{"method": {"elub": False}}``.
    case_folders : tuple of Path
        Other case folders of the run (a batch): a profile in one of them is a case's.

    Returns
    -------
    ProfileApplied
        The merged data, ``sources`` (``"section.key"`` -> ``"command line"``, ``"case
        file"``, ``"lab profile"``, ``"case folder's profile"`` or ``"default"`` for each of
        :data:`POLICY_KEYS` and each criterion set), what the profile states about the lab
        (with its values, and whether it sets a floor), its SHA-256 and its data folders
        (absolute; for the laboratory's profile, the template folder, logo and scale file
        are added so that the case may use them).

    Raises
    ------
    InputError
        A profile in the case folder that reaches out of it (see :func:`load_profile`), or
        a case or command line that loosens the laboratory's profile (:data:`FLOOR`)
        without ``[opinion] lab_override = true``: every such key is named.
    """
    merged = copy.deepcopy(data)
    case_has = {
        f"{section}.{key}" for section, key, _ in POLICY_KEYS
        if _given(_table(data, section) or {}, section, key)
    }
    case_has |= {f"validation.criteria.{k}"
                 for k, v in (_table(data, "validation.criteria") or {}).items() if not _blank(v)}
    profile_path = lab
    report = _table(data, "report") or {}
    if profile_path is None and isinstance(report.get("lab_profile"), str):
        profile_path = Path(base_dir) / report["lab_profile"]
    from_profile: set[str] = set()
    lab_info, sha256, roots, owned, floor = None, None, [], {}, False
    if profile_path is not None:
        profile_path = Path(profile_path)
        # the laboratory's own profile, or one the case brought along in its folder
        floor = lab is not None or not _inside(profile_path, (base_dir, *case_folders))
        try:
            profile, sha256 = load_profile(profile_path,
                                           confine_to=None if floor else Path(base_dir))
        except InputError as exc:
            where = "--lab" if lab is not None else "[report] lab_profile"
            raise InputError(f"{source}: {where}: {exc}") from None
        folder = resolve_path(profile_path).parent
        owned = _profile_values(profile, folder)
        for section, values in owned.items():
            table = _table(merged, section) or {}
            for key, value in values.items():
                if _given(table, section, key):
                    continue
                table.pop(_case_key(section, key), None)  # a blank value counts as unset
                _set(merged, section, key, value)
                from_profile.add(f"{section}.{key}")
        if floor:  # the laboratory's own folders and files (never a path the case names)
            roots = [folder / r for r in profile.data.roots]
            roots += [Path(v) for v in (owned["report"].get("template_dir"),
                                        owned["report"].get("verbal_scale"))
                      if v is not None and Path(v).is_absolute()]
        logo = profile.laboratory.logo
        # the confirmation holds for the profile's scale only, not one the case chose
        profile_scale = owned["report"].get("verbal_scale")
        confirms = profile_scale is not None and (
            (_table(merged, "report") or {}).get("verbal_scale") == profile_scale
        )
        lab_info = LabInfo(
            name=profile.laboratory.name,
            logo=str(folder / logo) if logo else "",
            profile_file=str(profile_path),
            scale_confirmed_by=profile.verbal_scale.confirmed_by if confirms else "",
            scale_confirmed_on=profile.verbal_scale.confirmed_on if confirms else None,
            criteria_sop=profile.criteria.sop,
            criteria_date=profile.criteria.date,
            sets_floor=floor,
            values={f"{s}.{k}": jsonable(v) for s, vs in owned.items() for k, v in vs.items()
                    if s != "case"},
        )
    from_cli: set[str] = set()
    for section, values in (overrides or {}).items():
        for key, value in values.items():
            table = merged.setdefault(section, {})
            if isinstance(table, dict):
                table.pop(_case_key(section, key), None)
                table[key] = value
            from_cli.add(f"{section}.{key}")
    if floor:
        _hold_the_floor(merged, owned, base_dir, source, profile_path, from_cli)
    keys = [f"{s}.{k}" for s, k, _ in POLICY_KEYS]
    keys += sorted({k for k in case_has | from_profile if k.startswith("validation.criteria.")})
    own = FROM_LAB if floor else FROM_CASE_PROFILE
    sources = {
        k: FROM_COMMAND_LINE if k in from_cli else FROM_CASE if k in case_has
        else own if k in from_profile else FROM_DEFAULT
        for k in keys
    }
    return ProfileApplied(data=merged, sources=sources, lab=lab_info, sha256=sha256,
                          data_roots=tuple(roots))


def _hold_the_floor(merged: dict[str, Any], owned: dict[str, dict[str, Any]], base_dir: Path,
                    source: str, profile_path: Path, from_cli: set[str]) -> None:
    """Refuse every value of the case (or command line) looser than the laboratory's."""
    opinion = _table(merged, "opinion") or {}
    if opinion.get("lab_override") is True:
        return  # the departure and its justification are printed on page 1
    looser = []
    for section, values in owned.items():
        table = _table(merged, section) or {}
        for key, lab_value in values.items():
            dotted = f"{section}.{key}"
            if dotted not in FLOOR or not _given(table, section, key):
                continue
            value = _value(table, section, key)
            try:
                how = relation(dotted, _comparable(dotted, value, Path(base_dir)), lab_value)
            except TypeError:  # a value of the wrong type: the case's validation names it
                continue
            if how == "looser":
                looser.append((dotted, value, lab_value,
                               FROM_COMMAND_LINE if dotted in from_cli else FROM_CASE))
    if looser:
        raise InputError(_looser_message(source, profile_path, looser))


def policy_settings(spec) -> tuple[PolicySetting, ...]:
    """The policy settings of a validated case, where each came from and, under the
    laboratory's profile, how a value the case set compares with the laboratory's.

    ``spec.settings_sources`` (set by :func:`apply_profile`) gives the source; a spec
    built without it (e.g. in Python) counts a key it sets as from the case file. A key the
    laboratory's profile sets and the case (or command line) changed gets the profile's
    value in ``lab_value`` and ``relation`` ``"stricter"``, ``"looser"`` (only with
    ``[opinion] lab_override``) or ``"differs"``; such a key outside :data:`POLICY_KEYS`
    (e.g. ``uncertainty.n``) is listed too.
    """
    rows = []
    lab_values = spec.lab.values if spec.lab is not None and spec.lab.sets_floor else {}
    keys = list(spec.settings_sources) or [f"{s}.{k}" for s, k, _ in POLICY_KEYS]
    listed = set(keys)
    keys += [k for k in lab_values if k not in listed]
    for key in keys:
        section, _, name = key.rpartition(".")
        table = spec
        for part in section.split("."):
            table = getattr(table, part)
        source = spec.settings_sources.get(key) or (
            FROM_CASE if name in table.model_fields_set else FROM_DEFAULT
        )
        value = jsonable(getattr(table, name))
        lab_value, how = None, ""
        if key in lab_values and source in (FROM_CASE, FROM_COMMAND_LINE):
            how = relation(key, _comparable(key, value, spec.base_dir), lab_values[key])
            lab_value = lab_values[key] if how else None
        if key not in listed and not how:
            continue  # a profile key outside the policy table, applied as the lab set it
        rows.append(PolicySetting(key=key, label=setting_label(key), value=value, source=source,
                                  lab_value=lab_value, relation=how))
    return tuple(rows)


_HEADER = re.compile(r"^\[([a-z_.]+)\]")
_KEY = re.compile(r"^(?:#\s*)?([a-z_0-9]+)\s*=")


def profile_template(path: str | Path) -> str:
    """The ``init`` case-file template without the keys the lab profile at ``path`` sets.

    Each such key (written or commented out in the template), with its continuation
    comment lines, becomes ``# key: set by the laboratory's profile``, so that the case
    file does not repeat (and, written, silently override) the laboratory's setting.
    """
    profile, _ = load_profile(path)
    owned = _profile_values(profile, resolve_path(path).parent)
    keys = {f"{s}.{k}" for s, values in owned.items() for k in values}
    out = [f"# The laboratory's profile {Path(path).name} sets the keys marked below; run "
           f"with --lab {path}"]
    section, skipping = "", False
    for line in case_template().splitlines():
        header = _HEADER.match(line)
        if header:
            section, skipping = header.group(1), False
        elif skipping and line.startswith(" ") and line.lstrip().startswith("#"):
            continue  # the continuation of a key's comment
        else:
            skipping = False
            key = _KEY.match(line)
            if key and f"{section}.{key.group(1)}" in keys:
                out.append(f"# {key.group(1)}: set by the laboratory's profile")
                skipping = True
                continue
        out.append(line)
    return "\n".join(out) + "\n"
