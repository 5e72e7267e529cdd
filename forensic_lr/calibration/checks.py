"""Calibration checks of output LLRs (van Leeuwen and Brummer 2013).

For calibrated LLRs "the LLR of the LLR is the LLR": a logistic recalibration of the
LLRs should have slope 1 and offset 0, and Gaussian calibrated LLRs have class variances
equal to twice the class means (in magnitude), both fixed by the EER.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, ndtri

from .._checks import as_score_array, check_pair
from ..display import Table, Tabular, warning_notes
from ..errors import ConvergenceError, ForensicLRWarning, InputError
from ..i18n.messages import english
from ..metrics.roc import eer
from ..records import Serialisable
from .logistic import logistic_newton


class CalibrationCheckWarning(ForensicLRWarning):
    """Infinite LLRs were left out of a calibration check."""


@dataclass(frozen=True)
class Recalibration(Serialisable):
    """Prior-weighted logistic recalibration ``llr' = offset + slope * llr`` with intervals."""

    offset: float
    slope: float
    offset_interval: tuple[float, float]
    slope_interval: tuple[float, float]
    level: float
    n_ss: int
    n_ds: int
    n_excluded: int
    warnings: tuple[str, ...] = ()


def recalibration(ss_llr, ds_llr, *, level: float = 0.95) -> Recalibration:
    """Slope and offset of a logistic recalibration of output LLRs (ideal: 1 and 0).

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LLRs of same-source and different-source trials (+-inf allowed; they
        are left out of the regression with a warning).
    level : float
        Confidence level of the Wald intervals.

    Returns
    -------
    Recalibration

    Notes
    -----
    Minimises ``1/(2 N_ss) sum_ss log(1 + e^{-(a + b l)}) + 1/(2 N_ds) sum_ds
    log(1 + e^{a + b l})`` over ``(a, b)`` (Newton). If the LLRs ``l`` are calibrated, the
    LLR of ``l`` is ``l`` itself [1]_, so ``a = 0`` and ``b = 1``; ``b < 1`` means
    over-confident LLRs, ``b > 1`` under-confident ones, ``a`` a shift. The covariance is
    the sandwich ``H^-1 M H^-1`` of this weighted M-estimator with SS and DS sampled
    separately: ``H = sum w_i p_i (1 - p_i) x_i x_i'``, ``M = sum_k n_k / (n_k - 1)
    sum_{i in k} (psi_i - psibar_k)(psi_i - psibar_k)'`` with ``psi_i = w_i (y_i - p_i) x_i``
    and ``x_i = (1, l_i)`` [2]_. Interval: estimate +- ``z_{(1+level)/2}`` standard errors.

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, "The distribution of calibrated
           likelihood-ratios in speaker recognition", Interspeech 2013.
    .. [2] H. White, "Maximum likelihood estimation of misspecified models",
           Econometrica 50 (1982) 1-25.
    """
    ss, ds = check_pair(ss_llr, ds_llr, allow_inf=True, min_size=2)
    if not 0 < level < 1:
        raise InputError(f"level must lie between 0 and 1, got {level!r}")
    keep_ss, keep_ds = np.isfinite(ss), np.isfinite(ds)
    excluded = int((~keep_ss).sum() + (~keep_ds).sum())
    ss, ds = ss[keep_ss], ds[keep_ds]
    if ss.size < 2 or ds.size < 2:
        raise InputError("fewer than 2 finite LLRs in a class: the recalibration check needs more")
    found = []
    if excluded:
        found.append(english("warning.infinite_llrs_left_out", n=str(excluded)))
        warnings.warn(found[-1], CalibrationCheckWarning, stacklevel=2)
    x = np.stack([np.ones(ss.size + ds.size), np.concatenate([ss, ds])], axis=1)
    y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
    w = np.concatenate([np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)])
    try:
        theta, _ = logistic_newton(x, y, w, 0.0, np.array([0.0, 1.0]))
        p = expit(x @ theta)
        hess = (x * (w * p * (1 - p))[:, None]).T @ x
        psi = (w * (y - p))[:, None] * x
        meat = np.zeros((2, 2))
        for part in (psi[: ss.size], psi[ss.size :]):
            centred = part - part.mean(axis=0)
            meat += part.shape[0] / (part.shape[0] - 1) * centred.T @ centred
        inv = np.linalg.inv(hess)
    except (ConvergenceError, np.linalg.LinAlgError):
        raise ConvergenceError(
            "the recalibration check (logistic regression of the labels on the LLRs) has no "
            "finite solution: the same-source and different-source LLRs are (almost) "
            "perfectly separated, so no slope and offset can be estimated"
        ) from None
    se = np.sqrt(np.diag(inv @ meat @ inv))
    z = float(ndtri(0.5 + level / 2))
    return Recalibration(
        offset=float(theta[0]),
        slope=float(theta[1]),
        offset_interval=(float(theta[0] - z * se[0]), float(theta[0] + z * se[0])),
        slope_interval=(float(theta[1] - z * se[1]), float(theta[1] + z * se[1])),
        level=float(level),
        n_ss=int(ss.size),
        n_ds=int(ds.size),
        n_excluded=excluded,
        warnings=tuple(found),
    )


