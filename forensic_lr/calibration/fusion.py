"""Logistic-regression fusion: several systems' scores per comparison into one LLR."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import expit, logit

from ..errors import ConvergenceError, InputError, excerpt
from ..i18n import N_
from .base import BaseCalibrator, check_background, check_weight, number_option, param_row
from .base import weighted_moments as _moments
from .batched_newton import projected_newton
from .logistic import batched_logistic_newton, logistic_newton, standardisation

__all__ = ["LogisticFusion", "as_score_matrix", "fusion_refits"]


def as_score_matrix(values, name: str, columns: int | None = None) -> np.ndarray:
    """``values`` as an ``(n, k)`` float array of finite scores (one row per comparison).

    A 1-D array is one system's scores (``k = 1``) unless ``columns`` says more (then it
    is one comparison's row).

    Raises
    ------
    InputError
        Not numbers, not two-dimensional, the wrong number of columns, or a non-finite
        value (naming its row and column).
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers, one row per comparison and one column "
                         f"per system; got {excerpt(values)}") from None
    if arr.ndim == 1:
        arr = arr.reshape(1, -1) if columns not in (None, 1) else arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"{name} must have one row per comparison and one column per system; "
                         f"got shape {arr.shape}")
    if columns is not None and arr.shape[1] != columns:
        raise InputError(f"{name} has {arr.shape[1]} score(s) per comparison; the fusion was "
                         f"fitted on {columns} systems: give one score per system")
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise InputError(f"{name}[{i}, {j}] = {float(arr[i, j])!r} is non-finite; remove or "
                         "correct that comparison")
    return arr


