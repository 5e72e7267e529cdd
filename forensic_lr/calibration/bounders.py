"""Bounds on LLRs that do not come from the LLRs (the number of sources, fixed values), and
the bounds of any rule a case may choose (:func:`rule_bounds_log10`)."""

from __future__ import annotations

import math

import numpy as np

from ..defaults import BOUNDS_RULES
from ..errors import InputError
from ..resampling import source_codes
from .elub import ELUB, elub_bounds_log10


def source_count_bounds_log10(n_sources: int) -> tuple[float, float]:
    """``(-log10 N, log10 N)``: an LR between ``1/N`` and ``N`` for ``N`` sources.

    The N-source bound of the lir package (version 1.8, ``NSourceBounder``): with ``N``
    distinct sources in the data, no LR is taken to give more than a factor ``N`` of
    support for either proposition. It depends only on how many sources the data hold,
    not on the LLRs (unlike ELUB and the invariance-verification bounds).

    Raises
    ------
    InputError
        ``n_sources`` not a whole number of at least 1.
    """
    if isinstance(n_sources, bool) or not isinstance(n_sources, (int, np.integer)) \
            or n_sources < 1:
        raise InputError(f"n_sources must be a whole number of at least 1 (the number of "
                         f"distinct sources in the data), got {n_sources!r}")
    bound = math.log10(int(n_sources))
    return -bound, bound


def fixed_bounds_log10(low, high) -> tuple[float, float]:
    """``(low, high)`` as given (log10 LR), None for no bound (-inf, +inf), checked:
    ``low <= 0 <= high`` (a bound never moves an LR across 1).

    Raises
    ------
    InputError
        A bound that is not a number, on the wrong side of 0, or NaN.
    """
    out = []
    for name, value, default, ok in (("low", low, -math.inf, lambda v: v <= 0),
                                     ("high", high, math.inf, lambda v: v >= 0)):
        if value is None:
            out.append(default)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                             np.floating)) \
                or math.isnan(value) or not ok(value):
            side = "at most 0" if name == "low" else "at least 0"
            raise InputError(f"fixed bounds: {name} must be a log10 LR {side} (or None for "
                             f"no bound), got {value!r}")
        out.append(float(value))
    return out[0], out[1]


class SourceCountBounds(ELUB):
    """Bound a calibrator's LLRs to ``[-log10 N, log10 N]`` (log10), ``N`` the number of
    distinct sources in the data it is trained on (:func:`source_count_bounds_log10`);
    otherwise as :class:`~forensic_lr.calibration.elub.ELUB` (``bounds_``,
    ``bounds_log10_``, bounded ``fold_llr``).

    Parameters
    ----------
    calibrator : Calibrator
        The calibrator to bound.
    n_sources : int
        Number of distinct sources (a source counted once however many comparisons it
        is in; with pairs, the sources on either side).
    """

    def __init__(self, calibrator, n_sources: int) -> None:
        super().__init__(calibrator)
        self.n_sources = n_sources
        source_count_bounds_log10(n_sources)  # checked now, not at fit

    @classmethod
    def from_sources(cls, calibrator, ss_sources, ds_sources) -> SourceCountBounds:
        """The bounder for the training data whose trials have these source ids (shape
        ``(n,)`` or ``(n, 2)`` per class, as :func:`forensic_lr.resampling.source_folds`):
        ``N`` is the number of distinct ids in both."""
        n_ss, n_ds = len(np.asarray(ss_sources)), len(np.asarray(ds_sources))
        return cls(calibrator, source_codes(ss_sources, ds_sources, n_ss, n_ds)[2])

    def training_bounds_log10(self, ss_llr, ds_llr, ss_weight=None,
                              ds_weight=None) -> tuple[float, float]:
        return source_count_bounds_log10(self.n_sources)

    def params(self) -> dict:
        self.check_fitted()
        return {**self.calibrator.params(), "n_sources": int(self.n_sources),
                "source_count_log10_lr_low": float(self.bounds_log10_[0]),
                "source_count_log10_lr_high": float(self.bounds_log10_[1])}


class FixedBounds(ELUB):
    """Bound a calibrator's LLRs to fixed log10 bounds ``(low, high)`` set by the
    laboratory (:func:`fixed_bounds_log10`; None: no bound on that side); otherwise as
    :class:`~forensic_lr.calibration.elub.ELUB`. The lir package calls this a static
    bounder."""

    def __init__(self, calibrator, low: float | None, high: float | None) -> None:
        super().__init__(calibrator)
        self.low, self.high = fixed_bounds_log10(low, high)

    def training_bounds_log10(self, ss_llr, ds_llr, ss_weight=None,
                              ds_weight=None) -> tuple[float, float]:
        return self.low, self.high

    def params(self) -> dict:
        self.check_fitted()
        return {**self.calibrator.params(),
                "fixed_log10_lr_low": float(self.bounds_log10_[0]),
                "fixed_log10_lr_high": float(self.bounds_log10_[1])}


def rule_bounds_log10(rule: str, ss_llr, ds_llr, *, n_sources: int | None = None,
                      fixed: tuple[float | None, float | None] | None = None
                      ) -> tuple[float, float]:
    """The bounds ``(lower, upper)`` (log10 LR) that ``rule`` gives a set of LLRs.

    ``"elub"``: :func:`~forensic_lr.calibration.elub.elub_bounds_log10` of the LLRs
    (Vergeer et al. 2016); ``"iv"``:
    :func:`~forensic_lr.calibration.invariance.iv_bounds_log10` of them (Alberink et al.
    2025); ``"n-source"``: :func:`source_count_bounds_log10` of ``n_sources``;
    ``"fixed"``: :func:`fixed_bounds_log10` of ``fixed = (low, high)``. The last two do not
    depend on the LLRs.

    Raises
    ------
    InputError
        An unknown rule, ``"n-source"`` without ``n_sources`` or ``"fixed"`` without
        ``fixed`` (or with bounds on the wrong side of 0).
    """
    if rule == "elub":
        return elub_bounds_log10(ss_llr, ds_llr)
    if rule == "iv":
        from .invariance import iv_bounds_log10

        return iv_bounds_log10(ss_llr, ds_llr)
    if rule == "n-source":
        if n_sources is None:
            raise InputError('bounds = "n-source" needs the number of sources: give source '
                             "ids with the background scores (a source or source_a, "
                             "source_b column), or choose another rule")
        return source_count_bounds_log10(n_sources)
    if rule == "fixed":
        if fixed is None or isinstance(fixed, str) or np.size(fixed) != 2:
            raise InputError('bounds = "fixed" needs fixed_bounds = [low, high] (log10 LR, '
                             f"low <= 0 <= high), e.g. fixed_bounds = [-4.0, 4.0]; got {fixed!r}")
        return fixed_bounds_log10(*fixed)
    raise InputError(f"bounds must be one of {', '.join(BOUNDS_RULES)}; got {rule!r}")


__all__ = ["FixedBounds", "SourceCountBounds", "fixed_bounds_log10",
           "rule_bounds_log10", "source_count_bounds_log10"]
