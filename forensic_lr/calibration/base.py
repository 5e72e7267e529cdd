"""The calibrator interface, shared input checks and the warnings every calibrator returns."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np

from .._checks import as_score_array, check_pair
from ..errors import (
    ExtrapolationWarning,
    InputError,
    NotFittedError,
    SmallSampleWarning,
    SwappedClassesWarning,
    excerpt,
)
from ..i18n.messages import english
from ..io.scores import orient
from ..metrics.llr_checks import swapped_sign
from ..records import MethodDescription, ParamRow

#: A background class with fewer scores than this gets a small-sample warning.
SMALL_CLASS = 20


@runtime_checkable
class Calibrator(Protocol):
    """What every calibrator offers: ``fit(ss, ds, ss_weight=None, ds_weight=None)``,
    ``llr(scores)`` (natural log), ``params()``.

    Training is prior-neutral: SS and DS weigh equally whatever their counts. The weights
    are frequency weights, as scikit-learn's ``sample_weight``: a score of weight ``c``
    counts as ``c`` scores, so integer counts give exactly the fit on the repeated data
    (a bootstrap replicate is a fit with its draw counts as weights).
    """

    name: str

    def fit(self, ss: np.ndarray, ds: np.ndarray, ss_weight: np.ndarray | None = None,
            ds_weight: np.ndarray | None = None) -> Self: ...

    def llr(self, scores: np.ndarray) -> np.ndarray: ...

    def params(self) -> dict: ...


#: Background scores must reach at least the first and at most the second magnitude: beyond
#: them squares and variances under- or overflow in float64 (about 1e-308 to 1e308).
SCORE_SCALE = (1e-100, 1e100)


def check_background(ss, ds) -> tuple[np.ndarray, np.ndarray]:
    """Validated background scores: finite, at least 2 per class, neither class constant.

    The scores' magnitudes must lie in :data:`SCORE_SCALE`: no value beyond 1e100 in size
    and not every value below 1e-100, where sums of squares leave the float64 range.

    Raises
    ------
    InputError
        Naming the class, the offending index and value (or the constant value) and the
        fix; a constant class has zero variance, from which no calibrator can learn.
    """
    ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False, min_size=2)
    low, high = SCORE_SCALE
    for label, values in (("ss", ss), ("ds", ds)):
        largest = float(values[np.argmax(np.abs(values))])
        if abs(largest) > high:
            raise InputError(
                f"the {label} scores include {largest!r}, beyond +-{high:g}: no "
                "calibrator computes reliably with such magnitudes (their squares overflow); "
                f"check the {label} file for a unit or reading error, or remove the value"
            )
    if max(np.abs(ss).max(), np.abs(ds).max()) < low:
        raise InputError(
            f"every background score is smaller than {low:g} in magnitude (largest "
            f"{float(max(np.abs(ss).max(), np.abs(ds).max()))!r}): too close to the smallest "
            "floating-point numbers to fit a model; rescale the scores (e.g. multiply them "
            "by a power of ten) in the ss and ds files"
        )
    for label, values in (("ss", ss), ("ds", ds)):
        if values.min() == values.max():
            raise InputError(
                f"all {values.size} {label} scores equal {float(values[0])!r}: a calibrator "
                f"cannot learn from a constant class (zero variance); check the {label} file"
            )
    return ss, ds


def check_weight(weight, size: int, name: str) -> np.ndarray | None:
    """Per-score weights as a float array (None stays None: every score counts once).

    Raises
    ------
    InputError
        Not one weight per score, or a weight that is negative or not finite (naming it).
    """
    if weight is None:
        return None
    try:
        w = np.asarray(weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers, one per score, got {excerpt(weight)}") from None
    if w.ndim != 1 or w.size != size:
        raise InputError(f"{name} has shape {w.shape}: give one weight per score ({size})")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise InputError(f"{name}[{bad[0]}] = {float(w[bad[0]])!r}: weights must be finite "
                         "and >= 0 (how often each score counts, as scikit-learn's "
                         "sample_weight)")
    return w


def weighted_moments(values: np.ndarray, weight: np.ndarray | None) -> tuple[float, float]:
    """Mean and ML variance (divisor ``W = sum w``) of ``values`` counted ``weight`` times.

    ``m = sum w_i x_i / W`` and ``v = sum w_i (x_i - m)^2 / W``: with integer counts, the
    moments of the repeated data. ``weight=None`` counts each value once.
    """
    if weight is None:  # the arithmetic of the per-row moments of the bootstrap hooks
        mean = values.mean(axis=-1)
        centred = values - mean
        return float(mean), float(np.einsum("...i,...i->...", centred, centred) / values.size)
    # einsum, not a BLAS product: BLAS threads wait on each other on a busy machine
    # (measured 30 ms instead of 0.1 ms for 10^5 scores at a load of 10 on 2 cores)
    total = weight.sum()
    mean = np.einsum("i,i->", weight, values) / total
    centred = values - mean
    return float(mean), float(np.einsum("i,i,i->", weight, centred, centred) / total)


def weighted_percentiles(values: np.ndarray, weight: np.ndarray | None,
                         quantiles) -> np.ndarray:
    """Quantiles of ``values`` counted ``weight`` times, as :func:`numpy.percentile` of the
    repeated data (linear interpolation, Hyndman & Fan type 7).

    With the values sorted and ``C_i`` the cumulative weight up to value ``i``, order
    statistic ``j`` (from 0) of the repeated data is the first value with ``C_i > j``;
    quantile ``q`` interpolates between order statistics ``floor(p)`` and ``floor(p) + 1``
    at ``p = q (W - 1)``, ``W = sum w``.
    """
    q = np.asarray(quantiles, dtype=np.float64)
    if weight is None:
        return np.percentile(values, 100 * q)
    order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(weight[order])
    pos = q * (cum[-1] - 1)
    low = np.floor(pos)
    at = [v[np.minimum(np.searchsorted(cum, j, side="right"), v.size - 1)]
          for j in (low, low + 1)]
    return at[0] + (pos - low) * (at[1] - at[0])


def number_option(value: Any, name: str, *, minimum: float = 0.0, strict: bool = True) -> float:
    """The option ``name`` as a finite float above ``minimum`` (or at least it, if not strict).

    Raises
    ------
    InputError
        Naming the option, its value and the numbers it accepts (true/false is not a number,
        nor is text: ``prior_variance = "5"`` is refused, never read as 5).
    """
    try:
        number = float("nan") if isinstance(value, str) else float(value)
    except (TypeError, ValueError, OverflowError):
        number = float("nan")
    if isinstance(value, bool) or not np.isfinite(number) or number < minimum or (
            strict and number == minimum):
        bound = ("finite number" if minimum == -np.inf
                 else "positive number" if (minimum == 0 and strict)
                 else f"number > {minimum:g}" if strict else f"number >= {minimum:g}")
        quoted = isinstance(value, str) and _is_number_text(value)
        raise InputError(f"option {name} must be a {bound}, got {excerpt(value)}"
                         + (" (text, in quotes): write the number without quotes" if quoted
                            else ""))
    return number


def _is_number_text(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def bool_option(value: Any, name: str) -> bool:
    """The option ``name`` as a bool; numbers and text are refused, naming the option."""
    if not isinstance(value, bool):
        raise InputError(f"option {name} must be true or false, got {excerpt(value)}")
    return value


@dataclass(frozen=True)
class ExtraInput:
    """A score input a calibrator needs besides the SS and DS background.

    ``key`` is at once the calibrator option, the case file's ``[background]`` key and
    the JSON name; ``flag`` the command-line option of ``forensic-lr calibrate``.
    """

    key: str
    flag: str
    help: str
    required: bool


class BaseCalibrator:
    """Input validation, the fitted check and what a method declares about itself.

    What a calibrator *says* lives on its class, so that the command line, the case
    file, the pipeline and the report templates read it from one place: ``title``,
    ``summary``, ``equation``, ``reference`` and ``validation`` (:meth:`describe`; the
    last says how a cross-validation by source treats the method, when it does more than
    refit on each fold's training comparisons), ``extra_inputs``
    (score inputs beyond the background), ``in_default_study`` (one of the methods a
    validation study compares by default), ``posterior`` (offers posterior samples for a
    Bayesian credible interval), ``validated_by_source`` (the method adapts to the case's
    own source, so only folds by source validate it as applied), ``sorts_scores`` (its
    fit sorts each class first, so the bootstrap's refits hand it the classes sorted
    once), :meth:`limitations` and :meth:`param_rows`.
    """

    name = "base"
    title = ""
    summary = ""
    equation = ""
    reference = ""
    validation = ""
    extra_inputs: tuple[ExtraInput, ...] = ()
    in_default_study = False
    posterior = False
    validated_by_source = False
    sorts_scores = False

    @classmethod
    def describe(cls) -> MethodDescription:
        """The method in words, for reports and ``--help``."""
        return MethodDescription(
            name=cls.name, title=cls.title, summary=cls.summary, equation=cls.equation,
            reference=cls.reference, validation=cls.validation,
        )

    def limitations(self) -> tuple[str, ...]:
        """Limits of the method a report states whenever it is used (not warnings)."""
        return ()

    def param_rows(self) -> tuple[ParamRow, ...]:
        """Fitted model quantities worth showing a reader, beyond ``params()``'s raw form."""
        return ()

    def check_options(self) -> None:
        """Raise :class:`InputError` naming an option whose value the method cannot use.

        Called by :func:`~forensic_lr.calibration.make_calibrator` (so a case file or a
        command line is refused before any data are read) and again by ``fit``.
        """

    def _validate(self, ss, ds) -> tuple[np.ndarray, np.ndarray]:
        """Valid options; finite raw scores, at least 2 per class, neither class constant."""
        self.check_options()
        return check_background(ss, ds)

    def _validate_weighted(self, ss, ds, ss_weight=None, ds_weight=None):
        """``(ss, ds, w_ss, w_ds)``: :meth:`_validate` of the scores of positive weight.

        Weights are checked by :func:`check_weight` (None stays None); scores of weight 0
        are left out, as if absent, and the rest must hold two different values per class.
        """
        self.check_options()
        ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False, min_size=2)
        w_ss, w_ds = check_weight(ss_weight, ss.size, "ss_weight"), check_weight(
            ds_weight, ds.size, "ds_weight")
        ss, w_ss = _positive(ss, w_ss)
        ds, w_ds = _positive(ds, w_ds)
        ss, ds = check_background(ss, ds)
        return ss, ds, w_ss, w_ds

    def check_fitted(self) -> None:
        """Raise :class:`~forensic_lr.errors.NotFittedError` naming the calibrator unless
        :meth:`fit` has run (it sets ``fitted_``), as scikit-learn's ``check_is_fitted``."""
        if not getattr(self, "fitted_", False):
            raise NotFittedError(
                f"this {type(self).__name__} ({self.name!r}) is not fitted yet; call "
                "fit(ss, ds) before llr, params or density"
            )

    def _scores(self, scores) -> np.ndarray:
        """Fitted check, then ``scores`` as a float array (an input error names them)."""
        self.check_fitted()
        return as_score_array(scores, "scores")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if not k.endswith("_"))
        return f"{type(self).__name__}({args})"


