"""Generative calibration with one maximum-likelihood Student-t density per class."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import betaln, digamma, gammaln, polygamma
from scipy.stats import t

from .._checks import as_score_array
from ..errors import ConvergenceError, ForensicLRError
from ..resampling import bootstrap_index_chunks
from .base import BaseCalibrator, number_option
from .batched_newton import BATCH_FROM, projected_newton

#: Range of the estimated degrees of freedom (the upper end is practically Gaussian).
DF_MIN, DF_MAX = 0.5, 1000.0
_MAX_ITER = 5000
_TOL = 1e-11


@dataclass(frozen=True)
class TFit:
    """ML Student-t fit of one class: location, scale, degrees of freedom."""

    loc: float
    scale: float
    df: float
    loglik: float
    n_iter: int

    def to_dict(self) -> dict:
        return {
            "loc": self.loc,
            "scale": self.scale,
            "df": self.df,
            "loglik": self.loglik,
            "n_iter": self.n_iter,
        }


def _best_df(d2: np.ndarray) -> float:
    """ML degrees of freedom for fixed standardised squared residuals ``d2`` (ECME step)."""
    n = d2.size

    def neg_loglik(log_nu):
        nu = np.exp(log_nu)
        const = gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu)
        return -(n * const - (nu + 1) / 2 * np.sum(np.log1p(d2 / nu)))

    res = minimize_scalar(
        neg_loglik,
        bounds=(np.log(DF_MIN), np.log(DF_MAX)),
        method="bounded",
        options={"xatol": 1e-9},
    )
    return float(np.exp(res.x))


class _MeanLoglik:
    """Minus the weighted mean t log-likelihood of ``x`` (rows of ``w`` sum to 1).

    Parameters ``theta = (mu, log sigma, log nu)`` per row of weights.
    """

    def __init__(self, x: np.ndarray, w: np.ndarray) -> None:
        self.x, self.w = x, w

    def _common(self, theta):
        mu, s, eta = (theta[:, j : j + 1] for j in range(3))
        nu = np.exp(eta)
        e = self.x - mu
        q = e * e / (nu * np.exp(2.0 * s))
        # log Gamma((nu+1)/2) - log Gamma(nu/2) - log(nu pi)/2, without the cancellation
        const = -betaln(nu / 2, 0.5) - 0.5 * np.log(nu)
        return nu, s, e, q, const

    def value(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        nu, s, _, q, const = self._common(theta)
        loglik = const[:, 0] - s[:, 0] - (nu[:, 0] + 1) / 2 * np.sum(self.w[rows] * np.log1p(q), 1)
        return -loglik

    def derivatives(self, theta: np.ndarray, rows: np.ndarray):
        """Gradient and Hessian of minus the mean log-likelihood in ``(mu, log sigma, log nu)``.

        Per score, ``l = C(nu) - s - (nu + 1)/2 log r`` with ``r = 1 + q``,
        ``q = e^2 / (nu sigma^2)``, ``e = x - mu``, ``s = log sigma`` and ``C(nu) =
        log Gamma((nu+1)/2) - log Gamma(nu/2) - log(nu pi)/2``; with ``A = (nu+1)/(nu sigma^2)``
        and ``t = q / r``: ``dl/dmu = A e / r``, ``dl/ds = -1 + (nu+1) t``,
        ``dl/d(log nu) = nu C' - nu/2 log r + (nu+1) t / 2``, and second derivatives
        ``A (2 q / r^2 - 1 / r)``, ``-2 A e / r^2``, ``A e (q / r^2 - 1 / ((nu+1) r))``,
        ``-2 (nu+1) q / r^2``, ``nu t - (nu+1) q / r^2`` and
        ``nu C' + nu^2 C'' - nu/2 log r + nu t - (nu+1) q / (2 r^2)``.
        """
        w = self.w[rows]
        nu, s, e, q, _ = self._common(theta)
        nu, sig2 = nu[:, 0], np.exp(2.0 * s[:, 0])
        r = 1.0 + q
        inv_r = 1.0 / r
        t_w = w * q * inv_r
        qr2 = t_w * inv_r  # w q / r^2
        s_log = np.sum(w * np.log1p(q), axis=1)
        s_t = np.sum(t_w, axis=1)
        s_qr2 = np.sum(qr2, axis=1)
        s_er = np.sum(w * e * inv_r, axis=1)
        s_er2 = np.sum(w * e * inv_r * inv_r, axis=1)
        s_eqr2 = np.sum(qr2 * e, axis=1)
        a = (nu + 1) / (nu * sig2)
        c1 = 0.5 * digamma((nu + 1) / 2) - 0.5 * digamma(nu / 2) - 0.5 / nu
        c2 = 0.25 * polygamma(1, (nu + 1) / 2) - 0.25 * polygamma(1, nu / 2) + 0.5 / nu**2
        grad = np.stack(
            [a * s_er, -1.0 + (nu + 1) * s_t, nu * c1 - nu / 2 * s_log + (nu + 1) / 2 * s_t],
            axis=1,
        )
        hess = np.empty((theta.shape[0], 3, 3))
        hess[:, 0, 0] = a * (2.0 * s_qr2 - (1.0 - s_t))
        hess[:, 0, 1] = hess[:, 1, 0] = -2.0 * a * s_er2
        hess[:, 0, 2] = hess[:, 2, 0] = a * (s_eqr2 - s_er / (nu + 1))
        hess[:, 1, 1] = -2.0 * (nu + 1) * s_qr2
        hess[:, 1, 2] = hess[:, 2, 1] = nu * s_t - (nu + 1) * s_qr2
        hess[:, 2, 2] = (
            nu * c1 + nu**2 * c2 - nu / 2 * s_log + nu * s_t - (nu + 1) / 2 * s_qr2
        )
        return -grad, -hess


def _polish(theta, x, w, df, skip=None):
    """Projected Newton on ``(mu, log sigma, log nu)`` for each row of weights ``w``."""
    objective = _MeanLoglik(x, w)
    if df is None:
        low, high = np.log(DF_MIN), np.log(DF_MAX)
    else:
        low = high = np.log(float(df))
    lower = np.array([-np.inf, -np.inf, low])
    upper = np.array([np.inf, np.inf, high])
    return projected_newton(objective.value, objective.derivatives, theta, lower, upper, skip)


def fit_t(values: np.ndarray, df: float | None = None) -> TFit:
    """Maximum-likelihood Student-t location, scale (and degrees of freedom) by ECME.

    Parameters
    ----------
    values : ndarray
        Scores of one class (finite, not all equal).
    df : float, optional
        Fixed degrees of freedom; ``None`` estimates them within ``[DF_MIN, DF_MAX]``.

    Returns
    -------
    TFit

    Notes
    -----
    The t density is a scale mixture of normals: ``x | w ~ N(mu, sigma^2 / w)``,
    ``w ~ Gamma(nu/2, nu/2)``. E-step: ``w_i = (nu + 1) / (nu + d_i^2)`` with
    ``d_i = (x_i - mu) / sigma``. CM-steps: ``mu = sum w_i x_i / sum w_i``,
    ``sigma^2 = (1/n) sum w_i (x_i - mu)^2``, then ``nu`` maximises the actual
    log-likelihood for the new ``(mu, sigma)`` (the ECME step, a bounded 1-D search on
    ``log nu``) [1]_. Each iteration is O(n) per likelihood evaluation and never lowers
    the likelihood; it stops when the log-likelihood gains less than 1e-11 relative.
    ECME avoids the crawl of the plain ECM update of ``nu`` when the data are nearly
    Gaussian (``nu`` large). That stop defines the fit only to about 1e-6 in the
    parameters, so projected Newton steps on ``(mu, log sigma, log nu)`` with the
    analytic gradient and Hessian of the mean log-likelihood follow (``nu`` kept within
    its range, :func:`~forensic_lr.calibration.batched_newton.projected_newton`), until
    the projected gradient is below 1e-10, plus one last Newton step: the maximum is then
    defined to the rounding level. Where Newton does not converge the ECME answer is
    kept. ``n_iter`` counts the ECME iterations.

    References
    ----------
    .. [1] C. Liu, D. B. Rubin, "ML estimation of the t distribution using EM and its
           extensions, ECM and ECME", Statistica Sinica 5 (1995) 19-39.
    """
    mu = float(np.median(values))
    sigma = 1.4826 * float(np.median(np.abs(values - mu)))
    if sigma == 0:
        sigma = float(values.std())
    nu = 10.0 if df is None else float(df)
    loglik = float(np.sum(t.logpdf(values, nu, mu, sigma)))
    for iteration in range(1, _MAX_ITER + 1):
        d2 = ((values - mu) / sigma) ** 2
        w = (nu + 1) / (nu + d2)
        mu = float(np.sum(w * values) / np.sum(w))
        sigma = float(np.sqrt(np.mean(w * (values - mu) ** 2)))
        if df is None:
            nu = _best_df(((values - mu) / sigma) ** 2)
        new = float(np.sum(t.logpdf(values, nu, mu, sigma)))
        if abs(new - loglik) <= _TOL * (1.0 + abs(new)):
            start = np.array([[mu, np.log(sigma), np.log(nu)]])
            weights = np.full((1, values.size), 1.0 / values.size)
            theta, converged = _polish(start, values, weights, df)
            if converged[0]:
                mu, sigma, nu = float(theta[0, 0]), float(np.exp(theta[0, 1])), float(
                    np.exp(theta[0, 2])
                )
                if df is not None:
                    nu = float(df)
                new = float(np.sum(t.logpdf(values, nu, mu, sigma)))
            return TFit(mu, sigma, nu, new, iteration)
        loglik = new
    raise ConvergenceError(
        f"Student-t fit did not converge in {_MAX_ITER} iterations; fix the degrees of "
        "freedom (option df, e.g. df = 5) or use the 'gaussian' method"
    )


class StudentTCalibrator(BaseCalibrator):
    """LR = t(s; ss fit) / t(s; ds fit) with ML Student-t densities per class.

    Parameters
    ----------
    df : float or None
        Degrees of freedom of both class densities; ``None`` (default) estimates them per
        class by ML within [0.5, 1000].

    Notes
    -----
    ``llr(s) = log t_{nu_ss}(s; mu_ss, sigma_ss) - log t_{nu_ds}(s; mu_ds, sigma_ds)``
    with the parameters of each class fitted by :func:`fit_t`. Heavier tails than the
    normal model make the LLR of an outlying score grow logarithmically rather than
    quadratically in the score, which is why heavy-tailed class models were studied as
    calibrators [1]_. With different ``nu`` per class the far-tail LLR still diverges
    slowly: bound it (ELUB) before reporting.

    References
    ----------
    .. [1] N. Brummer, A. Swart, D. van Leeuwen, "A comparison of linear and non-linear
           calibrations for speaker recognition", Odyssey 2014, 14-18.
    .. [2] C. Liu, D. B. Rubin, "ML estimation of the t distribution using EM and its
           extensions, ECM and ECME", Statistica Sinica 5 (1995) 19-39.
    """

    name = "student_t"
    title = "Student-t calibration"
    summary = (
        "A Student-t density (location, scale and degrees of freedom by maximum likelihood) "
        "is fitted to each class of background scores, and the LR is the ratio of the two "
        "densities. Its heavier tails make the LR of an outlying score grow more slowly "
        "than under normal densities."
    )
    equation = "LR(s) = t(s; same-source fit) / t(s; different-source fit)"
    reference = (
        "N. Brummer, A. Swart, D. van Leeuwen, A comparison of linear and non-linear "
        "calibrations for speaker recognition, Odyssey 2014, 14-18."
    )

    def __init__(self, *, df: float | None = None) -> None:
        self.df = df

    def check_options(self) -> None:
        if self.df is not None:  # None: estimated from the data
            number_option(self.df, "df")

    def fit(self, ss, ds) -> StudentTCalibrator:
        ss, ds = self._validate(ss, ds)
        df = None if self.df is None else number_option(self.df, "df")
        self.fit_ss_ = fit_t(ss, df)
        self.fit_ds_ = fit_t(ds, df)
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        s = self._scores(scores)
        a, b = self.fit_ss_, self.fit_ds_
        return t.logpdf(s, a.df, a.loc, a.scale) - t.logpdf(s, b.df, b.loc, b.scale)

    def density(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """Fitted SS and DS probability densities at ``scores``."""
        s = self._scores(scores)
        a, b = self.fit_ss_, self.fit_ds_
        return t.pdf(s, a.df, a.loc, a.scale), t.pdf(s, b.df, b.loc, b.scale)

    def params(self) -> dict:
        self._scores([0.0])
        return {
            "df_option": None if self.df is None else float(self.df),
            "ss": self.fit_ss_.to_dict(),
            "ds": self.fit_ds_.to_dict(),
        }

    def bootstrap_llr(self, ss, ds, scores, *, n, rng, progress=None) -> np.ndarray:
        """LLRs at ``scores`` from ``n`` bootstrap refits, solved together by Newton's method.

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
            Row ``b`` equals ``fit(ss[idx_ss[b]], ds[idx_ds[b]]).llr(scores)`` to about
            1e-9; NaN where that fit is refused or fails (a constant resample).

        Notes
        -----
        Each class is fitted on its own. A resample is a vector of draw counts over the
        distinct scores of the class, so replicate ``b`` maximises the mean log-likelihood
        with weights ``c_bi / n``; all replicates are solved at once by the projected
        Newton iteration :func:`fit_t` ends with, starting from the full-data fit, and stop
        at the same maximum as the looped fit to the rounding level. A replicate where
        Newton's method does not converge is refitted by :meth:`fit`, and so is every
        replicate when a class has fewer than
        :data:`~forensic_lr.calibration.batched_newton.BATCH_FROM` scores.
        """
        ss, ds = self._validate(ss, ds)
        s_eval = as_score_array(scores, "scores")
        full = StudentTCalibrator(df=self.df).fit(ss, ds)
        classes = []
        for values, fitted in ((ss, full.fit_ss_), (ds, full.fit_ds_)):
            distinct, codes = np.unique(values, return_inverse=True)
            start = np.array([fitted.loc, np.log(fitted.scale), np.log(fitted.df)])
            classes.append((distinct, codes, values.size, start))
        rows = []
        small = min(ss.size, ds.size) < BATCH_FROM
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            k = idx_ss.shape[0]
            bad = np.zeros(k, dtype=bool)
            done = np.ones(k, dtype=bool)
            logpdf = []
            for (distinct, codes, size, start), idx in zip(classes, (idx_ss, idx_ds), strict=True):
                counts = np.stack([np.bincount(row, minlength=distinct.size) for row in codes[idx]])
                bad |= np.count_nonzero(counts, axis=1) < 2
                theta, ok = _polish(
                    np.tile(start, (k, 1)), distinct, counts / size, self.df, np.full(k, small)
                )
                done &= ok
                nu = np.exp(theta[:, 2:]) if self.df is None else float(self.df)
                logpdf.append(t.logpdf(s_eval, nu, theta[:, :1], np.exp(theta[:, 1:2])))
            out = logpdf[0] - logpdf[1]
            out[bad] = np.nan
            model = StudentTCalibrator(df=self.df)
            for r in np.flatnonzero(~done & ~bad):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        out[r] = model.fit(ss[idx_ss[r]], ds[idx_ds[r]]).llr(s_eval)
                except ForensicLRError:
                    out[r] = np.nan
            rows.append(out)
            if progress is not None:
                progress(sum(r.shape[0] for r in rows), n)
        return np.vstack(rows)
