"""The figures of a case report, as SVG text, each marking this case's score or LR."""

from __future__ import annotations

import math

from .. import plots

_LN10 = math.log(10.0)


def case_figures(run) -> dict[str, str]:
    """Figure name -> SVG for a :class:`forensic_lr.casework.pipeline.CaseRun`.

    Validation figures use the cross-validated LLRs of the background (what the
    metrics table reports); the density figure uses the model fitted on all of it.
    The first evidence score is the one marked.
    """
    first = run.result.results[0]
    ss, ds = run.ss_llr_cv, run.ds_llr_cv
    return {
        "tippett": plots.tippett_svg(ss, ds, case_log10_lr=first.log10_lr),
        "ape": plots.ape_svg(ss, ds, case_llr=first.llr),
        "ece": plots.ece_svg(ss, ds, case_llr=first.llr),
        "det": plots.det_svg(ss, ds, case_llr=first.llr),
        "score_densities": plots.score_density_svg(
            run.ss, run.ds, run.calibrator, case_score=float(run.evidence_scores[0])
        ),
        "llr_histogram": plots.llr_histogram_svg(ss, ds, case_llr=first.llr),
    }
