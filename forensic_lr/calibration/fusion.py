"""Logistic-regression fusion: several systems' scores per comparison into one LLR."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import logit

from ..errors import ConvergenceError, InputError, excerpt
from .base import BaseCalibrator, check_background, check_weight, number_option, param_row
from .base import weighted_moments as _moments
from .logistic import logistic_newton, standardisation

__all__ = ["LogisticFusion", "as_score_matrix"]


def as_score_matrix(values, name: str, columns: int | None = None) -> np.ndarray:
    """``values`` as an ``(n, k)`` float array of finite scores (one row per comparison).

    A 1-D array is one system's scores (``k = 1``) unless ``columns`` says more (then it
    is one comparison's row).

    Raises
    ------
    InputError
        Not numbers, not two-dimensional, the wrong number of columns, or a non-finite
        value (naming its row and column).
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers, one row per comparison and one column "
                         f"per system; got {excerpt(values)}") from None
    if arr.ndim == 1:
        arr = arr.reshape(1, -1) if columns not in (None, 1) else arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"{name} must have one row per comparison and one column per system; "
                         f"got shape {arr.shape}")
    if columns is not None and arr.shape[1] != columns:
        raise InputError(f"{name} has {arr.shape[1]} score(s) per comparison; the fusion was "
                         f"fitted on {columns} systems: give one score per system")
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise InputError(f"{name}[{i}, {j}] = {float(arr[i, j])!r} is non-finite; remove or "
                         "correct that comparison")
    return arr


