"""The calibrator interface, shared input checks and the warnings every calibrator returns."""

from __future__ import annotations

import warnings
from typing import Protocol, Self, runtime_checkable

import numpy as np

from .._checks import as_score_array, check_pair
from ..errors import ExtrapolationWarning, InputError, NotFittedError, SmallSampleWarning

#: A background class with fewer scores than this gets a small-sample warning.
SMALL_CLASS = 20


@runtime_checkable
class Calibrator(Protocol):
    """What every calibrator offers: ``fit(ss, ds)``, ``llr(scores)`` (natural log), ``params()``.

    Training is prior-neutral: SS and DS weigh equally whatever their counts.
    """

    name: str

    def fit(self, ss: np.ndarray, ds: np.ndarray) -> Self: ...

    def llr(self, scores: np.ndarray) -> np.ndarray: ...

    def params(self) -> dict: ...


def check_background(ss, ds) -> tuple[np.ndarray, np.ndarray]:
    """Validated background scores: finite, at least 2 per class, neither class constant.

    Raises
    ------
    InputError
        Naming the class, the offending index and value (or the constant value) and the
        fix; a constant class has zero variance, from which no calibrator can learn.
    """
    ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False, min_size=2)
    for label, values in (("ss", ss), ("ds", ds)):
        if values.min() == values.max():
            raise InputError(
                f"all {values.size} {label} scores equal {float(values[0])!r}: a calibrator "
                f"cannot learn from a constant class (zero variance); check the {label} file"
            )
    return ss, ds


class BaseCalibrator:
    """Input validation and the fitted check, shared by the calibrators in this package."""

    name = "base"

    def _validate(self, ss, ds) -> tuple[np.ndarray, np.ndarray]:
        """Finite raw scores, at least 2 per class, and neither class constant."""
        return check_background(ss, ds)

    def _scores(self, scores) -> np.ndarray:
        if not hasattr(self, "fitted_"):
            raise NotFittedError(f"{self.name} calibrator is not fitted; call fit(ss, ds) first")
        return as_score_array(scores, "scores")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if not k.endswith("_"))
        return f"{type(self).__name__}({args})"


def fit_warnings(ss, ds, scores) -> tuple[str, ...]:
    """Texts of the warnings about a case: extrapolation and small background classes.

    Each text is also raised with :func:`warnings.warn` (``ExtrapolationWarning`` or
    ``SmallSampleWarning``) for API users. Degenerate background data (non-finite
    values, fewer than 2 scores or a constant class) raise :class:`InputError` via
    :func:`check_background`, as every calibrator's ``fit`` does.

    Parameters
    ----------
    ss, ds : array_like
        Background same-source and different-source scores.
    scores : array_like
        Evidence score(s) of the case.

    Returns
    -------
    tuple of str
        One text per score outside ``[min, max]`` of the pooled background scores, and one
        per class with fewer than 20 scores.
    """
    ss, ds = check_background(ss, ds)
    scores = as_score_array(scores, "scores")
    lo, hi = min(ss.min(), ds.min()), max(ss.max(), ds.max())
    found: list[tuple[str, type[Warning]]] = []
    for s in scores[(scores < lo) | (scores > hi)]:
        found.append(
            (
                f"score {s:g} lies outside the range of the background scores "
                f"[{lo:g}, {hi:g}]: its LR is an extrapolation of the model",
                ExtrapolationWarning,
            )
        )
    for label, values in (("same-source", ss), ("different-source", ds)):
        if values.size < SMALL_CLASS:
            found.append(
                (
                    f"only {values.size} {label} background scores (fewer than {SMALL_CLASS}): "
                    "the fitted model and the LR are uncertain",
                    SmallSampleWarning,
                )
            )
    for text, category in found:
        warnings.warn(text, category, stacklevel=2)
    return tuple(text for text, _ in found)
