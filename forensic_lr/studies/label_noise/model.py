"""Assessor (ground-truth label) errors: corrected precision and recall, and EM error rates.

A validation study measures a binary system against reference labels given by human
assessors (experts). When those labels are themselves wrong now and then, the observed
precision and recall are biased. This module implements the error models of Vasil'ev's paper
(Vasil'ev [1]_) and their inversion:

* :func:`correct_metrics` -- true precision ``P0`` and recall ``R0`` from the observed
  ``P1``, ``R1`` and the expert-labelled prevalence ``pi_hat``, under the independent error
  model (rate ``eps``) or the conditional model (rates ``alpha``, ``beta``), with the
  reachable intervals of the observed values, the paper's sample-size inflation factors
  ``l_P``, ``l_R`` and delta-method confidence intervals.
* :func:`corrected_precision`, :func:`corrected_recall`, :func:`reachable_precision`,
  :func:`reachable_recall`, :func:`inflation_factors` -- the paper's formulas one by one.
* :func:`estimate_error_rates` -- EM estimates of ``alpha``, ``beta`` and the prevalence
  ``pi`` from duplicate judgements of the same items ("EM-алгоритм").
* :func:`read_judgements` -- the items x assessors 0/1 table from a CSV file.

Symbols ("Основные элементы моделей"):

============  =========================================================================
``c0``        true reference label of an item (unobserved), 1 = positive
``c0_hat``    label given by the expert (observed)
``c1``        label given by the system under evaluation (observed)
``pi``        true prevalence P(c0 = 1)
``pi_hat``    expert-labelled prevalence P(c0_hat = 1) (observed)
``pi1``       system positive rate P(c1 = 1) (observed)
``P1, R1``    precision and recall of c1 measured against c0_hat (observed)
``P0, R0``    precision and recall of c1 against the true c0 (what we want)
``eps``       independent model: P(c0_hat != c0) whatever c0
``alpha``     conditional model: P(c0_hat = 0 | c0 = 1), the expert's miss rate
``beta``      conditional model: P(c0_hat = 1 | c0 = 0), the expert's false-positive rate
============  =========================================================================

Both models assume that the expert's errors are independent of the system's output given
the true label. The independent model is the conditional model with ``alpha = beta = eps``.

References
----------
.. [1] V. G. Vasil'ev, "Вероятностные модели и методы оценки качества эталонных массивов
       текстов при классификации" (probabilistic models and methods for assessing the
       quality of reference text collections in classification), IPIB MSU.
.. [2] C. P. Lam, D. G. Stork, "Evaluating classifiers by means of test data with noisy
       labels", IJCAI 2003, pp. 513-518.
.. [3] A. P. Dawid, A. M. Skene, "Maximum likelihood estimation of observer error-rates
       using the EM algorithm", J. R. Stat. Soc. C 28 (1979) 20-28.
.. [4] H. Teicher, "Identifiability of finite mixtures", Ann. Math. Statist. 34 (1963)
       1265-1269.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, xlog1py, xlogy
from scipy.stats import norm

from ...errors import ForensicLRWarning, InputError, excerpt
from ...records import jsonable

__all__ = [
    "CorrectedMetrics",
    "ErrorRateEstimate",
    "InflationFactors",
    "Judgements",
    "correct_metrics",
    "corrected_precision",
    "corrected_recall",
    "estimate_error_rates",
    "inflation_factors",
    "reachable_precision",
    "reachable_recall",
]


def _warn(texts: list[str]) -> tuple[str, ...]:
    for text in texts:
        warnings.warn(text, ForensicLRWarning, stacklevel=3)
    return tuple(texts)


# --------------------------------------------------------------------------- input checks
def _check_prob(value, name: str) -> float:
    """Return ``value`` as a float in [0, 1] or raise :class:`InputError`."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} = {excerpt(value)} is not a number; give a value in "
                         "[0, 1]") from None
    if not (0.0 <= x <= 1.0):
        raise InputError(f"{name} = {x!r} is not a proportion; give a value in [0, 1]")
    return x


def _check_rates(
    eps: float | None, alpha: float | None, beta: float | None
) -> tuple[str, float | None, float, float]:
    """Validate the error rates of one model; return (model, eps, alpha, beta)."""
    if eps is not None:
        if alpha is not None or beta is not None:
            raise InputError(
                "give either eps (independent error model) or alpha and beta (conditional "
                "error model), not both"
            )
        e = _check_prob(eps, "eps")
        if e >= 0.5:
            raise InputError(
                f"eps = {e!r} must be below 0.5: with eps >= 0.5 the expert is wrong at least "
                "as often as right, 1 - 2 eps <= 0 and the labels carry no usable information "
                "(swap the expert's labels if they are systematically inverted)"
            )
        return "independent", e, e, e
    if alpha is None or beta is None:
        raise InputError(
            "give the error rate eps (independent model) or both alpha (expert misses a true "
            "positive) and beta (expert marks a true negative positive)"
        )
    a = _check_prob(alpha, "alpha")
    b = _check_prob(beta, "beta")
    if a + b >= 1.0:
        raise InputError(
            f"alpha + beta = {a!r} + {b!r} = {a + b!r} must be below 1: at alpha + beta = 1 "
            "the expert's labels are independent of the truth, above 1 the two classes are "
            "swapped (use 1 - beta and 1 - alpha with the classes exchanged)"
        )
    return "conditional", None, a, b


