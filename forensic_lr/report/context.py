"""Pieces of template context shared by the case report and the validation-study report."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from markupsafe import Markup

from .._numbers import interval_misses
from ..errors import InputError
from ..i18n import N_
from ..metrics.catalogue import METRICS, printed_metrics

__all__ = [
    "check_rows", "config_rows", "logo_data_uri", "metric_rows", "metric_table", "param_rows",
    "safe_svg",
]


def safe_svg(svg: str) -> Markup:
    """Mark one of our own matplotlib SVGs as safe (drop the XML prolog for inlining)."""
    start = svg.find("<svg")
    return Markup(svg[start:])


def metric_table() -> dict[str, Any]:
    """The metric catalogue in the shapes the templates use (rows, labels, short, digits)."""
    return {
        "rows": [(m.key, m.label, m.meaning, m.fmt) for m in METRICS],
        "labels": {m.key: m.label for m in METRICS},
        "short": {m.key: m.short for m in METRICS},
        "digits": {m.key: m.fmt for m in METRICS},
    }


def check_rows(checks: dict | None) -> list[dict]:
    """Rows of the calibration-checks table (van Leeuwen and Brummer 2013)."""
    if checks is None:
        return []
    rec, gauss = checks["recalibration"], checks["gaussian"]
    return [
        {"label": N_("recalibration slope"), "value": rec["slope"],
         "interval": rec["slope_interval"], "ideal": "1",
         "meaning": N_("below 1: LRs too strong; above 1: LRs too weak"), "values": None},
        {"label": N_("recalibration offset (natural log)"), "value": rec["offset"],
         "interval": rec["offset_interval"], "ideal": "0",
         "meaning": N_("a shift of all LRs towards Hp (above 0) or Hd (below 0)"), "values": None},
        {"label": N_("variance / (2 |mean|), same source"), "value": gauss["ratio_ss"],
         "interval": None, "ideal": "1",
         "meaning": N_("calibrated Gaussian LLRs have a variance twice their mean"),
         "values": None},
        {"label": N_("variance / (2 |mean|), different source"), "value": gauss["ratio_ds"],
         "interval": None, "ideal": "1", "meaning": N_("above 1: LRs too strong"),
         "values": None},
        {"label": N_("EER-implied mean LLR (natural log)"), "value": gauss["mu_from_eer"],
         "interval": None, "ideal": "|mean|",
         "meaning": N_("the mean |LLR| of calibrated Gaussian LLRs with this EER; observed: "
                       "%(ss)s (SS), %(ds)s (DS)"),
         # numbers in English form; the template writes them in the report's language
         "values": {"ss": f"{gauss['mean_ss']:.2f}", "ds": f"{-gauss['mean_ds']:.2f}"}},
    ]


_LOGO_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".svg": "image/svg+xml"}


def logo_data_uri(path: str) -> str:
    """The laboratory's logo (from its profile) as a ``data:`` URI, or "" without one.

    Embedded, so that the PDF renderer fetches no file; PNG, JPEG or SVG only.
    """
    if not path:
        return ""
    kind = _LOGO_TYPES.get(Path(path).suffix.lower())
    if kind is None:
        raise InputError(f"logo {path}: use a PNG, JPEG or SVG file")
    return f"data:{kind};base64,{base64.b64encode(Path(path).read_bytes()).decode('ascii')}"


def metric_rows(validation) -> list[dict]:
    """Rows of the case report's metric table: value, interval and, for rates, the count.

    Intervals: the bootstrap interval of ``validation.metric_intervals`` (bias-corrected,
    source-aware where the background names sources); for RMEP and RMED the interval of
    ``validation.rates`` instead (``exact``: the exact binomial interval, never a bootstrap
    ``[0, 0]``; else the bootstrap by source). Cllr_cal is the printed Cllr minus the
    printed minimum Cllr (:func:`~forensic_lr.metrics.catalogue.printed_metrics`).
    ``percentile``: the bias correction could not be read and the plain percentile interval
    is given; ``outside``: the printed interval misses the printed value
    (:func:`~forensic_lr._numbers.interval_misses`; an exact binomial interval always holds
    its count's rate).
    """
    values = validation.metrics
    shown = printed_metrics(values)
    boots = (validation.metric_intervals or {}).get("intervals", {})
    percentile = (validation.metric_intervals or {}).get("percentile", ())
    rates = {r.name: r for r in validation.rates}
    rows = []
    for m in METRICS:
        value = shown.get(m.key) if m.key == "cllr_cal" else values.get(m.key)
        row = {"key": m.key, "label": m.label, "meaning": m.meaning, "value": value,
               "digits": m.fmt, "interval": None, "count": None, "exact": False,
               "percentile": False}
        if m.key in rates:
            r = rates[m.key]
            row.update(interval=(r.low, r.high), count=(r.count, r.total),
                       exact=r.interval == "exact binomial")
        elif m.key in boots:
            b = boots[m.key]
            row.update(interval=(b["low"], b["high"]), percentile=m.key in percentile)
        row["outside"] = (row["interval"] is not None and not row["exact"]
                          and interval_misses(row["value"], *row["interval"], m.decimals))
        rows.append(row)
    return rows


def config_rows(configuration: dict, prefix: str = "",
                score_texts: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """The case configuration as ``(setting, value)`` rows, sections flattened with dots.

    Text is kept as written (no JSON escapes); lists of tables (items) are numbered;
    empty values are left out. ``score_texts``, if given, replace the numbers of
    ``evidence.score``/``evidence.scores`` by the scores as the case file writes them.
    """
    rows: list[tuple[str, str]] = []
    for key, value in configuration.items():
        name = f"{prefix}{key}"
        if score_texts and name in ("evidence.score", "evidence.scores") and value is not None:
            rows.append((name, ", ".join(score_texts)))
        elif isinstance(value, dict):
            rows += config_rows(value, name + ".", score_texts)
        elif isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value, 1):
                rows += config_rows(item, f"{name}[{i}].")
        elif value is None or value == "" or value == [] or value == ():
            continue
        elif isinstance(value, list | tuple):
            rows.append((name, ", ".join(str(v) for v in value)))
        elif isinstance(value, bool):
            rows.append((name, "true" if value else "false"))
        else:
            rows.append((name, str(value)))
    return rows


#: Longest list of fitted values printed in full in the annex (longer ones: in result.json).
MAX_LISTED = 12


def _number(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return "n/a" if value != value else f"{value:.6g}"
    return str(value)


def param_rows(params: dict, prefix: str = "") -> list[tuple[str, str]]:
    """A calibrator's fitted parameters (``params()``) as ``(name, value)`` rows.

    Nested tables are flattened with dots (``posterior_ss.mu``); numbers get six
    significant figures; lists up to :data:`MAX_LISTED` values are printed in full,
    longer ones as their length (they are in ``result.json``).
    """
    rows: list[tuple[str, str]] = []
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += param_rows(value, name + ".")
        elif isinstance(value, list | tuple):
            if not value:
                rows.append((name, "none"))
            elif len(value) <= MAX_LISTED:
                rows.append((name, ", ".join(_number(v) for v in value)))
            else:
                rows.append((name, f"{len(value):,} values (listed in result.json)"))
        elif value is None:
            rows.append((name, "none"))
        else:
            rows.append((name, _number(value)))
    return rows
