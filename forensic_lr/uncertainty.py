"""Uncertainty of a likelihood ratio: bootstrap and Bayesian intervals, cross-validated LLRs.

All LLRs are natural logs (``llr``); :meth:`LRInterval.to_dict` reports base-10 bounds.
"""

from __future__ import annotations

import copy
import inspect
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._checks import as_score_array, check_pair, sources_pair
from ._numbers import LN10
from .calibration import DEFAULT_CALIBRATOR, as_calibrator
from .display import Table, Tabular, warning_notes
from .errors import ForensicLRError, ForensicLRWarning, InputError
from .i18n.messages import english
from .limits import check_bootstrap
from .parallel import one_blas_thread
from .records import jsonable
from .resampling import (
    DEFAULT_DRAWS,
    DEFAULT_INTERVAL,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    Progress,
    SourceSplit,
    bootstrap_index_chunks,
    coded_sources,
    fold_ids,
    quantile_rows,
    replicate_weights,
    source_folds,
)

__all__ = [
    "DEFAULT_DRAWS", "DEFAULT_INTERVAL", "LRInterval", "bayes_interval", "bootstrap_interval",
    "cross_validated_llr", "fold_splits", "replicate_interval",
]



@dataclass(frozen=True, eq=False, repr=False)
class LRInterval(Tabular):
    """An interval for the LLR at each evidence score.

    Attributes
    ----------
    method : str
        ``"bootstrap"`` (percentile bootstrap) or ``"bayes"`` (posterior credible interval).
    level : float
        Nominal coverage, e.g. 0.95.
    llr_low, llr_high : numpy.ndarray
        Natural-log bounds, one per evidence score (may be +-inf for PAV-like methods).
    n : int
        Number of replicates or posterior draws requested.
    n_degenerate : int
        Bootstrap replicates dropped because the resample could not be fitted
        (e.g. a class resampled to one constant value). Always 0 for ``"bayes"``.
    warnings : tuple of str
        Texts of the warnings raised while computing the interval.
    """

    method: str
    level: float
    llr_low: np.ndarray
    llr_high: np.ndarray
    n: int
    n_degenerate: int = 0
    warnings: tuple[str, ...] = field(default=())

    def _table(self) -> Table:
        """One row per evidence score (in the order given): the interval in log10 LR
        (``repr``, notebooks, ``to_frame()``)."""
        dropped = f", {self.n_degenerate} dropped" if self.n_degenerate else ""
        return Table(
            title=f"LR interval: {self.method}, {self.level:.0%}, n = {self.n}{dropped}",
            columns=("score", "log10_lr_low", "log10_lr_high"),
            rows=tuple((i + 1, float(lo / LN10), float(hi / LN10))
                       for i, (lo, hi) in enumerate(zip(self.llr_low, self.llr_high,
                                                        strict=True))),
            notes=warning_notes(self.warnings),
        )

    def to_dict(self) -> dict:
        """Plain JSON-able dict with base-10 bounds (``log10_lr_low``/``log10_lr_high`` lists)."""
        return jsonable({
            "method": self.method,
            "level": float(self.level),
            "log10_lr_low": [float(v) for v in np.asarray(self.llr_low) / LN10],
            "log10_lr_high": [float(v) for v in np.asarray(self.llr_high) / LN10],
            "n": int(self.n),
            "n_degenerate": int(self.n_degenerate),
            "warnings": list(self.warnings),
        })


def _check_options(n: int, level: float, *, what: str = "n") -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{what} must be a positive integer, got {n!r}; use e.g. {what}=1000")
    level = float(level)
    if not 0.0 < level < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1, got {level!r}; use e.g. 0.95")
    return int(n), level


def _percentile_interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - level
    return quantile_rows(samples, alpha / 2.0), quantile_rows(samples, 1.0 - alpha / 2.0)


