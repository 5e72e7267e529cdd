"""Run a case: load the background, fit, evaluate the evidence, validate, record provenance.

:func:`run_case_full` does the whole evaluation of a :class:`~forensic_lr.casework.spec.CaseSpec`
and returns a :class:`CaseRun` (the :class:`~forensic_lr.casework.spec.CaseResult` plus the arrays
the plots need); :func:`run_case` returns only the result. Nothing here writes files,
prints or reads the clock: the same inputs and seed give the same result, byte for byte.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..calibration.curves import ModelCurves, model_curves
from ..errors import ForensicLRWarning, InputError
from ..i18n.messages import english, recognised
from ..io.scores import orient, sha256_file
from ..metrics import tippett_counts
from ..parallel import default_workers, run_jobs
from ..provenance import sha256_json, software_versions, source_revision
from ..records import CaseResult, EvidenceResult, Message, Provenance
from ..resampling import Progress, stage_progress
from ..validation.method import Method, MethodValidation, stated_bounds, validate_method
from .evidence import evaluate_unbounded, limit_to_elub
from .fused import fusion_warnings, two_stage_bootstrap
from .inputs import (
    load_background,
    load_background_and_fusion,
    load_extra_inputs,
    load_measured_case,
)
from .policy import decide_conclusion
from .profile import policy_settings
from .sensitivity import limit_sensitivity, sensitivity_analysis
from .spec import CaseSpec
from .verbal import VerbalScale, format_log10_lr, format_lr, load_scale, verbal_equivalent

__all__ = [
    "CaseRun", "case_method", "load_case_data", "run_case", "run_case_full", "validate_case",
]

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
        The calibrator fitted on all background scores (limited to the ELUB bounds when
        they are applied).
    evidence_scores : numpy.ndarray
        The evidence scores as used (score direction applied).
    scale : VerbalScale
        The verbal scale of ``[report] verbal_scale``.
    curves : ModelCurves
        ``calibrator`` evaluated once on a grid spanning the background and the evidence
        scores (:func:`~forensic_lr.calibration.curves.model_curves`): the model the
        report draws.
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
    curves: ModelCurves


def _fold_summary(texts: Sequence[str], diagnostics: bool, seen: tuple[str, ...]) -> list[str]:
    """The cross-validation fits' warning texts as the report lists them.

    A calibrator with fit diagnostics (``warnings_``: S-cal, unsupervised) repeats them in
    every fold with slightly different numbers; those not in ``seen`` (the texts of the
    fit on all data) become one summary line.
    """
    texts = list(texts)
    if diagnostics:
        texts = [t for t in texts if t not in seen]
    if not diagnostics or not texts:
        return texts
    return [english("warning.fold_fits", n=str(len(texts)), example_warning=texts[0])]


def _warning_message(text: str) -> Message | None:
    """A warning's code and parameters (``warning.*`` of the messages catalogue), None for
    a text without one (printed as written)."""
    found = recognised(text, "warning.")
    return None if found is None else Message(code=found[0], params=found[1])


def _case_results(spec: CaseSpec, evaluation, scale: VerbalScale, ss_cv: np.ndarray,
                  ds_cv: np.ndarray) -> tuple[EvidenceResult, ...]:
    """Each evidence LR with the case's label, its rounded text, verbal equivalent and the
    background comparisons that support its side at least as strongly
    (:func:`~forensic_lr.metrics.tippett_counts` of the cross-validated LLRs)."""
    texts = spec.score_texts
    if texts is None or len(texts) != len(evaluation.results):
        # scores from a scores file: the shortest text that reads back as the same number
        texts = tuple(repr(e.score) for e in evaluation.results)
    below = spec.report.below_first_band
    n_ss, n_ds = tippett_counts(ss_cv, ds_cv, [e.llr for e in evaluation.results])
    return tuple(
        EvidenceResult(
            **e.model_dump(), label=label, score_text=text,
            tippett_ss=int(a), tippett_ds=int(b),
            lr_text=format_lr(e.log10_lr, scale, below_first_band=below),
            log10_text=format_log10_lr(e.log10_lr, scale, below_first_band=below),
            verbal=verbal_equivalent(e.log10_lr, scale, below_first_band=below),
        )
        for label, text, e, a, b in zip(spec.comparison_labels, texts, evaluation.results,
                                        n_ss, n_ds, strict=True)
    )


def _sources(data):
    """``(ss_sources, ds_sources)`` when the background files name sources, else None."""
    return (data.ss_sources, data.ds_sources) if data.has_sources else None


def case_method(spec: CaseSpec, extra: Mapping[str, np.ndarray]) -> Method:
    """The method as the case applies it: calibrator, options, extra inputs, ELUB."""
    m = spec.method
    return Method(m.calibrator, dict(m.options), dict(extra), elub=m.elub, elub_from=m.elub_from,
                  bounds=m.bounds, fixed_bounds=m.fixed_bounds)


def validate_case(spec: CaseSpec, data, extra: Mapping[str, np.ndarray],
                  progress: Progress | None = None) -> MethodValidation:
    """:func:`~forensic_lr.validation.validate_method` of the case's method on its background.

    The folds and their seed, the folds by source (when the files name sources), the
    criteria, the level and the metric intervals are the case's: ``forensic-lr run`` and
    ``forensic-lr validate --case`` both call this.
    """
    unc = spec.uncertainty
    return validate_method(
        data.ss, data.ds, case_method(spec, extra), folds=spec.validation.folds,
        seed=unc.seed, ss_sources=data.ss_sources, ds_sources=data.ds_sources,
        criteria=spec.validation.criteria,
        criteria_rule=spec.validation.criteria_rule, level=unc.level,
        metric_intervals={"n": METRIC_REPLICATES, "level": unc.level, "seed": unc.seed},
        progress=progress,
    )


#: Background scores (SS + DS) from which a case's stages run side by side when the
#: machine has more than one core: below it a pool's start-up costs more than it saves
#: (measured on two cores; ``docs/dev/architecture.md``, *Processes*).
STAGES_IN_PROCESSES_FROM = 20_000


def stage_workers(data) -> int:
    """Processes for a case's three stages: every core (at most 3) for a background of at
    least :data:`STAGES_IN_PROCESSES_FROM` scores, else 1 (one stage after the other)."""
    if data.ss.size + data.ds.size < STAGES_IN_PROCESSES_FROM:
        return 1
    return min(3, default_workers())


def _evidence_stage(spec: CaseSpec, data, extra: Mapping[str, np.ndarray],
                    progress: Progress | None, replicates=None):
    """The evidence evaluated without bounds (fit, LR, interval) with the case's options;
    ``replicates``: a fused or measured case's refits of both stages (its bootstrap,
    :class:`~forensic_lr.casework.two_stage.TwoStageBootstrap`)."""
    unc = spec.uncertainty
    return evaluate_unbounded(
        data.ss, data.ds, spec.evidence.values,
        calibrator=spec.method.calibrator, options=spec.method.options, extra=extra,
        direction=spec.evidence.score_direction, elub=spec.method.elub,
        elub_from=spec.method.elub_from, bounds=spec.method.bounds,
        fixed_bounds=spec.method.fixed_bounds, interval=unc.method, n=unc.n, level=unc.level,
        seed=unc.seed, progress=stage_progress(progress, "bootstrap"), replicates=replicates,
    )


def _sensitivity_stage(spec: CaseSpec, data, extra: Mapping[str, np.ndarray],
                       scale: VerbalScale, replicates=None):
    """The case's sensitivity analysis (:func:`sensitivity_analysis`), without bounds;
    ``replicates``: a fused or measured case's refits of both stages (its background
    bootstrap)."""
    return sensitivity_analysis(
        data.ss, data.ds, spec.evidence.values, calibrator=spec.method.calibrator,
        options=spec.method.options, extra=extra, direction=spec.evidence.score_direction,
        elub=spec.method.elub, scale=scale,
        below_first_band=spec.report.below_first_band, labels=spec.comparison_labels,
        template=case_method(spec, extra).unfitted(), sources=_sources(data),
        level=spec.uncertainty.level, seed=spec.uncertainty.seed, replicates=replicates,
    )


def load_case_data(spec: CaseSpec):
    """``(data, extra)``: the background as used and the method's extra score inputs."""
    data, _, hashes, files = load_background(spec)
    extra, _ = load_extra_inputs(spec, hashes, files)
    return data, extra


