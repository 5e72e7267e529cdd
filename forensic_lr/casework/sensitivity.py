"""Sensitivity of a case's LR to the choice of method, its settings and the background.

:func:`sensitivity_analysis` answers the question a court asks of any single number: would
another reasonable choice have given another answer? It evaluates each evidence score

* under every calibrator that needs only the background (:func:`forensic_lr.calibration.
  background_only_methods`) and the case's own method, each through
  :func:`forensic_lr.casework.evaluate_unbounded` with no interval (so each value equals
  ``forensic-lr calibrate --method M`` without ``--elub``);
* for the suspect-adapted method (``suspect_map``), under a range of relevance factors and
  the population model (no adaptation);
* with the case's method refitted on bootstrap resamples of the background: by source
  when the background files name sources, else by trial (a fused case refits the fusion
  too, a case from measurements the feature model:
  :class:`~forensic_lr.casework.two_stage.TwoStageBootstrap`);

and says in a sentence how far apart the values lie (in log10 units) and whether the
verbal equivalent changes. Every value is the model's own, unbounded: robustness is a
question about the models, and a bound shared by all rows would hide their differences.
:func:`limit_sensitivity` adds the case's ELUB bound, which the summary then states
beside them.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._numbers import LN10, format_log10, signed_log10
from ..calibration import CALIBRATORS, ELUB, background_only_methods
from ..calibration.elub import elub_bounds_log10
from ..errors import ForensicLRError
from ..i18n.messages import english
from ..io.scores import orient
from ..records import Message, Sensitivity, SensitivityBootstrap, SensitivityRow
from ..resampling import (
    CHUNK_DRAWS,
    DEFAULT_SEED,
    bootstrap_index_chunks,
    replicate_counts,
    source_codes,
)
from .evidence import evaluate_unbounded, rule_message
from .verbal import BelowFirstBand, VerbalScale, format_lr, verbal_equivalent

__all__ = [
    "RELEVANCE_FACTORS", "background_bootstrap", "limit_sensitivity", "sensitivity_analysis",
]

#: Relevance factors tried for the suspect-adapted method (plus the case's own).
RELEVANCE_FACTORS = (2.0, 4.0, 8.0, 16.0, 32.0)
#: Bootstrap replicates of the background refit (each refits the method once).
DEFAULT_REFITS = 200


def _evaluate(ss, ds, scores, *, calibrator, options, extra, direction):
    """Unbounded log10 LRs of ``scores`` (None each when the method cannot be fitted) and a
    note."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = evaluate_unbounded(
                ss, ds, scores, calibrator=calibrator, options=options, extra=extra,
                direction=direction, interval="none",
            ).record
    except ForensicLRError as exc:
        return (None,) * len(scores), f"could not be fitted: {exc}"
    return tuple(e.log10_lr for e in record.results), ""


def _levels(values: Sequence[float | None], scale: VerbalScale,
            below_first_band: BelowFirstBand) -> tuple[str, ...]:
    return tuple(
        "" if v is None else verbal_equivalent(v, scale, below_first_band=below_first_band).level
        for v in values
    )


