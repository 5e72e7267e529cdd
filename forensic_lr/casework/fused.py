"""A case's ``[fusion]``: read each system's score column, fuse, record the weights.

The case file's section (:class:`~forensic_lr.casework.spec.FusionSection`) names one score
column per system in the background files and gives the case's comparisons as one score
per system. Logistic-regression fusion
(:class:`~forensic_lr.calibration.fusion.LogisticFusion`) turns them into one LLR per
comparison: the case file loader calls :func:`case_fused_scores` (the fusion fitted on all
background comparisons gives the evidence values) and
:func:`~forensic_lr.casework.inputs.load_background` calls :func:`fused_background` (each
background comparison's value from a fusion fitted without its fold, by source when the
files name sources, with the case's folds and seed: the scores ``[method]`` calibrates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..calibration.fusion import LogisticFusion
from ..errors import InputError
from ..io.scores import ScoreSet, load_scores
from ..metrics import evaluate_llrs
from ..records import FusedSystem, FusionModel
from ..uncertainty import cross_validated_llr

__all__ = ["FusedBackground", "case_fused_scores", "fused_background", "read_systems"]


@dataclass(frozen=True, eq=False)
class FusedBackground:
    """The background as the case uses it and the record of the fusion."""

    data: ScoreSet      # out-of-fold fused LLRs, sources and files of the score files
    record: FusionModel


def read_systems(spec) -> tuple[np.ndarray, np.ndarray, ScoreSet]:
    """``(ss, ds, first)``: the systems' background scores as ``(n, k)`` matrices.

    Each system's column is read by :func:`~forensic_lr.io.scores.load_scores` with the
    case's other reading options (label and source columns, decimal separator, sheet), so a
    file is checked as ``run`` checks any score file; ``first`` is the first system's score
    set (sources and provenance, the same for every column).

    Raises
    ------
    InputError
        Starting ``[background] system COLUMN:`` with the reader's file, line and column.
    """
    bg = spec.background
    if bg.scores is not None:
        paths = {"scores": str(spec.resolve(bg.scores))}
    else:
        paths = {"ss": str(spec.resolve(bg.ss)), "ds": str(spec.resolve(bg.ds))}
    sets = []
    for column in spec.fusion.systems:
        try:
            sets.append(load_scores(**paths, **{**bg.reading(), "score_column": column}))
        except InputError as exc:
            raise InputError(f"[background] system {column!r}: {exc}") from None
    return (np.column_stack([s.ss for s in sets]), np.column_stack([s.ds for s in sets]),
            sets[0])


def _fusion(spec) -> LogisticFusion:
    section = spec.fusion
    return LogisticFusion(prior=section.prior, l2=section.l2,
                          systems=[str(s) for s in section.systems])


def case_fused_scores(spec) -> tuple[float, ...]:
    """The fused LLR of each of the case's comparisons, by the fusion fitted on all
    background comparisons."""
    ss, ds, _ = read_systems(spec)
    fitted = _fusion(spec).fit(ss, ds)
    return tuple(float(v) for v in fitted.llr(np.array(spec.fusion.scores, dtype=np.float64)))


def fused_background(spec) -> FusedBackground:
    """The background's out-of-fold fused LLRs and the record of the fusion.

    The folds are the case's (``[validation] folds`` and ``[uncertainty] seed``), by source
    when the files name sources; each system alone is calibrated by logistic regression in
    the same folds, for the record's comparison of each system with the fusion.
    """
    ss, ds, first = read_systems(spec)
    folds, seed = spec.validation.folds, spec.uncertainty.seed
    sources = {"ss_sources": first.ss_sources, "ds_sources": first.ds_sources}
    fusion = _fusion(spec)
    fused_ss, fused_ds = cross_validated_llr(ss, ds, fusion, folds, seed, **sources)
    fitted = fusion.fit(ss, ds)
    intercept, weights = fitted.coefficients()
    systems = []
    for j, name in enumerate(fitted.params()["systems"]):
        alone = evaluate_llrs(*cross_validated_llr(ss[:, j], ds[:, j], "logistic", folds, seed,
                                                   **sources), check=False)
        systems.append(FusedSystem(
            name=name, weight=float(weights[j]), standardised_weight=float(fitted.theta_[j + 1]),
            cllr=alone.cllr, min_cllr=alone.min_cllr, eer=alone.eer))
    together = evaluate_llrs(fused_ss, fused_ds, check=False)
    section = spec.fusion
    described = LogisticFusion.describe()
    record = FusionModel(
        title=described.title, summary=described.summary, equation=described.equation,
        reference=described.reference, prior=section.prior, l2=section.l2,
        intercept=intercept, systems=tuple(systems),
        fused={"cllr": together.cllr, "min_cllr": together.min_cllr, "eer": together.eer},
        folds_by="trial" if not first.has_sources else "source",
        evidence=tuple(tuple(row) for row in section.scores),
        labels=spec.evidence.labels or (),
    )
    data = ScoreSet(ss=fused_ss, ds=fused_ds, files=dict(first.files),
                    ss_sources=first.ss_sources, ds_sources=first.ds_sources,
                    inputs=first.inputs)
    return FusedBackground(data, record)
