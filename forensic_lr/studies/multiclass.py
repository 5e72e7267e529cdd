"""Calibration of multiclass classifier logits: temperature scaling and its evaluation.

A system that attributes a questioned item to one of K candidate sources outputs a
vector of logits ``z`` per item; ``softmax(z / T)`` turns them into posterior
probabilities. This module fits the temperature ``T`` on a labelled validation set
and measures calibration before and after.

* :class:`TemperatureScaling` -- ``T`` minimising the validation negative log-likelihood
  (Guo et al. 2017 [1]_).
* :class:`ExpectationConsistentTemperature` -- ``T`` for which the mean top-label
  confidence equals the validation accuracy (expectation-consistent calibration,
  [2]_; Clarté et al. 2023 [3]_).
* :func:`calibration_metrics` -- accuracy, NLL, binned ECE and MCE, the multiclass
  Brier score and its decomposition (:func:`brier_decomposition`).
* :func:`source_llr` -- the likelihood ratio of "source k" against "one of the other
  sources" from calibrated posteriors and stated priors.

Logits are an ``(n, K)`` float array, labels an ``(n,)`` integer array in ``0..K-1``.

References
----------
.. [1] C. Guo, G. Pleiss, Y. Sun, K. Q. Weinberger, "On calibration of modern neural
       networks", ICML 2017, pp. 1321-1330.
.. [2] T. Rivaldi, "Explication de l'algorithme pour la methode EC", note, 2024.
.. [3] L. Clarte, B. Loureiro, F. Krzakala, L. Zdeborova, "Expectation consistency for
       calibration of neural networks", UAI 2023.
.. [4] A. H. Murphy, "A new vector partition of the probability score", J. Appl.
       Meteorology 12 (1973) 595-600.
.. [5] D. B. Stephenson, C. A. S. Coelho, I. T. Jolliffe, "Two extra components in the
       Brier score decomposition", Weather and Forecasting 23 (2008) 752-757.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.special import logsumexp

from ..errors import ConvergenceError, InputError, NotFittedError
from ..records import Serialisable

Binning = Literal["width", "mass"]


# --------------------------------------------------------------------------- input checks
def check_logits(logits, name: str = "logits") -> np.ndarray:
    """Return ``logits`` as a finite ``(n, K)`` float64 array with K >= 2, or raise."""
    try:
        z = np.asarray(logits, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be numeric ({exc})") from None
    if z.ndim != 2 or z.shape[1] < 2 or z.shape[0] < 1:
        raise InputError(
            f"{name} must be a 2-D array with one row per item and one column per class "
            f"(at least 2 classes); got shape {z.shape}"
        )
    bad = ~np.isfinite(z)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise InputError(
            f"{name}[{row}, {col}] = {float(z[row, col])} is not finite; "
            "every logit must be a number"
        )
    return z


def check_labels(labels, n: int, n_classes: int, name: str = "labels") -> np.ndarray:
    """Return ``labels`` as an int64 array of length ``n`` with values in ``0..n_classes-1``."""
    y = np.asarray(labels)
    if y.ndim != 1 or y.shape[0] != n:
        raise InputError(
            f"{name} must hold one class index per row of the logits ({n}); got shape {y.shape}"
        )
    if y.dtype.kind == "f":
        bad = ~np.isfinite(y) | (y != np.round(y))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{name}[{i}] = {float(y[i])} is not a class index (0..{n_classes - 1})"
            )
    elif y.dtype.kind not in "iub":
        raise InputError(f"{name} must be integer class indices 0..{n_classes - 1}")
    y = y.astype(np.int64)
    out = (y < 0) | (y >= n_classes)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise InputError(
            f"{name}[{i}] = {y[i]} is outside 0..{n_classes - 1} "
            f"(the logits have {n_classes} columns); labels are 0-based column indices"
        )
    return y


# --------------------------------------------------------------------------- softmax
def log_softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """Row-wise ``log softmax(z / T)``, stable for logits of any magnitude.

    Notes
    -----
    ``log p_k = z_k / T - logsumexp(z / T)``; the maximum is subtracted inside
    :func:`scipy.special.logsumexp`, so logits of 1e4 give exact results.
    """
    z = check_logits(logits) / _check_temperature(temperature)
    return z - logsumexp(z, axis=1, keepdims=True)


def softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """Row-wise ``softmax(z / T)`` (probabilities summing to one per row)."""
    return np.exp(log_softmax(logits, temperature))


def _check_temperature(temperature: float) -> float:
    t = float(temperature)
    if not np.isfinite(t) or t <= 0:
        raise InputError(f"temperature must be a positive number, got {temperature!r}")
    return t


# --------------------------------------------------------------------------- metrics
def negative_log_likelihood(logits, labels, temperature: float = 1.0) -> float:
    """Mean negative log-likelihood ``-mean(log softmax(z_i / T)[y_i])`` in nats."""
    logp = log_softmax(logits, temperature)
    y = check_labels(labels, logp.shape[0], logp.shape[1])
    return float(-np.mean(logp[np.arange(y.size), y]))


def _check_proba(proba, labels) -> tuple[np.ndarray, np.ndarray]:
    p = check_logits(proba, "proba")
    if (p < 0).any() or (p > 1).any() or not np.allclose(p.sum(axis=1), 1.0, atol=1e-6):
        raise InputError("proba must hold probabilities in [0, 1] that sum to 1 in every row")
    return p, check_labels(labels, p.shape[0], p.shape[1])


def _bin_index(values: np.ndarray, bins: int, binning: Binning) -> np.ndarray:
    """Bin of each value along axis 0: equal width ``((m-1)/M, m/M]`` or equal mass."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise InputError(f"bins must be a positive integer, got {bins!r}")
    if binning == "width":
        return np.clip(np.ceil(values * bins).astype(np.int64) - 1, 0, bins - 1)
    if binning == "mass":
        # rank-based: the i-th smallest of n values (0-based) goes to bin floor(i * M / n)
        order = np.argsort(values, axis=0, kind="stable")
        ranks = np.argsort(order, axis=0, kind="stable")
        return ranks * bins // values.shape[0]
    raise InputError(f"binning must be 'width' or 'mass', got {binning!r}")


