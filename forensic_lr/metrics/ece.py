"""Empirical cross-entropy (ECE) curve of Ramos et al."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .._checks import check_pair
from .pav import pav_blocks

_LN2 = np.log(2.0)


@dataclass(frozen=True)
class ECECurve:
    """Empirical cross-entropy (bits) against prior log odds ``plo`` (natural log).

    ``actual``: the LLRs as given; ``calibrated``: after PAV; ``reference``: LR = 1 always
    (the prior entropy).
    """

    plo: np.ndarray
    actual: np.ndarray
    calibrated: np.ndarray
    reference: np.ndarray

    def to_dict(self) -> dict:
        keys = ("plo", "actual", "calibrated", "reference")
        return {k: getattr(self, k).tolist() for k in keys}


def _ece(ss, ds, grid, w_ss=None, w_ds=None) -> np.ndarray:
    """ECE over the grid; optional weights (counts) per value. One vectorised pass over
    the values per grid point, never an (n x grid) matrix."""
    p = expit(grid)
    cost_ss = np.array([np.average(np.logaddexp(0.0, -(ss + g)), weights=w_ss) for g in grid])
    cost_ds = np.array([np.average(np.logaddexp(0.0, ds + g), weights=w_ds) for g in grid])
    return (p * cost_ss + (1 - p) * cost_ds) / _LN2


def ece_curve(ss_llr, ds_llr, plo=None) -> ECECurve:
    """Empirical cross-entropy over prior log odds.

    Notes
    -----
    ``ECE(plo) = p/N_ss sum log2(1 + e^{-(llr+plo)}) + (1-p)/N_ds sum log2(1 + e^{llr+plo})``
    with ``p = sigmoid(plo)`` [1]_. At ``plo = 0`` it equals Cllr; the reference is the
    prior entropy ``-p log2 p - (1-p) log2(1-p)``.

    References
    ----------
    .. [1] D. Ramos, J. Gonzalez-Rodriguez, G. Zadora, C. Aitken, "Information-theoretical
           assessment of the performance of likelihood ratio computation methods",
           Journal of Forensic Sciences 58 (2013) 1503-1518.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    grid = np.linspace(-2.5, 2.5, 101) * np.log(10) if plo is None else np.asarray(plo, float)
    p = expit(grid)
    reference = (np.logaddexp(0.0, -grid) * p + np.logaddexp(0.0, grid) * (1 - p)) / _LN2
    fit = pav_blocks(ss, ds)
    has_ss, has_ds = fit.n_ss > 0, fit.n_ds > 0
    calibrated = _ece(fit.llr[has_ss], fit.llr[has_ds], grid, fit.n_ss[has_ss], fit.n_ds[has_ds])
    return ECECurve(grid, _ece(ss, ds, grid), calibrated, reference)
