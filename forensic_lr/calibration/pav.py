"""Non-parametric calibration by pool-adjacent-violators (isotonic regression)."""

from __future__ import annotations

import warnings

import numpy as np

from .._checks import as_score_array
from ..errors import ForensicLRError, InputError, excerpt
from ..i18n import N_
from ..metrics.pav import TieGroups, fit_runs, pav_fit
from ..resampling import bootstrap_index_chunks, replicate_weights
from .base import SCORE_SCALE, BaseCalibrator

#: Distinct background values on each side of an evidence score that the bootstrap hook
#: follows one by one (:class:`_ResampleUnits`): a replicate that draws none of them on one
#: side is refitted by ``fit`` (about e^-32 per replicate).
_NEAR = 32
#: Most scores the bootstrap hook evaluates through the units; with more (e.g. every
#: background score, for each replicate's ELUB) it refits each replicate by ``fit``.
_UNIT_SCORES = 1_000

#: How the LLR runs between PAV blocks: "edges" (default) keeps each block's LLR over the
#: block's whole score range and interpolates between the edges of neighbouring blocks;
#: "centres" interpolates between block centres (midpoints), so that a score inside a
#: block can get a value other than the block's.
INTERPOLATIONS = ("edges", "centres")


class PAVCalibrator(BaseCalibrator):
    """Monotone LLR from the PAV blocks of the background scores, with finite bounds.

    Parameters
    ----------
    interpolation : {"edges", "centres"}
        ``"edges"`` (default): a score inside a block (between its lowest and highest
        background score) gets the block's LLR; between the highest score of one block
        and the lowest of the next, the LLR is interpolated linearly. ``"centres"``: the
        LLR is interpolated linearly between block centres (the midpoint of each block's
        score range), so a score inside a wide block takes part of its neighbour's value.

    Notes
    -----
    The pooled background scores are sorted once; PAV (ties pooled) gives each block
    the prior-neutral LLR ``log(n_ss,b / N_ss) - log(n_ds,b / N_ds)``
    (:func:`forensic_lr.metrics.pav.pav_fit`). A block without DS scores would give
    ``+inf`` and one without SS scores ``-inf``; they are replaced by
    ``log(N_ds + 1)`` and ``-log(N_ss + 1)``: the strongest support that N_ds
    different-source (N_ss same-source) comparisons without a single counter-example
    can give, the same limits as the ELUB search [2]_. Finite block values always lie
    inside these bounds.

    With ``interpolation = "edges"`` the LLR is the block's value on ``[low_b, high_b]``
    and, for ``high_b < s < low_(b+1)``,
    ``llr(s) = llr_b + (s - high_b) / (low_(b+1) - high_b) * (llr_(b+1) - llr_b)``:
    the same knots as scikit-learn's ``IsotonicRegression``, which interpolates the
    fitted probability there; interpolating the LLR instead keeps the bounded block
    values finite and makes the LR a power law between the edges. Beyond the outermost
    block the LLR stays constant, so it is monotone non-decreasing and bounded.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    .. [2] P. Vergeer et al., "Numerical likelihood ratios outputted by LR systems are
           often based on extrapolation: when to stop extrapolating?", Science & Justice
           56 (2016) 482-491.
    """

    name = "pav"
    title = N_("Pool-adjacent-violators (isotonic) calibration")
    summary = N_(
        "The background scores are sorted and pooled into blocks by the pool-adjacent-"
        "violators algorithm, so that the LR never decreases as the score increases; the LR "
        "of a block is its share of the same-source scores over its share of the "
        "different-source scores. A score inside a block gets the block's LR; between the "
        "edges of two neighbouring blocks the log LR is interpolated linearly; a "
        "block without counter-examples gets the finite limit log(N_ds + 1) or "
        "-log(N_ss + 1)."
    )
    equation = "ln LR(block) = ln(n_ss,block / N_ss) - ln(n_ds,block / N_ds)"
    reference = (
        "N. Brummer, J. du Preez, Application-independent evaluation of speaker detection, "
        "Computer Speech and Language 20 (2006) 230-275."
    )
    in_default_study = True
    sorts_scores = True

    def __init__(self, *, interpolation: str = "edges") -> None:
        self.interpolation = interpolation

    def check_options(self) -> None:
        if self.interpolation not in INTERPOLATIONS:
            raise InputError(
                "option interpolation must be 'edges' (a score inside a block gets the "
                "block's LR) or 'centres' (interpolate between block centres), got "
                f"{excerpt(self.interpolation)}"
            )

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> PAVCalibrator:
        """PAV blocks and knots; weights as in
        :class:`~forensic_lr.calibration.base.Calibrator` (block counts and ``N_ss``,
        ``N_ds`` become summed weights)."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        fit = pav_fit(ss, ds, w_ss, w_ds)
        n_ss, n_ds = (float(v.size if w is None else w.sum()) for v, w in ((ss, w_ss), (ds, w_ds)))
        self.bounds_ = (-float(np.log(n_ss + 1)), float(np.log(n_ds + 1)))
        self.block_low_, self.block_high_ = fit.block_low, fit.block_high
        self.block_llr_ = np.clip(fit.llr, *self.bounds_)
        self.knots_, self.knot_llr_ = _knots(
            fit.block_low, fit.block_high, self.block_llr_, self.interpolation)
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        return np.interp(self._scores(scores), self.knots_, self.knot_llr_)

    def bootstrap_llr(self, ss, ds, scores, *, n, rng, progress=None) -> np.ndarray:
        """LLRs at ``scores`` of ``n`` bootstrap refits, each as ``fit`` on the replicate.

        Parameters
        ----------
        ss, ds : array_like
            Background scores.
        scores : array_like
            Where to evaluate each refit.
        n : int
            Number of replicates.
        rng : numpy.random.Generator
            Source of the draws (:func:`forensic_lr.resampling.bootstrap_index_chunks`).
        progress : callable, optional
            Called as ``progress(done, n)`` after each block of replicates.

        Returns
        -------
        ndarray, shape (n, len(scores))
            Row ``b`` is ``fit(ss, ds, ss_weight=c_ss, ds_weight=c_ds).llr(scores)`` with
            replicate ``b``'s draw counts, the same bits; NaN where a class of the
            resample holds one value (``fit`` refuses it).

        Notes
        -----
        A refit is PAV on the resample's *units* (:class:`_ResampleUnits`): stretches of
        the pooled sorted background that hold one class (or one tied value holding
        both). A unit's counts are one ``bincount`` of the draws per block of
        replicates, and PAV on the units of positive count, joined where neighbours have
        the same SS share, is PAV on the resample's runs, the input ``fit`` gives it: the
        same blocks and block LLRs. With ``interpolation = "edges"`` the LLR at a score
        ``s`` depends only on the resample's nearest values ``p <= s < q`` and the LLRs of
        their blocks (interpolated linearly between them, constant beyond the ends), and
        the :data:`_NEAR` distinct values on each side of ``s`` are units of their own,
        so ``p`` and ``q`` are read from their counts; a replicate drawing none of them on
        one side, and every replicate with ``interpolation = "centres"`` (a block
        centre needs the block's lowest and highest values), with more than
        :data:`_UNIT_SCORES` scores or with background values beyond
        :data:`~forensic_lr.calibration.base.SCORE_SCALE`, is refitted by ``fit``.
        """
        ss, ds = (np.asarray(v, dtype=np.float64) for v in (ss, ds))
        at = as_score_array(scores, "scores")
        out = np.full((n, at.size), np.nan)
        refit = _Refit(self, ss, ds, at)
        units = (_ResampleUnits(ss, ds, at) if self.interpolation == "edges"
                 and at.size <= _UNIT_SCORES and _in_scale(ss, ds) else None)
        start = 0
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            k = idx_ss.shape[0]
            if units is None:
                rows = [refit(i_ss, i_ds) for i_ss, i_ds in zip(idx_ss, idx_ds, strict=True)]
                out[start:start + k] = rows
            else:
                out[start:start + k] = units.llr(idx_ss, idx_ds, refit)
            start += k
            if progress is not None:
                progress(start, n)
        return out

    def params(self) -> dict:
        self.check_fitted()
        return {
            "interpolation": self.interpolation,
            "n_blocks": int(self.block_llr_.size),
            "llr_lower_bound": self.bounds_[0],
            "llr_upper_bound": self.bounds_[1],
            "block_low": [float(v) for v in self.block_low_],
            "block_high": [float(v) for v in self.block_high_],
            "block_llr": [float(v) for v in self.block_llr_],
        }


def _knots(low: np.ndarray, high: np.ndarray, llr: np.ndarray,
           interpolation: str) -> tuple[np.ndarray, np.ndarray]:
    """Increasing scores and their LLRs for ``np.interp`` (constant beyond both ends).

    ``"edges"``: each block's lowest and highest score, both at the block's LLR (one knot
    for a block of one distinct score); ``"centres"``: the block midpoints.
    """
    if interpolation == "centres":
        return 0.5 * (low + high), llr
    x = np.column_stack([low, high]).ravel()
    y = np.repeat(llr, 2)
    keep = np.ones(x.size, dtype=bool)
    keep[1:] = x[1:] > x[:-1]  # a one-score block: low == high, the same LLR
    return x[keep], y[keep]


def _in_scale(ss: np.ndarray, ds: np.ndarray) -> bool:
    """Whether no resample can fail :func:`~.base.check_background`'s magnitude checks: no
    value beyond ``SCORE_SCALE[1]``, and one class without values below ``SCORE_SCALE[0]``
    in size (every resample draws from it)."""
    low, high = SCORE_SCALE
    size = [np.abs(v) for v in (ss, ds)]
    return (max(a.max() for a in size) <= high) and any(a.min() >= low for a in size)


class _Refit:
    """One replicate refitted by ``fit`` (the definition), each class handed over in
    ascending order with its draw counts, as :func:`forensic_lr.uncertainty.bootstrap_interval`
    does without a hook: the LLRs at the scores, NaN when ``fit`` refuses the resample."""

    def __init__(self, calibrator: PAVCalibrator, ss, ds, at) -> None:
        self.model = PAVCalibrator(interpolation=calibrator.interpolation)
        self.order_ss, self.order_ds = np.argsort(ss, kind="stable"), np.argsort(ds, kind="stable")
        self.ss, self.ds, self.at = ss[self.order_ss], ds[self.order_ds], at

    def __call__(self, idx_ss: np.ndarray, idx_ds: np.ndarray) -> np.ndarray:
        w_ss, w_ds = replicate_weights(idx_ss, idx_ds, self.ss.size, self.ds.size)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                return self.model.fit(self.ss, self.ds, w_ss[self.order_ss],
                                      w_ds[self.order_ds]).llr(self.at)
        except ForensicLRError:
            return np.full(self.at.size, np.nan)


class _ResampleUnits:
    """The pooled background cut into units for :meth:`PAVCalibrator.bootstrap_llr`.

    The distinct values are grouped as :func:`~forensic_lr.metrics.pav.tie_groups` groups
    them; a unit is a maximal stretch of groups holding only SS (or only DS) scores, a
    group holding both, or one of the :data:`_NEAR` groups on either side of an evidence
    score. Any resample keeps the SS share of a pure unit (1 or 0), so the resample's runs
    (stretches of equal share) are unions of its units of positive count.
    """

    def __init__(self, ss: np.ndarray, ds: np.ndarray, at: np.ndarray) -> None:
        self.values, group = np.unique(np.concatenate([ss, ds]), return_inverse=True)
        n_groups = self.values.size
        holds = [np.bincount(g, minlength=n_groups) > 0 for g in (group[:ss.size],
                                                              group[ss.size:])]
        kind = holds[0].astype(np.int8) - holds[1]  # 1 only SS, -1 only DS, 0 both
        self.pos = np.searchsorted(self.values, at, side="right")  # groups <= each score
        self.lo = np.maximum(self.pos - _NEAR, 0)
        self.hi = np.minimum(self.pos + _NEAR, n_groups)
        near = np.zeros(n_groups + 1, dtype=np.int64)
        np.add.at(near, self.lo, 1)
        np.add.at(near, self.hi, -1)
        near = np.cumsum(near[:-1]) > 0
        new = np.ones(n_groups, dtype=bool)
        new[1:] = (kind[1:] != kind[:-1]) | (kind[1:] == 0) | near[1:] | near[:-1]
        self.unit_of_group = np.cumsum(new) - 1
        self.n_units = int(self.unit_of_group[-1]) + 1
        self.unit_ss = self.unit_of_group[group[:ss.size]]
        self.unit_ds = self.unit_of_group[group[ss.size:]]
        self.group_ss = group[:ss.size]
        self.group_ds = group[ss.size:]
        # the units of each score's windows [pos - NEAR, pos) and [pos, pos + NEAR) (one
        # group each); n_units, a unit no draw reaches, where a window passes an end
        offsets = np.arange(-_NEAR, _NEAR)
        near_groups = self.pos[:, None] + offsets
        inside = (near_groups >= self.lo[:, None]) & (near_groups < self.hi[:, None])
        self.window = np.where(inside, self.unit_of_group[np.clip(near_groups, 0, n_groups - 1)],
                               self.n_units)

    def _counts(self, unit: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Draws per unit of each replicate (rows of ``idx``), shape ``(k, n_units + 1)``;
        the last column counts nothing (the padding of the windows)."""
        k, width = idx.shape[0], self.n_units + 1
        at = unit[idx]
        at += (np.arange(k) * width)[:, None]
        return np.bincount(at.ravel(), minlength=k * width).reshape(k, width)

    def llr(self, idx_ss: np.ndarray, idx_ds: np.ndarray, refit: _Refit) -> np.ndarray:
        """LLRs at the scores of the replicates drawn as ``idx_ss``, ``idx_ds`` (rows)."""
        c_ss, c_ds = self._counts(self.unit_ss, idx_ss), self._counts(self.unit_ds, idx_ds)
        drawn = (c_ss + c_ds)[:, self.window] > 0  # (k, scores, 2 NEAR)
        left, right = drawn[..., :_NEAR], drawn[..., _NEAR:]
        has_p, has_q = left.any(axis=-1), right.any(axis=-1)
        # a full window with nothing drawn: the nearest value lies beyond it
        lost = (~has_p & (self.lo > 0)) | (~has_q & (self.hi < self.values.size))
        p = self.pos - 1 - np.argmax(left[..., ::-1], axis=-1)  # group of p (if has_p)
        q = self.pos + np.argmax(right, axis=-1)
        bounds = (-float(np.log(idx_ss.shape[1] + 1)), float(np.log(idx_ds.shape[1] + 1)))
        out = np.empty((idx_ss.shape[0], self.pos.size))
        for b in range(out.shape[0]):
            if lost[b].any() or _one_value(c_ss[b], idx_ss[b], self.group_ss) or _one_value(
                    c_ds[b], idx_ds[b], self.group_ds):
                out[b] = refit(idx_ss[b], idx_ds[b])
            else:
                nearest = np.concatenate([p[b, has_p[b]], q[b, has_q[b]]])
                out[b] = self._replicate(c_ss[b, :-1], c_ds[b, :-1], nearest, refit.at, bounds)
        return out

    def _replicate(self, c_ss, c_ds, nearest, at, bounds) -> np.ndarray:
        """One replicate's LLRs at ``at``: PAV on its units of positive count (``c_ss``,
        ``c_ds``), block LLRs limited to ``bounds`` (as ``fit``), interpolated between
        the values ``nearest`` (the groups of each score's ``p`` and ``q``)."""
        present = np.flatnonzero(c_ss + c_ds)
        a, d = c_ss[present].astype(np.float64), c_ds[present].astype(np.float64)
        share = a / (a + d)
        last = np.empty(share.size, dtype=bool)  # the last unit of each run (equal shares)
        last[-1] = True
        np.not_equal(share[1:], share[:-1], out=last[:-1])
        ends = np.flatnonzero(last)
        fit = fit_runs(TieGroups(np.arange(ends.size, dtype=np.float64),
                                 np.diff(np.cumsum(a)[ends], prepend=0.0),
                                 np.diff(np.cumsum(d)[ends], prepend=0.0)))
        run = np.searchsorted(ends, np.searchsorted(present, self.unit_of_group[nearest]))
        block = np.searchsorted(fit.block_low, run, side="right") - 1
        knots, first = np.unique(self.values[nearest], return_index=True)
        return np.interp(at, knots, np.clip(fit.llr[block[first]], *bounds))


def _one_value(counts: np.ndarray, idx: np.ndarray, group: np.ndarray) -> bool:
    """Whether a replicate's draws of one class (``idx``, their ``counts`` per unit) hold a
    single distinct value (a constant class, which ``fit`` refuses)."""
    return np.count_nonzero(counts) < 2 and np.unique(group[idx]).size < 2
