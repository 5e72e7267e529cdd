"""Generative calibration with one normal density per class (maximum likelihood)."""

from __future__ import annotations

import numpy as np

from ..i18n import N_
from ..resampling import bootstrap_index_chunks
from .base import BaseCalibrator, bool_option, weighted_moments
from .bootstrap_fits import BootstrapFits, RefitsOnce, normal_pair_fits
from .densities import normal_logpdf, row_moments


class TwoNormalsCalibrator(BaseCalibrator):
    """LLR and densities of a model with one normal density per class.

    Subclasses set ``mean_ss_``, ``sd_ss_``, ``mean_ds_`` and ``sd_ds_`` in ``fit``;
    ``llr(s) = log N(s; mean_ss, sd_ss^2) - log N(s; mean_ds, sd_ds^2)``.
    """

    def llr(self, scores) -> np.ndarray:
        s = self._scores(scores)
        return normal_logpdf(s, self.mean_ss_, self.sd_ss_) - normal_logpdf(
            s, self.mean_ds_, self.sd_ds_
        )

    def density(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """Fitted SS and DS probability densities at ``scores``."""
        s = self._scores(scores)
        return (np.exp(normal_logpdf(s, self.mean_ss_, self.sd_ss_)),
                np.exp(normal_logpdf(s, self.mean_ds_, self.sd_ds_)))


class GaussianCalibrator(RefitsOnce, TwoNormalsCalibrator):
    """LR = N(s; mu_ss, sd_ss) / N(s; mu_ds, sd_ds) with ML estimates per class.

    Parameters
    ----------
    equal_variance : bool
        Use one variance for both classes, the average of the two ML class variances
        (each class weighs equally, as in prior-neutral training). The LLR is then
        linear in the score.

    Notes
    -----
    ``llr(s) = log N(s; mu_ss, sd_ss^2) - log N(s; mu_ds, sd_ds^2)``, evaluated as a
    difference of log densities. With unequal variances the LLR is quadratic in the
    score and not monotone: far in either tail the wider class wins. Ramos's worked
    example (densities 0.35 and 0.15 at the evidence score) gives LR = 2.33.

    References
    ----------
    .. [1] D. Ramos, J. Gonzalez-Rodriguez, "Reliable support: measuring calibration of
           likelihood ratios", Forensic Science International 230 (2013) 156-169.
    .. [2] D. Ramos, "Calibración extrínseca" (course slides): generative
           Gaussian calibration, worked example LR = 0,35 / 0,15 = 2,33.
    """

    name = "gaussian"
    title = N_("Gaussian calibration (two normal densities)")
    summary = N_(
        "A normal density is fitted by maximum likelihood to the same-source background "
        "scores and another to the different-source scores; the LR of a score is the ratio "
        "of the two densities at that score. With equal_variance = true the two densities "
        "share one variance and the log LR is a straight line in the score."
    )
    equation = "LR(s) = N(s; mean_ss, sd_ss^2) / N(s; mean_ds, sd_ds^2)"
    reference = (
        "D. Ramos, J. Gonzalez-Rodriguez, Reliable support: measuring calibration of "
        "likelihood ratios, Forensic Science International 230 (2013) 156-169."
    )
    in_default_study = True

    def __init__(self, *, equal_variance: bool = False) -> None:
        self.equal_variance = equal_variance

    def _set(self, mean_ss, var_ss, mean_ds, var_ds):
        if self.equal_variance:
            var_ss = var_ds = 0.5 * (var_ss + var_ds)
        return mean_ss, np.sqrt(var_ss), mean_ds, np.sqrt(var_ds)

    def check_options(self) -> None:
        bool_option(self.equal_variance, "equal_variance")

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> GaussianCalibrator:
        """Fit the two normal densities; weights as in
        :class:`~forensic_lr.calibration.base.Calibrator` (weighted mean and ML variance)."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        m_ss, v_ss = weighted_moments(ss, w_ss)
        m_ds, v_ds = weighted_moments(ds, w_ds)
        self.mean_ss_, self.sd_ss_, self.mean_ds_, self.sd_ds_ = (
            float(v) for v in self._set(m_ss, v_ss, m_ds, v_ds)
        )
        self.range_ = (float(min(ss.min(), ds.min())), float(max(ss.max(), ds.max())))
        self.fitted_ = True
        return self

    def params(self) -> dict:
        self.check_fitted()
        return {
            "mean_ss": self.mean_ss_,
            "sd_ss": self.sd_ss_,
            "mean_ds": self.mean_ds_,
            "sd_ds": self.sd_ds_,
            "equal_variance": bool(self.equal_variance),
        }

    def bootstrap_fits(self, ss, ds, *, n, rng, progress=None) -> BootstrapFits:
        """``n`` bootstrap refits from per-replicate moments only.

        Replicate-by-replicate equal to refitting on the resamples drawn by
        :func:`forensic_lr.resampling.bootstrap_index_chunks`. Constant resamples give NaN.
        """
        ss, ds = self._validate(ss, ds)
        params = []
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            m_ss, v_ss = row_moments(ss[idx_ss])
            m_ds, v_ds = row_moments(ds[idx_ds])
            params.append((*self._set(m_ss, v_ss, m_ds, v_ds), (v_ss == 0) | (v_ds == 0)))
            if progress is not None:
                progress(sum(p[0].size for p in params), n)
        return normal_pair_fits(*(np.concatenate(column) for column in zip(*params, strict=True)))
