"""Generative calibration with one maximum-likelihood Student-t density per class."""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import betaln, digamma, gammaln, polygamma

from ..errors import ConvergenceError, ForensicLRError
from ..i18n import N_
from ..records import Serialisable
from ..resampling import CHUNK_DRAWS, bootstrap_index_chunks, replicate_weights
from .base import BaseCalibrator, number_option, weighted_moments, weighted_percentiles
from .batched_newton import BATCH_FROM, projected_newton
from .bootstrap_fits import BootstrapFits, RefitsOnce
from .densities import student_t_logpdf
from .exact_products import exact_sum_split
from .grouping import GROUPED_FROM, distinct_weights, group_starts, pool
from .logistic import MOMENT_ROWS

#: Range of the estimated degrees of freedom (the upper end is practically Gaussian).
DF_MIN, DF_MAX = 0.5, 1000.0
_MAX_ITER = 5000
_TOL = 1e-11


@dataclass(frozen=True)
class TFit(Serialisable):
    """ML Student-t fit of one class: location, scale, degrees of freedom."""

    loc: float
    scale: float
    df: float
    loglik: float
    n_iter: int


def _best_df(d2: np.ndarray, counts: np.ndarray | None = None) -> float:
    """ML degrees of freedom for fixed standardised squared residuals ``d2`` (ECME step).

    ``counts``: how many times each residual occurs (None: once each).
    """
    n = d2.size if counts is None else float(np.sum(counts))

    def neg_loglik(log_nu):
        nu = np.exp(log_nu)
        const = gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu)
        logs = np.log1p(d2 / nu)
        return -(n * const - (nu + 1) / 2 * (np.sum(logs) if counts is None else counts @ logs))

    res = minimize_scalar(
        neg_loglik,
        bounds=(np.log(DF_MIN), np.log(DF_MAX)),
        method="bounded",
        options={"xatol": 1e-9},
    )
    return float(np.exp(res.x))


