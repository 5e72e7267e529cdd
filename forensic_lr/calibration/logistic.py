"""Discriminative calibration: prior-weighted logistic regression (the Cllr objective)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ..errors import ConvergenceError
from ..i18n import N_
from ..resampling import CHUNK_DRAWS, bootstrap_index_chunks
from .base import BaseCalibrator, bool_option, number_option, weighted_moments
from .bootstrap_fits import BootstrapFits, RefitsOnce

_MAX_ITER = 100
_GRAD_TOL = 1e-10
_STEP_TOL = 1e-12
#: A training cross-entropy this small (nats) is only reached by separated classes, where
#: the loss tends to zero as the slope grows without bound (no finite optimum).
_SEPARATED = 1e-8
_SEPARATED_TEXT = (
    "logistic calibration has no finite solution: the SS and DS scores are (almost) "
    "perfectly separated, so the best fit has an infinite slope and would report "
    "infinite LRs. Use the 'pav' or 'bayes' method, or set a penalty, e.g. l2 = 0.01"
)


def _softplus_loss(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``sum_i w_i log(1 + e^{-z_i})`` for SS (y = 1), ``log(1 + e^{z_i})`` for DS (last axis)."""
    return np.sum(w * np.logaddexp(0.0, np.where(y == 1, -z, z)), axis=-1)


def _objective(theta, x, y, w, l2):
    return _softplus_loss(x @ theta, y, w) + 0.5 * l2 * np.sum(theta[1:] ** 2)


def _gradient_hessian(theta, x, y, w, penalty):
    p = expit(x @ theta)
    grad = x.T @ (w * (p - y)) + penalty * theta
    hess = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty)
    return grad, hess


def logistic_newton(x, y, w, l2, theta0):
    """Minimise the weighted cross-entropy (+ ridge on ``theta[1:]``) from ``theta0``.

    Newton's method with Armijo backtracking; stops when every gradient component is
    below 1e-10 or the Newton step is below 1e-12 relative to ``theta``. If 100 Newton
    iterations do not get there, ``scipy.optimize.minimize`` (trust-exact, with the
    exact gradient and Hessian) takes over. Returns ``(theta, iterations)``.

    Raises
    ------
    ConvergenceError
        The loss vanishes or ``theta`` diverges without a penalty (separated classes),
        or neither solver reaches the tolerance.
    """
    penalty = np.full(x.shape[1], float(l2))
    penalty[0] = 0.0
    theta = np.array(theta0, dtype=np.float64)
    value = _objective(theta, x, y, w, l2)
    for iteration in range(1, _MAX_ITER + 1):
        grad, hess = _gradient_hessian(theta, x, y, w, penalty)
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:  # every p (1 - p) underflowed: the classes separate
            raise ConvergenceError(_SEPARATED_TEXT) from None
        small_step = np.max(np.abs(step)) < _STEP_TOL * (1.0 + np.max(np.abs(theta)))
        if np.max(np.abs(grad)) < _GRAD_TOL or small_step:
            # the gradient can sit at its rounding floor (about 1e-10 for thousands of
            # terms): a vanishing Newton step then means convergence too
            if l2 == 0 and value < _SEPARATED:
                raise ConvergenceError(_SEPARATED_TEXT)
            # the last (tiny) Newton step polishes the solution to rounding level
            return theta - step, iteration
        size, slope = 1.0, grad @ -step
        while True:
            candidate = theta - size * step
            new_value = _objective(candidate, x, y, w, l2)
            # Armijo condition, with slack for rounding once the loss is flat to ~1e-16
            if new_value <= value + 1e-4 * size * slope + 1e-14 * abs(value) or size < 1e-10:
                break
            size *= 0.5
        theta, value = candidate, new_value
        if np.max(np.abs(theta)) > 1e8:
            raise ConvergenceError(_SEPARATED_TEXT)
    return _scipy_fallback(x, y, w, l2, theta, penalty)


