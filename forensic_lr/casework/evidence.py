"""Evaluate evidence: fit a calibrator, the LR of each score, ELUB, interval, warnings.

:func:`evaluate_evidence` is the one implementation behind ``forensic-lr calibrate``,
the evidence part of ``forensic-lr run`` (:func:`forensic_lr.casework.run_case`) and the
Python API: the same background, scores, method, ELUB setting, interval kind, level,
folds and seed give the same record on every face. It is two steps, which the case
pipeline takes apart so that the bound can come from its own validation:
:func:`evaluate_unbounded` (the model's LRs and their interval) and
:func:`limit_to_elub` (the one ELUB applied to the LRs and their intervals).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._checks import sources_pair
from .._numbers import LN10, signed_log10
from ..calibration import DEFAULT_CALIBRATOR, ELUB, extra_inputs, fit_warnings
from ..calibration.bounders import rule_bounds_log10
from ..defaults import BOUNDS_RULES, DEFAULT_BOUNDS
from ..errors import ForensicLRError, ForensicLRWarning, InputError
from ..i18n.messages import english, raised_text, statement
from ..io.scores import orient
from ..parallel import one_blas_thread
from ..records import (
    BOUNDS_TERMS,
    BoundsRule,
    EvidenceEvaluation,
    EvidenceLR,
    Interval,
    Message,
    MethodResult,
    jsonable,
)
from ..resampling import DEFAULT_LEVEL, DEFAULT_SEED, Progress, source_codes
from ..uncertainty import (
    DEFAULT_DRAWS,
    DEFAULT_INTERVAL,
    LRInterval,
    bayes_interval,
    bootstrap_interval,
    cross_validated_llr,
    replicate_interval,
)
from ..validation.method import ElubSource, Method, bounds_of, in_sample_bounds
from .verbal import format_lr

__all__ = [
    "DEFAULT_DRAWS", "EvaluatedEvidence", "evaluate_evidence", "evaluate_evidence_full",
    "evaluate_unbounded", "limit_to_elub", "rule_message",
]

#: The message of a rule other than ELUB for each message that names ELUB: the same
#: sentence naming the rule by its ``rule_term`` (ELUB keeps its own sentences).
_OTHER_RULE = {
    "evidence.limited.largest": "evidence.limited.largest.rule",
    "evidence.limited.smallest": "evidence.limited.smallest.rule",
    "evidence.interval.beyond_bound": "evidence.interval.beyond_bound.rule",
    "evidence.interval.reaches_1": "evidence.interval.reaches_1.rule",
    "evidence.interval.reaches_2": "evidence.interval.reaches_2.rule",
    "sensitivity.elub.beyond": "sensitivity.bounds.beyond",
    "sensitivity.elub.within": "sensitivity.bounds.within",
    "policy.outside_background.elub_not_limiting":
        "policy.outside_background.bounds_not_limiting",
    "policy.outside_background.elub_off": "policy.outside_background.bounds_off",
    "policy.elub_note.largest": "policy.bounds_note.largest",
    "policy.elub_note.smallest": "policy.bounds_note.smallest",
    "warning.elub_failed": "warning.bounds_failed",
    "warning.beyond_elub": "warning.beyond_bounds",
    "warning.beyond_elub.score": "warning.beyond_bounds.score",
}


def rule_message(code: str, rule: str, params: dict[str, str]) -> tuple[str, dict[str, str]]:
    """``(code, params)`` of a message that names the bounds rule: ELUB's own sentence, or
    for another rule its sentence with ``rule_term`` (:data:`BOUNDS_TERMS`) added."""
    if rule == "elub" or not code:
        return code, params
    return _OTHER_RULE[code], {**params, "rule_term": BOUNDS_TERMS[rule]}


IntervalKind = Literal["bootstrap", "bayes", "none"]


@dataclass(frozen=True, eq=False)
class EvaluatedEvidence:
    """The record and what a case pipeline needs beyond it.

    ``method`` is the method as applied (:class:`~forensic_lr.validation.method.Method`);
    ``inner`` the calibrator fitted on all background scores, unbounded; ``fitted`` the
    same limited to the ELUB bounds when they are applied (else ``inner``).
    """

    record: EvidenceEvaluation
    method: Method
    fitted: Any
    inner: Any


def evaluate_evidence(
    ss,
    ds,
    scores: Sequence[float] | np.ndarray,
    calibrator=DEFAULT_CALIBRATOR,
    *,
    options: Mapping[str, Any] | None = None,
    extra: Mapping[str, np.ndarray] | None = None,
    direction: str = "higher_is_similar",
    elub: bool = True,
    elub_from: ElubSource = "cross-validated",
    bounds: BoundsRule = DEFAULT_BOUNDS,
    fixed_bounds: tuple[float, float] | None = None,
    folds: int | None = 5,
    ss_sources=None,
    ds_sources=None,
    interval: IntervalKind = DEFAULT_INTERVAL,
    n: int | None = None,
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
    labels: Sequence[str] | None = None,
    progress: Progress | None = None,
    groups: tuple[np.ndarray, np.ndarray] | None = None,
) -> EvidenceEvaluation:
    """Fit ``calibrator`` on the background and evaluate each evidence score.

    The defaults are those of a case file without ``[method]``, ``[uncertainty]`` and
    ``[validation]`` sections and of ``forensic-lr calibrate`` without options: the same
    data give the same record on all three.

    Parameters
    ----------
    ss, ds : array_like
        Background same-source and different-source scores, already score-like (as
        :func:`forensic_lr.io.load_scores` returns them with the same ``direction``).
    scores : sequence of float
        Evidence scores as measured (``direction`` is applied here).
    calibrator : str or Calibrator
        Method name (:data:`forensic_lr.calibration.CALIBRATORS`; default
        :data:`~forensic_lr.calibration.DEFAULT_CALIBRATOR`) or a calibrator made by
        :func:`~forensic_lr.calibration.make_calibrator` (its options and extra inputs are
        read from it: :meth:`~forensic_lr.validation.method.Method.of`).
    options : mapping, optional
        Calibrator options with a method name, e.g. ``{"equal_variance": True}``.
    extra : mapping, optional
        Extra score inputs the method declares (``suspect_ss``, ``unlabelled``), already
        score-like.
    direction : {"higher_is_similar", "lower_is_similar"}
        Direction of the evidence scores (a case file's ``[evidence] score_direction``).
    elub : bool
        Limit the reported LRs (and their interval) to the ELUB bounds [1]_ (default on,
        as in a case).
    elub_from : {"cross-validated", "in-sample"}
        The LLRs the ELUB bounds come from: the out-of-fold LLRs of the method's
        cross-validation with ``folds``, ``seed`` and the sources (default), or those of
        the model fitted on all background scores at its own training scores (lir's rule).
        Used by the rules that depend on LLRs (ELUB, IV).
    bounds : {"elub", "iv", "n-source", "fixed"}
        The rule of the bounds (a case's ``[method] bounds``, ``--bounds``): ELUB [1]_
        (default), invariance verification [2]_, ``[1/N, N]`` for the ``N`` distinct
        sources of ``ss_sources`` and ``ds_sources`` (the lir package's N-source bounder),
        or ``fixed_bounds``. ``elub`` switches any of them on or off.
    fixed_bounds : (float, float), optional
        ``(low, high)`` log10 LR with ``low <= 0 <= high``, for ``bounds = "fixed"``.
    folds : int or None
        Folds of that cross-validation (None with sources: leave one source out).
    ss_sources, ds_sources : array_like, optional
        Source ids per background trial: the folds are then by source.
    interval : {"bootstrap", "bayes", "none"}
        Bootstrap of the unbounded method (refits on resampled background), the posterior
        credible interval (methods with ``posterior``: ``bayes``), or none.
    n : int, optional
        Replicates or posterior draws (default
        :data:`~forensic_lr.uncertainty.DEFAULT_DRAWS`).
    level : float
        Interval level.
    seed : int
        Seed of the interval's random draws and of the fold shuffles (default
        :data:`~forensic_lr.resampling.DEFAULT_SEED`, that of a case).
    labels : sequence of str, optional
        A name per evidence score, used in warnings (default: the score itself).
    progress : callable(done, total), optional
        Called during the bootstrap.
    groups : (ss_sources, ds_sources), optional
        Deprecated spelling of ``ss_sources`` and ``ds_sources``
        (:class:`DeprecationWarning`).

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
    warning saying what it would be limited to. An interval that reaches the bounds is
    cut there and flagged ``clipped``; its unbounded ends are kept beside. The bounds from
    cross-validated LLRs depend on the fold split (``folds``, ``seed``): a case's are
    those of its own validation (:func:`forensic_lr.validation.validate_method`).

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink, R. Stoel, Numerical
       likelihood ratios outputted by LR systems are often based on extrapolation:
       when to stop extrapolating?, Science & Justice 56 (2016) 482-491.
    .. [2] I. Alberink, J. Leegwater, J. Malmborg, A. Nordgaard, M. Sjerps, L. van der Ham,
       A transparent method to determine limit values for likelihood ratio systems, 2025
       (submitted; as implemented in the lir package 1.8).
    """
    return _evaluate(**locals()).record  # locals() here: exactly the arguments


def evaluate_evidence_full(*args: Any, **kwargs: Any) -> EvaluatedEvidence:
    """:func:`evaluate_evidence` with the fitted calibrators beside its record.

    Takes the arguments of :func:`evaluate_evidence`, with the same defaults, and returns
    the :class:`EvaluatedEvidence` whose ``record`` that function returns.
    """
    bound = inspect.signature(evaluate_evidence).bind(*args, **kwargs)
    bound.apply_defaults()
    return _evaluate(**bound.arguments)


def _evaluate(*, ss, ds, scores, folds, ss_sources, ds_sources, groups, labels,
              **kwargs: Any) -> EvaluatedEvidence:
    """:func:`evaluate_unbounded`, then the bounds of the method's rule (ELUB or IV of its
    cross-validated LLRs, or in-sample ones with ``elub_from``; the N-source or fixed bounds)
    applied by :func:`limit_to_elub`."""
    groups = sources_pair(ss_sources, ds_sources, groups, function="evaluate_evidence",
                          stacklevel=4)
    evaluated = evaluate_unbounded(ss, ds, scores, **kwargs)
    method = evaluated.method
    ss, ds = np.asarray(ss, dtype=np.float64), np.asarray(ds, dtype=np.float64)
    n_sources = None if groups is None else source_codes(*groups, ss.size, ds.size)[2]
    if method.bounds in ("n-source", "fixed"):  # bounds that do not depend on the LLRs
        return limit_to_elub(evaluated, bounds_of(method, (), (), n_sources), labels=labels)
    if method.elub_from == "in-sample":
        return limit_to_elub(evaluated, in_sample_bounds(evaluated.inner, ss, ds, method),
                             labels=labels)
    try:
        with warnings.catch_warnings():  # the fold fits repeat the fit's own warnings
            warnings.simplefilter("ignore")
            ss_src, ds_src = (None, None) if groups is None else groups
            bounds = bounds_of(method, *cross_validated_llr(
                ss, ds, method.unfitted(), folds, evaluated.record.seed,
                ss_sources=ss_src, ds_sources=ds_src))
    except ForensicLRError as exc:  # e.g. a fold the method cannot fit
        code, params = rule_message("warning.elub_failed", method.bounds, {"error": str(exc)})
        text = english(code, **params)
        record = evaluated.record
        evaluated = dataclasses.replace(evaluated, record=record.model_copy(
            update={"warnings": (*record.warnings, text)}))
        bounds = None
    return limit_to_elub(evaluated, bounds, labels=labels)


@one_blas_thread()
def evaluate_unbounded(
    ss,
    ds,
    scores,
    calibrator=DEFAULT_CALIBRATOR,
    *,
    options: Mapping[str, Any] | None = None,
    extra: Mapping[str, np.ndarray] | None = None,
    direction: str = "higher_is_similar",
    elub: bool = True,
    elub_from: ElubSource = "cross-validated",
    bounds: BoundsRule = DEFAULT_BOUNDS,
    fixed_bounds: tuple[float, float] | None = None,
    interval: IntervalKind = DEFAULT_INTERVAL,
    n: int | None = None,
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
    replicates: Callable[[Any, int, int], np.ndarray] | None = None,
) -> EvaluatedEvidence:
    """The model's LR of each score and its interval, before any bound (keywords as
    :func:`evaluate_evidence`; ``elub``, ``elub_from``, ``bounds`` and ``fixed_bounds`` are
    recorded for :func:`limit_to_elub`, which applies them).

    ``replicates(calibrator, n, seed)``: the natural-log LLRs at the evidence of ``n``
    bootstrap refits of a system of which the scores are one stage (a fused case's fusion
    or a measured case's feature model, then the calibration,
    :class:`~forensic_lr.casework.two_stage.TwoStageBootstrap`); the bootstrap
    interval is then theirs (:func:`~forensic_lr.uncertainty.replicate_interval`), not
    that of ``calibrator`` refitted on resamples of ``ss`` and ``ds``.

    Computed with one BLAS thread (:func:`~forensic_lr.parallel.one_blas_thread`): the same
    bits on every machine, from ``calibrate`` as from ``run``, whose stages run so.
    """
    method = Method.of(calibrator, options, extra, elub=bool(elub), elub_from=elub_from,
                       bounds=bounds, fixed_bounds=fixed_bounds)
    calibrator, options, extra = method.calibrator, dict(method.options), dict(method.extra)
    _check_extra(calibrator, options, extra)
    if bounds not in BOUNDS_RULES:
        raise InputError(f"bounds must be one of {', '.join(BOUNDS_RULES)}; got {bounds!r}")
    if bounds == "fixed":  # checked before any fit: missing or on the wrong side of 0
        rule_bounds_log10("fixed", (), (), fixed=fixed_bounds)
    if interval not in DEFAULT_DRAWS:
        raise InputError(f"interval must be bootstrap, bayes or none; got {interval!r}")
    if elub_from not in ("cross-validated", "in-sample"):
        raise InputError(f"elub_from must be cross-validated or in-sample; got {elub_from!r}")
    n = DEFAULT_DRAWS[interval] if n is None else int(n)
    base = method.unfitted()
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
        inner = copy.deepcopy(base).fit(ss, ds)
        texts += getattr(inner, "warnings_", ())  # fit diagnostics (S-cal, unsupervised)
        with np.errstate(over="ignore", invalid="ignore"):  # a NaN is refused just below
            llr = np.asarray(inner.llr(x), dtype=np.float64)
        _refuse_nan(llr, raw, calibrator, orient(np.concatenate([ss, ds]), direction))
        iv = None
        if interval == "bootstrap" and replicates is not None:
            iv = replicate_interval(replicates(base, n, seed), level)
        elif interval == "bootstrap":
            iv = bootstrap_interval(ss, ds, x, base, n=n, level=level, seed=seed,
                                    progress=progress)
        elif interval == "bayes":
            iv = bayes_interval(inner, x, n=n, level=level, seed=seed)
    texts += [raised_text(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)]
    for w in caught:  # anything else is not ours to swallow
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=2)
    both = np.concatenate([ss, ds])
    record = EvidenceEvaluation(
        method=MethodResult(
            calibrator=calibrator,
            options=options,
            params=jsonable(inner.params()),
            elub_applied=False,
            elub_from=elub_from,
            bounds_rule=bounds,
            description=type(base).describe(),
            param_rows=inner.param_rows(),
        ),
        results=_results(raw, x, llr, iv, float(both.min()), float(both.max())),
        interval_method=interval,
        interval_level=float(level),
        interval_n=n,
        seed=int(seed),
        warnings=tuple(dict.fromkeys(texts)),
        limitations=inner.limitations(),
    )
    return EvaluatedEvidence(record=record, method=method, fitted=inner, inner=inner)


def limit_to_elub(
    evaluated: EvaluatedEvidence, bounds_log10: tuple[float, float] | None, *,
    labels: Sequence[str] | None = None,
) -> EvaluatedEvidence:
    """Apply the one ELUB to an unbounded evaluation (:func:`evaluate_unbounded`).

    With ``method.elub`` each LLR and interval end is clipped to ``bounds_log10``
    (flagged ``bounded`` / ``clipped``, the model's values kept beside); without it the
    bounds are only stated, and every LR beyond them gets a warning. ``bounds_log10`` None
    (they could not be computed, e.g. infinite LLRs of both signs): nothing is limited and
    the record says so. ``labels`` name the scores in the warnings.
    """
    record, method = evaluated.record, evaluated.method
    applied = method.elub and bounds_log10 is not None
    results = tuple(_limit(e, bounds_log10 if applied else None, method.bounds)
                    for e in record.results)
    texts = list(record.warnings)
    if not method.elub:
        texts += _beyond_bounds(results, bounds_log10, labels, method.bounds)
    low, high = (None, None) if bounds_log10 is None else bounds_log10
    limited = record.model_copy(update={
        "method": record.method.model_copy(update={
            "elub_applied": bool(applied), "elub_log10_lr_low": low, "elub_log10_lr_high": high,
        }),
        "results": results,
        "warnings": tuple(dict.fromkeys(texts)),
    })
    fitted = ELUB.with_bounds(evaluated.inner, bounds_log10) if applied else evaluated.inner
    return EvaluatedEvidence(record=limited, method=method, fitted=fitted,
                             inner=evaluated.inner)


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
        texts.append(english("warning.same_background", n=str(ss.size)))
    return texts


def _results(raw, x, llr, iv: LRInterval | None, lo: float, hi: float):
    """One unbounded :class:`EvidenceLR` per score, with the model's interval."""
    degenerate = ()
    if iv is not None and iv.n_degenerate:
        degenerate = (Message(code="interval.degenerate",
                              params={"n": str(iv.n_degenerate), "total": str(iv.n)}),)
    out = []
    for i in range(x.size):
        interval = None
        if iv is not None:
            lo_i, hi_i = float(iv.llr_low[i] / LN10), float(iv.llr_high[i] / LN10)
            collapsed = signed_log10(lo_i) == signed_log10(hi_i)
            notes = degenerate + ((Message(code="interval.not_estimable",
                                           params={"log10": signed_log10(lo_i)}),)
                                  if collapsed else ())
            interval = Interval(
                method=iv.method, level=float(iv.level),
                log10_lr_low=lo_i, log10_lr_high=hi_i,
                log10_lr_low_unbounded=lo_i, log10_lr_high_unbounded=hi_i,
                note=_joined(notes), note_messages=notes, collapsed=collapsed,
            )
        log10_lr = float(llr[i] / LN10)
        out.append(
            EvidenceLR(
                score=float(raw[i]), score_used=float(x[i]),
                llr=float(llr[i]), log10_lr=log10_lr, lr=_lr(llr[i]),
                llr_unbounded=float(llr[i]), bounded=False,
                extrapolated=bool(x[i] < lo or x[i] > hi),
                interval=interval,
                **_statement(log10_lr, log10_lr, interval, None),
            )
        )
    return tuple(out)


def _lr(llr: float) -> float:
    with np.errstate(over="ignore"):
        return float(np.exp(llr))  # display value only; everything else uses llr


def _limit(e: EvidenceLR, bounds: tuple[float, float] | None, rule: str) -> EvidenceLR:
    """``e`` with its LLR and interval limited to ``bounds`` (log10; None: unchanged) of
    the bounds rule ``rule``."""
    if bounds is None:
        return e
    low, high = bounds
    log10_model = e.llr_unbounded / LN10
    log10_lr = float(min(max(log10_model, low), high))
    interval = e.interval
    if interval is not None:
        lo_i = float(min(max(interval.log10_lr_low_unbounded, low), high))
        hi_i = float(min(max(interval.log10_lr_high_unbounded, low), high))
        clipped = (lo_i, hi_i) != (interval.log10_lr_low_unbounded,
                                   interval.log10_lr_high_unbounded)
        interval = interval.model_copy(update={
            "log10_lr_low": lo_i, "log10_lr_high": hi_i, "clipped": clipped,
        })
    bounded = log10_lr != log10_model
    llr = log10_lr * LN10 if bounded else e.llr_unbounded
    return e.model_copy(update={
        "llr": llr, "log10_lr": log10_lr if bounded else e.log10_lr, "lr": _lr(llr),
        "bounded": bounded, "interval": interval,
        **_statement(log10_lr, log10_model, interval, bounds, rule),
    })


def _joined(messages: Sequence[Message]) -> str:
    """The English parts of a note joined by ``"; "``."""
    return "; ".join(english(m.code, **m.params) for m in messages)


def _statement(log10_lr: float, log10_model: float, interval: Interval | None,
               bounds: tuple[float, float] | None, rule: str = "elub") -> dict[str, Any]:
    """The one statement of an LR's uncertainty: its limit, the model's value, its interval.

    A limited LR is worded as a limit ("limited to 280, the largest LR the validation data
    support"), never as "at least": the ELUB caps what the data support and certifies no
    minimum. The interval is the model's; where an end reaches the bound, that is said.
    The sentences name the bounds rule ``rule`` (:func:`rule_message`).
    Returns the record's ``uncertainty`` (English) and ``uncertainty_messages`` (its parts
    as codes, which a report prints in its language).
    """
    parts = []
    if log10_lr != log10_model:
        which = "largest" if log10_lr > 0 else "smallest"
        code, params = rule_message(f"evidence.limited.{which}", rule, {
            "lr": format_lr(log10_lr), "log10": signed_log10(log10_lr),
            "model_lr": format_lr(log10_model), "model_log10": signed_log10(log10_model)})
        parts.append(Message(code=code, params=params))
    if interval is not None:
        kind = "credible" if interval.method == "bayes" else "bootstrap"
        a, b = interval.log10_lr_low_unbounded, interval.log10_lr_high_unbounded
        params = {"level": f"{100 * interval.level:g} %", "low": signed_log10(a),
                  "high": signed_log10(b),
                  "collapsed_code": "evidence.interval.collapsed" if interval.collapsed else "",
                  "clip_code": ""}
        if bounds is not None and interval.clipped:
            low, high = bounds
            if a >= high or b <= low:
                clip = "evidence.interval.beyond_bound"
            else:
                ends = [signed_log10(v) for v, hit in ((low, a < low), (high, b > high)) if hit]
                clip = f"evidence.interval.reaches_{len(ends)}"
                params.update({f"end_{i}": v for i, v in enumerate(ends, 1)})
            clip, params = rule_message(clip, rule, params)
            params["clip_code"] = clip
        parts.append(Message(code=f"evidence.interval.{kind}", params=params))
    return {"uncertainty": statement(parts), "uncertainty_messages": tuple(parts)}


def _beyond_bounds(results: Sequence[EvidenceLR], supported,
                   labels: Sequence[str] | None, rule: str) -> list[str]:
    """Warnings for evidence LRs outside the bounds of ``rule`` when bounding is off, each
    named by its label, else by its score ("score 3.5", code ``warning.beyond_elub.score``;
    another rule's sentences name it, :func:`rule_message`)."""
    if supported is None:
        return []
    low, high = supported
    texts = []
    for i, e in enumerate(results):
        bound = high if e.log10_lr > high else low if e.log10_lr < low else None
        if bound is not None:
            values = {"log10": signed_log10(e.log10_lr), "low": signed_log10(low),
                      "high": signed_log10(high), "bound": signed_log10(bound)}
            code, params = (rule_message("warning.beyond_elub", rule,
                                         {"label": labels[i], **values}) if labels
                            else rule_message("warning.beyond_elub.score", rule,
                                              {"score": f"{e.score:g}", **values}))
            texts.append(english(code, **params))
    return texts
