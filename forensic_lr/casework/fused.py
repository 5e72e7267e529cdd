"""A case's ``[fusion]``: read the systems' score columns, fuse, record the weights.

The case file's section (:class:`~forensic_lr.casework.spec.FusionSection`) names one score
column per system in the background files and gives the case's comparisons as one score
per system. Logistic-regression fusion
(:class:`~forensic_lr.calibration.fusion.LogisticFusion`) turns them into one LLR per
comparison. The case file loader calls :func:`fused_inputs`: every background file is
read once (all systems' columns in one pass) and the fusion is fitted once on all
background comparisons; that fit gives the evidence values, and the loaded spec keeps both
(``CaseSpec.fused_inputs``). :func:`~forensic_lr.casework.inputs.load_background` then
calls :func:`fused_background` (each background comparison's value from a fusion fitted
without its fold, by source when the files name sources, with the case's folds and seed:
the scores ``[method]`` calibrates), which reuses them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..calibration.fusion import LogisticFusion, fusion_refits
from ..errors import ForensicLRError, InputError
from ..i18n.messages import english
from ..io.paired import load_system_scores
from ..io.scores import ScoreSet
from ..metrics import evaluate_llrs
from ..records import FusedSystem, FusionModel
from ..resampling import SourceSplit, source_codes
from ..uncertainty import cross_validated_llr, fold_splits
from .two_stage import TwoStageBootstrap

__all__ = [
    "FusedBackground", "FusedInputs", "FusionStage", "TwoStageBootstrap", "case_fused_scores",
    "evidence_llrs", "fused_background", "fused_inputs", "fusion_warnings", "read_systems",
    "two_stage_bootstrap",
]


@dataclass(frozen=True, eq=False)
class FusedBackground:
    """The background as the case uses it and the record of the fusion."""

    data: ScoreSet      # out-of-fold fused LLRs, sources and files of the score files
    record: FusionModel


@dataclass(frozen=True, eq=False)
class FusedInputs:
    """The systems' background scores as read and the fusion fitted on all of them.

    ``ss``, ``ds``: ``(n, k)`` raw scores, one column per system; ``first``: the first
    system's score set (sources and provenance, the same for every column); ``fitted``:
    the fusion fitted on every background comparison (the evidence values' and the
    record's weights).
    """

    ss: np.ndarray
    ds: np.ndarray
    first: ScoreSet
    fitted: LogisticFusion


def read_systems(spec) -> tuple[np.ndarray, np.ndarray, ScoreSet]:
    """``(ss, ds, first)``: the systems' background scores as ``(n, k)`` matrices.

    Every file is read once, all systems' columns in one pass
    (:func:`~forensic_lr.io.paired.load_system_scores`), with the case's other reading
    options (label and source columns, decimal separator, sheet) and the checks of any
    score file; ``first`` is the first system's score set (sources and provenance, the
    same for every column).

    Raises
    ------
    InputError
        Starting ``[background]``, with the reader's file, line and column.
    """
    bg = spec.background
    if bg.scores is not None:
        paths = {"scores": str(spec.resolve(bg.scores))}
    else:
        paths = {"ss": str(spec.resolve(bg.ss)), "ds": str(spec.resolve(bg.ds))}
    reading = {k: v for k, v in bg.reading().items() if k != "score_column"}
    try:
        return load_system_scores(spec.fusion.systems, **paths, **reading)
    except InputError as exc:
        # the systems' columns are chosen by [fusion] systems (score_column is refused here)
        text = str(exc).replace("check score_column", "check [fusion] systems")
        raise InputError(f"[background] systems {_names(spec)}: {text}") from None


def _names(spec) -> str:
    return ", ".join(repr(s) for s in spec.fusion.systems)


def _fusion(spec) -> LogisticFusion:
    section = spec.fusion
    return LogisticFusion(prior=section.prior, l2=section.l2,
                          systems=[str(s) for s in section.systems])


def fused_inputs(spec) -> FusedInputs:
    """The background files read once and the fusion fitted once on all their comparisons
    (:class:`FusedInputs`); a spec loaded by :func:`~forensic_lr.casework.load_case`
    carries them as ``fused_inputs``, and they are read here only for one that does not."""
    kept = getattr(spec, "fused_inputs", None)
    if kept is not None:
        return kept
    ss, ds, first = read_systems(spec)
    return FusedInputs(ss, ds, first, _fusion(spec).fit(ss, ds))


def case_fused_scores(spec) -> tuple[float, ...]:
    """The fused LLR of each of the case's comparisons, by the fusion fitted on all
    background comparisons."""
    return evidence_llrs(spec, fused_inputs(spec))


def evidence_llrs(spec, inputs: FusedInputs) -> tuple[float, ...]:
    """The fused LLR of each of ``[fusion] scores`` by ``inputs.fitted``."""
    scores = np.array(spec.fusion.scores, dtype=np.float64)
    return tuple(float(v) for v in inputs.fitted.llr(scores))


def fused_background(spec) -> FusedBackground:
    """The background's out-of-fold fused LLRs and the record of the fusion.

    The folds are the case's (``[validation] folds`` and ``[uncertainty] seed``), by source
    when the files name sources; each system alone is calibrated by logistic regression in
    the same folds, for the record's comparison of each system with the fusion.
    """
    inputs = fused_inputs(spec)
    ss, ds, first, fitted = inputs.ss, inputs.ds, inputs.first, inputs.fitted
    folds, seed = spec.validation.folds, spec.uncertainty.seed
    sources = {"ss_sources": first.ss_sources, "ds_sources": first.ds_sources}
    fused_ss, fused_ds = cross_validated_llr(ss, ds, _fusion(spec), folds, seed, **sources)
    intercept, weights = fitted.coefficients()
    systems = []
    for j, name in enumerate(fitted.params()["systems"]):
        systems.append(FusedSystem(
            name=name, weight=float(weights[j]), standardised_weight=float(fitted.theta_[j + 1]),
            **_alone(ss[:, j], ds[:, j], folds, seed, sources)))
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


def _alone(ss, ds, folds, seed, sources) -> dict:
    """Cllr, minCllr and EER of one system alone, its scores calibrated by logistic
    regression in the case's folds; None each, with the reason, when a fold cannot be
    fitted (e.g. the system alone separates the classes: no finite logistic fit)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the fold fits' own warnings: not the case's
            alone = evaluate_llrs(*cross_validated_llr(ss, ds, "logistic", folds, seed,
                                                       **sources), check=False)
    except ForensicLRError as exc:
        return {"cllr": None, "min_cllr": None, "eer": None, "not_computable": str(exc)}
    return {"cllr": alone.cllr, "min_cllr": alone.min_cllr, "eer": alone.eer}


