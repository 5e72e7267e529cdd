"""Discriminative calibration: prior-weighted logistic regression (the Cllr objective)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from .._resample import bootstrap_index_chunks
from ..errors import ConvergenceError, InputError
from .base import BaseCalibrator

_MAX_ITER = 100
_GRAD_TOL = 1e-10
_STEP_TOL = 1e-12
#: A training cross-entropy this small (nats) is only reached by separated classes, where
#: the loss tends to zero as the slope grows without bound (no finite optimum).
_SEPARATED = 1e-8


def _objective(theta, x, y, w, l2):
    z = x @ theta
    loss = np.sum(w * np.where(y == 1, np.logaddexp(0, -z), np.logaddexp(0, z)))
    return loss + 0.5 * l2 * np.sum(theta[1:] ** 2)


def _newton(x, y, w, l2, theta0):
    """Newton's method with backtracking line search on the convex objective."""
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    theta = theta0.copy()
    value = _objective(theta, x, y, w, l2)
    for iteration in range(1, _MAX_ITER + 1):
        p = expit(x @ theta)
        grad = x.T @ (w * (p - y)) + penalty * theta
        if np.max(np.abs(grad)) < _GRAD_TOL:
            if l2 == 0 and value < _SEPARATED:
                break  # "converged" only because the loss vanishes: separated classes
            return theta, iteration
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        if np.max(np.abs(step)) < _STEP_TOL * (1.0 + np.max(np.abs(theta))):
            # the gradient is at its rounding floor (about 1e-10 for thousands of terms)
            if l2 == 0 and value < _SEPARATED:
                break
            return theta, iteration
        size = 1.0
        while True:
            candidate = theta - size * step
            new_value = _objective(candidate, x, y, w, l2)
            # Armijo condition, with slack for rounding once the loss is flat to ~1e-16
            slack = 1e-14 * abs(value)
            if new_value <= value + 1e-4 * size * (grad @ -step) + slack or size < 1e-10:
                break
            size *= 0.5
        theta, value = candidate, new_value
        if np.max(np.abs(theta)) > 1e8:
            break
    raise ConvergenceError(
        "logistic calibration did not converge: the SS and DS scores are (almost) perfectly "
        "separated, so the best fit has an infinite slope. Use the 'pav' or 'bayes' method, "
        "or set a penalty, e.g. l2 = 0.01"
    )


