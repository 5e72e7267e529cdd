"""The two-level random-effects model of Aitken and Lucy (2004): an LR from feature values.

Model
-----
A measurement ``x_ij`` (``d`` features) of source ``i`` is ``x_ij = theta_i + e_ij``: the
source's true value plus measurement and within-source variation
``e_ij ~ N(0, U)`` (level 1). Sources' true values vary across the relevant population
(level 2) as ``theta ~ N(mu, C)`` (``between = "normal"``), or as a Gaussian kernel
density estimate over the population's source means,
``f(theta) = (1/m) sum_k N(theta; xbar_k, h^2 C)`` (``between = "kde"``) [1]_.

Given the means ``yc`` of ``nc`` control and ``yr`` of ``nr`` recovered measurements,

    LR = N(yc - yr; 0, U/nc + U/nr) g(y*; U/(nc + nr)) / (g(yc; U/nc) g(yr; U/nr)),

with ``y* = (nc yc + nr yr) / (nc + nr)`` and ``g(y; D) = integral N(y; theta, D) f(theta)
dtheta``, which is ``N(y; mu, D + C)`` for the normal model and
``(1/m) sum_k N(y; xbar_k, D + h^2 C)`` for the kernel model [1]_ (section 3): the numerator
integrates both items' likelihoods over one common source, the denominator over two
independent sources. The LR therefore depends on how close the items are (the first
factor) *and* on how common their values are in the population (the ``g`` terms): it
accounts for typicality, which a similarity score does not. The natural-log LR is computed
from log densities with ``logsumexp`` over the kernel centres, never as a ratio of
densities, so it stays finite far in the tails.

Estimates from a population of ``m`` sources with ``n_i`` measurements each
(``N = sum n_i``): ``mu`` the mean of all measurements; ``U`` the pooled within-source
covariance ``S_w / (N - m)`` (:func:`~forensic_lr.features.scores.pooled_within_covariance`);
``C = (S* / (m - 1) - U) / n0`` with ``S* = sum_i n_i (xbar_i - mu)(xbar_i - mu)'`` and
``n0 = (N - sum n_i^2 / N) / (m - 1)``, the one-way analysis-of-variance estimator [2]_,
which for ``n`` measurements per source is Aitken and Lucy's ``S_b / (m - 1) - U / n``.
The kernel bandwidth is Aitken and Lucy's ``h = (4 / (2d + 1))^(1/(d+4)) m^(-1/(d+4))``
unless given.

References
----------
.. [1] C. G. G. Aitken, D. Lucy, "Evaluation of trace evidence in the form of multivariate
   data", Applied Statistics (JRSS C) 53 (2004) 109-122.
.. [2] S. R. Searle, G. Casella, C. E. McCulloch, *Variance Components*, Wiley, 1992,
   section 3.6 (unbalanced one-way classification, ANOVA estimators).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy.linalg import solve_triangular

from ..defaults import DEFAULT_SEED
from ..errors import InputError, NotFittedError
from .measurements import Measurements
from .pairs import Pairs, Units, out_of_fold
from .scores import SourceSums, source_sums, within_of

__all__ = ["TwoLevelModel", "cross_validated_pair_llr", "default_bandwidth"]

#: Differences held in memory at once when evaluating many points against many centres.
_CHUNK_VALUES = 1 << 21


def default_bandwidth(n_sources: int, dimension: int) -> float:
    """Aitken and Lucy's (2004) kernel bandwidth ``(4 / (2d + 1))^(1/(d+4)) m^(-1/(d+4))``."""
    power = 1.0 / (dimension + 4)
    return (4.0 / (2 * dimension + 1)) ** power * n_sources ** -power


def _cholesky(matrix: np.ndarray, what: str) -> np.ndarray:
    try:
        return np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        raise InputError(
            f"the {what} covariance of the features is not positive definite; "
            + ("sources vary less between them than measurements within a source for some "
               "feature (or combination): remove that feature, or add sources"
               if what == "between-source" else
               "a feature is constant within every source or a combination of others: "
               "remove it")
        ) from None


