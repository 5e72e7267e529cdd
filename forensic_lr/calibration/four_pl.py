"""Four-parameter logistic calibration: a logistic curve whose posterior has a floor and a
ceiling, so that LLRs of +-inf (a saturated system) calibrate to finite values."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_expit, logit

from .._checks import as_score_array, check_pair
from ..errors import ConvergenceError, InputError
from ..i18n import N_
from .base import BaseCalibrator, check_weight
from .logistic import LogisticCalibrator


def four_pl_log_posteriors(s: np.ndarray, a: float, b: float, log_floor: float,
                           log_ceiling_gap: float) -> tuple[np.ndarray, np.ndarray]:
    """``(log p(s), log(1 - p(s)))`` of ``p(s) = c + (h - c) expit(a s + b)``.

    ``log_floor = log c`` (``-inf``: no floor) and ``log_ceiling_gap = log(1 - h)``
    (``-inf``: ceiling 1). ``s`` may hold +-inf: ``a s + b`` is then ``sign(a) s`` (``b``
    when ``a = 0``). All in the log domain: ``log p = logaddexp(log c, log(h - c) +
    log expit(z))``, ``log(1 - p) = logaddexp(log(1 - h), log(h - c) + log expit(-z))``.
    """
    with np.errstate(invalid="ignore"):
        z = a * s + b
    z = np.where(np.isinf(s), np.sign(a) * s if a != 0 else b, z)
    log_span = np.log(-np.expm1(np.logaddexp(log_floor, log_ceiling_gap)))  # log(h - c)
    return (np.logaddexp(log_floor, log_span + log_expit(z)),
            np.logaddexp(log_ceiling_gap, log_span + log_expit(-z)))


def _unpack(theta: np.ndarray, floor: bool, ceiling: bool) -> tuple[float, float, float, float]:
    """``(a, b, log c, log(1 - h))`` from the free parameters.

    ``c = expit(u)`` and ``h = c + (1 - c) / (1 + e^v)`` (so ``0 < c < h < 1``), as the lir
    package's ``c`` and ``d = e^v``; an absent floor (ceiling) is ``c = 0`` (``h = 1``).
    """
    a, b = theta[0], theta[1]
    u = theta[2] if floor else None
    v = theta[2 + floor] if ceiling else None
    log_floor = float(log_expit(u)) if floor else -np.inf
    log_one_minus_floor = float(log_expit(-u)) if floor else 0.0
    log_gap = log_one_minus_floor + float(log_expit(v)) if ceiling else -np.inf
    return float(a), float(b), log_floor, log_gap


class FourPLCalibrator(BaseCalibrator):
    """LLR = logit(c + (h - c) expit(a s + b)), fitted by prior-weighted maximum likelihood.

    Notes
    -----
    The posterior probability of the same-source proposition at equal priors is a
    logistic curve in the score (usually a system's LLR) between a floor ``c`` and a
    ceiling ``h``; the LLR is its log odds. ``c`` is fitted only when a same-source
    score is ``-inf`` and ``h`` only when a different-source score is ``+inf`` (otherwise
    ``c = 0``, ``h = 1``: ordinary logistic calibration), so the model has 2, 3 or 4
    parameters, and such infinite scores get the finite LLRs ``logit(c)`` and
    ``logit(h)``. The objective is the prior-weighted (Cllr) cross-entropy
    ``sum w_i (-log p_i) / W_ss + sum w_j (-log(1 - p_j)) / W_ds``, minimised by BFGS over
    ``(a, b, logit c, log d)`` with ``h = c + (1 - c)/(1 + d)`` as in the lir package.
    Scores may be +-inf both in training and in :meth:`llr`.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275 (the logistic model
           and objective); the floor and ceiling as in the four-parameter logistic
           calibrator of the lir package (Netherlands Forensic Institute, version 1.8).
    """

    name = "four_pl"
    title = N_("Four-parameter logistic calibration")
    summary = N_(
        "A logistic curve in the score gives the probability of the same-source "
        "proposition at equal prior odds, between a fitted floor and ceiling when the "
        "background holds infinite scores on the wrong side; the log LR is its log odds, "
        "so even an infinite score gets a finite LR."
    )
    equation = "LR(s) = p(s) / (1 - p(s)), p(s) = c + (h - c) / (1 + exp(-(a s + b)))"
    reference = (
        "N. Brummer, J. du Preez, Application-independent evaluation of speaker detection, "
        "Computer Speech and Language 20 (2006) 230-275; floor and ceiling as in the lir "
        "package's four-parameter logistic calibrator (Netherlands Forensic Institute)."
    )

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> FourPLCalibrator:
        """Fit ``(a, b)`` and, where infinite scores call for them, floor and ceiling.

        Raises
        ------
        InputError
            NaN scores, or fewer than two different finite scores in a class.
        ConvergenceError
            The optimiser stopped away from a minimum.
        """
        self.check_options()
        ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=True, min_size=2)
        w_ss = check_weight(ss_weight, ss.size, "ss_weight")
        w_ds = check_weight(ds_weight, ds.size, "ds_weight")
        w_ss = np.ones(ss.size) if w_ss is None else w_ss
        w_ds = np.ones(ds.size) if w_ds is None else w_ds
        for label, values, w in (("ss", ss, w_ss), ("ds", ds, w_ds)):
            finite = values[np.isfinite(values) & (w > 0)]
            if finite.size < 2 or finite.min() == finite.max():
                raise InputError(f"four_pl needs at least two different finite {label} scores "
                                 "(of positive weight) to fit the logistic slope; check the "
                                 f"{label} data")
        self.floor_ = bool(np.any(w_ss[np.isneginf(ss)] > 0))
        self.ceiling_ = bool(np.any(w_ds[np.isposinf(ds)] > 0))
        keep_ss, keep_ds = w_ss > 0, w_ds > 0
        ss, w_ss, ds, w_ds = ss[keep_ss], w_ss[keep_ss], ds[keep_ds], w_ds[keep_ds]
        w_ss, w_ds = w_ss / w_ss.sum(), w_ds / w_ds.sum()

        def loss(theta: np.ndarray) -> float:
            parts = _unpack(theta, self.floor_, self.ceiling_)
            log_p_ss, _ = four_pl_log_posteriors(ss, *parts)
            _, log_q_ds = four_pl_log_posteriors(ds, *parts)
            return float(-(w_ss @ log_p_ss) - (w_ds @ log_q_ds))

        theta = self._start(ss, ds, w_ss, w_ds)
        if not (np.isfinite(ss).all() and np.isfinite(ds).all()):
            res = minimize(loss, theta, method="BFGS", jac="3-point", options={"gtol": 1e-10})
            if not res.success and not np.max(np.abs(res.jac)) < 1e-6:
                raise ConvergenceError(f"four_pl: the fit did not converge ({res.message}); "
                                       "check the background scores")
            theta = res.x
        self.a_, self.b_, self.log_floor_, self.log_ceiling_gap_ = _unpack(
            theta, self.floor_, self.ceiling_)
        self.fitted_ = True
        return self

    def _start(self, ss, ds, w_ss, w_ds) -> np.ndarray:
        """Slope and offset of logistic calibration (Newton) of the finite scores: the fit
        itself when all scores are finite; floor and ceiling at half the share of
        infinite scores on the wrong side."""
        f_ss, f_ds = np.isfinite(ss), np.isfinite(ds)
        logistic = LogisticCalibrator().fit(ss[f_ss], ds[f_ds], w_ss[f_ss], w_ds[f_ds]).params()
        theta = [logistic["slope"], logistic["intercept"]]
        if self.floor_:
            theta.append(float(logit(0.5 * w_ss[np.isneginf(ss)].sum())))
        if self.ceiling_:
            theta.append(float(logit(0.5 * w_ds[np.isposinf(ds)].sum())))
        return np.array(theta)

    def llr(self, scores) -> np.ndarray:
        """Natural-log LR of ``scores`` (+-inf allowed: they get ``logit`` of the ceiling
        or floor, or +-inf where there is none)."""
        self.check_fitted()
        s = as_score_array(scores, "scores", allow_inf=True)
        log_p, log_q = four_pl_log_posteriors(s, self.a_, self.b_, self.log_floor_,
                                              self.log_ceiling_gap_)
        return log_p - log_q

    def params(self) -> dict:
        self.check_fitted()
        return {
            "slope": self.a_,
            "offset": self.b_,
            "floor": float(np.exp(self.log_floor_)),
            "ceiling": float(-np.expm1(self.log_ceiling_gap_)),
            "floor_fitted": self.floor_,
            "ceiling_fitted": self.ceiling_,
        }
