"""Pieces of the settings schema shared by the case file and the laboratory's profile.

The base of every settings table (:class:`Section`: strict types, no unknown keys), the
laboratory criteria, the rule for a score beyond the background, and the one way a schema
problem is worded (:func:`format_validation_error`: section, key, value and the fix). Both
:mod:`forensic_lr.casework.spec` (the case file) and :mod:`forensic_lr.casework.profile`
(the lab profile) build on them; neither imports the other's module for them.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, ValidationError

from ..errors import excerpt
from ..metrics.catalogue import criterion_hint

__all__ = [
    "BEYOND_BACKGROUND", "BeyondBackground", "Criteria", "ReportLanguage", "Section",
    "check_fixed_bounds", "format_validation_error", "problem_list", "value_hint",
]


class Section(BaseModel):
    """A table of a case file. Numbers, whole numbers and true/false are typed strictly
    (``StrictFloat``, ``StrictInt``, ``StrictBool``): ``seed = true``, ``folds = "5"``,
    ``elub = "yes"`` or ``n = 1000.0`` are errors naming the key and the type expected,
    never quietly converted (a whole number is accepted where a number is expected)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Criteria(Section):
    """Optional laboratory validation criteria; each is checked against the CV metrics."""

    cllr_max: StrictFloat | None = Field(default=None, gt=0)
    min_cllr_max: StrictFloat | None = Field(default=None, gt=0)
    cllr_cal_max: StrictFloat | None = Field(default=None, ge=0)
    eer_max: StrictFloat | None = Field(default=None, gt=0, le=0.5)
    auc_min: StrictFloat | None = Field(default=None, ge=0.5, le=1)
    rmep_max: StrictFloat | None = Field(default=None, ge=0, le=1)
    rmed_max: StrictFloat | None = Field(default=None, ge=0, le=1)
    devpav_max: StrictFloat | None = Field(default=None, gt=0)
    llr_overestimation_max: StrictFloat | None = Field(default=None, gt=0)


#: The rule for an evidence score outside the pooled range of the background scores, from
#: the most conservative: ``"withhold"`` (always withheld), ``"withhold-unbounded"`` (the
#: default: withheld unless its LR is limited by ELUB, then only the limited value is
#: reported) and ``"report"`` (reported; the report says it rests on extrapolation).
BEYOND_BACKGROUND = ("withhold", "withhold-unbounded", "report")
BeyondBackground = Literal["withhold", "withhold-unbounded", "report"]
def check_fixed_bounds(rule: str | None, fixed: tuple[float, float] | None) -> None:
    """``[method] bounds`` and ``fixed_bounds`` agree: ``"fixed"`` needs
    ``fixed_bounds = [low, high]`` with ``low <= 0 <= high`` (log10 LR), and
    ``fixed_bounds`` is only used by ``"fixed"`` (``rule`` None: a lab profile that leaves
    the rule to the case may not set them either).

    Raises
    ------
    ValueError
        Naming the key and the fix (a case file's or lab profile's validation error).
    """
    if rule == "fixed" and fixed is None:
        raise ValueError('bounds = "fixed" needs fixed_bounds = [low, high] in log10 LR, '
                         "with low <= 0 <= high, e.g. fixed_bounds = [-4.0, 4.0]")
    if fixed is None:
        return
    if rule != "fixed":
        raise ValueError(f"fixed_bounds = {list(fixed)} is used only with bounds = "
                         f'"fixed"; add bounds = "fixed" or remove fixed_bounds')
    low, high = fixed
    if not (low <= 0 <= high) or low != low or high != high:
        raise ValueError(f"fixed_bounds = {list(fixed)} must be [low, high] in log10 LR with "
                         "low <= 0 <= high (a bound never moves an LR across 1), e.g. "
                         "fixed_bounds = [-4.0, 4.0]")


#: The languages a report can be written in (:data:`forensic_lr.i18n.SUPPORTED_LANGUAGES`).
ReportLanguage = Literal["en", "es", "de", "fr", "nl", "sv"]


def _key_path(loc) -> str:
    """``("case", "items", 0, "seal")`` -> ``[case] items[0].seal``."""
    parts = [p for p in loc if p != "base_dir"]
    if not parts:
        return "(top level)"
    tail = ""
    for p in parts[1:]:
        tail += f"[{p}]" if isinstance(p, int) else (f".{p}" if tail else str(p))
    return f"[{parts[0]}] {tail}".rstrip()


