"""Non-parametric calibration by pool-adjacent-violators (isotonic regression)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError, excerpt
from ..i18n import N_
from ..metrics.pav import pav_fit
from .base import BaseCalibrator

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
