"""Empirical lower and upper bounds (ELUB) on the LLRs a validation set can support."""

from __future__ import annotations

import numpy as np

from .._checks import check_pair
from .._numbers import LN10
from .base import BaseCalibrator

#: Thresholds per log10 unit: the search steps by 0.01 in log10 LR (the authors' published
#: procedure); threshold ``k`` is ``k / STEPS_PER_LOG10``, correctly rounded (``k * 0.01``
#: is not: ``3 * 0.01 = 0.030000000000000002``).
STEPS_PER_LOG10 = 100
#: A log10 LR this close to a threshold is taken to lie on it: an LR given on the grid
#: (log10 LR = 0.03) comes back from the natural-log LLR as 0.029999999999999995.
ON_GRID = 1e-12


def elub_bounds(ss_llr, ds_llr) -> tuple[float, float]:
    """ELUB of a set of SS and DS LLRs, as natural-log bounds ``(lower, upper)``.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LLRs of same-source (Hp) and different-source (Hd) trials
        (+-inf allowed, NaN not).

    Returns
    -------
    (float, float)
        ``lower <= 0 <= upper``, natural-log LLR bounds; in log10 units they are
        multiples of 0.01 with ``-log10(N_ss + 1) < lower`` and ``upper < log10(N_ds + 1)``.

    Notes
    -----
    Empirical lower and upper bound of Vergeer et al. [1]_ in the operational form of
    the lir package [2]_. Thresholds ``t`` (log10 LR) run over a grid of step 0.01.
    One misleading LR is added to each side: an Hp trial whose LR is below every
    threshold and an Hd trial whose LR is above every threshold. Deciding "Hp" when
    ``log10 LR > t`` costs, per unit prior weight,

    ``E_sys(t) = (#{Hp: log10 LR <= t} + 1) / (N_ss + 1)
    + 10^t (#{Hd: log10 LR > t} + 1) / (N_ds + 1)``,

    while the neutral system (LR = 1 for every trial) costs ``E_0(t) = min(1, 10^t)``;
    ``E_sys / E_0`` is the normalised Bayes error rate. The system is *worse than
    neutral* at ``t`` when ``E_sys(t) > E_0(t)``. The lower bound is the largest
    ``t <= 0`` where it is worse, plus one step; the upper bound the smallest ``t >= 0``
    where it is worse, minus one step; both are then widened to include 0. Thanks to
    the added misleading LRs every ``t < -log10(N_ss + 1)`` and every
    ``t > log10(N_ds + 1)`` is worse than neutral, which keeps the bounds strictly
    inside those limits. The LLRs are sorted once and each threshold costs one
    ``searchsorted``: O((n + grid) log n) time, O(n + grid) memory (no n x grid matrix).

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink, R. Stoel, "Numerical
           likelihood ratios outputted by LR systems are often based on extrapolation:
           when to stop extrapolating?", Science & Justice 56 (2016) 482-491.
    .. [2] Netherlands Forensic Institute, lir: likelihood ratio library, function
           ``elub`` (bayeserror module), documentation of the ELUB bounder.
    """
    low, high = elub_bounds_log10(ss_llr, ds_llr)
    return float(low * LN10), float(high * LN10)


