"""The new-case form: its fields, and the case file (TOML) it writes.

The form writes the same case file an examiner writes by hand; the case file's own
validation (:func:`forensic_lr.casework.load_case`) then checks it, and each problem it
names (``[section] key: ...``) is shown next to the field of that section and key. Values
are written as typed: a number field holding text becomes a TOML string, which the schema
refuses with its usual message ("... is not a number").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..defaults import BOUNDS_RULES, DEFAULT_BOUNDS
from ..i18n import LANGUAGE_NAMES, SUPPORTED_LANGUAGES
from ..records import BOUNDS_TERMS

__all__ = ["EMPTY", "FIELDS", "FILE_FIELDS", "Field", "case_document"]


@dataclass(frozen=True)
class Field:
    """One form field: its case-file section and key, label, kind and help text."""

    section: str
    key: str
    label: str
    kind: str = "text"  # text, area, date, number, integer, scores, numbers, items, select,
    #                     check, file
    help: str = ""
    choices: tuple[str, ...] = ()
    default: str = ""
    #: what a select shows for a choice, where it is not the choice itself
    shown: tuple[tuple[str, str], ...] = ()

    def show(self, choice: str) -> str:
        """The text a select shows for ``choice``."""
        return dict(self.shown).get(choice, choice)

    @property
    def name(self) -> str:
        """The form input's name: ``section.key``."""
        return f"{self.section}.{self.key}"

    @property
    def error_key(self) -> str:
        """How the case file's validation names it: ``[section] key``."""
        return f"[{self.section}] {self.key}"


FIELDS: tuple[Field, ...] = (
    Field("case", "id", "Case id", help="the laboratory's case number"),
    Field("case", "title", "Title"),
    Field("case", "laboratory", "Laboratory"),
    Field("case", "examiner", "Examiner", help="who signs the report"),
    Field("case", "date", "Date of the report", "date"),
    Field("case", "requester", "Requester"),
    Field("case", "instructions", "Instructions", "area"),
    Field("case", "conditioning", "Case information relied on", "area"),
    Field("case", "items", "Items", "items",
          help="one item per line: id | description | seal | condition | received | examined"),
    Field("propositions", "hp", "Hp (same source)", "area"),
    Field("propositions", "hd", "Hd (different sources)", "area"),
    Field("propositions", "classes", "What the background trials are", "select",
          choices=("", "source", "propositions"),
          shown=(("", "comparisons of sources (default)"),
                 ("source", "comparisons of sources (source)"),
                 ("propositions", "trials of propositions not about sources (propositions)")),
          help="e.g. a breath reading above or at or below a legal limit: propositions"),
    Field("propositions", "hp_class", "Name of the trials with Hp true",
          help="with propositions: short, e.g. above the limit"),
    Field("propositions", "hd_class", "Name of the trials with Hd true",
          help="with propositions: short, e.g. at or below the limit"),
    Field("evidence", "score", "Evidence score(s)", "scores",
          help="one number, or several separated by commas"),
    Field("evidence", "description", "How the score was obtained", "area"),
    Field("evidence", "score_direction", "Score direction", "select",
          choices=("higher_is_similar", "lower_is_similar")),
    Field("background", "ss", "Same-source scores (file)", "file",
          help="CSV, TSV, text, JSON, .npy, .xlsx or Parquet"),
    Field("background", "ds", "Different-source scores (file)", "file"),
    Field("background", "description", "Background data", "area"),
    Field("background", "population", "Relevant population"),
    Field("background", "population_justification", "Why that population", "area"),
    Field("background", "sources", "Sources behind the comparisons"),
    Field("system", "name", "Scoring system"),
    Field("system", "version", "System version"),
    Field("system", "settings", "System settings", "area"),
    Field("method", "calibrator", "Calibration method", "select", default="bayes"),
    Field("method", "elub", "Limit the LR to its bounds", "check", default="1",
          help="the rule below; by default ELUB (Vergeer et al. 2016)"),
    Field("method", "bounds", "Bounds rule", "select", choices=("", *BOUNDS_RULES),
          shown=(("", f"the laboratory's (else {BOUNDS_TERMS[DEFAULT_BOUNDS]})"),
                 *((rule, f"{BOUNDS_TERMS[rule]} ({rule})") for rule in BOUNDS_RULES))),
    Field("method", "fixed_bounds", "Fixed bounds (log10 LR)", "numbers",
          help="low, high with low <= 0 <= high, e.g. -4, 4: only with the fixed rule"),
    Field("uncertainty", "method", "Interval", "select",
          choices=("bootstrap", "bayes", "none"), default="bootstrap"),
    Field("uncertainty", "level", "Interval level", "number", default="0.95"),
    Field("uncertainty", "seed", "Seed", "integer", default="20261122"),
    Field("validation", "folds", "Cross-validation folds", "integer", default="5"),
    Field("validation", "study_id", "Validation study id"),
    Field("validation", "study_date", "Validation study date", "date"),
    Field("validation.criteria", "cllr_max", "Criterion: Cllr at most", "number",
          help="or leave empty when the laboratory's profile sets the criteria"),
    Field("report", "language", "Report language", "select",
          choices=("", *SUPPORTED_LANGUAGES),
          shown=(("", "the laboratory's (else English)"),
                 *((c, f"{LANGUAGE_NAMES[c]} ({c})") for c in SUPPORTED_LANGUAGES)),
          help="the language of the report's text, numbers and dates"),
)