def _refits_by_hook(template, ss, ds, x, n: int, rng) -> np.ndarray | None:
    """log10 LRs at ``x`` of ``n`` trial-bootstrap refits through the method's vectorised
    hooks (None when it has none); NaN rows for replicates that fail.

    The hook refits every replicate at once on the draws of
    :func:`~forensic_lr.resampling.bootstrap_index_chunks` (each equal to a looped ``fit``
    to about 1e-9). With ELUB, a replicate's bounds are those of its own training LLRs,
    as :class:`~forensic_lr.calibration.ELUB` computes them: its LLRs at every background
    score, picked by that replicate's draws (reproduced from a copy of the generator).
    A method with ``bootstrap_elub`` (kde) returns each replicate's bounds itself, from
    its LLRs at the scores it drew without handing them over. A method with
    ``bootstrap_fits`` (:mod:`forensic_lr.calibration.bootstrap_fits`) is
    fitted once for all replicates and evaluated in blocks of replicates; one with only
    ``bootstrap_llr`` is asked for blocks of replicates in turn. Either way the LLR matrix
    stays near :data:`~forensic_lr.resampling.CHUNK_DRAWS` values.
    """
    bounded = isinstance(template, ELUB)
    inner = copy.deepcopy(template.calibrator if bounded else template)
    if not hasattr(inner, "bootstrap_llr"):
        return None
    if bounded and hasattr(inner, "bootstrap_elub"):  # each replicate's bounds directly
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            llr, bounds = inner.bootstrap_elub(ss, ds, x, n=n, rng=rng)
        return np.clip(llr, bounds[:, :1] * LN10, bounds[:, 1:] * LN10) / LN10
    at = np.concatenate([x, ss, ds]) if bounded else x
    block = max(1, CHUNK_DRAWS // at.size)
    fits = None
    if hasattr(inner, "bootstrap_fits"):
        replicates = _each_replicate(copy.deepcopy(rng), n, ss.size, ds.size)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            fits = inner.bootstrap_fits(ss, ds, n=n, rng=rng)
    out = np.full((n, x.size), np.nan)
    for start in range(0, n, block):
        k = min(block, n - start)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if fits is None:
                replicates = _each_replicate(copy.deepcopy(rng), k, ss.size, ds.size)
                llr = np.asarray(inner.bootstrap_llr(ss, ds, at, n=k, rng=rng), np.float64)
            else:
                llr = fits.llr(at, np.arange(start, start + k))
        rows = llr[:, :x.size]
        if bounded:
            for row, (i_ss, i_ds) in enumerate(itertools.islice(replicates, k)):
                own = llr[row, x.size:]
                if not (np.isnan(rows[row]).any() or np.isnan(own).any()):
                    low, high = elub_bounds_log10(own[i_ss], own[ss.size + i_ds])
                    rows[row] = np.clip(rows[row], low * LN10, high * LN10)
        out[start:start + k] = rows / LN10
    return out


def _each_replicate(rng, n: int, n_ss: int, n_ds: int):
    """``(idx_ss, idx_ds)`` of each of ``n`` replicates, as the hooks draw them."""
    for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, n_ss, n_ds):
        yield from zip(idx_ss, idx_ds, strict=True)


def background_bootstrap(
    template, ss, ds, x, *, sources=None, n: int = DEFAULT_REFITS, level: float = 0.95,
    seed: int = DEFAULT_SEED, replicates=None,
) -> SensitivityBootstrap:
    """Refit ``template`` on ``n`` bootstrap resamples of the background; LR quantiles at ``x``.

    Parameters
    ----------
    template : Calibrator
        The unfitted method as the case uses it (ELUB-wrapped when bounding is on); it is
        copied, never modified.
    ss, ds : numpy.ndarray
        Background scores, score-like.
    x : numpy.ndarray
        Evidence scores, score-like.
    sources : (ss_sources, ds_sources), optional
        Source ids of each trial (shape ``(n,)`` or ``(n, 2)``): resample sources
        instead of trials.
    n, level, seed
        Replicates, quantile level, seed of :func:`numpy.random.default_rng`.
    replicates : callable(template, n, seed), optional
        Natural-log LLRs at the evidence of ``n`` refits of a whole system of which
        ``ss``, ``ds`` are one stage (a fused case's fusion
        or a measured case's feature model, then the calibration,
        :class:`~forensic_lr.casework.two_stage.TwoStageBootstrap`), by source when
        ``sources`` are given: used instead of refitting ``template`` alone.

    Returns
    -------
    SensitivityBootstrap
        The ``(1 - level) / 2``, 0.5 and ``(1 + level) / 2`` quantiles of log10 LR per
        evidence score over the replicates that could be fitted (a replicate with a class
        empty or constant, or whose fit fails, is counted in ``n_failed``).
    """
    rng = np.random.default_rng(seed)
    codes = None
    if sources is not None:
        c_ss, c_ds, k = source_codes(sources[0], sources[1], ss.size, ds.size)
        codes = (c_ss, c_ds, k)
    if replicates is not None:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = replicates(template, n, seed) / LN10
    else:
        out = None if codes is not None else _refits_by_hook(template, ss, ds, x, n, rng)
    if out is None:  # by source, or a method without a vectorised hook: refit in a loop
        out = np.full((n, x.size), np.nan)
        # each resample is built in ascending order (the same scores, counted alike): the
        # refit and the bound's evaluation at its own scores then read memory in order
        by_ss, by_ds = np.argsort(ss, kind="stable"), np.argsort(ds, kind="stable")
        ss_sorted, ds_sorted = ss[by_ss], ds[by_ds]
        for r in range(n):
            w_ss, w_ds = replicate_counts(rng, ss.size, ds.size, codes)
            s, d = np.repeat(ss_sorted, w_ss[by_ss]), np.repeat(ds_sorted, w_ds[by_ds])
            if s.size < 2 or d.size < 2 or s.min() == s.max() or d.min() == d.max():
                continue
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    out[r] = copy.deepcopy(template).fit(s, d).llr(x) / LN10
            except ForensicLRError:
                continue
    ok = ~np.isnan(out).any(axis=1)
    if not ok.any():
        raise ForensicLRError("no bootstrap resample of the background could be fitted")
    q = np.quantile(out[ok], [(1 - level) / 2, 0.5, (1 + level) / 2], axis=0)
    low, mid, high = (tuple(float(v) for v in row) for row in q)
    return SensitivityBootstrap(
        by="trial" if codes is None else "source", n=n, n_failed=int((~ok).sum()),
        level=float(level), seed=int(seed), n_sources=None if codes is None else int(codes[2]),
        log10_lr_low=low, log10_lr_median=mid, log10_lr_high=high,
        collapsed=tuple(
            signed_log10(a) == signed_log10(b) for a, b in zip(low, high, strict=True)
        ),
    )


