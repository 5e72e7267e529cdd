"""Unsupervised calibration: a two-Gaussian mixture on unlabelled case-condition scores.

The labelled background serves as the prior of the two class models (MAP-EM).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from .._checks import as_score_array
from ..errors import (
    ConvergenceError,
    ForensicLRError,
    ForensicLRWarning,
    InputError,
    SmallSampleWarning,
)
from ..i18n import N_
from ..i18n.messages import english
from ..records import ParamRow
from ..resampling import bootstrap_index_chunks
from .base import ExtraInput, number_option, param_row, weighted_moments
from .bootstrap_fits import BootstrapFits, RefitsOnce, normal_pair_fits
from .densities import normal_logpdf, row_moments
from .gaussian import TwoNormalsCalibrator

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
        np.log(pi) + normal_logpdf(x, means[0], np.sqrt(variances[0])),
        np.log1p(-pi) + normal_logpdf(x, means[1], np.sqrt(variances[1])),
    )
    total = float(np.sum(mix)) + np.log(pi) + np.log1p(-pi)
    alpha0 = (tau - 3) / 2
    for mu, var, m0, v0 in zip(means, variances, prior_means, prior_variances, strict=True):
        beta0 = tau * v0 / 2
        total += (normal_logpdf(mu, m0, np.sqrt(var / tau)) - (alpha0 + 1) * np.log(var)
                  - beta0 / var)
    return total


def _prior(ss: np.ndarray, ds: np.ndarray, w_ss=None, w_ds=None) -> np.ndarray:
    """Prior moments ``m_ss, m_ds, v_ss, v_ds`` (ML) of the labelled background, one column
    (each score counted ``w`` times; None: once)."""
    (m_ss, v_ss), (m_ds, v_ds) = weighted_moments(ss, w_ss), weighted_moments(ds, w_ds)
    return np.array([[m_ss], [m_ds], [v_ss], [v_ds]])


def _em_step(x: np.ndarray, state: np.ndarray, prior: np.ndarray, tau: float):
    """One MAP-EM iteration for each column of ``state`` (one column per model).

    ``state`` rows: ``mu_ss, mu_ds, s_ss^2, s_ds^2, pi``; ``prior`` rows: ``m_ss, m_ds,
    v_ss, v_ds`` (one column each, or a shared one). Returns the new state and the
    expected class counts ``N_ss, N_ds`` (formulas in :class:`UnsupervisedCalibrator`).
    """
    mu, var, pi = state[:2, :, None], state[2:4, :, None], state[4]
    z = (x - mu) ** 2 / var
    g = expit(np.log(pi / (1 - pi))[:, None] - 0.5 * np.log(var[0] / var[1]) - 0.5 * (z[0] - z[1]))
    new = np.empty_like(state)
    counts = np.empty((2, state.shape[1]))
    for k, resp in enumerate((g, 1 - g)):
        n_k = resp.sum(axis=1)
        # elementwise sums, not `resp @ x`: a BLAS product per iteration is slowed badly by
        # thread contention on busy machines
        with np.errstate(invalid="ignore", divide="ignore"):
            xbar = np.where(n_k > 0, np.sum(resp * x, axis=1) / n_k, prior[k])
        scatter = np.sum(resp * (x - xbar[:, None]) ** 2, axis=1)
        m0, v0 = prior[k], prior[2 + k]
        new[k] = (tau * m0 + n_k * xbar) / (tau + n_k)
        shift = tau * n_k / (tau + n_k) * (xbar - m0) ** 2
        new[2 + k] = (tau * v0 + scatter + shift) / (tau + n_k)
        counts[k] = n_k
    new[4] = (counts[0] + 1) / (x.size + 2)
    return new, counts


def _scaled_step(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Largest change of the means and SDs (in SDs of ``new``) and of ``pi``, per column."""
    sd_new, sd_old = np.sqrt(new[2:4]), np.sqrt(old[2:4])
    scale = np.vstack([sd_new, sd_new, np.ones((1, new.shape[1]))])
    change = np.abs(np.vstack([new[:2], sd_new, new[4:]]) - np.vstack([old[:2], sd_old, old[4:]]))
    return np.max(change / scale, axis=0)