#: The file fields: form input name -> case-file key.
FILE_FIELDS = {f.name: f for f in FIELDS if f.kind == "file"}

#: The form's starting values.
EMPTY = {f.name: f.default for f in FIELDS}

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ITEM_KEYS = ("id", "description", "seal", "condition", "received", "examined")


def _string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _number(text: str, integer: bool = False) -> str:
    """The number as typed when it reads as one, else a string for the schema to refuse."""
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        return _string(text)
    if not integer and not math.isfinite(value):
        return _string(text)
    return text.strip()


def _value(field: Field, text: str) -> str | None:
    text = text.strip()
    if field.kind == "check":
        return "true" if text else "false"
    if not text:
        return None
    if field.kind == "date":
        return text if _DATE.fullmatch(text) else _string(text)
    if field.kind in ("number", "integer"):
        return _number(text, field.kind == "integer")
    if field.kind == "numbers":
        return "[" + ", ".join(_number(p.strip()) for p in text.split(",")) + "]"
    if field.kind == "scores":
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if len(parts) == 1:
            return _number(parts[0])
        return "[" + ", ".join(_number(p) for p in parts) + "]"
    if field.kind == "items":
        tables = []
        for line in text.splitlines():
            cells = [c.strip() for c in line.split("|")]
            if any(cells):
                pairs = [f"{k} = {_string(c)}" for k, c in zip(_ITEM_KEYS, cells, strict=False)
                         if c]
                tables.append("  { " + ", ".join(pairs) + " },")
        return "[\n" + "\n".join(tables) + "\n]"
    return _string(text)


def case_document(values: Mapping[str, str], files: Mapping[str, str]) -> str:
    """The case file (TOML text) of the form's ``values`` (input name -> text) and uploaded
    ``files`` (input name -> file name). Several scores are written as ``scores``."""
    sections: dict[str, list[str]] = {}
    for field in FIELDS:
        if field.kind == "file":
            text = files.get(field.name)
            value = _string(text) if text else None
        else:
            value = _value(field, values.get(field.name, ""))
        if value is None:
            continue
        key = field.key
        if field.kind == "scores" and value.startswith("["):
            key = "scores"
        sections.setdefault(field.section, []).append(f"{key} = {value}")
    lines = ["# written by the forensic-lr web form; runs as is with: forensic-lr run case.toml"]
    for section in dict.fromkeys(f.section for f in FIELDS):
        if section in sections:
            lines += ["", f"[{section}]", *sections[section]]
    return "\n".join(lines) + "\n"


def form_errors(rows: Sequence[Mapping[str, str]]) -> dict[str, list[str]]:
    """Error rows (``field`` as the case file names it) -> messages per form input name;
    rows naming no form field are kept under ``""`` (shown above the form)."""
    by_key = {f.error_key: f.name for f in FIELDS}
    for f in FIELDS:  # a whole section missing: shown at its first field
        by_key.setdefault(f"[{f.section}]", f.name)
    out: dict[str, list[str]] = {}
    for row in rows:
        label = row.get("field", "")
        name = by_key.get(label)
        if name is None:  # "[case] items[0] (Q1) seal" -> the items field
            head = re.match(r"(\[[^\]]+\] [A-Za-z_]+)", label)
            name = by_key.get(head.group(1), "") if head else by_key.get(label.split(" ")[0], "")
            if label.startswith("[validation] criteria"):
                name = "validation.criteria.cllr_max"
        out.setdefault(name, []).append(f"{label}: {row['message']}" if name == "" and label
                                        else row["message"])
    return out