def _bootstrap_llr_loop(
    calibrator,
    ss: np.ndarray,
    ds: np.ndarray,
    scores: np.ndarray,
    *,
    n: int,
    rng: np.random.Generator,
    progress: Progress | None = None,
) -> np.ndarray:
    """LLRs at ``scores`` from ``n`` refits of ``calibrator``, each a fit with the
    replicate's multinomial draw counts as weights (the reference of every hook).

    Replicate ``b`` draws ``idx_ss``, ``idx_ds`` (:func:`bootstrap_index_chunks`, the draws
    of the ``bootstrap_llr`` hooks of the calibration contract) and is
    ``fit(ss, ds, ss_weight=bincount(idx_ss), ds_weight=bincount(idx_ds))``: by the
    contract, the fit on ``ss[idx_ss]``, ``ds[idx_ds]``. A replicate
    whose resample cannot be fitted (constant class, or the calibrator raising a
    :class:`ForensicLRError`) gives a row of NaN. A calibrator whose fit sorts its
    scores (``sorts_scores``, e.g. PAV) gets each class in ascending order, its weights in
    the same order (the same resample), and finds them sorted; the others get the classes
    as given, since an iterative fit may end a rounding step apart in another order.
    """
    model = copy.deepcopy(calibrator)
    fit = model.fit if _takes_weights(model) else _fit_repeated(model)
    out = np.full((n, scores.size), np.nan)
    if getattr(model, "sorts_scores", False):
        order_ss, order_ds = np.argsort(ss, kind="stable"), np.argsort(ds, kind="stable")
    else:
        order_ss, order_ds = np.arange(ss.size), np.arange(ds.size)
    ss_up, ds_up = ss[order_ss], ds[order_ds]
    done = 0
    for idx_ss, idx_ds in bootstrap_index_chunks(rng, n, ss.size, ds.size):
        for i_ss, i_ds in zip(idx_ss, idx_ds, strict=True):
            w_ss, w_ds = replicate_weights(i_ss, i_ds, ss.size, ds.size)
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    out[done] = fit(ss_up, ds_up, w_ss[order_ss], w_ds[order_ds]).llr(scores)
            except ForensicLRError:
                pass
            done += 1
            if progress is not None:
                progress(done, n)
    return out


def _is_calibrator(value) -> bool:
    """A method name or an object with ``fit``: never a score array."""
    return isinstance(value, str) or hasattr(value, "fit")


def _takes_weights(calibrator) -> bool:
    """Whether ``calibrator.fit`` takes ``ss_weight`` and ``ds_weight`` (the contract)."""
    parameters = inspect.signature(calibrator.fit).parameters
    return "ss_weight" in parameters and "ds_weight" in parameters


def _fit_repeated(calibrator):
    """``fit(ss, ds, w_ss, w_ds)`` of a calibrator whose ``fit`` takes no weights (written
    before the contract had them): the fit on the repeated scores, the same resample;
    a constant class raises :class:`InputError` (as the package's calibrators do)."""
    def fit(ss, ds, w_ss, w_ds):
        s, d = np.repeat(ss, w_ss), np.repeat(ds, w_ds)
        if s.min() == s.max() or d.min() == d.max():
            raise InputError("a resampled class is constant")
        return calibrator.fit(s, d)
    return fit