def sensitivity_analysis(
    ss,
    ds,
    scores: Sequence[float],
    *,
    calibrator: str,
    options: Mapping[str, Any] | None = None,
    extra: Mapping[str, np.ndarray] | None = None,
    direction: str = "higher_is_similar",
    elub: bool = False,
    scale: VerbalScale,
    below_first_band: BelowFirstBand = "number",
    labels: Sequence[str],
    template=None,
    sources=None,
    n: int = DEFAULT_REFITS,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
    replicates=None,
) -> Sensitivity:
    """The LR of each evidence score under other reasonable choices (see the module notes).

    Parameters
    ----------
    ss, ds : array_like
        Background scores, score-like (direction applied).
    scores : sequence of float
        Evidence scores as measured (``direction`` is applied here, as in
        :func:`~forensic_lr.casework.evaluate_evidence`).
    calibrator, options, extra, direction
        The case's method, as given to :func:`~forensic_lr.casework.evaluate_evidence`.
    elub : bool
        Whether the case limits its LRs to the ELUB (recorded; the values here are
        unbounded, see :func:`limit_sensitivity`).
    scale : VerbalScale
        The case's verbal scale (to say whether the verbal equivalent changes).
    below_first_band : {"number", "neutral", "limited"}
        The laboratory's wording below the scale's first band, as in the conclusion.
    labels : sequence of str
        A name per evidence score.
    template : Calibrator, optional
        The case's unfitted method (unbounded) for the background bootstrap; None: no
        bootstrap.
    sources : (ss_sources, ds_sources), optional
        Source ids: the bootstrap resamples sources.
    n, level, seed
        Bootstrap replicates, quantile level and seed.
    replicates : callable, optional
        The refits of the whole system (:func:`background_bootstrap`).

    Returns
    -------
    Sensitivity

    Notes
    -----
    Alternative calibrators use their default options and no extra inputs (the case's
    method keeps its own). The spread is ``max - min`` of log10 LR over every row
    (calibrators and relevance factors) per evidence score; ``levels_reached`` the distinct
    verbal levels of those values, from the lowest value up.
    """
    options, extra = dict(options or {}), dict(extra or {})
    ss, ds = np.asarray(ss, dtype=np.float64), np.asarray(ds, dtype=np.float64)
    scores = [float(v) for v in scores]
    common = {"direction": direction}
    rows = []
    methods = list(background_only_methods())
    if calibrator not in methods:
        methods.append(calibrator)
    case_values: tuple = ()
    for name in methods:
        own = name == calibrator
        values, note = _evaluate(ss, ds, scores, calibrator=name,
                                 options=options if own else {},
                                 extra=extra if own else {}, **common)
        if own:
            case_values = values
        rows.append(SensitivityRow(
            group="calibrator", label=name, calibrator=name,
            options=options if own else {}, log10_lr=values,
            levels=_levels(values, scale, below_first_band),
            is_case=own, note=note, description=CALIBRATORS[name].describe(),
        ))
    if calibrator == "suspect_map":
        rows += _relevance_rows(ss, ds, scores, options, extra, scale, below_first_band, common)
    boot = None
    if template is not None:
        x = orient(np.asarray(scores, dtype=np.float64), direction)
        try:
            boot = background_bootstrap(template, ss, ds, x, sources=sources, n=n,
                                        level=level, seed=seed, replicates=replicates)
        except ForensicLRError:
            boot = None
    spread, reached = [], []
    for i in range(len(scores)):
        vals = [r.log10_lr[i] for r in rows if r.log10_lr[i] is not None]
        spread.append(max(vals) - min(vals) if vals else None)
        ordered = sorted((r.log10_lr[i], r.levels[i]) for r in rows if r.log10_lr[i] is not None)
        reached.append(tuple(dict.fromkeys(level for _, level in ordered)))
    result = Sensitivity(
        labels=tuple(labels), elub_applied=bool(elub), case_calibrator=calibrator,
        case_log10_lr=tuple(case_values), rows=tuple(rows),
        bootstrap=boot, spread_log10=tuple(spread), levels_reached=tuple(reached),
    )
    return result.model_copy(update=_summaries(result))