def _scipy_fallback(x, y, w, l2, theta, penalty):
    """Second attempt with scipy's trust-region solver when Newton ran out of iterations."""
    result = minimize(
        _objective,
        theta,
        args=(x, y, w, l2),
        jac=lambda t, *a: _gradient_hessian(t, x, y, w, penalty)[0],
        hess=lambda t, *a: _gradient_hessian(t, x, y, w, penalty)[1],
        method="trust-exact",
        options={"gtol": _GRAD_TOL, "maxiter": 1000},
    )
    grad = _gradient_hessian(result.x, x, y, w, penalty)[0]
    if l2 == 0 and result.fun < _SEPARATED:
        raise ConvergenceError(_SEPARATED_TEXT)
    if not np.max(np.abs(grad)) < 1e3 * _GRAD_TOL:
        raise ConvergenceError(
            f"logistic calibration did not converge (largest gradient component "
            f"{np.max(np.abs(grad)):.3g} after Newton and scipy trust-exact); check the "
            "scores for extreme outliers or use the 'pav' or 'bayes' method"
        )
    return result.x, _MAX_ITER + int(result.nit)


def _separated(ss_min, ss_max, ds_min, ds_max):
    """Whether a monotone (linear) fit has no finite optimum: the classes do not overlap.

    The maximum-likelihood slope is finite exactly when some DS score exceeds some SS
    score and vice versa; touching classes (``max ds == min ss``) are quasi-separated,
    which has no finite optimum either.
    """
    return (ds_max <= ss_min) | (ss_max <= ds_min)


def class_weight(size: int, weight: np.ndarray | None) -> np.ndarray:
    """The prior-neutral weight of each score of one class: its share of half the total."""
    return np.full(size, 0.5 / size) if weight is None else 0.5 * weight / weight.sum()


def standardisation(m_ss, v_ss, m_ds, v_ds):
    """Centre and scale of the pooled background with the two classes weighted equally."""
    return 0.5 * (m_ss + m_ds), np.sqrt(0.5 * (v_ss + v_ds) + 0.25 * (m_ss - m_ds) ** 2)


