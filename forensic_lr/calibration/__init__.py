"""Score-to-LLR calibrators with one interface: ``fit(ss, ds)``, ``llr(scores)``, ``params()``.

Methods are picked by name from the registry :data:`CALIBRATORS` (a closed table in this
file, never a dotted path from a configuration file). What each method needs and says -
its extra score inputs, limitations, report rows and description - is declared on its
class (:class:`~forensic_lr.calibration.base.BaseCalibrator`), so adding a calibrator
touches its own module and the table below only. Modules are imported on first use, so
that listing the method names (e.g. for ``--help``) stays fast.
"""

from __future__ import annotations

import copy
import importlib
import inspect
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..defaults import DEFAULT_CALIBRATOR
from ..errors import InputError

if TYPE_CHECKING:
    from .base import BaseCalibrator, Calibrator, ExtraInput

#: The registry: method name (case files, command line) -> (module, class).
_REGISTRY: dict[str, tuple[str, str]] = {
    "gaussian": ("gaussian", "GaussianCalibrator"),
    "bayes": ("bayesian", "BayesianCalibrator"),
    "logistic": ("logistic", "LogisticCalibrator"),
    "pav": ("pav", "PAVCalibrator"),
    "kde": ("kde", "KDECalibrator"),
    "suspect_map": ("suspect_map", "SuspectMAPCalibrator"),
    "unsupervised": ("unsupervised", "UnsupervisedCalibrator"),
    "scal": ("scal", "SCalCalibrator"),
    "student_t": ("student_t", "StudentTCalibrator"),
    "four_pl": ("four_pl", "FourPLCalibrator"),
}
#: Each method's model and the paper it comes from, as ``--help`` names them (the class's
#: ``reference`` gives the full citation; a test checks the two agree).
METHOD_PAPERS: dict[str, str] = {
    "gaussian": "two normal densities (Ramos and Gonzalez-Rodriguez 2013)",
    "bayes": "normal model with unknown mean and variance (Brummer and Swart 2014)",
    "logistic": "logistic regression (Brummer and du Preez 2006)",
    "pav": "pool-adjacent-violators, isotonic (Brummer and du Preez 2006)",
    "kde": "kernel density estimates (Silverman 1986)",
    "suspect_map": "suspect-adapted MAP normal densities (Ramos-Castro et al. 2006)",
    "unsupervised": "two-component mixture of case scores (Brummer and Garcia-Romero 2014)",
    "scal": "saturating logistic, S-cal (Brummer 2010)",
    "student_t": "Student-t densities (Brummer, Swart and van Leeuwen 2014)",
    "four_pl": "logistic regression with a fitted floor and ceiling, as lir's four-parameter "
               "logistic (Brummer and du Preez 2006)",
}
#: Other public names of this package -> their module.
_EXPORTS = {
    "BaseCalibrator": "base",
    "Calibrator": "base",
    "ExtraInput": "base",
    "fit_warnings": "base",
    "ELUB": "elub",
    "elub_bounds": "elub",
    "IV": "invariance",
    "FixedBounds": "bounders",
    "SourceCountBounds": "bounders",
    "fixed_bounds_log10": "bounders",
    "source_count_bounds_log10": "bounders",
    "rule_bounds_log10": "bounders",
    "calibrator_to_json": "persist",
    "calibrator_from_json": "persist",
    "iv_bounds_log10": "invariance",
    "LogisticFusion": "fusion",
    "calibration_checks": "checks",
    "eer_linear_calibration": "checks",
    **{cls: module for module, cls in _REGISTRY.values()},
}


def _load(module: str, attribute: str) -> Any:
    return getattr(importlib.import_module(f".{module}", __name__), attribute)


class _Registry(Mapping):
    """Method name -> calibrator class, importing each module when first asked for."""

    def __getitem__(self, name: str) -> type[BaseCalibrator]:
        return _load(*_REGISTRY[name])

    def __iter__(self) -> Iterator[str]:
        return iter(_REGISTRY)

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __contains__(self, name: object) -> bool:
        return name in _REGISTRY

    def __repr__(self) -> str:
        return f"CALIBRATORS({', '.join(_REGISTRY)})"


CALIBRATORS: Mapping[str, type[BaseCalibrator]] = _Registry()

__all__ = [
    "CALIBRATORS",
    "DEFAULT_CALIBRATOR",
    "METHOD_PAPERS",
    "as_calibrator",
    "background_only_methods",
    "default_study_methods",
    "extra_inputs",
    "make_calibrator",
    "method_names",
    "methods_help",
    "options_of",
    *sorted(_EXPORTS),
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return _load(_EXPORTS[name], name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


def method_names() -> tuple[str, ...]:
    """Every calibration method's name, without importing any of them."""
    return tuple(_REGISTRY)


def methods_help() -> str:
    """Every method's name, model and paper in one sentence, for ``--help``."""
    return "; ".join(f"{name}: {paper}" for name, paper in METHOD_PAPERS.items())


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
        Unknown method or option (the message lists the valid ones), or an option value
        the method cannot use.
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
    calibrator = CALIBRATORS[name](**options)
    calibrator.check_options()
    return calibrator


def as_calibrator(calibrator: str | Calibrator, **options) -> Calibrator:
    """A new calibrator from a method name (with its options) or a copy of a calibrator object.

    Every function of the library that takes a calibrator takes it either way:
    ``cross_validated_llr(ss, ds, "logistic")`` is
    ``cross_validated_llr(ss, ds, make_calibrator("logistic"))``. The object is copied
    (``copy.deepcopy``), never modified.

    Raises
    ------
    InputError
        An unknown name or option (:func:`make_calibrator`), options given with an object
        (it carries its own), or an object without ``fit`` and ``llr``.
    """
    if isinstance(calibrator, str):
        return make_calibrator(calibrator, **options)
    if not (callable(getattr(calibrator, "fit", None))
            and callable(getattr(calibrator, "llr", None))):
        raise InputError(
            f"calibrator must be a method name ({', '.join(_REGISTRY)}) or an object with "
            f"fit(ss, ds) and llr(scores); got {type(calibrator).__name__}"
        )
    if options:
        raise InputError(
            f"options {', '.join(sorted(options))} go with a method name; a calibrator object "
            "carries its own: set them when making it, e.g. make_calibrator(name, **options)"
        )
    return copy.deepcopy(calibrator)


def default_study_methods() -> tuple[str, ...]:
    """The methods a validation study compares when none are named."""
    return tuple(name for name, cls in CALIBRATORS.items() if cls.in_default_study)


def background_only_methods() -> tuple[str, ...]:
    """The methods that need nothing but the SS and DS background (cross-validatable alone)."""
    return tuple(name for name, cls in CALIBRATORS.items() if not cls.extra_inputs)


def extra_inputs() -> dict[str, tuple[ExtraInput, str]]:
    """Every extra score input, by key: ``(its declaration, the method that uses it)``."""
    return {e.key: (e, name) for name, cls in CALIBRATORS.items() for e in cls.extra_inputs}