def mu_from_eer(eer_value: float) -> float:
    """Mean ``mu`` of calibrated Gaussian SS LLRs ``N(mu, 2 mu)`` with this EER.

    Notes
    -----
    Calibrated Gaussian LLRs are ``N(mu, 2 mu)`` (SS) and ``N(-mu, 2 mu)`` (DS) [1]_; the
    EER threshold is 0 by symmetry, so ``EER = Phi(-mu / sqrt(2 mu)) = Phi(-sqrt(mu / 2))``
    and ``mu = 2 probit(EER)^2``.

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, "The distribution of calibrated
           likelihood-ratios in speaker recognition", Interspeech 2013.
    """
    if not 0 < eer_value < 0.5:
        raise InputError(
            f"EER {eer_value!r} must lie strictly between 0 and 0.5 for the Gaussian relation"
        )
    return float(2 * ndtri(eer_value) ** 2)


@dataclass(frozen=True)
class GaussianConsistency(Serialisable):
    """Moments of output LLRs against the calibrated-Gaussian relation ``var = 2 |mean|``."""

    mean_ss: float
    var_ss: float
    mean_ds: float
    var_ds: float
    ratio_ss: float  # var_ss / (2 mean_ss); 1 if calibrated and Gaussian
    ratio_ds: float  # var_ds / (-2 mean_ds)
    eer: float
    mu_from_eer: float  # the |mean| calibrated Gaussian LLRs with this EER would have


def gaussian_consistency(ss_llr, ds_llr) -> GaussianConsistency:
    """Compare the LLR moments with the calibrated-Gaussian relation.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Finite natural-log LLRs of same-source and different-source trials.

    Returns
    -------
    GaussianConsistency

    Notes
    -----
    If ``l | ds ~ N(-mu, s^2)`` and the LLRs are calibrated, then ``l | ss ~ N(mu, s^2)``
    with ``s^2 = 2 mu`` [1]_: ``log N(l; mu, 2 mu) - log N(l; -mu, 2 mu) = l``. Ratios
    ``var / (2 |mean|)`` near 1 and ``|mean_ss|``, ``|mean_ds|`` near ``mu_from_eer`` are
    consistent with calibration; ratios above 1 indicate over-confident LLRs. The EER is
    that of the ROC convex hull. A ratio is NaN when the class mean has the wrong sign.

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, "The distribution of calibrated
           likelihood-ratios in speaker recognition", Interspeech 2013.
    """
    ss, ds = check_pair(ss_llr, ds_llr, allow_inf=False, min_size=2)
    m1, v1, m0, v0 = ss.mean(), ss.var(ddof=1), ds.mean(), ds.var(ddof=1)
    e = eer(ss, ds)
    return GaussianConsistency(
        mean_ss=float(m1),
        var_ss=float(v1),
        mean_ds=float(m0),
        var_ds=float(v0),
        ratio_ss=float(v1 / (2 * m1)) if m1 > 0 else float("nan"),
        ratio_ds=float(v0 / (-2 * m0)) if m0 < 0 else float("nan"),
        eer=float(e),
        mu_from_eer=mu_from_eer(e) if 0 < e < 0.5 else float("nan"),
    )


