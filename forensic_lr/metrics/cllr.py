"""Log-likelihood-ratio cost: Cllr, its minimum (PAV) and the calibration loss."""

from __future__ import annotations

import numpy as np

from .._checks import check_pair
from .pav import PAVFit, pav_blocks

_LN2 = np.log(2.0)


def _cllr(ss: np.ndarray, ds: np.ndarray) -> float:
    # log(1 + e^-x) = logaddexp(0, -x): exact for |x| up to ~1e308, 0 at x=+inf, inf at x=-inf
    return float((np.mean(np.logaddexp(0.0, -ss)) + np.mean(np.logaddexp(0.0, ds))) / (2 * _LN2))


def _softplus(x: np.ndarray) -> np.ndarray:
    """``log(1 + e^x)`` without overflow (``+inf -> inf``, ``-inf -> 0``)."""
    return np.logaddexp(0.0, x)


def _block_cllr(fit: PAVFit) -> float:
    """Cllr of the PAV LLRs from block counts (no pass over the trials).

    Blocks without SS have llr -inf and carry no SS cost (and vice versa), so the
    0 * inf products are left out explicitly.
    """
    has_ss, has_ds = fit.n_ss > 0, fit.n_ds > 0
    cost_ss = np.sum(fit.n_ss[has_ss] * _softplus(-fit.llr[has_ss])) / fit.n_ss.sum()
    cost_ds = np.sum(fit.n_ds[has_ds] * _softplus(fit.llr[has_ds])) / fit.n_ds.sum()
    return float((cost_ss + cost_ds) / (2 * _LN2))


def cllr(ss_llr, ds_llr) -> float:
    """Log-likelihood-ratio cost in bits.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        0 for a perfect system, 1 for one that always says LR = 1; unbounded above.

    Notes
    -----
    ``Cllr = 1/(2 N_ss) sum log2(1 + 1/LR_ss) + 1/(2 N_ds) sum log2(1 + LR_ds)`` [1]_,
    evaluated as ``logaddexp(0, -llr) / ln 2`` so that no LR is ever exponentiated.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    return _cllr(*check_pair(ss_llr, ds_llr))


def min_cllr(ss_llr, ds_llr) -> float:
    """Cllr of the PAV-optimal LLRs: the discrimination loss (bits).

    Notes
    -----
    ``minCllr = Cllr(PAV(llr))``; ties are pooled into one block. A +inf PAV LLR only
    occurs in blocks without DS trials (and -inf without SS), so it costs 0.
    """
    return _block_cllr(pav_blocks(*check_pair(ss_llr, ds_llr)))


def cllr_cal(ss_llr, ds_llr) -> float:
    """Calibration loss ``Cllr - minCllr`` (bits, >= 0)."""
    ss, ds = check_pair(ss_llr, ds_llr)
    return _cllr(ss, ds) - _block_cllr(pav_blocks(ss, ds))