def _log_mixture(points: np.ndarray, centres: np.ndarray, cov: np.ndarray,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """``log((1/k) sum_j N(points_i; centres_j, cov))`` for each point (``(p,)``), or with
    ``weights``, ``log(sum_j w_j N(points_i; centres_j, cov) / sum_j w_j)``.

    Points and centres are whitened by the Cholesky factor of ``cov`` and shifted by the
    centres' mean. One centre (the normal model): squared distances from the differences
    themselves. Many centres (the kernel model): ``|a|^2 + |b|^2 - 2 a.b`` by a matrix
    product, ``_CHUNK_VALUES`` at a time; after the shift the terms are of the size of the
    distances, so the cancellation costs about ``1e-16`` times the largest squared
    distance (far below the tests' ``1e-8``).
    """
    lower = _cholesky(cov, "combined")
    d = cov.shape[0]
    total = len(centres) if weights is None or len(centres) == 1 else weights.sum()
    log_norm = -0.5 * d * np.log(2 * np.pi) - np.log(np.diag(lower)).sum() - np.log(total)
    cw = solve_triangular(lower, centres.T, lower=True, check_finite=False).T
    shift = cw.mean(axis=0)
    cw = cw - shift
    pw = solve_triangular(lower, points.T, lower=True, check_finite=False).T - shift
    if len(centres) == 1:
        return -0.5 * np.einsum("pd,pd->p", pw - cw, pw - cw) + log_norm
    c2 = np.einsum("kd,kd->k", cw, cw)
    step = max(1, _CHUNK_VALUES // len(centres))
    out = np.empty(len(points))
    for start in range(0, len(points), step):
        part = pw[start:start + step]
        squared = np.einsum("pd,pd->p", part, part)[:, None] + c2[None, :] - 2.0 * part @ cw.T
        half = 0.5 * np.maximum(squared, 0.0)
        nearest = half.min(axis=1, keepdims=True)  # log-sum-exp about the largest term
        terms = np.exp(nearest - half)
        total = terms.sum(axis=1) if weights is None else terms @ weights
        out[start:start + step] = np.log(total) - nearest[:, 0]
    return out + log_norm


def _by_count(counts: np.ndarray, compute) -> np.ndarray:
    """``compute(n, index)`` for each distinct count ``n`` of ``counts``, scattered back."""
    if counts.size and counts.min() == counts.max():  # one count (e.g. halves of sources)
        return compute(counts[0], np.arange(counts.size))
    out = np.empty(counts.size)
    values, inverse = np.unique(counts, return_inverse=True)
    for k, n in enumerate(values):
        index = np.flatnonzero(inverse.reshape(-1) == k)
        out[index] = compute(n, index)
    return out


class TwoLevelModel:
    """Aitken and Lucy's (2004) two-level model: a natural-log LR from measurements.

    Parameters
    ----------
    between : {"normal", "kde"}
        The between-source distribution: one normal density, or a Gaussian kernel density
        estimate over the population's source means.
    bandwidth : float, optional
        The kernel's ``h`` (``between = "kde"``); default :func:`default_bandwidth`.

    Attributes
    ----------
    mean_, within_, between_ : numpy.ndarray
        ``mu``, ``U`` and ``C`` (after :meth:`fit`).
    centres_ : numpy.ndarray
        The kernel centres (source means), or ``mu`` alone for the normal model.
    bandwidth_ : float or None
    n_sources_, n_measurements_ : int
    """

    name = "two_level"
    title = "two-level random-effects model (Aitken and Lucy 2004)"

    def __init__(self, *, between: Literal["normal", "kde"] = "normal",
                 bandwidth: float | None = None) -> None:
        if between not in ("normal", "kde"):
            raise InputError(f"between must be 'normal' or 'kde'; got {between!r}")
        if bandwidth is not None and (isinstance(bandwidth, bool) or not bandwidth > 0):
            raise InputError(f"bandwidth must be a number > 0; got {bandwidth!r}")
        if bandwidth is not None and between != "kde":
            raise InputError("bandwidth applies to between = 'kde' only; remove it")
        self.between = between
        self.bandwidth = bandwidth

    # ------------------------------------------------------------------ fit
    def fit(self, values, sources=None) -> TwoLevelModel:
        """Estimate ``mu``, ``U`` and ``C`` (and the kernel centres) from a population.

        ``values``: ``(N, d)`` measurements (or a :class:`Measurements`, then no
        ``sources``); ``sources``: the source of each row.
        """
        if isinstance(values, Measurements):
            values, sources = values.values, values.sources
        return self.fit_sums(source_sums(values, sources))

    def fit_sums(self, sums: SourceSums, weights=None) -> TwoLevelModel:
        """:meth:`fit` from each source's :class:`~forensic_lr.features.scores.SourceSums`.

        ``weights[s]``: how many times source ``s`` counts (default once each), as if the
        population held that many copies of it, each a source of its own: a bootstrap
        resample of sources refitted without a pass over the rows. With ``w_s`` copies,
        ``m = sum w_s``, ``N = sum w_s n_s``, ``mu = sum w_s n_s xbar_s / N``, ``U`` by
        :func:`~forensic_lr.features.scores.within_of`, ``S*`` and ``n0`` with the same
        counts, and the kernel's centre ``xbar_s`` weighs ``w_s / m``; a source with
        weight 0 plays no part.
        """
        w = (np.ones(sums.ids.size) if weights is None
             else np.asarray(weights, dtype=np.float64))
        m = int(w.sum())
        if m < 3:
            raise InputError(f"the two-level model needs at least 3 sources; got {m}")
        rows = w * sums.counts
        n_total = rows.sum()
        mu = rows @ sums.means / n_total
        within = within_of(sums, w)
        spread = (sums.means - mu) * np.sqrt(rows)[:, None]
        n0 = (n_total - (rows * sums.counts).sum() / n_total) / (m - 1)
        between = (spread.T @ spread / (m - 1) - within) / n0
        _cholesky(within, "within-source")
        _cholesky(between, "between-source")
        self.mean_, self.within_, self.between_ = mu, within, between
        self.n_sources_, self.n_measurements_ = m, int(n_total)
        self.centre_weights_ = None
        if self.between == "kde":
            self.bandwidth_ = self.bandwidth or default_bandwidth(m, sums.means.shape[1])
            drawn = w > 0
            self.centres_ = sums.means[drawn]
            if weights is not None:
                self.centre_weights_ = w[drawn]
            self._spread = self.bandwidth_**2 * between
        else:
            self.bandwidth_ = None
            self.centres_ = mu[None, :]
            self._spread = between
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "within_"):
            raise NotFittedError("call fit() with the population's measurements first")

    # ------------------------------------------------------------------ LLRs
    def _log_g(self, points: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """``log g(y; U/n)`` of each point with its count ``n``."""
        return _by_count(counts, lambda n, i: _log_mixture(
            points[i], self.centres_, self.within_ / n + self._spread, self.centre_weights_))

    def llr_means(self, control_means, control_counts, recovered_means,
                  recovered_counts) -> np.ndarray:
        """Natural-log LRs of many comparisons given the items' means and replicate counts.

        Parameters
        ----------
        control_means, recovered_means : array_like
            ``(p, d)`` (or ``(d,)`` for one comparison).
        control_counts, recovered_counts : array_like of int
            ``(p,)`` (or scalars): measurements behind each mean.
        """
        self._check_fitted()
        d = self.within_.shape[0]
        yc = np.asarray(control_means, dtype=np.float64).reshape(-1, d)
        yr = np.asarray(recovered_means, dtype=np.float64).reshape(-1, d)
        nc = np.broadcast_to(np.asarray(control_counts), (yc.shape[0],)).astype(np.int64)
        nr = np.broadcast_to(np.asarray(recovered_counts), (yr.shape[0],)).astype(np.int64)
        if yc.shape != yr.shape or (nc < 1).any() or (nr < 1).any():
            raise InputError("control and recovered means must have the same shape and counts "
                             ">= 1")
        return self._log_numerator(yc, nc, yr, nr) - self._log_g(yc, nc) - self._log_g(yr, nr)

    def _log_numerator(self, yc: np.ndarray, nc: np.ndarray, yr: np.ndarray,
                       nr: np.ndarray) -> np.ndarray:
        """``log N(yc - yr; 0, U/nc + U/nr) + log g(y*; U/(nc + nr))`` of each comparison."""
        d = self.within_.shape[0]
        # the difference term depends on 1/nc + 1/nr: one covariance per distinct value
        key = nc * (nr.max() + 1) + nr
        difference = _by_count(key, lambda k, i: _log_mixture(
            yc[i] - yr[i], np.zeros((1, d)),
            self.within_ * (1.0 / nc[i[0]] + 1.0 / nr[i[0]])))
        total = nc + nr
        pooled = (nc[:, None] * yc + nr[:, None] * yr) / total[:, None]
        return difference + self._log_g(pooled, total)

    def llr(self, control, recovered) -> float:
        """The natural-log LR of one comparison from the two items' replicate measurements
        (``(nc, d)`` and ``(nr, d)`` arrays)."""
        self._check_fitted()
        d = self.within_.shape[0]
        c = np.asarray(control, dtype=np.float64).reshape(-1, d)
        r = np.asarray(recovered, dtype=np.float64).reshape(-1, d)
        return float(self.llr_means(c.mean(axis=0), len(c), r.mean(axis=0), len(r))[0])

    def llr_pairs(self, units: Units, pairs: Pairs) -> np.ndarray:
        """Natural-log LRs of pairs of units (:mod:`forensic_lr.features.pairs`); each
        unit's denominator term ``g(y; U/n)`` is computed once, however many pairs it is in."""
        self._check_fitted()
        used, index = np.unique(np.r_[pairs.first, pairs.second], return_inverse=True)
        a, b = np.split(index.reshape(-1), 2)
        means, counts = units.means[used], units.counts[used].astype(np.int64)
        log_g = self._log_g(means, counts)
        return (self._log_numerator(means[a], counts[a], means[b], counts[b])
                - log_g[a] - log_g[b])

    def params(self) -> dict[str, Any]:
        """The fitted parameters, JSON-able."""
        self._check_fitted()
        return {"model": self.name, "between": self.between, "mean": self.mean_.tolist(),
                "within_covariance": self.within_.tolist(),
                "between_covariance": self.between_.tolist(), "bandwidth": self.bandwidth_,
                "sources": self.n_sources_, "measurements": self.n_measurements_}


def cross_validated_pair_llr(model: TwoLevelModel, m: Measurements, units: Units,
                             pairs: Pairs, *, folds: int | None = 5,
                             seed: int = DEFAULT_SEED) -> np.ndarray:
    """Out-of-fold natural-log LRs of pairs: each pair scored by a model fitted without its
    sources.

    :func:`~forensic_lr.features.pairs.out_of_fold`: for each split of the pairs by source
    the model is refitted on the measurements of every source that no test pair involves,
    so no source is on both sides.
    """
    return out_of_fold(
        lambda train: TwoLevelModel(between=model.between, bandwidth=model.bandwidth).fit(train),
        lambda fitted, u, p: fitted.llr_pairs(u, p), m, units, pairs, folds=folds, seed=seed)