def _relevance_rows(ss, ds, scores, options, extra, scale, below_first_band,
                    common) -> list[SensitivityRow]:
    """suspect_map under each relevance factor and the population model."""
    case_r = float(options.get("relevance", 16.0))
    factors = sorted(set(RELEVANCE_FACTORS) | {case_r})
    rows = []
    for r in factors:
        opts = {**options, "relevance": r}
        values, note = _evaluate(ss, ds, scores, calibrator="suspect_map", options=opts,
                                 extra=extra, **common)
        rows.append(SensitivityRow(
            group="relevance", label=f"relevance r = {r:g}", calibrator="suspect_map",
            options=opts, log10_lr=values, levels=_levels(values, scale, below_first_band),
            is_case=r == case_r, note=note,
        ))
    # the population model the adaptation starts from: suspect_map without suspect scores
    values, note = _evaluate(ss, ds, scores, calibrator="gaussian", options={}, extra={},
                             **common)
    rows.append(SensitivityRow(
        group="relevance", label="population model (no adaptation)", calibrator="gaussian",
        log10_lr=values, levels=_levels(values, scale, below_first_band), note=note,
    ))
    return rows


def limit_sensitivity(s: Sensitivity, bounds_log10: tuple[float, float] | None,
                      rule: str = "elub") -> Sensitivity:
    """``s`` with the case's bounds (log10, of the bounds rule ``rule``; ELUB by default)
    stated beside its unbounded values (None: no bound applied) and its summary said again
    with them."""
    s = s.model_copy(update={"elub_log10": bounds_log10, "bounds_rule": rule})
    return s.model_copy(update=_summaries(s))


def _summaries(s: Sensitivity) -> dict:
    """The record's ``summary`` (English) and ``summary_messages`` (codes)."""
    return {"summary": summarise(s), "summary_messages": summary_messages(s)}


def summarise(s: Sensitivity) -> tuple[str, ...]:
    """One paragraph per evidence score on how much its LR depends on the choices made
    (English; :func:`summary_messages` gives its sentences as codes)."""
    return tuple(" ".join(english(m.code, **m.params) for m in paragraph)
                 for paragraph in summary_messages(s))


def summary_messages(s: Sensitivity) -> tuple[tuple[Message, ...], ...]:
    """The sentences of :func:`summarise`'s paragraphs as codes and parameters."""
    out = []
    n_methods = sum(1 for r in s.rows if r.group == "calibrator" and r.log10_lr[0] is not None)
    has_relevance = any(r.group == "relevance" for r in s.rows)
    for i, label in enumerate(s.labels):
        vals = [r.log10_lr[i] for r in s.rows if r.log10_lr[i] is not None]
        if not vals:
            continue
        levels = s.levels_reached[i]
        sentences = [Message(code="sensitivity.across", params={
            "label": label, "n": str(n_methods),
            "relevance_code": "sensitivity.across.relevance" if has_relevance else "",
            "low": signed_log10(min(vals)), "high": signed_log10(max(vals)),
            "spread": format_log10(s.spread_log10[i], 2),
            "factor": format_lr(s.spread_log10[i]),
            "levels_code": ("sensitivity.levels.same" if len(levels) == 1
                            else "sensitivity.levels.changes"),
            "reached_levels": "\n".join(levels)})]
        b = s.bootstrap
        if b is not None:
            common = {"n": str(b.n - b.n_failed),
                      "by_code": f"sensitivity.by.{'source' if b.by == 'source' else 'comparison'}",
                      "low": signed_log10(b.log10_lr_low[i])}
            if b.collapsed[i]:
                sentences.append(Message(code="sensitivity.bootstrap.collapsed", params=common))
            else:
                sentences.append(Message(code="sensitivity.bootstrap.range", params={
                    **common, "level": f"{100 * b.level:g} %",
                    "high": signed_log10(b.log10_lr_high[i])}))
        if s.elub_log10 is not None:
            low, high = s.elub_log10
            beyond = [v for v in vals if not low <= v <= high]
            params = {"low": signed_log10(low), "high": signed_log10(high)}
            if beyond:
                params.update({"beyond": str(len(beyond)), "n": str(len(vals))})
            code, params = rule_message(
                f"sensitivity.elub.{'beyond' if beyond else 'within'}", s.bounds_rule, params)
            sentences.append(Message(code=code, params=params))
        out.append(tuple(sentences))
    return tuple(out)
