"""Intervals of rates counted on validation trials: exact binomial, or by source.

A rate such as the rate of misleading evidence is a count of trials among a total. With
few trials, or none misleading, a bootstrap of the trials gives the useless interval
``[0, 0]`` ("0 of 12 can never be 1 of 12"); the exact binomial (Clopper-Pearson)
interval does not: 0 of 12 at 95 % is ``[0, 0.265]``. The binomial interval assumes
independent trials; when trials share sources (several comparisons per speaker or pane),
:func:`misleading_rates` takes the interval from the bootstrap by source instead (the same
replicates as the other metrics' intervals), except for a count of none or all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from scipy.special import betaincinv

from .._checks import check_pair, renamed_keyword
from ..defaults import DEFAULT_LEVEL
from ..errors import InputError
from ..records import RateCount

__all__ = ["BY_SOURCE", "EXACT", "RateCount", "RateInterval", "clopper_pearson", "misleading_rates"]

#: How a rate's interval was obtained, as the reports name it.
EXACT = "exact binomial"
BY_SOURCE = "bootstrap by source"


#: The former name of :class:`~forensic_lr.records.RateCount`, kept for existing callers.
RateInterval = RateCount


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


def misleading_rates(ss_llr, ds_llr, level: float = DEFAULT_LEVEL,
                     metric_intervals: Mapping | None = None, *,
                     intervals: Mapping | None = None) -> tuple[RateCount, RateCount]:
    """RMEP and RMED as counts with their intervals (:class:`~forensic_lr.records.RateCount`).

    ``rmep``: same-source trials with LR < 1 (``llr < 0``); ``rmed``: different-source
    trials with LR > 1 (``llr > 0``); LR = 1 exactly is not misleading, as in
    :func:`forensic_lr.metrics.rmep` and :func:`forensic_lr.metrics.rmed`.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of the same-source and different-source trials.
    level : float
        Confidence level of the intervals.
    metric_intervals : mapping, optional
        ``bootstrap_metrics(ss_llr, ds_llr, ...).to_dict()`` of the same LLRs at the same
        level. When it resampled sources, a rate with ``0 < count < total`` takes its
        interval from there (:data:`BY_SOURCE`): trials sharing a source are not
        independent, and the binomial interval would be too narrow. A count of none or
        all keeps the exact binomial interval (:data:`EXACT`): no draw of sources can
        move such a rate, and the binomial interval is then the only informative one
        (it assumes independent trials, which the reports say next to it).

    Notes
    -----
    The by-source interval is that of every other metric: sources drawn with replacement,
    a trial weighted by how often its source (or both its sources) was drawn, and the
    rate of a replicate ``sum_t w_t [misleading_t] / sum_t w_t`` over its class.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    intervals = renamed_keyword(metric_intervals, intervals, old="intervals",
                                new="metric_intervals", function="misleading_rates")
    boot = _by_source(intervals, level)
    out = []
    for name, count, total in (("rmep", int(np.sum(ss < 0)), ss.size),
                               ("rmed", int(np.sum(ds > 0)), ds.size)):
        low, high = clopper_pearson(count, total, level)
        kind = EXACT
        if boot is not None and 0 < count < total:
            b = boot[name]
            if b["low"] is not None and b["high"] is not None:  # null: not estimable
                low, high, kind = float(b["low"]), float(b["high"]), BY_SOURCE
        out.append(RateCount(name=name, count=count, total=int(total), rate=count / total,
                             level=float(level), low=low, high=high, interval=kind))
    return out[0], out[1]


def _by_source(intervals: Mapping | None, level: float) -> Mapping | None:
    """The bootstrap intervals by metric when ``intervals`` resampled sources, else None."""
    if intervals is None or intervals.get("by") != "source":
        return None
    if not math.isclose(float(intervals["level"]), float(level)):
        raise InputError(
            f"the bootstrap intervals are at level {intervals['level']}, the rates asked "
            f"for {level}; use the same level"
        )
    return intervals["intervals"]