class UnsupervisedCalibrator(RefitsOnce, TwoNormalsCalibrator):
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
    title = N_("Unsupervised calibration (two-component mixture)")
    summary = N_(
        "The two class models were fitted to unlabelled scores of comparisons made under "
        "the case conditions, as a two-component normal mixture, with the labelled "
        "background as the prior. This assumes that the unlabelled scores come from the "
        "case conditions, that same-source and different-source scores are each normally "
        "distributed there, and that no other kind of comparison is among them."
    )
    equation = N_("LR(s) = N(s; same-source component) / N(s; different-source component)")
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

    def check_options(self) -> None:
        number_option(self.prior_weight, "prior_weight")


    def limitations(self) -> tuple[str, ...]:
        return (
            N_("The unsupervised model assumes that the unlabelled scores come from the case "
               "conditions, that the same-source and different-source scores are each normally "
               "distributed there, and that no other kind of comparison is among them. The "
               "cross-validation uses the same unlabelled scores in every fold, so it does not "
               "measure how well the mixture was identified."),
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

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> UnsupervisedCalibrator:
        """EM on the unlabelled scores from the background prior; weights (of the
        background scores only) as in :class:`~forensic_lr.calibration.base.Calibrator`."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        tau = number_option(self.prior_weight, "prior_weight")
        x = self._unlabelled()
        prior = _prior(ss, ds, w_ss, w_ds)
        state = np.vstack([prior, [[0.5]]])
        for iteration in range(1, _MAX_ITER + 1):
            new, counts = _em_step(x, state, prior, tau)
            if np.max(_scaled_step(new, state)) < _TOL:
                n_iter, state = iteration, new
                break
            state = new
        else:
            raise ConvergenceError(
                f"unsupervised calibration (EM) did not converge in {_MAX_ITER} iterations: the "
                "mixture is not identified by these scores; raise prior_weight or use a "
                "supervised method"
            )
        means = [float(v) for v in state[:2, 0]]
        variances = [float(v) for v in state[2:4, 0]]
        pi = float(state[4, 0])
        counts = [float(v) for v in counts[:, 0]]
        prior_means = tuple(float(v) for v in prior[:2, 0])
        prior_vars = tuple(float(v) for v in prior[2:, 0])
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
            found.append((english("warning.unsupervised.few_unlabelled",
                                  n=str(self.n_unlabelled_)), SmallSampleWarning))
        floor = max(MIN_COMPONENT, float(self.prior_weight))
        for label, n_k in zip(("same_source", "different_source"), self.counts_, strict=True):
            if n_k < floor:
                found.append((english(f"warning.unsupervised.small_component.{label}",
                                      n=f"{n_k:.1f}", floor=f"{floor:g}"),
                              IdentifiabilityWarning))
        separation = abs(self.mean_ss_ - self.mean_ds_) / np.sqrt(
            0.5 * (self.sd_ss_**2 + self.sd_ds_**2)
        )
        if separation < MIN_SEPARATION:
            found.append((english("warning.unsupervised.overlap", separation=f"{separation:.2f}",
                                  min=f"{MIN_SEPARATION:g}"), IdentifiabilityWarning))
        if self.mean_ss_ <= self.mean_ds_:
            found.append((english("warning.unsupervised.swapped"), IdentifiabilityWarning))
        for text, category in found:
            warnings.warn(text, category, stacklevel=3)
        return tuple(text for text, _ in found)

    def params(self) -> dict:
        self.check_fitted()
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

    def bootstrap_fits(self, ss, ds, *, n, rng, progress=None) -> BootstrapFits:
        """``n`` bootstrap refits, all solved together.

        Parameters
        ----------
        ss, ds : array_like
            Labelled background scores (resampled; the unlabelled scores are a fixed
            option, as in every refit).
        n : int
            Number of replicates.
        rng : numpy.random.Generator
            Source of the draws (:func:`forensic_lr.resampling.bootstrap_index_chunks`).
        progress : callable, optional
            Called as ``progress(done, n)`` after each block of replicates.

        Returns
        -------
        BootstrapFits
            Replicate ``b``: the MAP mixture whose prior comes from resample ``b``; NaN
            for a constant resample (as ``fit`` would refuse it).

        Notes
        -----
        A resample changes only the prior moments ``(m_k, v_k)``; its MAP estimate is the
        fixed point ``theta = M_b(theta)`` of that replicate's EM map (:func:`_em_step`).
        EM approaches it linearly, often at a rate close to 1 (hundreds of iterations).
        Here every replicate starts from the full-data fit ``theta_hat`` and takes chord
        (simplified Newton) steps ``theta <- theta + (I - J)^{-1} (M_b(theta) - theta)``,
        with ``J`` the Jacobian of the full-data EM map at ``theta_hat`` (central
        differences) [1]_, all replicates at once. The error contracts by about
        ``|J_b - J|`` per step, so a few steps reach the fixed point; a replicate stops once
        its EM step and its chord step are below 1e-12 (scaled as in ``fit``, whose own
        stopping point lies within about 1e-10 / (1 - rate) of the same fixed point).
        Replicates that do not get there in 50 steps are refitted by ``fit``.

        References
        ----------
        .. [1] C. T. Kelley, *Iterative Methods for Linear and Nonlinear Equations*,
           SIAM, 1995, sec. 5.4 (the chord method).
        """
        ss, ds = self._validate(ss, ds)
        full = UnsupervisedCalibrator(unlabelled=self.unlabelled, prior_weight=self.prior_weight)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full.fit(ss, ds)
        x, tau = self._unlabelled(), float(self.prior_weight)
        theta_hat = np.array(
            [[full.mean_ss_], [full.mean_ds_], [full.sd_ss_**2], [full.sd_ds_**2], [full.pi_]]
        )
        prior_hat = _prior(ss, ds)
        chord = np.linalg.inv(np.eye(5) - _em_jacobian(x, theta_hat, prior_hat, tau))
        states, failed = [], []
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            r_ss, r_ds = ss[idx_ss], ds[idx_ds]
            m_ss, v_ss = row_moments(r_ss)
            m_ds, v_ds = row_moments(r_ds)
            prior = np.vstack([m_ss, m_ds, v_ss, v_ds])
            bad = (v_ss == 0) | (v_ds == 0)
            state, done = _chord_solve(x, theta_hat, prior, tau, chord, skip=bad)
            for b in np.flatnonzero(~done & ~bad):  # the rare replicate the chord misses
                state[:, b] = self._refit(r_ss[b], r_ds[b])
            states.append(state)
            failed.append(bad | ~np.isfinite(state).all(axis=0))
            if progress is not None:
                progress(sum(s.shape[1] for s in states), n)
        state = np.hstack(states)
        with np.errstate(invalid="ignore"):
            return normal_pair_fits(state[0], np.sqrt(state[2]), state[1], np.sqrt(state[3]),
                                    np.concatenate(failed))

    def _refit(self, ss: np.ndarray, ds: np.ndarray) -> np.ndarray:
        """``(mu_ss, mu_ds, s_ss^2, s_ds^2, pi)`` of ``fit`` on one resample (NaN if it fails)."""
        model = UnsupervisedCalibrator(unlabelled=self.unlabelled, prior_weight=self.prior_weight)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(ss, ds)
        except ForensicLRError:
            return np.full(5, np.nan)
        return np.array([model.mean_ss_, model.mean_ds_, model.sd_ss_**2, model.sd_ds_**2,
                         model.pi_])


def _em_jacobian(x, theta, prior, tau) -> np.ndarray:
    """Jacobian of the EM map at ``theta`` (one column) by central differences."""
    scale = np.array([np.sqrt(theta[2, 0]), np.sqrt(theta[3, 0]), theta[2, 0], theta[3, 0],
                      min(theta[4, 0], 1 - theta[4, 0])])
    h = 1e-6 * scale
    probes = np.repeat(theta, 10, axis=1)
    for j in range(5):
        probes[j, 2 * j] += h[j]
        probes[j, 2 * j + 1] -= h[j]
    mapped, _ = _em_step(x, probes, np.repeat(prior, 10, axis=1), tau)
    return (mapped[:, 0::2] - mapped[:, 1::2]) / (2 * h)


def _chord_solve(x, theta_hat, prior, tau, chord, *, skip, max_steps: int = 50):
    """Fixed points of the EM maps of the replicates (columns of ``prior``) by chord steps.

    Returns each replicate's last chord point and whether it converged (both the EM
    step and the chord step below 1e-12, scaled as in ``fit``).
    """
    k = prior.shape[1]
    state = np.repeat(theta_hat, k, axis=1)
    result = np.full_like(state, np.nan)
    active = np.flatnonzero(~skip)
    done = np.zeros(k, dtype=bool)
    for _ in range(max_steps):
        if active.size == 0:
            break
        current = state[:, active]
        with np.errstate(all="ignore"):
            new, _ = _em_step(x, current, prior[:, active], tau)
            candidate = current + chord @ (new - current)
            step = np.maximum(_scaled_step(new, current), _scaled_step(candidate, current))
        ok = step < 1e-12
        result[:, active[ok]] = candidate[:, ok]
        done[active[ok]] = True
        keep = ~ok & np.isfinite(step)
        state[:, active[keep]] = candidate[:, keep]
        active = active[keep]
    return result, done
