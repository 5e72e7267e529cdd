"""Rates of misleading evidence, Tippett data and devPAV."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_pair
from ..records import Serialisable
from .pav import PAVFit, pav_fit

_LOG10_E = np.log10(np.e)


def rmep(ss_llr, ds_llr) -> float:
    """Rate of misleading evidence in favour of Hd: share of SS trials with LR < 1.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        ``RMEP = #{llr_ss < 0} / N_ss``; LR = 1 exactly is not misleading.

    Notes
    -----
    Misleading evidence as defined by Meuwly et al. [1]_ (``ds_llr`` is validated only).

    References
    ----------
    .. [1] D. Meuwly, D. Ramos, R. Haraksim, "A guideline for the validation of likelihood
           ratio methods used for forensic evidence evaluation", Forensic Science
           International 276 (2017) 142-153.
    """
    ss, _ = check_pair(ss_llr, ds_llr)
    return float(np.mean(ss < 0))


def rmed(ss_llr, ds_llr) -> float:
    """Rate of misleading evidence in favour of Hp: share of DS trials with LR > 1.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        ``RMED = #{llr_ds > 0} / N_ds``; LR = 1 exactly is not misleading.

    Notes
    -----
    Misleading evidence as defined by Meuwly et al. [1]_ (``ss_llr`` is validated only).

    References
    ----------
    .. [1] D. Meuwly, D. Ramos, R. Haraksim, "A guideline for the validation of likelihood
           ratio methods used for forensic evidence evaluation", Forensic Science
           International 276 (2017) 142-153.
    """
    _, ds = check_pair(ss_llr, ds_llr)
    return float(np.mean(ds > 0))


@dataclass(frozen=True)
class TippettData(Serialisable):
    """Step functions at the observed log10 LRs only (no extrapolation).

    ``ss_prop_ge[i]`` / ``ds_prop_ge[i]``: share of SS / DS trials with
    ``log10 LR >= log10_lr[i]``; ``log10_lr`` are the distinct observed finite values.
    """

    log10_lr: np.ndarray
    ss_prop_ge: np.ndarray
    ds_prop_ge: np.ndarray


def tippett(ss_llr, ds_llr) -> TippettData:
    """Tippett data: proportion of SS and DS trials with log10 LR at or above each value.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    TippettData
        Evaluated at the distinct finite observed ``log10 LR`` values only: the step
        functions are not extended beyond the data (infinite LLRs count in the
        proportions but get no abscissa).

    Notes
    -----
    ``ss_prop_ge(x) = #{log10 LR_ss >= x} / N_ss`` and likewise for DS [1]_; one sort
    per class and a ``searchsorted`` of the abscissae, O(n log n).

    References
    ----------
    .. [1] D. Meuwly, D. Ramos, R. Haraksim, "A guideline for the validation of likelihood
           ratio methods used for forensic evidence evaluation", Forensic Science
           International 276 (2017) 142-153.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    ss, ds = np.sort(ss), np.sort(ds)  # counted in the input (natural-log) domain
    x = np.unique(np.concatenate([ss, ds]))
    x = x[np.isfinite(x)]
    return TippettData(
        x * _LOG10_E,
        1.0 - np.searchsorted(ss, x, side="left") / ss.size,
        1.0 - np.searchsorted(ds, x, side="left") / ds.size,
    )


def tippett_counts(ss_llr, ds_llr, llr) -> tuple[np.ndarray, np.ndarray]:
    """Same-source and different-source trials that support the side of each of ``llr``
    at least as strongly: ``#{llr_t >= x}`` for ``x >= 0`` (LR >= 1), ``#{llr_t <= x}``
    for ``x < 0``.

    The counts a report gives beside the Tippett plot for a case's LRs (natural log, like
    the trials); one sort per class and a ``searchsorted``.
    """
    ss, ds = check_pair(ss_llr, ds_llr)
    x = np.atleast_1d(np.asarray(llr, dtype=np.float64))
    above = x >= 0

    def count(values: np.ndarray) -> np.ndarray:
        values = np.sort(values)
        return np.where(above, values.size - np.searchsorted(values, x, side="left"),
                        np.searchsorted(values, x, side="right"))

    return count(ss), count(ds)


def _area_to_identity(x0, y0, x1, y1) -> np.ndarray:
    """Exact area between segments (x0,y0)-(x1,y1) and the line y = x."""
    g0, g1 = y0 - x0, y1 - x1
    width = x1 - x0
    same_side = g0 * g1 >= 0
    denom = np.where(same_side, 1.0, np.abs(g0) + np.abs(g1))
    crossing = width * (g0**2 + g1**2) / (2 * denom)
    return np.where(same_side, width * (np.abs(g0) + np.abs(g1)) / 2, crossing)


def devpav(ss_llr, ds_llr) -> float:
    """devPAV: mean absolute deviation of the PAV transform from the identity (log10 units).

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        Natural-log LRs of same-source and different-source trials (+-inf allowed).

    Returns
    -------
    float
        0 for LLRs that PAV leaves unchanged (where finite); NaN when no PAV block has a
        finite value (separated classes).

    Notes
    -----
    Following Vergeer et al. [1]_: the PAV transform of the LLRs, as a function of the
    log10 LR, is drawn through the end points ``(low, v), (high, v)`` of each block with
    a finite PAV value ``v`` (all in log10 units), joined by straight segments ``f``;

    ``devPAV = 1/(x_max - x_min) * integral_{x_min}^{x_max} |f(x) - x| dx``

    over the range ``[x_min, x_max]`` of those end points, each segment's area to the
    line ``y = x`` computed exactly (split where it crosses the line). Blocks with an
    infinite PAV value (only one class present) are left out, since the transform is not
    finite there. A single finite point gives its distance ``|v - x|`` to the identity;
    no finite block gives NaN. This agrees with the lir package's ``devpav`` (tested).

    References
    ----------
    .. [1] P. Vergeer, Y. van Schaik, M. Sjerps, "Measuring calibration of likelihood-ratio
           systems: a comparison of four metrics, including a new metric devPAV",
           Forensic Science International 321 (2021) 110722.
    """
    return devpav_of_fit(pav_fit(*check_pair(ss_llr, ds_llr)))


def devpav_of_fit(fit: PAVFit) -> float:
    """devPAV (see :func:`devpav`) of an existing PAV fit."""
    finite = np.isfinite(fit.llr) & np.isfinite(fit.block_low) & np.isfinite(fit.block_high)
    if not finite.any():
        return float("nan")
    x = np.column_stack([fit.block_low[finite], fit.block_high[finite]]).ravel() * _LOG10_E
    y = np.repeat(fit.llr[finite] * _LOG10_E, 2)
    width = x[-1] - x[0]
    if width <= 0:  # one finite point: its distance to the identity (as lir does)
        return float(abs(x[0] - y[0]))
    return float(np.sum(_area_to_identity(x[:-1], y[:-1], x[1:], y[1:])) / width)
