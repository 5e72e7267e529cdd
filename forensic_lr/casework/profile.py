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
"""

from __future__ import annotations

import copy
import datetime
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InputError
from ..io.paths import input_file, input_folder, resolve_path
from ..io.settings_files import read_settings_file
from ..metrics.catalogue import CRITERIA
from ..records import LabInfo, PolicySetting, jsonable
from .spec import Criteria

__all__ = [
    "POLICY_KEYS", "LabProfile", "ProfileApplied", "apply_profile", "load_profile",
    "policy_settings",
]


class _Table(BaseModel):
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


class MethodTable(_Table):
    calibrator: str | None = None
    elub: bool | None = None


class UncertaintyTable(_Table):
    method: Literal["bootstrap", "bayes", "none"] | None = None
    level: float | None = Field(default=None, gt=0.5, lt=1.0)
    n: int | None = Field(default=None, ge=100, le=100_000)


class OpinionTable(_Table):
    slope_min: float | None = Field(default=None, gt=0, lt=1)
    slope_max: float | None = Field(default=None, gt=1)
    offset_max: float | None = Field(default=None, gt=0)
    monotonic_tolerance_log10: float | None = Field(default=None, ge=0, le=1)
    monotonic_quantiles: tuple[float, float] | None = None


class ReportTable(_Table):
    language: Literal["en"] | None = None
    template_dir: str | None = None
    prior_odds_table: bool | None = None


class DataTable(_Table):
    roots: tuple[str, ...] = ()


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


#: The policy settings the report's annex lists: (section, key, label). The case-file key
#: is ``[section] key``; for ``validation.criteria.*`` the criteria the lab sets.
POLICY_KEYS: tuple[tuple[str, str, str], ...] = (
    ("method", "calibrator", "calibration method"),
    ("method", "elub", "ELUB bounding of the reported LR"),
    ("uncertainty", "method", "interval method"),
    ("uncertainty", "level", "interval level"),
    ("report", "verbal_scale", "verbal scale"),
    ("report", "below_first_band", "wording below the scale's first band"),
    ("report", "prior_odds_table", "prior-odds table in annex A"),
    ("opinion", "slope_min", "lowest recalibration slope accepted"),
    ("opinion", "slope_max", "highest recalibration slope accepted"),
    ("opinion", "offset_max", "largest |recalibration offset| accepted (natural log)"),
    ("opinion", "monotonic_tolerance_log10", "largest fall of the LR curve accepted (log10)"),
    ("opinion", "monotonic_quantiles", "span of the monotonicity check (class quantiles)"),
    ("opinion", "override", "opinion given despite reasons to withhold"),
)
_CRITERIA = tuple(Criteria.model_fields)


@dataclass(frozen=True)
class ProfileApplied:
    """The case's data with the profile and overrides merged in, and what the profile said."""

    data: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    lab: LabInfo | None = None
    sha256: str | None = None
    data_roots: tuple[Path, ...] = ()


def _format_errors(path: Path, exc: ValidationError) -> str:
    lines = [f"{path}: the lab profile has {exc.error_count()} problem(s):"]
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        where = f"[{loc[0]}] {'.'.join(loc[1:])}" if len(loc) > 1 else f"[{loc[0]}]"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key; remove it or check its spelling (docs/user/lab-profile.md)"
        lines.append(f"  - {where}: {msg}")
    return "\n".join(lines)


