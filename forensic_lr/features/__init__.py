"""From measurements to scores and LRs: measurement tables, pairs by source, score
functions and the two-level random-effects model of Aitken and Lucy (2004).

The compute layer for laboratories that start from feature values (glass refractive index
and elemental composition, drug profiles, spectra) rather than from comparison scores; the
case pipeline and the command line only call it.
"""

from __future__ import annotations

from .measurements import Measurements, load_measurements, measurements_from_arrays
from .pairs import (
    Pairs,
    Units,
    make_pairs,
    out_of_fold,
    pair_units,
    split_by_sources,
    units_of,
)
from .scores import (
    SCORE_FUNCTIONS,
    ClassifierScore,
    DistanceScore,
    pair_scores,
    pooled_within_covariance,
)
from .two_level import TwoLevelModel, cross_validated_pair_llr, default_bandwidth

__all__ = [
    "SCORE_FUNCTIONS",
    "ClassifierScore",
    "DistanceScore",
    "Measurements",
    "Pairs",
    "TwoLevelModel",
    "Units",
    "cross_validated_pair_llr",
    "default_bandwidth",
    "load_measurements",
    "make_pairs",
    "measurements_from_arrays",
    "out_of_fold",
    "pair_scores",
    "pair_units",
    "pooled_within_covariance",
    "split_by_sources",
    "units_of",
]