# --------------------------------------------------------------------------- seed formulas
def corrected_precision(precision: float, *, alpha: float, beta: float) -> float:
    """True precision ``P0`` from the observed precision ``P1``.

    Parameters
    ----------
    precision : float
        Observed precision ``P1`` = P(c0_hat = 1 | c1 = 1).
    alpha, beta : float
        Expert error rates (``alpha = beta = eps`` for the independent model).

    Returns
    -------
    float
        ``P0`` = P(c0 = 1 | c1 = 1).

    Notes
    -----
    Vasil'ev's paper, "Модель условных ошибок", estimate of the true values [1]_:

    .. math:: P^0 = \\frac{P^1 - \\beta}{1 - \\alpha - \\beta},

    which is the independent-model formula ``P0 = (P1 - eps) / (1 - 2 eps)`` at
    ``alpha = beta = eps``. It inverts ``P1 = beta + P0 (1 - alpha - beta)``. ``P1`` must lie
    in the reachable interval ``[beta, 1 - alpha]`` (:func:`reachable_precision`).

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    """
    _, _, a, b = _check_rates(None, alpha, beta)
    p1 = _check_prob(precision, "precision P1")
    low, high = reachable_precision(alpha=a, beta=b)
    if not (low <= p1 <= high):
        raise InputError(
            f"observed precision P1 = {p1!r} is outside the reachable interval "
            f"[beta, 1 - alpha] = [{low!r}, {high!r}]: no true precision in [0, 1] produces it "
            "with these error rates; the rates are too large for this data, or the sample is "
            "too small (check alpha and beta)"
        )
    return (p1 - b) / (1.0 - a - b)


def corrected_recall(
    recall: float, *, expert_prevalence: float, system_positive_rate: float, beta: float
) -> float:
    """True recall ``R0`` from the observed recall ``R1``.

    Parameters
    ----------
    recall : float
        Observed recall ``R1`` = P(c1 = 1 | c0_hat = 1).
    expert_prevalence : float
        ``pi_hat`` = P(c0_hat = 1), share of items the expert labels positive.
    system_positive_rate : float
        ``pi1`` = P(c1 = 1), share of items the system labels positive.
    beta : float
        Expert false-positive rate (``eps`` for the independent model).

    Returns
    -------
    float
        ``R0`` = P(c1 = 1 | c0 = 1).

    Notes
    -----
    Vasil'ev's paper, both models [1]_:

    .. math:: R^0 = \\frac{R^1 \\hat\\pi - \\beta \\pi^1}{\\hat\\pi - \\beta}.

    Derivation: ``R1 pi_hat = P(c1 = 1, c0_hat = 1) = (1 - alpha - beta) P(c1=1, c0=1)
    + beta pi1`` and ``pi_hat = beta + pi (1 - alpha - beta)``. Requires ``pi_hat > beta``;
    the result is checked to lie in [0, 1].

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    """
    r1 = _check_prob(recall, "recall R1")
    pi_hat = _check_prob(expert_prevalence, "expert prevalence pi_hat")
    pi1 = _check_prob(system_positive_rate, "system positive rate pi1")
    b = _check_prob(beta, "beta")
    if pi_hat <= b:
        raise InputError(
            f"expert prevalence pi_hat = {pi_hat!r} must exceed beta = {b!r}: the expert "
            "labels at least a share beta of all items positive by mistake, so pi_hat <= beta "
            "means beta is overestimated"
        )
    r0 = (r1 * pi_hat - b * pi1) / (pi_hat - b)
    if not (0.0 <= r0 <= 1.0):
        raise InputError(
            f"observed recall R1 = {r1!r} gives a true recall R0 = {r0!r} outside [0, 1]: R1 "
            "is outside its reachable interval (see reachable_recall); the error rates are too "
            "large for this data or the sample is too small"
        )
    return r0


def reachable_precision(*, alpha: float, beta: float) -> tuple[float, float]:
    """Interval of observed precision reachable for true precision in [0, 1].

    Notes
    -----
    Vasil'ev's paper, "Оценка интервалов значений наблюдаемых показателей" [1]_:
    :math:`P^1 \\in (\\beta, 1 - \\alpha)`, the images of ``P0 = 0`` and ``P0 = 1``. The
    endpoints themselves are reached at ``P0 = 0`` and ``P0 = 1``; this function returns them.

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    """
    _, _, a, b = _check_rates(None, alpha, beta)
    return b, 1.0 - a


