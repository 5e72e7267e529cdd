"""Do these numbers look like calibrated LLRs of the right classes? Signs of raw scores or
of swapped classes.

Values read as natural-log LRs that are in fact raw comparison scores give a meaningless
Cllr (scores 60 against 40 give Cllr 2.27 bits); same-source and different-source values
given the wrong way round give a system that ranks backwards. :func:`raw_score_signs` and
:func:`swapped_sign` name the symptoms, so that the command line can print them and
:func:`forensic_lr.metrics.evaluate_llrs` can raise them as warnings for API users.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.special import logsumexp

from .._numbers import LN10
from ..errors import RawScoreWarning, SwappedClassesWarning
from ..i18n.messages import english

__all__ = ["EXPECTATION_LIMIT_LOG10", "raw_score_signs", "swapped_sign", "warn_if_not_llrs"]

#: Largest log10 of the sample mean of LR over DS (of 1/LR over SS) taken as calibrated.
EXPECTATION_LIMIT_LOG10 = 1.0


def raw_score_signs(ss_llr, ds_llr, *, presorted: bool = False) -> tuple[str, ...]:
    """Reasons to think that ``ss_llr``, ``ds_llr`` are not calibrated natural-log LRs.

    Parameters
    ----------
    ss_llr, ds_llr : array_like
        The values read as natural-log LRs of same-source and different-source trials
        (NaN values are left out).
    presorted : bool
        Both arrays are sorted ascending and hold no NaN (as
        :func:`forensic_lr.metrics.evaluate_llrs` has them): the extremes and the shares
        are then read off their ends and a binary search, with no pass over the values.

    Returns
    -------
    tuple of str
        Empty when nothing looks wrong; otherwise one sentence per symptom.

    Notes
    -----
    Three symptoms:

    * every value has the same sign: no trial supports the other proposition;
    * RMEP = share of SS with LLR < 0, or RMED = share of DS with LLR > 0, above 0.5: the
      values favour the wrong proposition more often than not;
    * the sample means :math:`\\overline{LR}_{DS} = \\frac1{n_{ds}}\\sum e^{\\ell_j}` or
      :math:`\\overline{1/LR}_{SS} = \\frac1{n_{ss}}\\sum e^{-\\ell_i}` above 10. For
      calibrated LRs both expectations equal 1 (Good [1]_; van Leeuwen and Brummer [2]_):
      :math:`E(LR \\mid H_d) = \\int p(x|H_p) dx = 1`. By Markov's inequality a sample mean
      reaches 10 with probability at most 0.1, and in practice far less; raw scores on
      another scale exceed it by orders of magnitude. Computed with ``logsumexp``
      (no overflow), and only when the values above 0 could reach 10 at all: the values
      at or below 0 add at most 1 each, so ``sum(e^l for l > 0) <= 9 n`` settles it
      without exponentiating the bulk.

    References
    ----------
    .. [1] I. J. Good, Probability and the Weighing of Evidence, Griffin, 1950.
    .. [2] D. A. van Leeuwen, N. Brummer, The distribution of calibrated likelihood-ratios
       in speaker recognition, Interspeech 2013.
    """
    ss = np.asarray(ss_llr, dtype=np.float64).ravel()
    ds = np.asarray(ds_llr, dtype=np.float64).ravel()
    if not presorted:
        ss, ds = _without_nan(ss), _without_nan(ds)
    if ss.size == 0 or ds.size == 0:
        return ()
    if presorted:  # the values below 0 lead ss, those above 0 end ds
        low, high = min(ss[0], ds[0]), max(ss[-1], ds[-1])
        ss_below = ss[: np.searchsorted(ss, 0.0, side="left")]
        ds_above = ds[np.searchsorted(ds, 0.0, side="right"):]
    else:
        low, high = min(ss.min(), ds.min()), max(ss.max(), ds.max())
        ss_below, ds_above = ss[ss < 0], ds[ds > 0]
    signs = []
    if low > 0 or high < 0:
        side = "positive (favour Hp)" if low > 0 else "negative (favour Hd)"
        signs.append(f"all {ss.size + ds.size} values are {side}")
    rmep, rmed = ss_below.size / ss.size, ds_above.size / ds.size
    if rmep > 0.5:
        signs.append(f"RMEP = {rmep:.2f}: most same-source values favour Hd")
    if rmed > 0.5:
        signs.append(f"RMED = {rmed:.2f}: most different-source values favour Hp")
    for values, positive, kind, sign in ((ds, ds_above, "different-source", 1.0),
                                         (-ss, -ss_below, "same-source", -1.0)):
        value = _mean_exp_log10(values, positive)
        if value > EXPECTATION_LIMIT_LOG10:
            what = "LR" if sign > 0 else "1/LR"
            signs.append(f"the mean {what} over the {kind} values is 10^{value:.1f}; for "
                         f"calibrated LRs it is 1" + _one_outlier(values, kind, sign))
    return tuple(signs)


def _one_outlier(values: np.ndarray, kind: str, sign: float) -> str:
    """A clause naming the one value that lifts the mean of ``exp(values)`` above the limit
    on its own (the others' mean is at most ``10**EXPECTATION_LIMIT_LOG10``), or "".

    One strongly misleading LLR (a calibration extrapolating past its data, such as a
    logistic fit with no bounds) can carry the mean alone, whereas raw scores on another
    scale lift every term. The largest term's share of the sum is
    :math:`e^{\\max - \\mathrm{logsumexp}}`.
    """
    top = int(np.argmax(values))
    rest = np.delete(values, top)
    limit = math.log(10 ** EXPECTATION_LIMIT_LOG10 * max(rest.size, 1))
    if rest.size and float(logsumexp(rest)) > limit:
        return ""
    share = math.exp(float(values[top]) - float(logsumexp(values)))
    return (f"; {share:.0%} of it comes from one {kind} LLR of {sign * values[top]:.3g}, a "
            "strongly misleading value such as an unbounded calibration gives past its data "
            "(bounds such as ELUB limit it)")


def _without_nan(values: np.ndarray) -> np.ndarray:
    nan = np.isnan(values)
    return values[~nan] if nan.any() else values


def _mean_exp_log10(values: np.ndarray, positive: np.ndarray) -> float:
    """``log10(mean(exp(values)))``, or -inf when it is surely at most 10 (see Notes of
    :func:`raw_score_signs`); ``positive``: the values above 0."""
    with np.errstate(over="ignore", invalid="ignore"):
        if positive.size == 0 or (
            logsumexp(positive) <= math.log((10 ** EXPECTATION_LIMIT_LOG10 - 1) * values.size)
        ):
            return -math.inf
        return float((logsumexp(values) - math.log(values.size)) / LN10)


def swapped_sign(ss, ds, *, what: str = "values",
                 direction: str = "higher_is_similar") -> str | None:
    """Why ``ss`` and ``ds`` may be the wrong way round, or None.

    Parameters
    ----------
    ss, ds : array_like
        Same-source and different-source values, score-like (higher supports Hp): LLRs,
        or raw scores with their direction applied.
    what : {"values", "LLRs", "scores"}
        What the values are, for the sentence (``warning.swapped.*`` of the messages
        catalogue; another word is worded as ``"values"``).
    direction : {"higher_is_similar", "lower_is_similar"}
        How raw scores were measured: for distances (negated on input) the sentence gives
        the mean distances as measured, and names the score direction as a cause.

    Returns
    -------
    str or None
        A sentence when the mean of ``ss`` lies below the mean of ``ds`` (NaN values left
        out; undefined means, such as ``inf - inf``, give None). When a mean is infinite
        (one LR of 0 or infinity among the values), the medians are compared instead: one
        infinite value says nothing about the direction of the rest.

    Notes
    -----
    Higher values support the same-source proposition (Hp), so same-source values lie
    above different-source values on average for any method better than chance; the
    mean is the simplest such test (one pass). A method no better than chance can cross
    by chance too, which is also worth a look.
    """
    mean_ss, mean_ds = _mean(ss), _mean(ds)
    centre = "mean"
    if math.isinf(mean_ss) or math.isinf(mean_ds):
        mean_ss, mean_ds, centre = _median(ss), _median(ds), "median"
    if not mean_ss < mean_ds:  # NaN: undefined, no sign
        return None
    if direction == "lower_is_similar":  # distances as measured (negated on input)
        return english(f"warning.swapped.distances.{centre}", ss=f"{-mean_ss:.4g}",
                       ds=f"{-mean_ds:.4g}")
    kind = what.lower() if what in ("scores", "LLRs") else "values"
    return english(f"warning.swapped.{kind}.{centre}", ss=f"{mean_ss:.4g}", ds=f"{mean_ds:.4g}")


def _mean(values) -> float:
    """Mean without NaN values (NaN when none is left, or for ``inf - inf``); one pass
    unless a NaN is present."""
    values = np.asarray(values, dtype=np.float64).ravel()
    with np.errstate(invalid="ignore", over="ignore"):
        mean = float(values.mean()) if values.size else math.nan
        if math.isnan(mean) and values.size:
            kept = _without_nan(values)
            mean = float(kept.mean()) if kept.size else math.nan
    return mean


def _median(values) -> float:
    """Median without NaN values (NaN when none is left, or when the two middle values are
    -inf and inf)."""
    kept = _without_nan(np.asarray(values, dtype=np.float64).ravel())
    with np.errstate(invalid="ignore"):  # the middle pair -inf, inf: undefined, no sign
        return float(np.median(kept)) if kept.size else math.nan


def warn_if_not_llrs(ss_llr, ds_llr, *, presorted: bool = False,
                     stacklevel: int = 2) -> tuple[str, ...]:
    """Raise the checks of values given as natural-log LLRs as warnings; return the texts.

    :class:`~forensic_lr.errors.SwappedClassesWarning` from :func:`swapped_sign`, and
    :class:`~forensic_lr.errors.RawScoreWarning` from :func:`raw_score_signs` (the checks
    of ``forensic-lr validate``), with what to do about each. ``presorted``: as in
    :func:`raw_score_signs`.
    """
    found = []
    swapped = swapped_sign(ss_llr, ds_llr, what="LLRs")
    if swapped:
        found.append((swapped, SwappedClassesWarning))
    signs = raw_score_signs(ss_llr, ds_llr, presorted=presorted)
    if signs:
        found.append((
            "these values do not look like calibrated natural-log LRs (" + "; ".join(signs)
            + "). If they are raw comparison scores, calibrate them first (for instance "
            "forensic_lr.cross_validated_llr, or a calibrator from "
            "forensic_lr.make_calibrator); if they are LRs in another base, convert them "
            "to natural logs (log10 LR x ln 10)", RawScoreWarning))
    for text, category in found:
        warnings.warn(text, category, stacklevel=stacklevel + 1)
    return tuple(text for text, _ in found)
