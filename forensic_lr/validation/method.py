"""Validate one method exactly as a case applies it: the one implementation.

:func:`validate_method` cross-validates a :class:`Method` (calibrator, options, extra score
inputs, bounds rule and whether it applies) on background scores with given folds and seed
(by source when the trials name sources), evaluates the out-of-fold LLRs, checks them
against the laboratory's criteria, computes their calibration checks, the rates of
misleading evidence, optionally the metrics' bootstrap intervals, and the bounds of the
method's rule (by default the empirical lower and upper bounds, ELUB) of those LLRs. The
case pipeline (``forensic-lr run``) and the validation study (``forensic-lr validate``,
``--case`` included) both call it, so the same case gives the same numbers on every face;
its record is :class:`~forensic_lr.records.ValidationResult`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from .._checks import renamed_keyword, sources_pair
from .._numbers import LN10
from ..calibration import (
    CALIBRATORS,
    calibration_checks,
    extra_inputs,
    make_calibrator,
    options_of,
)
from ..calibration.bounders import rule_bounds_log10
from ..defaults import DEFAULT_BOUNDS
from ..errors import ForensicLRError, ForensicLRWarning, InputError
from ..i18n.messages import english, raised_text
from ..metrics import evaluate_llrs
from ..metrics.catalogue import metric
from ..records import BoundsRule, SupportedRange, ValidationResult
from ..resampling import DEFAULT_LEVEL, DEFAULT_SEED, Progress, source_codes
from ..uncertainty import cross_validated_llr
from .bootstrap import bootstrap_metrics
from .criteria import CriteriaRule, check_criteria
from .rates import misleading_rates

__all__ = [
    "ELUB_SOURCES", "LLR_RULES", "ElubSource", "Method", "MethodValidation", "bounds_of",
    "in_sample_bounds", "llr_rule_bounds", "stated_bounds", "supported_range", "validate_llrs",
    "validate_method",
]

#: Where the ELUB bound of a case comes from: the cross-validated LLRs of the case's own
#: folds and seed (the default), or the in-sample LLRs of the model fitted on all
#: background scores (the rule of lir's ELUB bounder).
ELUB_SOURCES = ("cross-validated", "in-sample")
ElubSource = Literal["cross-validated", "in-sample"]
#: The bounds rules computed from LLRs (the others come from the number of sources or the
#: laboratory): the empirical lower and upper bounds and invariance verification.
LLR_RULES = ("elub", "iv")


@dataclass(frozen=True, eq=False)
class Method:
    """A calibration method as a case applies it.

    Attributes
    ----------
    calibrator : str
        Method name (:data:`forensic_lr.calibration.CALIBRATORS`).
    options : mapping
        Calibrator options, e.g. ``{"equal_variance": True}``.
    extra : mapping
        Extra score inputs the method declares (``suspect_ss``, ``unlabelled``), score-like.
    elub : bool
        Whether the reported LRs are limited to the bounds of ``bounds`` (the name is
        kept from when ELUB was the only rule).
    elub_from : {"cross-validated", "in-sample"}
        Which LLRs the bounds of a rule that depends on them (ELUB, IV) come from
        (:data:`ELUB_SOURCES`).
    bounds : {"elub", "iv", "n-source", "fixed"}
        The rule of the bounds (:data:`~forensic_lr.defaults.BOUNDS_RULES`).
    fixed_bounds : (float, float), optional
        The laboratory's ``(low, high)`` log10 LR bounds of ``bounds = "fixed"``.
    """

    calibrator: str
    options: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)
    elub: bool = False
    elub_from: ElubSource = "cross-validated"
    bounds: BoundsRule = DEFAULT_BOUNDS
    fixed_bounds: tuple[float, float] | None = None

    @classmethod
    def of(cls, calibrator, options: Mapping[str, Any] | None = None,
           extra: Mapping[str, np.ndarray] | None = None, *, elub: bool = True,
           elub_from: ElubSource = "cross-validated", bounds: BoundsRule = DEFAULT_BOUNDS,
           fixed_bounds: tuple[float, float] | None = None) -> Method:
        """The method of a name (with ``options`` and ``extra``) or of a calibrator object.

        An object made by :func:`~forensic_lr.calibration.make_calibrator` (or its class)
        carries its options and extra inputs: they are read back (the options that differ
        from their defaults), so that ``"gaussian"`` with ``{"equal_variance": True}`` and
        ``make_calibrator("gaussian", equal_variance=True)`` are the same method.

        Raises
        ------
        InputError
            An object that is not one of this package's calibrators (a case records
            its method by name and options), or options given beside an object.
        """
        rule = {"elub": elub, "elub_from": elub_from, "bounds": bounds,
                "fixed_bounds": None if fixed_bounds is None else tuple(fixed_bounds)}
        if isinstance(calibrator, str):
            return cls(calibrator, dict(options or {}), dict(extra or {}), **rule)
        name = getattr(calibrator, "name", None)
        if name not in CALIBRATORS or type(calibrator) is not CALIBRATORS[name]:
            raise InputError(
                f"the calibrator must be a method name ({', '.join(CALIBRATORS)}) or an "
                f"object made by make_calibrator; got {type(calibrator).__name__} (an own "
                "calibrator works with cross_validated_llr and bootstrap_interval)"
            )
        if options or extra:
            raise InputError("options and extra inputs go with a method name; a calibrator "
                             "object carries its own (make_calibrator(name, **options))")
        declared = extra_inputs()
        own, inputs = {}, {}
        for key, default in options_of(name).items():
            value = getattr(calibrator, key)
            if key in declared:
                if value is not None:
                    inputs[key] = value
            elif not (type(value) is type(default) and value == default):
                own[key] = value
        return cls(name, own, inputs, **rule)

    def unfitted(self):
        """A new, unfitted calibrator of this method (never bounded: the bound is applied
        to its output, see :func:`forensic_lr.casework.evaluate_evidence`)."""
        return make_calibrator(self.calibrator, **self.extra, **self.options)


@dataclass(frozen=True, eq=False)
class MethodValidation:
    """:func:`validate_method`'s record and what a pipeline needs beyond it.

    ``ss_llr``, ``ds_llr``: the unbounded out-of-fold LLRs, in input order.
    ``fold_warnings``: the project's warning texts raised by the fold fits (once each);
    ``warnings``: those of the metrics, checks, criteria and intervals.
    """

    record: ValidationResult
    ss_llr: np.ndarray
    ds_llr: np.ndarray
    fold_warnings: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def validate_method(
    ss,
    ds,
    method: Method,
    *,
    folds: int | None = 5,
    seed: int = DEFAULT_SEED,
    ss_sources=None,
    ds_sources=None,
    criteria=None,
    criteria_rule: CriteriaRule = "estimate_and_bound",
    level: float = DEFAULT_LEVEL,
    metric_intervals: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    groups: tuple[np.ndarray, np.ndarray] | None = None,
    intervals: Mapping[str, Any] | None = None,
) -> MethodValidation:
    """Cross-validate ``method`` on background scores and collect its validation record.

    Parameters
    ----------
    ss, ds : array_like
        Background same-source and different-source scores, score-like.
    method : Method
        The method as the case applies it (options and extra inputs included).
    folds : int or None
        Folds of the cross-validation; None with sources: leave one source out.
    seed : int
        Seed of the fold shuffles (default that of a case).
    ss_sources, ds_sources : array_like, optional
        Source ids per trial: folds by source (no source on both sides of a split).
    criteria : mapping or Criteria, optional
        Laboratory criteria, checked against the metrics and their one-sided bounds
        (:func:`~forensic_lr.validation.check_criteria`).
    criteria_rule : {"estimate_and_bound", "estimate"}
        How a criterion is met (:data:`~forensic_lr.validation.criteria.RULES`).
    level : float
        Level of the calibration checks' and the rates' intervals.
    metric_intervals : mapping, optional
        Keyword arguments of :func:`~forensic_lr.validation.bootstrap_metrics` (``n``,
        ``seed``, ``level``, ...): bootstrap intervals of the metrics (by source with
        sources), the record's ``metric_intervals``; None: none.
    progress : callable(done, total), optional
        Called after each fold.
    groups, intervals
        Deprecated spellings of ``(ss_sources, ds_sources)`` and ``metric_intervals``
        (:class:`DeprecationWarning`).

    Returns
    -------
    MethodValidation

    Notes
    -----
    The folds refit the method without any bound: the metrics, the calibration checks and
    the criteria describe the method's own out-of-fold LLRs. Limiting them with a bound
    taken from the same LLRs would be circular, so the metrics of the LLRs limited to
    their ELUB bounds are given beside them (``metrics_limited``, when ``method.elub``),
    labelled as such. ``elub_log10`` is the ELUB [1]_ of the out-of-fold LLRs (or the
    bounds of ``method.bounds``, :func:`bounds_of`, recorded as ``bounds_rule``): the bound
    a case applies by default (``method.elub_from = "cross-validated"``); it depends on the
    fold split, hence on ``folds`` and ``seed``.

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink, R. Stoel, Numerical
       likelihood ratios outputted by LR systems are often based on extrapolation:
       when to stop extrapolating?, Science & Justice 56 (2016) 482-491.
    """
    groups = sources_pair(ss_sources, ds_sources, groups, function="validate_method")
    metric_intervals = renamed_keyword(metric_intervals, intervals, old="intervals",
                                       new="metric_intervals", function="validate_method")
    ss_sources, ds_sources = (None, None) if groups is None else groups
    with warnings.catch_warnings(record=True) as in_folds:
        warnings.simplefilter("always", ForensicLRWarning)
        ss_llr, ds_llr = cross_validated_llr(ss, ds, method.unfitted(), folds, seed,
                                             ss_sources=ss_sources, ds_sources=ds_sources,
                                             progress=progress)
    fold_texts = _our_texts(in_folds)
    n_sources = None if groups is None else source_codes(*groups, ss_llr.size, ds_llr.size)[2]
    elub = bounds_of(method, ss_llr, ds_llr, n_sources)
    validation = validate_llrs(
        ss_llr, ds_llr, criteria=criteria, criteria_rule=criteria_rule, level=level,
        metric_intervals=metric_intervals, ss_sources=ss_sources, ds_sources=ds_sources,
        limit=elub if method.elub else None,
    )
    record = validation.record.model_copy(update={
        "folds": folds, "seed": int(seed), "elub_log10": elub, "n_sources": n_sources,
        "folds_by": "trial" if groups is None else "source",
        "bounds_rule": method.bounds,
    })
    return MethodValidation(record, ss_llr, ds_llr, fold_texts, validation.warnings)


def validate_llrs(
    ss_llr,
    ds_llr,
    *,
    criteria=None,
    criteria_rule: CriteriaRule = "estimate_and_bound",
    level: float = DEFAULT_LEVEL,
    metric_intervals: Mapping[str, Any] | None = None,
    ss_sources=None,
    ds_sources=None,
    limit: tuple[float, float] | None = None,
    groups: tuple[np.ndarray, np.ndarray] | None = None,
    intervals: Mapping[str, Any] | None = None,
) -> MethodValidation:
    """The validation record of given LLRs (metrics, checks, criteria, rates, intervals).

    :func:`validate_method` without the cross-validation (keywords as there): for LLRs a
    system reported itself (validated as given) and for the out-of-fold LLRs of a method.
    ``limit`` (log10 bounds): also give the metrics of the LLRs limited to them
    (``metrics_limited``). The record's ``folds`` is None.
    """
    groups = sources_pair(ss_sources, ds_sources, groups, function="validate_llrs")
    metric_intervals = renamed_keyword(metric_intervals, intervals, old="intervals",
                                       new="metric_intervals", function="validate_llrs")
    ss_llr, ds_llr = np.asarray(ss_llr, dtype=np.float64), np.asarray(ds_llr, dtype=np.float64)
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ForensicLRWarning)
        metrics = asdict(evaluate_llrs(ss_llr, ds_llr, check=False))
        limited = None
        if limit is not None:
            b = (limit[0] * LN10, limit[1] * LN10)
            limited = asdict(evaluate_llrs(np.clip(ss_llr, *b), np.clip(ds_llr, *b),
                                  check=False))
        try:
            checks = calibration_checks(ss_llr, ds_llr, level=level).to_dict()
        except ForensicLRError as exc:
            checks = None
            texts.append(english("warning.checks_failed", error=str(exc)))
    texts += _our_texts(caught)
    computed = None
    if metric_intervals is not None:
        ss_src, ds_src = (None, None) if groups is None else groups
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ForensicLRWarning)
            try:
                computed = bootstrap_metrics(
                    ss_llr, ds_llr, ss_sources=ss_src, ds_sources=ds_src, **metric_intervals
                ).to_dict()
            except ForensicLRError as exc:
                texts.append(english("warning.intervals_failed", error=str(exc)))
        texts += _our_texts(caught)
    rates = tuple(misleading_rates(ss_llr, ds_llr, level, computed))
    results = () if criteria is None else check_criteria(
        criteria, metrics, metric_intervals=computed, rates=rates, rule=criteria_rule)
    for c in results:
        if not c.met:
            m = metric(c.metric)  # values and threshold in the metric's unit
            params = {"name": c.name, "short_term": m.short, "value": m.text(c.value),
                      "comparison": c.comparison, "threshold": m.limit(c.threshold)}
            if c.bound is None or c.rule == "estimate":
                texts.append(english("warning.criterion_not_met", **params))
            else:
                texts.append(english("warning.criterion_not_met.bound",
                                     bound=m.text(c.bound), **params))
    record = ValidationResult(
        folds=None,
        metrics=metrics,
        metrics_limited=limited,
        criteria=results,
        all_criteria_met=all(c.met for c in results) if results else None,
        calibration_checks=checks,
        metric_intervals=computed,
        rates=rates,
    )
    return MethodValidation(record, ss_llr, ds_llr, (), tuple(dict.fromkeys(texts)))


def stated_bounds(method: Method, cross_validated: tuple[float, float] | None,
                  fitted: Callable[[], Any], ss, ds) -> tuple[float, float] | None:
    """The one bound (log10) a case states for its reported LR: ``cross_validated`` (the
    bounds of ``method.bounds`` of the out-of-fold LLRs, :func:`validate_method`'s
    ``elub_log10``), or, with ``method.elub_from = "in-sample"`` and a rule computed from
    LLRs, :func:`in_sample_bounds` of the calibrator ``fitted()`` returns (fitted on all of
    ``ss``, ``ds``; called only then). The N-source and fixed bounds do not depend on the
    LLRs. The case pipeline and a validation study of a case both use it."""
    if method.elub_from == "cross-validated" or method.bounds not in LLR_RULES:
        return cross_validated
    return in_sample_bounds(fitted(), ss, ds, method)


def in_sample_bounds(fitted, ss, ds, method: Method,
                     n_sources: int | None = None) -> tuple[float, float] | None:
    """The bounds of ``method.bounds`` (:func:`bounds_of`, log10) of a fitted calibrator's
    LLRs of its own training scores.

    The rule of lir's ELUB bounder and of :class:`~forensic_lr.calibration.ELUB`
    (``[method] elub_from = "in-sample"``); None when the bounds cannot be computed.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        ss_llr, ds_llr = fitted.llr(ss), fitted.llr(ds)
    return bounds_of(method, ss_llr, ds_llr, n_sources)