class _Loglik:
    """Minus the weighted mean t log-likelihood, per row of weights (rows sum to 1).

    Parameters ``theta = (mu, log sigma, log nu)`` per row. Subclasses supply the weighted
    sums over the scores (:meth:`_log_sum`, :meth:`_sums`); value, gradient and Hessian are
    assembled from them here.
    """

    @staticmethod
    def _params(theta):
        mu, s, nu = theta[:, 0], theta[:, 1], np.exp(theta[:, 2])
        # log Gamma((nu+1)/2) - log Gamma(nu/2) - log(nu pi)/2, without the cancellation
        const = -betaln(nu / 2, 0.5) - 0.5 * np.log(nu)
        return mu, s, nu, const

    def value(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        _, s, nu, const = self._params(theta)
        return -(const - s - (nu + 1) / 2 * self._log_sum(theta, rows))

    def derivatives(self, theta: np.ndarray, rows: np.ndarray):
        """Gradient and Hessian of minus the mean log-likelihood in ``(mu, log sigma, log nu)``.

        Per score, ``l = C(nu) - s - (nu + 1)/2 log r`` with ``r = 1 + q``,
        ``q = e^2 / (nu sigma^2)``, ``e = x - mu``, ``s = log sigma`` and ``C(nu) =
        log Gamma((nu+1)/2) - log Gamma(nu/2) - log(nu pi)/2``; with ``A = (nu+1)/(nu sigma^2)``
        and ``t = q / r``: ``dl/dmu = A e / r``, ``dl/ds = -1 + (nu+1) t``,
        ``dl/d(log nu) = nu C' - nu/2 log r + (nu+1) t / 2``, and second derivatives
        ``A (2 q / r^2 - 1 / r)``, ``-2 A e / r^2``, ``A e (q / r^2 - 1 / ((nu+1) r))``,
        ``-2 (nu+1) q / r^2``, ``nu t - (nu+1) q / r^2`` and
        ``nu C' + nu^2 C'' - nu/2 log r + nu t - (nu+1) q / (2 r^2)``. The weighted sums
        of ``log r``, ``t``, ``q / r^2``, ``e / r``, ``e / r^2`` and ``e q / r^2`` are
        all the scores enter through.
        """
        _, s, nu, _ = self._params(theta)
        sig2 = np.exp(2.0 * s)
        s_log, s_t, s_qr2, s_er, s_er2, s_eqr2 = self._sums(theta, rows)
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


class _MeanLoglik(_Loglik):
    """The objective on the scores ``x`` themselves, weights ``w`` (one row per problem)."""

    def __init__(self, x: np.ndarray, w: np.ndarray) -> None:
        self.x, self.w = x, w

    def _residuals(self, theta):
        mu, s, nu, _ = self._params(theta)
        e = self.x - mu[:, None]
        return e, e * e / (nu * np.exp(2.0 * s))[:, None]

    def _log_sum(self, theta, rows):
        return np.sum(self.w[rows] * np.log1p(self._residuals(theta)[1]), 1)

    def _sums(self, theta, rows):
        w = self.w[rows]
        e, q = self._residuals(theta)
        inv_r = 1.0 / (1.0 + q)
        t_w = w * q * inv_r
        qr2 = t_w * inv_r  # w q / r^2
        return (
            np.sum(w * np.log1p(q), axis=1),
            np.sum(t_w, axis=1),
            np.sum(qr2, axis=1),
            np.sum(w * e * inv_r, axis=1),
            np.sum(w * e * inv_r * inv_r, axis=1),
            np.sum(qr2 * e, axis=1),
        )


#: Terms ``J`` of the power series in ``q`` that :class:`_MomentLoglik` sums.
SERIES_TERMS = 40
#: Largest truncation error (relative to the scale of each sum) :class:`_MomentLoglik`
#: accepts: the rounding unit of float64, below the rounding of the direct sums.
_ROUNDING = 2.0**-53


def series_tail(rho: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Bound on what the six series of :class:`_MomentLoglik` leave out after ``J`` terms.

    With ``q_i <= rho < 1`` and ``|e_i| <= D spread``, every dropped term is at most
    ``(j + 1) rho^j`` (times ``D spread`` for the sums with ``e``), and
    ``sum_{j > J} (j + 1) rho^j <= (J + 2) rho^(J + 1) / (1 - rho)^2``.
    """
    j = SERIES_TERMS
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        tail = (j + 2) * spread * rho ** (j + 1) / (1.0 - rho) ** 2
    return np.where(rho < 1.0, tail, np.inf)


class _MomentLoglik(_Loglik):
    """The objective of many resamples from power moments of the scores.

    Parameters
    ----------
    centre, half : float
        ``v_i = (x_i - centre) / half`` lies in ``[-1, 1]`` for every score.
    moments : ndarray, shape (k, 2 J + 2)
        ``S_bl = sum_i w_bi v_i^l`` for each resample ``b`` (weights summing to 1).
    v_range : (float, float)
        Smallest and largest ``v_i``.

    Notes
    -----
    With ``h = (mu - centre) / half`` and ``g = half^2 / (nu sigma^2)``, ``e_i = half
    (v_i - h)`` and ``q_i = g (v_i - h)^2``, so ``log(1 + q)``, ``q / (1 + q)``,
    ``q / (1 + q)^2``, ``e / (1 + q)``, ``e / (1 + q)^2`` and ``e q / (1 + q)^2`` are
    power series in ``q`` (``log(1 + q) = sum_j (-1)^(j+1) q^j / j``,
    ``1 / (1 + q)^2 = sum_j (j + 1) (-q)^j``, ...) whose weighted sums are combinations
    of ``g^j M_k``, with the central moments ``M_k = sum_i w_i (v_i - h)^k =
    sum_l C(k, l) (-h)^(k-l) S_l`` [1]_. The series converge for ``q_i <= rho =
    g max_i (v_i - h)^2 < 1``; ``J`` terms are summed, and a resample whose remainder
    (:func:`series_tail`) exceeds the rounding unit gets NaN (its sums are then not
    those of the scores to the last digit, and it is solved on the scores instead).
    Each Newton step costs ``O(J^2)`` per resample instead of a pass over the scores.

    References
    ----------
    .. [1] M. Abramowitz, I. A. Stegun, *Handbook of Mathematical Functions*, Dover,
           1965, 4.1.24 (series of log(1 + x)) and 3.6.8 (binomial series).
    """

    def __init__(self, centre: float, half: float, moments: np.ndarray, v_range) -> None:
        self.centre, self.half, self.moments = centre, half, moments
        self.v_low, self.v_high = v_range
        self.degree = moments.shape[1] - 1
        self._factorial = np.cumprod(np.r_[1.0, np.arange(1.0, self.degree + 1)])

    def _central(self, theta, rows):
        """Central moments ``M_k`` (rows), ``g``, and whether the series is exact there.

        ``M_k / k! = sum_l (S_l / l!) ((-h)^(k-l) / (k-l)!)`` is a convolution: one
        product with a (strided, not copied) Toeplitz view per resample.
        """
        mu, s, nu, _ = self._params(theta)
        h = (mu - self.centre) / self.half
        g = self.half**2 * np.exp(-2.0 * s) / nu
        spread = np.maximum(np.abs(self.v_low - h), np.abs(self.v_high - h))  # >= |v_i - h|
        ok = series_tail(g * spread**2, spread) <= _ROUNDING
        h = np.where(ok, h, 0.0)
        d = self.degree
        shift = np.zeros((h.size, 2 * d + 1))
        shift[:, d:] = np.cumprod(
            np.column_stack([np.ones(h.size), -h[:, None] / np.arange(1.0, d + 1)]), axis=1
        )
        shift[np.abs(shift) < 1e-290] = 0.0  # no subnormal numbers (slow arithmetic)
        toeplitz = np.lib.stride_tricks.sliding_window_view(shift, d + 1, axis=1)[:, ::-1]
        scaled = self.moments[rows] / self._factorial
        central = np.einsum("bl,blk->bk", scaled, toeplitz) * self._factorial
        return central, np.where(ok, g, 0.0), ok

    def _log_sum(self, theta, rows):
        central, g, ok = self._central(theta, rows)
        j = np.arange(1, SERIES_TERMS + 1)
        terms = (-1.0) ** (j + 1) / j * g[:, None] ** j * central[:, 2 * j]
        return np.where(ok, np.sum(terms, axis=1), np.nan)

    def _sums(self, theta, rows):
        central, g, ok = self._central(theta, rows)
        j = np.arange(SERIES_TERMS + 1)  # j = 0 is the first term of the sums with e
        gj = (-1.0) ** j * g[:, None] ** j
        even, odd = central[:, 2 * j[1:]], central[:, 2 * j + 1]
        sums = (
            -np.sum(gj[:, 1:] / j[1:] * even, axis=1),
            -np.sum(gj[:, 1:] * even, axis=1),
            -np.sum(gj[:, 1:] * j[1:] * even, axis=1),
            self.half * np.sum(gj * odd, axis=1),
            self.half * np.sum(gj * (j + 1) * odd, axis=1),
            -self.half * np.sum(gj[:, 1:] * j[1:] * odd[:, 1:], axis=1),
        )
        return tuple(np.where(ok, v, np.nan) for v in sums)


#: Halvings of a Newton step that leaves the moment series' range before the replicate is
#: solved on its scores instead: a first step from the full-data fit may overshoot and come
#: back within a few halvings, while a replicate whose maximum lies beyond the range would
#: otherwise spend 40 halvings on every step.
_NAN_HALVINGS = 6


def _polish(theta, x, w, df, skip=None):
    """Projected Newton on ``(mu, log sigma, log nu)`` for each row of weights ``w``."""
    return _newton(_MeanLoglik(x, w), theta, df, skip)


def _newton(objective: _Loglik, theta, df, skip=None):
    """Projected Newton on ``objective`` from ``theta`` (rows), ``nu`` in its range or fixed.

    A NaN value is the moment series out of its range: after :data:`_NAN_HALVINGS` such
    steps in one line search the problem is given up (and solved on the scores).
    """
    if df is None:
        low, high = np.log(DF_MIN), np.log(DF_MAX)
    else:
        low = high = np.log(float(df))
    lower = np.array([-np.inf, -np.inf, low])
    upper = np.array([np.inf, np.inf, high])
    return projected_newton(objective.value, objective.derivatives, theta, lower, upper, skip,
                            nan_halvings=_NAN_HALVINGS if isinstance(objective, _MomentLoglik)
                            else None)


def fit_t(values: np.ndarray, df: float | None = None, weight: np.ndarray | None = None) -> TFit:
    """Maximum-likelihood Student-t location, scale (and degrees of freedom) by ECME.

    Parameters
    ----------
    values : ndarray
        Scores of one class (finite, not all equal).
    df : float, optional
        Fixed degrees of freedom; ``None`` estimates them within ``[DF_MIN, DF_MAX]``.
    weight : ndarray, optional
        How often each score counts (positive; integer counts give the fit on the repeated
        scores): the fit then runs on the distinct scores weighted by their summed weights,
        from the weighted median and MAD.

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
    kept. From :data:`~forensic_lr.calibration.grouping.GROUPED_FROM` scores on, ECME
    runs on two-point groups of neighbouring scores (about 2,000 points that keep each
    group's weight, mean and variance, :func:`~forensic_lr.calibration.grouping.pool`,
    grouped on ``(x - median) / (1.4826 MAD)``) and Newton on the distinct scores weighted
    by their counts (the same likelihood) ends from there at the same maximum in a few
    steps; where it does not converge the fit is the direct one. ``n_iter`` counts the
    ECME iterations (on the groups where they were used).

    References
    ----------
    .. [1] C. Liu, D. B. Rubin, "ML estimation of the t distribution using EM and its
           extensions, ECM and ECME", Statistica Sinica 5 (1995) 19-39.
    """
    counts = None
    if weight is not None:
        values, counts = distinct_weights(values, weight)
    n = values.size if counts is None else float(counts.sum())
    mu = _median(values, counts)
    sigma = 1.4826 * _median(np.abs(values - mu), counts)
    if sigma == 0:
        sigma = float(np.sqrt(weighted_moments(values, counts)[1]))
    if n >= GROUPED_FROM:
        fit = _grouped_fit_t(values, counts, mu, sigma, df)
        if fit is not None:
            return fit
    mu, sigma, nu, iteration = _ecme(values, counts, mu, sigma, df)
    start = np.array([[mu, np.log(sigma), np.log(nu)]])
    weights = (np.full((1, values.size), 1.0 / values.size) if counts is None
               else counts[None, :] / n)
    theta, converged = _polish(start, values, weights, df)
    if converged[0]:
        mu, sigma, nu = float(theta[0, 0]), float(np.exp(theta[0, 1])), float(
            np.exp(theta[0, 2])
        )
        if df is not None:
            nu = float(df)
    return TFit(mu, sigma, nu, _loglik(values, counts, nu, mu, sigma), iteration)


def _median(values: np.ndarray, counts: np.ndarray | None) -> float:
    """Median of ``values`` each counted ``counts`` times (None: once), as :func:`numpy.median`
    of the repeated values."""
    if counts is None:
        return float(np.median(values))
    return float(weighted_percentiles(values, counts, 0.5))


def _loglik(values, counts, nu, mu, sigma) -> float:
    """Log-likelihood of the scores ``values``, each ``counts`` times (None: once)."""
    if counts is None:
        return float(np.sum(student_t_logpdf(values, nu, mu, sigma)))
    return float(counts @ student_t_logpdf(values, nu, mu, sigma))


def _ecme(values, counts, mu, sigma, df):
    """ECME from ``(mu, sigma)`` (and ``nu = 10`` or ``df``) on ``values`` each ``counts`` times.

    Returns ``(mu, sigma, nu, iterations)`` where the log-likelihood gains less than 1e-11
    relative; see :func:`fit_t`.
    """
    n = values.size if counts is None else float(np.sum(counts))

    def total(a):
        return np.sum(a) if counts is None else counts @ a

    nu = 10.0 if df is None else float(df)
    loglik = _loglik(values, counts, nu, mu, sigma)
    for iteration in range(1, _MAX_ITER + 1):
        d2 = ((values - mu) / sigma) ** 2
        w = (nu + 1) / (nu + d2)
        mu = float(total(w * values) / total(w))
        sigma = float(np.sqrt(total(w * (values - mu) ** 2) / n))
        if df is None:
            nu = _best_df(((values - mu) / sigma) ** 2, counts)
        new = _loglik(values, counts, nu, mu, sigma)
        if abs(new - loglik) <= _TOL * (1.0 + abs(new)):
            return mu, sigma, nu, iteration
        loglik = new
    raise ConvergenceError(
        f"Student-t fit did not converge in {_MAX_ITER} iterations; fix the degrees of "
        "freedom (option df, e.g. df = 5) or use the 'gaussian' method"
    )


def _grouped_fit_t(values, counts, mu, sigma, df) -> TFit | None:
    """The ML fit from a grouped warm start, or None where Newton does not converge.

    ECME (:func:`_ecme`) from ``(mu, sigma)`` runs on groups of neighbouring scores
    (:func:`~forensic_lr.calibration.grouping.group_starts` on ``(x - mu) / sigma``, each
    group two points that keep its count, mean and variance,
    :func:`~forensic_lr.calibration.grouping.pool`);
    projected Newton on the distinct scores weighted by their counts (the same objective as
    on every score) then ends at the exact maximum from there.
    """
    distinct, counts = distinct_weights(values) if counts is None else (values, counts)
    n = float(counts.sum())
    points, totals = pool(distinct, counts, group_starts((distinct - mu) / sigma))
    try:
        g_mu, g_sigma, g_nu, iteration = _ecme(points, totals, mu, sigma, df)
    except ConvergenceError:
        return None
    start = np.array([[g_mu, np.log(g_sigma), np.log(g_nu)]])
    theta, converged = _polish(start, distinct, counts[None, :] / n, df)
    if not converged[0]:
        return None
    mu, sigma = float(theta[0, 0]), float(np.exp(theta[0, 1]))
    nu = float(np.exp(theta[0, 2])) if df is None else float(df)
    return TFit(mu, sigma, nu, _loglik(distinct, counts, nu, mu, sigma), iteration)


class StudentTCalibrator(RefitsOnce, BaseCalibrator):
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
    title = N_("Student-t calibration")
    summary = N_(
        "A Student-t density (location, scale and degrees of freedom by maximum likelihood) "
        "is fitted to each class of background scores, and the LR is the ratio of the two "
        "densities. Its heavier tails make the LR of an outlying score grow more slowly "
        "than under normal densities."
    )
    equation = N_("LR(s) = t(s; same-source fit) / t(s; different-source fit)")
    reference = (
        "N. Brummer, A. Swart, D. van Leeuwen, A comparison of linear and non-linear "
        "calibrations for speaker recognition, Odyssey 2014, 14-18."
    )

    def __init__(self, *, df: float | None = None) -> None:
        self.df = df

    def check_options(self) -> None:
        if self.df is not None:  # None: estimated from the data
            number_option(self.df, "df")

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> StudentTCalibrator:
        """ML t fit per class (:func:`fit_t`); weights as in
        :class:`~forensic_lr.calibration.base.Calibrator`."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        df = None if self.df is None else number_option(self.df, "df")
        self.fit_ss_ = fit_t(ss, df, w_ss)
        self.fit_ds_ = fit_t(ds, df, w_ds)
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        s = self._scores(scores)
        a, b = self.fit_ss_, self.fit_ds_
        return (student_t_logpdf(s, a.df, a.loc, a.scale)
                - student_t_logpdf(s, b.df, b.loc, b.scale))

    def density(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """Fitted SS and DS probability densities at ``scores``."""
        s = self._scores(scores)
        a, b = self.fit_ss_, self.fit_ds_
        return (np.exp(student_t_logpdf(s, a.df, a.loc, a.scale)),
                np.exp(student_t_logpdf(s, b.df, b.loc, b.scale)))

    def params(self) -> dict:
        self.check_fitted()
        return {
            "df_option": None if self.df is None else float(self.df),
            "ss": self.fit_ss_.to_dict(),
            "ds": self.fit_ds_.to_dict(),
        }

    def bootstrap_fits(self, ss, ds, *, n, rng, progress=None) -> BootstrapFits:
        """``n`` bootstrap refits, solved together by Newton's method.

        Parameters
        ----------
        ss, ds : array_like
            Background scores.
        n : int
            Number of replicates.
        rng : numpy.random.Generator
            Source of the draws (:func:`forensic_lr.resampling.bootstrap_index_chunks`).
        progress : callable, optional
            Called as ``progress(done, n)`` after each block of replicates.

        Returns
        -------
        BootstrapFits
            Replicate ``b`` evaluates as ``fit(ss[idx_ss[b]], ds[idx_ds[b]]).llr`` to about
            1e-9; NaN where that fit is refused or fails (a constant resample).

        Notes
        -----
        Each class is fitted on its own. A resample is a vector of draw counts over the
        distinct scores of the class, so replicate ``b`` maximises the mean log-likelihood
        with weights ``c_bi / n``; all replicates are solved at once by the projected
        Newton iteration :func:`fit_t` ends with, starting from the full-data fit, and stop
        at the same maximum as the looped fit to the rounding level.

        The weighted sums each Newton step needs come from the power moments of the
        scores (:class:`_MomentLoglik`): one matrix product of the draw counts with the
        table of ``v_i^l`` per block of replicates, after which a step costs ``O(J^2)``
        per replicate whatever the number of scores. Where the power series would not
        give the sums to the rounding unit (heavy tails: small ``nu`` or far outliers)
        the replicate is solved on the scores themselves. A replicate where Newton's
        method does not converge is refitted by :meth:`fit`, and so is every replicate
        when a class has fewer than
        :data:`~forensic_lr.calibration.batched_newton.BATCH_FROM` scores.
        """
        ss, ds = self._validate(ss, ds)
        full = StudentTCalibrator(df=self.df).fit(ss, ds)
        small = min(ss.size, ds.size) < BATCH_FROM
        per_chunk = max(1, CHUNK_DRAWS // max(ss.size, ds.size))
        classes = [
            _Resamples(values, fitted, n, small, per_chunk, self.df)
            for values, fitted in ((ss, full.fit_ss_), (ds, full.fit_ds_))
        ]
        bad = np.zeros(n, dtype=bool)
        replay = copy.deepcopy(rng)
        done = 0
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            rows = np.arange(done, done + idx_ss.shape[0])
            for resamples, idx in zip(classes, (idx_ss, idx_ds), strict=True):
                bad[rows] |= resamples.add(rows, idx)
            done += rows.size
            if progress is not None:
                progress(done, n)
        for resamples in classes:
            resamples.solve(bad)
        left = ~bad & ~(classes[0].ok & classes[1].ok)
        if left.any():  # the same draws again, for the few replicates still to solve
            done = 0
            model = StudentTCalibrator(df=self.df)
            for idx_ss, idx_ds in bootstrap_index_chunks(replay, n, ss.size, ds.size):
                rows = np.arange(done, done + idx_ss.shape[0])
                done += rows.size
                redo = np.flatnonzero(left[rows])
                if not redo.size:
                    continue
                for resamples, idx in zip(classes, (idx_ss, idx_ds), strict=True):
                    resamples.solve_on_scores(rows[redo], idx[redo])
                fitted = classes[0].ok[rows[redo]] & classes[1].ok[rows[redo]]
                for r in redo[~fitted]:
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            model.fit(ss, ds, *replicate_weights(idx_ss[r], idx_ds[r],
                                                                 ss.size, ds.size))
                    except ForensicLRError:
                        bad[rows[r]] = True
                        continue
                    for resamples, fit in zip(classes, (model.fit_ss_, model.fit_ds_),
                                              strict=True):
                        resamples.set_fit(rows[r], fit)

        # only the parameters are kept (not the draw counts and moment tables)
        theta_ss, theta_ds, df = classes[0].theta, classes[1].theta, self.df

        def evaluate(s: np.ndarray, rows: np.ndarray) -> np.ndarray:
            out = (_replicate_logpdf(theta_ss, df, s, rows)
                   - _replicate_logpdf(theta_ds, df, s, rows))
            out[bad[rows]] = np.nan
            return out

        return BootstrapFits(n, evaluate)


class _Resamples:
    """The bootstrap resamples of one class: draw counts, moments and fitted parameters.

    ``add`` takes the draws of a block of replicates; ``solve`` fits them all (from the
    power moments, :class:`_MomentLoglik`, where the series serves the class at its
    full-data fit; else on the scores block by block as they come); ``solve_on_scores``
    fits given replicates on their scores; ``set_fit`` takes a replicate refitted by
    :func:`fit_t`. ``theta`` rows are ``(mu, log sigma, log nu)`` (evaluated by
    :func:`_replicate_logpdf`) and ``ok`` says which converged.
    """

    def __init__(self, values, fitted: TFit, n: int, small: bool, per_chunk: int, df) -> None:
        distinct, codes = np.unique(values, return_inverse=True)
        # without ties the draws are counted on the scores as they are (no recoding)
        self.points, self.codes = (values, None) if distinct.size == values.size else (
            distinct, codes)
        self.size, self.small, self.df = values.size, small, df
        self.start = np.array([fitted.loc, np.log(fitted.scale), np.log(fitted.df)])
        self.theta = np.tile(self.start, (n, 1))
        self.ok = np.zeros(n, dtype=bool)
        self.table = None
        half = float(np.max(np.abs(distinct - fitted.loc)))
        if small or half == 0:
            return
        v_range = ((distinct[0] - fitted.loc) / half, (distinct[-1] - fitted.loc) / half)
        self.model_args = (fitted.loc, half, v_range)
        probe = _MomentLoglik(fitted.loc, half, np.zeros((1, 2 * SERIES_TERMS + 2)), v_range)
        if not probe._central(self.start[None], np.array([0]))[2][0]:
            return  # heavy tails: the series does not serve even the full-data fit
        v = (self.points - fitted.loc) / half
        self.table = exact_sum_split(np.vander(v, 2 * SERIES_TERMS + 2, increasing=True),
                                     self.size)
        self.moments = np.empty((n, 2 * SERIES_TERMS + 2))
        # the counts of MOMENT_ROWS replicates per product (OpenBLAS shares a product of
        # few rows badly between threads: 2.6x slower per row at 40 rows than at 200 on 2
        # cores), but at most 8 draw chunks' worth (256 MB) however many scores
        rows = min(MOMENT_ROWS, max(per_chunk, 8 * CHUNK_DRAWS // self.points.size))
        self.buffer = np.empty((min(n, per_chunk * -(-rows // per_chunk)), self.points.size))
        self.pending: list[np.ndarray] = []

    def _counts(self, idx, out=None):
        if out is None:
            out = np.empty((idx.shape[0], self.points.size))
        for row, draws in zip(out, idx if self.codes is None else self.codes[idx], strict=True):
            row[:] = np.bincount(draws, minlength=self.points.size)
        return out

    def add(self, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Take the draws ``idx`` of replicates ``rows``; return which are degenerate."""
        if self.table is None:
            counts = self._counts(idx)
            bad = np.count_nonzero(counts, axis=1) < 2
            self.theta[rows], self.ok[rows] = _polish(
                self.theta[rows], self.points, counts / self.size, self.df, bad | self.small
            )
            return bad
        filled = sum(r.size for r in self.pending)
        if filled + rows.size > self.buffer.shape[0]:
            self._flush()
            filled = 0
        counts = self._counts(idx, self.buffer[filled : filled + rows.size])
        self.pending.append(rows)
        return np.count_nonzero(counts, axis=1) < 2

    def _flush(self) -> None:
        if self.pending:
            rows = np.concatenate(self.pending)
            parts = self.buffer[: rows.size] @ self.table
            half = parts.shape[1] // 2
            self.moments[rows] = (parts[:, :half] + parts[:, half:]) / self.size
            self.pending = []

    def solve(self, bad: np.ndarray) -> None:
        """Fit every replicate from its moments (the classes solved on the scores are done)."""
        if self.table is None:
            return
        self._flush()
        objective = _MomentLoglik(self.model_args[0], self.model_args[1], self.moments,
                                  self.model_args[2])
        with np.errstate(all="ignore"):
            self.theta, self.ok = _newton(objective, self.theta, self.df, bad)

    def solve_on_scores(self, rows: np.ndarray, idx: np.ndarray) -> None:
        """Fit the replicates ``rows`` (draws ``idx``) not yet solved, on their scores."""
        todo = ~self.ok[rows]
        if self.table is None or not todo.any():  # solved on the scores already
            return
        rows, counts = rows[todo], self._counts(idx[todo])
        self.theta[rows], self.ok[rows] = _polish(
            np.tile(self.start, (rows.size, 1)), self.points, counts / self.size, self.df
        )

    def set_fit(self, row: int, fit: TFit) -> None:
        """Take the parameters of replicate ``row`` from a fit made by :func:`fit_t`."""
        self.theta[row] = (fit.loc, np.log(fit.scale), np.log(fit.df))
        self.ok[row] = True


def _replicate_logpdf(theta: np.ndarray, df, scores: np.ndarray, rows) -> np.ndarray:
    """Student-t log density of the replicates ``rows`` (rows of ``(mu, log sigma, log nu)``;
    ``nu = df`` when the degrees of freedom are fixed) at ``scores`` (columns)."""
    theta = np.atleast_2d(theta[rows])
    nu = np.exp(theta[:, 2:]) if df is None else float(df)
    return student_t_logpdf(scores, nu, theta[:, :1], np.exp(theta[:, 1:2]))
