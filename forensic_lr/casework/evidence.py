"""Evaluate evidence: fit a calibrator, the LR of each score, ELUB, interval, warnings.

:func:`evaluate_evidence` is the one implementation behind ``forensic-lr calibrate``,
the evidence part of ``forensic-lr run`` (:func:`forensic_lr.casework.run_case`) and the
Python API: the same background, scores, method, ELUB setting, interval kind, level and
seed give the same record on every face.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..calibration import ELUB, extra_inputs, fit_warnings, make_calibrator
from ..calibration.elub import elub_bounds_log10
from ..errors import ForensicLRError, ForensicLRWarning, InputError
from ..io.scores import orient
from ..parallel import one_blas_thread
from ..records import EvidenceEvaluation, EvidenceLR, Interval, MethodResult, jsonable
from ..resampling import Progress
from ..uncertainty import LRInterval, bayes_interval, bootstrap_interval
from .verbal import format_log10, signed_log10

__all__ = [
    "DEFAULT_DRAWS", "EvaluatedEvidence", "evaluate_evidence", "evaluate_evidence_full",
    "method_calibrators",
]

_LN10 = math.log(10.0)
#: Default number of draws per interval kind (bootstrap replicates, posterior samples).
DEFAULT_DRAWS = {"bootstrap": 1000, "bayes": 4000, "none": 0}

IntervalKind = Literal["bootstrap", "bayes", "none"]


@dataclass(frozen=True, eq=False)
class EvaluatedEvidence:
    """The record and what a case pipeline needs beyond it.

    ``template`` is the unfitted calibrator (ELUB-wrapped when bounding is on) that
    cross-validation refits; ``fitted`` the one fitted on all background scores;
    ``inner`` the fitted calibrator without the ELUB wrapper.
    """

    record: EvidenceEvaluation
    template: Any
    fitted: Any
    inner: Any


def evaluate_evidence(
    ss,
    ds,
    scores: Sequence[float] | np.ndarray,
    *,
    calibrator: str = "bayes",
    options: Mapping[str, Any] | None = None,
    extra: Mapping[str, np.ndarray] | None = None,
    direction: str = "higher_is_similar",
    elub: bool = False,
    interval: IntervalKind = "bootstrap",
    n: int | None = None,
    level: float = 0.95,
    seed: int = 20261122,
    labels: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> EvidenceEvaluation:
    """Fit ``calibrator`` on the background and evaluate each evidence score.

    Parameters
    ----------
    ss, ds : array_like
        Background same-source and different-source scores, already score-like (as
        :func:`forensic_lr.io.load_scores` returns them with the same ``direction``).
    scores : sequence of float
        Evidence scores as measured (``direction`` is applied here).
    calibrator : str
        Method name (:data:`forensic_lr.calibration.CALIBRATORS`).
    options : mapping, optional
        Calibrator options, e.g. ``{"equal_variance": True}``.
    extra : mapping, optional
        Extra score inputs the method declares (``suspect_ss``, ``unlabelled``), already
        score-like.
    direction : {"higher_is_similar", "lower_is_similar"}
        Direction of the evidence scores.
    elub : bool
        Bound the reported LRs (and their interval) by the ELUB of the fitted model [1]_.
    interval : {"bootstrap", "bayes", "none"}
        Bootstrap of the unbounded method (refits on resampled background), the posterior
        credible interval (methods with ``posterior``: ``bayes``), or none.
    n : int, optional
        Replicates or posterior draws (default :data:`DEFAULT_DRAWS`).
    level : float
        Interval level.
    seed : int
        Seed of the interval's random draws.
    labels : sequence of str, optional
        A name per evidence score, used in warnings (default: the score itself).
    progress : callable(done, total), optional
        Called during the bootstrap.

    Returns
    -------
    EvidenceEvaluation

    Raises
    ------
    InputError
        Unknown method or option, a missing required extra input, an extra input the
        method does not use, a Bayesian interval for a method without a posterior.

    Notes
    -----
    The ELUB bounds the background supports are always computed and stated
    (``method.elub_log10_lr_low/high``); with ``elub=False`` every LR beyond them gets a
    warning saying what it would be with bounding. An interval that reaches the bounds
    is cut there and flagged ``clipped``.

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink, R. Stoel, Numerical
       likelihood ratios outputted by LR systems are often based on extrapolation:
       when to stop extrapolating?, Science & Justice 56 (2016) 482-491.
    """
    return evaluate_evidence_full(
        ss, ds, scores, calibrator=calibrator, options=options, extra=extra,
        direction=direction, elub=elub, interval=interval, n=n, level=level, seed=seed,
        labels=labels, progress=progress,
    ).record


@one_blas_thread()
def evaluate_evidence_full(
    ss,
    ds,
    scores,
    *,
    calibrator: str = "bayes",
    options: Mapping[str, Any] | None = None,
    extra: Mapping[str, np.ndarray] | None = None,
    direction: str = "higher_is_similar",
    elub: bool = False,
    interval: IntervalKind = "bootstrap",
    n: int | None = None,
    level: float = 0.95,
    seed: int = 20261122,
    labels: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> EvaluatedEvidence:
    """:func:`evaluate_evidence` with the fitted calibrators (for the case pipeline).

    Computed with one BLAS thread (:func:`~forensic_lr.parallel.one_blas_thread`): the same
    bits on every machine, from ``calibrate`` as from ``run``, whose stages run so.
    """
    options, extra = dict(options or {}), dict(extra or {})
    _check_extra(calibrator, options, extra)
    if interval not in DEFAULT_DRAWS:
        raise InputError(f"interval must be bootstrap, bayes or none; got {interval!r}")
    n = DEFAULT_DRAWS[interval] if n is None else int(n)
    base, template = method_calibrators(calibrator, options, extra, elub=elub)
    if interval == "bayes" and not type(base).posterior:
        raise InputError(
            "a Bayesian (posterior) interval needs a method with a posterior: calibrator = "
            f"\"bayes\" (--method bayes); got {calibrator!r}; use the bootstrap interval or "
            "none instead"
        )
    raw = np.asarray(scores, dtype=np.float64).ravel()
    x = orient(raw, direction)
    ss, ds = np.asarray(ss, dtype=np.float64), np.asarray(ds, dtype=np.float64)
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ForensicLRWarning)
        for text in _input_warnings(ss, ds):
            warnings.warn(text, ForensicLRWarning, stacklevel=2)
        texts += fit_warnings(ss, ds, x, direction=direction)
        fitted = copy.deepcopy(template).fit(ss, ds)
        inner = fitted.calibrator if elub else fitted
        texts += getattr(inner, "warnings_", ())  # fit diagnostics (S-cal, unsupervised)
        with np.errstate(over="ignore", invalid="ignore"):  # a NaN is refused just below
            llr = np.asarray(fitted.llr(x), dtype=np.float64)
            llr_unbounded = np.asarray(inner.llr(x), dtype=np.float64)
        _refuse_nan(llr_unbounded, raw, calibrator, orient(np.concatenate([ss, ds]), direction))
        iv = None
        if interval == "bootstrap":
            iv = bootstrap_interval(base, ss, ds, x, n=n, level=level, seed=seed,
                                    progress=progress)
        elif interval == "bayes":
            iv = bayes_interval(inner, x, n=n, level=level, seed=seed)
    texts += [str(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)]
    for w in caught:  # anything else is not ours to swallow
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=2)

    if elub:
        supported = tuple(float(b) for b in fitted.bounds_log10_)
    else:  # stated in the report even when not applied (REPORTING.md, "Stating the LR")
        supported = _supported_bounds(inner, ss, ds)
    both = np.concatenate([ss, ds])
    results = _results(raw, x, llr, llr_unbounded, iv, supported if elub else None,
                       float(both.min()), float(both.max()))
    if not elub:
        names = list(labels) if labels else [f"score {e.score:g}" for e in results]
        texts += _beyond_bounds(results, supported, names)
    method = MethodResult(
        calibrator=calibrator,
        options=options,
        params=jsonable(fitted.params()),
        elub_applied=bool(elub),
        elub_log10_lr_low=None if supported is None else supported[0],
        elub_log10_lr_high=None if supported is None else supported[1],
        description=type(base).describe(),
        param_rows=inner.param_rows(),
    )
    record = EvidenceEvaluation(
        method=method,
        results=results,
        interval_method=interval,
        interval_level=float(level),
        interval_n=n,
        seed=int(seed),
        warnings=tuple(dict.fromkeys(texts)),
        limitations=inner.limitations(),
    )
    return EvaluatedEvidence(record=record, template=template, fitted=fitted, inner=inner)


def method_calibrators(
    calibrator: str, options: Mapping[str, Any], extra: Mapping[str, np.ndarray], *,
    elub: bool,
) -> tuple[Any, Any]:
    """``(base, template)``: the method's unfitted calibrator and the one a case refits.

    ``template`` is ``base`` wrapped in :class:`~forensic_lr.calibration.ELUB` (on its own
    copy) when bounding is on, else ``base`` itself; the bootstrap interval refits
    ``base``, cross-validation and the sensitivity analysis refit ``template``.
    """
    base = make_calibrator(calibrator, **extra, **options)
    return base, (ELUB(copy.deepcopy(base)) if elub else base)


def _check_extra(calibrator: str, options: dict, extra: dict) -> None:
    """Extra inputs go to the method that declares them, and required ones are given."""
    declared = extra_inputs()
    for key in sorted(set(options) & set(declared)):
        spec, _ = declared[key]
        raise InputError(
            f"option {key}=...: give the score file with {spec.flag} FILE (command line) or "
            f'[background] {key} = "file.csv" (case file) instead of as an option'
        )
    for key in extra:
        if key not in declared:
            raise InputError(f"unknown extra score input {key!r}; known: {sorted(declared)}")
        spec, method = declared[key]
        if method != calibrator:
            raise InputError(
                f"{spec.flag} is only used by --method {method}, got --method {calibrator}; "
                f"remove {spec.flag} ([background] {key}) or use --method {method}"
            )
    for key, (spec, method) in declared.items():
        if method == calibrator and spec.required and key not in extra:
            raise InputError(
                f"method {method} needs {spec.help}: add {spec.flag} FILE (command line) or "
                f'[background] {key} = "file.csv" (case file)'
            )


def _refuse_nan(llr: np.ndarray, raw: np.ndarray, calibrator: str, both: np.ndarray) -> None:
    """An LLR that is not a number (e.g. inf - inf for a score of 1e300) is an error.

    ``raw`` and ``both`` (the pooled background) are as measured, as the message gives them.
    """
    bad = np.flatnonzero(np.isnan(llr))
    if bad.size:
        score = float(raw[bad[0]])
        raise InputError(
            f"evidence score {score:g}: method {calibrator} gives no LR (the computation "
            "leaves the floating-point range) for a score this far from the background "
            f"scores [{float(both.min()):.5g}, {float(both.max()):.5g}]; check the score, "
            "or use a method that stays finite there, such as pav"
        )


def _input_warnings(ss: np.ndarray, ds: np.ndarray) -> list[str]:
    """Inputs that run without error but are probably not what the user meant.

    Same-source and different-source backgrounds holding the same values (one file given
    for both): their LR is 1 whatever the evidence. (A method's missing extra input is an
    error, :func:`_check_extra`.)
    """
    texts = []
    if ss.size == ds.size and np.array_equal(np.sort(ss), np.sort(ds)):
        texts.append(
            f"the same-source and different-source background scores are the same {ss.size} "
            "values (the same file given for both?): they cannot tell the propositions apart "
            "and every LR means nothing; give the same-source and the different-source files"
        )
    return texts


def _results(raw, x, llr, llr_unbounded, iv: LRInterval | None, bounds_log10, lo, hi):
    """One :class:`EvidenceLR` per score; the interval cut at the ELUB bounds if applied."""
    low = high = clipped = None
    if iv is not None:
        low, high = iv.llr_low, iv.llr_high
        clipped = np.zeros(x.size, dtype=bool)
        if bounds_log10 is not None:  # the reported LR is bounded, so is its interval
            b = (bounds_log10[0] * _LN10, bounds_log10[1] * _LN10)
            clipped = (low < b[0]) | (high > b[1])
            low, high = np.clip(low, *b), np.clip(high, *b)
    note = ""
    if iv is not None and iv.n_degenerate:
        note = f"{iv.n_degenerate} of {iv.n} replicates were degenerate and were left out"
    with np.errstate(over="ignore"):
        lr = np.exp(llr)  # display value only; everything else uses llr
    out = []
    for i in range(x.size):
        interval = None
        if iv is not None:
            lo_i, hi_i = float(low[i] / _LN10), float(high[i] / _LN10)
            collapsed = printed_log10(lo_i) == printed_log10(hi_i)
            interval = Interval(
                method=iv.method,
                level=float(iv.level),
                log10_lr_low=lo_i,
                log10_lr_high=hi_i,
                note="; ".join(filter(None, [
                    note, "clipped to the ELUB bounds" if clipped[i] else "",
                    "not estimable: both ends at log10 LR "
                    f"{lo_i:+.2f}" if collapsed else "",
                ])),
                clipped=bool(clipped[i]),
                collapsed=collapsed,
            )
        out.append(
            EvidenceLR(
                score=float(raw[i]),
                score_used=float(x[i]),
                llr=float(llr[i]),
                log10_lr=float(llr[i] / _LN10),
                lr=float(lr[i]),
                llr_unbounded=float(llr_unbounded[i]),
                bounded=bool(llr[i] != llr_unbounded[i]),
                extrapolated=bool(x[i] < lo or x[i] > hi),
                interval=interval,
            )
        )
    return tuple(out)


def printed_log10(log10_lr: float) -> str:
    """log10 LR as reports print it: two decimals, signed, no "-0.00" (:func:`signed_log10`)."""
    return signed_log10(log10_lr)


def _supported_bounds(calibrator, ss, ds) -> tuple[float, float] | None:
    """The ELUB bounds (log10) the background supports for an unbounded calibrator.

    The same computation as :class:`~forensic_lr.calibration.ELUB` (bounds of the
    calibrator's LLRs of its own training scores), for the report to state when ELUB is
    off; None when they cannot be computed (e.g. infinite LLRs of both signs).
    """
    try:
        low, high = elub_bounds_log10(calibrator.llr(ss), calibrator.llr(ds))
    except ForensicLRError:
        return None
    return float(low), float(high)


def _beyond_bounds(results: Sequence[EvidenceLR], supported, names: Sequence[str]) -> list[str]:
    """Warnings for evidence LRs outside the ELUB bounds when bounding is off."""
    if supported is None:
        return []
    low, high = supported
    texts = []
    for name, e in zip(names, results, strict=True):
        bound = high if e.log10_lr > high else low if e.log10_lr < low else None
        if bound is not None:
            value = format_log10(e.log10_lr, 2, sign=True)
            texts.append(
                f"{name}: log10 LR {value} lies beyond the empirical bounds the "
                f"validation data support (ELUB, {low:+.2f} to {high:+.2f}); ELUB bounding "
                f"is off: with it the LR would be reported at log10 LR {bound:+.2f}"
            )
    return texts
