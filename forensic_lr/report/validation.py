"""Validation-study report: cross-validated comparison of calibrators on one score set.

For a laboratory validating a method (Meuwly, Ramos and Haraksim 2017): every method's
out-of-fold LLRs are evaluated, the lab's criteria are checked for each, and the
figures of the best method (lowest Cllr) are drawn. Pure: returns files, writes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from markupsafe import Markup

from .. import plots
from ..calibration import make_calibrator
from ..calibration.checks import calibration_checks
from ..case import Criteria, finite_or_none
from ..errors import ForensicLRError
from ..metrics import evaluate
from ..pipeline import check_criteria, software_versions
from ..uncertainty import cross_validated_llr
from ..validation_stats import bootstrap_metrics, compare_systems
from . import METRICS, _check_rows, _safe_svg
from .render import render, stylesheet, template_roots

#: The validation matrix rows after Meuwly et al. (2017, table 1): characteristic,
#: metric, graphic. devPAV and the rates of misleading evidence are additions of
#: forensic-lr; metric None marks a characteristic this study cannot assess.
MATRIX = (
    ("accuracy", "cllr", "ECE plot"),
    ("discriminating power", "min_cllr", "ECE plot (after PAV), DET plot"),
    ("discriminating power", "eer", "DET plot"),
    ("calibration", "cllr_cal", "ECE plot, Tippett plot"),
    ("calibration", "devpav", "PAV plot"),
    ("misleading evidence", "rmep", "Tippett plot"),
    ("misleading evidence", "rmed", "Tippett plot"),
    ("robustness", None, "ECE, DET and Tippett plots"),
    ("coherence", None, "ECE and DET plots"),
    ("generalisation", None, "ECE, DET and Tippett plots"),
)
#: Metrics shown as percentages (their criteria too), as in the report's metric table.
PERCENT = frozenset(key for key, _, _, digits in METRICS if digits == "percent")
#: ``about`` keys: the study's identity and data description (all optional text).
ABOUT_KEYS = ("title", "laboratory", "analyst", "date", "data")


#: Short metric names for table headers (the definitions follow the table).
SHORT = {
    "cllr": "Cllr", "min_cllr": "min Cllr", "cllr_cal": "Cllr_cal", "eer": "EER", "auc": "AUC",
    "rmep": "RMEP", "rmed": "RMED", "devpav": "devPAV",
}


@dataclass(frozen=True)
class MethodRow:
    """One calibration method's cross-validated metrics and criteria decisions."""

    method: str
    metrics: dict
    criteria: tuple
    all_met: bool | None


def _criteria_for(criteria: Criteria | None, metrics: dict):
    if criteria is None:
        return (), None
    results = check_criteria(criteria, metrics)
    return results, (all(c.met for c in results) if results else None)