def reachable_recall(
    *, prevalence: float, system_positive_rate: float, alpha: float, beta: float
) -> tuple[float, float]:
    """Interval of observed recall reachable for true recall in [0, 1].

    Parameters
    ----------
    prevalence : float
        True prevalence ``pi`` = P(c0 = 1) (e.g. the EM estimate).
    system_positive_rate : float
        ``pi1`` = P(c1 = 1).
    alpha, beta : float
        Expert error rates.

    Notes
    -----
    Vasil'ev's paper, "Оценка интервалов значений наблюдаемых показателей" [1]_:

    .. math:: R^1 \\in \\left(\\frac{\\pi^1 \\beta}{\\pi(1-\\alpha-\\beta) + \\beta},\\;
              1 - \\frac{(1 - \\pi^1)\\beta}{\\pi(1-\\alpha-\\beta) + \\beta}\\right),

    the images of ``R0 = 0`` and ``R0 = 1``. The denominator is the expert prevalence
    ``pi_hat = beta + pi (1 - alpha - beta)``.

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    """
    _, _, a, b = _check_rates(None, alpha, beta)
    pi = _check_prob(prevalence, "prevalence pi")
    pi1 = _check_prob(system_positive_rate, "system positive rate pi1")
    pi_hat = pi * (1.0 - a - b) + b
    if pi_hat <= 0.0:
        raise InputError("prevalence pi = 0 with beta = 0: no item is labelled positive")
    return pi1 * b / pi_hat, 1.0 - (1.0 - pi1) * b / pi_hat


@dataclass(frozen=True)
class InflationFactors:
    """Sample-size inflation factors of the corrected precision and recall.

    Attributes
    ----------
    l_precision, l_recall : float
        The paper's ``l_P`` and ``l_R`` (see :func:`inflation_factors`).
    variance_ratio_precision, variance_ratio_recall : float
        Exact ratio of the per-item variances of the corrected and the error-free
        estimator; ``inf`` when the error-free variance is 0 (``P0`` or ``R0`` in {0, 1}).
    """

    l_precision: float
    l_recall: float
    variance_ratio_precision: float
    variance_ratio_recall: float

    def to_dict(self) -> dict:
        return jsonable({
            "l_precision": self.l_precision,
            "l_recall": self.l_recall,
            "variance_ratio_precision": self.variance_ratio_precision,
            "variance_ratio_recall": self.variance_ratio_recall,
        })


def inflation_factors(
    *,
    precision0: float,
    recall0: float,
    expert_prevalence: float,
    system_positive_rate: float,
    alpha: float,
    beta: float,
) -> InflationFactors:
    """Vasil'ev's sample-size inflation factors ``l_P`` and ``l_R``.

    Parameters
    ----------
    precision0, recall0 : float
        True (corrected) precision ``P0`` and recall ``R0``.
    expert_prevalence : float
        ``pi_hat`` = P(c0_hat = 1).
    system_positive_rate : float
        ``pi1`` = P(c1 = 1).
    alpha, beta : float
        Expert error rates (``alpha = beta = eps`` for the independent model).

    Returns
    -------
    InflationFactors

    Notes
    -----
    Vasil'ev's paper, "Оценка размеров обучающих выборок с учетом ошибок" [1]_, with
    ``d = 1 - alpha - beta``:

    .. math:: l_P = \\frac{\\beta(1-\\beta)}{d^2} + P^0\\frac{\\alpha-\\beta}{d} + 1,
    .. math:: l_R = \\frac{\\beta\\left(R^0(\\hat\\pi-\\beta)(1-2\\pi^1)
              + \\pi^1(\\hat\\pi-\\beta\\pi^1)\\right)}{(\\hat\\pi-\\beta)^2} + 1.

    The paper prints ``eps (1 - eps)`` in the first term of ``l_P`` under the conditional
    model; expanding the binomial variance gives ``beta (1 - beta)``, which equals the
    printed term in the independent model (``alpha = beta = eps``), so ``beta`` is used. Both
    factors are ``1 +`` the excess per-item variance of the corrected estimator over the
    error-free one, with the denominators of the observed metrics (system positives for
    precision, expert positives for recall) and ``pi_hat``, ``pi1`` treated as known:

    .. math:: l_P - 1 = \\frac{P^1(1-P^1)}{d^2} - P^0(1-P^0), \\quad
              l_R - 1 = \\frac{\\hat\\pi^2 R^1(1-R^1)}{(\\hat\\pi-\\beta)^2} - R^0(1-R^0).

    The exact variance ratios ``variance_ratio_* = 1 + (l - 1) / (V0)``, with ``V0`` the
    error-free variance ``P0 (1 - P0)`` or ``R0 (1 - R0)``, are also returned: they are the
    factor by which the number of judged items must grow to keep the same standard error.
    Vasil'ev's paper credits the analysis of the variance and the test-set size under label noise to
    Lam and Stork [2]_.

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    .. [2] Lam and Stork (2003), module docstring reference [2].
    """
    _, _, a, b = _check_rates(None, alpha, beta)
    p0 = _check_prob(precision0, "precision P0")
    r0 = _check_prob(recall0, "recall R0")
    pi_hat = _check_prob(expert_prevalence, "expert prevalence pi_hat")
    pi1 = _check_prob(system_positive_rate, "system positive rate pi1")
    if pi_hat <= b:
        raise InputError(f"expert prevalence pi_hat = {pi_hat!r} must exceed beta = {b!r}")
    d = 1.0 - a - b
    u = pi_hat - b
    excess_p = b * (1.0 - b) / d**2 + p0 * (a - b) / d
    excess_r = b * (r0 * u * (1.0 - 2.0 * pi1) + pi1 * (pi_hat - b * pi1)) / u**2
    v_p = p0 * (1.0 - p0)
    v_r = r0 * (1.0 - r0)
    ratio_p = 1.0 + excess_p / v_p if v_p > 0 else (1.0 if excess_p == 0 else math.inf)
    ratio_r = 1.0 + excess_r / v_r if v_r > 0 else (1.0 if excess_r == 0 else math.inf)
    return InflationFactors(1.0 + excess_p, 1.0 + excess_r, ratio_p, ratio_r)


