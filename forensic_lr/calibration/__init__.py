"""Score-to-LLR calibrators with one interface: ``fit(ss, ds)``, ``llr(scores)``, ``params()``.

Methods are picked by name from :data:`CALIBRATORS` (a closed table, never a dotted
path from a configuration file).
"""

from __future__ import annotations

import inspect

from ..errors import InputError
from .base import BaseCalibrator, Calibrator, fit_warnings
from .bayesian import BayesianCalibrator
from .checks import calibration_checks, eer_linear_calibration
from .elub import ELUB, elub_bounds
from .gaussian import GaussianCalibrator
from .kde import KDECalibrator
from .logistic import LogisticCalibrator
from .pav import PAVCalibrator
from .scal import SCalCalibrator
from .student_t import StudentTCalibrator
from .suspect_map import SuspectMAPCalibrator
from .unsupervised import UnsupervisedCalibrator

CALIBRATORS: dict[str, type[BaseCalibrator]] = {
    "gaussian": GaussianCalibrator,
    "bayes": BayesianCalibrator,
    "logistic": LogisticCalibrator,
    "pav": PAVCalibrator,
    "kde": KDECalibrator,
    "suspect_map": SuspectMAPCalibrator,
    "unsupervised": UnsupervisedCalibrator,
    "scal": SCalCalibrator,
    "student_t": StudentTCalibrator,
}

__all__ = [
    "CALIBRATORS",
    "ELUB",
    "BayesianCalibrator",
    "Calibrator",
    "GaussianCalibrator",
    "KDECalibrator",
    "LogisticCalibrator",
    "PAVCalibrator",
    "SCalCalibrator",
    "StudentTCalibrator",
    "SuspectMAPCalibrator",
    "UnsupervisedCalibrator",
    "calibration_checks",
    "eer_linear_calibration",
    "elub_bounds",
    "fit_warnings",
    "make_calibrator",
    "options_of",
]


def options_of(name: str) -> dict[str, object]:
    """The options of calibrator ``name`` with their defaults."""
    signature = inspect.signature(CALIBRATORS[name].__init__)
    return {
        p.name: p.default
        for p in signature.parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def make_calibrator(name: str, **options) -> Calibrator:
    """A new, unfitted calibrator by name, e.g. ``make_calibrator("logistic", l2=0.1)``.

    Raises
    ------
    InputError
        Unknown method or option; the message lists the valid ones.
    """
    if name not in CALIBRATORS:
        raise InputError(
            f"unknown calibration method {name!r}; choose one of: {', '.join(CALIBRATORS)}"
        )
    valid = options_of(name)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        listed = ", ".join(f"{k} (default {v!r})" for k, v in valid.items()) or "none"
        raise InputError(
            f"unknown option(s) {', '.join(unknown)} for method {name!r}; valid options: {listed}"
        )
    return CALIBRATORS[name](**options)
