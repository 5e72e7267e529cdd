"""S-cal: logistic calibration whose LLR saturates at learned lower and upper limits."""

from __future__ import annotations

import copy
import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from .._numbers import LN2, LN10
from ..errors import ConvergenceError, ForensicLRError, ForensicLRWarning
from ..i18n import N_
from ..i18n.messages import english
from ..records import ParamRow
from ..resampling import bootstrap_index_chunks, replicate_weights
from .base import BaseCalibrator, number_option, param_row, weighted_moments
from .batched_newton import BATCH_FROM, MAX_ITER, in_row_blocks, projected_newton
from .bootstrap_fits import BootstrapFits, RefitsOnce
from .chebyshev_pieces import ChebyshevPieces, chebyshev_pieces
from .grouping import GROUPED_FROM, distinct_weights, group_starts, pool
from .logistic import LogisticCalibrator, class_weight, logistic_newton, standardisation


class SaturationWarning(ForensicLRWarning):
    """An S-cal limit reached the largest value allowed (the classes look separated)."""


def _loss_and_grad(theta, u, is_ss, w):
    """Prior-weighted cross-entropy (nats) of S-cal and its gradient.

    ``theta = (lo, hi, a, b)``; ``u`` the standardised scores.
    """
    lo, hi, a, b = theta
    width = hi - lo
    z = a + b * u
    g = expit(z)
    llr = lo + width * g
    # loss per trial: softplus(-llr) for SS, softplus(llr) for DS
    sign = np.where(is_ss, -1.0, 1.0)
    loss = np.sum(w * np.logaddexp(0.0, sign * llr))
    dloss_dllr = w * sign * expit(sign * llr)
    dg = g * expit(-z)  # sigmoid derivative, stable in both tails
    grad = np.array(
        [
            np.sum(dloss_dllr * (1 - g)),
            np.sum(dloss_dllr * g),
            np.sum(dloss_dllr * dg) * width,
            np.sum(dloss_dllr * dg * u) * width,
        ]
    )
    return loss, grad