def elub_bounds_log10(ss_llr, ds_llr, ss_weight=None, ds_weight=None) -> tuple[float, float]:
    """:func:`elub_bounds` in log10 units: exact multiples of 0.01 (rounded to 2 decimals).

    ``ss_weight``, ``ds_weight`` (optional, non-negative): how often each trial counts, so
    that integer counts give the bounds of the repeated LLRs (the counts below each
    threshold become summed weights, ``N`` the total weight).
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    if ss_weight is None and ds_weight is None:
        hp, hd = np.sort(log10_on_grid(ss)), np.sort(log10_on_grid(ds))
        t = elub_thresholds(hp.size, hd.size)
        return elub_bounds_from_counts(
            t, np.searchsorted(hp, t, side="right"), np.searchsorted(hd, t, side="right"),
            hp.size, hd.size,
        )
    (hp, c_hp), (hd, c_hd) = (_cumulative(v, w) for v, w in ((ss, ss_weight), (ds, ds_weight)))
    t = elub_thresholds(c_hp[-1], c_hd[-1])
    return elub_bounds_from_counts(
        t, c_hp[np.searchsorted(hp, t, side="right")], c_hd[np.searchsorted(hd, t, side="right")],
        c_hp[-1], c_hd[-1],
    )


def _cumulative(llr: np.ndarray, weight) -> tuple[np.ndarray, np.ndarray]:
    """Sorted log10 LRs and the weight at or below each (from 0: ``c[k]`` = weight of the
    ``k`` smallest); ``weight=None`` counts each once."""
    order = np.argsort(llr, kind="stable")
    w = np.ones(llr.size) if weight is None else np.asarray(weight, dtype=np.float64)[order]
    return log10_on_grid(llr[order]), np.concatenate([[0.0], np.cumsum(w)])


def log10_on_grid(llr) -> np.ndarray:
    """``llr / ln 10``, with values within :data:`ON_GRID` of a threshold set onto it.

    A threshold ``t`` counts the LLRs with ``log10 LR <= t``; without the snap, an LR
    reported on the grid could fall on either side of its own threshold after the
    ln -> log10 round trip, and the bound would move by one step. Infinite values are
    kept.
    """
    v = np.asarray(llr, dtype=np.float64) / LN10
    with np.errstate(invalid="ignore"):  # inf - inf for infinite LLRs: not on the grid
        grid = np.rint(v * STEPS_PER_LOG10) / STEPS_PER_LOG10
        return np.where(np.abs(v - grid) <= ON_GRID, grid, v)


def elub_thresholds(n_hp: int, n_hd: int) -> np.ndarray:
    """The thresholds (log10 LR) :func:`elub_bounds` tries: ``k / STEPS_PER_LOG10`` for
    every integer ``k`` from one step below ``-log10(n_hp + 1)`` to one step above
    ``log10(n_hd + 1)`` (``n_hp``, ``n_hd``: numbers of Hp and Hd trials)."""
    k_low = int(np.floor(-np.log10(n_hp + 1) * STEPS_PER_LOG10)) - 1
    k_high = int(np.ceil(np.log10(n_hd + 1) * STEPS_PER_LOG10)) + 1
    return np.arange(k_low, k_high + 1) / STEPS_PER_LOG10


def elub_bounds_from_counts(t: np.ndarray, hp_at_most: np.ndarray, hd_at_most: np.ndarray,
                            n_hp: int, n_hd: int) -> tuple[float, float]:
    """:func:`elub_bounds_log10` from counts: ``hp_at_most[j]`` and ``hd_at_most[j]`` are
    the numbers of Hp and Hd trials with ``log10 LR <= t[j]`` (``t`` from
    :func:`elub_thresholds`), ``n_hp`` and ``n_hd`` the numbers of trials."""
    k = np.rint(t * STEPS_PER_LOG10).astype(np.int64)
    p_miss = (hp_at_most + 1) / (n_hp + 1)
    p_fa = (n_hd - hd_at_most + 1) / (n_hd + 1)
    theta = 10.0**t
    worse = p_miss + theta * p_fa > np.minimum(1.0, theta)
    # the grid ends lie beyond the limits, so both searches always find a worse threshold
    k_lower = min(int(k[(k <= 0) & worse].max()) + 1, 0)
    k_upper = max(int(k[(k >= 0) & worse].min()) - 1, 0)
    return k_lower / STEPS_PER_LOG10, k_upper / STEPS_PER_LOG10


class ELUB(BaseCalibrator):
    """Bound any calibrator's LLRs by the ELUB of its own training LLRs.

    Parameters
    ----------
    calibrator : Calibrator
        The calibrator to bound (fitted by :meth:`fit`).

    Attributes
    ----------
    bounds_ : (float, float)
        Natural-log LLR bounds.
    bounds_log10_ : (float, float)
        The same in log10 units (multiples of 0.01).

    Notes
    -----
    ``fit`` fits the calibrator on ``(ss, ds)``, computes its LLRs on those same
    training scores and their :func:`elub_bounds`; ``llr`` clips the calibrator's
    LLRs to ``[bounds_[0], bounds_[1]]``. This is the rule of lir's ELUB bounder
    (in-sample LLRs), a case's ``[method] elub_from = "in-sample"``. A case bounds by
    default with the ELUB of the cross-validated LLRs instead (the comparisons each model
    did not see, :func:`forensic_lr.validation.validate_method`), given to a fitted
    calibrator by :meth:`with_bounds`; docs/methods/uncertainty.md explains the difference.

    References
    ----------
    .. [1] P. Vergeer et al., Science & Justice 56 (2016) 482-491 (see :func:`elub_bounds`).
    """

    #: The bounds of a set of training LLRs: ``(ss_llr, ds_llr, ss_weight, ds_weight)``
    #: -> ``(lower, upper)`` log10 LR (a subclass bounds by another rule).
    bounds_function = staticmethod(elub_bounds_log10)

    def __init__(self, calibrator) -> None:
        self.calibrator = calibrator

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.calibrator.name

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> ELUB:
        """Fit the calibrator and bound it by the ELUB of its training LLRs; weights as in
        :class:`~forensic_lr.calibration.base.Calibrator` (passed on, and counted in the
        bounds)."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        self.calibrator.fit(ss, ds, w_ss, w_ds)
        self.bounds_log10_ = self.training_bounds_log10(
            self.calibrator.llr(ss), self.calibrator.llr(ds), w_ss, w_ds)
        self.bounds_ = (self.bounds_log10_[0] * LN10, self.bounds_log10_[1] * LN10)
        self.fitted_ = True
        return self

    def training_bounds_log10(self, ss_llr, ds_llr, ss_weight=None,
                              ds_weight=None) -> tuple[float, float]:
        """The bounds ``(lower, upper)`` (log10 LR) that :meth:`fit` sets from the fitted
        calibrator's LLRs of its training scores: :attr:`bounds_function` of them (a
        bounder whose bounds do not depend on the LLRs overrides this)."""
        return type(self).bounds_function(ss_llr, ds_llr, ss_weight, ds_weight)

    @classmethod
    def with_bounds(cls, fitted, bounds_log10: tuple[float, float]) -> ELUB:
        """A fitted calibrator limited to given bounds (log10 LR), e.g. those of its
        cross-validated LLRs; ``fitted`` is used as it is (not refitted, not copied)."""
        self = cls(fitted)
        self.bounds_log10_ = (float(bounds_log10[0]), float(bounds_log10[1]))
        self.bounds_ = (self.bounds_log10_[0] * LN10, self.bounds_log10_[1] * LN10)
        self.fitted_ = True
        return self

    def unbounded_llr(self, scores) -> np.ndarray:
        """The wrapped calibrator's LLRs before bounding."""
        return self.calibrator.llr(self._scores(scores))

    def llr(self, scores) -> np.ndarray:
        return np.clip(self.unbounded_llr(scores), *self.bounds_)

    @property
    def density(self):
        """The wrapped calibrator's ``density`` method (absent for non-generative ones).

        Bounding changes LLRs, not the class densities, so they are passed through;
        ``hasattr(elub, "density")`` is ``False`` when the wrapped calibrator has none.
        """
        return self.calibrator.density

    @property
    def fold_llr(self):
        """The wrapped calibrator's cross-validation hook, its LLRs bounded.

        Absent (``hasattr`` is ``False``) when the wrapped calibrator has none. The bounds
        of a split are those of :meth:`fit` on the split's training trials.
        """
        inner = self.calibrator.fold_llr

        def bounded(ss, ds, split, sources):
            self.fit(ss[split.train_ss], ds[split.train_ds])
            return tuple(np.clip(v, *self.bounds_) for v in inner(ss, ds, split, sources))

        return bounded

    def params(self) -> dict:
        self.check_fitted()
        return {
            **self.calibrator.params(),
            "elub_log10_lr_low": float(self.bounds_log10_[0]),
            "elub_log10_lr_high": float(self.bounds_log10_[1]),
        }
