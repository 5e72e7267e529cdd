"""Do these numbers look like calibrated LLRs? Signs that a file holds raw scores instead.

``forensic-lr validate --ss --ds`` reads its inputs as natural-log LRs. A file of raw
comparison scores read that way gives a meaningless Cllr; :func:`raw_score_signs` names the
symptoms so that the command can point to ``--calibrate``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from .._numbers import LN10

__all__ = ["EXPECTATION_LIMIT_LOG10", "raw_score_signs"]

#: Largest log10 of the sample mean of LR over DS (of 1/LR over SS) taken as calibrated.
EXPECTATION_LIMIT_LOG10 = 1.0


def raw_score_signs(ss_llr, ds_llr) -> tuple[str, ...]:
    """Reasons to think that ``ss_llr``, ``ds_llr`` are not calibrated natural-log LRs.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        The values read as natural-log LRs of same-source and different-source trials.

    Returns
    -------
    tuple of str
        Empty when nothing looks wrong; otherwise one sentence per symptom.

    Notes
    -----
    Three symptoms:

    * every value has the same sign: no trial supports the other proposition;
    * RMEP = share of SS with LLR < 0, or RMED = share of DS with LLR > 0, above 0.5: the
      values favour the wrong proposition more often than not;
    * the sample means :math:`\\overline{LR}_{DS} = \\frac1{n_{ds}}\\sum e^{\\ell_j}` or
      :math:`\\overline{1/LR}_{SS} = \\frac1{n_{ss}}\\sum e^{-\\ell_i}` above 10. For
      calibrated LRs both expectations equal 1 (Good [1]_; van Leeuwen and Brummer [2]_):
      :math:`E(LR \\mid H_d) = \\int p(x|H_p) dx = 1`. By Markov's inequality a sample mean
      reaches 10 with probability at most 0.1, and in practice far less; raw scores on
      another scale exceed it by orders of magnitude. Computed with ``logsumexp``
      (no overflow).

    References
    ----------
    .. [1] I. J. Good, Probability and the Weighing of Evidence, Griffin, 1950.
    .. [2] D. A. van Leeuwen, N. Brummer, The distribution of calibrated likelihood-ratios
       in speaker recognition, Interspeech 2013.
    """
    ss = np.asarray(ss_llr, dtype=np.float64).ravel()
    ds = np.asarray(ds_llr, dtype=np.float64).ravel()
    ss, ds = ss[~np.isnan(ss)], ds[~np.isnan(ds)]
    if ss.size == 0 or ds.size == 0:
        return ()
    signs = []
    both = np.concatenate([ss, ds])
    if np.all(both > 0) or np.all(both < 0):
        side = "positive (favour Hp)" if both[0] > 0 else "negative (favour Hd)"
        signs.append(f"all {both.size} values are {side}")
    rmep, rmed = float(np.mean(ss < 0)), float(np.mean(ds > 0))
    if rmep > 0.5:
        signs.append(f"RMEP = {rmep:.2f}: most same-source values favour Hd")
    if rmed > 0.5:
        signs.append(f"RMED = {rmed:.2f}: most different-source values favour Hp")
    with np.errstate(over="ignore", invalid="ignore"):
        mean_lr_ds = (logsumexp(ds) - math.log(ds.size)) / LN10
        mean_inv_ss = (logsumexp(-ss) - math.log(ss.size)) / LN10
    for value, what in ((mean_lr_ds, "LR over the different-source values"),
                        (mean_inv_ss, "1/LR over the same-source values")):
        if value > EXPECTATION_LIMIT_LOG10:
            signs.append(f"the mean {what} is 10^{value:.1f}; for calibrated LRs it is 1")
    return tuple(signs)