#: pydantic error types in the project's words (the value is quoted after them).
_ERROR_WORDS = {
    "float_parsing": "is not a number", "float_type": "is not a number",
    "int_parsing": "is not a whole number", "int_type": "is not a whole number",
    "int_from_float": "is not a whole number", "bool_parsing": "is not true or false",
    "bool_type": "is not true or false", "string_type": "is not text (put it in quotes)",
    "date_parsing": "is not a date",
    "date_from_datetime_parsing": "is not a date",
    "date_type": "is not a date",
    "tuple_type": "is not a list; write e.g. [1.2, 3.4]",
    "list_type": "is not a list; write e.g. [1.2, 3.4]",
    "dict_type": "is not a table of keys", "model_type": "is not a table of keys",
    "literal_error": "is not one of the allowed values",
}


def _as_written(value: object) -> str:
    """A value as the case file writes it: ``true``, ``"5"`` (text), ``4000.0``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return json.dumps(value) if len(value) <= 40 else excerpt(value)
    if isinstance(value, int | float) and len(str(value)) <= 40:
        return str(value)
    return excerpt(value)


def _type_hint(kind: str, value: object) -> str:
    """The fix for a value of the wrong type where a number or true/false is expected."""
    if kind == "bool_type":
        return "; write true or false, without quotes"
    if isinstance(value, str) and kind in ("int_type", "float_type"):
        try:
            float(value)
        except ValueError:
            return ""
        return " (it is text, in quotes); write it without quotes"
    if isinstance(value, bool):
        return "; write the number itself"
    if kind == "int_type" and isinstance(value, float) and value.is_integer():
        return f"; write {int(value)}"
    return ""


def value_hint(value: object) -> str:
    """A fix for a value typed the way a spreadsheet or a European locale writes it."""
    text = str(value).strip()
    if re.fullmatch(r"[+-]?\d+,\d+", text):
        fixed = text.replace(",", ".") if len(text) <= 40 else "the number"
        return f"; write {fixed} (a decimal point, not a comma)"
    m = re.fullmatch(r"(\d{1,2})[./](\d{1,2})[./](\d{4})", text)
    if m:
        day, month, year = m.groups()
        return f"; write dates as year-month-day, e.g. {year}-{int(month):02d}-{int(day):02d}"
    return ""


#: where the keys of each kind of file are listed
_SPELLING = {"case file": " against `forensic-lr init`",
             "lab profile": " (docs/user/lab-profile.md)"}


def _criteria_hint(loc, what: str) -> str:
    """For an unknown key among the validation criteria (``[validation.criteria]``, a lab
    profile's ``[criteria]``, a criteria file): the closest criterion and the valid keys."""
    parts = [p for p in loc if p != "base_dir"]
    among = (len(parts) >= 2 and parts[-2] == "criteria") or (
        what == "criteria file" and len(parts) == 1)
    return criterion_hint(parts[-1]) if among else ""


def format_validation_error(path: str, exc: ValidationError, what: str = "case file") -> str:
    """One line per schema problem, naming its section and key, the value and the fix."""
    lines = []
    for err in exc.errors():
        where = _key_path(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        value = err.get("input")
        scalar = not isinstance(value, dict | list | tuple)
        if err["type"] == "extra_forbidden":
            msg = ("unknown key; remove it or check its spelling" + _SPELLING.get(what, "")
                   + _criteria_hint(err["loc"], what))
        elif err["type"] == "missing":
            msg = "required but missing"
        elif err["type"] in _ERROR_WORDS and scalar:
            msg = f"{_as_written(value)} {_ERROR_WORDS[err['type']]}"
            if err["type"] == "literal_error":
                msg += ": " + err["msg"].removeprefix("Input should be ")
            hint = value_hint(value) or _type_hint(err["type"], value)
            if not hint and err["type"].startswith("date"):
                hint = "; write dates as year-month-day, e.g. 2026-03-02"
            msg += hint
        elif scalar and err["type"] not in ("value_error", "assertion_error"):
            msg = f"{excerpt(value)}: {msg}"
        # a check across sections names its own section and key
        lines.append(msg if not err["loc"] and msg.startswith("[") else f"{where}: {msg}")
    return problem_list(path, lines, what)


def problem_list(source: str, problems: list[str], what: str = "case file") -> str:
    """``SOURCE: the case file has N problem(s):`` and one ``  - problem`` line each."""
    return "\n".join([f"{source}: the {what} has {len(problems)} problem(s):",
                      *(f"  - {p}" for p in problems)])
