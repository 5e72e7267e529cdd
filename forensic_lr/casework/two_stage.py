"""The bootstrap of a case whose scores are the output of a first fitted stage.

A ``[fusion]`` case's scores are fused by weights fitted on the background
(:mod:`forensic_lr.casework.fused`), a ``[measurements]`` case's come from a feature model
fitted on the population database (:mod:`forensic_lr.casework.measured`). Refitting only the
calibration in a bootstrap replicate would hold that first stage fixed and understate the
uncertainty; :class:`TwoStageBootstrap` refits both: it draws the replicate's weights,
asks the case's first stage for the replicate's values (the case's and the background's,
out of fold), and refits the calibration on those values with the weights.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..calibration.fusion import fusion_refits
from ..calibration.logistic import LogisticCalibrator
from ..errors import ForensicLRError
from ..parallel import one_blas_thread
from ..resampling import pair_counts, source_draws, trial_counts

__all__ = ["BLOCK", "FirstStage", "TwoStageBootstrap"]

#: ``stage(w_ss, w_ds, draws) -> (x, z_ss, z_ds)`` for a block of replicates: ``w_ss``
#: ``(r, n_ss)`` and ``w_ds`` ``(r, n_ds)`` count weights of the background comparisons,
#: ``draws`` ``(r, k)`` how often each source is drawn (None when resampling comparisons);
#: ``x`` ``(r, m)`` the case's values and ``z_ss``, ``z_ds`` the background's values out of
#: fold, each as the calibrator takes them (score-like), NaN where a fit failed.
FirstStage = Callable[[np.ndarray, np.ndarray, "np.ndarray | None"],
                      tuple[np.ndarray, np.ndarray, np.ndarray]]

#: Replicates whose first stage is computed together (and kept for a later call).
BLOCK = 100


@dataclass(frozen=True, eq=False)
class TwoStageBootstrap:
    """Bootstrap refits of a case's whole system: its first stage and the calibration.

    Called as ``(calibrator, n, seed)`` it returns the ``(n, m)`` natural-log LLRs at the
    case's ``m`` comparisons of ``n`` replicates (a row of NaN for a replicate that
    cannot be fitted); the case's interval and its sensitivity analysis take them in
    place of refitting the calibration alone (``replicates`` of
    :func:`~forensic_lr.casework.evidence.evaluate_unbounded` and
    :func:`~forensic_lr.casework.sensitivity.background_bootstrap`).

    Replicate ``r`` draws count weights over the background comparisons, one draw per
    replicate from ``numpy.random.default_rng(seed)``: by source when ``codes`` are given
    (:func:`~forensic_lr.resampling.source_draws`, ``k`` sources drawn with replacement;
    a comparison counts as often as its sources were drawn,
    :func:`~forensic_lr.resampling.pair_counts`: the subsets bootstrap), else each class
    by comparison (:func:`~forensic_lr.resampling.trial_counts`); the same draws as
    :func:`~forensic_lr.resampling.replicate_counts`. With those weights

    1. ``stage`` (:data:`FirstStage`) refits the first stage: the case's values and each
       background comparison's value out of fold, as the case computes the values it
       calibrates;
    2. the calibrator is refitted on those values, each comparison counted with its
       weight; its LLR at the replicate's case values.

    Step 2 solves every replicate at once for linear logistic calibration
    (:func:`~forensic_lr.calibration.fusion.fusion_refits`); another calibrator is fitted
    replicate by replicate (with the weights, its ``fit`` contract). A replicate fails
    where a fit it needs would be refused (a constant or separated resampled class, no
    convergence, a first-stage fit that fails).
    """

    stage: FirstStage
    n_ss: int
    n_ds: int
    codes: tuple[np.ndarray, np.ndarray, int] | None
    _blocks: dict = field(default_factory=dict, repr=False)

    @property
    def by(self) -> str:
        """``"source"`` or ``"trial"``: what a replicate resamples."""
        return "trial" if self.codes is None else "source"

    def __call__(self, calibrator, n: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        if self.codes is None:
            drawn = [(trial_counts(rng, self.n_ss), trial_counts(rng, self.n_ds))
                     for _ in range(n)]
            w_ss = np.array([d[0] for d in drawn], dtype=np.float64)
            w_ds = np.array([d[1] for d in drawn], dtype=np.float64)
            draws = None
        else:
            draws = np.array([source_draws(rng, self.codes[2]) for _ in range(n)])
            w_ss, w_ds = (w.astype(np.float64) for w in pair_counts(draws, self.codes))
        first = [self._first(seed, start, w_ss[start:start + BLOCK], w_ds[start:start + BLOCK],
                             None if draws is None else draws[start:start + BLOCK])
                 for start in range(0, n, BLOCK)]
        x, z_ss, z_ds = (np.concatenate(part) for part in zip(*first, strict=True))
        with one_blas_thread(), np.errstate(all="ignore"):
            return _calibrated(calibrator, z_ss, z_ds, w_ss, w_ds, x)

    def _first(self, seed: int, start: int, w_ss: np.ndarray, w_ds: np.ndarray, draws):
        """Step 1 for the replicates ``start, start + 1, ...`` of ``seed``. A block of
        :data:`BLOCK` replicates is computed once (the interval's replicates begin with the
        sensitivity analysis's, the same seed's draws) and always as the same arrays, so
        that its values do not depend on how many replicates a caller asks for."""
        key = (seed, start, w_ss.shape[0])
        if key not in self._blocks:
            with one_blas_thread(), np.errstate(all="ignore"):
                self._blocks[key] = self.stage(w_ss, w_ds, draws)
        return self._blocks[key]


def _calibrated(calibrator, z_ss, z_ds, w_ss, w_ds, x) -> np.ndarray:
    """LLRs at ``x[r]`` of ``calibrator`` fitted on ``z_ss[r]``, ``z_ds[r]`` with the weights
    ``w_ss[r]``, ``w_ds[r]``, for every replicate ``r``; NaN rows where a value it needs is
    missing (a comparison with weight whose fold fit failed) or the fit is refused."""
    broken = ((np.isnan(z_ss) & (w_ss > 0)).any(axis=1) | (np.isnan(z_ds) & (w_ds > 0)).any(axis=1)
              | np.isnan(x).any(axis=1))
    # comparisons without weight play no part, nor do broken replicates (their rows are
    # NaN at the end): any finite value stands in for theirs
    z_ss = np.where((w_ss > 0) & ~broken[:, None], z_ss, 0.0)
    z_ds = np.where((w_ds > 0) & ~broken[:, None], z_ds, 0.0)
    x = np.where(np.isnan(x), 0.0, x)
    if isinstance(calibrator, LogisticCalibrator) and not calibrator.quadratic:
        l2 = calibrator._l2()
        start = _first_fit(calibrator, z_ss, z_ds, w_ss, w_ds, broken)
        (z_ss, w_ss), (z_ds, w_ds) = _drawn_first(z_ss, w_ss), _drawn_first(z_ds, w_ds)
        a, b = fusion_refits(z_ss[..., None], z_ds[..., None], w_ss, w_ds, prior=0.5, l2=l2,
                             start=start)
        out = a[:, None] + b * x
    else:
        out = np.full(x.shape, np.nan)
        for r in np.flatnonzero(~broken):
            s, d = w_ss[r] > 0, w_ds[r] > 0
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fitted = copy.deepcopy(calibrator).fit(z_ss[r, s], z_ds[r, d],
                                                           w_ss[r, s], w_ds[r, d])
                    out[r] = fitted.llr(x[r])
            except ForensicLRError:
                continue
    out[broken] = np.nan
    return out


def _drawn_first(z: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``z``, ``w`` with each row's comparisons of weight 0 moved to its end and the columns
    no row draws cut off: the same fits (a weight-0 comparison adds nothing) on arrays
    about half as wide when resampling by source."""
    drawn = w > 0
    order = np.argsort(~drawn, axis=1, kind="stable")[:, :max(1, int(drawn.sum(axis=1).max()))]
    return np.take_along_axis(z, order, axis=1), np.take_along_axis(w, order, axis=1)


def _first_fit(calibrator, z_ss, z_ds, w_ss, w_ds, broken):
    """``(a, b)`` of the logistic calibration of the first replicate that can be fitted
    (where the batched fits of the others start), None when none can."""
    for r in np.flatnonzero(~broken)[:3]:
        s, d = w_ss[r] > 0, w_ds[r] > 0
        try:
            fitted = copy.deepcopy(calibrator).fit(z_ss[r, s], z_ds[r, d], w_ss[r, s],
                                                   w_ds[r, d])
        except ForensicLRError:
            continue
        a, b = fitted.coefficients()
        return a, np.array([b])
    return None