@dataclass(frozen=True)
class ReliabilityDiagram(Serialisable):
    """Top-label reliability data: per bin, items, mean confidence and accuracy.

    Empty bins have ``count == 0`` and NaN confidence and accuracy.
    """

    bin_edges: np.ndarray
    count: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    binning: str

    @property
    def ece(self) -> float:
        """``sum_m |B_m| / N * |acc(B_m) - conf(B_m)|`` over non-empty bins."""
        used = self.count > 0
        gap = np.abs(self.accuracy[used] - self.confidence[used])
        return float(np.sum(self.count[used] * gap) / np.sum(self.count))

    @property
    def mce(self) -> float:
        """Maximum calibration error: ``max_m |acc(B_m) - conf(B_m)|`` over non-empty bins."""
        used = self.count > 0
        return float(np.max(np.abs(self.accuracy[used] - self.confidence[used])))


def reliability_diagram(proba, labels, *, bins: int = 15, binning: Binning = "width"):
    """Top-label reliability diagram data (Rivaldi 2024; Guo et al. 2017, section 2).

    Parameters
    ----------
    proba : array_like, shape (n, K)
        Posterior probabilities.
    labels : array_like, shape (n,)
        True class indices.
    bins : int
        Number of bins M.
    binning : {"width", "mass"}
        ``"width"``: bins ``I_m = ((m-1)/M, m/M]`` (a confidence of exactly 0 goes to the
        first bin). ``"mass"``: the items sorted by confidence are cut into M groups of
        (almost) equal size; the reported edges are the lowest confidence in each group
        and the highest overall.

    Returns
    -------
    ReliabilityDiagram
        ``acc(B_m) = mean 1(y_i = yhat_i)`` and ``conf(B_m) = mean max_k p_ik`` for
        ``i in B_m``; its ``ece`` and ``mce`` properties give the binned errors.
    """
    p, y = _check_proba(proba, labels)
    conf = p.max(axis=1)
    correct = (p.argmax(axis=1) == y).astype(np.float64)
    b = _bin_index(conf, bins, binning)
    count = np.bincount(b, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.bincount(b, weights=conf, minlength=bins) / count
        mean_acc = np.bincount(b, weights=correct, minlength=bins) / count
    if binning == "width":
        edges = np.linspace(0.0, 1.0, bins + 1)
    else:  # bins hold consecutive runs of the sorted confidences
        ordered = np.sort(conf)
        starts = np.minimum(np.cumsum(count) - count, conf.size - 1)
        edges = np.append(ordered[starts], ordered[-1])
    return ReliabilityDiagram(edges, count, mean_conf, mean_acc, binning)


def brier_score(proba, labels) -> float:
    """Multiclass Brier score ``(1/n) sum_i sum_k (p_ik - o_ik)^2``, in [0, 2]."""
    p, y = _check_proba(proba, labels)
    o = np.zeros_like(p)
    o[np.arange(y.size), y] = 1.0
    return float(np.sum((p - o) ** 2) / y.size)


@dataclass(frozen=True)
class BrierDecomposition(Serialisable):
    """Murphy's partition of the Brier score, with the two within-bin terms that make it exact.

    ``brier = reliability - resolution + uncertainty + within_bin_variance
    - 2 * within_bin_covariance`` holds to rounding error for any binning.
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float
    bins: int
    binning: str


def brier_decomposition(proba, labels, *, bins: int = 15, binning: Binning = "width"):
    """Decompose the multiclass Brier score into reliability, resolution and uncertainty.

    Each class k is treated one-vs-rest: its forecasts ``p_ik`` are binned (same rule as
    :func:`reliability_diagram`, applied to column k) and the terms are summed over k.

    Notes
    -----
    With ``n_km`` items in bin m of class k, mean forecast ``f_km``, observed frequency
    ``o_km`` and base rate ``o_k``:

    * reliability ``REL = (1/N) sum_km n_km (f_km - o_km)^2`` (0 is perfect),
    * resolution ``RES = (1/N) sum_km n_km (o_km - o_k)^2`` (larger is better),
    * uncertainty ``UNC = sum_k o_k (1 - o_k)`` (a property of the data alone),
    * within-bin variance ``WBV = (1/N) sum_i sum_k (p_ik - f_k,b(i))^2`` and covariance
      ``WBC = (1/N) sum_i sum_k (p_ik - f_k,b(i)) (o_ik - o_k,b(i))``.

    ``BS = REL - RES + UNC + WBV - 2 WBC`` exactly [5]_; Murphy's three-term form [4]_ is
    exact when all forecasts in a bin are equal (then WBV = WBC = 0).
    """
    p, y = _check_proba(proba, labels)
    n, k = p.shape
    o = np.zeros_like(p)
    o[np.arange(n), y] = 1.0
    b = _bin_index(p, bins, binning)
    key = (b + bins * np.arange(k)[None, :]).ravel()
    count = np.bincount(key, minlength=bins * k)
    used = count > 0
    f_bar = np.zeros(bins * k)
    o_bar = np.zeros(bins * k)
    f_bar[used] = np.bincount(key, weights=p.ravel(), minlength=bins * k)[used] / count[used]
    o_bar[used] = np.bincount(key, weights=o.ravel(), minlength=bins * k)[used] / count[used]
    base_rate = o.mean(axis=0)
    rel = np.sum(count * (f_bar - o_bar) ** 2) / n
    res = np.sum(count * (o_bar - np.repeat(base_rate, bins)) ** 2) / n
    unc = float(np.sum(base_rate * (1.0 - base_rate)))
    df = p.ravel() - f_bar[key]
    do = o.ravel() - o_bar[key]
    return BrierDecomposition(
        brier=float(np.sum((p - o) ** 2) / n),
        reliability=float(rel),
        resolution=float(res),
        uncertainty=unc,
        within_bin_variance=float(np.sum(df * df) / n),
        within_bin_covariance=float(np.sum(df * do) / n),
        bins=int(bins),
        binning=binning,
    )


@dataclass(frozen=True)
class CalibrationMetrics(Serialisable):
    """Calibration and accuracy of a set of posterior probabilities (see
    :func:`calibration_metrics`)."""

    n: int
    accuracy: float
    nll: float
    ece: float
    mce: float
    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    bins: int
    binning: str


def calibration_metrics(
    logits, labels, *, temperature: float = 1.0, bins: int = 15, binning: Binning = "width"
) -> CalibrationMetrics:
    """Accuracy, NLL (nats), ECE, MCE, Brier score and its decomposition of ``softmax(z/T)``.

    The accuracy counts ``argmax_k z_ik == y_i`` (first maximum on ties); it does not
    depend on ``T``. ECE and MCE are top-label and binned as in :func:`reliability_diagram`;
    the Brier terms are from :func:`brier_decomposition` with the same binning.
    """
    logp = log_softmax(logits, temperature)
    y = check_labels(labels, logp.shape[0], logp.shape[1])
    p = np.exp(logp)
    diagram = reliability_diagram(p, y, bins=bins, binning=binning)
    parts = brier_decomposition(p, y, bins=bins, binning=binning)
    return CalibrationMetrics(
        n=int(y.size),
        accuracy=float(np.mean(p.argmax(axis=1) == y)),
        nll=float(-np.mean(logp[np.arange(y.size), y])),
        ece=diagram.ece,
        mce=diagram.mce,
        brier=parts.brier,
        reliability=parts.reliability,
        resolution=parts.resolution,
        uncertainty=parts.uncertainty,
        bins=int(bins),
        binning=binning,
    )


# --------------------------------------------------------------------------- calibrators
class _TemperatureCalibrator:
    """Shared parts: temperature bounds, ``predict_proba`` and the fitted check."""

    def __init__(self, *, t_min: float, t_max: float) -> None:
        self.t_min = t_min
        self.t_max = t_max

    def _bounds(self) -> tuple[float, float]:
        for name, value in (("t_min", self.t_min), ("t_max", self.t_max)):
            if isinstance(value, bool) or not (isinstance(value, (int, float, np.number))
                                               and np.isfinite(value) and value > 0):
                raise InputError(f"{name} (--{name.replace('_', '-')} on the command line) "
                                 f"must be a positive number, got {value!r}")
        lo, hi = float(self.t_min), float(self.t_max)
        if lo >= hi:
            raise InputError(f"t_min ({lo}) must be smaller than t_max ({hi}) (--t-min, "
                             "--t-max on the command line)")
        return lo, hi

    @staticmethod
    def _informative(z: np.ndarray) -> None:
        """Refuse logits whose every row is constant: ``softmax(z / T)`` is then uniform
        for every ``T``, so no temperature is identifiable (a fit would stop at a bound)."""
        if np.all(z.max(axis=1) == z.min(axis=1)):
            raise InputError(
                f"every row of the validation logits holds {z.shape[1]} equal values (e.g. "
                "all zero): the softmax is uniform whatever the temperature, so no "
                "temperature can be fitted; check that the file holds the classifier's logits"
            )

    def _fitted_temperature(self) -> float:
        if not hasattr(self, "temperature_"):
            raise NotFittedError(f"{type(self).__name__} is not fitted; call fit(logits, labels)")
        return self.temperature_

    def predict_log_proba(self, logits) -> np.ndarray:
        """``log softmax(z / T)`` with the fitted temperature."""
        return log_softmax(logits, self._fitted_temperature())

    def predict_proba(self, logits) -> np.ndarray:
        """``softmax(z / T)`` with the fitted temperature."""
        return np.exp(self.predict_log_proba(logits))


class TemperatureScaling(_TemperatureCalibrator):
    """Temperature scaling: the ``T`` minimising the validation NLL (Guo et al. 2017).

    Parameters
    ----------
    t_min, t_max : float
        Search interval for ``T``.
    tol : float
        Convergence tolerance on the relative change of ``1/T``.

    Attributes
    ----------
    temperature_ : float
    n_iter_ : int
        Newton iterations used.

    Notes
    -----
    With ``beta = 1/T`` the mean NLL ``f(beta) = mean_i [logsumexp(beta z_i) - beta z_iy]``
    is convex: ``f'(beta) = mean_i (E_p[z_i] - z_iy)`` and ``f''(beta) = mean_i Var_p[z_i]``
    with ``p = softmax(beta z_i)``. The fit is Newton's method on ``f'(beta) = 0``,
    safeguarded by bisection (in ``log beta``) inside ``[1/t_max, 1/t_min]``; one pass over
    the logits per iteration gives both derivatives. If the optimum lies outside the
    interval (e.g. every validation item is classified correctly, so the NLL keeps
    falling as ``T -> 0``) a :class:`~forensic_lr.errors.ConvergenceError` explains it.
    """

    def __init__(self, *, t_min: float = 0.01, t_max: float = 100.0, tol: float = 1e-12):
        super().__init__(t_min=t_min, t_max=t_max)
        self.tol = tol

    def fit(self, logits, labels) -> TemperatureScaling:
        z = check_logits(logits)
        y = check_labels(labels, z.shape[0], z.shape[1])
        self._informative(z)
        t_lo, t_hi = self._bounds()
        zc = z - z.max(axis=1, keepdims=True)  # <= 0, so exp(beta * zc) never overflows
        zc_y = zc[np.arange(y.size), y]
        zc2 = zc * zc

        def derivatives(beta: float) -> tuple[float, float]:
            w = np.exp(beta * zc)
            s = w.sum(axis=1)
            ez = np.einsum("ij,ij->i", w, zc) / s
            ez2 = np.einsum("ij,ij->i", w, zc2) / s
            return float(np.mean(ez - zc_y)), float(np.mean(ez2 - ez * ez))

        lo, hi = np.log(1.0 / t_hi), np.log(1.0 / t_lo)  # bracket on u = log beta
        for bound, side in ((hi, "below t_min"), (lo, "above t_max")):
            grad_at_bound = derivatives(np.exp(bound))[0]
            if (grad_at_bound < 0) if side == "below t_min" else (grad_at_bound > 0):
                raise ConvergenceError(
                    f"the NLL-optimal temperature lies {side} (search interval "
                    f"[{t_lo}, {t_hi}]). This happens when the validation logits are (almost) "
                    "perfectly separable or carry no information; widen the search interval "
                    "(t_min, t_max; --t-min, --t-max on the command line) or use a larger "
                    "validation set"
                )
        u = min(max(0.0, lo), hi)
        n_iter = 0
        while True:
            n_iter += 1
            beta = np.exp(u)
            grad, curv = derivatives(beta)
            if grad > 0:
                hi = u
            else:
                lo = u
            step = beta - grad / curv if curv > 0 else -1.0
            u_new = np.log(step) if step > 0 and lo < np.log(step) < hi else 0.5 * (lo + hi)
            converged = abs(u_new - u) < self.tol or hi - lo < self.tol
            u = u_new
            if converged:
                break
            if n_iter == 200:  # pragma: no cover - bisection halves the bracket at worst
                raise ConvergenceError("temperature scaling did not converge in 200 iterations")
        t = float(np.exp(-u))
        self.temperature_ = t
        self.n_iter_ = n_iter
        return self


class ExpectationConsistentTemperature(_TemperatureCalibrator):
    """Expectation-consistent temperature: mean top-label confidence = validation accuracy.

    Parameters
    ----------
    t_min, t_max : float
        Search interval for ``T`` (Rivaldi 2024 uses [0.01, 10]).
    tol : float
        Absolute tolerance on the equation below.

    Attributes
    ----------
    temperature_ : float
    accuracy_ : float
        The validation accuracy ``A_val``.

    Notes
    -----
    Solves ``g(T) = (1/n) sum_i max_k softmax(z_i / T)_k - A_val = 0`` [2]_.
    With ``d_ik = z_ik - max_j z_ij <= 0`` the top confidence is ``1 / sum_k exp(d_ik / T)``,
    which falls monotonically from (nearly) 1 to 1/K as ``T`` grows, so the root is unique
    when it exists. Newton's method with the analytic derivative, safeguarded by bisection
    in the bracket ``[t_min, t_max]``. If ``A_val`` is outside the confidences reachable
    in the bracket (e.g. an accuracy below 1/K, or 100 % accuracy) the fit raises a
    :class:`~forensic_lr.errors.ConvergenceError` that says which end fails.
    """

    def __init__(self, *, t_min: float = 0.01, t_max: float = 10.0, tol: float = 1e-12):
        super().__init__(t_min=t_min, t_max=t_max)
        self.tol = tol

    def fit(self, logits, labels) -> ExpectationConsistentTemperature:
        z = check_logits(logits)
        y = check_labels(labels, z.shape[0], z.shape[1])
        self._informative(z)
        t_lo, t_hi = self._bounds()
        accuracy = float(np.mean(z.argmax(axis=1) == y))
        d = z - z.max(axis=1, keepdims=True)

        def gap(t: float) -> tuple[float, float]:
            w = np.exp(d / t)
            s = w.sum(axis=1)
            ds_dt = -np.einsum("ij,ij->i", w, d) / (t * t)  # d s / d T >= 0
            return float(np.mean(1.0 / s) - accuracy), float(np.mean(-ds_dt / (s * s)))

        g_lo, _ = gap(t_lo)
        g_hi, _ = gap(t_hi)
        if g_lo < 0:
            raise ConvergenceError(
                f"validation accuracy {accuracy:.4f} exceeds the mean confidence reachable "
                f"at T = t_min = {t_lo} ({g_lo + accuracy:.4f}); no temperature in "
                f"[{t_lo}, {t_hi}] makes them equal (lower t_min, --t-min on the command "
                f"line, or check the labels)"
            )
        if g_hi > 0:
            raise ConvergenceError(
                f"validation accuracy {accuracy:.4f} is below the mean confidence at "
                f"T = t_max = {t_hi} ({g_hi + accuracy:.4f}); the classifier is close to "
                f"chance level (1/K = {1 / z.shape[1]:.4f}) or t_max (--t-max on the command "
                "line) is too small"
            )
        lo, hi = t_lo, t_hi
        t = min(max(1.0, lo), hi)
        for _ in range(200):
            g, dg = gap(t)
            if abs(g) <= self.tol:
                break
            if g > 0:
                lo = t
            else:
                hi = t
            step = t - g / dg if dg < 0 else np.nan
            t = step if lo < step < hi else 0.5 * (lo + hi)
        else:  # pragma: no cover - bisection alone reaches the tolerance well within 200 steps
            raise ConvergenceError("expectation-consistent temperature did not converge")
        self.temperature_ = float(t)
        self.accuracy_ = accuracy
        return self


METHODS = {"ts": TemperatureScaling, "ec": ExpectationConsistentTemperature}


# --------------------------------------------------------------------------- multiclass LR
def source_llr(logits, source: int, *, temperature: float = 1.0, priors=None) -> np.ndarray:
    """Natural-log LR of "the item comes from source k" against "from one of the others".

    Parameters
    ----------
    logits : array_like, shape (n, K)
    source : int
        The candidate source k (0-based column).
    temperature : float
        The fitted temperature; ``softmax(z / T)`` must be the calibrated posterior.
    priors : array_like, shape (K,), optional
        The prior probabilities of the K sources *under which the posteriors are
        calibrated* (the class proportions of the data the calibration was fitted on);
        default uniform.

    Notes
    -----
    With posterior ``P_k`` and prior ``pi_k``, ``p(x | k) ∝ P_k / pi_k`` and the
    alternative "one of the others" is the prior-weighted mixture of the other sources,
    so ``LR_k = [P_k / (1 - P_k)] / [pi_k / (1 - pi_k)]``: posterior odds over prior odds.
    The alternative depends on the relative priors of the other sources; a report must
    state them. Computed in the log domain:
    ``llr = log P_k - log(1 - P_k) - log pi_k + log(1 - pi_k)``, with
    ``log(1 - P_k) = logsumexp_{j != k}(z_j / T) - logsumexp_j(z_j / T)``.
    """
    logp = log_softmax(logits, temperature)
    n_classes = logp.shape[1]
    if isinstance(source, bool) or not isinstance(source, (int, np.integer)) or not (
        0 <= source < n_classes
    ):
        raise InputError(f"source must be a class index in 0..{n_classes - 1}, got {source!r}")
    if priors is None:
        pi = np.full(n_classes, 1.0 / n_classes)
    else:
        pi = np.asarray(priors, dtype=np.float64)
        if pi.shape != (n_classes,) or (pi <= 0).any() or not np.isclose(pi.sum(), 1.0):
            raise InputError(f"priors must be {n_classes} positive numbers summing to 1")
    others = np.delete(logp, source, axis=1)
    log_not_k = logsumexp(others, axis=1)
    return logp[:, source] - log_not_k - np.log(pi[source]) + np.log1p(-pi[source])
