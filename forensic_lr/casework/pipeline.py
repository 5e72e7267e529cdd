"""Run a case: load the background, fit, evaluate the evidence, validate, record provenance.

:func:`run_case_full` does the whole evaluation of a :class:`~forensic_lr.casework.spec.CaseSpec`
and returns a :class:`CaseRun` (the :class:`~forensic_lr.casework.spec.CaseResult` plus the arrays
the plots need); :func:`run_case` returns only the result. Nothing here writes files,
prints or reads the clock: the same inputs and seed give the same result, byte for byte.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..calibration import calibration_checks, elub_bounds
from ..errors import ForensicLRError, ForensicLRWarning, InputError
from ..io.scores import orient, sha256_file
from ..metrics import evaluate
from ..metrics.catalogue import metric
from ..parallel import call_forked
from ..provenance import sha256_json, software_versions, source_revision
from ..records import (
    CaseResult,
    EvidenceResult,
    Provenance,
    ValidationResult,
)
from ..resampling import Progress, stage_progress
from ..uncertainty import cross_validated_llr
from ..validation.bootstrap import bootstrap_metrics
from ..validation.criteria import check_criteria
from ..validation.rates import misleading_rates
from .evidence import evaluate_evidence_full, method_calibrators
from .inputs import load_background, load_extra_inputs
from .policy import decide_conclusion
from .profile import policy_settings
from .sensitivity import sensitivity_analysis
from .spec import CaseSpec
from .verbal import VerbalScale, format_log10_lr, format_lr, load_scale, verbal_equivalent

__all__ = ["CaseRun", "run_case", "run_case_full"]

_LN10 = math.log(10.0)
#: Bootstrap replicates of the validation metrics' intervals in a case report.
METRIC_REPLICATES = 1000


@dataclass(frozen=True, eq=False)
class CaseRun:
    """A finished run: the result record and the arrays behind its figures.

    Attributes
    ----------
    spec : CaseSpec
        The case file as validated.
    result : CaseResult
        What ``result.json`` holds and the report shows.
    ss, ds : numpy.ndarray
        Background scores as used (score direction applied: higher supports Hp).
    ss_llr_cv, ds_llr_cv : numpy.ndarray
        Out-of-fold natural-log LLRs of the background scores (the validation).
    calibrator : object
        The calibrator fitted on all background scores (an ELUB wrapper if enabled).
    evidence_scores : numpy.ndarray
        The evidence scores as used (score direction applied).
    scale : VerbalScale
        The verbal scale of ``[report] verbal_scale``.
    """

    spec: CaseSpec
    result: CaseResult
    ss: np.ndarray
    ds: np.ndarray
    ss_llr_cv: np.ndarray
    ds_llr_cv: np.ndarray
    calibrator: object
    evidence_scores: np.ndarray
    scale: VerbalScale


def _fold_texts(caught) -> list[str]:
    """Our warning texts of the cross-validation fits, once each; others are raised again."""
    for w in caught:  # anything else is not ours to swallow
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=3)
    return list(dict.fromkeys(
        str(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)
    ))


def _fold_summary(texts: list[str], diagnostics: bool, seen: tuple[str, ...]) -> list[str]:
    """The cross-validation fits' warning texts as the report lists them.

    A calibrator with fit diagnostics (``warnings_``: S-cal, unsupervised) repeats them in
    every fold with slightly different numbers; those not in ``seen`` (the texts of the
    fit on all data) become one summary line.
    """
    if diagnostics:
        texts = [t for t in texts if t not in seen]
    if not diagnostics or not texts:
        return texts
    return [
        f"the cross-validation fits raised {len(texts)} fit warning(s) of their own, "
        f"e.g.: {texts[0]}"
    ]


def _checks(ss_cv: np.ndarray, ds_cv: np.ndarray, texts: list[str]) -> dict | None:
    """``calibration_checks(...).to_dict()`` of the out-of-fold LLRs, or None with a warning."""
    try:
        return calibration_checks(ss_cv, ds_cv).to_dict()
    except ForensicLRError as exc:
        texts.append(f"the calibration checks could not be computed: {exc}")
        return None


def _case_results(spec: CaseSpec, evaluation, scale: VerbalScale) -> tuple[EvidenceResult, ...]:
    """Each evidence LR with the case's label, its rounded text and verbal equivalent."""
    texts = spec.score_texts
    if texts is None or len(texts) != len(evaluation.results):
        # scores from a scores file: the shortest text that reads back as the same number
        texts = tuple(repr(e.score) for e in evaluation.results)
    below = spec.report.below_first_band
    return tuple(
        EvidenceResult(
            **e.model_dump(), label=label, score_text=text,
            lr_text=format_lr(e.log10_lr, scale, below_first_band=below),
            log10_text=format_log10_lr(e.log10_lr, scale, below_first_band=below),
            verbal=verbal_equivalent(e.log10_lr, scale, below_first_band=below),
        )
        for label, text, e in zip(spec.comparison_labels, texts, evaluation.results, strict=True)
    )


def _sources(data):
    """``(ss_sources, ds_sources)`` when the background files name sources, else None."""
    return (data.ss_sources, data.ds_sources) if data.has_sources else None


