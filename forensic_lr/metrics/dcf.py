"""Bayes decisions with LLRs: detection cost (actual and minimum) and the APE curve.

Decision rule: decide "same source" when ``llr >= t`` with the Bayes threshold
``t = -logit(p_target) - log(c_miss / c_fa)`` (at equality both decisions cost the
same; we decide Hp).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

from .._checks import as_score_array, check_pair
from ..records import Serialisable
from .pav import PAVFit, pav_blocks
from .roc import hull_roc


def bayes_threshold(p_target: float, c_miss: float = 1.0, c_fa: float = 1.0) -> float:
    """Bayes decision threshold on the natural-log LR.

    Parameters
    ----------
    p_target : float
        Prior probability of Hp, strictly between 0 and 1.
    c_miss, c_fa : float
        Positive costs of a miss (deciding Hd when Hp is true) and a false alarm.

    Returns
    -------
    float
        ``t = -logit(p_target) - log(c_miss / c_fa) = -plo_eff``: decide Hp when
        ``llr >= t``.

    Notes
    -----
    Deciding Hp costs ``(1-p) c_fa P(Hd | e)`` and deciding Hd costs ``p c_miss P(Hp | e)``
    (up to the same factor); Hp is the cheaper one when
    ``llr + logit(p) + log(c_miss / c_fa) >= 0`` [1]_ [2]_. At equality both cost the
    same; this package then decides Hp.

    References
    ----------
    .. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation (``dcf``, ``mindcf``).
    .. [2] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    _check_operating_point(p_target, c_miss, c_fa)
    return float(-logit(p_target) - (np.log(c_miss) - np.log(c_fa)))  # no overflow in a ratio


def _check_operating_point(p_target, c_miss, c_fa) -> None:
    from ..errors import InputError

    if not 0.0 < p_target < 1.0:
        raise InputError(f"p_target must be strictly between 0 and 1, got {p_target!r}")
    if not all(np.isfinite(c) and c > 0 for c in (c_miss, c_fa)):
        raise InputError(
            f"costs must be positive finite numbers, got c_miss={c_miss!r}, c_fa={c_fa!r}")


def _error_rates(ss_sorted, ds_sorted, threshold):
    """P_miss = share of SS with llr < t; P_fa = share of DS with llr >= t (vectorised in t)."""
    p_miss = np.searchsorted(ss_sorted, threshold, side="left") / ss_sorted.size
    p_fa = 1.0 - np.searchsorted(ds_sorted, threshold, side="left") / ds_sorted.size
    return p_miss, p_fa


def _normalizer(p, c_miss, c_fa, normalize):
    return min(p * c_miss, (1 - p) * c_fa) if normalize else 1.0


def dcf(ss_llr, ds_llr, p_target, c_miss=1.0, c_fa=1.0, normalize=False) -> float:
    """Actual detection cost at the Bayes threshold.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    p_target : float
        Prior probability of Hp, strictly between 0 and 1.
    c_miss, c_fa : float
        Positive costs of a miss (deciding Hd when Hp is true) and a false alarm.
    normalize : bool
        Divide by ``min(p c_miss, (1-p) c_fa)``, the cost of deciding without evidence.

    Returns
    -------
    float

    Notes
    -----
    ``DCF = p c_miss P_miss(t) + (1-p) c_fa P_fa(t)`` with ``t`` from
    :func:`bayes_threshold`, ``P_miss(t) = #{llr_ss < t} / N_ss`` and
    ``P_fa(t) = #{llr_ds >= t} / N_ds`` (an LLR exactly at ``t`` decides Hp) [1]_.

    References
    ----------
    .. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation (``dcf``, ``mindcf``).
    .. [2] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    t = bayes_threshold(p_target, c_miss, c_fa)
    p_miss, p_fa = np.mean(ss < t), np.mean(ds >= t)  # one threshold: count, no sort
    cost = p_target * c_miss * p_miss + (1 - p_target) * c_fa * p_fa
    return float(cost / _normalizer(p_target, c_miss, c_fa, normalize))


def min_dcf(ss_llr, ds_llr, p_target, c_miss=1.0, c_fa=1.0, normalize=False) -> float:
    """Minimum detection cost over all thresholds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    p_target : float
        Prior probability of Hp, strictly between 0 and 1.
    c_miss, c_fa : float
        Positive costs of a miss (deciding Hd when Hp is true) and a false alarm.
    normalize : bool
        Divide by ``min(p c_miss, (1-p) c_fa)``, the cost of deciding without evidence.

    Returns
    -------
    float
        At most :func:`dcf`, and at most 1 when normalised.

    Notes
    -----
    ``minDCF = min_t p c_miss P_miss(t) + (1-p) c_fa P_fa(t)`` over every threshold,
    including ``-inf`` and ``+inf``; a linear cost is minimised at a vertex of the ROC
    convex hull [1]_, so only the PAV block boundaries are scanned.

    References
    ----------
    .. [1] D. A. van Leeuwen, ROCAnalysis.jl documentation (``dcf``, ``mindcf``).
    .. [2] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    _check_operating_point(p_target, c_miss, c_fa)
    hull = hull_roc(pav_blocks(*check_pair(ss_llr, ds_llr)))
    costs = p_target * c_miss * hull.p_miss + (1 - p_target) * c_fa * hull.p_fa
    return float(costs.min() / _normalizer(p_target, c_miss, c_fa, normalize))


