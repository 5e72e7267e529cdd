"""Non-parametric calibration by pool-adjacent-violators (isotonic regression)."""

from __future__ import annotations

import numpy as np

from ..metrics.pav import pav_fit
from .base import BaseCalibrator


class PAVCalibrator(BaseCalibrator):
    """Monotone LLR from the PAV blocks of the background scores, with finite bounds.

    Notes
    -----
    The pooled background scores are sorted once; PAV (ties pooled) gives each block
    the prior-neutral LLR ``log(n_ss,b / N_ss) - log(n_ds,b / N_ds)``
    (:func:`forensic_lr.metrics.pav.pav_fit`). A block without DS scores would give
    ``+inf`` and one without SS scores ``-inf``; they are replaced by
    ``log(N_ds + 1)`` and ``-log(N_ss + 1)``: the strongest support that N_ds
    different-source (N_ss same-source) comparisons without a single counter-example
    can give, the same limits as the ELUB search [2]_. Finite block values always lie
    inside these bounds. Between block centres (midpoints of each block's score range)
    the LLR is interpolated linearly; beyond the outermost centres it stays constant, so
    the LLR is monotone non-decreasing and bounded.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    .. [2] P. Vergeer et al., "Numerical likelihood ratios outputted by LR systems are
           often based on extrapolation: when to stop extrapolating?", Science & Justice
           56 (2016) 482-491.
    """

    name = "pav"
    title = "Pool-adjacent-violators (isotonic) calibration"
    summary = (
        "The background scores are sorted and pooled into blocks by the pool-adjacent-"
        "violators algorithm, so that the LR never decreases as the score increases; the LR "
        "of a block is its share of the same-source scores over its share of the "
        "different-source scores. Between blocks the log LR is interpolated linearly; a "
        "block without counter-examples gets the finite limit log(N_ds + 1) or "
        "-log(N_ss + 1)."
    )
    equation = "ln LR(block) = ln(n_ss,block / N_ss) - ln(n_ds,block / N_ds)"
    reference = (
        "N. Brummer, J. du Preez, Application-independent evaluation of speaker detection, "
        "Computer Speech and Language 20 (2006) 230-275."
    )
    in_default_study = True

    def fit(self, ss, ds) -> PAVCalibrator:
        ss, ds = self._validate(ss, ds)
        fit = pav_fit(ss, ds)
        self.bounds_ = (-float(np.log(ss.size + 1)), float(np.log(ds.size + 1)))
        self.centres_ = 0.5 * (fit.block_low + fit.block_high)
        self.block_llr_ = np.clip(fit.llr, *self.bounds_)
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        return np.interp(self._scores(scores), self.centres_, self.block_llr_)

    def params(self) -> dict:
        self._scores([0.0])
        return {
            "n_blocks": int(self.centres_.size),
            "llr_lower_bound": self.bounds_[0],
            "llr_upper_bound": self.bounds_[1],
            "block_centres": [float(v) for v in self.centres_],
            "block_llr": [float(v) for v in self.block_llr_],
        }
