"""Input validation shared by the public functions (one helper per kind of input)."""

from __future__ import annotations

import numpy as np

from .errors import InputError


def as_score_array(values, name: str, *, allow_inf: bool = False, min_size: int = 1) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array, or raise :class:`InputError`.

    Parameters
    ----------
    values : array_like
        Scores or log-likelihood ratios.
    name : str
        How the argument is called in the message (e.g. ``"ss_llr"``).
    allow_inf : bool
        Whether +-inf are accepted (LLRs of a saturated system may be infinite;
        raw scores may not).
    min_size : int
        Smallest accepted number of values.
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be numeric ({exc})") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_size:
        raise InputError(f"{name} needs at least {min_size} value(s), got {arr.size}")
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        kind = "NaN" if allow_inf else "non-finite"
        raise InputError(f"{name}[{i}] = {arr[i]!r} is {kind}; remove or correct that value")
    return arr


def check_pair(ss, ds, *, names=("ss_llr", "ds_llr"), allow_inf: bool = True, min_size: int = 1):
    """Validate a pair of same-source / different-source arrays (see :func:`as_score_array`)."""
    return (
        as_score_array(ss, names[0], allow_inf=allow_inf, min_size=min_size),
        as_score_array(ds, names[1], allow_inf=allow_inf, min_size=min_size),
    )
