"""Log-likelihood-ratio cost: Cllr, its minimum (PAV) and the calibration loss."""

from __future__ import annotations

import numpy as np

from .._checks import check_pair
from .._numbers import LN2
from ..errors import InputError
from .pav import PAVFit, pav_blocks

_CHUNK = 1000  # 1000 factors in (1, 2] multiply to at most 2**1000 < 1.8e308: no overflow


def softplus_sum(x: np.ndarray) -> float:
    """``sum(log(1 + e^x))`` in the log domain, about twice as fast as ``logaddexp``.

    ``log(1 + e^x) = max(x, 0) + log(1 + e^-|x|)``; the second terms are summed as the
    log of products of ``1 + e^-|x|`` (each in (1, 2]) over chunks of 1000 trials, so one
    ``exp`` per trial and one ``log`` per chunk. Only ``e^-|x| <= 1`` is ever formed, so
    +-1e3 and +-inf are exact (``+inf -> inf``, ``-inf -> 0``). Rounding: at most about 3.3e-16
    nats per trial in absolute terms (``1 + u`` and the chunk products), i.e. the mean
    agrees with ``mean(logaddexp(0, x))`` to about 1e-15 (tested).
    """
    u = np.abs(x)
    np.negative(u, out=u)
    np.exp(u, out=u)
    u += 1.0
    tail = np.sum(np.log(np.multiply.reduceat(u, np.arange(0, u.size, _CHUNK))))
    np.maximum(x, 0.0, out=u)
    return float(np.sum(u) + tail)


def cllr_of_arrays(ss: np.ndarray, ds: np.ndarray) -> float:
    """Cllr in bits of validated arrays (see :func:`cllr`)."""
    return float((softplus_sum(-ss) / ss.size + softplus_sum(ds) / ds.size) / (2 * LN2))


def _softplus(x: np.ndarray) -> np.ndarray:
    """``log(1 + e^x)`` without overflow (``+inf -> inf``, ``-inf -> 0``)."""
    return np.logaddexp(0.0, x)


def block_cllr(fit: PAVFit, class_weights=None) -> float:
    """Cllr of the PAV LLRs from block counts (no pass over the trials).

    Blocks without SS have llr -inf and carry no SS cost (and vice versa), so the
    0 * inf products are left out explicitly. ``class_weights`` as in :func:`cllr`.
    """
    has_ss, has_ds = fit.n_ss > 0, fit.n_ds > 0
    cost_ss = np.sum(fit.n_ss[has_ss] * _softplus(-fit.llr[has_ss])) / fit.n_ss.sum()
    cost_ds = np.sum(fit.n_ds[has_ds] * _softplus(fit.llr[has_ds])) / fit.n_ds.sum()
    if class_weights is not None:
        return weighted_cost(cost_ss, cost_ds, class_weights)
    return float((cost_ss + cost_ds) / (2 * LN2))


def class_weights_of(class_weights) -> tuple[float, float]:
    """``(w_ss, w_ds)`` as two finite numbers >= 0, not both 0 (else an :class:`InputError`)."""
    try:
        w_ss, w_ds = (float(w) for w in class_weights)
    except (TypeError, ValueError) as exc:
        raise InputError("class_weights must be two numbers (same-source, different-source), "
                         f"got {class_weights!r}") from exc
    if not (np.isfinite(w_ss) and np.isfinite(w_ds) and w_ss >= 0 and w_ds >= 0
            and w_ss + w_ds > 0):
        raise InputError("class_weights must be two finite numbers >= 0, not both 0 "
                         f"(same-source, different-source), got {class_weights!r}")
    return w_ss, w_ds


def weighted_cost(cost_ss: float, cost_ds: float, class_weights) -> float:
    """``(w_ss C_ss + w_ds C_ds) / ((w_ss + w_ds) ln 2)`` bits from mean costs in nats; a class
    of weight 0 counts 0 even when its cost is infinite."""
    w_ss, w_ds = class_weights_of(class_weights)
    total = (w_ss * cost_ss if w_ss > 0 else 0.0) + (w_ds * cost_ds if w_ds > 0 else 0.0)
    return float(total / ((w_ss + w_ds) * LN2))


def cllr(ss_llr, ds_llr, *, class_weights=None) -> float:
    """Log-likelihood-ratio cost in bits.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    class_weights : (float, float), optional
        Weights ``(w_ss, w_ds)`` of the same-source and the different-source mean costs
        (default equal): ``Cllr_w = (w_ss C_ss + w_ds C_ds) / (w_ss + w_ds)``, where ``C_ss``
        and ``C_ds`` are the two means in bits below; a class of weight 0 is left out. This
        is the ``weights`` argument of the lir package, whose order is ``(w_ds, w_ss)``.

    Returns
    -------
    float
        0 for a perfect system, 1 for one that always says LR = 1; unbounded above.

    Notes
    -----
    ``Cllr = 1/(2 N_ss) sum log2(1 + 1/LR_ss) + 1/(2 N_ds) sum log2(1 + LR_ds)`` [1]_,
    with ``log(1 + e^x) = max(x, 0) + log(1 + e^-|x|)`` so that no LR is ever
    exponentiated (only ``e^-|llr| <= 1``): exact for ``|llr|`` up to the largest double
    and for +-inf (``+inf`` on its own side costs 0, on the wrong side gives ``inf``).

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    if class_weights is None:
        return cllr_of_arrays(ss, ds)
    return weighted_cost(softplus_sum(-ss) / ss.size, softplus_sum(ds) / ds.size, class_weights)


def min_cllr(ss_llr, ds_llr, *, class_weights=None) -> float:
    """Cllr of the PAV-optimal LLRs: the discrimination loss (bits).

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    class_weights : (float, float), optional
        As in :func:`cllr`. The PAV LLRs do not depend on them (PAV's log odds minus the
        training prior log odds minimise the cost at every prior), so this is the
        class-weighted Cllr of the same PAV LLRs.

    Returns
    -------
    float
        In [0, 1] and at most :func:`cllr`; invariant to strictly increasing transforms.

    Notes
    -----
    ``minCllr = Cllr(PAV(llr))`` with the PAV LLRs of :func:`~forensic_lr.metrics.pav.pav_llr`
    (ties pooled into one block) [1]_. Computed from block counts:
    ``1/(2 ln 2) [sum_b n_ss,b softplus(-l_b) / N_ss + sum_b n_ds,b softplus(l_b) / N_ds]``.
    A block LLR ``l_b = +inf`` only occurs in blocks without DS trials (and ``-inf``
    without SS), so those ``0 * inf`` terms are 0 and left out.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    return block_cllr(pav_blocks(*check_pair(ss_llr, ds_llr)), class_weights)


def cllr_cal(ss_llr, ds_llr, *, class_weights=None) -> float:
    """Calibration loss ``Cllr - minCllr`` (bits, >= 0).

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).
    class_weights : (float, float), optional
        As in :func:`cllr` (both terms weighted alike).

    Returns
    -------
    float
        ``cllr(ss_llr, ds_llr) - min_cllr(ss_llr, ds_llr)``; ``inf`` when Cllr is.

    Notes
    -----
    ``Cllr_cal = Cllr - minCllr`` [1]_: the part of the cost a monotone recalibration of
    these LLRs would remove on these data.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    if class_weights is None:
        return cllr_of_arrays(ss, ds) - block_cllr(pav_blocks(ss, ds))
    return (cllr(ss, ds, class_weights=class_weights)
            - block_cllr(pav_blocks(ss, ds), class_weights))
