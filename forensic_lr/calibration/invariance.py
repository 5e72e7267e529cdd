"""Invariance-verification (IV) bounds on the LLRs a validation set can support."""

from __future__ import annotations

import numpy as np

from .._checks import check_pair
from .._numbers import LN10
from ..errors import InputError
from .base import check_weight
from .elub import ELUB

#: Jeffreys prior: each share of LLRs at or above a threshold is estimated as
#: ``(count + 1/2) / (n + 1)``.
JEFFREYS = 0.5


#: A log10 LR within this many threshold steps of a threshold is taken to lie on it (LRs
#: given on a decimal grid come back from natural logs a few ulps off; as for ELUB).
ON_STEP = 1e-9


def iv_delta_functions(ss_log10: np.ndarray, ds_log10: np.ndarray, start: float, step: float,
                       size: int, ss_weight=None,
                       ds_weight=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, delta_low(t), delta_high(t))`` of log10 LLRs at ``t_k = start + k step``.

    With ``P_p(t) = (#{Hp log10 LR >= t} + 1/2) / (N_p + 1)`` and ``P_d`` likewise for Hd
    (counts weighted by ``*_weight`` when given, ``N`` their sums):
    ``delta_high = log10 P_p - log10 P_d - t`` and
    ``delta_low = t - log10(1 - P_p) + log10(1 - P_d)``. ``x >= t_k`` is decided in steps,
    ``floor((x - start) / step + 1e-9) >= k``, so that an LLR on a threshold counts as on
    it; counts by one ``bincount`` per class: O(n + size).
    """
    k = np.arange(size)
    shares = []
    for values, weight in ((ss_log10, ss_weight), (ds_log10, ds_weight)):
        w = np.ones(values.size) if weight is None else weight
        last = np.clip(np.floor((values - start) / step + ON_STEP), -1, size - 1).astype(int)
        # weight of the LLRs whose last threshold reached is >= k
        per_last = np.bincount(last + 1, weights=w, minlength=size + 1)
        count = np.cumsum(per_last[::-1])[::-1][1:]
        shares.append((count + JEFFREYS) / (w.sum() + 2 * JEFFREYS))
    t = start + step * k
    (p_ss, p_ds) = shares
    delta_high = np.log10(p_ss) - np.log10(p_ds) - t
    delta_low = t - np.log10(1 - p_ss) + np.log10(1 - p_ds)
    return t, delta_low, delta_high


def iv_bounds_log10(ss_llr, ds_llr, ss_weight=None, ds_weight=None, *, step: float = 0.001,
                    clip: float = 20.0) -> tuple[float, float]:
    """Invariance-verification bounds ``(lower, upper)`` in log10 LR.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LLRs of same-source (Hp) and different-source (Hd) trials (+-inf allowed).
    ss_weight, ds_weight : array_like, optional
        How often each LLR counts (as calibrators' weights).
    step : float
        Spacing of the candidate thresholds (log10 units; the authors use 0.001).
    clip : float
        log10 LLRs beyond +-clip are set to +-clip first (so +-inf are usable).

    Returns
    -------
    (float, float)
        ``lower <= 0 <= upper`` (log10 LR).

    Notes
    -----
    Alberink et al. [1]_: an LR system's output is trusted up to the largest LR ``t`` at
    which the data still confirm ``P(LR >= t | Hp) / P(LR >= t | Hd) >= t``, the
    invariance ("the LR of the LR is the LR") checked on the tail. The thresholds are
    ``t_k = start + k step`` for ``k = 0, 1, ...`` from ``start = min(0, min LLR)`` up to
    ``max(0, max LLR)`` (both log10, after clipping), as in the lir package. The upper
    bound is the threshold just before the first at which ``delta_high`` (see
    :func:`iv_delta_functions`) is negative, or the largest Hp LLR if it never is; the lower
    bound is the threshold just after the last at which ``delta_low`` is negative, or the
    smallest Hd LLR if it never is; finally ``lower = min(lower, 0)``,
    ``upper = max(upper, 0)``. (lir treats a negative value at the very first threshold
    as none; here it counts like any other.)

    References
    ----------
    .. [1] I. Alberink, J. Leegwater, J. Malmborg, A. Nordgaard, M. Sjerps, L. van der Ham,
           "A transparent method to determine limit values for likelihood ratio systems",
           2025 (as implemented in the lir package 1.8, ``IVBounder``).
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    w_ss, w_ds = check_weight(ss_weight, ss.size, "ss_weight"), check_weight(
        ds_weight, ds.size, "ds_weight")
    for name, value, example in (("step", step, "0.001"), ("clip", clip, "20")):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not (np.isfinite(value) and value > 0):
            raise InputError(f"iv_bounds_log10: {name} must be a positive finite number "
                             f"(log10 units), got {value!r}; pass e.g. {name}={example}")
    ss, ds = (np.clip(v / LN10, -clip, clip) for v in (ss, ds))
    lo = min(0.0, float(min(ss.min(), ds.min())))
    hi = max(0.0, float(max(ss.max(), ds.max()))) + step
    t, delta_low, delta_high = iv_delta_functions(ss, ds, lo, step,
                                                  int(np.ceil((hi - lo) / step)), w_ss, w_ds)
    high_neg = np.flatnonzero(delta_high < 0)
    upper = float(ss.max()) if high_neg.size == 0 else float(t[max(high_neg[0] - 1, 0)])
    low_neg = np.flatnonzero(delta_low < 0)
    lower = float(ds.min()) if low_neg.size == 0 else float(t[min(low_neg[-1] + 1, t.size - 1)])
    return min(lower, 0.0), max(upper, 0.0)


class IV(ELUB):
    """Bound any calibrator's LLRs by the invariance-verification bounds of its own training
    LLRs (:func:`iv_bounds_log10`); otherwise as :class:`~forensic_lr.calibration.elub.ELUB`
    (``bounds_``, ``bounds_log10_``, :meth:`with_bounds`)."""

    bounds_function = staticmethod(iv_bounds_log10)

    def params(self) -> dict:
        self.check_fitted()
        return {
            **self.calibrator.params(),
            "iv_log10_lr_low": float(self.bounds_log10_[0]),
            "iv_log10_lr_high": float(self.bounds_log10_[1]),
        }