@dataclass(frozen=True)
class EERLinearCalibration(Serialisable):
    """Linear calibration ``llr = offset + slope * score`` computed from the EER."""

    offset: float
    slope: float
    eer: float
    mu: float

    def llr(self, scores) -> np.ndarray:
        """Calibrated natural-log LLRs of raw ``scores``."""
        return self.offset + self.slope * as_score_array(scores, "scores")


def eer_linear_calibration(ss_scores, ds_scores) -> EERLinearCalibration:
    """Closed-form linear calibration from the EER and the DS score moments.

    Parameters
    ----------
    ss_scores, ds_scores : array_like
        Raw background scores.

    Returns
    -------
    EERLinearCalibration

    Notes
    -----
    Assume DS scores are ``N(m, s^2)`` and an affine map ``l = a + b x`` calibrates them.
    Calibrated DS LLRs are ``N(-mu, 2 mu)`` with ``mu = 2 probit(EER)^2`` (the EER is
    invariant under the map) [1]_, so matching the moments gives
    ``b = sqrt(2 mu) / s`` and ``a = -mu - b m``. Only the EER (from the ROC convex hull)
    and the DS moments (the abundant class) enter; SS scores need not be Gaussian. With
    equal-variance Gaussian classes this is the exact LLR.

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, "The distribution of calibrated
           likelihood-ratios in speaker recognition", Interspeech 2013.
    """
    ss, ds = check_pair(ss_scores, ds_scores, names=("ss", "ds"), allow_inf=False, min_size=2)
    e = eer(ss, ds)
    if not 0 < e < 0.5:
        raise InputError(
            f"the EER of these scores is {e:g}: the EER calibration needs 0 < EER < 0.5 "
            "(overlapping classes with SS scores higher on the whole)"
        )
    mu = mu_from_eer(e)
    slope = np.sqrt(2 * mu) / ds.std(ddof=1)
    return EERLinearCalibration(
        offset=float(-mu - slope * ds.mean()), slope=float(slope), eer=float(e), mu=mu
    )


@dataclass(frozen=True, repr=False)
class CalibrationChecks(Tabular, Serialisable):
    """All checks of one set of output LLRs, for the validation report."""

    recalibration: Recalibration
    gaussian: GaussianConsistency

    def _table(self) -> Table:
        """The recalibration slope and offset with their intervals (1 and 0 when the LLRs
        are calibrated) and the variance-to-mean ratios of the Gaussian check (1 when
        calibrated and Gaussian) (``repr``, notebooks, ``to_frame()``)."""
        r, g = self.recalibration, self.gaussian
        return Table(
            title=f"Calibration checks of {r.n_ss} same-source and {r.n_ds} different-source "
                  f"LLRs ({r.level:.0%} intervals)",
            columns=("check", "value", "low", "high", "if calibrated"),
            rows=(("recalibration slope", r.slope, *r.slope_interval, 1.0),
                  ("recalibration offset", r.offset, *r.offset_interval, 0.0),
                  ("variance / (2 |mean|), same source", g.ratio_ss, None, None, 1.0),
                  ("variance / (2 |mean|), different source", g.ratio_ds, None, None, 1.0)),
            notes=warning_notes(r.warnings),
        )


def calibration_checks(ss_llr, ds_llr, *, level: float = 0.95) -> CalibrationChecks:
    """Recalibration slope/offset and the Gaussian consistency of output LLRs.

    Infinite LLRs are left out of both checks (with a warning from :func:`recalibration`).
    """
    ss, ds = check_pair(ss_llr, ds_llr, allow_inf=True, min_size=2)
    rec = recalibration(ss, ds, level=level)
    return CalibrationChecks(
        recalibration=rec,
        gaussian=gaussian_consistency(ss[np.isfinite(ss)], ds[np.isfinite(ds)]),
    )