# --------------------------------------------------------------------------- full correction
@dataclass(frozen=True)
class CorrectedMetrics:
    """Precision and recall corrected for expert label errors (see :func:`correct_metrics`).

    Attributes
    ----------
    model : str
        ``"independent"`` (one rate ``eps``) or ``"conditional"`` (``alpha``, ``beta``).
    eps, alpha, beta : float or None
        Error rates used (``alpha = beta = eps`` for the independent model).
    observed_precision, observed_recall : float
        ``P1`` and ``R1``.
    expert_prevalence : float
        ``pi_hat``.
    system_positive_rate : float
        ``pi1 = R1 pi_hat / P1``.
    prevalence : float
        True prevalence ``pi = (pi_hat - beta) / (1 - alpha - beta)``.
    precision, recall : float
        Corrected ``P0`` and ``R0``.
    precision_reachable, recall_reachable : tuple of float
        Reachable intervals of the observed ``P1`` and ``R1``.
    inflation : InflationFactors
        ``l_P``, ``l_R`` and the exact variance ratios.
    n_items : int or None
        Number of items judged by both the expert and the system (for the intervals).
    level : float
        Confidence level of the intervals.
    precision_se, recall_se : float or None
        Delta-method standard errors of ``P0`` and ``R0``.
    precision_ci, recall_ci : tuple of float or None
        Wald intervals ``estimate -+ z se`` clipped to [0, 1].
    warnings : tuple of str
    """

    model: str
    eps: float | None
    alpha: float
    beta: float
    observed_precision: float
    observed_recall: float
    expert_prevalence: float
    system_positive_rate: float
    prevalence: float
    precision: float
    recall: float
    precision_reachable: tuple[float, float]
    recall_reachable: tuple[float, float]
    inflation: InflationFactors
    n_items: int | None
    level: float
    precision_se: float | None
    recall_se: float | None
    precision_ci: tuple[float, float] | None
    recall_ci: tuple[float, float] | None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        def pair(p):
            return None if p is None else [float(p[0]), float(p[1])]

        return jsonable({
            "model": self.model,
            "eps": self.eps,
            "alpha": self.alpha,
            "beta": self.beta,
            "observed_precision": self.observed_precision,
            "observed_recall": self.observed_recall,
            "expert_prevalence": self.expert_prevalence,
            "system_positive_rate": self.system_positive_rate,
            "prevalence": self.prevalence,
            "precision": self.precision,
            "recall": self.recall,
            "precision_reachable": pair(self.precision_reachable),
            "recall_reachable": pair(self.recall_reachable),
            "inflation": self.inflation.to_dict(),
            "n_items": self.n_items,
            "level": self.level,
            "precision_se": self.precision_se,
            "recall_se": self.recall_se,
            "precision_ci": pair(self.precision_ci),
            "recall_ci": pair(self.recall_ci),
            "warnings": list(self.warnings),
        })


