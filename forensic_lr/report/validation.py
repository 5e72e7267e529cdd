"""Validation-study report: renders a :class:`~forensic_lr.records.ValidationStudy`.

Pure and render-only: the study is computed by
:func:`forensic_lr.validation.run_validation_study`; this module draws its figures from
the record's arrays, fills the template and returns the files, writing nothing.
"""

from __future__ import annotations

from markupsafe import Markup

from .. import plots
from .._numbers import interval_misses
from ..i18n import translations
from ..metrics.catalogue import metric, printed_metrics
from ..records import ValidationStudy
from .context import check_rows, metric_table, safe_svg
from .render import render, stylesheet, template_roots

__all__ = ["build_validation_report"]


def build_validation_report(
    study: ValidationStudy, formats=("pdf", "html", "json"), template_dir=None,
    direction: str = "higher_is_similar", language: str = "en",
) -> dict[str, bytes]:
    """Render a validation study: ``validation.json``, ``validation_report.html``/``.pdf``.

    ``figures/*.svg`` are the figures of the best method (lowest cross-validated Cllr);
    ``validation.json`` is ``study.to_json()``, also embedded in the PDF/A-3b PDF
    (:func:`.archive.study_archive`). ``direction``: how the raw scores were
    measured; distances (``"lower_is_similar"``, negated on input) are drawn as measured.
    ``language``: the report's language (:data:`forensic_lr.i18n.SUPPORTED_LANGUAGES`);
    ``validation.json`` does not depend on it.
    """
    files: dict[str, bytes] = {}
    record = study.to_json().encode("utf-8")  # also inside the PDF
    if "json" in formats:
        files["validation.json"] = record
    if not ({"pdf", "html"} & set(formats)):
        return files
    arrays = study.arrays
    ss_llr, ds_llr = arrays.llrs[study.best_method]
    classes = study.class_names
    words = {"language": language, "classes": classes}  # the figures' texts and numbers
    _ = translations(language, "report").gettext
    figures = {
        "tippett": plots.tippett_svg(ss_llr, ds_llr, **words),
        "tippett_type2": plots.tippett_svg(ss_llr, ds_llr, kind="II", **words),
        "ece": plots.ece_svg(ss_llr, ds_llr, **words),
        "ape": plots.ape_svg(ss_llr, ds_llr, **words),
        "det": plots.det_svg(ss_llr, ds_llr, **words),
        "pav": plots.pav_svg(ss_llr, ds_llr, llr_input=True, **words,
                             xlabel=_("cross-validated log10 LR")),
        "llr_overestimation": plots.llr_overestimation_svg(
            ss_llr, ds_llr, **words, xlabel=_("cross-validated log10 LR")),
    }
    if arrays.best_curves is not None:  # None: LLRs validated as given, no model to draw
        figures["score_densities"] = plots.score_density_svg(
            arrays.ss, arrays.ds, curves=arrays.best_curves, direction=direction, **words)
    for name, svg in figures.items():
        files[f"figures/{name}.svg"] = svg.encode("utf-8")
    table = metric_table()
    intervals = (study.intervals or {}).get("intervals", {})
    exact = {r.name for r in study.rates if r.interval == "exact binomial"}  # hold their rate
    outside = [table["short"][name] for name, i in intervals.items() if name not in exact
               and interval_misses(i["estimate"], i["low"], i["high"], metric(name).decimals)]
    context = {
        "study": study.to_dict(),
        "rows": study.methods,
        # each method's metrics, Cllr_cal as printed (printed Cllr - printed minimum Cllr)
        "printed": {row.method: {**row.metrics,
                                 "cllr_cal": printed_metrics(row.metrics).get("cllr_cal")}
                    for row in study.methods},
        "best": study.best_method,
        "metric_labels": table["rows"],
        "short": table["short"],
        "digits": table["digits"],
        "matrix": study.validation_matrix,
        "check_rows": check_rows(study.calibration_checks),
        "outside": outside,
        "figures": {k: safe_svg(v) for k, v in figures.items()},
        "css": Markup(stylesheet(template_dir)),
    }
    html = render("validation_report.html", context, template_dir, language=language,
                  classes=classes)
    if "html" in formats:
        files["validation_report.html"] = html.encode("utf-8")
    if "pdf" in formats:
        from .archive import study_archive
        from .pdf import figures_as_images, html_to_pdf  # weasyprint only for a PDF

        files["validation_report.pdf"] = html_to_pdf(
            figures_as_images(html, figures), roots=template_roots(template_dir),
            archive=study_archive(study, record),
        )
    return files
