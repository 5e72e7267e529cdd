"""The figures of a case report, as SVG text, each marking this case's score or LR."""

from __future__ import annotations

from functools import partial

from .. import plots
from ..i18n import SOURCE_LANGUAGE
from ..i18n.classes import ClassNames
from ..parallel import collector_paused, run_jobs


def sensitivity_figure(i: int) -> str:
    """Name of the robustness figure of comparison ``i`` (0-based): "sensitivity", then
    "sensitivity_2", "sensitivity_3", ..."""
    return "sensitivity" if i == 0 else f"sensitivity_{i + 1}"


def case_figures(run, *, workers: int | None = None, language: str = SOURCE_LANGUAGE,
                 classes: ClassNames | None = None) -> dict[str, str]:
    """Figure name -> SVG for a :class:`forensic_lr.casework.pipeline.CaseRun`.

    Validation figures use the cross-validated LLRs of the background (what the
    metrics table reports; the LLR overestimation curve's fiducial band has the case's
    interval level and is drawn with its seed); the density figure draws the model fitted
    on all of it as the run evaluated it on a grid of scores (``run.curves``; the report
    calls no model). Every comparison is marked (by its label when there are several);
    the robustness figure is drawn once per comparison (``sensitivity``,
    ``sensitivity_2``, ...). Figures with a log10 LR axis mark the bounds of the case's
    rule (ELUB by default; applied or not, as the report's method section states), named
    in the legend.
    Their texts and numbers are in ``language`` (the report's ``[report] language``), the
    two classes of trials named as ``classes`` says (``[propositions] classes``).
    The figures are drawn on up to ``workers`` cores (default 1: drawing them in a process
    pool did not pay at casework sizes on two cores; :func:`~forensic_lr.parallel.run_jobs`),
    with the same bytes as one by one.
    """
    results = run.result.results
    labels = [e.label for e in results]
    llr = [e.llr for e in results]
    method = run.result.method
    elub = None
    if method.elub_log10_lr_low is not None and method.elub_log10_lr_high is not None:
        elub = (method.elub_log10_lr_low, method.elub_log10_lr_high)
    ss, ds = run.ss_llr_cv, run.ds_llr_cv
    case_score = [float(v) for v in run.evidence_scores]
    unc = run.spec.uncertainty
    marked = {"case_labels": labels, "language": language, "classes": classes}
    # the rule names the bounds in the legends (ELUB for a method record without one)
    bounded = {"elub_log10": elub, "bounds_rule": getattr(method, "bounds_rule", "elub")}
    jobs = {
        "tippett": partial(plots.tippett_svg, ss, ds, case_llr=llr, **bounded, **marked),
        "ape": partial(plots.ape_svg, ss, ds, case_llr=llr, **marked),
        "ece": partial(plots.ece_svg, ss, ds, case_llr=llr, **marked),
        "det": partial(plots.det_svg, ss, ds, case_llr=llr, **marked),
        "llr_overestimation": partial(plots.llr_overestimation_svg, ss, ds, case_llr=llr,
                                      level=unc.level, seed=unc.seed, **bounded, **marked),
        "llr_histogram": partial(plots.llr_histogram_svg, ss, ds, case_llr=llr, **bounded,
                                 **marked),
        "score_densities": partial(plots.score_density_svg, run.ss, run.ds,
                                   case_score=case_score, curves=run.curves, **bounded,
                                   direction=run.result.score_direction, **marked),
    }
    sensitivity = getattr(run.result, "sensitivity", None)  # None for records without one
    if sensitivity is not None:
        for i in range(len(sensitivity.labels)):
            jobs[sensitivity_figure(i)] = partial(plots.sensitivity_svg, sensitivity,
                                                  evidence=i, elub_log10=elub,
                                                  language=language)
    with collector_paused():
        return run_jobs(jobs, 1 if workers is None else workers)
