"""Pieces of template context shared by the case report and the validation-study report."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..errors import InputError
from ..metrics.catalogue import METRICS

__all__ = ["check_rows", "logo_data_uri", "metric_table", "safe_svg"]


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
        {"label": "recalibration slope", "value": rec["slope"],
         "interval": rec["slope_interval"], "ideal": "1",
         "meaning": "below 1: LRs too strong; above 1: LRs too weak"},
        {"label": "recalibration offset (natural log)", "value": rec["offset"],
         "interval": rec["offset_interval"], "ideal": "0",
         "meaning": "a shift of all LRs towards Hp (above 0) or Hd (below 0)"},
        {"label": "variance / (2 |mean|), same source", "value": gauss["ratio_ss"],
         "interval": None, "ideal": "1",
         "meaning": "calibrated Gaussian LLRs have a variance twice their mean"},
        {"label": "variance / (2 |mean|), different source", "value": gauss["ratio_ds"],
         "interval": None, "ideal": "1", "meaning": "above 1: LRs too strong"},
        {"label": "EER-implied mean LLR (natural log)", "value": gauss["mu_from_eer"],
         "interval": None, "ideal": "|mean|",
         "meaning": "the mean |LLR| of calibrated Gaussian LLRs with this EER; observed: "
                    f"{gauss['mean_ss']:.2f} (SS), {-gauss['mean_ds']:.2f} (DS)"},
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
