"""The metrics of a set of LLRs as given: ``forensic-lr validate --ss --ds`` in one function.

:func:`validate_llr_set` evaluates a system's own natural-log LRs (no calibration, no
cross-validation): the metric summary (:func:`forensic_lr.metrics.evaluate_llrs`), the
normalised actual and minimum DCF at chosen target priors, optional bootstrap intervals
(:func:`~forensic_lr.validation.bootstrap_metrics`) and the signs that the values are raw
scores rather than LLRs, or given with the classes swapped
(:mod:`forensic_lr.metrics.llr_checks`). The
command line prints its record; the figures of the same LLRs are
:func:`forensic_lr.plots.llr_figures`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from .._checks import renamed_keyword, sources_pair
from ..errors import InputError, RawScoreWarning, SwappedClassesWarning
from ..i18n.spreadsheet import csv_text
from ..metrics import evaluate_llrs
from ..metrics.dcf import dcf, min_dcf
from ..metrics.llr_checks import raw_score_signs, swapped_sign
from ..records import DCFRow, LLRMetrics, MethodMetrics, ValidationStudy
from .bootstrap import bootstrap_metrics
from .method import supported_range

__all__ = ["RANGE_COLUMNS", "metrics_row", "raw_score_warning", "study_method_metrics",
           "validate_llr_set"]

#: The CSV columns of a :class:`~forensic_lr.records.SupportedRange` (log10 LR), written
#: after the metrics: ELUB and invariance-verification bounds, low and high.
RANGE_COLUMNS = ("elub_log10_low", "elub_log10_high", "iv_log10_low", "iv_log10_high")


def raw_score_warning(signs: Sequence[str]) -> str:
    """The warning given when values read as LLRs look like raw scores (``signs`` from
    :func:`~forensic_lr.validation.llr_checks.raw_score_signs`), naming the way out."""
    return (
        "these values do not look like calibrated natural-log LRs (" + "; ".join(signs)
        + "). If they are raw comparison scores, add --calibrate METHOD (e.g. --calibrate "
        "logistic) to calibrate them by cross-validation first; if they are LRs in another "
        "base, give --log-base"
    )


def validate_llr_set(
    ss_llr,
    ds_llr,
    *,
    priors: Sequence[float] = (),
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    metric_intervals: Mapping[str, Any] | None = None,
    ss_sources=None,
    ds_sources=None,
    intervals: Mapping[str, Any] | None = None,
    groups: tuple[Any, Any] | None = None,
) -> LLRMetrics:
    """Metrics, DCF rows, optional bootstrap intervals and warnings of LLRs as given.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    priors : sequence of float
        Target priors ``p`` (each strictly between 0 and 1) at which to give the normalised
        actual and minimum DCF.
    c_miss, c_fa : float
        Positive finite costs of a miss and a false alarm (only their ratio matters).
    metric_intervals : mapping, optional
        Keyword arguments of :func:`~forensic_lr.validation.bootstrap_metrics` (``by``,
        ``n``, ``level``, ``seed``, ``interval``): bootstrap intervals of the metrics.
    ss_sources, ds_sources : array_like, optional
        Source ids per trial, for resampling by source.
    intervals, groups
        Deprecated spellings of ``metric_intervals`` and ``(ss_sources, ds_sources)``
        (:class:`DeprecationWarning`).

    Returns
    -------
    LLRMetrics
        Its JSON is what ``forensic-lr validate --json`` prints.

    Warns
    -----
    SwappedClassesWarning
        The mean same-source LLR lies below the mean different-source one.
    RawScoreWarning
        The values do not look like calibrated LLRs. Each text is also in ``warnings``.

    Notes
    -----
    The normalised DCF at prior :math:`p` is
    :math:`[p\\,c_{miss} P_{miss}(t) + (1-p)\\,c_{fa} P_{fa}(t)] / \\min(p\\,c_{miss},
    (1-p)\\,c_{fa})`, actual at the Bayes threshold
    :math:`t = -\\log(p\\,c_{miss} / ((1-p)\\,c_{fa}))`, minimum over all thresholds
    (Brummer and du Preez 2006; :mod:`forensic_lr.metrics.dcf`).
    """
    intervals = renamed_keyword(metric_intervals, intervals, old="intervals",
                                new="metric_intervals", function="validate_llr_set")
    groups = sources_pair(ss_sources, ds_sources, groups, function="validate_llr_set")
    ss, ds = np.asarray(ss_llr, dtype=float), np.asarray(ds_llr, dtype=float)
    for p in priors:
        if not 0.0 < p < 1.0:
            raise InputError(f"prior {p:g}: a target prior must lie strictly between 0 and 1")
    rows = tuple(
        DCFRow(p_target=p, c_miss=c_miss, c_fa=c_fa,
               dcf=dcf(ss, ds, p, c_miss, c_fa, normalize=True),
               min_dcf=min_dcf(ss, ds, p, c_miss, c_fa, normalize=True))
        for p in priors
    )
    ci = None
    if intervals is not None:
        ss_src, ds_src = (None, None) if groups is None else groups
        ci = bootstrap_metrics(ss, ds, ss_sources=ss_src, ds_sources=ds_src,
                               **intervals).to_dict()
    found = []
    swapped = swapped_sign(ss, ds, what="LLRs")
    if swapped:
        found.append((swapped, SwappedClassesWarning))
    signs = raw_score_signs(ss, ds)
    if signs:
        found.append((raw_score_warning(signs), RawScoreWarning))
    for text, category in found:
        warnings.warn(text, category, stacklevel=2)
    return LLRMetrics(metrics=asdict(evaluate_llrs(ss, ds, check=False)), dcf=rows, ci=ci,
                      warnings=tuple(text for text, _ in found),
                      supported_range=supported_range(ss, ds, "as given"))


def study_method_metrics(
    study: ValidationStudy, *, metric_intervals: Mapping[str, Any] | None = None,
    ss_sources=None, ds_sources=None,
) -> tuple[MethodMetrics, ...]:
    """Each method's cross-validated metrics of a study, with optional bootstrap intervals
    of its out-of-fold LLRs: what ``forensic-lr validate --calibrate/--compare`` prints.

    ``metric_intervals``: keyword arguments of
    :func:`~forensic_lr.validation.bootstrap_metrics`; ``ss_sources``, ``ds_sources``: the
    trials' source ids, for resampling by source. A method validated as given (``"none"``)
    has no folds.
    """
    rows = []
    for m in study.methods:
        cross_validated = m.method != "none"  # "none": the given LLRs, validated as they are
        ci = None
        if metric_intervals is not None:
            ci = bootstrap_metrics(*study.arrays.llrs[m.method], ss_sources=ss_sources,
                                   ds_sources=ds_sources, **metric_intervals).to_dict()
        rows.append(MethodMetrics(
            method=m.method, folds=m.folds if cross_validated else None,
            folds_by=study.folds_by if cross_validated else None, metrics=m.metrics, ci=ci,
            supported_range=m.supported_range, stated_bounds=m.stated_bounds))
    return tuple(rows)


def metrics_row(record: LLRMetrics | MethodMetrics) -> dict[str, Any]:
    """A record's metrics and then its supported range (:data:`RANGE_COLUMNS`; None where a
    bound was not computed): one line of :func:`metrics_csv`."""
    bounds = record.supported_range
    pairs = (None, None) if bounds is None else (bounds.elub_log10, bounds.iv_log10)
    values = [v for pair in pairs for v in (pair or (None, None))]
    return {**record.metrics, **dict(zip(RANGE_COLUMNS, values, strict=True))}


def metrics_csv(rows: Sequence[tuple[str, Mapping[str, Any]]],
                language: str = "en") -> str:
    """Metrics as CSV text: a header ``system,<metric>,...`` and one line per system.

    ``rows`` holds ``(system name, metrics)`` pairs (e.g. ``("logistic",
    MethodMetrics.metrics)``); the columns are the first row's metric keys, in order.
    Numbers are written as Python's shortest round-trip repr (``float(cell)`` gives the
    value back exactly), None as an empty cell, +-inf as ``inf``/``-inf``; lines end in
    ``\\n`` (RFC 4180 quoting where a name needs it). ``language``: the spreadsheet
    conventions of that locale (``;`` and a decimal comma for de, es, fr, nl, sv;
    :func:`forensic_lr.i18n.spreadsheet.csv_text`); English is the comma form.
    """
    if not rows:
        raise InputError("no metrics to write")
    keys = list(rows[0][1])
    return csv_text([["system", *keys],
                     *([name, *(metrics.get(k) for k in keys)] for name, metrics in rows)],
                    language)