class LogisticCalibrator(RefitsOnce, BaseCalibrator):
    """LLR = a + b s (+ c s^2) fitted by prior-weighted logistic regression.

    Parameters
    ----------
    quadratic : bool
        Add a quadratic term ``c s^2`` (default False). The LLR is then not monotone in
        general.
    l2 : float
        Ridge penalty strength ``lambda >= 0`` (default 0: plain maximum likelihood), see
        Notes for exactly what it multiplies.

    Attributes
    ----------
    theta_ : ndarray
        Coefficients on the standardised score ``u = (s - centre_) / scale_``.
    centre_, scale_ : float
        Mean and standard deviation of the background scores with the two classes
        weighted equally: ``centre = (m_ss + m_ds) / 2``,
        ``scale^2 = (v_ss + v_ds) / 2 + (m_ss - m_ds)^2 / 4`` (ML variances).
    n_iter_ : int
        Newton iterations used.

    Notes
    -----
    With ``z(s) = t0 + t1 u (+ t2 u^2)``, ``u = (s - centre) / scale``, the fit minimises

    ``J = 1/(2 N_ss) sum_ss log(1 + e^{-z}) + 1/(2 N_ds) sum_ds log(1 + e^{z})
    + (lambda / 2) (t1^2 + t2^2)``

    Each class weighs 1/2 whatever its size, so ``z`` is a log *likelihood* ratio
    (prior log odds 0) and, without the penalty, ``J / ln 2`` is the Cllr of the
    training scores [1]_ [2]_. The penalty acts on the coefficients of the
    *standardised* score, so its effect does not depend on the units of the score,
    and it does not shrink the intercept. It is not divided by the number of scores:
    its weight relative to the data term (a mean, not a sum) stays the same as the
    background grows. In scikit-learn's parameterisation (sum of balanced-weight
    losses plus ``||w||^2 / (2 C)`` on the raw-score coefficients) this is
    ``C = 1 / (lambda N)`` after standardising the scores, ``N = N_ss + N_ds``.

    Newton's method with backtracking line search, stopped when every gradient
    component is below 1e-10 (or the Newton step is below 1e-12 relative, the rounding
    floor), with ``scipy.optimize.minimize`` (trust-exact) as fallback. Without a
    penalty, classes that do not overlap (``max(ds) <= min(ss)``) have no finite
    solution: the fit raises :class:`~forensic_lr.errors.ConvergenceError` instead of
    returning huge coefficients. ``llr`` is finite for every finite score.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    .. [2] N. Brummer, D. A. van Leeuwen, "On calibration of language recognition
           scores", IEEE Odyssey 2006.
    """

    name = "logistic"
    title = N_("Logistic regression calibration")
    summary = N_(
        "The natural-log LR is a straight line in the score, a + b s, with a and b chosen "
        "to minimise the log-likelihood-ratio cost (Cllr) of the background scores, the two "
        "classes weighted equally (prior-weighted logistic regression). Options add a "
        "quadratic term or a ridge penalty."
    )
    equation = "ln LR(s) = a + b s"
    reference = (
        "N. Brummer, J. du Preez, Application-independent evaluation of speaker detection, "
        "Computer Speech and Language 20 (2006) 230-275."
    )
    in_default_study = True

    def __init__(self, *, quadratic: bool = False, l2: float = 0.0) -> None:
        self.quadratic = quadratic
        self.l2 = l2

    def check_options(self) -> None:
        self._l2()

    def _l2(self) -> float:
        """The checked options: ``quadratic`` a bool, ``l2`` (returned) a number >= 0."""
        bool_option(self.quadratic, "quadratic")
        return number_option(self.l2, "l2", strict=False)

    def _features(self, s: np.ndarray) -> np.ndarray:
        u = (s - self.centre_) / self.scale_
        cols = [np.ones_like(u), u] + ([u * u] if self.quadratic else [])
        return np.stack(cols, axis=-1)

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> LogisticCalibrator:
        """Fit by Newton's method; weights as in
        :class:`~forensic_lr.calibration.base.Calibrator`: score ``i`` of a class of total
        weight ``W`` enters ``J`` with ``w_i / (2 W)`` instead of ``1 / (2 N)``, and the
        standardisation uses the weighted moments."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        l2 = self._l2()
        if l2 == 0 and _separated(ss.min(), ss.max(), ds.min(), ds.max()):
            raise ConvergenceError(_SEPARATED_TEXT)
        centre, scale = standardisation(*weighted_moments(ss, w_ss),
                                         *weighted_moments(ds, w_ds))
        self.centre_, self.scale_ = float(centre), float(scale)
        x = self._features(np.concatenate([ss, ds]))
        y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
        w = np.concatenate([class_weight(ss.size, w_ss), class_weight(ds.size, w_ds)])
        self.theta_, self.n_iter_ = logistic_newton(x, y, w, l2, np.zeros(x.shape[1]))
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        return self._features(self._scores(scores)) @ self.theta_

    def coefficients(self) -> tuple[float, ...]:
        """``(a, b)`` or ``(a, b, c)`` of ``llr = a + b s + c s^2`` in raw score units."""
        self.check_fitted()
        m, d = self.centre_, self.scale_
        t = self.theta_
        if not self.quadratic:
            return (float(t[0] - t[1] * m / d), float(t[1] / d))
        return (
            float(t[0] - t[1] * m / d + t[2] * m * m / d**2),
            float(t[1] / d - 2 * t[2] * m / d**2),
            float(t[2] / d**2),
        )

    def params(self) -> dict:
        names = ("intercept", "slope", "quadratic")
        out: dict = dict(zip(names, self.coefficients(), strict=False))
        out.update(
            l2=float(self.l2),
            centre=self.centre_,
            scale=self.scale_,
            iterations=int(self.n_iter_),
        )
        return out

    def bootstrap_fits(self, ss, ds, *, n, rng, progress=None) -> BootstrapFits:
        """``n`` bootstrap refits solved together (Newton on moments).

        Parameters
        ----------
        ss, ds : array_like
            Background scores.
        n : int
            Number of replicates.
        rng : numpy.random.Generator
            Source of the resampling draws (:func:`forensic_lr.resampling.bootstrap_index_chunks`).
        progress : callable, optional
            Called as ``progress(done, n)`` after each block of replicates.

        Returns
        -------
        BootstrapFits
            Replicate ``b`` evaluates as ``fit(ss[idx_ss[b]], ds[idx_ds[b]]).llr`` to
            about 1e-9; NaN where that fit would fail (a constant or separated resample)
            or the batched iteration does not converge.

        Notes
        -----
        A resample is a vector of multiplicities over the background scores, so all
        replicates share one feature matrix ``X`` (standardised with the full data).
        Replicate ``b`` standardises with its own centre and scale, exactly as
        :meth:`fit` does, which is an affine change of the score: its features are
        ``X T_b`` with an upper-triangular ``T_b``. Newton's method then runs on all
        replicates at once: gradients ``T_b' X' (w_b (p_b - y)) + lambda theta_b`` and
        Hessians ``T_b' X' W_b X T_b + diag(lambda)``, the 2x2 (3x3) systems solved
        together by ``numpy.linalg.solve``, with the same stopping rule as :meth:`fit`,
        starting from the full-data solution.

        The sums over the scores are not formed per Newton step: ``_TaylorModel`` expands
        the logistic function about the full-data fit, so that every replicate's gradient
        and Hessian are combinations of moments that come out of one product of the draw
        counts with a fixed table (the class means and variances of the resamples, and
        whether a resample could be constant or separated, come from the same product).
        The truncation error is bounded; a replicate whose solution is not proven to
        1e-11, or whose step would need a line search, takes the exact iteration
        ``batched_logistic_newton`` (with per-replicate Armijo backtracking wherever a full step
        could fail) from where it stands.
        """
        ss, ds = self._validate(ss, ds)
        l2 = self._l2()
        full = LogisticCalibrator(quadratic=self.quadratic, l2=l2).fit(ss, ds)
        both = np.concatenate([ss, ds])
        x = full._features(both)
        y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
        # class moments and the side of the full-data centre, from the same matrix product
        is_ss = y == 1
        shifted = both - full.centre_
        below = both <= full.centre_
        extra = np.stack(
            [is_ss * shifted, is_ss * shifted**2, ~is_ss * shifted, ~is_ss * shifted**2,
             is_ss & below, ~is_ss & below],
            axis=1,
        ).astype(np.float64)
        # prior-neutral weight of one draw of each score: a row of counts times these
        weight = np.where(is_ss, 0.5 / ss.size, 0.5 / ds.size)
        taylor = _TaylorModel(x, y, full.theta_, extra, weight)
        solved = []
        n_all = ss.size + ds.size
        per_chunk = max(1, CHUNK_DRAWS // max(ss.size, ds.size))  # rows of one draw chunk
        capacity = per_chunk * -(-min(n, MOMENT_ROWS) // per_chunk)
        block = np.empty((min(capacity, n), n_all))
        filled = 0

        def solve(counts):
            mom = taylor.moments(counts)
            m1, m2, m3, m4, low_ss, low_ds = (2.0 * c for c in mom[:, taylor.extra_start :].T)
            d_ss, d_ds = m1, m3  # class means minus the full centre
            v_ss, v_ds = np.maximum(m2 - d_ss**2, 0.0), np.maximum(m4 - d_ds**2, 0.0)
            centre, scale = standardisation(d_ss, v_ss, d_ds, v_ds)
            centre = centre + full.centre_
            # draws on both sides of the centre in both classes: neither class is constant
            # and each class has a score beyond some score of the other (not separated)
            half_ss, half_ds = 1.0 - 0.5 / ss.size, 1.0 - 0.5 / ds.size
            sure = (low_ss > 0) & (low_ss < half_ss) & (low_ds > 0) & (low_ds < half_ds)
            bad = np.zeros(counts.shape[0], dtype=bool)
            for r in np.flatnonzero(~sure):  # look at the drawn scores themselves
                r_ss, r_ds = ss[counts[r, : ss.size] > 0], ds[counts[r, ss.size :] > 0]
                bad[r] = r_ss.min() == r_ss.max() or r_ds.min() == r_ds.max()
                if l2 == 0:
                    bad[r] |= _separated(r_ss.min(), r_ss.max(), r_ds.min(), r_ds.max())
            scale = np.where(bad | ~(scale > 0), 1.0, scale)
            # replicate features: u_b = a u + c with a = scale_full / scale_b
            a = full.scale_ / scale
            c = (full.centre_ - centre) / scale
            t_mat = _affine_feature_map(a, c, self.quadratic)
            start = np.tile(full.theta_, (a.size, 1))[..., None]
            theta0 = np.linalg.solve(t_mat, start)[..., 0]
            theta, done = _taylor_newton(taylor, mom, l2, t_mat, theta0, bad)
            redo = np.flatnonzero(~done & ~bad)
            if redo.size:  # outside the expansion's proven accuracy: the exact iteration
                w = counts[redo] * weight
                theta[redo], done[redo] = batched_logistic_newton(
                    x, y, w, l2, t_mat[redo], theta[redo], np.zeros(redo.size, bool)
                )
            beta = np.einsum("kij,kj->ki", t_mat, theta)  # coefficients on the full-data features
            return beta, bad | ~done

        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            k = idx_ss.shape[0]
            if filled + k > block.shape[0]:
                solved.append(solve(block[:filled]))
                filled = 0
            _pair_counts(idx_ss, idx_ds, block[filled : filled + k])
            filled += k
            if progress is not None:
                progress(sum(r[0].shape[0] for r in solved) + filled, n)
        solved.append(solve(block[:filled]))
        beta, failed = (np.concatenate(column) for column in zip(*solved, strict=True))

        def evaluate(s: np.ndarray, index: np.ndarray) -> np.ndarray:
            out = beta[index] @ full._features(s).T
            out[failed[index]] = np.nan
            return out

        return BootstrapFits(n, evaluate)


#: Replicates whose moments are computed in one matrix product: OpenBLAS shares a product
#: with few rows badly between threads on a busy machine (measured 10-40x slower per row
#: below about 150 rows on 2 cores), so the draw counts of several chunks are collected.
MOMENT_ROWS = 192
#: Order K of the Taylor expansion of the logistic function in ``_TaylorModel``.
_TAYLOR_ORDER = 12
#: Radius of the Cauchy circle: sigma is analytic in the strip |Im z| < pi, and on the
#: circle of radius 3 pi / 4 around a real point |sigma| <= 1 / sin(3 pi / 4).
_TAYLOR_RADIUS = 0.75 * np.pi
#: Largest proven error (in the coefficients) for which the expansion's answer is kept.
_TAYLOR_TOL = 1e-11


def _sigmoid_derivative_polys(order: int) -> list[np.ndarray]:
    """Coefficients of ``P_d`` with ``sigma^(d)(z) = P_d(sigma(z))``, ``d = 0..order``.

    ``P_0(s) = s`` and ``P_{d+1}(s) = P_d'(s) s (1 - s)`` since ``sigma' = sigma (1 - sigma)``.
    """
    poly = np.polynomial.polynomial
    out = [np.array([0.0, 1.0])]
    for _ in range(order):
        out.append(poly.polymul(poly.polyder(out[-1]), [0.0, 1.0, -1.0]))
    return out


def _poly_powers(coef: np.ndarray, order: int) -> list[np.ndarray]:
    """Coefficients (last axis, low to high) of ``q(u)^k`` for ``k = 0..order``, per row."""
    out = [np.ones((*coef.shape[:-1], 1))]
    for _ in range(order):
        prev = out[-1]
        nxt = np.zeros((*coef.shape[:-1], prev.shape[-1] + coef.shape[-1] - 1))
        for j in range(coef.shape[-1]):
            nxt[..., j : j + prev.shape[-1]] += coef[..., j : j + 1] * prev
        out.append(nxt)
    return out


class _TaylorModel:
    """Weighted logistic gradients and Hessians near a fixed point from shared moments.

    ``extra`` columns are appended to the table, so that their weighted sums come out of
    the same matrix product (from column ``extra_start`` of :meth:`moments`); ``weight``
    is the weight of one draw of each score (the table's rows are scaled by it).

    Notes
    -----
    With features ``x_i = (u_i^0, ..., u_i^p)`` and coefficients ``beta = beta_hat +
    Delta``, the linear predictor moves by ``delta_i = sum_j Delta_j u_i^j``. Expanding
    ``sigma(z_hat_i + delta_i) = sum_k sigma^(k)(z_hat_i) delta_i^k / k!`` and writing
    ``delta_i^k`` as a polynomial in ``u_i``, every replicate's gradient
    ``sum_i w_bi (sigma_i - y_i) x_i`` and Hessian ``sum_i w_bi sigma'_i x_i x_i'``
    become combinations of the moments ``S_b[d, m] = sum_i w_bi sigma^(d)(z_hat_i)
    u_i^m``: one matrix product of the replicate weights with a fixed table, instead
    of a pass over every (replicate, score) pair per Newton step.

    The truncation error is bounded by Cauchy's estimate: on a circle of radius
    ``r = 3 pi / 4`` about a real point, ``|sigma|`` and ``|sigma'| = |sigma(z)
    sigma(-z)|`` are at most ``M = 1 / sin r`` and ``M^2``, so after order K the
    remainder at score i is at most ``M^2 rho_i^(K+1) / (1 - rho_i)`` with ``rho_i =
    |delta_i| / r`` [1]_. Summed with the weights (moments of ``|u|``), this bounds the
    error of each gradient component; divided by the smallest eigenvalue of the
    Hessian it bounds the error of the solution.

    References
    ----------
    .. [1] L. V. Ahlfors, *Complex Analysis*, 3rd ed., McGraw-Hill, 1979, ch. 4,
           sec. 2.3 (Cauchy's estimate for the derivatives of an analytic function).
    """

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        theta_hat: np.ndarray,
        extra: np.ndarray,
        weight: np.ndarray,
    ) -> None:
        order = _TAYLOR_ORDER
        self.p = x.shape[1] - 1  # polynomial degree of the features in u
        self.beta_hat = np.asarray(theta_hat, dtype=np.float64)
        u = x[:, 1]
        sig = expit(x @ self.beta_hat)
        polys = _sigmoid_derivative_polys(order + 1)
        self.width = [self.p * (d + 1) + 1 for d in range(order + 2)]
        self.start = np.concatenate([[0], np.cumsum(self.width)])
        n_abs = self.p * (order + 1) + 2 * self.p + 1
        self.abs_start = int(self.start[-1])
        self.y_start = self.abs_start + n_abs
        self.extra_start = self.y_start + x.shape[1]
        # built column by column as rows of the transpose (contiguous writes)
        cols = np.empty((self.extra_start + extra.shape[1], u.size))
        upow = [weight]
        for _ in range(max(self.width[-1], n_abs)):
            upow.append(upow[-1] * u)
        for d, poly in enumerate(polys):
            deriv = np.polynomial.polynomial.polyval(sig, poly)
            for m in range(self.width[d]):
                np.multiply(deriv, upow[m], out=cols[self.start[d] + m])
        for m in range(n_abs):
            np.abs(upow[m], out=cols[self.abs_start + m])
        cols[self.y_start : self.extra_start] = (weight * y) * x.T
        cols[self.extra_start :] = weight * extra.T
        self.table = cols.T
        self.u_max = float(np.max(np.abs(u)))
        self.factorial = np.cumprod(np.concatenate([[1.0], np.arange(1.0, order + 2)]))

    def moments(self, counts: np.ndarray) -> np.ndarray:
        """The replicate moments ``S_b``, one row per row of ``counts`` (draws per score)."""
        return counts @ self.table

    def gradient_hessian(self, mom: np.ndarray, beta: np.ndarray):
        """Gradients and Hessians on the full-data features at ``beta`` (rows), and the
        bound on the truncation error of each gradient component."""
        order = _TAYLOR_ORDER
        k_rows, m = beta.shape
        delta = beta - self.beta_hat
        q = _poly_powers(delta, order)
        grad = -mom[:, self.y_start : self.y_start + m]
        hess = np.zeros((k_rows, m, m))
        for k in range(order + 1):
            qk = q[k] / self.factorial[k]
            deg = qk.shape[1]
            s_g = mom[:, self.start[k] : self.start[k] + self.width[k]]
            s_h = mom[:, self.start[k + 1] : self.start[k + 1] + self.width[k + 1]]
            for a in range(m):
                grad[:, a] += np.sum(qk * s_g[:, a : a + deg], axis=1)
                for b in range(m):
                    hess[:, a, b] += np.sum(qk * s_h[:, a + b : a + b + deg], axis=1)
        # bound: M^2 / (1 - rho_max) r^-(K+1) sum_i w_i |u_i|^a (sum_j |Delta_j| |u_i|^j)^(K+1)
        radius = _TAYLOR_RADIUS
        rho_max = np.sum(np.abs(delta) * self.u_max ** np.arange(m), axis=1) / radius
        tail = _poly_powers(np.abs(delta), order + 1)[-1]
        a_mom = mom[:, self.abs_start :]
        err = np.stack(
            [np.sum(tail * a_mom[:, a : a + tail.shape[1]], axis=1) for a in range(m)], axis=1
        )
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            factor = np.where(
                rho_max < 0.9,
                (1.0 / np.sin(radius)) ** 2 / (1.0 - rho_max) / radius ** (order + 1),
                np.inf,
            )
        return grad, hess, err * factor[:, None]


def _taylor_newton(taylor: _TaylorModel, mom, l2, t_mat, theta, skip):
    """The Newton iteration of ``batched_logistic_newton`` on the Taylor model of each replicate.

    Same stopping rule and polishing step; a replicate is ``done`` only if it converged
    with full steps (the safe region of ``batched_logistic_newton``) and the proven error of its
    solution is below ``_TAYLOR_TOL``. The others are left to the exact iteration.
    """
    k, m = theta.shape
    penalty = np.full(m, l2)
    penalty[0] = 0.0
    u_low, u_high = -taylor.u_max, taylor.u_max
    converged = np.zeros(k, dtype=bool)
    failed = skip.copy()
    bound = np.full(k, np.inf)
    for _ in range(_MAX_ITER):
        active = ~(converged | failed)
        if not active.any():
            break
        rows = np.flatnonzero(active)
        t_r, th = t_mat[rows], theta[rows]
        g0, h0, err = taylor.gradient_hessian(mom[rows], np.einsum("kij,kj->ki", t_r, th))
        grad = np.einsum("kji,kj->ki", t_r, g0) + penalty * th
        hess = np.einsum("kai,kab,kbj->kij", t_r, h0, t_r) + np.diag(penalty)
        with np.errstate(all="ignore"):
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
            # error of the solution <= |H^-1| |T' e| (e: gradient error on the full features)
            smallest = np.linalg.eigvalsh(hess)[:, 0]
            sol_err = np.linalg.norm(np.einsum("kji,kj->ki", np.abs(t_r), err), axis=1)
            sol_err = np.where(smallest > 0, sol_err / smallest, np.inf)
        bad = ~np.isfinite(step).all(axis=1) | (np.max(np.abs(th), axis=1) > 1e8)
        small = np.max(np.abs(step), axis=1) < _STEP_TOL * (1.0 + np.max(np.abs(th), axis=1))
        newly = ~bad & ((np.max(np.abs(grad), axis=1) < _GRAD_TOL) | small)
        change = _largest_change(np.einsum("kij,kj->ki", t_r, step), u_low, u_high)
        bad |= ~newly & ~(change <= 1.0)  # would need a line search: the exact iteration
        move = ~bad
        theta[rows[move]] = th[move] - step[move]
        converged[rows[newly]] = True
        bound[rows[newly]] = sol_err[newly]
        failed[rows[bad]] = True
    return theta, converged & (bound <= _TAYLOR_TOL)


def _affine_feature_map(a: np.ndarray, c: np.ndarray, quadratic: bool) -> np.ndarray:
    """Matrices ``T_b`` with ``[1, u_b, u_b^2] = [1, u, u^2] T_b`` for ``u_b = a_b u + c_b``."""
    k = a.size
    size = 3 if quadratic else 2
    t = np.zeros((k, size, size))
    t[:, 0, 0] = 1.0
    t[:, 0, 1], t[:, 1, 1] = c, a
    if quadratic:
        t[:, 0, 2], t[:, 1, 2], t[:, 2, 2] = c * c, 2 * a * c, a * a
    return t


def _largest_change(delta: np.ndarray, u_low: float, u_high: float) -> np.ndarray:
    """``max |delta . [1, u, u^2]|`` over ``u`` in ``[u_low, u_high]`` for each row.

    A linear (quadratic) function of ``u`` is largest in magnitude at an end of the
    interval (or at the vertex of the parabola), so three evaluations are exact.
    """
    points = [np.full(delta.shape[0], u_low), np.full(delta.shape[0], u_high)]
    if delta.shape[1] == 3:
        with np.errstate(divide="ignore", invalid="ignore"):
            vertex = -delta[:, 1] / (2 * delta[:, 2])
        points.append(np.clip(np.nan_to_num(vertex), u_low, u_high))
    out = np.zeros(delta.shape[0])
    for u in points:
        feats = np.stack([np.ones_like(u), u, u * u][: delta.shape[1]], axis=1)
        out = np.maximum(out, np.abs(np.sum(delta * feats, axis=1)))
    return out


def batched_logistic_newton(x, y, w, l2, t_mat, theta, skip, largest_change=None):
    """Newton with Armijo backtracking for every replicate at once; see ``bootstrap_llr``.

    Returns ``(theta, converged)``; replicates in ``skip`` are not iterated.
    ``largest_change(delta)``: ``max_i |x_i . delta_r|`` for each row ``delta_r`` of
    coefficients on ``x`` (default: ``x`` is ``[1, u]`` or ``[1, u, u^2]``, bounded over
    the range of ``u``). Every
    (replicates x scores) product is a matrix multiplication: ``z = B X'``, the
    gradients ``(w (p - y)) X`` and the Hessians ``(w p (1 - p)) [x_i x_j]`` at once.

    The objective is only evaluated where a full Newton step could fail the Armijo test.
    Per score the logistic loss has ``|third derivative| <= second derivative``, so along
    a step that changes every linear predictor by at most ``t`` the objective stays
    below its quadratic model with the curvature term scaled by
    ``psi(t) = (e^t - t - 1) / t^2`` (generalised self-concordance [1]_): a Newton step
    with decrement ``delta`` lowers it by at least ``(1 - psi(t)) delta``. With
    ``t <= 1``, ``psi <= 0.72`` and the full step passes Armijo (``c = 1e-4``) for sure.

    References
    ----------
    .. [1] F. Bach, "Self-concordant analysis for logistic regression", Electronic
           Journal of Statistics 4 (2010) 384-414.
    """
    k, m = theta.shape
    penalty = np.full(m, l2)
    penalty[0] = 0.0
    xx = (x[:, :, None] * x[:, None, :]).reshape(x.shape[0], m * m)
    wy = w * y  # softplus(z) - y z is log(1 + e^{-z}) for SS (y = 1), log(1 + e^z) for DS
    if largest_change is None:
        u_low, u_high = float(x[:, 1].min()), float(x[:, 1].max())

        def largest_change(delta):
            return _largest_change(delta, u_low, u_high)

    def values(rows, th):
        z = np.einsum("kij,kj->ki", t_mat[rows], th) @ x.T
        data = np.sum(w[rows] * np.logaddexp(0.0, z), axis=1) - np.sum(wy[rows] * z, axis=1)
        return data + 0.5 * l2 * np.sum(th[:, 1:] ** 2, axis=1)

    converged = np.zeros(k, dtype=bool)
    failed = skip.copy()
    for _ in range(_MAX_ITER):
        p = expit(np.einsum("kij,kj->ki", t_mat, theta) @ x.T)
        wp = w * p
        wpq = np.multiply(wp, p, out=p)  # w p^2 (p's memory is reused, as below)
        np.subtract(wp, wpq, out=wpq)  # w p (1 - p)
        h0 = (wpq @ xx).reshape(k, m, m)
        g0 = np.subtract(wp, wy, out=wp) @ x  # (w p - w y) X
        grad = np.einsum("kji,kj->ki", t_mat, g0) + penalty * theta
        hess = np.einsum("kai,kab,kbj->kij", t_mat, h0, t_mat) + np.diag(penalty)
        with np.errstate(all="ignore"):
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
        failed |= ~np.isfinite(step).all(axis=1) | (np.max(np.abs(theta), axis=1) > 1e8)
        small = np.max(np.abs(step), axis=1) < _STEP_TOL * (1.0 + np.max(np.abs(theta), axis=1))
        newly = ~(converged | failed) & ((np.max(np.abs(grad), axis=1) < _GRAD_TOL) | small)
        theta = theta - np.where(newly[:, None], step, 0.0)  # logistic_newton's polishing step
        converged |= newly
        active = ~(converged | failed)
        if not active.any():
            break
        change = largest_change(np.einsum("kij,kj->ki", t_mat, step))
        sure = active & (change <= 1.0)
        theta = theta - np.where(sure[:, None], step, 0.0)
        search = np.flatnonzero(active & ~sure)
        if search.size:
            th, st = theta[search], step[search]
            value = values(search, th)
            slope = np.sum(grad[search] * -st, axis=1)
            size = np.ones(search.size)
            for _ in range(40):
                candidate = th - size[:, None] * st
                bound = value + 1e-4 * size * slope + 1e-14 * np.abs(value)
                ok = values(search, candidate) <= bound
                if ok.all():
                    break
                size = np.where(ok, size, 0.5 * size)
            theta[search] = candidate
    return theta, converged


def _pair_counts(idx_ss: np.ndarray, idx_ds: np.ndarray, out: np.ndarray) -> None:
    """Write the draws of each SS then each DS score per replicate (row of ``out``).

    One ``bincount`` per row: a single bincount over all rows (offset indices) is several
    times slower, its output being too large for the cache.
    """
    n_ss = out.shape[1] - int(idx_ds.shape[1])
    for row, (i_ss, i_ds) in enumerate(zip(idx_ss, idx_ds, strict=True)):
        out[row, :n_ss] = np.bincount(i_ss, minlength=n_ss)
        out[row, n_ss:] = np.bincount(i_ds, minlength=out.shape[1] - n_ss)
