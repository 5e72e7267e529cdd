"""Readers of the files users bring: score files, paired system outputs, matrices.

Every reader validates as it reads and raises :class:`~forensic_lr.errors.InputError`
naming the file, line, column and value, with the fix.
"""

from __future__ import annotations

from .paired import PairedScores, load_paired_scores
from .scores import ScoreSet, load_scores, orient, read_score_file, sha256_file

__all__ = [
    "PairedScores",
    "ScoreSet",
    "load_paired_scores",
    "load_scores",
    "orient",
    "read_score_file",
    "sha256_file",
]
