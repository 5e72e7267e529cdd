"""Performance metrics of likelihood ratios (all take natural-log ``ss_llr, ds_llr``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .._checks import check_pair
from .cllr import _block_cllr, _cllr, cllr, cllr_cal, min_cllr
from .dcf import APECurve, ape_curve, bayes_threshold, dcf, min_dcf, normalized_bayes_error
from .ece import ECECurve, ece_curve
from .evidence import TippettData, _devpav, devpav, rmed, rmep, tippett
from .pav import PAVFit, _fit_runs, pav_fit, pav_llr, sorted_runs
from .roc import (
    ROC,
    _auc,
    _crossing,
    _hull,
    auc,
    det_points,
    eer,
    eer_interpolated,
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
]


@dataclass(frozen=True)
class Evaluation:
    """The performance of a set of LLRs (Cllr family in bits, rates as proportions)."""

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

    def to_dict(self) -> dict:
        return asdict(self)


def evaluate(ss_llr, ds_llr) -> Evaluation:
    """All summary metrics of a set of SS and DS LLRs, sorting the pooled values once.

    The one sort and grouping of ties is shared by minCllr (PAV), the EER (ROC convex
    hull = PAV block boundaries) and the AUC; see the individual functions for formulas.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    grouped = sorted_runs(ss, ds)
    fit = _fit_runs(grouped)
    actual, minimum = _cllr(ss, ds), _block_cllr(fit)
    return Evaluation(
        n_ss=int(ss.size),
        n_ds=int(ds.size),
        cllr=actual,
        min_cllr=minimum,
        cllr_cal=actual - minimum,
        eer=_crossing(_hull(fit)),
        auc=_auc(grouped),
        rmep=float(np.mean(ss < 0)),
        rmed=float(np.mean(ds > 0)),
        devpav=_devpav(fit),
    )