class LogisticFusion(BaseCalibrator):
    """LLR = a + sum_i b_i s_i from ``k`` systems' scores, by prior-weighted logistic regression.

    The calibrator interface on score matrices: ``fit(ss, ds)`` takes the same-source and
    different-source comparisons as ``(n_ss, k)`` and ``(n_ds, k)`` arrays (one column per
    system), ``llr(scores)`` an ``(m, k)`` array. With one system it is the ``logistic``
    calibrator.

    Parameters
    ----------
    prior : float
        Prior probability of the same-source proposition at which the Cllr objective is
        minimised (FoCal's and BOSARIS's ``prior``; default 0.5, the Cllr itself).
    l2 : float
        Ridge penalty on the weights of the standardised scores (default 0), as the
        ``logistic`` calibrator's.
    systems : sequence of str, optional
        Names of the fused systems, in column order (for ``params`` and reports).

    Attributes
    ----------
    theta_ : ndarray
        Intercept and weights on the standardised scores ``u_i = (s_i - centre_i) / scale_i``.
    centre_, scale_ : ndarray
        Each column's mean and standard deviation with the two classes weighted equally.
    n_iter_ : int
        Newton iterations used.

    Notes
    -----
    With ``z = t0 + sum_i t_i u_i`` and ``pi`` the prior, the fit minimises

    ``J = pi/N_ss sum_ss log(1 + e^{-(z + logit pi)}) + (1 - pi)/N_ds sum_ds log(1 + e^{z +
    logit pi}) + (lambda / 2) sum_i t_i^2``

    so that ``z`` is a log likelihood ratio and, at ``pi = 0.5`` without penalty,
    ``J / ln 2`` is the Cllr of the training comparisons [1]_ (FoCal's linear fusion [2]_;
    logistic-regression fusion of verification experts goes back to [3]_). The weights
    reported in raw score units are ``b_i = t_i / scale_i`` and ``a = t0 - sum_i b_i
    centre_i``. A system whose scores are distances gets a negative weight. Columns that
    are linear functions of each other leave the weights undetermined and are refused.

    References
    ----------
    .. [1] N. Brummer, J. du Preez, "Application-independent evaluation of speaker
           detection", Computer Speech and Language 20 (2006) 230-275.
    .. [2] N. Brummer, FoCal: Tools for fusion and calibration of automatic speaker
           detection systems, 2005 (train_llr_fusion).
    .. [3] S. Pigeon, P. Druyts, P. Verlinde, "Applying logistic regression to the fusion
           of the NIST'99 1-speaker submissions", Digital Signal Processing 10 (2000)
           237-248.
    """

    name = "fusion"
    title = "Logistic-regression fusion"
    summary = (
        "The natural-log LR is a weighted sum of the systems' scores plus a constant, "
        "a + b1 s1 + b2 s2 + ..., with the constant and the weights chosen to minimise the "
        "log-likelihood-ratio cost (Cllr) of the background comparisons, the two classes "
        "weighted by the chosen prior (equally by default; logistic-regression fusion)."
    )
    equation = "ln LR(s) = a + b1 s1 + ... + bk sk"
    reference = (
        "N. Brummer, J. du Preez, Application-independent evaluation of speaker detection, "
        "Computer Speech and Language 20 (2006) 230-275; N. Brummer, FoCal toolkit (2005); "
        "S. Pigeon, P. Druyts, P. Verlinde, Applying logistic regression to the fusion of the "
        "NIST'99 1-speaker submissions, Digital Signal Processing 10 (2000) 237-248."
    )

    def __init__(self, *, prior: float = 0.5, l2: float = 0.0,
                 systems: Sequence[str] | None = None) -> None:
        self.prior = prior
        self.l2 = l2
        self.systems = systems

    def check_options(self) -> None:
        self._options()

    def _options(self) -> tuple[float, float]:
        prior = number_option(self.prior, "prior")
        if not prior < 1:
            raise InputError(f"option prior must lie strictly between 0 and 1, got {prior!r}; "
                             "e.g. prior = 0.5")
        return prior, number_option(self.l2, "l2", strict=False)

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> LogisticFusion:
        """Fit by Newton's method (:func:`~forensic_lr.calibration.logistic.logistic_newton`).

        Weights as in :class:`~forensic_lr.calibration.base.Calibrator` (frequency weights,
        each class weighing its prior share whatever its size).
        """
        prior, l2 = self._options()
        ss, ds = as_score_matrix(ss, "ss"), as_score_matrix(ds, "ds")
        if ss.shape[1] != ds.shape[1]:
            raise InputError(f"ss has {ss.shape[1]} and ds {ds.shape[1]} score columns; give "
                             "both classes one column per fused system")
        names = self._names(ss.shape[1])
        w_ss = check_weight(ss_weight, ss.shape[0], "ss_weight")
        w_ds = check_weight(ds_weight, ds.shape[0], "ds_weight")
        if w_ss is not None:
            ss, w_ss = ss[w_ss > 0], w_ss[w_ss > 0]
        if w_ds is not None:
            ds, w_ds = ds[w_ds > 0], w_ds[w_ds > 0]
        centre, scale = np.empty(ss.shape[1]), np.empty(ss.shape[1])
        for j, name in enumerate(names):
            try:
                check_background(ss[:, j], ds[:, j])
            except InputError as exc:
                raise InputError(f"system {name!r} (score column {j + 1}): {exc}") from None
            centre[j], scale[j] = standardisation(*_moments(ss[:, j], w_ss),
                                                  *_moments(ds[:, j], w_ds))
        self.centre_, self.scale_ = centre, scale
        x = self._design(np.concatenate([ss, ds]))
        _check_rank(x, names)
        y = np.concatenate([np.ones(ss.shape[0]), np.zeros(ds.shape[0])])
        w = np.concatenate([_shares(ss.shape[0], w_ss, prior),
                            _shares(ds.shape[0], w_ds, 1.0 - prior)])
        try:
            theta, self.n_iter_ = logistic_newton(x, y, w, l2, np.zeros(x.shape[1]))
        except ConvergenceError:
            raise ConvergenceError(
                "logistic-regression fusion has no finite solution: a weighted sum of the "
                "systems' scores separates the same-source from the different-source "
                "comparisons of the background, so the best weights are infinite; set a "
                "penalty, e.g. l2 = 0.01, or fuse on more background comparisons") from None
        theta[0] -= logit(prior)  # the fitted log odds at the prior, as a log LR
        self.theta_ = theta
        self.fitted_ = True
        return self

    def _names(self, k: int) -> tuple[str, ...]:
        if self.systems is None:
            return tuple(f"system {j + 1}" for j in range(k))
        names = tuple(str(s) for s in self.systems)
        if len(names) != k:
            raise InputError(f"systems names {len(names)} system(s) for {k} score columns; "
                             "give one name per column")
        return names

    def _design(self, scores: np.ndarray) -> np.ndarray:
        u = (scores - self.centre_) / self.scale_
        return np.column_stack([np.ones(scores.shape[0]), u])

    def llr(self, scores) -> np.ndarray:
        self.check_fitted()
        return self._design(as_score_matrix(scores, "scores", self.centre_.size)) @ self.theta_

    def coefficients(self) -> tuple[float, np.ndarray]:
        """``(a, b)`` of ``llr = a + b . s`` in raw score units."""
        self.check_fitted()
        b = self.theta_[1:] / self.scale_
        return float(self.theta_[0] - b @ self.centre_), b

    def params(self) -> dict:
        a, b = self.coefficients()
        return {
            "intercept": a,
            "weights": [float(v) for v in b],
            "standardised_weights": [float(v) for v in self.theta_[1:]],
            "systems": list(self._names(b.size)),
            "prior": float(self.prior),
            "l2": float(self.l2),
            "centre": [float(v) for v in self.centre_],
            "scale": [float(v) for v in self.scale_],
            "iterations": int(self.n_iter_),
        }

    def param_rows(self):
        a, b = self.coefficients()
        rows = [param_row("constant a (natural log)", a, 4)]
        for name, weight, std in zip(self._names(b.size), b, self.theta_[1:], strict=True):
            rows.append(param_row(f"weight of {name} (per score unit)", float(weight), 4))
            rows.append(param_row(f"weight of {name} (per standard deviation)", float(std), 4))
        return tuple(rows)


def _shares(size: int, weight: np.ndarray | None, total: float) -> np.ndarray:
    """Each score's weight in the objective: its share of the class's prior weight."""
    return np.full(size, total / size) if weight is None else total * weight / weight.sum()


def _check_rank(x: np.ndarray, names: tuple[str, ...]) -> None:
    """Refuse score columns that are (nearly) linear functions of each other."""
    singular = np.linalg.svd(x, compute_uv=False)
    if singular[-1] <= 1e-10 * singular[0] * np.sqrt(x.shape[0]):
        raise InputError(
            f"the score columns of {', '.join(names)} are linear functions of each other (or "
            "of a constant) over the background: their fusion weights are not determined; "
            "fuse only systems that give different scores (drop a duplicated column)")