def fusion_warnings(record: FusionModel | None) -> list[str]:
    """The warnings of a fusion's record: a system whose own validation is not computable
    (``warning.fusion_system_not_computable``)."""
    if record is None:
        return []
    return [english("warning.fusion_system_not_computable", system=s.name,
                    error=s.not_computable)
            for s in record.systems if s.not_computable]


@dataclass(frozen=True, eq=False)
class FusionStage:
    """The first stage of a fused case's bootstrap (:class:`TwoStageBootstrap`): the fusion
    refitted with each replicate's weights.

    For a block of replicates (weights ``w_ss``, ``w_ds``) it refits

    1. the fusion on all comparisons: the fused value of each of the case's comparisons;
    2. the fusion without each of the case's cross-validation splits (``splits``, the
       case's folds and seed, fixed): each comparison's out-of-fold fused value, as the
       case computes the values it calibrates;

    every replicate at once (:func:`~forensic_lr.calibration.fusion.fusion_refits`), each
    fit starting from the fusion fitted on all comparisons (near each solution).
    """

    inputs: FusedInputs
    evidence: np.ndarray
    prior: float
    l2: float
    splits: tuple[SourceSplit, ...]

    def __call__(self, w_ss: np.ndarray, w_ds: np.ndarray, draws=None):
        ss, ds = self.inputs.ss, self.inputs.ds
        options = {"prior": self.prior, "l2": self.l2,
                   "start": self.inputs.fitted.coefficients()}
        a, b = fusion_refits(ss, ds, w_ss, w_ds, **options)
        x = a[:, None] + b @ self.evidence.T
        z_ss, z_ds = np.full(w_ss.shape, np.nan), np.full(w_ds.shape, np.nan)
        for split in self.splits:
            a, b = fusion_refits(ss[split.train_ss], ds[split.train_ds],
                                 w_ss[:, split.train_ss], w_ds[:, split.train_ds], **options)
            z_ss[:, split.test_ss] = a[:, None] + b @ ss[split.test_ss].T
            z_ds[:, split.test_ds] = a[:, None] + b @ ds[split.test_ds].T
        return x, z_ss, z_ds


def two_stage_bootstrap(spec) -> TwoStageBootstrap | None:
    """The :class:`TwoStageBootstrap` of a ``[fusion]`` case (None for another case): its
    background as read and fused at load, its comparisons, its folds and seed, by source
    when the files name sources."""
    if spec.fusion is None:
        return None
    inputs = fused_inputs(spec)
    ss, ds, first = inputs.ss, inputs.ds, inputs.first
    sources = (first.ss_sources, first.ds_sources) if first.has_sources else None
    splits = fold_splits(len(ss), len(ds), spec.validation.folds, spec.uncertainty.seed,
                         sources)
    codes = None if sources is None else source_codes(*sources, len(ss), len(ds))
    stage = FusionStage(inputs, np.array(spec.fusion.scores, dtype=np.float64),
                        spec.fusion.prior, spec.fusion.l2, splits)
    return TwoStageBootstrap(stage, len(ss), len(ds), codes)