class LogisticFusion(BaseCalibrator):
    """LLR = a + sum_i b_i s_i from ``k`` systems' scores, by prior-weighted logistic regression.

    The calibrator interface on score matrices: ``fit(ss, ds)`` takes the same-source and
    different-source comparisons as ``(n_ss, k)`` and ``(n_ds, k)`` arrays (one column per
    system), ``llr(scores)`` an ``(m, k)`` array. With one system it is the ``logistic``
    calibrator.

    Parameters
    ----------
    prior : float
        Prior probability of the same-source proposition at which the Cllr objective is
        minimised (FoCal's and BOSARIS's ``prior``; default 0.5, the Cllr itself).
    l2 : float
        Ridge penalty on the weights of the standardised scores (default 0), as the
        ``logistic`` calibrator's.
    systems : sequence of str, optional
        Names of the fused systems, in column order (for ``params`` and reports).

    Attributes
    ----------
    theta_ : ndarray
        Intercept and weights on the standardised scores ``u_i = (s_i - centre_i) / scale_i``.
    centre_, scale_ : ndarray
        Each column's mean and standard deviation with the two classes weighted equally.
    n_iter_ : int
        Newton iterations used.

    Notes
    -----
    With ``z = t0 + sum_i t_i u_i`` and ``pi`` the prior, the fit minimises

    ``J = pi/N_ss sum_ss log(1 + e^{-(z + logit pi)}) + (1 - pi)/N_ds sum_ds log(1 + e^{z +
    logit pi}) + (lambda / 2) sum_i t_i^2``

    so that ``z`` is a log likelihood ratio and, at ``pi = 0.5`` without penalty,
    ``J / ln 2`` is the Cllr of the training comparisons [1]_ (FoCal's linear fusion [2]_;
    logistic-regression fusion of verification experts goes back to [3]_). The weights
    reported in raw score units are ``b_i = t_i / scale_i`` and ``a = t0 - sum_i b_i
    centre_i``. A system whose scores are distances gets a negative weight. Columns that
    are linear functions of each other leave the weights undetermined and are refused.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    .. [2] N. Brummer, FoCal: Tools for fusion and calibration of automatic speaker
           detection systems, 2005 (train_llr_fusion).
    .. [3] S. Pigeon, P. Druyts, P. Verlinde, "Applying logistic regression to the fusion
           of the NIST'99 1-speaker submissions", Digital Signal Processing 10 (2000)
           237-248.
    """

    name = "fusion"
    title = N_("Logistic-regression fusion")
    summary = N_(
        "The natural-log LR is a weighted sum of the systems' scores plus a constant, "
        "a + b1 s1 + b2 s2 + ..., with the constant and the weights chosen to minimise the "
        "log-likelihood-ratio cost (Cllr) of the background comparisons, the two classes "
        "weighted by the chosen prior (equally by default; logistic-regression fusion)."
    )
    equation = "ln LR(s) = a + b1 s1 + ... + bk sk"
    reference = (
        "N. Brummer, J. du Preez, Application-independent evaluation of speaker detection, "
        "Computer Speech and Language 20 (2006) 230-275; N. Brummer, FoCal toolkit (2005); "
        "S. Pigeon, P. Druyts, P. Verlinde, Applying logistic regression to the fusion of the "
        "NIST'99 1-speaker submissions, Digital Signal Processing 10 (2000) 237-248."
    )

    def __init__(self, *, prior: float = 0.5, l2: float = 0.0,
                 systems: Sequence[str] | None = None) -> None:
        self.prior = prior
        self.l2 = l2
        self.systems = systems

    def check_options(self) -> None:
        self._options()

    def _options(self) -> tuple[float, float]:
        prior = number_option(self.prior, "prior")
        if not prior < 1:
            raise InputError(f"option prior must lie strictly between 0 and 1, got {prior!r}; "
                             "e.g. prior = 0.5")
        return prior, number_option(self.l2, "l2", strict=False)

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> LogisticFusion:
        """Fit by Newton's method (:func:`~forensic_lr.calibration.logistic.logistic_newton`).

        Weights as in :class:`~forensic_lr.calibration.base.Calibrator` (frequency weights,
        each class weighing its prior share whatever its size).
        """
        prior, l2 = self._options()
        ss, ds = as_score_matrix(ss, "ss"), as_score_matrix(ds, "ds")
        if ss.shape[1] != ds.shape[1]:
            raise InputError(f"ss has {ss.shape[1]} and ds {ds.shape[1]} score columns; give "
                             "both classes one column per fused system")
        names = self._names(ss.shape[1])
        w_ss = check_weight(ss_weight, ss.shape[0], "ss_weight")
        w_ds = check_weight(ds_weight, ds.shape[0], "ds_weight")
        if w_ss is not None:
            ss, w_ss = ss[w_ss > 0], w_ss[w_ss > 0]
        if w_ds is not None:
            ds, w_ds = ds[w_ds > 0], w_ds[w_ds > 0]
        centre, scale = np.empty(ss.shape[1]), np.empty(ss.shape[1])
        for j, name in enumerate(names):
            try:
                check_background(ss[:, j], ds[:, j])
            except InputError as exc:
                raise InputError(f"system {name!r} (score column {j + 1}): {exc}") from None
            centre[j], scale[j] = standardisation(*_moments(ss[:, j], w_ss),
                                                  *_moments(ds[:, j], w_ds))
        self.centre_, self.scale_ = centre, scale
        x = self._design(np.concatenate([ss, ds]))
        _check_rank(x, names)
        y = np.concatenate([np.ones(ss.shape[0]), np.zeros(ds.shape[0])])
        w = np.concatenate([_shares(ss.shape[0], w_ss, prior),
                            _shares(ds.shape[0], w_ds, 1.0 - prior)])
        try:
            theta, self.n_iter_ = logistic_newton(x, y, w, l2, np.zeros(x.shape[1]))
        except ConvergenceError:
            raise ConvergenceError(
                "logistic-regression fusion has no finite solution: a weighted sum of the "
                "systems' scores separates the same-source from the different-source "
                "comparisons of the background, so the best weights are infinite; set a "
                "penalty, e.g. l2 = 0.01, or fuse on more background comparisons") from None
        theta[0] -= logit(prior)  # the fitted log odds at the prior, as a log LR
        self.theta_ = theta
        self.fitted_ = True
        return self

    def _names(self, k: int) -> tuple[str, ...]:
        if self.systems is None:
            return tuple(f"system {j + 1}" for j in range(k))
        names = tuple(str(s) for s in self.systems)
        if len(names) != k:
            raise InputError(f"systems names {len(names)} system(s) for {k} score columns; "
                             "give one name per column")
        return names

    def _design(self, scores: np.ndarray) -> np.ndarray:
        u = (scores - self.centre_) / self.scale_
        return np.column_stack([np.ones(scores.shape[0]), u])

    def llr(self, scores) -> np.ndarray:
        self.check_fitted()
        return self._design(as_score_matrix(scores, "scores", self.centre_.size)) @ self.theta_

    def coefficients(self) -> tuple[float, np.ndarray]:
        """``(a, b)`` of ``llr = a + b . s`` in raw score units."""
        self.check_fitted()
        b = self.theta_[1:] / self.scale_
        return float(self.theta_[0] - b @ self.centre_), b

    def params(self) -> dict:
        a, b = self.coefficients()
        return {
            "intercept": a,
            "weights": [float(v) for v in b],
            "standardised_weights": [float(v) for v in self.theta_[1:]],
            "systems": list(self._names(b.size)),
            "prior": float(self.prior),
            "l2": float(self.l2),
            "centre": [float(v) for v in self.centre_],
            "scale": [float(v) for v in self.scale_],
            "iterations": int(self.n_iter_),
        }

    def param_rows(self):
        a, b = self.coefficients()
        rows = [param_row("constant a (natural log)", a, 4)]
        for name, weight, std in zip(self._names(b.size), b, self.theta_[1:], strict=True):
            rows.append(param_row(f"weight of {name} (per score unit)", float(weight), 4))
            rows.append(param_row(f"weight of {name} (per standard deviation)", float(std), 4))
        return tuple(rows)