def bootstrap_interval(
    ss,
    ds,
    scores,
    calibrator=DEFAULT_CALIBRATOR,
    *,
    n: int = DEFAULT_DRAWS["bootstrap"],
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
) -> LRInterval:
    """Percentile bootstrap interval for the LLR at the evidence score(s).

    Parameters
    ----------
    ss, ds : array_like
        Same-source and different-source background scores (finite, at least 2 each).
    scores : array_like or float
        Evidence score(s).
    calibrator : str or Calibrator
        A method name (:data:`~forensic_lr.calibration.CALIBRATORS`, default
        :data:`~forensic_lr.calibration.DEFAULT_CALIBRATOR`) or any calibrator object
        (fitted or not; it is copied and never modified). The order of the calibrator
        first, ``bootstrap_interval(calibrator, ss, ds, scores)``, still works and warns
        (:class:`DeprecationWarning`).
    n : int
        Number of bootstrap replicates.
    level : float
        Nominal coverage of the two-sided interval.
    seed : int
        Seed of :func:`numpy.random.default_rng`; equal seeds give identical intervals.
    progress : callable(done, total), optional
        Called after each replicate when the calibrator has no vectorised hook.

    Returns
    -------
    LRInterval
        ``method="bootstrap"``, natural-log bounds per score.

    Warns
    -----
    ForensicLRWarning
        When some replicates could not be fitted (they are dropped and counted in
        ``n_degenerate``).

    Raises
    ------
    InputError
        Bad options or data, or no replicate could be fitted at all.

    Notes
    -----
    SS and DS are resampled separately with replacement, keeping their sizes (a
    stratified bootstrap, since the two sets are sampled separately in a validation
    study) [1]_. Replicate ``b`` gives :math:`\\hat\\ell_b(s)`, the LLR at score ``s`` of
    the calibrator refitted on resample ``b``; the interval is
    :math:`[\\hat\\ell_{(\\alpha/2)}, \\hat\\ell_{(1-\\alpha/2)}]` with
    :math:`\\alpha = 1 - \\text{level}`, the empirical quantiles of the replicates
    (linear interpolation between order statistics) [1]_ [2]_. When the calibrator
    defines ``bootstrap_llr`` (vectorised across replicates) it is used; otherwise
    ``fit`` is called with each replicate's draw counts as weights (the same resamples,
    and the reference every hook is tested against). The replicates are computed with one
    BLAS thread (:func:`~forensic_lr.parallel.one_blas_thread`), as in a case: the values
    are the same bits as a case's, and on a busy machine a second BLAS thread only waits
    for a core (scal's 100 replicates at 10^4 / 10^5 took 8-13 s of wall clock with two
    at a load average of 8, 1.3-1.7 s with one).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
       Chapman & Hall, 1993, ch. 13 (percentile intervals) and sec. 8.3 (two-sample data).
    .. [2] R. J. Hyndman and Y. Fan, "Sample quantiles in statistical packages",
       *The American Statistician* 50(4), 361-365, 1996 (type 7).
    """
    if _is_calibrator(ss):  # the order before: (calibrator, ss, ds, scores)
        warnings.warn("bootstrap_interval(calibrator, ss, ds, scores) is deprecated; write "
                      "bootstrap_interval(ss, ds, scores, calibrator), the order of "
                      "evaluate_evidence", DeprecationWarning, stacklevel=2)
        ss, ds, scores, calibrator = ds, scores, calibrator, ss
    n, level = _check_options(n, level)
    model = as_calibrator(calibrator)
    ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False, min_size=2)
    check_bootstrap(n, ss.size + ds.size)
    scores = as_score_array(scores, "scores")
    rng = np.random.default_rng(seed)
    hook = getattr(model, "bootstrap_llr", None)
    with one_blas_thread():
        if hook is not None:
            with np.errstate(all="ignore"):
                samples = np.asarray(hook(ss, ds, scores, n=n, rng=rng, progress=progress),
                                     float)
        else:
            samples = _bootstrap_llr_loop(model, ss, ds, scores, n=n, rng=rng,
                                          progress=progress)
    return replicate_interval(samples, level, stacklevel=3)


def replicate_interval(samples, level: float = DEFAULT_LEVEL, *,
                       stacklevel: int = 2) -> LRInterval:
    """The percentile bootstrap interval of replicate LLRs (rows: replicates, columns:
    evidence scores; a row with a NaN is a replicate that could not be fitted).

    The interval of :func:`bootstrap_interval` (see its notes), for replicates computed
    elsewhere (e.g. a fused system refitted whole,
    :mod:`forensic_lr.casework.fused`).

    Warns
    -----
    ForensicLRWarning
        When some replicates could not be fitted (left out, counted in
        ``n_degenerate``).

    Raises
    ------
    InputError
        No replicate could be fitted.
    """
    samples = np.asarray(samples, dtype=np.float64)
    n = samples.shape[0]
    bad = np.isnan(samples).any(axis=1)
    n_bad = int(bad.sum())
    if n_bad == n:
        raise InputError(
            f"none of the {n} bootstrap resamples could be fitted: the background scores "
            "are (nearly) constant; add varied SS and DS scores or use --interval none"
        )
    texts: tuple[str, ...] = ()
    if n_bad:
        text = english("warning.bootstrap_degenerate", bad=str(n_bad), n=str(n))
        warnings.warn(text, ForensicLRWarning, stacklevel=stacklevel)
        texts = (text,)
    low, high = _percentile_interval(samples[~bad], level)
    return LRInterval("bootstrap", level, low, high, n, n_bad, texts)