def _positive(values: np.ndarray, weight: np.ndarray | None):
    """``(values, weight)`` of the scores of positive weight (all of them without weights)."""
    if weight is None:
        return values, weight
    keep = weight > 0
    return (values, weight) if keep.all() else (values[keep], weight[keep])


def fit_warnings(ss, ds, scores, *, direction: str = "higher_is_similar") -> tuple[str, ...]:
    """Texts of the warnings about a case: extrapolation, swapped classes and small
    background classes.

    Each text is also raised with :func:`warnings.warn` (``ExtrapolationWarning``,
    ``SwappedClassesWarning`` or ``SmallSampleWarning``) for API users. Degenerate
    background data (non-finite values, fewer than 2 scores or a constant class) raise
    :class:`InputError` via :func:`check_background`, as every calibrator's ``fit`` does.

    Parameters
    ----------
    ss, ds : array_like
        Background same-source and different-source scores, score-like (as used).
    scores : array_like
        Evidence score(s) of the case, score-like (as used).
    direction : {"higher_is_similar", "lower_is_similar"}
        How the scores were measured. The texts give them as measured: for distances
        (``"lower_is_similar"``, negated on input) the distance and the range of the
        background distances, never the negated values the model uses.

    Returns
    -------
    tuple of str
        One text per score outside ``[min, max]`` of the pooled background scores, one
        when the mean same-source score lies below the mean different-source one
        (:func:`~forensic_lr.metrics.llr_checks.swapped_sign`), and one per class with
        fewer than 20 scores.
    """
    ss, ds = check_background(ss, ds)
    scores = as_score_array(scores, "scores")
    lo, hi = min(ss.min(), ds.min()), max(ss.max(), ds.max())
    word = "distance" if direction == "lower_is_similar" else "score"
    shown_lo, shown_hi = sorted(orient(np.array([lo, hi]), direction))
    found: list[tuple[str, type[Warning]]] = []
    for s in orient(scores[(scores < lo) | (scores > hi)], direction):
        found.append((english(f"warning.extrapolation.{word}", score=f"{s:g}",
                              low=f"{shown_lo:g}", high=f"{shown_hi:g}"),
                      ExtrapolationWarning))
    swapped = swapped_sign(ss, ds, what="scores", direction=direction)
    if swapped:
        found.append((swapped, SwappedClassesWarning))
    for label, values in (("same_source", ss), ("different_source", ds)):
        if values.size < SMALL_CLASS:
            found.append((english(f"warning.small_class.{label}", n=str(values.size),
                                  min=str(SMALL_CLASS)), SmallSampleWarning))
    for text, category in found:
        warnings.warn(text, category, stacklevel=2)
    return tuple(text for text, _ in found)


def param_row(label: str, value: Any, fmt: str | int = 3) -> ParamRow:
    """One :class:`~forensic_lr.records.ParamRow` (a shorthand for ``param_rows``)."""
    return ParamRow(label=label, value=value, fmt=fmt)