def _shares(size: int, weight: np.ndarray | None, total: float) -> np.ndarray:
    """Each score's weight in the objective: its share of the class's prior weight."""
    return np.full(size, total / size) if weight is None else total * weight / weight.sum()


def _check_rank(x: np.ndarray, names: tuple[str, ...]) -> None:
    """Refuse score columns that are (nearly) linear functions of each other."""
    singular = np.linalg.svd(x, compute_uv=False)
    if singular[-1] <= 1e-10 * singular[0] * np.sqrt(x.shape[0]):
        raise InputError(
            f"the score columns of {', '.join(names)} are linear functions of each other (or "
            "of a constant) over the background: their fusion weights are not determined; "
            "fuse only systems that give different scores (drop a duplicated column)")



#: The training cost (nats) below which an unpenalised fit counts as separated, as in
#: :func:`~forensic_lr.calibration.logistic.logistic_newton`.
_SEPARATED = 1e-8


def fusion_refits(ss, ds, ss_weight, ds_weight, *, prior: float = 0.5, l2: float = 0.0,
                  start: tuple[float, np.ndarray] | None = None,
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Many weighted :class:`LogisticFusion` fits solved together (bootstrap replicates).

    Parameters
    ----------
    ss, ds : numpy.ndarray
        Scores, ``(n_ss, k)`` and ``(n_ds, k)`` shared by every fit, or ``(r, n_ss, k)``
        and ``(r, n_ds, k)``, one set per fit.
    ss_weight, ds_weight : numpy.ndarray
        ``(r, n_ss)`` and ``(r, n_ds)`` frequency weights (>= 0), one row per fit.
    prior, l2
        As :class:`LogisticFusion`'s (checked by the caller).
    start : (intercept, weights), optional
        Where Newton's method starts every fit (default: all zero), e.g. the fit with
        every weight 1: near the replicates' solutions, it saves iterations.

    Returns
    -------
    intercept : numpy.ndarray, shape (r,)
    weights : numpy.ndarray, shape (r, k)
        Fit ``i`` is ``ln LR = intercept[i] + s . weights[i]``: what
        ``LogisticFusion(prior=prior, l2=l2).fit(ss, ds, ss_weight[i], ds_weight[i])``
        gives, to the solvers' tolerance (about 1e-9). NaN where that fit is refused: a
        class constant in some column (or weighing nothing), separated classes without a
        penalty, or no convergence. Columns that are linear functions of each other over
        the comparisons a fit uses, which ``fit`` refuses, are not looked for: without a
        penalty their Newton system is singular and the fit gives NaN; with one, the
        penalty determines the weights.

    Notes
    -----
    Fit ``i`` minimises ``fit``'s objective: the prior-share weighted logistic loss of
    ``z = t0 + sum_j t_j u_ij`` with ``u_ij`` the scores standardised by fit ``i``'s own
    weighted moments (centre ``c_ij``, scale ``d_ij``), plus ``(l2 / 2) sum_j t_j^2``.
    On the scores standardised once for all fits (``x``) this is ``z = beta0 + sum_j
    beta_j x_j`` with ``beta_j = t_j / d_ij`` and the penalty ``(l2 / 2) sum_j (beta_j
    d_ij)^2``: the same minimum, and Newton's method takes the same steps (it is
    invariant under affine changes of the parameters). With scores shared by all fits,
    every (fits x comparisons) sum of an iteration is one matrix product; the iterations
    of all fits run at once
    (:func:`~forensic_lr.calibration.batched_newton.projected_newton`, no bounds), with
    the stopping rule of :func:`~forensic_lr.calibration.logistic.logistic_newton`.
    """
    ss, ds = np.asarray(ss, dtype=np.float64), np.asarray(ds, dtype=np.float64)
    w = np.concatenate([np.asarray(ss_weight, np.float64), np.asarray(ds_weight, np.float64)],
                       axis=1)
    n_ss, k = ss.shape[-2], ss.shape[-1]
    x = np.concatenate([ss, ds], axis=-2)
    y = np.concatenate([np.ones(n_ss), np.zeros(ds.shape[-2])])
    # standardised once for every fit (conditioning only: the minimum does not depend on it)
    flat = x.reshape(-1, k)
    origin, unit = flat.mean(axis=0), flat.std(axis=0)
    unit = np.where(unit > 0, unit, 1.0)
    x = (x - origin) / unit
    is_ss = y == 1
    bad, moments, ranges = np.zeros(w.shape[0], dtype=bool), [], []
    for part in (is_ss, ~is_ss):
        wc, xc = w[:, part], x[..., part, :]
        total = wc.sum(axis=1)
        bad |= total <= 0
        total = np.where(total > 0, total, 1.0)[:, None]
        mean = _weighted_sums(wc, xc) / total
        variance = np.maximum(_weighted_sums(wc, xc * xc) / total - mean**2, 0.0)
        moments += [mean, variance]
        # a constant column (check_background's refusal): looked for where the variance
        # is near 0 (or everywhere, for the separation rule below)
        look = (np.arange(w.shape[0]) if l2 == 0 and k == 1
                else np.flatnonzero((variance <= 1e-9 * (1.0 + mean**2)).any(axis=1)))
        low, high = _column_range(xc, wc > 0, look)
        bad[look] |= (low == high).any(axis=1)
        ranges.append((low, high))
    if l2 == 0 and k == 1:  # one score: classes that do not overlap (logistic's rule)
        (low_ss, high_ss), (low_ds, high_ds) = ranges
        bad |= ((high_ds <= low_ss) | (high_ss <= low_ds))[:, 0]
    centre, scale = standardisation(*moments)
    scale = np.where(bad[:, None] | ~(scale > 0), 1.0, scale)
    totals = np.stack([w[:, is_ss].sum(axis=1), w[:, ~is_ss].sum(axis=1)], axis=1)
    totals = np.where(totals > 0, totals, 1.0)
    shares = w * np.where(is_ss, prior / totals[:, :1], (1.0 - prior) / totals[:, 1:])
    design = np.concatenate([np.ones((*x.shape[:-1], 1)), x], axis=-1)
    beta = np.zeros((w.shape[0], k + 1))
    if start is not None:  # on the scores standardised once
        beta[:, 1:] = np.asarray(start[1], dtype=np.float64) * unit
        beta[:, 0] = start[0] + logit(prior) + beta[:, 1:] @ (origin / unit)
    solve = _shared_design_newton if design.ndim == 2 else _own_design_newton
    with np.errstate(over="ignore", under="ignore"):
        beta, ok = solve(design, y, shares, l2, centre, scale, beta, bad)
        ok &= ~bad & (np.abs(beta[:, 1:] * scale).max(axis=1) <= 1e8)
        if l2 == 0 and ok.any():  # separated: the loss vanishes (logistic_newton's test)
            rows = np.flatnonzero(ok)
            ok[rows] = _Products(design).loss(beta[rows], rows, shares, y) >= _SEPARATED
    beta[~ok] = np.nan
    weights = beta[:, 1:] / unit
    return beta[:, 0] - weights @ origin - logit(prior), weights


def _shared_design_newton(design, y, shares, l2, centre, scale, beta, bad):
    """``(beta, converged)`` of fits on one design ``[1, x]`` (``(n, m)``), by
    :func:`~forensic_lr.calibration.logistic.batched_logistic_newton` in each fit's own
    standardised coordinates ``[1, u] = [1, x] T`` (``u = (x - centre) / scale``); it
    tests the objective only where a full Newton step could fail (the change of every
    linear predictor, here computed over the comparisons themselves)."""
    r, m = beta.shape
    t_mat = np.zeros((r, m, m))
    t_mat[:, 0, 0] = 1.0
    t_mat[:, 0, 1:] = -centre / scale
    t_mat[:, np.arange(1, m), np.arange(1, m)] = 1.0 / scale
    theta = np.linalg.solve(t_mat, beta[:, :, None])[:, :, 0]

    def largest_change(delta):
        return np.abs(delta @ design.T).max(axis=1)

    theta, converged = batched_logistic_newton(design, y, shares, l2, t_mat, theta, bad.copy(),
                                       largest_change)
    return np.einsum("rij,rj->ri", t_mat, theta), converged


def _own_design_newton(design, y, shares, l2, centre, scale, beta, bad):
    """``(beta, converged)`` of fits on a design each (``(r, n, m)``), by
    :func:`~forensic_lr.calibration.batched_newton.projected_newton` (no bounds) on the
    coefficients ``beta`` of ``[1, x]``, with the penalty ``(l2 / 2) sum_j (beta_j
    scale_j)^2`` of each fit's standardised coefficients."""
    r, m = beta.shape
    penalty = np.zeros((r, m))
    penalty[:, 1:] = l2 * scale**2
    products = _Products(design)
    shares_y = shares * y

    def value(b, rows):
        return (products.loss(b, rows, shares, y)
                + 0.5 * np.sum(_take(penalty, rows) * b**2, axis=1))

    def derivatives(b, rows):
        p = expit(products.linear(b, rows))
        vp = _take(shares, rows) * p
        grad = products.sums(vp - _take(shares_y, rows), rows) + _take(penalty, rows) * b
        np.multiply(vp, p, out=p)
        hess = products.squares(np.subtract(vp, p, out=p), rows)  # v p (1 - p)
        hess[:, np.arange(m), np.arange(m)] += _take(penalty, rows)
        return grad, hess

    return projected_newton(value, derivatives, beta, np.full(m, -np.inf),
                            np.full(m, np.inf), skip=bad)


