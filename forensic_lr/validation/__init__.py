"""Validation of a method: metric intervals, paired comparison, criteria and the study.

* :func:`bootstrap_metrics` - bootstrap intervals of Cllr, minimum Cllr, Cllr_cal, EER, AUC,
  RMEP and RMED, resampling trials or whole sources (:mod:`.bootstrap`);
* :func:`compare_systems` - two systems on the same trials, with DeLong's AUC test
  (:mod:`.compare`);
* :func:`check_criteria` - laboratory criteria against the metrics (:mod:`.criteria`);
* :func:`validate_llr_set` - the metrics, DCF rows, intervals and warnings of a system's own
  LLRs, the record of ``forensic-lr validate --ss --ds`` (:mod:`.llr_metrics`);
* :func:`run_validation_study` - every method cross-validated on one score set, the
  record behind ``forensic-lr validate --report`` (:mod:`.study`);
* :func:`supported_range` - the range of LRs validated LLRs support: their ELUB and
  invariance-verification bounds (:mod:`.method`).
"""

from __future__ import annotations

from ..resampling import SourceSplit, source_folds
from .bootstrap import INTERVALS, METRICS, MetricInterval, MetricIntervals, bootstrap_metrics
from .compare import (
    DeLongTest,
    PairedComparison,
    compare_systems,
    delong_test,
    outcome,
    p_text,
    placement_values,
)
from .criteria import check_criteria
from .llr_metrics import metrics_csv, metrics_row, study_method_metrics, validate_llr_set
from .method import supported_range
from .study import run_validation_study

__all__ = [
    "INTERVALS",
    "METRICS",
    "DeLongTest",
    "MetricInterval",
    "MetricIntervals",
    "PairedComparison",
    "SourceSplit",
    "bootstrap_metrics",
    "check_criteria",
    "compare_systems",
    "delong_test",
    "metrics_csv",
    "metrics_row",
    "outcome",
    "p_text",
    "placement_values",
    "run_validation_study",
    "source_folds",
    "study_method_metrics",
    "supported_range",
    "validate_llr_set",
]
