"""Expert reports: HTML (jinja2) and PDF (weasyprint) from a case run, plus figures.

:func:`build_report` is pure: it returns ``{relative path: bytes}`` and writes nothing;
the command line hands the files to :func:`forensic_lr.output.write_outputs`.
"""

from __future__ import annotations

from markupsafe import Markup

from ..casework.verbal import in_language, rounded_log10
from ..i18n import translations
from ..plots import count_with_rate
from ..records import dumps
from .context import (
    check_rows,
    config_rows,
    logo_data_uri,
    metric_rows,
    metric_table,
    param_rows,
    safe_svg,
)
from .figures import case_figures, sensitivity_figure
from .render import PRIOR_ODDS_LOG10, render, stylesheet, template_roots

__all__ = ["COMPARISONS_PER_TABLE", "DRAFT_MARK", "build_report", "case_context", "tippett_rows"]

#: Most comparisons side by side in one table (the robustness table gives each three
#: columns, annex A one): more make one table per group, so that no column runs off the
#: A4 page of the PDF (the HTML has the same tables).
COMPARISONS_PER_TABLE = {"sensitivity_comparisons": 2, "prior_odds_comparisons": 3}

#: The mark every page of a draft report carries (templates draft_mark.html, draft_notice.html).
DRAFT_MARK = "DRAFT - not for court"

def tippett_rows(run) -> list[dict]:
    """Per comparison, the background LRs that support its side at least as strongly
    (``tippett_ss``/``tippett_ds`` of each result): ``{"label", "log10_lr", "log10_text",
    "ss", "ds", "side"}``, ``log10_text`` as section 6 prints it, the counts as "3 of 300
    (1 %)" in the report's language, ``side`` "at or above" or "at or below"."""
    n_ss, n_ds = run.ss_llr_cv.size, run.ds_llr_cv.size
    language = run.spec.report.language  # the counts as the report's language writes them
    return [{"label": e.label, "log10_lr": e.log10_lr, "log10_text": e.log10_text,
             "ss": count_with_rate(e.tippett_ss, n_ss, language),
             "ds": count_with_rate(e.tippett_ds, n_ds, language),
             "side": "at or above" if e.llr >= 0 else "at or below"}
            for e in run.result.results]


#: The case report's numbered sections, in order (section 1 is the conclusion).
SECTIONS = ("instructions", "propositions", "findings", "method", "evaluation", "validation",
            "limitations", "declaration")


def section_numbers(result) -> dict[str, int | None]:
    """Section name -> its number in the case report (None for a section left out).

    A final report whose case file states neither instructions nor conditioning
    information leaves section 2 out rather than print that none were stated (a draft
    keeps it, saying so); the later sections move up by one.
    """
    case = result.case
    shown = [name for name in SECTIONS
             if name != "instructions" or result.draft or case.instructions or case.conditioning]
    numbers: dict[str, int | None] = dict.fromkeys(SECTIONS)
    numbers.update({name: i for i, name in enumerate(shown, start=2)})
    return numbers


def case_context(run, figures: dict[str, str], template_dir=None) -> dict:
    """Everything the case-report template uses."""
    result = run.result
    table = metric_table()
    withheld = result.conclusion is not None and result.conclusion.status == "withheld"
    prior_rows = [
        {
            "prior": p,
            # from the LR as printed, so that a reader can check the product by hand
            "posteriors": [p + rounded_log10(r.log10_lr, run.scale,
                                             below_first_band=run.spec.report.below_first_band)
                           for r in result.results],
        }
        for p in PRIOR_ODDS_LOG10
    ] if run.spec.report.prior_odds_table and not withheld else []
    return {
        "r": result,
        "sec": section_numbers(result),
        # no verbal level and no posterior odds anywhere; the computed values in one table
        "withheld": withheld,
        # the scale worded in the report's language (bands and edges as in run.scale)
        "scale": in_language(run.scale, run.spec.report.language),
        "layout": COMPARISONS_PER_TABLE,
        "tippett_rows": tippett_rows(run),
        "sensitivity_figures": [sensitivity_figure(i) for i in range(len(result.results))],
        # each comparison's own pair of propositions, by label (templates call no methods)
        "propositions": {e.label: result.propositions.pair(e.label) for e in result.results},
        "figures": {name: safe_svg(svg) for name, svg in figures.items()},
        "css": Markup(stylesheet(template_dir)),
        "metrics": metric_rows(result.validation),
        "labels": table["labels"],
        "digits": table["digits"],
        "check_rows": check_rows(result.validation.calibration_checks),
        "method_rows": result.method.param_rows,
        "prior_rows": prior_rows,
        "configuration_json": dumps(result.provenance.configuration),
        "prior_odds_table": result.provenance.configuration.get("report", {}).get(
            "prior_odds_table", True),
        "logo": logo_data_uri(result.lab.logo if result.lab else ""),
        "configuration_rows": config_rows(result.provenance.configuration,
                                          score_texts=tuple(e.score_text for e in result.results)),
        "param_table": param_rows(result.method.params),
    }


def build_report(run, formats=("pdf", "html", "json"), template_dir=None) -> dict[str, bytes]:
    """Render a case run: ``report.html``, ``report.pdf``, ``result.json``, ``figures/*.svg``.

    The PDF is PDF/A-3b with ``result.json`` embedded (:func:`.archive.case_archive`),
    whatever ``formats`` lists.

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
    record = run.result.to_json().encode("utf-8")  # also inside the PDF
    if "json" in formats:
        files["result.json"] = record
    if not ({"pdf", "html"} & set(formats)):
        return files
    classes = run.result.propositions.class_names
    figures = case_figures(run, language=run.spec.report.language, classes=classes)
    for name, svg in figures.items():
        files[f"figures/{name}.svg"] = svg.encode("utf-8")
    html = render("case_report.html", case_context(run, figures, template_dir), template_dir,
                  language=run.spec.report.language, classes=classes)
    language = run.spec.report.language
    if run.result.draft and translations(language, "report").gettext(DRAFT_MARK) not in html:
        from ..errors import InputError

        raise InputError(
            "this run is a draft, but the laboratory's case_report.html does not show the "
            f"mark {DRAFT_MARK!r}; add {{% include \"draft_mark.html\" %}} in its <head> and "
            '{% include "draft_notice.html" %} below the title'
        )
    if "html" in formats:
        files["report.html"] = html.encode("utf-8")
    if "pdf" in formats:
        from .archive import case_archive
        from .pdf import figures_as_images, html_to_pdf  # weasyprint only for a PDF

        files["report.pdf"] = html_to_pdf(
            figures_as_images(html, figures), roots=template_roots(template_dir),
            archive=case_archive(run.result, record),
        )
    return files