def run_case_full(spec: CaseSpec, progress: Progress | None = None, *,
                  workers: int | None = None) -> CaseRun:
    """Evaluate a case and validate the method on its background data.

    Parameters
    ----------
    spec : CaseSpec
        A validated case file (:func:`forensic_lr.casework.load_case`).
    progress : callable(done, total), optional
        Called during the bootstrap (the long step); an object with ``for_stage(name)``
        gets one callback per stage, bootstrap and cross-validation
        (:func:`forensic_lr.resampling.stage_progress`).
    workers : int, optional
        Processes for the three stages; default :func:`stage_workers` (one below
        :data:`STAGES_IN_PROCESSES_FROM` background scores). The result does not depend
        on it.

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
    :func:`forensic_lr.casework.evaluate_evidence`'s two steps (the same code as
    ``forensic-lr calibrate``). The method is validated by :func:`validate_case`
    (:func:`forensic_lr.validation.validate_method`, the code of ``forensic-lr validate
    --case``): K-fold cross-validation on the background, the metrics, calibration
    checks [1]_ and criteria of the unbounded out-of-fold LLRs, and their ELUB. That ELUB
    is the one bound of the case (unless ``elub_from = "in-sample"``): it limits the
    reported LRs, their intervals, the conclusion and is marked in the sensitivity
    analysis. The fold shuffles and the interval use the case's seed.
    Warnings are returned in ``result.warnings`` and raised once each as
    :class:`~forensic_lr.errors.ForensicLRWarning`. The evidence evaluation, the
    validation and the sensitivity analysis depend only on the inputs, so with more than one
    worker they run side by side (:func:`forensic_lr.parallel.run_jobs`: the evidence
    evaluation here, each other stage in the next free process); the result is the same,
    byte for byte, as one stage after the other.

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, The distribution of calibrated likelihood-ratios
       in speaker recognition, Interspeech 2013.
    """
    if not spec.evidence.values:
        raise InputError("[evidence] score: the case file gives no evidence score; write the "
                         "comparison score of this case, e.g. score = 3.2 (a draft needs it too)")
    scale = load_scale(_scale_ref(spec))
    fusion = None
    if spec.measurements is not None:  # the bootstrap refits the feature model too
        data, summaries, hashes, files, measured, replicates = load_measured_case(spec)
    else:
        data, summaries, hashes, files, fusion = load_background_and_fusion(spec)
        measured = None
        replicates = two_stage_bootstrap(spec)  # None unless [fusion]
    extra, extra_summaries = load_extra_inputs(spec, hashes, files)
    if spec.method.bounds == "n-source" and not data.has_sources:
        raise InputError('[method] bounds = "n-source": the background files name no sources, '
                         "so there is no N to bound by; add a source column (or source_a, "
                         "source_b) to the background files, or choose another bounds rule")
    if spec.evidence.scores_file is not None:  # the evidence file is an input like the others
        hashes[spec.evidence.scores_file] = sha256_file(spec.resolve(spec.evidence.scores_file))
    unc = spec.uncertainty

    workers = stage_workers(data) if workers is None else workers
    here = progress if workers == 1 else None  # a pool process draws no progress bar
    # a free process takes the next stage in this order: the validation (cross-validation
    # and the metrics' bootstrap, usually the longer) before the sensitivity analysis, so
    # that on two cores the sensitivity analysis follows whichever of the other two ends first
    stages = run_jobs({
        "evidence": partial(_evidence_stage, spec, data, extra, progress, replicates),
        "validation": partial(validate_case, spec, data, extra,
                              stage_progress(here, "cross-validation")),
        "sensitivity": partial(_sensitivity_stage, spec, data, extra, scale, replicates),
    }, workers)
    validated = stages["validation"]
    unbounded = stages["evidence"]
    # the one bound: the rule's bounds of the validation's out-of-fold LLRs (or of the
    # in-sample LLRs, lir's rule); the N-source and fixed bounds do not depend on the LLRs
    bounds = stated_bounds(case_method(spec, extra), validated.record.elub_log10,
                           lambda: unbounded.inner, data.ss, data.ds)
    evaluated = limit_to_elub(unbounded, bounds, labels=spec.evidence.labels)
    evaluation = evaluated.record
    texts = [
        *evaluation.warnings,
        *_fold_summary(validated.fold_warnings, hasattr(evaluated.inner, "warnings_"),
                       seen=evaluation.warnings),
        *validated.warnings,
        *fusion_warnings(fusion),
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
        **{f"background_{key}": summary for key, summary in extra_summaries.items()},
        measurements=measured,
        fusion=fusion,
        method=evaluation.method,
        results=_case_results(spec, evaluation, scale, validated.ss_llr, validated.ds_llr),
        validation=validated.record,
        warnings=unique,
        warning_messages=tuple(_warning_message(t) for t in unique),
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
        sensitivity=limit_sensitivity(stages["sensitivity"],
                                      bounds if evaluation.method.elub_applied else None,
                                      spec.method.bounds),
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
    evidence_scores = orient(np.asarray(spec.evidence.values, dtype=np.float64),
                             spec.evidence.score_direction)
    return CaseRun(
        spec=spec, result=result, ss=data.ss, ds=data.ds, ss_llr_cv=validated.ss_llr,
        ds_llr_cv=validated.ds_llr, calibrator=evaluated.fitted,
        evidence_scores=evidence_scores, scale=scale,
        curves=model_curves(evaluated.fitted, data.ss, data.ds,
                            case_score=evidence_scores.tolist()),
    )


def run_case(spec: CaseSpec, progress: Progress | None = None) -> CaseResult:
    """The :class:`~forensic_lr.records.CaseResult` of :func:`run_case_full`."""
    return run_case_full(spec, progress).result


def _scale_ref(spec: CaseSpec) -> str:
    """A shipped scale key as is; a ``.json`` scale file resolved against the case folder."""
    name = spec.report.verbal_scale
    return str(spec.resolve(name)) if name.lower().endswith(".json") else name
