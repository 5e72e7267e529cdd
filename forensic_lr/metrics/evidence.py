"""Rates of misleading evidence, Tippett data and devPAV."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_pair
from .pav import PAVFit, pav_fit

_LOG10_E = np.log10(np.e)


def rmep(ss_llr, ds_llr) -> float:
    """Rate of misleading evidence in favour of Hd: share of SS trials with LR < 1."""
    ss, _ = check_pair(ss_llr, ds_llr)
    return float(np.mean(ss < 0))


def rmed(ss_llr, ds_llr) -> float:
    """Rate of misleading evidence in favour of Hp: share of DS trials with LR > 1."""
    _, ds = check_pair(ss_llr, ds_llr)
    return float(np.mean(ds > 0))


@dataclass(frozen=True)
class TippettData:
    """Step functions at the observed log10 LRs only (no extrapolation).

    ``ss_prop_ge[i]`` / ``ds_prop_ge[i]``: share of SS / DS trials with
    ``log10 LR >= log10_lr[i]``; ``log10_lr`` are the distinct observed finite values.
    """

    log10_lr: np.ndarray
    ss_prop_ge: np.ndarray
    ds_prop_ge: np.ndarray

    def to_dict(self) -> dict:
        return {k: getattr(self, k).tolist() for k in ("log10_lr", "ss_prop_ge", "ds_prop_ge")}


def tippett(ss_llr, ds_llr) -> TippettData:
    """Tippett data: proportion of SS and DS trials with log10 LR at or above each value."""
    ss, ds = check_pair(ss_llr, ds_llr)
    ss10, ds10 = np.sort(ss * _LOG10_E), np.sort(ds * _LOG10_E)
    x = np.unique(np.concatenate([ss10, ds10]))
    x = x[np.isfinite(x)]
    return TippettData(
        x,
        1.0 - np.searchsorted(ss10, x, side="left") / ss10.size,
        1.0 - np.searchsorted(ds10, x, side="left") / ds10.size,
    )


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

    Notes
    -----
    Following Vergeer et al. [1]_: the PAV transform of the LLRs, as a function of the
    log10 LR, is drawn through the end points ``(low, v), (high, v)`` of each block with
    a finite PAV value ``v``, joined by straight segments; devPAV is the area between
    that curve and the identity line divided by the width of its x-range. Blocks with an
    infinite PAV value (only one class present) are left out, since the transform is not
    defined there. A single finite point gives its distance to the identity; no finite
    block gives NaN.

    References
    ----------
    .. [1] P. Vergeer, Y. van Schaik, M. Sjerps, "Measuring calibration of likelihood-ratio
           systems: a comparison of four metrics, including a new metric devPAV",
           Forensic Science International 321 (2021) 110722.
    """
    return _devpav(pav_fit(*check_pair(ss_llr, ds_llr)))


def _devpav(fit: PAVFit) -> float:
    finite = np.isfinite(fit.llr) & np.isfinite(fit.block_low) & np.isfinite(fit.block_high)
    if not finite.any():
        return float("nan")
    x = np.column_stack([fit.block_low[finite], fit.block_high[finite]]).ravel() * _LOG10_E
    y = np.repeat(fit.llr[finite] * _LOG10_E, 2)
    width = x[-1] - x[0]
    if width <= 0:  # one finite point: its distance to the identity (as lir does)
        return float(abs(x[0] - y[0]))
    return float(np.sum(_area_to_identity(x[:-1], y[:-1], x[1:], y[1:])) / width)
