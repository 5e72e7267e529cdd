"""S-cal: logistic calibration whose LLR saturates at learned lower and upper limits."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ..errors import ConvergenceError, ForensicLRWarning, InputError
from ..records import ParamRow
from .base import BaseCalibrator, param_row
from .logistic import LogisticCalibrator


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


class SCalCalibrator(BaseCalibrator):
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
    the logistic calibration line; ``(lo, hi, a, b)`` and ``(hi, lo, -a, -b)`` are the
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
    title = "Saturating logistic calibration (S-cal)"
    summary = (
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


    def param_rows(self) -> tuple[ParamRow, ...]:
        p = self.params()
        return (
            param_row("lower limit of log10 LR", p["lower_log10_lr"], "log10"),
            param_row("upper limit of log10 LR", p["upper_log10_lr"], "log10"),
        )

    def fit(self, ss, ds) -> SCalCalibrator:
        ss, ds = self._validate(ss, ds)
        limit = self.max_abs_llr
        if isinstance(limit, bool) or not (np.isfinite(limit) and limit > 0):
            raise InputError(f"max_abs_llr must be a positive number, got {limit!r}")
        start = LogisticCalibrator(l2=1e-6).fit(ss, ds)
        self.centre_, self.scale_ = start.centre_, start.scale_
        u = (np.concatenate([ss, ds]) - self.centre_) / self.scale_
        is_ss = np.concatenate([np.ones(ss.size, bool), np.zeros(ds.size, bool)])
        w = np.concatenate([np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)])
        c, d = start.theta_  # linear start: llr = c + d u
        z_data = c + d * u
        half = min(limit, 1.0 + np.max(np.abs(z_data)))
        b = 4 * d / (2 * half)
        theta0 = np.array([-half, half, b * c / d, b])
        bounds = [(-limit, limit), (-limit, limit), (None, None), (None, None)]
        res = minimize(
            _loss_and_grad,
            theta0,
            args=(u, is_ss, w),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-10},
        )
        # projected gradient: a limit held at its bound may keep a gradient pushing outwards
        grad = res.jac.copy()
        grad[:2][
            ((res.x[:2] <= -limit) & (grad[:2] > 0)) | ((res.x[:2] >= limit) & (grad[:2] < 0))
        ] = 0
        if not res.success and np.max(np.abs(grad)) > 1e-6:
            raise ConvergenceError(
                f"S-cal fit did not converge ({res.message}); use the 'logistic' or 'pav' method"
            )
        lo, hi, a, b = (float(v) for v in res.x)
        if hi < lo:
            lo, hi, a, b = hi, lo, -a, -b
        self.lo_, self.hi_, self.a_, self.b_ = lo, hi, a, b
        self.loss_ = float(res.fun)
        found = []
        if max(abs(self.lo_), abs(self.hi_)) >= limit * (1 - 1e-6):
            found.append(
                f"an S-cal limit reached the allowed maximum |llr| = {limit:g}: the background "
                "shows no saturation on that side (e.g. a linear LLR or separated classes), so "
                "that limit is the max_abs_llr setting, not an estimate"
            )
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
        self._scores([0.0])
        slope = self.b_ / self.scale_
        return {
            "lower_llr": self.lo_,
            "upper_llr": self.hi_,
            "lower_log10_lr": float(self.lo_ / np.log(10)),
            "upper_log10_lr": float(self.hi_ / np.log(10)),
            "offset": float(self.a_ - slope * self.centre_),
            "slope": float(slope),
            "cllr_train": float(self.loss_ / np.log(2)),
            "warnings": list(self.warnings_),
        }
