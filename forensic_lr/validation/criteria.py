"""Laboratory validation criteria: each threshold against its metric and the metric's uncertainty.

A cross-validated metric is an estimate from a finite set of comparisons: with 15
same-source comparisons, RMEP = 1/15 = 6.7 % has the 95 % interval [0.2, 31.9] %, so
"6.7 % <= 10 %" says little. By default (rule ``"estimate_and_bound"``) a criterion is met
only when both its estimate and its one-sided 95 % confidence bound on the unfavourable
side meet the threshold: the upper bound for a ``_max`` criterion, the lower bound for a
``_min`` one. Both, because a bias-corrected bootstrap interval can exclude its own
estimate, so neither the estimate alone nor the interval alone settles it. The bound is

* for Cllr, minimum Cllr, Cllr_cal, EER and AUC, and for RMEP/RMED when the report gives
  them the bootstrap by source: the end of the two-sided 90 % bootstrap interval read off
  the same replicates by the same method (:data:`~forensic_lr.validation.bootstrap.BOUND_LEVEL`);
* for RMEP/RMED counted as independent trials: the one-sided 95 % Clopper-Pearson bound,
  ``B^-1(0.95; k + 1, n - k)`` for the upper bound (the end of the two-sided 90 % exact
  interval);
* none for devPAV (no interval): it is judged on its estimate, and the result says so.

A laboratory may choose rule ``"estimate"``: the estimate alone decides. Every result
records the rule applied and what the bound came from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._checks import renamed_keyword
from ..metrics.catalogue import criterion_metric
from ..records import CriterionResult
from .bootstrap import BOUND_LEVEL
from .rates import BY_SOURCE, clopper_pearson

__all__ = ["RULES", "CriteriaRule", "check_criteria"]

CriteriaRule = Literal["estimate_and_bound", "estimate"]
#: How a criterion is met: rule -> what the reports say.
RULES: dict[str, str] = {
    "estimate_and_bound": "both the cross-validated value and its one-sided 95 % confidence "
                          "bound on the unfavourable side meet the threshold",
    "estimate": "the cross-validated value meets the threshold (the laboratory's rule: its "
                "uncertainty is not taken into account)",
}


def _bound(key: str, side: str, intervals: Mapping | None,
           rates: Sequence[Any]) -> tuple[float | None, str]:
    """The one-sided 95 % bound of metric ``key`` on ``side`` ("low"/"high") and its source.

    Rates take the interval their report row gives (bootstrap by source, else exact
    binomial); the other metrics the bootstrap's bound. ``(None, "none")`` when unknown.
    """
    rate = next((r for r in rates if r.name == key), None)
    if rate is not None and getattr(rate, "interval", "") != BY_SOURCE:
        low, high = clopper_pearson(rate.count, rate.total, 2 * BOUND_LEVEL - 1)
        return (low if side == "low" else high), "exact binomial"
    item = (intervals or {}).get("intervals", {}).get(key)
    value = None if item is None else item.get(f"bound_{side}")
    if value is None or math.isnan(value):
        return None, "none"
    by = (intervals or {}).get("by", "trial")
    return float(value), f"bootstrap by {by}"


def check_criteria(
    criteria: Mapping[str, float | None] | Any, metrics: Mapping[str, Any], *,
    metric_intervals: Mapping | None = None, rates: Sequence[Any] = (),
    rule: CriteriaRule = "estimate_and_bound", intervals: Mapping | None = None,
) -> tuple[CriterionResult, ...]:
    """Compare each criterion the lab set with its metric and the metric's bound.

    Parameters
    ----------
    criteria : mapping or pydantic model
        Criterion key (``cllr_max``, ``auc_min``, ... from
        :data:`forensic_lr.metrics.catalogue.CRITERIA`) -> threshold, None when not set.
    metrics : mapping
        Metric key -> value (``dataclasses.asdict`` of an ``Evaluation``).
    metric_intervals : mapping, optional
        ``bootstrap_metrics(...).to_dict()`` of the same LLRs (its ``bound_low`` and
        ``bound_high`` per metric); without it, only rates have a bound.
    rates : sequence of RateCount
        RMEP and RMED as counted, with the kind of interval the report gives them.
    rule : {"estimate_and_bound", "estimate"}
        :data:`RULES`.

    Raises
    ------
    InputError
        A key that is not a criterion (a typo such as ``cllr_maxx``): the message names the
        closest criterion and every valid key, as a case file's ``[validation.criteria]``
        does.

    Returns
    -------
    tuple of CriterionResult
        One per criterion set, in the order given. A ``_max`` criterion's value passes
        when ``value <= threshold``, a ``_min`` one's when ``value >= threshold``; NaN never
        passes. ``met``: the value passes and, under ``"estimate_and_bound"``, so does
        the bound (a metric without a bound is judged on its value; ``bound`` is then None).
    """
    intervals = renamed_keyword(metric_intervals, intervals, old="intervals",
                                new="metric_intervals", function="check_criteria")
    if hasattr(criteria, "model_dump"):
        criteria = criteria.model_dump()
    for name in criteria:  # every key checked before any is compared
        criterion_metric(name)
    out = []
    for name, threshold in criteria.items():
        if threshold is None:
            continue
        m = criterion_metric(name)

        def passes(v: float | None, m=m, threshold=threshold) -> bool:
            return v is not None and bool(v <= threshold if m.comparison == "<=" else
                                          v >= threshold)  # NaN never passes

        value = float(metrics[m.key])
        bound, source = _bound(m.key, "high" if m.comparison == "<=" else "low", intervals,
                               rates)
        met = passes(value) and (rule == "estimate" or bound is None or passes(bound))
        out.append(
            CriterionResult(
                name=name, metric=m.key, comparison=m.comparison,
                threshold=float(threshold), value=value, met=met, bound=bound,
                bound_source=source, rule=rule,
            )
        )
    return tuple(out)
