"""Signs that values given as LLRs are raw scores: kept here for its old import path; the
checks live in :mod:`forensic_lr.metrics.llr_checks`."""

from ..metrics.llr_checks import EXPECTATION_LIMIT_LOG10, raw_score_signs

__all__ = ["EXPECTATION_LIMIT_LOG10", "raw_score_signs"]
