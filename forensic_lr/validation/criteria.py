"""Laboratory validation criteria: each threshold compared with its cross-validated metric."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..metrics.catalogue import criterion_metric
from ..records import CriterionResult

__all__ = ["check_criteria"]


def check_criteria(
    criteria: Mapping[str, float | None] | Any, metrics: Mapping[str, Any]
) -> tuple[CriterionResult, ...]:
    """Compare each criterion the lab set with its metric.

    Parameters
    ----------
    criteria : mapping or pydantic model
        Criterion key (``cllr_max``, ``auc_min``, ... from
        :data:`forensic_lr.metrics.catalogue.CRITERIA`) -> threshold, None when not set.
    metrics : mapping
        Metric key -> value (``Evaluation.to_dict()``).

    Returns
    -------
    tuple of CriterionResult
        One per criterion set, in the order given. A ``_max`` criterion passes when
        ``value <= threshold``, a ``_min`` one when ``value >= threshold``; NaN never passes.
    """
    if hasattr(criteria, "model_dump"):
        criteria = criteria.model_dump()
    out = []
    for name, threshold in criteria.items():
        if threshold is None:
            continue
        m = criterion_metric(name)
        value = float(metrics[m.key])
        met = value <= threshold if m.comparison == "<=" else value >= threshold
        out.append(
            CriterionResult(
                name=name, metric=m.key, comparison=m.comparison,
                threshold=float(threshold), value=value, met=bool(met),  # NaN never meets
            )
        )
    return tuple(out)
