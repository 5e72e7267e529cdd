"""Expert reports: HTML (jinja2) and PDF (weasyprint) from a case run, plus figures.

:func:`build_report` is pure: it returns ``{relative path: bytes}`` and writes nothing;
the command line hands the files to :func:`forensic_lr.output.write_outputs`.
"""

from __future__ import annotations

import json

from markupsafe import Markup

from .figures import case_figures
from .render import PRIOR_ODDS_LOG10, render, stylesheet, template_roots

__all__ = ["build_report", "case_context"]

#: Validation metrics in report order: key, label, meaning, number of decimals or "percent".
METRICS = (
    ("cllr", "Cllr (bits)", "overall cost of the LRs: 0 perfect, 1 uninformative", 3),
    ("min_cllr", "minimum Cllr (bits)", "discrimination loss: Cllr after optimal calibration", 3),
    ("cllr_cal", "Cllr_cal (bits)", "calibration loss: Cllr - minimum Cllr", 3),
    ("eer", "equal error rate", "error rate where misses equal false alarms (ROC hull)",
     "percent"),
    ("auc", "AUC", "probability that a same-source score exceeds a different-source one", 3),
    ("rmep", "RMEP", "same-source comparisons with LR < 1 (misleading towards Hd)", "percent"),
    ("rmed", "RMED", "different-source comparisons with LR > 1 (misleading towards Hp)",
     "percent"),
    ("devpav", "devPAV", "mean distance of the calibration curve from ideal (log10 units)", 3),
)


def _safe_svg(svg: str) -> Markup:
    """Mark one of our own matplotlib SVGs as safe (drop the XML prolog for inlining)."""
    start = svg.find("<svg")
    return Markup(svg[start:])


def _check_rows(checks: dict | None) -> list[dict]:
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


def _method_rows(method) -> list[dict]:
    """Method-specific parameters for the report: label, value and how to format it.

    ``fmt`` is ``"count"``, ``"percent"``, ``"log10"`` or a number of decimals (the
    template applies the matching filter).
    """
    p = method.params

    def row(label, value, fmt=3):
        return {"label": label, "value": value, "fmt": fmt}

    if method.calibrator == "suspect_map":
        return [
            row("suspect same-source scores used", p["n_suspect"], "count"),
            row("relevance factor (population model counts as this many suspect scores)",
                p["relevance"], 1),
            row("adaptation weight n / (n + relevance)", p["alpha"], 2),
            row("same-source mean: population model", p["mean_pop"]),
            row("same-source mean: adapted model", p["mean_ss"]),
            row("same-source SD: population model", p["sd_pop"]),
            row("same-source SD: adapted model", p["sd_ss"]),
            row("mean shift, in population SDs", p["mean_shift_sd"], 2),
            row("SD ratio, adapted / population", p["sd_ratio"], 2),
        ]
    if method.calibrator == "unsupervised":
        prior = p["prior"]
        return [
            row("unlabelled scores used", p["n_unlabelled"], "count"),
            row("estimated same-source proportion among them", p["proportion_ss"], "percent"),
            row("expected number of same-source scores among them", p["expected_ss"], 1),
            row("prior weight (background counts as this many scores per class)",
                prior["weight"], 1),
            row("same-source mean: background", prior["mean_ss"]),
            row("same-source mean: fitted to the unlabelled scores", p["mean_ss"]),
            row("different-source mean: background", prior["mean_ds"]),
            row("different-source mean: fitted to the unlabelled scores", p["mean_ds"]),
        ]
    if method.calibrator == "scal":
        return [
            row("lower limit of log10 LR", p["lower_log10_lr"], "log10"),
            row("upper limit of log10 LR", p["upper_log10_lr"], "log10"),
        ]
    return []


def case_context(run, figures: dict[str, str], template_dir=None) -> dict:
    """Everything the case-report template uses."""
    result = run.result
    prior_rows = [
        {
            "prior": p,
            "posteriors": [p + r.log10_lr for r in result.results],
        }
        for p in PRIOR_ODDS_LOG10
    ]
    return {
        "r": result,
        "scale": run.scale,
        "figures": {name: _safe_svg(svg) for name, svg in figures.items()},
        "css": Markup(stylesheet(template_dir)),
        "metrics": [
            {"label": label, "meaning": meaning, "value": result.validation.metrics.get(key),
             "digits": digits}
            for key, label, meaning, digits in METRICS
        ],
        "labels": {key: label for key, label, _, _ in METRICS},
        "digits": {key: digits for key, _, _, digits in METRICS},
        "check_rows": _check_rows(result.validation.calibration_checks),
        "method_rows": _method_rows(result.method),
        "prior_rows": prior_rows,
        "configuration_json": json.dumps(result.provenance.configuration, indent=2,
                                         sort_keys=True, default=str),
    }


def build_report(run, formats=("pdf", "html", "json"), template_dir=None) -> dict[str, bytes]:
    """Render a case run: ``report.html``, ``report.pdf``, ``result.json``, ``figures/*.svg``.

    Parameters
    ----------
    run : forensic_lr.casework.pipeline.CaseRun
    formats : sequence of {"pdf", "html", "json"}
    template_dir : path, optional
        A lab's template folder, searched before the shipped templates (default: the
        case file's ``[report] template_dir``).
    """
    if template_dir is None and run.spec.report.template_dir:
        template_dir = run.spec.resolve(run.spec.report.template_dir)
    files: dict[str, bytes] = {}
    if "json" in formats:
        files["result.json"] = run.result.to_json().encode("utf-8")
    if not ({"pdf", "html"} & set(formats)):
        return files
    figures = case_figures(run)
    for name, svg in figures.items():
        files[f"figures/{name}.svg"] = svg.encode("utf-8")
    html = render("case_report.html", case_context(run, figures, template_dir), template_dir)
    if "html" in formats:
        files["report.html"] = html.encode("utf-8")
    if "pdf" in formats:
        from .pdf import html_to_pdf  # weasyprint is imported only to render a PDF

        files["report.pdf"] = html_to_pdf(html, roots=template_roots(template_dir))
    return files