def _uncertainty_of_metrics(spec: CaseSpec, data, ss_cv, ds_cv, texts: list[str]):
    """Bootstrap intervals of the metrics and the rates' intervals (by source where given)."""
    sources = _sources(data) or (None, None)
    unc = spec.uncertainty
    intervals = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ForensicLRWarning)
        try:
            intervals = bootstrap_metrics(
                ss_cv, ds_cv, ss_sources=sources[0], ds_sources=sources[1],
                n=METRIC_REPLICATES, level=unc.level, seed=unc.seed,
            ).to_dict()
        except ForensicLRError as exc:
            texts.append(f"the intervals of the validation metrics could not be computed: {exc}")
    texts += [str(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)]
    rates = tuple(r.record() for r in misleading_rates(ss_cv, ds_cv, unc.level, intervals))
    return intervals, rates


def _validate(spec: CaseSpec, data, template, progress=None):
    """K-fold cross-validated LLRs of the background, their metrics, checks and criteria.

    Returns ``(validation, ss_cv, ds_cv, fold_texts, texts)``: the warning texts of the
    fold fits (:func:`_fold_texts`, summarised by the caller, who knows the texts of the
    fit on all data) and those of the metrics, criteria and intervals.
    """
    with warnings.catch_warnings(record=True) as in_folds:
        warnings.simplefilter("always", ForensicLRWarning)
        ss_cv, ds_cv = cross_validated_llr(
            data.ss, data.ds, template, folds=spec.validation.folds,
            seed=spec.uncertainty.seed, progress=progress, groups=_sources(data),
        )
    fold_texts = _fold_texts(in_folds)
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ForensicLRWarning)
        metrics = evaluate(ss_cv, ds_cv).to_dict()
        checks = _checks(ss_cv, ds_cv, texts)
    texts += [str(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)]
    elub_cv = None
    if spec.method.elub:
        low, high = elub_bounds(ss_cv, ds_cv)
        elub_cv = (float(low / _LN10), float(high / _LN10))
    intervals, rates = _uncertainty_of_metrics(spec, data, ss_cv, ds_cv, texts)
    criteria = check_criteria(spec.validation.criteria, metrics, intervals=intervals,
                              rates=rates, rule=spec.validation.criteria_rule)
    for c in criteria:
        if not c.met:
            m = metric(c.metric)  # values and threshold in the metric's unit
            bound = "" if c.bound is None or c.rule == "estimate" else (
                f", one-sided 95 % bound {m.text(c.bound)}")
            texts.append(
                f"validation criterion {c.name} not met: cross-validated {m.short} = "
                f"{m.text(c.value)}{bound}, required {c.comparison} {m.limit(c.threshold)}"
            )
    validation = ValidationResult(
        folds=spec.validation.folds,
        seed=spec.uncertainty.seed,
        metrics=metrics,
        criteria=criteria,
        all_criteria_met=all(c.met for c in criteria) if criteria else None,
        elub_log10=elub_cv,
        calibration_checks=checks,
        folds_by="source" if data.has_sources else "trial",
        n_sources=data.to_dict().get("n_sources"),
        metric_intervals=intervals,
        rates=rates,
    )
    return validation, ss_cv, ds_cv, fold_texts, texts