def build_validation_report(
    ss,
    ds,
    *,
    methods=("gaussian", "bayes", "logistic", "pav", "kde"),
    folds: int = 5,
    seed: int = 0,
    criteria: Criteria | None = None,
    inputs: dict[str, str] | None = None,
    formats=("pdf", "html", "json"),
    template_dir=None,
    groups=None,
    intervals: dict | None = None,
    about: dict[str, str] | None = None,
) -> dict[str, bytes]:
    """Cross-validate each method on raw scores and render the study.

    Returns ``validation.json``, ``validation_report.html``, ``validation_report.pdf`` and
    ``figures/*.svg`` (figures of the method with the lowest cross-validated Cllr).
    ``validation.json`` holds the validation matrix (``validation_matrix``). With
    ``groups = (ss_sources, ds_sources)`` the folds are by source (``folds=None``: leave
    one source out). ``intervals``: keyword arguments of
    :func:`forensic_lr.validation_stats.bootstrap_metrics` (e.g. ``{"n": 1000, "seed":
    1}``) for bootstrap intervals of the best method's metrics (``intervals`` in the JSON)
    and a paired comparison of the best method with each other one on the same trials
    (:func:`forensic_lr.validation_stats.compare_systems`; ``comparisons`` in the JSON),
    which says whether its lead is larger than the sampling uncertainty. ``about``: the
    study's ``title``, ``laboratory``, ``analyst``, ``date`` and a description of its
    ``data`` (population, conditions, the system that produced the scores), printed in
    the report and kept in the JSON.
    """
    about = {k: str(v) for k, v in (about or {}).items() if v}
    unknown = sorted(set(about) - set(ABOUT_KEYS))
    if unknown:
        raise ForensicLRError(f"unknown 'about' key(s) {unknown}; use {', '.join(ABOUT_KEYS)}")
    ss, ds = np.asarray(ss, float), np.asarray(ds, float)
    rows, llrs = [], {}
    for method in methods:
        ss_llr, ds_llr = cross_validated_llr(
            ss, ds, make_calibrator(method), folds, seed, groups=groups
        )
        metrics = evaluate(ss_llr, ds_llr).to_dict()
        results, all_met = _criteria_for(criteria, metrics)
        rows.append(MethodRow(method, metrics, results, all_met))
        llrs[method] = (ss_llr, ds_llr)
    best = min(rows, key=lambda r: r.metrics["cllr"]).method
    matrix = _matrix(rows, best, criteria)
    record = {
        "about": about,
        "n_ss": int(ss.size),
        "n_ds": int(ds.size),
        "folds": folds,
        "seed": seed,
        "inputs": inputs or {},
        "criteria": None if criteria is None else criteria.model_dump(exclude_none=True),
        "methods": [
            {
                "method": r.method,
                "metrics": r.metrics,
                "criteria": [c.model_dump() for c in r.criteria],
                "all_criteria_met": r.all_met,
            }
            for r in rows
        ],
        "best_method": best,
        "calibration_checks": _checks(*llrs[best]),
        "folds_by": "trial" if groups is None else "source",
        "validation_matrix": matrix,
        "software": software_versions(),
    }
    if intervals is not None:
        ss_src, ds_src = (None, None) if groups is None else groups
        record["intervals"] = bootstrap_metrics(
            *llrs[best], ss_sources=ss_src, ds_sources=ds_src, **intervals
        ).to_dict()
        record["comparisons"] = [
            compare_systems(
                *llrs[best], *llrs[other], names=(best, other), ss_sources=ss_src,
                ds_sources=ds_src, **intervals,
            ).to_dict()
            for other in methods
            if other != best
        ]
    files = {}
    if "json" in formats:
        text = json.dumps(finite_or_none(record), indent=2, sort_keys=True) + "\n"
        files["validation.json"] = text.encode("utf-8")
    if not ({"pdf", "html"} & set(formats)):
        return files
    ss_llr, ds_llr = llrs[best]
    fitted = make_calibrator(best).fit(ss, ds)
    figures = {
        "tippett": plots.tippett_svg(ss_llr, ds_llr),
        "tippett_type2": plots.tippett_svg(ss_llr, ds_llr, kind="II"),
        "ece": plots.ece_svg(ss_llr, ds_llr),
        "ape": plots.ape_svg(ss_llr, ds_llr),
        "det": plots.det_svg(ss_llr, ds_llr),
        "pav": plots.pav_svg(ss_llr, ds_llr, llr_input=True, xlabel="cross-validated log10 LR"),
        "score_densities": plots.score_density_svg(ss, ds, fitted),
    }
    for name, svg in figures.items():
        files[f"figures/{name}.svg"] = svg.encode("utf-8")
    context = {
        "study": record,
        "rows": rows,
        "best": best,
        "metric_labels": METRICS,
        "short": SHORT,
        "digits": {key: digits for key, _, _, digits in METRICS},
        "matrix": matrix,
        "check_rows": _check_rows(record["calibration_checks"]),
        "figures": {k: _safe_svg(v) for k, v in figures.items()},
        "css": Markup(stylesheet(template_dir)),
    }
    html = render("validation_report.html", context, template_dir)
    if "html" in formats:
        files["validation_report.html"] = html.encode("utf-8")
    if "pdf" in formats:
        from .pdf import html_to_pdf  # weasyprint is imported only to render a PDF

        files["validation_report.pdf"] = html_to_pdf(html, roots=template_roots(template_dir))
    return files


def _matrix(rows, best, criteria):
    """Validation matrix rows for the best method (criterion and decision if the lab set one).

    Characteristics without a metric (robustness, coherence, generalisation) need data
    under other conditions than the one score set of this study: marked "not assessed".
    """
    row = next(r for r in rows if r.method == best)
    by_metric = {c.metric: c for c in row.criteria}
    out = []
    for characteristic, metric, graphic in MATRIX:
        if metric is None:
            out.append({"characteristic": characteristic, "metric": None, "graphic": graphic,
                        "criterion": "", "result": None, "decision": "not assessed"})
            continue
        c = by_metric.get(metric)
        threshold = "" if c is None else (
            f"{100 * c.threshold:g} %" if metric in PERCENT else f"{c.threshold:g}"
        )
        out.append(
            {
                "characteristic": characteristic,
                "metric": metric,
                "graphic": graphic,
                "criterion": f"{c.comparison} {threshold}" if c else "not set",
                "result": row.metrics[metric],
                "decision": ("met" if c.met else "not met") if c else "no criterion",
            }
        )
    return out


def _checks(ss_llr, ds_llr) -> dict | None:
    """Calibration checks of the best method's out-of-fold LLRs (None if not computable)."""
    try:
        return calibration_checks(ss_llr, ds_llr).to_dict()
    except ForensicLRError:
        return None