def _softplus(z: np.ndarray) -> np.ndarray:
    """``log(1 + e^z)`` without overflow (as ``numpy.logaddexp(0, z)``, in half its time)."""
    out = np.exp(-np.abs(z))
    np.log1p(out, out=out)
    out += np.maximum(z, 0.0)
    return out


def _weighted_sums(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_n w[r, n] x[(r,) n, j]``: ``(r, k)``."""
    return w @ x if x.ndim == 2 else np.einsum("rn,rnj->rj", w, x)


def _column_range(x: np.ndarray, used: np.ndarray,
                  rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest score of each column over the comparisons fits ``rows`` use."""
    x = np.broadcast_to(x, (used.shape[0], *x.shape[-2:]))[rows]
    mask = used[rows][:, :, None]
    return np.where(mask, x, np.inf).min(axis=1), np.where(mask, x, -np.inf).max(axis=1)


def _take(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]``, without a copy when ``rows`` are all rows in order."""
    if rows.size == values.shape[0] and (rows.size == 0 or rows[-1] == rows.size - 1):
        return values
    return values[rows]


class _Products:
    """The sums of one Newton iteration over a design ``[1, x]`` shared by every fit
    (``(n, m)``: matrix products) or one per fit (``(r, n, m)``)."""

    def __init__(self, design: np.ndarray) -> None:
        self.design = design
        m = design.shape[-1]
        if design.ndim == 2:
            self.outer = (design[:, :, None] * design[:, None, :]).reshape(-1, m * m)

    def loss(self, beta: np.ndarray, rows: np.ndarray, shares: np.ndarray,
             y: np.ndarray) -> np.ndarray:
        """The weighted logistic loss ``sum_n v (log(1 + e^z) - y z)`` of fits ``rows``."""
        z = self.linear(beta, rows)
        return (np.einsum("rn,rn->r", _take(shares, rows), _softplus(z))
                - np.einsum("rn,rn->r", _take(shares, rows) * y, z))

    def linear(self, beta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``z[r, n] = design[(r,) n] . beta[r]``."""
        if self.design.ndim == 2:
            return beta @ self.design.T
        return np.einsum("rnj,rj->rn", _take(self.design, rows), beta)

    def sums(self, q: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``sum_n q[r, n] design[(r,) n, j]``."""
        if self.design.ndim == 2:
            return q @ self.design
        return np.einsum("rn,rnj->rj", q, _take(self.design, rows))

    def squares(self, q: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``sum_n q[r, n] design[(r,) n, i] design[(r,) n, j]``: ``(r, m, m)``."""
        m = self.design.shape[-1]
        if self.design.ndim == 2:
            return (q @ self.outer).reshape(-1, m, m)
        d = _take(self.design, rows)
        return np.matmul(d.transpose(0, 2, 1) * q[:, None, :], d)