@dataclass(frozen=True)
class APECurve(Serialisable):
    """Bayes error rate against prior log odds ``plo`` (natural log), c_miss = c_fa = 1.

    ``actual``: the LLRs as given; ``minimum``: after PAV (the best monotone calibration);
    ``reference``: no evidence (LR = 1 always), ``min(p, 1-p)``.
    """

    plo: np.ndarray
    actual: np.ndarray
    minimum: np.ndarray
    reference: np.ndarray


def _bayes_error(ss_sorted, ds_sorted, plo) -> np.ndarray:
    """Bayes error rate at each prior log odds (unit costs), from the sorted LLRs."""
    p = expit(plo)
    p_miss, p_fa = _error_rates(ss_sorted, ds_sorted, -plo)
    return p * p_miss + (1 - p) * p_fa


def _pav_bayes_error(fit: PAVFit, plo) -> np.ndarray:
    """Bayes error of the PAV LLRs (ascending per block) from cumulative block counts."""
    p = expit(plo)
    below = np.searchsorted(fit.llr, -plo, side="left")  # blocks with llr < threshold
    cum_ss = np.concatenate([[0.0], np.cumsum(fit.n_ss)]) / fit.n_ss.sum()
    cum_ds = np.concatenate([[0.0], np.cumsum(fit.n_ds)]) / fit.n_ds.sum()
    return p * cum_ss[below] + (1 - p) * (1.0 - cum_ds[below])


def ape_curve(ss_llr, ds_llr, plo=None) -> APECurve:
    """Applied probability of error (APE) curve: Bayes error rate over prior log odds.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    plo : array_like, optional
        Prior log odds (natural log); default ``np.linspace(-7, 7, 281)``.

    Returns
    -------
    APECurve
        ``actual``, ``minimum`` (PAV) and ``reference`` (``min(p, 1-p)``) per ``plo``.

    Notes
    -----
    At prior ``p = sigmoid(plo)`` and unit costs, the Bayes decision with LLR ``l`` is Hp
    when ``l >= -plo``; the error rate is ``p P_miss(-plo) + (1-p) P_fa(-plo)`` (Ramos's
    slides, "APE"). The minimum applies the same rule to the PAV LLRs, which are optimal at every
    prior simultaneously [1]_. Each class is sorted once and shared by both curves; the
    grid is then a ``searchsorted`` (actual) or a lookup in cumulative block counts (PAV).

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    ss, ds = (np.sort(x) for x in check_pair(ss_llr, ds_llr))
    grid = np.linspace(-7.0, 7.0, 281) if plo is None else as_score_array(plo, "plo")
    p = expit(grid)
    return APECurve(
        plo=grid,
        actual=_bayes_error(ss, ds, grid),
        minimum=_pav_bayes_error(pav_blocks(ss, ds, presorted=True), grid),
        reference=np.minimum(p, 1 - p),
    )


def normalized_bayes_error(ss_llr, ds_llr, plo=None) -> APECurve:
    """Normalized Bayes error: the APE curves divided by the reference ``min(p, 1-p)``.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    plo : array_like, optional
        Prior log odds (natural log); default ``np.linspace(-7, 7, 281)``.

    Returns
    -------
    APECurve
        ``actual`` and ``minimum`` divided by ``min(p, 1-p)``; ``reference`` is 1.

    Notes
    -----
    ``E_norm(plo) = E(plo) / min(p, 1-p)`` with ``p = sigmoid(plo)`` [1]_: the Bayes error
    relative to deciding from the prior alone (normalized Bayes error plot).

    References
    ----------
    .. [1] D. A. van Leeuwen, N. Brummer, "An introduction to application-independent
           evaluation of speaker recognition systems", LNCS 4343 (2007) 330-353.
    """
    curve = ape_curve(ss_llr, ds_llr, plo)
    return APECurve(
        curve.plo,
        curve.actual / curve.reference,
        curve.minimum / curve.reference,
        np.ones_like(curve.reference),
    )
