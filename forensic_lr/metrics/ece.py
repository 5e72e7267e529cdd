"""Empirical cross-entropy (ECE) curve of Ramos et al."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .._checks import as_score_array, check_pair
from .._numbers import LN2, LN10
from ..records import Serialisable
from .cllr import softplus_sum
from .pav import PAVFit, pav_blocks


@dataclass(frozen=True)
class ECECurve(Serialisable):
    """Empirical cross-entropy (bits) against prior log odds ``plo`` (natural log).

    ``actual``: the LLRs as given; ``calibrated``: after PAV; ``reference``: LR = 1 always
    (the prior entropy).
    """

    plo: np.ndarray
    actual: np.ndarray
    calibrated: np.ndarray
    reference: np.ndarray


def _ece(cost_ss: np.ndarray, cost_ds: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Combine mean SS and DS costs (nats) at each prior log odds into bits."""
    p = expit(grid)
    return (p * cost_ss + (1 - p) * cost_ds) / LN2


def _ece_of_llrs(ss, ds, grid) -> np.ndarray:
    """ECE of LLRs: one vectorised pass over the trials per grid point (no n x grid matrix)."""
    cost_ss = np.array([softplus_sum(-(ss + g)) for g in grid]) / ss.size
    cost_ds = np.array([softplus_sum(ds + g) for g in grid]) / ds.size
    return _ece(cost_ss, cost_ds, grid)


def _ece_of_blocks(fit: PAVFit, grid) -> np.ndarray:
    """ECE of the PAV LLRs from block counts; a block's +-inf LLR only meets the class
    whose cost it zeroes (blocks without that class are left out: no 0 * inf)."""
    has_ss, has_ds = fit.n_ss > 0, fit.n_ds > 0
    l_ss, w_ss = fit.llr[has_ss], fit.n_ss[has_ss]
    l_ds, w_ds = fit.llr[has_ds], fit.n_ds[has_ds]
    cost_ss = np.array([np.average(np.logaddexp(0.0, -(l_ss + g)), weights=w_ss) for g in grid])
    cost_ds = np.array([np.average(np.logaddexp(0.0, l_ds + g), weights=w_ds) for g in grid])
    return _ece(cost_ss, cost_ds, grid)


def ece_curve(ss_llr, ds_llr, plo=None) -> ECECurve:
    """Empirical cross-entropy over prior log odds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    plo : array_like, optional
        Prior log odds (natural log); default 101 points from ``-2.5 ln 10`` to
        ``2.5 ln 10`` (prior log10 odds -2.5 to 2.5).

    Returns
    -------
    ECECurve
        ``actual``, ``calibrated`` (PAV LLRs) and ``reference`` (LR = 1) in bits.

    Notes
    -----
    ``ECE(plo) = p/N_ss sum log2(1 + e^{-(llr+plo)}) + (1-p)/N_ds sum log2(1 + e^{llr+plo})``
    with ``p = sigmoid(plo)`` [1]_. At ``plo = 0`` it equals Cllr; the reference is the
    prior entropy ``-p log2 p - (1-p) log2(1-p)``. The calibrated curve applies the same
    formula to the PAV LLRs from block counts; PAV blocks do not depend on the prior, so
    it is the minimum over monotone recalibrations at every ``plo``. A block LLR of
    ``+-inf`` only meets the class whose cost it zeroes, so no ``0 * inf`` arises.

    References
    ----------
    .. [1] D. Ramos, J. Gonzalez-Rodriguez, G. Zadora, C. Aitken, "Information-theoretical
           assessment of the performance of likelihood ratio computation methods",
           Journal of Forensic Sciences 58 (2013) 1503-1518.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    grid = np.linspace(-2.5, 2.5, 101) * LN10 if plo is None else as_score_array(plo, "plo")
    p = expit(grid)
    reference = (np.logaddexp(0.0, -grid) * p + np.logaddexp(0.0, grid) * (1 - p)) / LN2
    return ECECurve(
        grid, _ece_of_llrs(ss, ds, grid), _ece_of_blocks(pav_blocks(ss, ds), grid), reference
    )
