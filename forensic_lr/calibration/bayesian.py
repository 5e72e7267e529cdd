"""Bayesian generative calibration: a conjugate normal-inverse-gamma model per class."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, excerpt
from ..i18n import N_
from ..resampling import bootstrap_index_chunks
from .base import BaseCalibrator, number_option, weighted_moments
from .bootstrap_fits import BootstrapFits, RefitsOnce
from .densities import normal_logpdf, row_moments, student_t_logpdf


@dataclass(frozen=True)
class NIGPosterior:
    """Normal-inverse-gamma posterior of (mu, sigma^2) for one class (arrays allowed)."""

    mu: np.ndarray
    kappa: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray

    def predictive_logpdf(self, s):
        """Student-t predictive: df 2 alpha, loc mu, scale^2 beta (kappa + 1) / (alpha kappa)."""
        scale = np.sqrt(self.beta * (self.kappa + 1) / (self.alpha * self.kappa))
        return student_t_logpdf(s, 2 * self.alpha, self.mu, scale)

    def map_variance(self):
        """Joint posterior mode of sigma^2 in the (mu, sigma^2) parameterisation."""
        return self.beta / (self.alpha + 1.5)


def nig_update(mu0, kappa0, alpha0, beta0, n, mean, m2) -> NIGPosterior:
    """Conjugate update from n scores with sample mean ``mean`` and sum of squares ``m2``.

    ``kappa_n = kappa0 + n``, ``mu_n = (kappa0 mu0 + n mean) / kappa_n``,
    ``alpha_n = alpha0 + n/2``,
    ``beta_n = beta0 + m2/2 + kappa0 n (mean - mu0)^2 / (2 kappa_n)`` (Murphy 2007, eq. 85-89).
    """
    kappa = kappa0 + n
    return NIGPosterior(
        mu=(kappa0 * mu0 + n * mean) / kappa,
        kappa=kappa,
        alpha=alpha0 + n / 2,
        beta=beta0 + m2 / 2 + kappa0 * n * (mean - mu0) ** 2 / (2 * kappa),
    )


class BayesianCalibrator(RefitsOnce, BaseCalibrator):
    """Normal-inverse-gamma model per class; predictive (Student-t) or MAP LR.

    Parameters
    ----------
    mode : {"predictive", "map"}
        ``"predictive"`` (default): LR = ratio of the Student-t posterior predictive
        densities, which integrates over the uncertainty of the class parameters and so
        pulls the LR towards 1 when background data are scarce [2]_. ``"map"``: normal
        densities at the joint posterior mode of (mu, sigma^2).
    kappa0 : float
        Prior weight of the prior mean, in equivalent observations (default 0.1: a tenth
        of one score, negligible once a class has 2 scores, yet it keeps the
        posterior proper).
    alpha0 : float
        Prior shape of sigma^2 (default 1: the variance prior is worth 2 alpha0 = 2
        pseudo-scores; ``InvGamma(1, beta0)`` has no finite mean, a deliberately
        heavy right tail, and its median is ``beta0 / ln 2``).
    prior_mean, prior_variance : float, optional
        Prior centre of each class mean and prior guess of each class variance. Defaults
        (weak and data-dependent, the same for both classes so the prior does not favour
        either proposition): the average of the two class means, and the variance of
        all background scores pooled with equal class weights (which includes the
        between-class spread, so the prior is wide). ``beta0 = alpha0 * prior_variance``,
        so the prior median of each class variance is about 1.44 times that pooled
        variance: scarce data are shrunk towards a *wider* class, which pulls the LR
        towards 1, the cautious direction in court.

    Notes
    -----
    Posterior per class from :func:`nig_update`. Predictive density
    ``t_{2 alpha_n}(s; mu_n, beta_n (kappa_n + 1) / (alpha_n kappa_n))`` [1]_;
    MAP ``mu = mu_n``, ``sigma^2 = beta_n / (alpha_n + 3/2)``.

    References
    ----------
    .. [1] K. P. Murphy, "Conjugate Bayesian analysis of the Gaussian distribution",
           technical note, 2007, section 6.
    .. [2] N. Brummer, A. Swart, "Bayesian calibration for forensic evidence reporting",
           Interspeech 2014, 388-392.
    .. [3] D. Ramos et al., "Bayesian strategies for likelihood ratio computation in
           forensic voice comparison with automatic systems", Subsidia 2017.
    """

    name = "bayes"
    title = N_("Bayesian calibration (normal model with unknown mean and variance)")
    summary = N_(
        "Each class of background scores is modelled as normal with unknown mean and "
        "variance, with a weak conjugate (normal-inverse-gamma) prior that is the same for "
        "both classes and so favours neither proposition. In the default predictive mode the "
        "LR is the ratio of the two Student-t posterior predictive densities: it carries the "
        "uncertainty of the fitted model and pulls the LR towards 1 when the background is "
        "small. In map mode it is the ratio of normal densities at the posterior mode."
    )
    equation = N_("LR(s) = p(s | same-source scores) / p(s | different-source scores), Student-t")
    reference = (
        "N. Brummer, A. Swart, Bayesian calibration for forensic evidence reporting, "
        "Interspeech 2014, 388-392."
    )
    in_default_study = True
    posterior = True

    def __init__(
        self,
        *,
        mode: str = "predictive",
        kappa0: float = 0.1,
        alpha0: float = 1.0,
        prior_mean: float | None = None,
        prior_variance: float | None = None,
    ) -> None:
        self.mode = mode
        self.kappa0 = kappa0
        self.alpha0 = alpha0
        self.prior_mean = prior_mean
        self.prior_variance = prior_variance

    def check_options(self) -> None:
        if self.mode not in ("predictive", "map"):
            raise InputError(f"option mode must be 'predictive' or 'map', got {excerpt(self.mode)}")
        number_option(self.kappa0, "kappa0")
        number_option(self.alpha0, "alpha0")
        if self.prior_mean is not None:
            number_option(self.prior_mean, "prior_mean", minimum=-np.inf)
        if self.prior_variance is not None:
            number_option(self.prior_variance, "prior_variance")

    def _prior(self, m_ss, v_ss, m_ds, v_ds) -> tuple:
        """``(mu0, kappa0, alpha0, beta0)`` from the class moments (arrays allowed)."""
        kappa0, alpha0 = float(self.kappa0), float(self.alpha0)
        if self.prior_mean is None:
            mu0 = 0.5 * (m_ss + m_ds)
        else:
            mu0 = float(self.prior_mean)
        if self.prior_variance is None:
            variance = 0.5 * (v_ss + v_ds) + 0.25 * (m_ss - m_ds) ** 2
        else:
            variance = float(self.prior_variance)
        return mu0, kappa0, alpha0, alpha0 * variance

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> BayesianCalibrator:
        """Posterior per class; weights as in :class:`~forensic_lr.calibration.base.Calibrator`
        (a class of total weight ``W`` updates the prior as ``W`` scores)."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        moments = [weighted_moments(ss, w_ss), weighted_moments(ds, w_ds)]
        self.prior_ = tuple(float(v) for v in self._prior(*moments[0], *moments[1]))
        sizes = [float(v.size if w is None else w.sum()) for v, w in ((ss, w_ss), (ds, w_ds))]
        self.posterior_ss_, self.posterior_ds_ = (
            nig_update(*self.prior_, n, mean, var * n)
            for n, (mean, var) in zip(sizes, moments, strict=True))
        self._check_spread(*moments)
        self.n_ss_, self.n_ds_ = (int(n) if n == int(n) else n for n in sizes)
        self.fitted_ = True
        return self

    def _check_spread(self, moments_ss, moments_ds) -> None:
        """Refuse a prior (``alpha0 * prior_variance``, ``kappa0``) so large or small that the
        predictive spread ``beta (kappa + 1) / (alpha kappa)`` leaves the floating-point
        range: every LLR would be NaN (``prior_variance = 1e308``)."""
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            spreads = [p.beta * (p.kappa + 1) / (p.alpha * p.kappa)
                       for p in (self.posterior_ss_, self.posterior_ds_)]
        if all(np.all(np.isfinite(v) & (v > 0)) for v in spreads):
            return
        pooled = BayesianCalibrator(kappa0=1.0, alpha0=1.0)._prior(*moments_ss, *moments_ds)[3]
        given = ", ".join(f"{k} = {v:g}" for k, v in (
            ("prior_variance", self.prior_variance), ("alpha0", self.alpha0),
            ("kappa0", self.kappa0)) if v is not None)
        raise InputError(
            f"options {given}: the prior puts the model's spread outside the floating-point "
            "range, so no LR can be computed; give prior_variance near the scores' own "
            f"variance (their pooled variance is {float(np.max(pooled)):.3g} here), or leave "
            "it out")

    @staticmethod
    def _llr(post_ss: NIGPosterior, post_ds: NIGPosterior, s, mode: str):
        if mode == "predictive":
            return post_ss.predictive_logpdf(s) - post_ds.predictive_logpdf(s)
        return normal_logpdf(s, post_ss.mu, np.sqrt(post_ss.map_variance())) - normal_logpdf(
            s, post_ds.mu, np.sqrt(post_ds.map_variance())
        )

    def llr(self, scores) -> np.ndarray:
        s = self._scores(scores)  # raises NotFittedError before any fitted attribute is read
        return self._llr(self.posterior_ss_, self.posterior_ds_, s, self.mode)

    def density(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """SS and DS densities at ``scores`` (predictive or MAP, as ``mode``)."""
        s = self._scores(scores)
        if self.mode == "predictive":
            return (
                np.exp(self.posterior_ss_.predictive_logpdf(s)),
                np.exp(self.posterior_ds_.predictive_logpdf(s)),
            )
        return (
            np.exp(normal_logpdf(s, self.posterior_ss_.mu,
                                 np.sqrt(self.posterior_ss_.map_variance()))),
            np.exp(normal_logpdf(s, self.posterior_ds_.mu,
                                 np.sqrt(self.posterior_ds_.map_variance()))),
        )

    def params(self) -> dict:
        self.check_fitted()
        mu0, kappa0, alpha0, beta0 = self.prior_
        prior = {"mu0": mu0, "kappa0": kappa0, "alpha0": alpha0, "beta0": beta0}
        out: dict = {"mode": self.mode, "prior": {k: float(v) for k, v in prior.items()}}
        for label, post in (("ss", self.posterior_ss_), ("ds", self.posterior_ds_)):
            out[f"posterior_{label}"] = {
                "mu": float(post.mu),
                "kappa": float(post.kappa),
                "alpha": float(post.alpha),
                "beta": float(post.beta),
            }
        return out

    def posterior_llr_samples(self, scores, *, n: int, rng: np.random.Generator) -> np.ndarray:
        """LLRs at ``scores`` for ``n`` draws of both classes' (mu, sigma^2) from the posterior.

        ``sigma^2 ~ InvGamma(alpha_n, beta_n)``, ``mu | sigma^2 ~ N(mu_n, sigma^2 / kappa_n)``,
        drawn SS first then DS; shape ``(n, len(scores))``.
        """
        s = self._scores(scores)
        draws = []
        for post in (self.posterior_ss_, self.posterior_ds_):
            var = post.beta / rng.gamma(post.alpha, 1.0, size=n)
            mu = rng.normal(post.mu, np.sqrt(var / post.kappa))
            draws.append((mu[:, None], np.sqrt(var)[:, None]))
        (mu1, sd1), (mu0, sd0) = draws
        return normal_logpdf(s, mu1, sd1) - normal_logpdf(s, mu0, sd0)

    def bootstrap_fits(self, ss, ds, *, n, rng, progress=None) -> BootstrapFits:
        """Vectorised bootstrap refits (prior recomputed per replicate, as ``fit`` does)."""
        ss, ds = self._validate(ss, ds)
        parts = []
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            m_ss, v_ss = row_moments(ss[idx_ss])
            m_ds, v_ds = row_moments(ds[idx_ds])
            prior = self._prior(m_ss, v_ss, m_ds, v_ds)
            post_ss = nig_update(*prior, ss.size, m_ss, v_ss * ss.size)
            post_ds = nig_update(*prior, ds.size, m_ds, v_ds * ds.size)
            parts.append((post_ss.mu, post_ss.beta, post_ds.mu, post_ds.beta,
                          (v_ss == 0) | (v_ds == 0)))
            if progress is not None:
                progress(sum(p[0].size for p in parts), n)
        mu_ss, beta_ss, mu_ds, beta_ds, failed = (
            np.concatenate(column) for column in zip(*parts, strict=True)
        )
        # kappa and alpha depend only on the prior's constants and the class size
        shapes = [(p.kappa, p.alpha) for p in (post_ss, post_ds)]

        def evaluate(s: np.ndarray, rows: np.ndarray) -> np.ndarray:
            post = [NIGPosterior(mu[rows, None], kappa, alpha, beta[rows, None])
                    for mu, beta, (kappa, alpha) in zip((mu_ss, mu_ds), (beta_ss, beta_ds),
                                                        shapes, strict=True)]
            out = self._llr(*post, s, self.mode)
            out[failed[rows]] = np.nan
            return out

        return BootstrapFits(n, evaluate)