def load_profile(path: str | Path) -> tuple[LabProfile, str]:
    """Read and validate a lab profile; returns it and the file's SHA-256.

    Raises
    ------
    InputError
        Missing or unparsable file, unknown keys, bad values, an unknown calibrator or a
        missing logo or template folder (naming the file and the key).
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
    checks = [("laboratory", "logo", profile.laboratory.logo, input_file),
              ("report", "template_dir", profile.report.template_dir, input_folder)]
    checks += [("data", "roots", root, input_folder) for root in profile.data.roots]
    for section, key, value, check in checks:
        try:
            if value is not None:
                check(folder / value, hint="paths in a lab profile are relative to the "
                      "profile's folder")
        except InputError as exc:
            raise InputError(f"{path}: [{section}] {key}: {exc}") from None
    return profile, hashlib.sha256(raw).hexdigest()


def _profile_values(profile: LabProfile, folder: Path) -> dict[str, dict[str, Any]]:
    """The profile's settings under the case file's sections and keys (paths absolute)."""
    values: dict[str, dict[str, Any]] = {
        "method": profile.method.model_dump(exclude_none=True),
        "uncertainty": profile.uncertainty.model_dump(exclude_none=True),
        "opinion": profile.opinion.model_dump(exclude_none=True),
        "report": profile.report.model_dump(exclude_none=True),
        "validation.criteria": profile.criteria.model_dump(include=set(_CRITERIA),
                                                           exclude_none=True),
    }
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


def _set_default(data: dict[str, Any], dotted: str, key: str, value: Any) -> None:
    table = data
    for part in dotted.split("."):
        table = table.setdefault(part, {})
        if not isinstance(table, dict):  # a malformed case: validation will name it
            return
    table.setdefault(key, value)


def _case_key(section: str, key: str) -> str:
    """``method.method`` is how a case may spell ``method.calibrator``."""
    return "method" if (section, key) == ("method", "calibrator") else key


def apply_profile(data: dict[str, Any], *, base_dir: Path, source: str = "case",
                  lab: str | Path | None = None,
                  overrides: dict[str, dict[str, Any]] | None = None) -> ProfileApplied:
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

    Returns
    -------
    ProfileApplied
        The merged data, ``sources`` (``"section.key"`` -> ``"command line"``, ``"case
        file"``, ``"lab profile"`` or ``"default"`` for each of :data:`POLICY_KEYS` and
        each criterion set), what the profile states about the lab, its SHA-256 and its
        data folders (absolute; the template folder, logo and scale file are added so that
        the case may use them).
    """
    merged = copy.deepcopy(data)
    case_has = {
        f"{section}.{key}" for section, key, _ in POLICY_KEYS
        if _case_key(section, key) in (_table(data, section) or {})
        or key in (_table(data, section) or {})
    }
    case_has |= {f"validation.criteria.{k}" for k in (_table(data, "validation.criteria") or {})}
    profile_path = lab
    report = _table(data, "report") or {}
    if profile_path is None and isinstance(report.get("lab_profile"), str):
        profile_path = Path(base_dir) / report["lab_profile"]
    from_profile: set[str] = set()
    lab_info, sha256, roots = None, None, []
    if profile_path is not None:
        profile_path = Path(profile_path)
        try:
            profile, sha256 = load_profile(profile_path)
        except InputError as exc:
            where = "--lab" if lab is not None else "[report] lab_profile"
            raise InputError(f"{source}: {where}: {exc}") from None
        folder = resolve_path(profile_path).parent
        owned = _profile_values(profile, folder)
        for section, values in owned.items():
            table = _table(merged, section) or {}
            for key, value in values.items():
                if _case_key(section, key) in table or key in table:
                    continue
                _set_default(merged, section, key, value)
                from_profile.add(f"{section}.{key}")
        # the profile's own folders and files (never a path the case file names)
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
        )
    from_cli: set[str] = set()
    for section, values in (overrides or {}).items():
        for key, value in values.items():
            table = merged.setdefault(section, {})
            if isinstance(table, dict):
                table.pop(_case_key(section, key), None)
                table[key] = value
            from_cli.add(f"{section}.{key}")
    keys = [f"{s}.{k}" for s, k, _ in POLICY_KEYS]
    keys += sorted({k for k in case_has | from_profile if k.startswith("validation.criteria.")})
    sources = {
        k: "command line" if k in from_cli else "case file" if k in case_has
        else "lab profile" if k in from_profile else "default"
        for k in keys
    }
    return ProfileApplied(data=merged, sources=sources, lab=lab_info, sha256=sha256,
                          data_roots=tuple(roots))


def policy_settings(spec) -> tuple[PolicySetting, ...]:
    """The policy settings of a validated case and where each came from.

    ``spec.settings_sources`` (set by :func:`apply_profile`) gives the source; a spec
    built without it (e.g. in Python) counts a key it sets as from the case file.
    """
    rows = []
    labels = {f"{s}.{k}": label for s, k, label in POLICY_KEYS}
    keys = list(spec.settings_sources) or list(labels)
    for key in keys:
        section, _, name = key.rpartition(".")
        table = spec
        for part in section.split("."):
            table = getattr(table, part)
        source = spec.settings_sources.get(key) or (
            "case file" if name in table.model_fields_set else "default"
        )
        value = getattr(table, name)
        label = labels.get(key) or (
            f"validation criterion: {CRITERIA[name].label} "
            f"{'at least' if name.endswith('_min') else 'at most'}"
            if name in CRITERIA else f"validation criterion {name}"
        )
        rows.append(PolicySetting(key=key, label=label, value=jsonable(value), source=source))
    return tuple(rows)