def bayes_interval(
    calibrator, scores, *, n: int = DEFAULT_DRAWS["bayes"], level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
) -> LRInterval:
    """Equal-tailed posterior credible interval for the LLR, from a fitted ``bayes`` calibrator.

    Parameters
    ----------
    calibrator : Calibrator
        A fitted calibrator named ``"bayes"`` (it defines ``posterior_llr_samples``).
    scores : array_like or float
        Evidence score(s).
    n : int
        Number of posterior draws.
    level : float
        Posterior probability of the interval.
    seed : int
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    LRInterval
        ``method="bayes"``, natural-log bounds per score.

    Notes
    -----
    With posterior draws :math:`\\theta_b` of the SS and DS normal parameters, the LLR
    draws are :math:`\\ell_b(s) = \\log N(s;\\mu_{ss,b},\\sigma_{ss,b}) -
    \\log N(s;\\mu_{ds,b},\\sigma_{ds,b})` and the interval is their
    :math:`\\alpha/2` and :math:`1-\\alpha/2` empirical quantiles [1]_.

    References
    ----------
    .. [1] A. Gelman et al., *Bayesian Data Analysis*, 3rd ed., CRC Press, 2013,
       sec. 2.3 (posterior intervals) and sec. 3.3 (normal model, conjugate prior).
    """
    n, level = _check_options(n, level)
    scores = as_score_array(scores, "scores")
    name = getattr(calibrator, "name", type(calibrator).__name__)
    sampler = getattr(calibrator, "posterior_llr_samples", None)
    if name != "bayes" or sampler is None:
        raise InputError(
            f"a Bayesian credible interval needs the 'bayes' calibrator, got {name!r}; "
            "use method 'bayes' or a bootstrap interval instead"
        )
    samples = np.asarray(sampler(scores, n=n, rng=np.random.default_rng(seed)), float)
    low, high = _percentile_interval(samples, level)
    return LRInterval("bayes", level, low, high, n)