def run_case_full(spec: CaseSpec, progress: Progress | None = None) -> CaseRun:
    """Evaluate a case and validate the method on its background data.

    Parameters
    ----------
    spec : CaseSpec
        A validated case file (:func:`forensic_lr.casework.load_case`).
    progress : callable(done, total), optional
        Called during the bootstrap (the long step); an object with ``for_stage(name)``
        gets one callback per stage, bootstrap and cross-validation
        (:func:`forensic_lr.resampling.stage_progress`).

    Returns
    -------
    CaseRun
        The result record and the arrays behind the figures.

    Raises
    ------
    InputError
        Unreadable or invalid background files, a calibrator option the method does
        not know, a Bayesian interval asked for a method without a posterior, more folds
        than scores in the smaller class, or an unknown verbal scale.

    Notes
    -----
    The background is loaded with the case's score direction (distances are negated,
    so that higher supports Hp), with the extra score inputs the method declares
    (``[background] suspect_ss``, ``unlabelled``) passed to the calibrator, so that
    every fold and bootstrap refit uses them. The evidence is evaluated by
    :func:`forensic_lr.casework.evaluate_evidence` (the same code as ``forensic-lr
    calibrate``). The method is then validated by K-fold cross-validation on the
    background (the same method, ELUB included, refitted without each fold), evaluated
    with :func:`forensic_lr.metrics.evaluate`, with the ELUB bounds of the out-of-fold
    LLRs when bounding is on, the calibration checks of those LLRs [1]_ and the
    laboratory's criteria. The fold shuffles and the interval use the case's seed.
    Warnings are returned in ``result.warnings`` and raised once each as
    :class:`~forensic_lr.errors.ForensicLRWarning`. The evidence evaluation, the
    validation and the sensitivity analysis depend only on the inputs, so they run side by
    side in forked processes on the idle cores (:func:`forensic_lr.parallel.call_forked`:
    the evidence evaluation here, each other stage in the next free process); the result
    is the same, byte for byte, as one stage after the other.

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, The distribution of calibrated likelihood-ratios
       in speaker recognition, Interspeech 2013.
    """
    if not spec.evidence.values:
        raise InputError("[evidence] score: the case file gives no evidence score; write the "
                         "comparison score of this case, e.g. score = 3.2 (a draft needs it too)")
    scale = load_scale(_scale_ref(spec))
    data, summaries, hashes, files = load_background(spec)
    extra, extra_summaries = load_extra_inputs(spec, hashes, files)
    if spec.evidence.scores_file is not None:  # the evidence file is an input like the others
        hashes[spec.evidence.scores_file] = sha256_file(spec.resolve(spec.evidence.scores_file))
    unc = spec.uncertainty
    labels = spec.comparison_labels

    def evidence():
        return evaluate_evidence_full(
            data.ss, data.ds, spec.evidence.values,
            calibrator=spec.method.calibrator, options=spec.method.options, extra=extra,
            direction=spec.evidence.score_direction, elub=spec.method.elub,
            interval=unc.method, n=unc.n, level=unc.level, seed=unc.seed,
            labels=spec.evidence.labels, progress=stage_progress(progress, "bootstrap"),
        )

    def template():
        return method_calibrators(spec.method.calibrator, spec.method.options, extra,
                                  elub=spec.method.elub)[1]

    def validation():
        return _validate(spec, data, template(), stage_progress(progress, "cross-validation"))

    def sensitivity():
        return sensitivity_analysis(
            data.ss, data.ds, spec.evidence.values, calibrator=spec.method.calibrator,
            options=spec.method.options, extra=extra, direction=spec.evidence.score_direction,
            elub=spec.method.elub, scale=scale,
            below_first_band=spec.report.below_first_band, labels=labels, template=template(),
            sources=_sources(data), level=unc.level, seed=unc.seed,
        )

    # independent stages on the idle cores: this process evaluates the evidence (and draws
    # its progress bar); the next free process takes the sensitivity analysis, then the
    # validation
    stages = call_forked(
        {"evidence": evidence, "sensitivity": sensitivity, "validation": validation}
    )
    evaluated = stages["evidence"]
    evaluation = evaluated.record
    validation_result, ss_cv, ds_cv, fold_texts, validation_texts = stages["validation"]
    texts = [
        *evaluation.warnings,
        *_fold_summary(fold_texts, hasattr(evaluated.inner, "warnings_"),
                       seen=evaluation.warnings),
        *validation_texts,
    ]
    unique = tuple(dict.fromkeys(texts))
    for text in unique:
        warnings.warn(text, ForensicLRWarning, stacklevel=2)
    configuration = spec.model_dump(mode="json")
    result = CaseResult(
        case=spec.case,
        report_id=spec.case.effective_report_id,
        propositions=spec.propositions,
        evidence_description=spec.evidence.description,
        score_direction=spec.evidence.score_direction,
        background_description=spec.background.description,
        background_ss=summaries["ss"],
        background_ds=summaries["ds"],
        background_suspect_ss=extra_summaries.get("suspect_ss"),
        background_unlabelled=extra_summaries.get("unlabelled"),
        method=evaluation.method,
        results=_case_results(spec, evaluation, scale),
        validation=validation_result,
        warnings=unique,
        limitations=evaluation.limitations,
        provenance=Provenance(
            software=software_versions(),
            inputs=hashes,
            input_files=tuple(files),
            case_file_sha256=spec.source_sha256 or sha256_json(configuration),
            seed=unc.seed,
            configuration=configuration,
            lab_profile_sha256=spec.lab_sha256,
        ),
        details=spec.details(source_revision()),
        sensitivity=stages["sensitivity"],
    )
    policy = policy_settings(spec)
    result = result.model_copy(update={
        "conclusion": decide_conclusion(
            result, spec.opinion, calibrator=evaluated.inner, ss=data.ss, ds=data.ds,
            evidence=orient(np.asarray(spec.evidence.values, dtype=np.float64),
                            spec.evidence.score_direction), policy=policy,
        ),
        "policy": policy,
        "lab": spec.lab,
    })
    return CaseRun(
        spec=spec, result=result, ss=data.ss, ds=data.ds, ss_llr_cv=ss_cv, ds_llr_cv=ds_cv,
        calibrator=evaluated.fitted, evidence_scores=orient(
            np.asarray(spec.evidence.values, dtype=np.float64), spec.evidence.score_direction
        ), scale=scale,
    )


def run_case(spec: CaseSpec, progress: Progress | None = None) -> CaseResult:
    """The :class:`~forensic_lr.records.CaseResult` of :func:`run_case_full`."""
    return run_case_full(spec, progress).result


def _scale_ref(spec: CaseSpec) -> str:
    """A shipped scale key as is; a ``.json`` scale file resolved against the case folder."""
    name = spec.report.verbal_scale
    return str(spec.resolve(name)) if name.lower().endswith(".json") else name
