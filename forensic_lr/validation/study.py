"""The validation study: every calibration method cross-validated on one score set.

For a laboratory validating a method (Meuwly, Ramos and Haraksim 2017): each method's
out-of-fold LLRs are evaluated, the lab's criteria are checked for each, the best method
(lowest cross-validated Cllr) fills the validation matrix, and optionally its metrics get
bootstrap intervals and it is compared, trial by trial, with every other method.
:func:`run_validation_study` is the only implementation; ``forensic-lr validate --report``
and the Python API call it, and :func:`forensic_lr.report.validation.build_validation_report`
renders its record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import renamed_keyword, sources_pair
from ..calibration import default_study_methods
from ..calibration.curves import ModelCurves, model_curves
from ..errors import InputError
from ..i18n import N_
from ..i18n.classes import ClassNames
from ..metrics.catalogue import metric
from ..provenance import software_versions
from ..records import (
    CriterionResult,
    MethodDescription,
    StatedBounds,
    StudyMethod,
    ValidationStudy,
)
from ..resampling import DEFAULT_SEED, Progress
from .bootstrap import bootstrap_metrics
from .compare import compare_systems
from .method import (
    LLR_RULES,
    Method,
    stated_bounds,
    supported_range,
    validate_llrs,
    validate_method,
)
from .rates import misleading_rates

__all__ = ["ABOUT_KEYS", "AS_GIVEN", "MATRIX", "StudyArrays", "run_validation_study"]

#: The "method" that validates a system's own LLRs as they are (no calibration).
AS_GIVEN = "none"
_AS_GIVEN_DESCRIPTION = MethodDescription(
    name=AS_GIVEN,
    title="The system's own likelihood ratios, validated as given",
    summary=(
        "The inputs are the natural-log LRs the system itself reported; no calibration was "
        "fitted, so no cross-validation is needed: every metric describes these LRs as they are."
    ),
)

#: The validation matrix rows after Meuwly et al. (2017, table 1): characteristic,
#: metric, graphic. devPAV and the rates of misleading evidence are additions of
#: forensic-lr; metric None marks a characteristic this study cannot assess. The texts are
#: marked for the report catalogue (printed in the report's language).
MATRIX = (
    (N_("accuracy"), "cllr", N_("ECE plot")),
    (N_("discriminating power"), "min_cllr", N_("ECE plot (after PAV), DET plot")),
    (N_("discriminating power"), "eer", N_("DET plot")),
    (N_("calibration"), "cllr_cal", N_("ECE plot, Tippett plot")),
    (N_("calibration"), "devpav", N_("PAV plot")),
    (N_("misleading evidence"), "rmep", N_("Tippett plot")),
    (N_("misleading evidence"), "rmed", N_("Tippett plot")),
    (N_("robustness"), None, N_("ECE, DET and Tippett plots")),
    (N_("coherence"), None, N_("ECE and DET plots")),
    (N_("generalisation"), None, N_("ECE, DET and Tippett plots")),
)
#: ``about`` keys: the study's identity and data description (all optional text).
ABOUT_KEYS = ("title", "laboratory", "analyst", "date", "data")


@dataclass(frozen=True, eq=False)
class StudyArrays:
    """The arrays behind a study's figures (not part of its JSON record).

    ``llrs`` maps each method to its out-of-fold ``(ss_llr, ds_llr)``; ``best_fitted`` is
    the best method fitted on all scores and ``best_curves`` that model evaluated once on a
    grid of scores (:func:`~forensic_lr.calibration.curves.model_curves`: the score-density
    figure); both None for LLRs validated as given.
    """

    ss: np.ndarray
    ds: np.ndarray
    llrs: dict[str, tuple[np.ndarray, np.ndarray]]
    best_fitted: Any
    best_curves: ModelCurves | None = None


def run_validation_study(
    ss,
    ds,
    *,
    methods: Sequence[str] | None = None,
    folds: int | None = 5,
    seed: int = DEFAULT_SEED,
    criteria: Mapping[str, float | None] | Any = None,
    inputs: Mapping[str, str] | None = None,
    ss_sources=None,
    ds_sources=None,
    metric_intervals: Mapping[str, Any] | None = None,
    about: Mapping[str, str | None] | None = None,
    classes: ClassNames | None = None,
    data_role: str | None = None,
    criteria_rule: str = "estimate_and_bound",
    level: float | None = None,
    progress: Progress | None = None,
    groups: tuple[np.ndarray, np.ndarray] | None = None,
    intervals: Mapping[str, Any] | None = None,
) -> ValidationStudy:
    """Cross-validate each method on raw scores and collect the study's record.

    Parameters
    ----------
    ss, ds : array_like
        Raw same-source and different-source scores (higher supports Hp).
    methods : sequence of str, calibrator or Method, optional
        Calibrators to compare (default: the basic methods,
        :func:`forensic_lr.calibration.default_study_methods`), by name (default options),
        as calibrator objects (:func:`~forensic_lr.calibration.make_calibrator`, their own
        options) or as a :class:`~forensic_lr.validation.method.Method` (options, extra inputs and
        ELUB as a case applies them: ``forensic-lr validate --case``). :data:`AS_GIVEN`
        (``"none"``): ``ss`` and ``ds`` are the system's own natural-log LRs, validated as
        they are.
    folds : int or None
        Folds of the cross-validation; None with sources: leave one source out.
    seed : int
        Seed of the fold assignment (default that of a case).
    criteria : mapping or :class:`~forensic_lr.casework.spec.Criteria`, optional
        Laboratory criteria (``cllr_max = 0.5``, ...), checked for every method against
        its value and, by ``criteria_rule`` (:data:`forensic_lr.validation.criteria.RULES`),
        its one-sided 95 % bound: rates always have one (exact binomial, or the bootstrap
        by source), the other metrics when ``metric_intervals`` are asked for (each method is
        then bootstrapped); without, they are judged on their value and the record says so.
    inputs : mapping, optional
        Input file name -> SHA-256, recorded.
    ss_sources, ds_sources : array_like, optional
        Source ids per trial: the folds are then by source (no source on both sides).
    metric_intervals : mapping, optional
        Keyword arguments of :func:`forensic_lr.validation.bootstrap_metrics` (e.g.
        ``{"n": 1000, "seed": 1}``): bootstrap intervals of the best method's metrics and
        a paired comparison of the best method with each other one
        (:func:`forensic_lr.validation.compare_systems`), which says whether its lead is
        larger than the sampling uncertainty.
    about : mapping, optional
        The study's ``title``, ``laboratory``, ``analyst``, ``date`` and ``data``
        (population, conditions, the system that produced the scores).
    classes : ClassNames, optional
        What the trials are: source comparisons (default) or trials of propositions that
        are not about sources, named by the laboratory's labels (the report's wording,
        :mod:`forensic_lr.i18n.classes`); recorded in the study.
    data_role : {"development", "validation"}, optional
        What these data were to the method, shown in the validation matrix's data column.
        Default: "development" when several methods are compared (the best is chosen on
        these data, so selection and evaluation use the same data), else "validation".
    level : float, optional
        Level of the calibration checks' and the rates' intervals without
        ``metric_intervals`` (default 0.95); with them, theirs.
    progress : callable(done, total), optional
        Called after each method's cross-validation.
    groups, intervals
        Deprecated spellings of ``(ss_sources, ds_sources)`` and ``metric_intervals``
        (:class:`DeprecationWarning`).

    Returns
    -------
    ValidationStudy
        The record (``to_json()`` is ``validation.json``); the arrays behind its figures
        are in :attr:`ValidationStudy.arrays`.

    Notes
    -----
    Each method is validated by :func:`~forensic_lr.validation.validate_method`, the code
    that validates a case's method in ``forensic-lr run``: the same method, folds and seed
    give the same metrics, checks, criteria and ELUB.
    """
    about = {k: str(v) for k, v in (about or {}).items() if v}
    unknown = sorted(set(about) - set(ABOUT_KEYS))
    if unknown:
        raise InputError(f"unknown 'about' key(s) {unknown}; use {', '.join(ABOUT_KEYS)}")
    groups = sources_pair(ss_sources, ds_sources, groups, function="run_validation_study")
    intervals = renamed_keyword(metric_intervals, intervals, old="intervals",
                                new="metric_intervals", function="run_validation_study")
    methods_given = tuple(methods or default_study_methods())
    specs = tuple(
        None if isinstance(m, str) and m == AS_GIVEN else m if isinstance(m, Method)
        else Method.of(m, elub=False)
        for m in methods_given
    )
    methods = tuple(AS_GIVEN if m is None else m.calibrator for m in specs)
    if intervals is not None:
        level = float(intervals.get("level", 0.95))
    elif level is None:
        level = 0.95
    ss, ds = np.asarray(ss, float), np.asarray(ds, float)
    if AS_GIVEN in methods and len(methods) > 1:
        raise InputError("LLRs validated as given (method none) cannot be compared with "
                         "calibrators of raw scores in one study; run them separately")
    if data_role not in (None, "development", "validation"):
        raise InputError(f"data_role must be development or validation, got {data_role!r}")
    rows, llrs = [], {}
    ss_src, ds_src = (None, None) if groups is None else groups
    # each method bootstrapped when the criteria are judged on their bounds
    judged = intervals if criteria is not None else None
    for i, spec in enumerate(specs):
        common = {"criteria": criteria, "criteria_rule": criteria_rule, "level": level,
                  "metric_intervals": judged, "ss_sources": ss_src, "ds_sources": ds_src}
        if spec is None:
            validated = validate_llrs(ss, ds, **common)
            description = _AS_GIVEN_DESCRIPTION
        else:
            validated = validate_method(ss, ds, spec, folds=folds, seed=seed, **common)
            description = type(spec.unfitted()).describe()
        name = AS_GIVEN if spec is None else spec.calibrator
        bounds = supported_range(validated.ss_llr, validated.ds_llr,
                                 "as given" if spec is None else "cross-validated")
        rows.append(StudyMethod(**dict(validated.record), method=name, description=description,
                                supported_range=bounds,
                                stated_bounds=_stated(spec, validated.record, ss, ds)
                                if isinstance(methods_given[i], Method) else None))
        llrs[name] = (validated.ss_llr, validated.ds_llr)
        if progress is not None:
            progress(i + 1, len(specs))
    best = min(rows, key=lambda r: r.metrics["cllr"])
    role = data_role or ("development" if len(methods) > 1 else "validation")
    extra: dict[str, Any] = {}
    if intervals is not None:
        extra["intervals"] = best.metric_intervals or bootstrap_metrics(
            *llrs[best.method], ss_sources=ss_src, ds_sources=ds_src, **intervals
        ).to_dict()
        extra["comparisons"] = tuple(
            compare_systems(
                *llrs[best.method], *llrs[other], names=(best.method, other),
                ss_sources=ss_src, ds_sources=ds_src, **intervals,
            ).to_dict()
            for other in methods
            if other != best.method
        )
    if criteria is not None and hasattr(criteria, "model_dump"):
        criteria = criteria.model_dump(exclude_none=True)
    named = classes or ClassNames()
    study = ValidationStudy(
        about=about,
        classes=named.scheme,
        hp_class=named.hp or None,
        hd_class=named.hd or None,
        n_ss=int(ss.size),
        n_ds=int(ds.size),
        folds=None if AS_GIVEN in methods else folds,
        seed=seed,
        folds_by="trial" if groups is None else "source",
        inputs=dict(inputs or {}),
        criteria=None if criteria is None else {
            k: float(v) for k, v in criteria.items() if v is not None
        },
        methods=tuple(rows),
        best_method=best.method,
        calibration_checks=best.calibration_checks,
        validation_matrix=_matrix(best, role),
        software=software_versions(),
        data_role=role,
        selected_on_same_data=len(methods) > 1,
        rates=tuple(
            misleading_rates(
                *llrs[best.method], level=level, metric_intervals=extra.get("intervals"),
            )
        ),
        **extra,
    )
    best_spec = specs[methods.index(best.method)]
    fitted = None if best_spec is None else best_spec.unfitted().fit(ss, ds)
    study._arrays = StudyArrays(ss, ds, llrs, fitted,
                                None if fitted is None else model_curves(fitted, ss, ds))
    return study


def _stated(method: Method, record, ss: np.ndarray, ds: np.ndarray) -> StatedBounds:
    """The bound the case report of a case with this method states
    (:func:`~forensic_lr.validation.method.stated_bounds`: its rule, of the cross-validated
    LLRs of ``record`` or of the method fitted on all scores)."""
    llr_rule = method.bounds in LLR_RULES
    return StatedBounds(
        rule=method.bounds, source=method.elub_from if llr_rule else None,
        log10=stated_bounds(method, record.elub_log10,
                            lambda: method.unfitted().fit(ss, ds), ss, ds))


def _matrix(row: StudyMethod, data_role: str) -> tuple[dict[str, Any], ...]:
    """Validation matrix rows for the best method (criterion and decision if the lab set one).

    ``data`` is the matrix's data column (Meuwly et al. 2017): whether the results come
    from development data (the method was chosen or tuned on them) or validation data.

    Characteristics without a metric (robustness, coherence, generalisation) need data
    under other conditions than the one score set of this study: marked "not assessed".
    """
    by_metric: dict[str, CriterionResult] = {c.metric: c for c in row.criteria}
    out = []
    for characteristic, key, graphic in MATRIX:
        if key is None:
            out.append({"characteristic": characteristic, "metric": None, "graphic": graphic,
                        "criterion": "", "result": None, "decision": "not assessed",
                        "data": ""})
            continue
        c = by_metric.get(key)
        threshold = "" if c is None else (
            f"{100 * c.threshold:g} %" if metric(key).fmt == "percent" else f"{c.threshold:g}"
        )
        out.append(
            {
                "characteristic": characteristic,
                "metric": key,
                "graphic": graphic,
                "criterion": f"{c.comparison} {threshold}" if c else "not set",
                "result": row.metrics[key],
                "decision": ("met" if c.met else "not met") if c else "no criterion",
                "data": data_role,
            }
        )
    return tuple(out)
