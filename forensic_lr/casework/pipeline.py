"""Run a case: load the background, fit, evaluate the evidence, validate, record provenance.

:func:`run_case_full` does the whole evaluation of a :class:`~forensic_lr.casework.spec.CaseSpec`
and returns a :class:`CaseRun` (the :class:`~forensic_lr.casework.spec.CaseResult` plus the arrays
the plots need); :func:`run_case` returns only the result. Nothing here writes files,
prints or reads the clock: the same inputs and seed give the same result, byte for byte.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import math
import platform
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ForensicLRError, ForensicLRWarning, InputError
from .spec import (
    CaseResult,
    CaseSpec,
    Criteria,
    CriterionResult,
    EvidenceResult,
    Interval,
    MethodResult,
    Provenance,
    ScoreSummary,
    ValidationResult,
)

if TYPE_CHECKING:
    from .verbal import VerbalScale

__all__ = ["CaseRun", "check_criteria", "run_case", "run_case_full", "software_versions"]

_LN10 = math.log(10.0)
#: The packages whose versions are recorded in the provenance (runtime dependencies).
_SOFTWARE = ("forensic-lr", "numpy", "scipy", "pydantic", "jinja2", "matplotlib", "weasyprint")
#: Lab criterion -> (metric of :class:`forensic_lr.metrics.Evaluation`, comparison that passes).
_CRITERIA = {
    "cllr_max": ("cllr", "<="),
    "min_cllr_max": ("min_cllr", "<="),
    "cllr_cal_max": ("cllr_cal", "<="),
    "eer_max": ("eer", "<="),
    "auc_min": ("auc", ">="),
    "rmep_max": ("rmep", "<="),
    "rmed_max": ("rmed", "<="),
    "devpav_max": ("devpav", "<="),
}

Progress = Callable[[int, int], None]


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


def _summary(values: np.ndarray, file: str, sha256: str) -> ScoreSummary:
    return ScoreSummary(
        file=file,
        sha256=sha256,
        n=int(values.size),
        minimum=float(values.min()),
        maximum=float(values.max()),
        mean=float(values.mean()),
        sd=float(values.std(ddof=1)) if values.size > 1 else 0.0,
    )


def software_versions() -> dict[str, str]:
    """Versions of Python and of the runtime dependencies (for provenance records)."""
    versions = {"python": platform.python_version()}
    for name in _SOFTWARE:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def check_criteria(criteria: Criteria, metrics: dict[str, Any]) -> tuple[CriterionResult, ...]:
    """Compare each criterion the lab set with its metric; NaN never meets a criterion."""
    out = []
    for name, threshold in criteria.model_dump().items():
        if threshold is None:
            continue
        metric, comparison = _CRITERIA[name]
        value = float(metrics[metric])
        met = value <= threshold if comparison == "<=" else value >= threshold
        out.append(
            CriterionResult(
                name=name, metric=metric, comparison=comparison,
                threshold=float(threshold), value=value, met=bool(met),  # NaN never meets
            )
        )
    return tuple(out)


def _load_background(spec: CaseSpec):
    """Scores as used, with a summary of each class on the scale of the files."""
    from ..io.scores import load_scores, sha256_file

    bg = spec.background
    direction = spec.evidence.score_direction
    if bg.scores is not None:
        data = load_scores(scores=str(spec.resolve(bg.scores)), direction=direction)
        names = {"ss": bg.scores, "ds": bg.scores}
    else:
        data = load_scores(
            ss=str(spec.resolve(bg.ss)), ds=str(spec.resolve(bg.ds)), direction=direction
        )
        names = {"ss": bg.ss, "ds": bg.ds}
    sign = -1.0 if direction == "lower_is_similar" else 1.0
    hashes = {name: sha256_file(spec.resolve(name)) for name in dict.fromkeys(names.values())}
    summaries = {k: _summary(sign * getattr(data, k), names[k], hashes[names[k]]) for k in names}
    return data.ss, data.ds, summaries, hashes


def _load_extra(spec: CaseSpec, hashes: dict[str, str]):
    """``[background] suspect_ss`` / ``unlabelled`` as calibrator options (direction applied).

    Adds each file's SHA-256 to ``hashes``; returns the options and a summary per file.
    """
    from ..io.scores import read_score_file, sha256_file

    sign = -1.0 if spec.evidence.score_direction == "lower_is_similar" else 1.0
    extra, summaries = {}, {}
    for key in ("suspect_ss", "unlabelled"):
        name = getattr(spec.background, key)
        if name is None:
            continue
        values = read_score_file(spec.resolve(name), label=key)
        hashes[name] = sha256_file(spec.resolve(name))
        summaries[key] = _summary(values, name, hashes[name])
        extra[key] = sign * values
    return extra, summaries


def _fold_warnings(caught, diagnostics: bool, seen: list[str]) -> list[str]:
    """Warning texts of the cross-validation fits.

    A calibrator with fit diagnostics (``warnings_``: S-cal, unsupervised) repeats them in
    every fold with slightly different numbers; those not in ``seen`` (the texts of the
    fit on all data) become one summary line.
    """
    ours = [w for w in caught if issubclass(w.category, ForensicLRWarning)]
    for w in caught:  # anything else is not ours to swallow
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=3)
    texts = list(dict.fromkeys(str(w.message) for w in ours))
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
    from ..calibration import calibration_checks

    try:
        return calibration_checks(ss_cv, ds_cv).to_dict()
    except ForensicLRError as exc:
        texts.append(f"the calibration checks could not be computed: {exc}")
        return None


def _interval(spec: CaseSpec, base, fitted, ss, ds, x, progress):
    """The interval record per evidence score (natural-log bounds) and its warnings."""
    from ..uncertainty import bayes_interval, bootstrap_interval

    unc = spec.uncertainty
    if unc.method == "none":
        return None
    if unc.method == "bootstrap":
        return bootstrap_interval(
            base, ss, ds, x, n=unc.n, level=unc.level, seed=unc.seed, progress=progress
        )
    inner = fitted.calibrator if spec.method.elub else fitted
    return bayes_interval(inner, x, n=unc.n, level=unc.level, seed=unc.seed)


def _evidence_results(spec, x, llr, llr_unbounded, lo_hi, clipped, interval, scale, lo, hi):
    """One :class:`EvidenceResult` per evidence score (``clipped``: interval hit ELUB)."""
    from .verbal import format_lr, verbal_equivalent

    ev = spec.evidence
    labels = ev.labels or tuple(f"E{i + 1}" for i in range(len(ev.values)))
    note = ""
    if interval is not None and interval.n_degenerate:
        note = (
            f"{interval.n_degenerate} of {interval.n} replicates were degenerate "
            "and were left out"
        )
    out = []
    for i, score in enumerate(ev.values):
        log10_lr = float(llr[i] / _LN10)
        iv = None
        if interval is not None:
            iv = Interval(
                method=interval.method,
                level=float(interval.level),
                log10_lr_low=float(lo_hi[0][i] / _LN10),
                log10_lr_high=float(lo_hi[1][i] / _LN10),
                note="; ".join(
                    filter(None, [note, "clipped to the ELUB bounds" if clipped[i] else ""])
                ),
            )
        with np.errstate(over="ignore"):
            lr = float(np.exp(llr[i]))  # display value only; everything above uses llr
        out.append(
            EvidenceResult(
                label=labels[i],
                score=float(score),
                score_used=float(x[i]),
                llr=float(llr[i]),
                log10_lr=log10_lr,
                lr=lr,
                lr_text=format_lr(log10_lr),
                llr_unbounded=float(llr_unbounded[i]),
                bounded=bool(llr[i] != llr_unbounded[i]),
                extrapolated=bool(x[i] < lo or x[i] > hi),
                verbal=verbal_equivalent(log10_lr, scale),
                interval=iv,
            )
        )
    return tuple(out)


def run_case_full(spec: CaseSpec, progress: Progress | None = None) -> CaseRun:
    """Evaluate a case and validate the method on its background data.

    Parameters
    ----------
    spec : CaseSpec
        A validated case file (:func:`forensic_lr.casework.spec.load_case`).
    progress : callable(done, total), optional
        Called during the bootstrap (the long step).

    Returns
    -------
    CaseRun
        The result record and the arrays behind the figures.

    Raises
    ------
    InputError
        Unreadable or invalid background files, a calibrator option the method does
        not know, a Bayesian interval asked for a method other than ``bayes``, more
        folds than scores in the smaller class, or an unknown verbal scale.

    Notes
    -----
    Steps: (1) load the background and apply the score direction (distances are
    negated, so that higher supports Hp), with ``[background] suspect_ss`` or
    ``unlabelled`` passed to the calibrator as options (so every fold and bootstrap refit
    uses them); (2) fit the calibrator on all SS and DS scores, wrapped in ELUB [1]_ if
    enabled; (3) the LLR of each evidence score, its
    rounded text and verbal equivalent; (4) the interval (bootstrap on the unbounded
    method, or the posterior of ``bayes``), clipped to the ELUB bounds when these
    apply; (5) K-fold cross-validated LLRs of the background, the same method refitted
    without each fold, evaluated with :func:`forensic_lr.metrics.evaluate` and, if ELUB
    is on, the ELUB bounds these out-of-fold LLRs support, and the calibration checks
    of these LLRs [2]_ (recalibration slope and offset, Gaussian consistency); (6) the
    laboratory's criteria; (7) warnings (including the calibrator's own fit diagnostics,
    ``warnings_``) and method-specific limitations; (8) provenance. The fold shuffles
    and the interval use the case's seed. Warnings are returned in ``result.warnings``
    and raised once each as :class:`~forensic_lr.errors.ForensicLRWarning`.

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink, R. Stoel, Numerical
       likelihood ratios outputted by LR systems are often based on extrapolation:
       when to stop extrapolating?, Science & Justice 56 (2016) 482-491.
    .. [2] D. A. van Leeuwen, N. Brummer, The distribution of calibrated likelihood-ratios
       in speaker recognition, Interspeech 2013.
    """
    from ..calibration import ELUB, elub_bounds, fit_warnings, make_calibrator
    from ..metrics import evaluate
    from ..uncertainty import cross_validated_llr
    from .verbal import load_scale

    if spec.uncertainty.method == "bayes" and spec.method.calibrator != "bayes":
        raise InputError(
            f"[uncertainty] method = \"bayes\" needs [method] calibrator = \"bayes\", got "
            f"{spec.method.calibrator!r}; use method = \"bootstrap\" or \"none\" instead"
        )
    scale = load_scale(_scale_ref(spec))
    ss, ds, summaries, hashes = _load_background(spec)
    extra, extra_summaries = _load_extra(spec, hashes)
    # the extra scores are options of the calibrator: every CV fold and bootstrap refit
    # (deep copies of `base`) uses them too
    base = make_calibrator(spec.method.calibrator, **extra, **spec.method.options)
    template = ELUB(copy.deepcopy(base)) if spec.method.elub else base
    sign = -1.0 if spec.evidence.score_direction == "lower_is_similar" else 1.0
    x = sign * np.asarray(spec.evidence.values, dtype=np.float64)
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ForensicLRWarning)
        texts += fit_warnings(ss, ds, x)
        fitted = copy.deepcopy(template).fit(ss, ds)
        llr = np.asarray(fitted.llr(x), dtype=np.float64)
        inner = fitted.calibrator if spec.method.elub else fitted
        texts += getattr(inner, "warnings_", ())  # S-cal, unsupervised: fit diagnostics
        llr_unbounded = np.asarray(inner.llr(x), dtype=np.float64)
        interval = _interval(spec, base, fitted, ss, ds, x, progress)
        with warnings.catch_warnings(record=True) as in_folds:
            warnings.simplefilter("always", ForensicLRWarning)
            ss_cv, ds_cv = cross_validated_llr(
                ss, ds, template, folds=spec.validation.folds, seed=spec.uncertainty.seed
            )
        texts += _fold_warnings(in_folds, hasattr(inner, "warnings_"), seen=texts)
        evaluation = evaluate(ss_cv, ds_cv)
        checks = _checks(ss_cv, ds_cv, texts)
    texts += [str(w.message) for w in caught if issubclass(w.category, ForensicLRWarning)]
    for w in caught:  # anything else is not ours to swallow
        if not issubclass(w.category, ForensicLRWarning):
            warnings.warn(w.message, w.category, stacklevel=2)

    bounds = None
    if spec.method.elub:
        bounds = tuple(float(b) * _LN10 for b in fitted.bounds_log10_)
        supported = tuple(float(b) for b in fitted.bounds_log10_)
    else:  # stated in the report even when not applied (REPORTING.md, "Stating the LR")
        supported = _supported_bounds(inner, ss, ds)
    lo_hi = clipped = None
    if interval is not None:
        lo_hi = (interval.llr_low, interval.llr_high)
        clipped = np.zeros(x.size, dtype=bool)
        if bounds is not None:  # the reported LR is bounded, so is its interval
            clipped = (lo_hi[0] < bounds[0]) | (lo_hi[1] > bounds[1])
            lo_hi = (np.clip(lo_hi[0], *bounds), np.clip(lo_hi[1], *bounds))
    both = np.concatenate([ss, ds])
    results = _evidence_results(
        spec, x, llr, llr_unbounded, lo_hi, clipped, interval, scale,
        float(both.min()), float(both.max()),
    )
    if not spec.method.elub:
        texts += _beyond_bounds(results, supported)

    metrics = evaluation.to_dict()
    criteria = check_criteria(spec.validation.criteria, metrics)
    failed = [c for c in criteria if not c.met]
    for c in failed:
        texts.append(
            f"validation criterion {c.name} not met: cross-validated {c.metric} = "
            f"{c.value:.4g}, required {c.comparison} {c.threshold:g}"
        )
    elub_cv = None
    if spec.method.elub:
        low, high = elub_bounds(ss_cv, ds_cv)
        elub_cv = (float(low / _LN10), float(high / _LN10))
    validation = ValidationResult(
        folds=spec.validation.folds,
        seed=spec.uncertainty.seed,
        metrics=metrics,
        criteria=criteria,
        all_criteria_met=(not failed) if criteria else None,
        elub_log10=elub_cv,
        calibration_checks=checks,
    )
    method = MethodResult(
        calibrator=spec.method.calibrator,
        options=dict(spec.method.options),
        params=_jsonable(fitted.params()),
        elub_applied=bool(spec.method.elub),
        elub_log10_lr_low=None if supported is None else supported[0],
        elub_log10_lr_high=None if supported is None else supported[1],
    )
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
        method=method,
        results=results,
        validation=validation,
        warnings=unique,
        limitations=_limitations(spec),
        provenance=Provenance(
            software=software_versions(),
            inputs=hashes,
            case_file_sha256=spec.source_sha256 or _sha256_json(configuration),
            seed=spec.uncertainty.seed,
            configuration=configuration,
        ),
    )
    return CaseRun(
        spec=spec, result=result, ss=ss, ds=ds, ss_llr_cv=ss_cv, ds_llr_cv=ds_cv,
        calibrator=fitted, evidence_scores=x, scale=scale,
    )


def run_case(spec: CaseSpec, progress: Progress | None = None) -> CaseResult:
    """The :class:`~forensic_lr.casework.spec.CaseResult` of :func:`run_case_full`."""
    return run_case_full(spec, progress).result


def _limitations(spec: CaseSpec) -> tuple[str, ...]:
    """Method-specific limitations the report states (not warnings: they always hold)."""
    name = spec.method.calibrator
    if name == "suspect_map" and spec.background.suspect_ss is not None:
        return (
            "The cross-validation validates only the population part of the suspect-adapted "
            "model: the suspect's own same-source scores are the same in every fold, so how "
            "much the adaptation to them helps or harms is not measured by the validation.",
        )
    if name == "unsupervised":
        return (
            "The unsupervised model assumes that the unlabelled scores come from the case "
            "conditions, that the same-source and different-source scores are each normally "
            "distributed there, and that no other kind of comparison is among them. The "
            "cross-validation uses the same unlabelled scores in every fold, so it does not "
            "measure how well the mixture was identified.",
        )
    return ()


def _supported_bounds(calibrator, ss, ds) -> tuple[float, float] | None:
    """The ELUB bounds (log10) the background supports for an unbounded calibrator.

    The same computation as :class:`~forensic_lr.calibration.ELUB` (bounds of the
    calibrator's LLRs of its own training scores), for the report to state when ELUB is
    off; None when they cannot be computed (e.g. infinite LLRs of both signs).
    """
    from ..calibration.elub import elub_bounds_log10

    try:
        low, high = elub_bounds_log10(calibrator.llr(ss), calibrator.llr(ds))
    except ForensicLRError:
        return None
    return float(low), float(high)


def _beyond_bounds(results, supported) -> list[str]:
    """Warnings for evidence LRs outside the ELUB bounds when bounding is off."""
    if supported is None:
        return []
    low, high = supported
    texts = []
    for e in results:
        bound = high if e.log10_lr > high else low if e.log10_lr < low else None
        if bound is not None:
            texts.append(
                f"{e.label}: log10 LR {e.log10_lr:+.2f} lies beyond the empirical bounds the "
                f"validation data support (ELUB, {low:+.2f} to {high:+.2f}); "
                f"ELUB bounding is off ([method] elub = false): with it the LR would be "
                f"reported at log10 LR {bound:+.2f}"
            )
    return texts


def _scale_ref(spec: CaseSpec) -> str:
    """A shipped scale key as is; a ``.json`` scale file resolved against the case folder."""
    name = spec.report.verbal_scale
    return str(spec.resolve(name)) if name.lower().endswith(".json") else name


def _sha256_json(data: dict) -> str:
    """SHA-256 of canonical JSON, for a spec that did not come from a file."""
    import json

    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _jsonable(value: Any) -> Any:
    """Calibrator parameters as plain Python types (numpy scalars and arrays converted)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value
