"""Exact binomial (Clopper-Pearson) intervals for rates counted on validation trials.

A rate such as the rate of misleading evidence is a count of trials among a total. With
few trials, or none misleading, a bootstrap of the trials gives the useless interval
``[0, 0]`` ("0 of 12 can never be 1 of 12"); the exact binomial interval does not: 0 of
12 at 95 % is ``[0, 0.265]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from .._checks import check_pair
from ..errors import InputError

__all__ = ["RateInterval", "clopper_pearson", "misleading_rates"]


@dataclass(frozen=True)
class RateInterval:
    """A count among a total, its rate and the exact binomial interval of the rate."""

    name: str
    count: int
    total: int
    level: float
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.count / self.total

    def to_dict(self) -> dict:
        return {"name": self.name, "count": self.count, "total": self.total,
                "rate": self.rate, "level": self.level, "low": self.low, "high": self.high}


def clopper_pearson(count: int, total: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval of a binomial proportion.

    Parameters
    ----------
    count : int
        Number of "successes" (e.g. misleading trials), ``0 <= count <= total``.
    total : int
        Number of trials, at least 1.
    level : float
        Confidence level, ``0 < level < 1``.

    Returns
    -------
    (low, high) : tuple of float

    Notes
    -----
    With ``alpha = 1 - level`` [1]_::

        low  = B^-1(alpha / 2; k, n - k + 1)        (0 when k = 0)
        high = B^-1(1 - alpha / 2; k + 1, n - k)    (1 when k = n)

    where ``B^-1(q; a, b)`` is the ``q`` quantile of the Beta(a, b) distribution
    (:func:`scipy.special.betaincinv`). For ``k = 0`` the upper end is
    ``1 - (alpha / 2)^(1 / n)``: 0 of 12 at 95 % gives 0.2646. The interval covers the
    true proportion with probability at least ``level`` for every proportion.

    References
    ----------
    .. [1] C. J. Clopper, E. S. Pearson, The use of confidence or fiducial limits
       illustrated in the case of the binomial, Biometrika 26 (1934) 404-413.
    """
    count, total = int(count), int(total)
    if total < 1 or not 0 <= count <= total:
        raise InputError(f"a rate needs 0 <= count <= total and total >= 1; got {count} of {total}")
    if not 0.0 < level < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1, got {level!r}")
    alpha = 1.0 - level
    low = 0.0 if count == 0 else float(betaincinv(count, total - count + 1, alpha / 2))
    high = 1.0 if count == total else float(betaincinv(count + 1, total - count, 1 - alpha / 2))
    return low, high


def misleading_rates(ss_llr, ds_llr, level: float = 0.95) -> tuple[RateInterval, RateInterval]:
    """RMEP and RMED as counts with their Clopper-Pearson intervals.

    ``rmep``: same-source trials with LR < 1 (``llr < 0``); ``rmed``: different-source
    trials with LR > 1 (``llr > 0``); LR = 1 exactly is not misleading, as in
    :func:`forensic_lr.metrics.rmep` and :func:`forensic_lr.metrics.rmed`.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    out = []
    for name, count, total in (("rmep", int(np.sum(ss < 0)), ss.size),
                               ("rmed", int(np.sum(ds > 0)), ds.size)):
        low, high = clopper_pearson(count, total, level)
        out.append(RateInterval(name, count, int(total), float(level), low, high))
    return out[0], out[1]