class _Objective:
    """The S-cal objective of many weightings of the same scores (one per row of ``w``).

    ``u`` standardised scores (shape ``(n,)``, shared by every row, or ``(k, n)``, one row
    per problem: grouped scores whose means depend on the weights), ``sign`` -1 for SS and
    +1 for DS, ``w`` weights (rows sum to 1: each class weighs 1/2). Row ``b``'s objective is
    ``J_b = sum_i w_bi log(1 + exp(sign_i llr_i))`` with ``llr_i = lo + (hi - lo) g_i``,
    ``g_i = sigma(a + b u_i)``.
    """

    def __init__(self, u: np.ndarray, sign: np.ndarray, w: np.ndarray) -> None:
        self.u, self.sign, self.w = u, sign, w

    def _parts(self, theta, rows):
        u = self.u if self.u.ndim == 1 else self.u[rows]
        lo, hi, a, b = (theta[:, j : j + 1] for j in range(4))
        z = a + b * u
        g = expit(z)
        return u, hi - lo, z, g, lo + (hi - lo) * g

    def value(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        llr = self._parts(theta, rows)[4]
        return np.sum(self.w[rows] * np.logaddexp(0.0, self.sign * llr), axis=1)

    def derivatives(self, theta: np.ndarray, rows: np.ndarray):
        """Gradient and Hessian of ``J`` in ``(lo, hi, a, b)``.

        With ``d1 = w sign sigma(sign llr)`` and ``d2 = w sigma(llr) sigma(-llr)`` (first and
        second derivatives of the loss in ``llr``), ``J' = sum d1 D`` and
        ``J'' = sum d2 D D' + sum d1 D2``, where ``D = (1 - g, g, W g', W g' u)`` is the
        gradient of ``llr`` (``W = hi - lo``, ``g' = g (1 - g)``) and ``D2`` its Hessian:
        ``(lo, a): -g'``, ``(lo, b): -g' u``, ``(hi, a): g'``, ``(hi, b): g' u``,
        ``(a, a): W g''``, ``(a, b): W g'' u``, ``(b, b): W g'' u^2`` with
        ``g'' = g' (1 - 2 g)`` (zero elsewhere).
        """
        w = self.w[rows]
        u, width, z, g, llr = self._parts(theta, rows)
        pair = "kn,n->k" if u.ndim == 1 else "kn,kn->k"
        p = expit(self.sign * llr)
        d1 = w * self.sign * p
        d2 = w * p * (1.0 - p)
        gp = g * expit(-z)
        gpp = gp * (1.0 - 2.0 * g)
        # the sums over the scores as fused products (einsum: one pass each, no temporaries)
        width = width[:, 0]
        jac = (1.0 - g, g, gp, gp * u)  # the last two times W give D
        d1_gp, d1_gpp = d1 * gp, d1 * gpp
        s_gp, s_gpu = np.sum(d1_gp, axis=1), np.einsum(pair, d1_gp, u)
        grad = np.stack(
            [np.einsum("kn,kn->k", d1, jac[0]), np.einsum("kn,kn->k", d1, jac[1]),
             width * s_gp, width * s_gpu],
            axis=1,
        )
        scale = (1.0, 1.0, width, width)
        hess = np.empty((theta.shape[0], 4, 4))
        for i in range(4):
            d2_i = d2 * jac[i]
            for j in range(i, 4):
                hess[:, i, j] = scale[i] * scale[j] * np.einsum("kn,kn->k", d2_i, jac[j])
        # second derivatives of llr: (lo|hi, a) -+g', (lo|hi, b) -+g' u, (a|b, a|b) W g'' u^m
        hess[:, 0, 2] -= s_gp
        hess[:, 0, 3] -= s_gpu
        hess[:, 1, 2] += s_gp
        hess[:, 1, 3] += s_gpu
        for (i, j), m in (((2, 2), 0), ((2, 3), 1), ((3, 3), 2)):
            hess[:, i, j] += width * (np.sum(d1_gpp, axis=1) if m == 0
                                      else np.einsum(pair, d1_gpp, u**m))
        upper = np.triu_indices(4, 1)
        hess[:, upper[1], upper[0]] = hess[:, upper[0], upper[1]]
        return grad, hess


def _polish(theta, u, sign, w, limit, skip=None, max_iter=MAX_ITER):
    """Projected Newton on S-cal objectives from ``theta`` (rows); see :func:`projected_newton`."""
    objective = _Objective(u, sign, w)
    lower = np.array([-limit, -limit, -np.inf, -np.inf])
    width = u.shape[-1]
    return projected_newton(
        lambda th, rows: in_row_blocks(objective.value, th, rows, width),
        lambda th, rows: in_row_blocks(objective.derivatives, th, rows, width),
        theta, lower, -lower, skip, max_iter=max_iter,
    )


def _integrands(theta: np.ndarray, u: np.ndarray, sign: float) -> np.ndarray:
    """What S-cal's objective and gradient sum over the scores ``u`` of one class.

    For each row of ``theta`` (``(lo, hi, a, b)``), shape ``(k, 5, len(u))``: the loss
    ``log(1 + e^(sign llr))`` and its gradient ``d1 D`` (see :meth:`_Objective.derivatives`).
    """
    lo, hi, a, b = (theta[:, j, None] for j in range(4))
    width = hi - lo
    z = a + b * u
    g = expit(z)
    llr = lo + width * g
    d1 = sign * expit(sign * llr)
    wgp = width * g * expit(-z)
    return np.stack([np.logaddexp(0.0, sign * llr), d1 * (1.0 - g), d1 * g, d1 * wgp,
                     d1 * wgp * u], axis=1)


#: Interpolation error :class:`_NodeSums` allows at the full-data fit, at every score,
#: relative to the largest value of each function of :func:`_integrands` ...
NODE_TOL = 1e-13
#: ... and the estimate of it from the last Chebyshev coefficients it allows at the
#: full-data fit and at each replicate's optimum.
NODE_TAIL_TOL = 1e-11


class _NodeSums:
    """S-cal's sums over the distinct scores of both classes, as sums over Chebyshev nodes.

    Built at the full-data fit (:func:`~forensic_lr.calibration.chebyshev_pieces.chebyshev_pieces`
    on each class's scores, for the loss and its gradient); ``points`` and ``sign`` are the
    nodes of both classes, ``weights`` the node weights of replicates given their draw
    counts, and ``exact_at`` says at which parameters the interpolation still meets
    :data:`NODE_TAIL_TOL`.
    """

    def __init__(self, classes: list[ChebyshevPieces], sizes, tail_tol) -> None:
        self.classes, self.sizes, self.tail_tol = classes, sizes, tail_tol
        self.points = np.concatenate([c.nodes for c in classes])
        self.sign = np.concatenate([np.full(c.nodes.size, s)
                                    for c, s in zip(classes, (-1.0, 1.0), strict=True)])

    @classmethod
    def build(cls, theta: np.ndarray, u: np.ndarray, sign: np.ndarray, sizes) -> _NodeSums | None:
        """Nodes for the scores ``u`` (classes by ``sign``) at the full-data fit ``theta``;
        None where they would not be at most a quarter of the scores."""
        classes, tail_tol = [], []
        for s, size in zip((-1.0, 1.0), sizes, strict=True):
            def functions(x, s=s):
                return _integrands(theta[None], x, s)[0]

            x = u[sign == s]
            scale = np.maximum(1.0, np.max(np.abs(functions(x)), axis=1))
            made = chebyshev_pieces(x, functions, NODE_TOL * scale, NODE_TAIL_TOL * scale, size)
            if made is None:
                return None
            classes.append(made)
            tail_tol.append(NODE_TAIL_TOL * scale)
        if sum(c.nodes.size for c in classes) > u.size / 4:
            return None
        return cls(classes, sizes, tail_tol)

    def weights(self, c_ss: np.ndarray, c_ds: np.ndarray) -> np.ndarray:
        """Node weights (objective weights ``c / (2 N)``) of replicates with draw counts ``c``."""
        return np.hstack([
            pieces.node_weights(counts, size) * (0.5 / size)
            for pieces, counts, size in zip(self.classes, (c_ss, c_ds), self.sizes, strict=True)
        ])

    def exact_at(self, theta: np.ndarray) -> np.ndarray:
        """Whether every run's tail estimate meets :data:`NODE_TAIL_TOL` at each ``theta`` row."""
        ok = np.ones(theta.shape[0], dtype=bool)
        for pieces, s, tol in zip(self.classes, (-1.0, 1.0), self.tail_tol, strict=True):
            if pieces.interpolated.size:
                tail = pieces.tail(_integrands(theta, pieces.nodes, s))
                ok &= np.all(tail <= tol[:, None], axis=(1, 2))
        return ok


#: Groups per class by count, and widest group, of the warm start of replicates solved on
#: their scores (:func:`_solve_on_scores`).
BOOT_GROUPS, BOOT_WIDTH = 16, 0.1
#: Newton iterations each of :func:`_solve_on_scores`'s two stages may take. From the
#: full-data fit a well-identified replicate converges in under 15; one that needs more
#: lies on or near a ridge (an S-cal limit the data barely identify) and is refitted by
#: ``fit``, the definition, instead (more iterations rarely lead anywhere on a ridge, and the
#: refit gives the same interval).
_ON_SCORES_ITER = 20
_LBFGSB = {"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-10}
#: The grouped start's L-BFGS-B run stops earlier: projected Newton finishes it.
_LBFGSB_START = {"maxiter": 2000, "ftol": 1e-10, "gtol": 1e-6}


def _direct_fit(theta0, u, is_ss, w, limit):
    """L-BFGS-B on every score from ``theta0``, then projected Newton (the reference path).

    Returns the Newton optimum where Newton converges, else the L-BFGS-B answer (raises
    :class:`ConvergenceError` where neither stopped at a stationary point).
    """
    bounds = [(-limit, limit), (-limit, limit), (None, None), (None, None)]
    res = minimize(_loss_and_grad, theta0, args=(u, is_ss, w), jac=True, method="L-BFGS-B",
                   bounds=bounds, options=_LBFGSB)
    sign = np.where(is_ss, -1.0, 1.0)
    polished, converged = _polish(res.x[None, :], u, sign, w[None, :], limit)
    # projected gradient: a limit held at its bound may keep a gradient pushing outwards
    grad = res.jac.copy()
    grad[:2][
        ((res.x[:2] <= -limit) & (grad[:2] > 0)) | ((res.x[:2] >= limit) & (grad[:2] < 0))
    ] = 0
    if not converged[0] and not res.success and np.max(np.abs(grad)) > 1e-6:
        raise ConvergenceError(
            f"S-cal fit did not converge ({res.message}); use the 'logistic' or 'pav' method"
        )
    return polished[0] if converged[0] else res.x


def _start(line, u_min, u_max, limit):
    """S-cal start from the logistic line ``llr = c + d u`` (``line = (c, d)``).

    Limits ``-+half`` just beyond the line's largest ``|llr|`` over the scores
    ``[u_min, u_max]`` (at most ``limit``), and the same slope and zero at the centre.
    """
    c, d = line
    half = min(limit, 1.0 + np.max(np.abs(c + d * np.array([u_min, u_max]))))
    b = 4 * d / (2 * half)
    return np.array([-half, half, b * c / d, b])


def _grouped_fit(ss, ds, centre, scale, limit, w_ss=None, w_ds=None):
    """The S-cal optimum from a grouped warm start, or None where Newton does not converge.

    The steps of :func:`_direct_fit` (the logistic line of the logistic method, l2 = 1e-6,
    for the start; L-BFGS-B from there; projected Newton) are done on two-point groups of
    neighbouring scores per class (:func:`~forensic_lr.calibration.grouping.pool`), the
    L-BFGS-B run stopped early; from that optimum, projected Newton on the distinct scores
    (weighted by their counts, the same objective as on every score) ends at the exact
    optimum in a few steps.
    """
    (v_ss, c_ss), (v_ds, c_ds) = distinct_weights(ss, w_ss), distinct_weights(ds, w_ds)
    u = (np.concatenate([v_ss, v_ds]) - centre) / scale
    sign = np.r_[np.full(v_ss.size, -1.0), np.full(v_ds.size, 1.0)]
    w = np.concatenate([c_ss * (0.5 / c_ss.sum()), c_ds * (0.5 / c_ds.sum())])
    parts = [pool(u[sign == s], w[sign == s], group_starts(u[sign == s])) for s in (-1.0, 1.0)]
    u_g = np.concatenate([parts[0][0], parts[1][0]])
    w_g = np.concatenate([parts[0][1], parts[1][1]])
    sign_g = np.r_[np.full(parts[0][0].size, -1.0), np.full(parts[1][0].size, 1.0)]
    try:
        line, _ = logistic_newton(np.column_stack([np.ones(u_g.size), u_g]),
                                   (sign_g < 0).astype(np.float64), w_g, 1e-6, np.zeros(2))
    except ConvergenceError:
        return None
    theta0 = _start(line, u.min(), u.max(), limit)
    bounds = [(-limit, limit), (-limit, limit), (None, None), (None, None)]
    res = minimize(_loss_and_grad, theta0, args=(u_g, sign_g < 0, w_g), jac=True,
                   method="L-BFGS-B", bounds=bounds, options=_LBFGSB_START)
    theta, converged = _polish(res.x[None, :], u_g, sign_g, w_g[None, :], limit)
    if not converged[0]:
        return None
    theta, converged = _polish(theta, u, sign, w[None, :], limit)
    return theta[0] if converged[0] else None


class SCalCalibrator(RefitsOnce, BaseCalibrator):
    """LLR = lo + (hi - lo) sigmoid(a + b s): a logistic calibration with finite limits.

    Parameters
    ----------
    max_abs_llr : float
        Largest magnitude (natural log) either limit may take (default 23, i.e.
        ``|log10 LR| <= 10``). A limit that reaches it means the background cannot bound
        the LLR (separated classes): a :class:`SaturationWarning` is returned and raised.

    Notes
    -----
    ``llr(s) = lo + (hi - lo) sigma(a + b s)`` with ``sigma`` the logistic function and
    ``lo < hi``, so ``lo <= llr(s) <= hi`` for every score, however extreme. The four
    parameters minimise the prior-weighted cross-entropy (the Cllr objective, in nats)

    ``J = 1/(2 N_ss) sum_ss log(1 + e^{-llr}) + 1/(2 N_ds) sum_ds log(1 + e^{llr})``

    by L-BFGS-B with the analytic gradient over ``(lo, hi, a, b)`` (box ``|lo|, |hi| <=
    max_abs_llr``) on the standardised score (as in the logistic method), starting from
    the logistic calibration line, then polished by projected Newton steps with the
    analytic Hessian until the projected gradient is below 1e-10 (plus one last Newton
    step, which leaves the optimum at the rounding level; see
    :func:`~forensic_lr.calibration.batched_newton.projected_newton`). Where Newton cannot
    converge (no strict minimum: e.g. separated classes, whose best fit is a step) the
    L-BFGS-B answer is kept. From :data:`~forensic_lr.calibration.grouping.GROUPED_FROM`
    scores on (classes not separated) the L-BFGS-B run and a first Newton polish are done
    on two-point groups of neighbouring scores (a few hundred to a few thousand points that
    keep each group's weight, mean and variance;
    :func:`~forensic_lr.calibration.grouping.pool`), and projected Newton on the distinct
    scores weighted by their counts (the same ``J``) ends from there at the same optimum
    in two or three steps; where it does not converge the fit is the direct one above
    (tested equal to the direct fit to 1e-8 in LLR). ``(lo, hi, a, b)`` and
    ``(hi, lo, -a, -b)`` are the
    same function, so the fit is returned with ``lo < hi``. Near the centre the slope is
    ``(hi - lo) b / 4``; far out the LR levels off, as it should when the background
    holds no evidence for stronger values.
    This is Brummer's saturating "S-cal" calibration [1]_ [2]_; the limits play the role
    of the floor and ceiling that ELUB [3]_ imposes after the fact. ``J`` is not convex:
    the logistic start makes the fit reproducible.

    References
    ----------
    .. [1] N. Brummer, "Measuring, refining and calibrating speaker and language
           information extracted from speech", PhD thesis, Stellenbosch University, 2010.
    .. [2] N. Brummer, E. de Villiers, "The BOSARIS toolkit: theory, algorithms and code
           for surviving the new DCF", NIST SRE'11 workshop, 2011.
    .. [3] P. Vergeer et al., "Numerical likelihood ratios outputted by LR systems are
           often based on extrapolation: when to stop extrapolating?", Science and
           Justice 56 (2016) 482-491.
    """

    name = "scal"
    title = N_("Saturating logistic calibration (S-cal)")
    summary = N_(
        "As logistic calibration, but the LR levels off at a lower and an upper limit "
        "learned from the background data, so that no score, however extreme, gives a "
        "larger LR."
    )
    equation = "ln LR(s) = lo + (hi - lo) / (1 + exp(-(a + b s)))"
    reference = (
        "N. Brummer, Measuring, refining and calibrating speaker and language information "
        "extracted from speech, PhD thesis, Stellenbosch University, 2010."
    )

    def __init__(self, *, max_abs_llr: float = 23.0) -> None:
        self.max_abs_llr = max_abs_llr

    def check_options(self) -> None:
        number_option(self.max_abs_llr, "max_abs_llr")


    def param_rows(self) -> tuple[ParamRow, ...]:
        p = self.params()
        return (
            param_row("lower limit of log10 LR", p["lower_log10_lr"], "log10"),
            param_row("upper limit of log10 LR", p["upper_log10_lr"], "log10"),
        )

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> SCalCalibrator:
        """Minimise ``J``; weights as in :class:`~forensic_lr.calibration.base.Calibrator`
        (score ``i`` of a class of total weight ``W`` enters ``J`` with ``w_i / (2 W)``)."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        limit = float(self.max_abs_llr)
        # the standardisation of the logistic method (the start of the direct path)
        centre, scale = standardisation(*weighted_moments(ss, w_ss),
                                         *weighted_moments(ds, w_ds))
        self.centre_, self.scale_ = float(centre), float(scale)
        raw_u = (np.concatenate([ss, ds]) - self.centre_) / self.scale_
        raw_ss = np.r_[np.ones(ss.size, bool), np.zeros(ds.size, bool)]
        raw_w = np.concatenate([class_weight(ss.size, w_ss), class_weight(ds.size, w_ds)])
        theta = None
        # separated classes have no strict minimum (the best fit is a step): the direct path
        separated = ss.min() > ds.max() or ss.max() < ds.min()
        n_all = sum(v.size if w is None else w.sum() for v, w in ((ss, w_ss), (ds, w_ds)))
        if n_all >= GROUPED_FROM and not separated:
            theta = _grouped_fit(ss, ds, self.centre_, self.scale_, limit, w_ss, w_ds)
        if theta is None:
            line = LogisticCalibrator(l2=1e-6).fit(ss, ds, w_ss, w_ds).theta_
            theta0 = _start(line, raw_u.min(), raw_u.max(), limit)
            theta = _direct_fit(theta0, raw_u, raw_ss, raw_w, limit)
        lo, hi, a, b = (float(v) for v in theta)
        if hi < lo:
            lo, hi, a, b = hi, lo, -a, -b
        self.lo_, self.hi_, self.a_, self.b_ = lo, hi, a, b
        self.loss_ = float(_loss_and_grad(np.array([lo, hi, a, b]), raw_u, raw_ss, raw_w)[0])
        found = []
        if max(abs(self.lo_), abs(self.hi_)) >= limit * (1 - 1e-6):
            found.append(english("warning.scal.limit_reached", limit=f"{limit:g}"))
        for text in found:
            warnings.warn(text, SaturationWarning, stacklevel=2)
        self.warnings_ = tuple(found)
        self.fitted_ = True
        return self

    def llr(self, scores) -> np.ndarray:
        s = self._scores(scores)
        z = self.a_ + self.b_ * (s - self.centre_) / self.scale_
        # lo + (hi - lo) sigma(z), written so that it never leaves [lo, hi] in floating point
        out = self.lo_ + (self.hi_ - self.lo_) * expit(z)
        return np.clip(out, self.lo_, self.hi_)

    def params(self) -> dict:
        self.check_fitted()
        slope = self.b_ / self.scale_
        return {
            "lower_llr": self.lo_,
            "upper_llr": self.hi_,
            "lower_log10_lr": float(self.lo_ / LN10),
            "upper_log10_lr": float(self.hi_ / LN10),
            "offset": float(self.a_ - slope * self.centre_),
            "slope": float(slope),
            "cllr_train": float(self.loss_ / LN2),
            "warnings": list(self.warnings_),
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
        A resample is a vector of draw counts over the distinct background scores, so
        replicate ``b`` minimises ``J`` with weights ``c_bi / (2 N_class)`` on the same
        (sorted, distinct) scores. The S-cal function does not depend on how the score is
        standardised (``a + b u`` is any affine function of the score), so every replicate
        is solved on the full-data standardisation, all at once, by the projected Newton
        iteration :meth:`fit` ends with, starting from the full-data fit; it stops at the
        same optimum as the looped fit to the rounding level.

        The sums over the scores each step needs are taken over Chebyshev nodes
        (:class:`_NodeSums`): where the loss and its gradient at the full-data fit equal
        their degree-16 interpolants on runs of neighbouring scores to :data:`NODE_TOL` at
        every score (:func:`~forensic_lr.calibration.chebyshev_pieces.chebyshev_pieces`),
        a replicate's sums are sums over 17 nodes per run with node weights ``counts @
        L`` (``L`` the Lagrange basis at the scores; one exact product per block of
        replicates), so a step costs a few hundred evaluations instead of one per
        distinct score (about 300 nodes for 10^4 SS / 10^5 DS normal scores). A
        replicate's optimum is kept where the last Chebyshev coefficients of its loss and
        gradient on every run stay below :data:`NODE_TAIL_TOL` (the interpolation is still
        exact there); otherwise, and where the nodes would not be at most a quarter of the
        distinct scores, the replicate is solved on its scores: first on two-point groups
        of neighbouring scores (:func:`_solve_on_scores`), then by exact steps on every
        distinct score, which take two to four derivative evaluations from that start
        (each stage at most :data:`_ON_SCORES_ITER` iterations). A replicate where
        Newton's method does not converge (no strict minimum, or a ridge) is refitted by
        :meth:`fit`, and so is every replicate whose classes are separated (no minimum:
        :meth:`fit` returns where its L-BFGS-B run stops, which no other iteration
        reproduces; slow for a separated background at 10^5 scores, about 0.2 s per
        replicate) and every replicate when a class has fewer than
        :data:`~forensic_lr.calibration.batched_newton.BATCH_FROM` scores (the objective of
        a small resample can have several minima).
        """
        ss, ds = self._validate(ss, ds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full = SCalCalibrator(max_abs_llr=self.max_abs_llr).fit(ss, ds)
        limit = float(self.max_abs_llr)
        (v_ss, inv_ss), (v_ds, inv_ds) = (np.unique(v, return_inverse=True) for v in (ss, ds))
        u = (np.concatenate([v_ss, v_ds]) - full.centre_) / full.scale_
        sign = np.concatenate([np.full(v_ss.size, -1.0), np.full(v_ds.size, 1.0)])
        start = np.array([full.lo_, full.hi_, full.a_, full.b_])
        small = min(ss.size, ds.size) < BATCH_FROM
        nodes = None if small else _NodeSums.build(start, u, sign, (ss.size, ds.size))
        # the draws are replayed for replicates solved on their scores (all of them when
        # there are no nodes: then the caller's generator itself serves, and advances)
        replay = rng if nodes is None else copy.deepcopy(rng)
        theta = np.tile(start, (n, 1))
        bad = np.zeros(n, dtype=bool)
        separated = np.zeros(n, dtype=bool)
        todo = np.ones(n, dtype=bool)

        def counted(idx_ss, idx_ds, rows):
            codes_ss, codes_ds = inv_ss[idx_ss], inv_ds[idx_ds]
            bad[rows], separated[rows] = _constant_or_separated(codes_ss, codes_ds, v_ss, v_ds)
            return _counts(codes_ss, v_ss.size), _counts(codes_ds, v_ds.size)

        if nodes is not None:
            weights = np.empty((n, nodes.points.size))
            done = 0
            for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
                rows = slice(done, done + idx_ss.shape[0])
                weights[rows] = nodes.weights(*counted(idx_ss, idx_ds, rows))
                done = rows.stop
                if progress is not None:
                    progress(done, n)
            theta, converged = _polish(theta, nodes.points, nodes.sign, weights, limit,
                                       bad | separated)
            todo = ~bad & (separated | ~(converged & nodes.exact_at(theta)))
        if todo.any():  # on the scores themselves: the same draws again, for these replicates
            groups = [group_starts(u[sign == s], BOOT_GROUPS, BOOT_WIDTH) for s in (-1.0, 1.0)]
            done = 0
            for idx_ss, idx_ds in bootstrap_index_chunks(replay, n, ss.size, ds.size):
                rows = np.arange(done, done + idx_ss.shape[0])
                done += rows.size
                redo = rows[todo[rows]]
                if not redo.size:
                    continue
                picked = todo[rows]
                idx_ss, idx_ds = idx_ss[picked], idx_ds[picked]
                c_ss, c_ds = counted(idx_ss, idx_ds, redo)
                w = np.hstack([c_ss * (0.5 / ss.size), c_ds * (0.5 / ds.size)])
                theta[redo], fitted = _solve_on_scores(start, u, sign, w, groups, limit,
                                                        bad[redo] | separated[redo] | small)
                model = SCalCalibrator(max_abs_llr=self.max_abs_llr)
                for r in np.flatnonzero(~fitted & ~bad[redo]):
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            model.fit(ss, ds, *replicate_weights(idx_ss[r], idx_ds[r],
                                                                 ss.size, ds.size))
                    except ForensicLRError:
                        bad[redo[r]] = True
                        continue
                    # the refit's own standardisation, carried to the full-data one:
                    # a + b (s - c') / s' = [a + b (c - c') / s'] + [b s / s'] (s - c) / s
                    theta[redo[r]] = (
                        model.lo_, model.hi_,
                        model.a_ + model.b_ * (full.centre_ - model.centre_) / model.scale_,
                        model.b_ * full.scale_ / model.scale_,
                    )
                if progress is not None and nodes is None:
                    progress(done, n)
        lo, hi, a, b = (column[:, None] for column in theta.T)
        centre, scale = full.centre_, full.scale_

        def evaluate(s: np.ndarray, rows: np.ndarray) -> np.ndarray:
            low, high = lo[rows], hi[rows]
            out = low + (high - low) * expit(a[rows] + b[rows] * ((s - centre) / scale))
            out = np.clip(out, np.minimum(low, high), np.maximum(low, high))
            out[bad[rows]] = np.nan
            return out

        return BootstrapFits(n, evaluate)


def _constant_or_separated(codes_ss, codes_ds, v_ss, v_ds) -> tuple[np.ndarray, np.ndarray]:
    """Which resamples have a constant class (``fit`` refuses them) and which separated classes.

    ``codes_*`` are the draws as indices into the sorted distinct scores ``v_*`` (a row per
    replicate). Separated classes (every SS score above every DS score, or below) have no
    S-cal optimum: ``fit`` returns where its direct L-BFGS-B run stops, so such a replicate
    is refitted by ``fit`` itself.
    """
    low_ss, high_ss = codes_ss.min(axis=1), codes_ss.max(axis=1)
    low_ds, high_ds = codes_ds.min(axis=1), codes_ds.max(axis=1)
    constant = (low_ss == high_ss) | (low_ds == high_ds)
    separated = (v_ss[low_ss] > v_ds[high_ds]) | (v_ss[high_ss] < v_ds[low_ds])
    return constant, separated


def _solve_on_scores(start, u, sign, w, groups, limit, skip):
    """Replicates (rows of weights ``w`` on the distinct scores ``u``) solved on their scores.

    Each is first solved on two-point groups of neighbouring scores (``groups`` per class,
    :func:`~forensic_lr.calibration.grouping.pool` with the replicate's weights), from the
    full-data fit ``start``; the exact projected Newton steps on every distinct score then
    start from there (from ``start`` where the grouped solve did not converge). Returns
    ``theta`` and which converged.
    """
    pooled = [pool(u[sign == s], w[:, sign == s], groups[i]) for i, s in enumerate((-1.0, 1.0))]
    sign_g = np.r_[np.full(pooled[0][0].shape[-1], -1.0), np.full(pooled[1][0].shape[-1], 1.0)]
    theta, near = _polish(np.tile(start, (w.shape[0], 1)),
                          np.hstack([pooled[0][0], pooled[1][0]]), sign_g,
                          np.hstack([pooled[0][1], pooled[1][1]]), limit, skip, _ON_SCORES_ITER)
    theta[~near] = start
    return _polish(theta, u, sign, w, limit, skip, _ON_SCORES_ITER)


def _counts(codes: np.ndarray, size: int) -> np.ndarray:
    """Draws of each of ``size`` distinct values per replicate (row of ``codes``)."""
    out = np.empty((codes.shape[0], size))
    for row, draws in zip(out, codes, strict=True):
        row[:] = np.bincount(draws, minlength=size)
    return out
