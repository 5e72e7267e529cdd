"""Input validation shared by the public functions (one helper per kind of input)."""

from __future__ import annotations

import warnings

import numpy as np

from .errors import InputError, excerpt


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
    if isinstance(values, bool | np.bool_) or (
        isinstance(values, list | tuple) and any(isinstance(v, bool | np.bool_) for v in values)
    ):
        raise InputError(f"{name} must be numbers, got true/false; give the score itself")
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be numeric ({excerpt(exc, 60)})") from None
    if raw.dtype.kind == "b":
        raise InputError(f"{name} must be numbers, got true/false; give the score itself")
    try:
        arr = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        bad = next((v for v in raw.flat if not _is_float(v)), None)
        shown = "" if bad is None else f": {excerpt(bad)} is not a number"
        raise InputError(f"{name} must be numeric{shown}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_size:
        raise InputError(f"{name} needs at least {min_size} value(s), got {arr.size}")
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = float(arr[i])  # a Python float prints as nan / inf, never np.float64(nan)
        why = (
            " (NaN: not a number; an extreme input such as 1e300 can produce one in a "
            "calculation)" if np.isnan(value) else ""
        )
        raise InputError(
            f"{name}[{i}] = {value!r} is non-finite{why}; remove or correct that value"
        )
    return arr


def _is_float(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def check_pair(ss, ds, *, names=("ss_llr", "ds_llr"), allow_inf: bool = True, min_size: int = 1):
    """Validate a pair of same-source / different-source arrays (see :func:`as_score_array`)."""
    return (
        as_score_array(ss, names[0], allow_inf=allow_inf, min_size=min_size),
        as_score_array(ds, names[1], allow_inf=allow_inf, min_size=min_size),
    )


def renamed_keyword(value, old_value, *, old: str, new: str, function: str,
                    stacklevel: int = 3):
    """``value``, or ``old_value`` given under the older spelling ``old`` (a
    :class:`DeprecationWarning` naming ``new``); both given is an :class:`InputError`."""
    if old_value is None:
        return value
    warnings.warn(f"{function}({old}=...) is deprecated; write {new}=... instead",
                  DeprecationWarning, stacklevel=stacklevel)
    if value is not None:
        raise InputError(f"{function}(): give {new} once ({old} is its older spelling)")
    return old_value


def sources_pair(ss_sources, ds_sources, groups, *, function: str, stacklevel: int = 3):
    """``(ss_sources, ds_sources)``, or None when neither is given.

    ``groups=(ss_sources, ds_sources)`` is the older spelling (a
    :class:`DeprecationWarning`); giving one class's sources without the other's is an
    :class:`InputError`.
    """
    if groups is not None:
        warnings.warn(f"{function}(groups=(ss_sources, ds_sources)) is deprecated; write "
                      "ss_sources=..., ds_sources=... instead", DeprecationWarning,
                      stacklevel=stacklevel)
        if ss_sources is not None or ds_sources is not None:
            raise InputError(f"{function}(): give the sources once, as ss_sources and "
                             "ds_sources (groups is their older spelling)")
        ss_sources, ds_sources = groups
    if (ss_sources is None) != (ds_sources is None):
        raise InputError(f"{function}(): give the sources of both classes (ss_sources and "
                         "ds_sources) or of neither")
    return None if ss_sources is None else (ss_sources, ds_sources)