def cross_validated_llr(
    ss, ds, calibrator=DEFAULT_CALIBRATOR, folds: int | None = 5, seed: int = DEFAULT_SEED, *,
    ss_sources=None, ds_sources=None, progress: Progress | None = None, groups=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold LLRs of every background score, in input order (stratified K-fold).

    Parameters
    ----------
    ss, ds : array_like
        Same-source and different-source background scores (finite); ``(n, k)`` score
        matrices (one column per system) for a fusion
        (:class:`~forensic_lr.calibration.fusion.LogisticFusion`).
    calibrator : str or Calibrator
        A method name (default :data:`~forensic_lr.calibration.DEFAULT_CALIBRATOR`) or a
        calibrator object, copied (``copy.deepcopy``) for each fold; never modified.
    folds : int or None
        Number of folds K, 2 <= K <= the size of the smaller class. With sources:
        number of source folds, or None for leave-one-source-out.
    seed : int
        Seed of the shuffles (:func:`numpy.random.default_rng`; default
        :data:`~forensic_lr.resampling.DEFAULT_SEED`, that of a case).
    ss_sources, ds_sources : array_like, optional
        Source ids per trial (shape ``(n,)`` or ``(n, 2)``): folds by source, so that no
        source is in both the training and the test trials
        (:func:`forensic_lr.resampling.source_folds`).
    groups : (ss_sources, ds_sources), optional
        Deprecated spelling of ``ss_sources`` and ``ds_sources``.
    progress : callable(done, total), optional
        Called after each fold.

    Returns
    -------
    ss_llr, ds_llr : numpy.ndarray
        Natural-log LLR of each SS and DS score from the model fitted without its fold.

    Notes
    -----
    Each class is shuffled separately and dealt round-robin into K folds, so every fold
    holds :math:`\\lfloor n/K \\rfloor` or :math:`\\lceil n/K \\rceil` scores of each
    class. For fold k the calibrator is fitted on the SS and DS scores outside fold k
    and applied to those inside it; no score is ever scored by a model that saw it [1]_.
    A calibrator that adapts to the case's source (``suspect_map``) says how to validate
    it through its ``fold_llr`` hook: with ``groups``, each held-out source takes the
    suspect's place (see
    :meth:`~forensic_lr.calibration.suspect_map.SuspectMAPCalibrator.fold_llr`).

    References
    ----------
    .. [1] T. Hastie, R. Tibshirani and J. Friedman, *The Elements of Statistical
       Learning*, 2nd ed., Springer, 2009, sec. 7.10 (cross-validation).
    """
    groups = sources_pair(ss_sources, ds_sources, groups, function="cross_validated_llr")
    calibrator = as_calibrator(calibrator)
    if np.ndim(ss) == 2 or np.ndim(ds) == 2:  # several systems' scores per comparison
        from .calibration.fusion import as_score_matrix

        ss, ds = as_score_matrix(ss, "ss"), as_score_matrix(ds, "ds")
    else:
        ss, ds = check_pair(ss, ds, names=("ss", "ds"), allow_inf=False, min_size=2)
    if groups is not None:
        return _source_cross_validated_llr(ss, ds, calibrator, folds, seed, groups, progress)
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise InputError(f"folds must be an integer >= 2, got {folds!r}; use e.g. folds=5")
    smallest = min(len(ss), len(ds))
    if folds > smallest:
        which = "ss" if len(ss) <= len(ds) else "ds"
        raise InputError(
            f"{folds} folds are more than the {smallest} scores of the smaller class "
            f"({which}): each fold needs at least one score of each class; use at most "
            f"{smallest} folds"
        )
    out_ss = np.empty(len(ss))
    out_ds = np.empty(len(ds))
    for k, split in enumerate(fold_splits(len(ss), len(ds), folds, seed)):
        out_ss[split.test_ss], out_ds[split.test_ds] = _fold_llr(calibrator, ss, ds, split,
                                                                 None)
        if progress is not None:
            progress(k + 1, int(folds))
    return out_ss, out_ds


def fold_splits(n_ss: int, n_ds: int, folds: int | None, seed: int = DEFAULT_SEED,
                sources: tuple | None = None) -> tuple[SourceSplit, ...]:
    """The splits of :func:`cross_validated_llr` (arguments checked there): stratified
    K-fold by trial, or :func:`~forensic_lr.resampling.source_folds` with ``sources =
    (ss_sources, ds_sources)``."""
    if sources is not None:
        return source_folds(*sources, folds=folds, seed=seed)
    rng = np.random.default_rng(seed)
    fold_ss = fold_ids(n_ss, int(folds), rng)
    fold_ds = fold_ids(n_ds, int(folds), rng)
    return tuple(SourceSplit(np.flatnonzero(fold_ss != k), np.flatnonzero(fold_ds != k),
                             np.flatnonzero(fold_ss == k), np.flatnonzero(fold_ds == k))
                 for k in range(int(folds)))


def _source_cross_validated_llr(ss, ds, calibrator, folds, seed, groups, progress=None):
    """Out-of-fold LLRs with folds by source (see :func:`cross_validated_llr`)."""
    out_ss, out_ds = np.empty(len(ss)), np.empty(len(ds))
    splits = fold_splits(len(ss), len(ds), folds, seed, groups)
    codes = coded_sources(*groups, len(ss), len(ds))
    for k, split in enumerate(splits):
        if progress is not None and k:
            progress(k, len(splits))
        out_ss[split.test_ss], out_ds[split.test_ds] = _fold_llr(calibrator, ss, ds, split,
                                                                 codes)
    if progress is not None:
        progress(len(splits), len(splits))
    return out_ss, out_ds


def _fold_llr(calibrator, ss, ds, split: SourceSplit, sources):
    """LLRs of one split's test trials from a copy of ``calibrator`` fitted without them.

    A calibrator that must do more than ``fit`` on the training trials (``suspect_map``
    adapts to each held-out source's own trials) defines ``fold_llr(ss, ds, split,
    sources)``, called with ``sources`` = :func:`~forensic_lr.resampling.coded_sources`
    or None (folds by trial).
    """
    model = copy.deepcopy(calibrator)
    hook = getattr(model, "fold_llr", None)
    if hook is not None:
        return hook(ss, ds, split, sources)
    model.fit(ss[split.train_ss], ds[split.train_ds])
    test_ss, test_ds = ss[split.test_ss], ds[split.test_ds]
    return (model.llr(test_ss) if len(test_ss) else np.empty(0),
            model.llr(test_ds) if len(test_ds) else np.empty(0))
