"""The figures of a case report, as SVG text, each marking this case's score or LR."""

from __future__ import annotations

from functools import partial

from .. import plots
from ..parallel import call_forked, collector_paused


def case_figures(run, *, workers: int | None = None) -> dict[str, str]:
    """Figure name -> SVG for a :class:`forensic_lr.casework.pipeline.CaseRun`.

    Validation figures use the cross-validated LLRs of the background (what the
    metrics table reports); the density figure uses the model fitted on all of it,
    evaluated once on a score grid (:func:`forensic_lr.plots.model_curves`). The first
    evidence score is the one marked; figures with a log10 LR axis mark the ELUB bounds
    the background supports (applied or not, as the report's method section states).
    The figures are drawn on up to ``workers`` cores (default: the idle ones; see
    :func:`~forensic_lr.parallel.call_forked`), with the same bytes as one by one.
    """
    first = run.result.results[0]
    method = run.result.method
    elub = None
    if method.elub_log10_lr_low is not None and method.elub_log10_lr_high is not None:
        elub = (method.elub_log10_lr_low, method.elub_log10_lr_high)
    ss, ds = run.ss_llr_cv, run.ds_llr_cv
    case_score = float(run.evidence_scores[0])
    curves = plots.model_curves(run.calibrator, run.ss, run.ds, case_score=case_score)
    jobs = {
        "tippett": partial(plots.tippett_svg, ss, ds, case_log10_lr=first.log10_lr,
                           elub_log10=elub),
        "ape": partial(plots.ape_svg, ss, ds, case_llr=first.llr),
        "ece": partial(plots.ece_svg, ss, ds, case_llr=first.llr),
        "det": partial(plots.det_svg, ss, ds, case_llr=first.llr),
        "llr_histogram": partial(plots.llr_histogram_svg, ss, ds, case_llr=first.llr,
                                 elub_log10=elub),
        "score_densities": partial(plots.score_density_svg, run.ss, run.ds,
                                   case_score=case_score, curves=curves, elub_log10=elub,
                                   direction=run.result.score_direction),
    }
    sensitivity = getattr(run.result, "sensitivity", None)  # None for records without one
    if sensitivity is not None:
        jobs["sensitivity"] = partial(plots.sensitivity_svg, sensitivity, elub_log10=elub)
    with collector_paused():
        return call_forked(jobs, workers)
