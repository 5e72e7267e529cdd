"""A calibrator with scikit-learn's estimator conventions, for pipelines and notebooks.

:class:`LRCalibrator` wraps any calibrator of :data:`forensic_lr.calibration.CALIBRATORS`
behind ``fit(X, y)`` / ``predict_llr(X)``: ``X`` holds one score column (score-like, higher
supports Hp), ``y`` the labels (1 = same source, 0 = different source, or any label the score
files accept, e.g. ``"ss"``/``"ds"``). Its constructor parameters are explicit and stored
unchanged, so :func:`sklearn.base.clone`, ``get_params``/``set_params``, grid search,
``cross_val_predict`` and the last step of a ``Pipeline`` work. scikit-learn's own
functions call only its standard method names, so there the LLR is ``decision_function``:
the posterior log odds at ``prior``, which at the default ``prior=0.5`` is the LLR itself
(``cross_val_predict(LRCalibrator(), X, y, method="decision_function")``); ``predict_llr``
gives the LLR at any prior when called directly.

This module imports without scikit-learn: when scikit-learn is installed the class derives
from :class:`sklearn.base.BaseEstimator` (tags, HTML repr); otherwise a minimal base gives
``get_params``/``set_params`` with the same meaning.

The LLR is the calibrator's natural-log likelihood ratio
:math:`\\ln \\frac{p(s \\mid H_p)}{p(s \\mid H_d)}`; ``predict_proba`` turns it into the
posterior at the estimator's ``prior`` (the probability of :math:`H_p` before the score):
:math:`P(H_p \\mid s) = \\sigma(\\mathrm{LLR} + \\ln\\frac{\\pi}{1-\\pi})`, as in Brümmer and
du Preez, "Application-independent evaluation of speaker detection", Computer Speech and
Language 20 (2006) 230-275.
"""

from __future__ import annotations

import inspect
from typing import Any, Self

import numpy as np
from scipy.special import expit

from .calibration import make_calibrator
from .errors import InputError
from .io.memory import same_source_labels

try:  # scikit-learn is optional: its base classes when present, a minimal one otherwise
    from sklearn.base import BaseEstimator, ClassifierMixin

    class _Base(ClassifierMixin, BaseEstimator):
        """scikit-learn's estimator and binary-classifier conventions (tags, score, repr)."""

except ImportError:  # pragma: no cover - exercised only without scikit-learn
    class _Base:  # type: ignore[no-redef]
        """``get_params``/``set_params`` from the constructor's signature (scikit-learn's rule)."""

        @classmethod
        def _get_param_names(cls) -> list[str]:
            return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

        def get_params(self, deep: bool = True) -> dict[str, Any]:
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params: Any) -> Self:
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"invalid parameter {name!r}; valid: {', '.join(valid)}")
                setattr(self, name, value)
            return self

__all__ = ["LRCalibrator"]


def _scores(X: Any) -> np.ndarray:
    """One score column from ``X`` (shape ``(n,)`` or ``(n, 1)``, array, list or DataFrame)."""
    x = np.asarray(X, dtype=float)
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 1:
        raise InputError(f"X must hold one score column, got shape {x.shape}; "
                         "pass the comparison score of each trial as one column")
    if not np.all(np.isfinite(x)):
        raise InputError(f"X holds {int(np.sum(~np.isfinite(x)))} value(s) that are not finite "
                         "numbers; scores must be finite")
    return x


def _is_same_source(y: Any, n: int) -> np.ndarray:
    """Labels -> True for same source (the score files' rules, :mod:`forensic_lr.io.memory`)."""
    if np.shape(y) != (n,):
        raise InputError(f"y must hold one label per score ({n}), got shape {np.shape(y)}")
    return same_source_labels(y, what="y")


class LRCalibrator(_Base):
    """Scores -> natural-log likelihood ratios, as a scikit-learn estimator.

    Parameters
    ----------
    method : str
        A name from :data:`forensic_lr.calibration.CALIBRATORS` (``"logistic"``, ``"pav"``,
        ``"gaussian"``, ...).
    options : dict or None
        The method's options, as in :func:`~forensic_lr.calibration.make_calibrator`.
    prior : float
        Prior probability of the same-source proposition used by ``predict_proba`` and
        ``predict`` only (0 < prior < 1); the LLR never depends on it.

    Attributes
    ----------
    calibrator_ : Calibrator
        The fitted forensic-lr calibrator.
    classes_ : numpy.ndarray
        ``[0, 1]``: different source, same source (the columns of ``predict_proba``).
    """

    def __init__(self, method: str = "logistic", options: dict | None = None,
                 prior: float = 0.5) -> None:
        self.method = method
        self.options = options
        self.prior = prior

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit the calibrator to the SS (``y`` same source) and DS scores of ``X``;
        ``sample_weight`` (optional) is how often each score counts, passed on as the
        calibrator's ``ss_weight`` and ``ds_weight`` (training stays prior-neutral)."""
        x = _scores(X)
        same = _is_same_source(y, x.size)
        self.calibrator_ = make_calibrator(self.method, **(self.options or {}))
        if sample_weight is None:
            self.calibrator_.fit(x[same], x[~same])
        else:
            w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
            if w.size != x.size:
                raise InputError(f"sample_weight has {w.size} values for {x.size} scores; "
                                 "give one weight per score")
            self.calibrator_.fit(x[same], x[~same], w[same], w[~same])
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def _fitted(self):
        if not hasattr(self, "calibrator_"):
            raise InputError(f"this LRCalibrator({self.method!r}) is not fitted yet; "
                             "call fit(X, y) first")
        return self.calibrator_

    def predict_llr(self, X: Any) -> np.ndarray:
        """Natural-log LR of each score."""
        return np.asarray(self._fitted().llr(_scores(X)), dtype=float)

    def predict_log10_lr(self, X: Any) -> np.ndarray:
        """Base-10 log LR of each score: ``predict_llr(X) / ln 10``."""
        return self.predict_llr(X) / np.log(10.0)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Columns P(Hd | s), P(Hp | s) at prior ``prior``: sigmoid(LLR + logit(prior))."""
        if not 0.0 < float(self.prior) < 1.0:
            raise InputError(f"prior must lie strictly between 0 and 1, got {self.prior!r}")
        p = expit(self.predict_llr(X) + np.log(self.prior / (1.0 - self.prior)))
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """1 where the posterior of Hp at ``prior`` exceeds 1/2 (Bayes decision), else 0."""
        return (self.predict_proba(X)[:, 1] > 0.5).astype(int)

    def decision_function(self, X: Any) -> np.ndarray:
        """The posterior log odds at ``prior``: LLR + logit(prior) (the LLR at prior 0.5)."""
        return self.predict_llr(X) + np.log(self.prior / (1.0 - self.prior))
