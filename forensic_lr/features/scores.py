"""Score functions: one number per comparison of two measurement vectors.

A score function summarises how alike two units' feature vectors are; a calibrator then
turns the scores of known same-source and different-source pairs into LRs. Such a score
measures *similarity only*: two fragments with the same, very common composition score
as alike as two with the same rare one. The two-level model
(:mod:`forensic_lr.features.two_level`) accounts for how common the features are
(typicality); a score function does not.

Distances (``direction = "lower_is_similar"``):

* ``euclidean``: ``sqrt(sum_k (x_k - y_k)^2)``;
* ``manhattan``: ``sum_k |x_k - y_k|`` (city block);
* ``standardised``: the Mahalanobis distance ``sqrt((x - y)' W^-1 (x - y))`` with ``W``
  the pooled within-source covariance of the population (:func:`pooled_within_covariance`),
  so that each feature counts by its own measurement variation and correlated features
  are not counted twice [1]_;
* ``cosine``: ``1 - x'y / (|x| |y|)`` (the angle between profiles, not their size).

:class:`ClassifierScore` (``direction = "higher_is_similar"``) is any scikit-learn-style
classifier's probability that a pair is same-source, trained on the absolute differences
``|x - y|`` of the population's pairs (scikit-learn itself is not needed to run the rest).

References
----------
.. [1] P. C. Mahalanobis, "On the generalised distance in statistics", Proceedings of the
   National Institute of Sciences of India 2 (1936) 49-55.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.linalg import solve_triangular

from ..defaults import DEFAULT_SEED
from ..errors import InputError, NotFittedError
from .pairs import Pairs, Units, make_pairs

__all__ = ["SCORE_FUNCTIONS", "ClassifierScore", "DistanceScore", "SourceSums", "pair_scores",
           "pooled_within_covariance", "source_sums", "within_of"]

#: Score function name -> (title, how it is computed): the case file's ``score`` values.
SCORE_FUNCTIONS: dict[str, tuple[str, str]] = {
    "euclidean": ("Euclidean distance", "sqrt(sum_k (x_k - y_k)^2)"),
    "manhattan": ("Manhattan (city-block) distance", "sum_k |x_k - y_k|"),
    "standardised": ("standardised (Mahalanobis) distance with the pooled within-source "
                     "covariance W of the population", "sqrt((x - y)' W^-1 (x - y))"),
    "cosine": ("cosine distance", "1 - x'y / (|x| |y|)"),
}


@dataclass(frozen=True, eq=False)
class SourceSums:
    """Each source's statistics that the fitted models need, computed once from the rows.

    Attributes
    ----------
    ids : numpy.ndarray
        ``(k,)`` str: the sources, sorted.
    counts : numpy.ndarray
        ``(k,)``: measurements of each source, ``n_s``.
    means : numpy.ndarray
        ``(k, d)``: each source's mean, ``xbar_s``.
    scatter : numpy.ndarray
        ``(k, d, d)``: ``S_s = sum_j (x_sj - xbar_s)(x_sj - xbar_s)'``.

    A fit from these (:func:`within_of`,
    :meth:`~forensic_lr.features.two_level.TwoLevelModel.fit_sums`) with ``weights`` ``w_s``
    equals the fit on the rows of ``w_s`` copies of each source, each copy a source of
    its own: a bootstrap resample of sources, refitted without a pass over the rows.
    """

    ids: np.ndarray
    counts: np.ndarray
    means: np.ndarray
    scatter: np.ndarray


def source_sums(values, sources) -> SourceSums:
    """The :class:`SourceSums` of measurements ``values`` (``(N, d)``) and their sources."""
    x = np.asarray(values, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    ids, codes = np.unique(np.asarray(sources).astype(str), return_inverse=True)
    codes = codes.reshape(-1)
    counts = np.bincount(codes, minlength=ids.size)
    sums = np.zeros((ids.size, x.shape[1]))
    np.add.at(sums, codes, x)
    means = sums / counts[:, None]
    deviations = x - means[codes]
    scatter = np.zeros((ids.size, x.shape[1], x.shape[1]))
    np.add.at(scatter, codes, deviations[:, :, None] * deviations[:, None, :])
    return SourceSums(ids, counts, means, scatter)


def within_of(sums: SourceSums, weights=None) -> np.ndarray:
    """The pooled within-source covariance ``W = sum_s w_s S_s / (sum_s w_s n_s - sum_s w_s)``
    of sources counted ``w_s`` times each (default once).

    Raises
    ------
    InputError
        When no source has two measurements (``N = S``).
    """
    w = np.ones(sums.ids.size) if weights is None else np.asarray(weights, dtype=np.float64)
    dof = float(w @ sums.counts - w.sum())
    if dof < 1:
        raise InputError("the within-source covariance needs a source measured at least twice")
    return np.tensordot(w, sums.scatter, axes=1) / dof


def pooled_within_covariance(values, sources) -> np.ndarray:
    """The pooled within-source covariance matrix of measurements.

    ``W = sum_s sum_i (x_si - mean_s)(x_si - mean_s)' / (N - S)``: the deviations of each
    measurement from its source's mean, over ``N`` measurements of ``S`` sources (the
    unbiased estimate when every source has the same covariance).

    Raises
    ------
    InputError
        When no source has two measurements (``N = S``).
    """
    return within_of(source_sums(values, sources))


def _rows(x) -> np.ndarray:
    array = np.asarray(x, dtype=np.float64)
    return array[None, :] if array.ndim == 1 else array


class DistanceScore:
    """A distance between two feature vectors (``SCORE_FUNCTIONS``): lower is more alike.

    Parameters
    ----------
    name : {"euclidean", "manhattan", "standardised", "cosine"}

    Attributes
    ----------
    covariance_ : numpy.ndarray
        The pooled within-source covariance (``standardised``, after :meth:`fit`).
    """

    direction: Literal["lower_is_similar"] = "lower_is_similar"

    def __init__(self, name: str = "standardised") -> None:
        if name not in SCORE_FUNCTIONS:
            raise InputError(f"unknown score function {name!r}; choose one of "
                             f"{sorted(SCORE_FUNCTIONS)}")
        self.name = name
        self.title, self.formula = SCORE_FUNCTIONS[name]

    def fit(self, values, sources) -> DistanceScore:
        """Estimate what the distance needs from a population (only ``standardised``
        needs anything: the within-source covariance and its Cholesky factor)."""
        if self.name == "standardised":
            return self.fit_sums(source_sums(values, sources))
        self.fitted_ = True
        return self

    def fit_sums(self, sums: SourceSums, weights=None) -> DistanceScore:
        """:meth:`fit` from each source's :class:`SourceSums`, source ``s`` counted
        ``weights[s]`` times (a bootstrap resample of sources; default once each)."""
        if self.name == "standardised":
            self.covariance_ = within_of(sums, weights)
            try:
                self._cholesky = np.linalg.cholesky(self.covariance_)
            except np.linalg.LinAlgError:
                raise InputError(
                    "the pooled within-source covariance of the features is singular (a "
                    "feature is constant within every source, or a linear combination of "
                    "others); remove that feature or use another score function"
                ) from None
        self.fitted_ = True
        return self

    def score(self, x, y) -> np.ndarray:
        """The distance of each row of ``x`` to the same row of ``y`` (``(p, d)`` each)."""
        if not getattr(self, "fitted_", False):
            raise NotFittedError(f"call fit() before score() ({self.name})")
        x, y = _rows(x), _rows(y)
        diff = x - y
        if self.name == "euclidean":
            return np.sqrt(np.einsum("ij,ij->i", diff, diff))
        if self.name == "manhattan":
            return np.abs(diff).sum(axis=1)
        if self.name == "standardised":
            z = solve_triangular(self._cholesky, diff.T, lower=True)
            return np.sqrt(np.einsum("ij,ij->j", z, z))
        norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
        if (norms == 0).any():
            raise InputError("the cosine distance is undefined for a vector of zeros; use "
                             "another score function")
        return 1.0 - np.einsum("ij,ij->i", x, y) / norms

    def params(self) -> dict[str, Any]:
        """The fitted parameters, JSON-able."""
        out: dict[str, Any] = {"score": self.name}
        if self.name == "standardised" and hasattr(self, "covariance_"):
            out["within_covariance"] = self.covariance_.tolist()
        return out


class ClassifierScore:
    """A classifier's probability that a pair is same-source, from its absolute differences.

    Parameters
    ----------
    estimator : object
        Anything with scikit-learn's ``fit(X, y)``, ``predict_proba(X)`` and ``classes_``
        (e.g. ``sklearn.linear_model.LogisticRegression()``); it is fitted on the
        features ``|x - y|`` of the population's pairs with label 1 for same-source.
    max_different : int, optional
        Different-source pairs drawn (seeded) to train on; default all.
    seed : int
        Seed of that draw.
    """

    direction: Literal["higher_is_similar"] = "higher_is_similar"
    name = "classifier"
    title = "a classifier's same-source probability on the absolute feature differences"

    def __init__(self, estimator, *, max_different: int | None = None,
                 seed: int = DEFAULT_SEED) -> None:
        for method in ("fit", "predict_proba"):
            if not callable(getattr(estimator, method, None)):
                raise InputError(f"the estimator has no {method}() method; give a "
                                 "scikit-learn-style classifier")
        self.estimator = estimator
        self.max_different = max_different
        self.seed = seed

    def fit(self, values, sources) -> ClassifierScore:
        """Train on every same-source pair and the (sampled) different-source pairs of the
        rows of ``values``."""
        x = _rows(values)
        pairs = make_pairs(sources, max_different=self.max_different, seed=self.seed)
        self.estimator.fit(np.abs(x[pairs.first] - x[pairs.second]), pairs.same.astype(int))
        classes = list(np.asarray(self.estimator.classes_).tolist())
        if 1 not in classes:
            raise InputError("the classifier was trained without same-source pairs")
        self._column = classes.index(1)
        return self

    def score(self, x, y) -> np.ndarray:
        """The same-source probability of each pair of rows."""
        if not hasattr(self, "_column"):
            raise NotFittedError("call fit() before score() (classifier)")
        diff = np.abs(_rows(x) - _rows(y))
        return np.asarray(self.estimator.predict_proba(diff))[:, self._column]

    def params(self) -> dict[str, Any]:
        return {"score": self.name, "estimator": type(self.estimator).__name__}


def pair_scores(score, units: Units, pairs: Pairs) -> np.ndarray:
    """The fitted score function ``score`` on each pair of unit means."""
    return score.score(units.means[pairs.first], units.means[pairs.second])