def _delta_se(
    table: np.ndarray, n_items: int, alpha: float, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """Delta-method standard errors of (P0, R0) from the observed 2x2 cell probabilities.

    ``table[..., :]`` = (a, b, c, d) = P(c1, c0_hat) for (1,1), (1,0), (0,1), (0,0).
    """
    a, b, c, _ = np.moveaxis(table, -1, 0)
    dd = 1.0 - alpha - beta
    # P0 = (a / (a + b) - beta) / dd
    zero = np.zeros_like(a)
    g_p = np.stack([b / (a + b) ** 2 / dd, -a / (a + b) ** 2 / dd, zero, zero], axis=-1)
    # R0 = (a (1 - beta) - beta b) / (a + c - beta)
    num = a * (1.0 - beta) - beta * b
    den = a + c - beta
    g_r = np.stack([((1.0 - beta) * den - num) / den**2, -beta / den, -num / den**2, zero], -1)

    def se(g):
        var = (np.sum(g * g * table, axis=-1) - np.sum(g * table, axis=-1) ** 2) / n_items
        return np.sqrt(np.maximum(var, 0.0))

    return se(g_p), se(g_r)


def correct_metrics(
    precision: float,
    recall: float,
    expert_prevalence: float,
    *,
    eps: float | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    n_items: int | None = None,
    level: float = 0.95,
) -> CorrectedMetrics:
    """Correct observed precision and recall for expert label errors.

    Parameters
    ----------
    precision : float
        Observed precision ``P1`` (against the expert's labels).
    recall : float
        Observed recall ``R1`` (against the expert's labels).
    expert_prevalence : float
        ``pi_hat``, share of all test items the expert labels positive.
    eps : float, optional
        Independent error model: the expert's error rate, in [0, 0.5).
    alpha, beta : float, optional
        Conditional error model: P(expert says 0 | true 1) and P(expert says 1 | true 0),
        with ``alpha + beta < 1``.
    n_items : int, optional
        Number of test items (judged by expert and system); gives delta-method intervals.
    level : float
        Confidence level of the intervals.

    Returns
    -------
    CorrectedMetrics

    Raises
    ------
    InputError
        Rates out of range (``eps >= 0.5``, ``alpha + beta >= 1``), observed values outside
        their reachable intervals (corrected values outside [0, 1]) or a 2x2 table that no
        true table produces.

    Notes
    -----
    ``pi1 = R1 pi_hat / P1`` because both products equal P(c1 = 1, c0_hat = 1). Then
    ([1]_) ``P0 = (P1 - beta) / (1 - alpha - beta)``,
    ``R0 = (R1 pi_hat - beta pi1) / (pi_hat - beta)`` and
    ``pi = (pi_hat - beta) / (1 - alpha - beta)``; the independent model is
    ``alpha = beta = eps``.

    Standard errors: the observed table (a, b, c, d) = N x P(c1, c0_hat) is multinomial
    with N = ``n_items``; ``P0`` and ``R0`` are smooth functions ``g`` of the cell
    probabilities ``p``, so ``Var g = (sum_i g_i^2 p_i - (sum_i g_i p_i)^2) / N`` with
    ``g_i = dg/dp_i`` (delta method, [2]_ ch. 14). For precision this is
    ``P1 (1 - P1) / (N pi1 (1 - alpha - beta)^2)``. The error rates are treated as known:
    their own uncertainty (e.g. from :func:`estimate_error_rates`) is not included.

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    .. [2] Y. M. M. Bishop, S. E. Fienberg, P. W. Holland, "Discrete Multivariate Analysis",
           MIT Press 1975, ch. 14.
    """
    model, e, a, b = _check_rates(eps, alpha, beta)
    p1 = _check_prob(precision, "precision P1")
    r1 = _check_prob(recall, "recall R1")
    pi_hat = _check_prob(expert_prevalence, "expert prevalence pi_hat")
    lvl = float(level)
    if not (0.0 < lvl < 1.0):
        raise InputError(f"level = {level!r} must be in (0, 1), e.g. 0.95")
    if n_items is not None and (int(n_items) != n_items or n_items < 1):
        raise InputError(f"n_items = {n_items!r} must be a positive whole number of items")
    if p1 == 0.0:
        raise InputError(
            "observed precision P1 = 0: no system positive agrees with the expert, so the "
            "system positive rate pi1 = R1 pi_hat / P1 is undetermined; check the input"
        )
    d = 1.0 - a - b
    low, high = b, 1.0 - a
    if not (low <= pi_hat <= high):
        raise InputError(
            f"expert prevalence pi_hat = {pi_hat!r} is outside [beta, 1 - alpha] = "
            f"[{low!r}, {high!r}], the values a true prevalence in [0, 1] can produce; the "
            "error rates are too large for this data"
        )
    if pi_hat == b:
        raise InputError(
            f"expert prevalence pi_hat = beta = {b!r}: the true prevalence would be 0 and "
            "recall is undefined"
        )
    p0 = corrected_precision(p1, alpha=a, beta=b)
    pi1 = r1 * pi_hat / p1
    tn_obs = 1.0 - pi_hat - pi1 + r1 * pi_hat
    if pi1 > 1.0 or tn_obs < -1e-12:
        raise InputError(
            f"precision P1 = {p1!r}, recall R1 = {r1!r} and expert prevalence pi_hat = "
            f"{pi_hat!r} are not one 2x2 table: they imply a system positive rate "
            f"pi1 = R1 pi_hat / P1 = {pi1!r} and a share {tn_obs!r} of items that both the "
            "expert and the system call negative; check the three values"
        )
    r_low, r_high = reachable_recall(
        prevalence=(pi_hat - b) / d, system_positive_rate=pi1, alpha=a, beta=b
    )
    if not (r_low - 1e-15 <= r1 <= r_high + 1e-15):
        raise InputError(
            f"observed recall R1 = {r1!r} is outside the reachable interval "
            f"[{r_low!r}, {r_high!r}]: no true recall in [0, 1] produces it with "
            "these error rates; the rates are too large for this data or the sample is too "
            "small"
        )
    r0 = min(max((r1 * pi_hat - b * pi1) / (pi_hat - b), 0.0), 1.0)
    pi = (pi_hat - b) / d
    true_tn = 1.0 - pi - pi1 + r0 * pi
    if true_tn < -1e-12:
        raise InputError(
            f"with these error rates the implied true share of items that are negative and "
            f"called negative by the system is {true_tn!r} < 0: the observed values are not "
            "reachable jointly; the error rates are too large for this data"
        )
    infl = inflation_factors(
        precision0=p0,
        recall0=r0,
        expert_prevalence=pi_hat,
        system_positive_rate=pi1,
        alpha=a,
        beta=b,
    )
    notes: list[str] = []
    se_p = se_r = None
    ci_p = ci_r = None
    if n_items is not None:
        n = int(n_items)
        tp = r1 * pi_hat
        table = np.array([tp, pi1 - tp, pi_hat - tp, 1.0 - pi_hat - pi1 + tp])
        sp, sr = _delta_se(np.clip(table, 0.0, 1.0), n, a, b)
        se_p, se_r = float(sp), float(sr)
        z = float(norm.ppf(0.5 + lvl / 2.0))
        ci_p = (max(p0 - z * se_p, 0.0), min(p0 + z * se_p, 1.0))
        ci_r = (max(r0 - z * se_r, 0.0), min(r0 + z * se_r, 1.0))
        if min(table * n) < 10:
            notes.append(
                "a cell of the observed 2x2 table holds fewer than 10 items: the delta-method "
                "interval may be inaccurate"
            )
    return CorrectedMetrics(
        model=model,
        eps=e,
        alpha=a,
        beta=b,
        observed_precision=p1,
        observed_recall=r1,
        expert_prevalence=pi_hat,
        system_positive_rate=pi1,
        prevalence=pi,
        precision=p0,
        recall=r0,
        precision_reachable=(low, high),
        recall_reachable=(r_low, r_high),
        inflation=infl,
        n_items=None if n_items is None else int(n_items),
        level=lvl,
        precision_se=se_p,
        recall_se=se_r,
        precision_ci=ci_p,
        recall_ci=ci_r,
        warnings=_warn(notes),
    )


# --------------------------------------------------------------------------- judgements
@dataclass(frozen=True)
class Judgements:
    """An items x assessors table of 0/1 judgements; ``NaN`` = item not judged by that assessor.

    Attributes
    ----------
    values : numpy.ndarray
        Float array of shape (n_items, n_assessors) with 0.0, 1.0 or NaN.
    assessors : tuple of str
        Column names.
    items : tuple of str
        Item identifiers (from an ``item`` column, else the 1-based line numbers).
    path : str or None
        The file read.
    """

    values: np.ndarray
    assessors: tuple[str, ...]
    items: tuple[str, ...]
    path: str | None = None

    def to_dict(self) -> dict:
        return jsonable({
            "path": self.path,
            "n_items": int(self.values.shape[0]),
            "assessors": list(self.assessors),
        })


# --------------------------------------------------------------------------- EM
@dataclass(frozen=True)
class ErrorRateEstimate:
    """EM estimates of the expert error rates and the true prevalence.

    Attributes
    ----------
    alpha : float
        P(judgement = 0 | true 1).
    beta : float
        P(judgement = 1 | true 0).
    prevalence : float
        True prevalence ``pi`` = P(c0 = 1).
    equal_rates : bool
        Whether ``alpha = beta = eps`` was imposed (independent error model).
    log_likelihood : float
        Maximised log-likelihood (natural log) of the observed judgements.
    n_iter : int
        EM iterations run.
    converged : bool
        Whether the convergence criterion was met within ``max_iter``.
    n_items, n_judgements : int
        Items and individual judgements used.
    patterns : tuple of tuple
        ``(m, k, count, posterior)``: items with ``m`` judgements of which ``k`` positive,
        how many, and their posterior P(c0 = 1 | pattern) at the estimate.
    alpha_se, beta_se, prevalence_se : float
        Asymptotic standard errors (outer product of the per-item scores); ``nan`` when an
        estimate is on the boundary of [0, 1] or the information matrix is singular. With
        ``equal_rates`` ``alpha_se = beta_se`` is the standard error of ``eps``.
    warnings : tuple of str
    """

    alpha: float
    beta: float
    prevalence: float
    equal_rates: bool
    log_likelihood: float
    n_iter: int
    converged: bool
    n_items: int
    n_judgements: int
    patterns: tuple[tuple[int, int, int, float], ...]
    alpha_se: float
    beta_se: float
    prevalence_se: float
    warnings: tuple[str, ...] = ()

    @property
    def eps(self) -> float | None:
        """The common error rate when ``equal_rates`` was imposed, else ``None``."""
        return self.alpha if self.equal_rates else None

    def to_dict(self) -> dict:
        return jsonable({
            "alpha": self.alpha,
            "beta": self.beta,
            "eps": self.eps,
            "prevalence": self.prevalence,
            "equal_rates": self.equal_rates,
            "log_likelihood": self.log_likelihood,
            "n_iter": self.n_iter,
            "converged": self.converged,
            "n_items": self.n_items,
            "n_judgements": self.n_judgements,
            "patterns": [
                {"m": m, "k": k, "count": c, "posterior": g} for m, k, c, g in self.patterns
            ],
            "alpha_se": self.alpha_se,
            "beta_se": self.beta_se,
            "prevalence_se": self.prevalence_se,
            "warnings": list(self.warnings),
        })


def _pattern_counts(judgements) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the table; return (m, k, count) of the observed judgement patterns."""
    if isinstance(judgements, Judgements):
        judgements = judgements.values
    try:
        x = np.asarray(judgements, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"judgements must be a numeric 0/1 table ({exc})") from None
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise InputError(
            f"judgements must be a non-empty 2-D table, one row per item and one column per "
            f"assessor; got shape {x.shape}"
        )
    missing = np.isnan(x)
    bad = ~missing & (x != 0.0) & (x != 1.0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InputError(
            f"judgements[{i}, {j}] = {float(x[i, j])!r} is not binary; use 1 (positive), "
            "0 (negative) or NaN (not judged)"
        )
    # code = width * m + k per item (m judgements, k positive) as one BLAS row sum
    width = x.shape[1] + 1
    cell = x + width  # width + 0 or width + 1 where judged, NaN where not
    np.fmax(cell, 0.0, out=cell)  # fmax turns NaN (not judged) into 0
    code = (cell @ np.ones(x.shape[1])).astype(np.int64)
    counts = np.bincount(code)  # length width * max(m) + max(k) + 1
    if counts[0]:
        i = int(np.flatnonzero(code == 0)[0])
        raise InputError(f"item (row) {i} has no judgement; remove it or add a judgement")
    keys = np.flatnonzero(counts)
    m, k = keys // width, keys % width
    if not k.any() or (k == m).all():
        raise InputError(
            f"every judgement is {int(k[0] > 0)}: with a single class in the table the error "
            "rates and the prevalence cannot be estimated; check that the file holds both "
            "positive (1) and negative (0) judgements"
        )
    return m, k, counts[keys]


def _log_joint(m, k, alpha, beta, pi):
    """log P(pattern, c0 = 1) and log P(pattern, c0 = 0) for each (m, k)."""
    lp1 = math.log(pi) if pi > 0 else -math.inf
    lp0 = math.log1p(-pi) if pi < 1 else -math.inf
    with np.errstate(invalid="ignore"):
        l1 = lp1 + xlog1py(k, -alpha) + xlogy(m - k, alpha)
        l0 = lp0 + xlogy(k, beta) + xlog1py(m - k, -beta)
    return l1, l0


def estimate_error_rates(
    judgements,
    *,
    equal_rates: bool = False,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> ErrorRateEstimate:
    """EM estimates of the expert error rates ``alpha``, ``beta`` and the prevalence ``pi``.

    Parameters
    ----------
    judgements : array_like or Judgements
        (n_items, n_assessors) table of 0/1 judgements of the same items by several
        assessors; NaN where an assessor did not judge an item.
    equal_rates : bool
        Impose ``alpha = beta = eps`` (Vasil'ev's independent error model). Needed when no
        item has more than two judgements.
    tol : float
        Stop when no parameter changes by more than ``tol`` in one iteration.
    max_iter : int
        Iteration limit; reaching it returns ``converged = False`` with a warning.

    Returns
    -------
    ErrorRateEstimate

    Raises
    ------
    InputError
        Empty or non-binary table, an item with no judgement, or a design in which the
        parameters are not identifiable (no item with 3+ judgements for the free model, or
        with 2+ for ``equal_rates``).

    Warns
    -----
    ForensicLRWarning
        No convergence; or ``alpha + beta`` at 1 (judgements independent of the truth).

    Notes
    -----
    Vasil'ev's paper, "Подход к оцениванию вероятностей ошибок" and "EM-алгоритм" [1]_: item ``l``
    has ``m_l`` judgements ``c_l`` of which ``k_l`` are positive and an unobserved true
    label ``c_l^0``; all assessors share ``alpha`` and ``beta`` and judge independently
    given ``c_l^0``. The complete-data likelihood is
    ``prod_l [pi (1-alpha)^k alpha^(m-k)]^(c0) [(1-pi) beta^k (1-beta)^(m-k)]^(1-c0)``.

    1. Start (as the paper): ``alpha = beta = 0.01``, ``pi = 1/2``.
    2. E-step: ``g_l = P(c_l^0 = 1 | c_l) = expit(log P(c_l, c0=1) - log P(c_l, c0=0))``,
       computed in the log domain.
    3. M-step: ``pi = sum g / s``, ``alpha = sum g (m - k) / sum g m``,
       ``beta = sum (1 - g) k / sum (1 - g) m`` (with ``equal_rates``:
       ``eps = sum [g (m - k) + (1 - g) k] / sum m``).
    4. Stop when ``max |theta^(t+1) - theta^(t)| <= tol``.

    Items enter only through the counts of their patterns ``(m, k)``, so each iteration
    costs O(number of distinct patterns) after one ``bincount`` pass over the data.

    Identifiability: the likelihood is unchanged by ``(pi, alpha, beta) -> (1 - pi,
    1 - beta, 1 - alpha)`` (label switching); the solution with ``alpha + beta < 1`` (an
    expert better than chance) is returned. The distribution of ``k`` given ``m`` is a
    two-component binomial mixture, identifiable only if ``m >= 3`` [3]_; with two
    judgements per item there are 2 free pattern frequencies for 3 parameters, so some items
    need 3+ judgements, or ``equal_rates`` must be imposed. Assessors are assumed to share
    the same error rates (per-assessor rates as in Dawid and Skene [2]_ are not modelled).

    References
    ----------
    .. [1] V. G. Vasil'ev, see the module references.
    .. [2] Dawid and Skene (1979), module docstring reference [3].
    .. [3] Teicher (1963), module docstring reference [4].
    """
    m, k, w = _pattern_counts(judgements)
    max_m = int(m.max())
    if not equal_rates and max_m < 3:
        raise InputError(
            f"every item has at most {max_m} judgement(s): alpha, beta and the prevalence are "
            "not identifiable (2 free pattern frequencies for 3 parameters); have some items "
            "judged by 3 or more assessors, or impose alpha = beta (equal_rates=True / --equal-"
            "rates, the independent error model)"
        )
    if equal_rates and max_m < 2:
        raise InputError(
            "every item has a single judgement: error rates cannot be estimated; have some "
            "items judged by 2 or more assessors"
        )
    mf, kf, wf = m.astype(float), k.astype(float), w.astype(float)
    alpha, beta, pi = 0.01, 0.01, 0.5
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        l1, l0 = _log_joint(mf, kf, alpha, beta, pi)
        g = expit(l1 - l0)
        wg, wh = wf * g, wf * (1.0 - g)
        new_pi = wg.sum() / wf.sum()
        if equal_rates:
            new_a = new_b = float((wg * (mf - kf) + wh * kf).sum() / (wf * mf).sum())
        else:
            sg, sh = (wg * mf).sum(), (wh * mf).sum()
            new_a = float((wg * (mf - kf)).sum() / sg) if sg > 0 else alpha
            new_b = float((wh * kf).sum() / sh) if sh > 0 else beta
        step = max(abs(new_a - alpha), abs(new_b - beta), abs(new_pi - pi))
        alpha, beta, pi = new_a, new_b, float(new_pi)
        if step <= tol:
            converged = True
            break
    notes: list[str] = []
    if not converged:
        notes.append(
            f"EM did not converge in {max_iter} iterations (tol = {tol}); the data may barely "
            "identify the rates: raise max_iter or add items with 3+ judgements"
        )
    if alpha + beta > 1.0:  # label switching: report the expert-better-than-chance solution
        alpha, beta, pi = 1.0 - beta, 1.0 - alpha, 1.0 - pi
    if abs(1.0 - alpha - beta) < 1e-6:
        notes.append(
            "alpha + beta is 1: the judgements are independent of the true label and the "
            "rates and prevalence are not identifiable"
        )
    l1, l0 = _log_joint(mf, kf, alpha, beta, pi)
    ll = np.logaddexp(l1, l0)
    with np.errstate(invalid="ignore"):
        post = np.exp(l1 - ll)
    patterns = tuple(
        (int(a), int(b), int(c), float(d)) for a, b, c, d in zip(m, k, w, post, strict=True)
    )
    se_pi, se_a, se_b = _standard_errors(mf, kf, wf, post, alpha, beta, pi, equal_rates)
    return ErrorRateEstimate(
        alpha=float(alpha),
        beta=float(beta),
        prevalence=float(pi),
        equal_rates=bool(equal_rates),
        log_likelihood=float((wf * ll).sum()),
        n_iter=n_iter,
        converged=converged,
        n_items=int(w.sum()),
        n_judgements=int((w * m).sum()),
        patterns=patterns,
        alpha_se=se_a,
        beta_se=se_b,
        prevalence_se=se_pi,
        warnings=_warn(notes),
    )


def _standard_errors(m, k, w, g, alpha, beta, pi, equal_rates):
    """Standard errors of (pi, alpha, beta) from the outer product of per-item scores.

    The score of one item is ``g d l1 + (1 - g) d l0`` (Louis 1982 [1]_: the observed-data
    score is the posterior mean of the complete-data score), with ``l1``, ``l0`` the
    complete-data log-likelihoods of the two true classes. The information is estimated by
    ``sum_items score score^T`` (outer product of gradients) and inverted.

    References
    ----------
    .. [1] T. A. Louis, "Finding the observed information matrix when using the EM
           algorithm", J. R. Stat. Soc. B 44 (1982) 226-233.
    """
    params = (pi, alpha) if equal_rates else (pi, alpha, beta)
    if any(not (0.0 < t < 1.0) for t in params):
        return math.nan, math.nan, math.nan
    s_pi = g / pi - (1.0 - g) / (1.0 - pi)
    d1 = (m - k) / alpha - k / (1.0 - alpha)  # d l1 / d alpha
    if equal_rates:  # d/d eps of l1 and of l0 = k log eps + (m - k) log(1 - eps)
        scores = np.stack([s_pi, g * d1 + (1.0 - g) * (k / alpha - (m - k) / (1.0 - alpha))])
    else:
        d0 = k / beta - (m - k) / (1.0 - beta)  # d l0 / d beta
        scores = np.stack([s_pi, g * d1, (1.0 - g) * d0])
    info = (scores * w) @ scores.T
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return math.nan, math.nan, math.nan
    se = np.sqrt(np.where(np.diag(cov) > 0, np.diag(cov), np.nan))
    if equal_rates:
        return float(se[0]), float(se[1]), float(se[1])
    return float(se[0]), float(se[1]), float(se[2])
