"""Empirical lower and upper bounds (ELUB) on the LLRs a validation set can support."""

from __future__ import annotations

import numpy as np

from .._checks import check_pair
from .base import BaseCalibrator

_LN10 = np.log(10.0)
_STEP = 0.01  # grid step in log10 units, as in the authors' published procedure


def elub_bounds(ss_llr, ds_llr) -> tuple[float, float]:
    """ELUB of a set of SS and DS LLRs, as natural-log bounds ``(lower, upper)``.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LLRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    (float, float)
        ``lower <= 0 <= upper``, natural-log LLR bounds.

    Notes
    -----
    Vergeer et al. [1]_: for each threshold ``rho`` (log10 LR) on a grid of step 0.01,
    one misleading LR equal to the threshold is added to the validation set (to the SS
    set for ``rho < 0``, to the DS set for ``rho >= 0``) and the normalised Bayes error
    of deciding with threshold ``theta = 10^rho`` is computed:

    * ``rho < 0``: ``NBE = P(LR <= theta | Hp) / theta + P(LR > theta | Hd)``,
    * ``rho >= 0``: ``NBE = theta P(LR >= theta | Hd) + P(LR < theta | Hp)``.

    The bounds are the smallest and largest ``rho`` with ``NBE < 1`` (the LR system beats
    the neutral system LR = 1 there), widened to include 0. The added misleading LR keeps
    them inside ``-log10(N_ss + 1) < LB`` and ``UB < log10(N_ds + 1)``. Each threshold
    costs one ``searchsorted`` in the sorted LLRs: O((n + grid) log n).

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink, R. Stoel, "Numerical
           likelihood ratios outputted by LR systems are often based on extrapolation:
           when to stop extrapolating?", Science & Justice 56 (2016) 482-491.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    hp, hd = np.sort(ss / _LN10), np.sort(ds / _LN10)
    n_hp, n_hd = hp.size, hd.size
    reach = np.log10(max(n_hp, n_hd) + 1) + _STEP
    rho = np.arange(-np.ceil(reach / _STEP), np.ceil(reach / _STEP) + 1) * _STEP
    neg, pos = rho[rho < 0], rho[rho >= 0]
    nbe_neg = (np.searchsorted(hp, neg, side="right") + 1) / (n_hp + 1) / 10.0**neg + (
        n_hd - np.searchsorted(hd, neg, side="right")
    ) / n_hd
    nbe_pos = 10.0**pos * (n_hd - np.searchsorted(hd, pos, side="left") + 1) / (
        n_hd + 1
    ) + np.searchsorted(hp, pos, side="left") / n_hp
    good = rho[np.concatenate([nbe_neg, nbe_pos]) < 1]
    lower = min(float(good.min()), 0.0) if good.size else 0.0
    upper = max(float(good.max()), 0.0) if good.size else 0.0
    return float(lower * _LN10), float(upper * _LN10)


class ELUB(BaseCalibrator):
    """Bound any calibrator's LLRs by the ELUB of its own training LLRs.

    Parameters
    ----------
    calibrator : Calibrator
        The calibrator to bound (fitted by :meth:`fit`).

    Notes
    -----
    ``fit`` fits the calibrator, computes its LLRs on the training scores and their
    :func:`elub_bounds`; ``llr`` clips the calibrator's LLRs to them. Bounds from the
    training LLRs are slightly wider than bounds from cross-validated LLRs would be
    (the calibrator has seen those scores); the case pipeline reports the
    cross-validated metrics beside them.
    """

    def __init__(self, calibrator) -> None:
        self.calibrator = calibrator

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.calibrator.name

    def fit(self, ss, ds) -> ELUB:
        ss, ds = self._validate(ss, ds)
        self.calibrator.fit(ss, ds)
        self.bounds_ = elub_bounds(self.calibrator.llr(ss), self.calibrator.llr(ds))
        self.bounds_log10_ = (float(self.bounds_[0] / _LN10), float(self.bounds_[1] / _LN10))
        self.fitted_ = True
        return self

    def unbounded_llr(self, scores) -> np.ndarray:
        """The wrapped calibrator's LLRs before bounding."""
        return self.calibrator.llr(self._scores(scores))

    def llr(self, scores) -> np.ndarray:
        return np.clip(self.unbounded_llr(scores), *self.bounds_)

    def density(self, scores):
        """The wrapped calibrator's densities (if it has them)."""
        return self.calibrator.density(scores)

    def params(self) -> dict:
        self._scores([0.0])
        return {
            **self.calibrator.params(),
            "elub_log10_lr_low": float(self.bounds_log10_[0]),
            "elub_log10_lr_high": float(self.bounds_log10_[1]),
        }