class LogisticCalibrator(BaseCalibrator):
    """LLR = a + b s (+ c s^2) fitted by prior-weighted logistic regression.

    Parameters
    ----------
    quadratic : bool
        Add a quadratic term ``c s^2``.
    l2 : float
        Ridge penalty ``(l2 / 2) (b'^2 + c'^2)`` on the coefficients of the standardised
        score ``s' = (s - m) / sd`` (``m``, ``sd``: mean and standard deviation of the
        background scores with the two classes weighted equally); the intercept is not
        penalised. Default 0 (plain maximum likelihood).

    Notes
    -----
    Minimises ``J = 1/(2 N_ss) sum_ss log(1 + e^{-z}) + 1/(2 N_ds) sum_ds log(1 + e^{z})
    + penalty`` with ``z`` the linear predictor: each class weighs 1/2 whatever its size,
    so ``z`` is a log *likelihood* ratio (prior log odds 0), and ``J / ln 2`` is the Cllr of
    the training scores [1]_. Newton's method with backtracking line search, stopped when
    every gradient component is below 1e-10 or the Newton step is below 1e-12 (relative;
    the gradient's rounding floor is about 1e-10 for thousands of scores). Perfectly
    separated classes have no finite solution: the fit stops with a
    :class:`~forensic_lr.errors.ConvergenceError`.

    References
    ----------
    .. [1] N. Brummer, "FoCal: Tools for fusion and calibration of automatic speaker
           detection systems", 2005; N. Brummer, D. A. van Leeuwen, "On calibration of
           language recognition scores", Odyssey 2006.
    """

    name = "logistic"

    def __init__(self, *, quadratic: bool = False, l2: float = 0.0) -> None:
        self.quadratic = quadratic
        self.l2 = l2

    def _features(self, s: np.ndarray) -> np.ndarray:
        u = (s - self.centre_) / self.scale_
        cols = [np.ones_like(u), u] + ([u * u] if self.quadratic else [])
        return np.stack(cols, axis=-1)

    def fit(self, ss, ds) -> LogisticCalibrator:
        ss, ds = self._validate(ss, ds)
        if not (np.isfinite(self.l2) and self.l2 >= 0):
            raise InputError(f"l2 must be a number >= 0, got {self.l2!r}")
        m_ss, m_ds = ss.mean(), ds.mean()
        self.centre_ = 0.5 * (m_ss + m_ds)
        self.scale_ = float(np.sqrt(0.5 * (ss.var() + ds.var()) + 0.25 * (m_ss - m_ds) ** 2))
        x = self._features(np.concatenate([ss, ds]))
        y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
        w = np.concatenate([np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)])
        self.theta_, self.n_iter_ = _newton(x, y, w, float(self.l2), np.zeros(x.shape[1]))
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        return self._features(self._scores(scores)) @ self.theta_

    def coefficients(self) -> tuple[float, ...]:
        """``(a, b)`` or ``(a, b, c)`` of ``llr = a + b s + c s^2`` in raw score units."""
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
        self._scores([0.0])
        names = ("intercept", "slope", "quadratic")
        out: dict = dict(zip(names, self.coefficients(), strict=False))
        out.update(l2=float(self.l2), iterations=int(self.n_iter_))
        return out

    def bootstrap_llr(self, ss, ds, scores, *, n, rng, progress=None) -> np.ndarray:
        """Bootstrap refits solved together: one batched Newton iteration for all replicates.

        A resample is a vector of multiplicities over the background scores, so every
        replicate shares the feature matrix; each iteration solves all replicates'
        2x2 (3x3) Newton systems at once, starting from the full-data solution. The
        standardisation is kept from the full data, which leaves the fitted LLR function
        of an unpenalised fit unchanged; with ``l2 > 0`` the penalty depends on the
        standardisation, so each replicate is refitted with :meth:`fit` instead.
        Replicates that do not converge in 50 iterations (e.g. a separable resample)
        give NaN.
        """
        ss, ds = self._validate(ss, ds)
        if self.l2 > 0:
            return _refit_loop(self, ss, ds, scores, n, rng, progress)
        self.fit(ss, ds)
        x = self._features(np.concatenate([ss, ds]))
        y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
        x_eval = self._features(np.asarray(scores, dtype=np.float64))
        penalty = np.full(x.shape[1], float(self.l2))
        penalty[0] = 0.0
        rows = []
        for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
            k = idx_ss.shape[0]
            counts_ss = _row_counts(idx_ss, ss.size) * (0.5 / ss.size)
            counts_ds = _row_counts(idx_ds, ds.size) * (0.5 / ds.size)
            w = np.concatenate([counts_ss, counts_ds], axis=1)  # (k, N) weights
            theta = np.tile(self.theta_, (k, 1))
            done = np.zeros(k, dtype=bool)
            for _ in range(50):
                p = expit(theta @ x.T)
                grad = (w * (p - y)) @ x + penalty * theta
                hess = np.einsum("kn,ni,nj->kij", w * p * (1 - p), x, x) + np.diag(penalty)
                with np.errstate(all="ignore"):
                    step = np.linalg.solve(hess, grad[..., None])[..., 0]
                small = np.max(np.abs(step), axis=1) < _STEP_TOL * (
                    1.0 + np.max(np.abs(theta), axis=1)
                )
                done = (np.max(np.abs(grad), axis=1) < _GRAD_TOL) | small
                if done.all():
                    break
                theta = theta - step
            out = theta @ x_eval.T
            out[~done] = np.nan
            rows.append(out)
            if progress is not None:
                progress(sum(r.shape[0] for r in rows), n)
        return np.vstack(rows)


def _row_counts(idx: np.ndarray, size: int) -> np.ndarray:
    """Multiplicity of each of ``size`` items in each row of ``idx`` (one bincount)."""
    k = idx.shape[0]
    flat = idx + size * np.arange(k)[:, None]
    return np.bincount(flat.ravel(), minlength=k * size).reshape(k, size).astype(np.float64)


def _refit_loop(calibrator, ss, ds, scores, n, rng, progress) -> np.ndarray:
    """Replicate-by-replicate refits on the same draws as the vectorised hooks."""
    model = type(calibrator)(**{k: v for k, v in vars(calibrator).items() if not k.endswith("_")})
    rows = []
    for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
        for i_ss, i_ds in zip(idx_ss, idx_ds, strict=True):
            try:
                rows.append(model.fit(ss[i_ss], ds[i_ds]).llr(scores))
            except (InputError, ConvergenceError):
                rows.append(np.full(np.size(scores), np.nan))
            if progress is not None:
                progress(len(rows), n)
    return np.array(rows)
