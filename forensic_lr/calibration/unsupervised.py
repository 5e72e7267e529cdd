"""Unsupervised calibration: a two-Gaussian mixture on unlabelled case-condition scores.

The labelled background serves as the prior of the two class models (MAP-EM).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from .._checks import as_score_array
from ..errors import ConvergenceError, ForensicLRWarning, InputError, SmallSampleWarning
from ..records import ParamRow
from .base import ExtraInput, param_row
from .gaussian import TwoNormalsCalibrator, _row_moments

#: Fewer unlabelled scores than this is an error: two Gaussians need more data.
MIN_UNLABELLED = 10
#: Expected number of unlabelled scores of a class below which that class is not identified
#: (the threshold is the larger of this and the prior weight: the prior then outweighs the data).
MIN_COMPONENT = 10.0
#: Separation ``|mu_ss - mu_ds| / sqrt((sd_ss^2 + sd_ds^2) / 2)`` below which the mixture
#: components overlap too much to be told apart reliably.
MIN_SEPARATION = 1.0
_MAX_ITER = 5000
_TOL = 1e-10


class IdentifiabilityWarning(ForensicLRWarning):
    """A mixture fitted to unlabelled scores is poorly identified."""


def log_posterior(x, pi, means, variances, prior_means, prior_variances, tau) -> float:
    """Log posterior (up to a constant) of the mixture maximised by :class:`UnsupervisedCalibrator`.

    ``means``, ``variances`` etc. are ``(ss, ds)`` pairs; ``tau`` the prior weight.
    """
    mix = np.logaddexp(
        np.log(pi) + norm.logpdf(x, means[0], np.sqrt(variances[0])),
        np.log1p(-pi) + norm.logpdf(x, means[1], np.sqrt(variances[1])),
    )
    total = float(np.sum(mix)) + np.log(pi) + np.log1p(-pi)
    alpha0 = (tau - 3) / 2
    for mu, var, m0, v0 in zip(means, variances, prior_means, prior_variances, strict=True):
        beta0 = tau * v0 / 2
        total += norm.logpdf(mu, m0, np.sqrt(var / tau)) - (alpha0 + 1) * np.log(var) - beta0 / var
    return total


class UnsupervisedCalibrator(TwoNormalsCalibrator):
    """Gaussian LR from a two-component mixture fitted to unlabelled case-condition scores.

    Parameters
    ----------
    unlabelled : array_like or None
        Scores of comparisons made under the case conditions whose ground truth is
        unknown (a mixture of same- and different-source pairs). Required; at least
        10. A case file would pass them as ``[background] unlabelled = "case_scores.csv"``.
    prior_weight : float
        How many unlabelled scores the labelled background counts for, per class
        (default 10). Large values keep the background models; small values let the
        unlabelled scores decide.

    Notes
    -----
    Model: each unlabelled score comes from ``pi N(mu_ss, s_ss^2) + (1 - pi) N(mu_ds,
    s_ds^2)``; ``llr(s) = log N(s; mu_ss, s_ss^2) - log N(s; mu_ds, s_ds^2)`` (``pi`` is a
    property of the unlabelled set, not of the case, and does not enter the LR) [1]_.
    Prior per class, from the ML moments ``(m_k, v_k)`` of the labelled background:
    ``mu | s^2 ~ N(m_k, s^2 / tau)``, ``s^2 ~ InvGamma((tau - 3) / 2, tau v_k / 2)``
    (improper for ``tau <= 3``, the posterior stays proper), and ``pi ~ Beta(2, 2)``.
    EM for the posterior mode: E-step ``g_i = P(ss | x_i)``; M-step with
    ``N = sum g_i``, ``xbar = sum g_i x_i / N``, ``S = sum g_i (x_i - xbar)^2``:
    ``mu = (tau m + N xbar) / (tau + N)``,
    ``s^2 = (tau v + S + tau N / (tau + N) (xbar - m)^2) / (tau + N)``,
    ``pi = (N_ss + 1) / (n + 2)``. The EM starts from the background models and stops
    when no mean or SD moves by more than 1e-10 SDs and ``pi`` by more than 1e-10 in one
    iteration (EM can crawl on flat likelihoods, so the step, not the gain, is tested).

    Assumptions (state them in a report): the unlabelled scores come from the case
    conditions; each class is Gaussian there; the two classes are the only sources of
    scores. Warns (:class:`IdentifiabilityWarning`) when a class has fewer expected
    unlabelled scores than ``max(10, prior_weight)`` (its model is then mostly the prior),
    when the components overlap (separation below 1) or when the fitted SS mean is not
    above the DS mean, and (:class:`SmallSampleWarning`) below 100 unlabelled scores;
    texts are in ``warnings_`` and ``params()["warnings"]``. When the components overlap,
    the mixture likelihood is flat along a ridge (means, variances and ``pi`` trade off)
    and the prior weight moves the fit noticeably even with thousands of scores.

    References
    ----------
    .. [1] N. Brummer, D. Garcia-Romero, "Generative modelling for unsupervised score
           calibration", ICASSP 2014, 1680-1684.
    .. [2] A. P. Dempster, N. M. Laird, D. B. Rubin, "Maximum likelihood from incomplete
           data via the EM algorithm", JRSS B 39 (1977) 1-38.
    .. [3] K. P. Murphy, "Conjugate Bayesian analysis of the Gaussian distribution",
           technical note, 2007.
    """

    name = "unsupervised"
    title = "Unsupervised calibration (two-component mixture)"
    summary = (
        "The two class models were fitted to unlabelled scores of comparisons made under "
        "the case conditions, as a two-component normal mixture, with the labelled "
        "background as the prior. This assumes that the unlabelled scores come from the "
        "case conditions, that same-source and different-source scores are each normally "
        "distributed there, and that no other kind of comparison is among them."
    )
    equation = "LR(s) = N(s; same-source component) / N(s; different-source component)"
    reference = (
        "N. Brummer, D. Garcia-Romero, Generative modelling for unsupervised score "
        "calibration, ICASSP 2014, 1680-1684."
    )
    extra_inputs = (
        ExtraInput("unlabelled", "--unlabelled",
                   "unlabelled case-condition scores (one score per line)", required=True),
    )

    def __init__(self, *, unlabelled=None, prior_weight: float = 10.0) -> None:
        self.unlabelled = unlabelled
        self.prior_weight = prior_weight


    def limitations(self) -> tuple[str, ...]:
        return (
            "The unsupervised model assumes that the unlabelled scores come from the case "
            "conditions, that the same-source and different-source scores are each normally "
            "distributed there, and that no other kind of comparison is among them. The "
            "cross-validation uses the same unlabelled scores in every fold, so it does not "
            "measure how well the mixture was identified.",
        )

    def param_rows(self) -> tuple[ParamRow, ...]:
        p = self.params()
        prior = p["prior"]
        return (
            param_row("unlabelled scores used", p["n_unlabelled"], "count"),
            param_row("estimated same-source proportion among them", p["proportion_ss"],
                      "percent"),
            param_row("expected number of same-source scores among them", p["expected_ss"], 1),
            param_row("prior weight (background counts as this many scores per class)",
                      prior["weight"], 1),
            param_row("same-source mean: background", prior["mean_ss"]),
            param_row("same-source mean: fitted to the unlabelled scores", p["mean_ss"]),
            param_row("different-source mean: background", prior["mean_ds"]),
            param_row("different-source mean: fitted to the unlabelled scores", p["mean_ds"]),
        )

    def _unlabelled(self) -> np.ndarray:
        if self.unlabelled is None:
            raise InputError(
                "the 'unsupervised' method needs unlabelled case-condition scores: give "
                "unlabelled = [...] (or an unlabelled score file in the case file)"
            )
        if isinstance(self.unlabelled, str):
            raise InputError(
                f"unlabelled must be an array of scores, got the text {self.unlabelled!r}; "
                'in a case file give the score file under [background] unlabelled = "file.csv", '
                "not as a method option"
            )
        x = as_score_array(self.unlabelled, "unlabelled")
        if x.size < MIN_UNLABELLED:
            raise InputError(
                f"only {x.size} unlabelled scores: a two-component mixture needs at least "
                f"{MIN_UNLABELLED} (preferably hundreds); add case-condition scores or use a "
                "supervised method such as 'bayes'"
            )
        return x

    def fit(self, ss, ds) -> UnsupervisedCalibrator:
        ss, ds = self._validate(ss, ds)
        tau = self.prior_weight
        if isinstance(tau, bool) or not (np.isfinite(tau) and tau > 0):
            raise InputError(f"prior_weight must be a positive number, got {tau!r}")
        tau = float(tau)
        x = self._unlabelled()
        prior_means = tuple(float(v) for v in (ss.mean(), ds.mean()))
        prior_vars = tuple(float(_row_moments(v)[1]) for v in (ss, ds))
        means, variances, pi = list(prior_means), list(prior_vars), 0.5
        for iteration in range(1, _MAX_ITER + 1):
            old = np.array([*means, *np.sqrt(variances), pi])
            z1 = (x - means[0]) ** 2 / variances[0]
            z0 = (x - means[1]) ** 2 / variances[1]
            g = expit(
                np.log(pi / (1 - pi)) - 0.5 * np.log(variances[0] / variances[1]) - 0.5 * (z1 - z0)
            )
            counts = []
            for k, resp in enumerate((g, 1 - g)):
                n_k = float(resp.sum())
                # elementwise sums, not `resp @ x`: a BLAS dot per iteration is slowed
                # badly by thread contention on busy machines
                xbar = float(np.sum(resp * x) / n_k) if n_k > 0 else prior_means[k]
                scatter = float(np.sum(resp * (x - xbar) ** 2))
                m0, v0 = prior_means[k], prior_vars[k]
                means[k] = (tau * m0 + n_k * xbar) / (tau + n_k)
                shift = tau * n_k / (tau + n_k) * (xbar - m0) ** 2
                variances[k] = (tau * v0 + scatter + shift) / (tau + n_k)
                counts.append(n_k)
            pi = (counts[0] + 1) / (x.size + 2)
            step = np.abs(np.array([*means, *np.sqrt(variances), pi]) - old)
            if np.max(step / np.array([*np.sqrt(variances), *np.sqrt(variances), 1.0])) < _TOL:
                n_iter = iteration
                break
        else:
            raise ConvergenceError(
                f"unsupervised calibration (EM) did not converge in {_MAX_ITER} iterations: the "
                "mixture is not identified by these scores; raise prior_weight or use a "
                "supervised method"
            )
        self.mean_ss_, self.mean_ds_ = means
        self.sd_ss_, self.sd_ds_ = (float(np.sqrt(v)) for v in variances)
        self.pi_ = float(pi)
        self.counts_ = (counts[0], counts[1])
        self.prior_ = {
            "mean_ss": prior_means[0],
            "sd_ss": float(np.sqrt(prior_vars[0])),
            "mean_ds": prior_means[1],
            "sd_ds": float(np.sqrt(prior_vars[1])),
            "weight": tau,
        }
        self.log_posterior_ = log_posterior(x, pi, means, variances, prior_means, prior_vars, tau)
        self.n_unlabelled_, self.n_iter_ = int(x.size), n_iter
        self.warnings_ = self._warn()
        self.fitted_ = True
        return self

    def _warn(self) -> tuple[str, ...]:
        found: list[tuple[str, type[Warning]]] = []
        if self.n_unlabelled_ < 100:
            found.append(
                (
                    f"only {self.n_unlabelled_} unlabelled scores: the mixture estimate is "
                    "uncertain",
                    SmallSampleWarning,
                )
            )
        floor = max(MIN_COMPONENT, float(self.prior_weight))
        for label, n_k in zip(("same-source", "different-source"), self.counts_, strict=True):
            if n_k < floor:
                found.append(
                    (
                        f"the unlabelled scores contain about {n_k:.1f} {label} scores (fewer "
                        f"than {floor:g}): that class model is mostly the background prior, "
                        "not a case-condition estimate",
                        IdentifiabilityWarning,
                    )
                )
        separation = abs(self.mean_ss_ - self.mean_ds_) / np.sqrt(
            0.5 * (self.sd_ss_**2 + self.sd_ds_**2)
        )
        if separation < MIN_SEPARATION:
            found.append(
                (
                    f"the two mixture components overlap (separation {separation:.2f} < "
                    f"{MIN_SEPARATION:g}): the unlabelled scores cannot tell the classes apart "
                    "and the fit leans on the prior",
                    IdentifiabilityWarning,
                )
            )
        if self.mean_ss_ <= self.mean_ds_:
            found.append(
                (
                    "the fitted same-source mean is not above the different-source mean: the "
                    "mixture components may be swapped; do not report this LR",
                    IdentifiabilityWarning,
                )
            )
        for text, category in found:
            warnings.warn(text, category, stacklevel=3)
        return tuple(text for text, _ in found)

    def params(self) -> dict:
        self._scores([0.0])
        return {
            "mean_ss": float(self.mean_ss_),
            "sd_ss": self.sd_ss_,
            "mean_ds": float(self.mean_ds_),
            "sd_ds": self.sd_ds_,
            "proportion_ss": self.pi_,
            "expected_ss": float(self.counts_[0]),
            "expected_ds": float(self.counts_[1]),
            "n_unlabelled": self.n_unlabelled_,
            "prior": dict(self.prior_),
            "iterations": int(self.n_iter_),
            "warnings": list(self.warnings_),
        }
