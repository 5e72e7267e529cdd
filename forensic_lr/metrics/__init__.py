"""Performance metrics of likelihood ratios (all take natural-log ``ss_llr, ds_llr``).

:func:`evaluate_llrs` gives every summary metric at once (``evaluate`` is its older name,
kept as an alias).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_pair
from ..display import Table, Tabular
from ..records import Serialisable
from .cllr import block_cllr, cllr, cllr_cal, cllr_of_arrays, min_cllr
from .dcf import APECurve, ape_curve, bayes_threshold, dcf, min_dcf, normalized_bayes_error
from .ece import ECECurve, ece_curve
from .evidence import TippettData, devpav, devpav_of_fit, rmed, rmep, tippett, tippett_counts
from .llr_checks import warn_if_not_llrs
from .overestimation import (
    llr_overestimation,
    llr_overestimation_band,
    llr_overestimation_curve,
    overestimation_of_sorted,
)
from .pav import PAVFit, fit_runs, pav_fit, pav_llr, sorted_runs
from .roc import (
    ROC,
    auc,
    auc_of_groups,
    det_points,
    eer,
    eer_crossing,
    eer_interpolated,
    hull_roc,
    roc,
    roc_convex_hull,
)

__all__ = [
    "ROC",
    "APECurve",
    "ECECurve",
    "Evaluation",
    "PAVFit",
    "TippettData",
    "ape_curve",
    "auc",
    "bayes_threshold",
    "cllr",
    "cllr_cal",
    "dcf",
    "det_points",
    "devpav",
    "ece_curve",
    "eer",
    "eer_interpolated",
    "evaluate",
    "evaluate_llrs",
    "llr_overestimation",
    "llr_overestimation_band",
    "llr_overestimation_curve",
    "min_cllr",
    "min_dcf",
    "normalized_bayes_error",
    "pav_fit",
    "pav_llr",
    "rmed",
    "rmep",
    "roc",
    "roc_convex_hull",
    "tippett",
    "tippett_counts",
]


@dataclass(frozen=True, repr=False)
class Evaluation(Tabular, Serialisable):
    """The performance of a set of LLRs (Cllr family in bits, rates as proportions).

    Attributes
    ----------
    n_ss, n_ds : int
        Numbers of same-source and different-source trials.
    cllr, min_cllr, cllr_cal : float
        Log-likelihood-ratio cost, its PAV minimum and their difference (bits);
        ``cllr`` and ``cllr_cal`` are ``inf`` when an LLR is infinite on the wrong side.
    eer : float
        Equal error rate of the ROC convex hull.
    auc : float
        ``P(llr_ss > llr_ds) + 0.5 P(llr_ss = llr_ds)``.
    rmep, rmed : float
        Shares of SS trials with LR < 1 and of DS trials with LR > 1.
    devpav : float
        devPAV in log10 units (NaN when no PAV block is finite).
    llr_overestimation : float
        Mean absolute LLR overestimation in log10 units (:func:`llr_overestimation`; NaN
        when the classes' LRs do not overlap).
    """

    n_ss: int
    n_ds: int
    cllr: float
    min_cllr: float
    cllr_cal: float
    eer: float
    auc: float
    rmep: float
    rmed: float
    devpav: float
    llr_overestimation: float = float("nan")

    def _table(self) -> Table:
        """One row per metric with its unit (``repr``, notebooks, ``to_frame()``)."""
        units = {"cllr": "bits", "min_cllr": "bits", "cllr_cal": "bits", "eer": "proportion",
                 "auc": "probability", "rmep": "proportion", "rmed": "proportion",
                 "devpav": "log10", "llr_overestimation": "log10"}
        return Table(
            title=f"Evaluation of {self.n_ss} same-source and {self.n_ds} different-source "
                  "LLRs",
            columns=("metric", "value", "unit"),
            rows=tuple((name, getattr(self, name), unit) for name, unit in units.items()),
        )


def evaluate_llrs(ss_llr, ds_llr, *, check: bool = True) -> Evaluation:
    """All summary metrics of a set of SS and DS LLRs, sorting the pooled values once.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    check : bool
        Warn when the values do not look like calibrated LLRs of the classes named
        (default); the library's own callers, which pass LLRs they computed, turn it off.

    Returns
    -------
    Evaluation
        Trial counts, Cllr, minCllr and Cllr_cal (bits), ROCCH-EER, AUC, RMEP, RMED,
        devPAV and the LLR overestimation (log10 units).

    Warns
    -----
    SwappedClassesWarning
        The mean same-source LLR lies below the mean different-source one
        (:func:`~forensic_lr.metrics.llr_checks.swapped_sign`).
    RawScoreWarning
        The values look like raw scores, or LRs in another base: all of one sign, RMEP or
        RMED above 0.5, or a sample mean of LR over DS (of 1/LR over SS) above 10, where
        calibrated LRs give 1 (:func:`~forensic_lr.metrics.llr_checks.raw_score_signs`,
        the checks of ``forensic-lr validate``).

    Notes
    -----
    The one sort and grouping of ties is shared by minCllr (PAV), the EER (ROC convex
    hull = PAV block boundaries), the AUC and devPAV; the formulas are those of
    :func:`cllr`, :func:`min_cllr`, :func:`eer`, :func:`auc`, :func:`rmep`, :func:`rmed`
    and :func:`devpav` [1]_ [2]_.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    .. [2] D. Meuwly, D. Ramos, R. Haraksim, "A guideline for the validation of likelihood
           ratio methods used for forensic evidence evaluation", Forensic Science
           International 276 (2017) 142-153.
    """
    ss_raw, ds_raw = check_pair(ss_llr, ds_llr)
    ss, ds = np.sort(ss_raw), np.sort(ds_raw)  # the only sort
    if check:
        warn_if_not_llrs(ss, ds, presorted=True)
    grouped = sorted_runs(ss, ds, presorted=True)
    fit = fit_runs(grouped)
    # Cllr in input order: bit-identical to cllr(ss_llr, ds_llr)
    actual, minimum = cllr_of_arrays(ss_raw, ds_raw), block_cllr(fit)
    return Evaluation(
        n_ss=int(ss.size),
        n_ds=int(ds.size),
        cllr=actual,
        min_cllr=minimum,
        cllr_cal=actual - minimum,
        eer=eer_crossing(hull_roc(fit)),
        auc=auc_of_groups(grouped),
        rmep=float(np.searchsorted(ss, 0.0, side="left") / ss.size),  # share < 0
        rmed=float((ds.size - np.searchsorted(ds, 0.0, side="right")) / ds.size),  # share > 0
        devpav=devpav_of_fit(fit),
        llr_overestimation=overestimation_of_sorted(ss, ds),
    )


#: The older name of :func:`evaluate_llrs` (the same function), kept for existing code.
evaluate = evaluate_llrs