def bounds_of(method: Method, ss_llr, ds_llr,
              n_sources: int | None = None) -> tuple[float, float] | None:
    """The bounds (log10) of ``method.bounds`` for these LLRs
    (:func:`~forensic_lr.calibration.bounders.rule_bounds_log10`; ``n_sources``: the
    number of distinct sources of the trials, for ``"n-source"``), or None when a rule
    that depends on the LLRs (ELUB, IV) cannot compute them (e.g. infinite LLRs of both
    signs).

    Raises
    ------
    InputError
        ``"n-source"`` without sources, ``"fixed"`` without valid fixed bounds.
    """
    if method.bounds in LLR_RULES:
        return llr_rule_bounds(method.bounds, ss_llr, ds_llr)
    low, high = rule_bounds_log10(method.bounds, ss_llr, ds_llr, n_sources=n_sources,
                                  fixed=method.fixed_bounds)
    return float(low), float(high)


def llr_rule_bounds(rule: str, ss_llr, ds_llr) -> tuple[float, float] | None:
    """The bounds (log10) of a rule computed from LLRs (:data:`LLR_RULES`: ELUB or IV,
    :func:`~forensic_lr.calibration.bounders.rule_bounds_log10`), or None when they cannot
    be computed from these LLRs (e.g. NaN LLRs, or none of one class)."""
    try:
        low, high = rule_bounds_log10(rule, ss_llr, ds_llr)
    except ForensicLRError:
        return None
    return float(low), float(high)


def supported_range(ss_llr, ds_llr,
                    llrs: Literal["cross-validated", "as given"]) -> SupportedRange:
    """The range of LRs validated LLRs support by both rules computed from LLRs: the
    empirical lower and upper bounds (ELUB, Vergeer et al. 2016) and the
    invariance-verification bounds (Alberink et al. 2025), each by :func:`llr_rule_bounds`
    (None where a rule cannot be computed). ``llrs`` says which LLRs they are (the
    out-of-fold LLRs of a method, or a system's own LLRs validated as given). What a
    validation study reports beside its metrics, whatever rule a case would apply."""
    return SupportedRange(llrs=llrs, elub_log10=llr_rule_bounds("elub", ss_llr, ds_llr),
                          iv_log10=llr_rule_bounds("iv", ss_llr, ds_llr))


def _our_texts(caught) -> tuple[str, ...]:
    """Our warning texts, once each; others are raised again (not ours to swallow)."""
    for w in caught:
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=3)
    return tuple(dict.fromkeys(
        raised_text(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)
    ))
