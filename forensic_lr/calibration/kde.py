"""Generative calibration with Gaussian kernel density estimates per class."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.fft import irfft, next_fast_len, rfft

from .._checks import as_score_array
from ..errors import InputError, excerpt
from ..i18n import N_
from ..resampling import bootstrap_index_chunks
from .base import BaseCalibrator, number_option, weighted_moments, weighted_percentiles
from .elub import STEPS_PER_LOG10, elub_bounds_from_counts, elub_thresholds, log10_on_grid

_BLOCK = 2_000_000  # kernel evaluations per block
_EXACT = 20_000_000  # above this many kernel evaluations, use the binned estimate
_GRID = 2**14  # grid points of the binned estimate
_NEAR = 64  # ranks searched on either side of a score for a resample's nearest point
_NODES_PER_H = 16  # bounding a refit's ELUB: exact sums at one score per 1/16 bandwidth


#: Bandwidth rule names. "scott" is another name of the normal-reference rule.
RULES = ("silverman", "scott", "normal_reference")
NORMAL_REFERENCE = ("normal_reference", "scott")


def bandwidth(values: np.ndarray, rule: str | float, weight: np.ndarray | None = None) -> float:
    """Kernel bandwidth ``h`` for one class.

    ``"silverman"``: ``0.9 min(sd, IQR / 1.34) n^(-1/5)`` (Silverman 1986, eq. 3.31);
    ``"normal_reference"``: ``1.06 sd n^(-1/5)``, the bandwidth that is optimal for normal
    data (Silverman 1986, eq. 3.28; Scott 1992), which the lir package calls "silverman";
    ``"scott"`` is another name of this rule; a positive number is used as given.
    With ``weight`` (how often each value counts) ``n = sum w`` and the SD (``ddof=1``)
    and quartiles are those of the repeated values.
    """
    if weight is None:
        return float(_bandwidths(values[None, :], rule)[0])
    n = float(weight.sum())
    _, var = weighted_moments(values, weight)
    return float(_rule_bandwidths(
        rule, (1, n), lambda: np.array([np.sqrt(var * n / (n - 1))]),
        lambda: weighted_percentiles(values, weight, [0.75, 0.25])[:, None])[0])


def _bandwidths(rows: np.ndarray, rule: str | float) -> np.ndarray:
    """:func:`bandwidth` of each row of ``rows``."""
    return _rule_bandwidths(rule, rows.shape, lambda: rows.std(axis=1, ddof=1),
                            lambda: np.percentile(rows, [75, 25], axis=1))


def _rule_bandwidths(rule: str | float, shape: tuple[int, int], sd, quartiles) -> np.ndarray:
    """:func:`bandwidth` of ``k`` samples of size ``n`` (``shape = (k, n)``).

    ``sd`` and ``quartiles`` are functions returning the samples' SDs (``ddof=1``) and
    their 75th and 25th percentiles (linear interpolation, as :func:`numpy.percentile`),
    called only when the rule needs them.
    """
    if isinstance(rule, (int, float)) and not isinstance(rule, bool):
        if not rule > 0:
            raise InputError(f"bandwidth must be positive, got {rule!r}")
        return np.full(shape[0], float(rule))
    n = shape[1]
    if rule == "silverman":
        sd = sd()
        q75, q25 = quartiles()
        spread = np.minimum(sd, (q75 - q25) / 1.34)
        spread = np.where(spread == 0, sd, spread)
        return 0.9 * spread * n ** (-0.2)
    if rule in NORMAL_REFERENCE:
        return 1.06 * sd() * n ** (-0.2)
    raise InputError(f"bandwidth must be one of {', '.join(map(repr, RULES))} or a number, "
                     f"got {rule!r}")


def class_rules(rule) -> tuple[str | float, str | float]:
    """The bandwidth rule of the SS and of the DS class.

    ``rule`` is one rule for both classes (a name of :data:`RULES` or a positive number),
    or per class: a pair ``[ss, ds]`` or a table ``{"ss": ..., "ds": ...}`` of such rules
    (each class's bandwidth is always computed from that class's scores alone).
    """
    if isinstance(rule, Mapping):
        if set(rule) != {"ss", "ds"}:
            raise InputError("option bandwidth as a table needs exactly the keys 'ss' and "
                             f"'ds' (a rule or a number each), got {sorted(rule)}")
        return rule["ss"], rule["ds"]
    if isinstance(rule, (list, tuple)):
        if len(rule) != 2:
            raise InputError("option bandwidth as a list needs two entries [ss, ds] (a rule "
                             f"or a number each), got {len(rule)}")
        return rule[0], rule[1]
    return rule, rule


def _log_kde_exact(s: np.ndarray, data: np.ndarray, h: float, weights=None) -> np.ndarray:
    """``log((1/n) sum_i N(s; x_i, h^2))`` from the kernels that matter (exact to 1e-13).

    ``weights``, if given, are how often each data value occurs (a resample's draw
    counts over distinct values): ``n`` is their sum and each kernel counts that often.

    With ``x*`` the data point nearest to a score ``s`` and ``d = |s - x*|``, a point
    farther than ``D = sqrt(d^2 + R^2 h^2)`` from ``s`` has ``(s - x)^2 > d^2 + R^2 h^2``,
    so its kernel is less than ``exp(-R^2 / 2)`` times the nearest one; with
    ``R = sqrt(2 (ln n + 30))`` all of them together change the density by less than
    ``e^-30`` (relative). Far from the data this window is much narrower than
    ``d + R h``; summing more kernels than the window holds only makes the sum more
    complete. In units of ``h sqrt(2)`` (``y = x / (h sqrt 2)``, ``w`` the score) each
    kernel is taken relative to the nearest one, ``exp((y - y*) (2 w - y* - y))`` (the
    difference of squares factored, so no large squares cancel), and the log density is
    ``-(w - y*)^2 + log(sum)`` minus the normalisation. The windows are found by
    ``searchsorted`` in the sorted data; scores whose windows have similar sizes are
    summed together as one dense (scores x window) block, never an n x m matrix.
    """
    if np.any(data[1:] < data[:-1]):  # the calibrator stores its data sorted already
        order = np.argsort(data, kind="stable")
        data, weights = data[order], None if weights is None else weights[order]
    size = data.size
    n = size if weights is None else weights.sum()
    pos = np.searchsorted(data, s)
    below = data[np.clip(pos - 1, 0, size - 1)]
    above = data[np.clip(pos, 0, size - 1)]
    near = np.where(np.abs(s - below) <= np.abs(above - s), below, above)
    d = np.abs(s - near)
    half = np.sqrt(d * d + 2.0 * (np.log(n) + 30.0) * h * h)
    lo = np.searchsorted(data, s - half, side="left")
    counts = np.searchsorted(data, s + half, side="right") - lo
    unit = 1.0 / (h * np.sqrt(2.0))
    y = data * unit
    y_near = near * unit
    twice = 2.0 * s * unit - y_near  # 2 w - y*
    total = np.empty(s.size)
    by_size = np.argsort(counts, kind="stable")
    sizes = counts[by_size]
    start = 0
    while start < s.size:  # blocks of scores whose windows are within 25 % in size
        width = max(int(sizes[start] * 1.25), int(sizes[start]) + 8)
        stop = int(np.searchsorted(sizes, width, side="right"))
        width = int(sizes[stop - 1])
        stop = min(stop, start + max(1, _BLOCK // width))
        rows = by_size[start:stop]
        # every window widened to the block's width (the extra kernels are terms of the
        # sum too, each below the nearest one), kept inside the data
        # (one column per score: the sum runs down the columns, row after row)
        first = np.minimum(lo[rows], size - width)
        if first[0] == first[-1] and np.all(first == first[0]):  # e.g. scores below the data
            take = slice(first[0], first[0] + width)
            x = y[take, None]
        else:
            take = np.arange(width)[:, None] + first
            x = y[take]
        e = (x - y_near[rows]) * (twice[rows] - x)
        np.exp(e, out=e)
        if weights is not None:
            e *= weights[take].reshape(width, -1)
        total[rows] = e.sum(axis=0)
        start = stop
    dist = (s - near) * unit
    return np.log(total) - dist * dist - (np.log(n) + np.log(h) + 0.5 * np.log(2 * np.pi))


def _convolve_same(values: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """The linear convolution of ``values`` with ``kernel``, centred to ``values.size``.

    The full convolution has ``n = values.size + kernel.size - 1`` terms; it is the inverse
    real FFT of the product of both arrays' real FFTs, zero-padded to a fast length
    (:func:`scipy.fft.next_fast_len`), and its middle ``values.size`` terms, from
    ``(kernel.size - 1) // 2`` on, are kept (``numpy.convolve(..., mode="same")``).
    """
    n = values.size + kernel.size - 1
    size = next_fast_len(n, real=True)
    full = irfft(rfft(values, size) * rfft(kernel, size), size)[:n]
    start = (kernel.size - 1) // 2
    return full[start:start + values.size]


def _log_kde_binned(s: np.ndarray, data: np.ndarray, h: float, weights=None) -> np.ndarray:
    """The same density from linear binning on a fine grid and an FFT convolution.

    The data are spread linearly onto ``_GRID`` points covering the data +- 6 h,
    convolved with the Gaussian kernel by real FFTs (:func:`_convolve_same`) and the density is
    interpolated linearly at the scores taken in ascending order (sorted here unless
    they already are: ``numpy.interp`` then finds each grid cell next to the last one).
    The grid step is far below ``h`` (checked by the caller), so the relative error is
    O((step / h)^2) where the density is high. In the tails the binning error grows with
    the squared distance to the data (in units of h) and the FFT's rounding (about 1e-16
    of the peak) is no longer negligible, so where the binned density is below 1e-3 of
    its peak, and off the grid, the exact windowed sum is used instead: measured error
    below 1e-5 in log density.
    """
    if np.any(s[1:] < s[:-1]):
        order = np.argsort(s, kind="stable")
        out = np.empty(s.size)
        out[order] = _log_kde_binned(s[order], data, h, weights)
        return out
    lo, hi, density = _binned_grid(data, h, weights)
    first, last, good, logs = _binned_at(s, lo, hi, density)
    out = np.full(s.size, np.nan)
    out[first:last][good] = logs
    rest = np.flatnonzero(np.isnan(out))
    if rest.size:
        out[rest] = _log_kde_exact(s[rest], data, h, weights)
    return out


def _binned_grid(data: np.ndarray, h: float, weights=None) -> tuple[float, float, np.ndarray]:
    """``(lo, hi, density)``: the binned density of :func:`_log_kde_binned` on its grid of
    ``_GRID`` points from ``lo`` to ``hi``."""
    lo, hi = data.min() - 6 * h, data.max() + 6 * h
    step = (hi - lo) / (_GRID - 1)
    position = (data - lo) / step
    left = np.floor(position).astype(np.int64)
    frac = position - left
    if weights is not None:  # (as `_log_kde_exact`: each value counted that often)
        frac = frac * weights
        counts = np.bincount(left, weights=weights - frac, minlength=_GRID + 1)
    else:
        counts = np.bincount(left, weights=1 - frac, minlength=_GRID + 1)
    counts += np.bincount(left + 1, weights=frac, minlength=_GRID + 1)
    offsets = np.arange(-int(np.ceil(6 * h / step)), int(np.ceil(6 * h / step)) + 1) * step
    kernel = np.exp(-0.5 * (offsets / h) ** 2) / (h * np.sqrt(2 * np.pi))
    n = data.size if weights is None else weights.sum()
    return lo, hi, _convolve_same(counts[:_GRID], kernel) / n


def _binned_at(s: np.ndarray, lo: float, hi: float, density: np.ndarray):
    """The binned log density at ascending scores ``s`` where :func:`_log_kde_binned` keeps
    it: ``(first, last, good, logs)``, ``s[first:last]`` on the grid, ``good`` those of
    them above ``1e-3`` of the peak, ``logs`` their log densities. The other scores take
    the exact windowed sum."""
    first, last = np.searchsorted(s, lo, side="left"), np.searchsorted(s, hi, side="right")
    step = (hi - lo) / (_GRID - 1)
    values = np.interp(s[first:last], lo + step * np.arange(_GRID), density)
    good = values > 1e-3 * density.max()
    return first, last, good, np.log(values[good])


def _log_kde(s: np.ndarray, data: np.ndarray, h: float, weights=None) -> np.ndarray:
    """Exact for small problems; binned (FFT) when scores x data exceed ``_EXACT``.

    ``weights``: as in :func:`_log_kde_exact` (the data then count as ``sum(weights)``).
    """
    if _exact_wins(s.size, data, h, weights):
        return _log_kde_exact(s, data, h, weights)
    return _log_kde_binned(s, data, h, weights)


def _exact_wins(size: int, data: np.ndarray, h: float, weights=None) -> bool:
    """Whether :func:`_log_kde` sums exactly at ``size`` scores: at most ``_EXACT`` kernel
    evaluations, or a bandwidth under 50 grid steps."""
    n = data.size if weights is None else weights.sum()
    return bool(size * n <= _EXACT or h < 50 * (np.ptp(data) + 12 * h) / _GRID)


class KDECalibrator(BaseCalibrator):
    """LR = KDE_ss(s) / KDE_ds(s) with Gaussian kernels.

    Parameters
    ----------
    bandwidth : {"silverman", "normal_reference", "scott"}, float, or a pair of these
        Bandwidth rule, applied to each class separately (default Silverman's rule of
        thumb, :func:`bandwidth`), or a fixed bandwidth in score units; a pair ``[ss, ds]``
        (or table ``{"ss": ..., "ds": ...}``) gives each class its own rule or bandwidth.

    Notes
    -----
    ``llr(s) = log KDE_ss(s) - log KDE_ds(s)`` with ``KDE(s) = (1/n) sum N(s; x_i, h^2)``,
    computed with log-sum-exp so that far tails give finite (large) LLRs instead of
    ``0/0``. For small problems the sum is exact, over the kernels within reach of
    each score (a window found by ``searchsorted``; the rest change the density by
    less than ``e^-30`` relative). Beyond 2e7 kernel evaluations the density is binned
    on a 16,384-point grid and convolved by FFT (relative error of order
    (grid step / h)^2, below 1e-4 when h spans 50 grid steps, else exact), so
    cross-validating 10^5 scores stays fast; in the tails (binned density below 1e-3
    of its peak) the exact windowed sum is used. Far outside the data the LLR follows the
    nearest kernels and grows quadratically: bound it (ELUB) before reporting.

    References
    ----------
    .. [1] B. W. Silverman, Density Estimation for Statistics and Data Analysis,
           Chapman & Hall, 1986.
    """

    name = "kde"
    title = N_("Kernel density calibration")
    summary = N_(
        "A Gaussian kernel density estimate is fitted to each class of background scores "
        "(bandwidth by Silverman's rule unless set), and the LR is the ratio of the two "
        "densities at the score. The LR need not increase with the score, and far from the "
        "data it follows the nearest kernels."
    )
    equation = "LR(s) = KDE_ss(s) / KDE_ds(s)"
    reference = (
        "B. W. Silverman, Density Estimation for Statistics and Data Analysis, Chapman & "
        "Hall, 1986."
    )
    in_default_study = True

    def __init__(self, *, bandwidth: str | float = "silverman") -> None:
        self.bandwidth = bandwidth

    def check_options(self) -> None:
        for rule in class_rules(self.bandwidth):
            if isinstance(rule, str):
                if rule not in RULES:
                    raise InputError(
                        f"option bandwidth must be {', '.join(map(repr, RULES))} or a "
                        f"positive number (or a pair [ss, ds] of these), got {excerpt(rule)}")
            else:
                number_option(rule, "bandwidth")

    def fit(self, ss, ds, ss_weight=None, ds_weight=None) -> KDECalibrator:
        """Bandwidths and sorted data; weights as in
        :class:`~forensic_lr.calibration.base.Calibrator` (a kernel per score counted ``w``
        times, ``n = sum w``, bandwidths from the weighted SD and quartiles)."""
        ss, ds, w_ss, w_ds = self._validate_weighted(ss, ds, ss_weight, ds_weight)
        rule_ss, rule_ds = class_rules(self.bandwidth)
        self.h_ss_ = bandwidth(ss, rule_ss, w_ss)
        self.h_ds_ = bandwidth(ds, rule_ds, w_ds)
        # sorted once for the windowed sums, with their weights (None: each once)
        (self.ss_, self.ss_weight_), (self.ds_, self.ds_weight_) = (
            _sorted_with(v, w) for v, w in ((ss, w_ss), (ds, w_ds)))
        self.fitted_ = True
        return self

    def _log_densities(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (_log_kde(s, self.ss_, self.h_ss_, self.ss_weight_),
                _log_kde(s, self.ds_, self.h_ds_, self.ds_weight_))

    def llr(self, scores) -> np.ndarray:
        log_ss, log_ds = self._log_densities(self._scores(scores))
        return log_ss - log_ds

    def density(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """KDE of the SS and DS scores at ``scores``."""
        log_ss, log_ds = self._log_densities(self._scores(scores))
        return np.exp(log_ss), np.exp(log_ds)

    def params(self) -> dict:
        self.check_fitted()
        n_ss, n_ds = (v.size if w is None else float(w.sum()) for v, w in (
            (self.ss_, self.ss_weight_), (self.ds_, self.ds_weight_)))
        return {
            "bandwidth_rule": (dict(self.bandwidth) if isinstance(self.bandwidth, Mapping)
                               else list(self.bandwidth) if isinstance(self.bandwidth, tuple)
                               else self.bandwidth),
            "bandwidth_ss": self.h_ss_,
            "bandwidth_ds": self.h_ds_,
            "n_ss": int(n_ss) if n_ss == int(n_ss) else n_ss,
            "n_ds": int(n_ds) if n_ds == int(n_ds) else n_ds,
        }

    def bootstrap_llr(self, ss, ds, scores, *, n, rng, progress=None) -> np.ndarray:
        """LLRs at ``scores`` for ``n`` bootstrap refits, all replicates at once.

        Parameters
        ----------
        ss, ds : array_like
            Background scores.
        scores : array_like
            Where to evaluate each refit.
        n : int
            Number of replicates.
        rng : numpy.random.Generator
            Source of the draws (:func:`forensic_lr.resampling.bootstrap_index_chunks`).
        progress : callable, optional
            Called as ``progress(done, n)`` after each block of replicates.

        Returns
        -------
        ndarray, shape (n, len(scores))
            Row ``b`` equals ``fit(ss[idx_ss[b]], ds[idx_ds[b]]).llr(scores)`` to about
            1e-12 (rounding: the same sums in another order); NaN for a constant resample
            (which ``fit`` refuses).

        Notes
        -----
        A refit only needs each resample's bandwidth (the same moments and percentiles
        as :func:`bandwidth`) and its kernel sums at the scores. Each resample is its
        vector of draw counts over the sorted data (one ``bincount`` per replicate; no
        resample is formed or sorted), from which :class:`_ResampleQuartiles` gives every
        replicate's SD and quartiles at once. For a few scores :func:`_log_kde_counts`
        sums the kernels within reach of each score, weighted by their counts, as the
        exact windowed sum does. Beyond 2e7 kernel evaluations per refit (e.g. the scores
        are the whole background, for ELUB bounds) ``fit`` switches to the binned
        estimate; then :func:`_binned_refits` sorts the scores once for all replicates and
        evaluates each as ``fit(...).llr`` does (:func:`_log_kde`), over the values it
        drew weighted by their counts.
        """
        ss, ds = self._validate(ss, ds)
        s = as_score_array(scores, "scores")
        if s.size * max(ss.size, ds.size) > _EXACT:
            return _binned_refits(s, self.bandwidth, ss, ds, n, rng, progress)
        classes = (_ResampleQuartiles(ss), _ResampleQuartiles(ds))
        out = np.full((n, s.size), np.nan)
        for start, k, keep, counts, hs in _resamples(classes, self.bandwidth, n, rng):
            logs = [_log_kde_counts(s, h, q, c)
                    for q, c, h in zip(classes, counts, hs, strict=True)]
            out[start + keep] = logs[0] - logs[1]
            if progress is not None:
                progress(start + k, n)
        return out

    def bootstrap_elub(self, ss, ds, scores, *, n, rng,
                       progress=None) -> tuple[np.ndarray, np.ndarray]:
        """LLRs at ``scores`` and ELUB bounds of ``n`` bootstrap refits, all at once.

        Parameters
        ----------
        ss, ds, scores, n, rng, progress
            As in :meth:`bootstrap_llr` (the same draws).

        Returns
        -------
        llr : ndarray, shape (n, len(scores))
            :meth:`bootstrap_llr` at ``scores`` (before bounding; the same sums).
        bounds : ndarray, shape (n, 2)
            Row ``b``: ``ELUB(KDECalibrator(...)).fit(ss[idx_ss[b]], ds[idx_ds[b]])``'s
            ``bounds_log10_`` (:func:`~forensic_lr.calibration.elub.elub_bounds_log10` of
            the refit's LLRs at its own training scores); NaN for a constant resample.

        Notes
        -----
        The bounds need each refit's LLR at every score it was trained on, but only which
        of the ELUB thresholds (multiples of 0.01 in log10 LR) it lies between:
        :func:`_refit_elub` finds that for each drawn value once, weighted by its draw
        count, and mostly from bounds rather than exact tail sums (see there).
        """
        ss, ds = self._validate(ss, ds)
        s = as_score_array(scores, "scores")
        classes = (_ResampleQuartiles(ss), _ResampleQuartiles(ds))
        thresholds = elub_thresholds(ss.size, ds.size)
        llr = np.full((n, s.size), np.nan)
        bounds = np.full((n, 2), np.nan)
        binned = s.size * max(ss.size, ds.size) > _EXACT  # as bootstrap_llr decides
        order = np.argsort(s, kind="stable")
        in_order = s[order]
        for start, k, keep, counts, hs in _resamples(classes, self.bandwidth, n, rng):
            if not binned:
                logs = [_log_kde_counts(s, h, q, c)
                        for q, c, h in zip(classes, counts, hs, strict=True)]
                llr[start + keep] = logs[0] - logs[1]
            for row, b in enumerate(keep):
                if binned:
                    llr[start + b, order] = _replicate_llr(in_order, classes, counts, hs, row)
                bounds[start + b] = _refit_elub(
                    classes, [c[row] for c in counts], [h[row] for h in hs], thresholds)
            if progress is not None:
                progress(start + k, n)
        return llr, bounds


def _sorted_with(values: np.ndarray, weight: np.ndarray | None):
    """``values`` sorted, with their weights in the same order (None stays None)."""
    if weight is None:
        return np.sort(values), None
    if np.all(values[1:] >= values[:-1]):
        return values, weight
    order = np.argsort(values, kind="stable")
    return values[order], weight[order]


def _resamples(classes, rule, n: int, rng):
    """Each block of bootstrap replicates as draw counts: ``(start, k, keep, counts, hs)``.

    Replicates ``start`` to ``start + k`` drawn by
    :func:`~forensic_lr.resampling.bootstrap_index_chunks`; ``keep`` indexes (from 0)
    those where neither class is constant (which ``fit`` refuses); ``counts`` holds each
    class's draw counts over its sorted data (:class:`_ResampleQuartiles`) and ``hs``
    its bandwidths (:func:`bandwidth` of each resample), one row per kept replicate.
    """
    start = 0
    for draws in bootstrap_index_chunks(rng, n, classes[0].sorted.size,
                                        classes[1].sorted.size):
        k = draws[0].shape[0]
        counts = [q.counts(idx) for q, idx in zip(classes, draws, strict=True)]
        sds = [q.sd(c) for q, c in zip(classes, counts, strict=True)]
        keep = np.flatnonzero(~(sds[0][1] | sds[1][1]))  # neither class constant
        if keep.size < k:
            counts = [c[keep] for c in counts]
        hs = [
            _rule_bandwidths(r, c.shape, lambda sd=sd[keep]: sd, lambda q=q, c=c: q(c))
            for r, q, c, (sd, _) in zip(class_rules(rule), classes, counts, sds, strict=True)
        ]
        yield start, k, keep, counts, hs
        start += k


def _binned_refits(s, rule, ss, ds, n, rng, progress) -> np.ndarray:
    """:meth:`KDECalibrator.bootstrap_llr` at many scores: each replicate as ``fit`` does.

    The scores are sorted once for all replicates. Each resample is its draw counts over
    the sorted data (:class:`_ResampleQuartiles`, which also gives every replicate's SD
    and quartiles, hence its bandwidth, at once); its log densities are :func:`_log_kde`
    over the values it drew, each weighted by its count: the same sums ``fit(...).llr``
    computes on its own sorted copy of the resample, where a value drawn ``c`` times
    appears ``c`` times.
    """
    order = np.argsort(s, kind="stable")
    in_order = s[order]
    classes = (_ResampleQuartiles(ss), _ResampleQuartiles(ds))
    out = np.full((n, s.size), np.nan)
    for start, k, keep, counts, hs in _resamples(classes, rule, n, rng):
        for row, b in enumerate(keep):
            out[start + b, order] = _replicate_llr(in_order, classes, counts, hs, row)
        if progress is not None:
            progress(start + k, n)
    return out


def _replicate_llr(s: np.ndarray, classes, counts, hs, row: int) -> np.ndarray:
    """LLRs at ascending scores ``s`` of the replicate in row ``row`` of ``counts`` and
    ``hs`` (:func:`_resamples`): :func:`_log_kde` of each class over the values it drew,
    each weighted by its count."""
    logs = []
    for q, c, h in zip(classes, counts, hs, strict=True):
        drawn = np.flatnonzero(c[row])
        logs.append(_log_kde(s, q.sorted[drawn], h[row], c[row, drawn]))
    return logs[0] - logs[1]


def _refit_elub(classes, counts, hs, thresholds: np.ndarray) -> tuple[float, float]:
    """ELUB bounds (log10) of one refit, from its draw counts (see
    :meth:`KDECalibrator.bootstrap_elub`).

    ``ELUB.fit`` evaluates the refit at its SS training scores and at its DS training
    scores (two calls of ``llr``, each choosing exact or binned sums by its own size,
    :func:`_exact_wins`), then counts, at each threshold ``t`` of
    :func:`~forensic_lr.calibration.elub.elub_thresholds`, the scores whose log10 LR is at
    most ``t``. Here every drawn value is evaluated once and counts as often as it was
    drawn. Where the binned estimate holds, its log density is taken as ``fit`` takes it
    (:func:`_binned_at`: the same numbers). Where ``fit`` would sum exactly (the tails,
    or a small problem) :func:`_convex_bounds` bounds the log density from exact sums at
    one such score per sixteenth of a bandwidth. A value whose LLR bounds lie between the same two
    thresholds is counted there; the few others are summed exactly
    (:func:`_log_kde_exact`). Values are set onto a threshold within 1e-12 of it as
    ``ELUB.fit`` sets them (:func:`~forensic_lr.calibration.elub.log10_on_grid`, which keeps
    the order of bounds). The counts, hence the bounds, are those of the looped fit unless
    an LLR lies within rounding (about 1e-13) of that 1e-12 margin.
    """
    drawn = [np.flatnonzero(c) for c in counts]
    points = [q.sorted[d] for q, d in zip(classes, drawn, strict=True)]
    weights = [c[d] for c, d in zip(counts, drawn, strict=True)]
    sizes = [q.sorted.size for q in classes]  # each resample has its class's size
    # lows[c][e], highs[c][e]: log density of class c's refit at class e's drawn values
    lows: list[list[np.ndarray]] = [[], []]
    highs: list[list[np.ndarray]] = [[], []]
    bounded: list[list[np.ndarray]] = [[], []]  # per e: the values bounded, not known
    for c in (0, 1):
        data, w, h = points[c], weights[c], hs[c]
        grid = None
        for e in (0, 1):
            value = np.full(points[e].size, np.nan)
            if not _exact_wins(sizes[e], data, h, w):
                grid = grid or _binned_grid(data, h, w)
                first, last, good, logs = _binned_at(points[e], *grid)
                value[first:last][good] = logs
            low, high = value.copy(), value
            rest = np.flatnonzero(np.isnan(value))
            if rest.size:
                low[rest], high[rest] = _convex_bounds(points[e][rest], data, h, w)
            bounded[e].append(rest)
            lows[c].append(low)
            highs[c].append(high)
    at_most = []
    for e in (0, 1):
        cell = _cells(thresholds, log10_on_grid(lows[0][e] - highs[1][e]))
        # the values bounded, not known, in either class's density (by a mask: np.union1d
        # takes ten times as long here)
        either = np.zeros(points[e].size, dtype=bool)
        either[bounded[e][0]] = either[bounded[e][1]] = True
        loose = np.flatnonzero(either)
        high = _cells(thresholds, log10_on_grid(highs[0][e][loose] - lows[1][e][loose]))
        unsure = loose[cell[loose] != high]
        if unsure.size:
            logs = []
            for c in (0, 1):
                value = lows[c][e][unsure]
                inexact = np.flatnonzero(value != highs[c][e][unsure])
                if inexact.size:
                    value[inexact] = _log_kde_exact(points[e][unsure[inexact]], points[c],
                                                    hs[c], weights[c])
                logs.append(value)
            cell[unsure] = _cells(thresholds, log10_on_grid(logs[0] - logs[1]))
        # cell j: the thresholds from j on are at least the value
        at_most.append(np.cumsum(np.bincount(cell, weights=weights[e],
                                             minlength=thresholds.size + 1))[:-1])
    return elub_bounds_from_counts(thresholds, at_most[0], at_most[1], sizes[0], sizes[1])


def _cells(thresholds: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``numpy.searchsorted(thresholds, values)`` (how many thresholds lie below each
    value) for the ELUB thresholds, ``k / STEPS_PER_LOG10`` for consecutive integers ``k``.

    The cell is guessed as ``ceil(value * STEPS_PER_LOG10) - k_first`` (clipped to the grid),
    which rounding can put one off near a threshold; one comparison with the threshold
    on either side corrects it. No search: the values are many, the thresholds few.
    """
    last = thresholds.size
    first_k = np.rint(thresholds[0] * STEPS_PER_LOG10)
    guess = np.clip(np.ceil(values * STEPS_PER_LOG10) - first_k, 0, last).astype(np.intp)
    guess += (guess < last) & (thresholds[np.minimum(guess, last - 1)] < values)
    guess -= (guess > 0) & (thresholds[np.maximum(guess - 1, 0)] >= values)
    return guess


def _convex_bounds(s: np.ndarray, data: np.ndarray, h: float,
                   weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of :func:`_log_kde_exact` at ascending scores ``s``.

    ``g(s) = log KDE(s) + (s - m)^2 / (2 h^2)`` is convex in ``s`` (for any ``m``): it is
    ``log sum_i w_i exp(a_i s + b_i)`` plus a constant, a log-sum-exp of affine functions.
    It is summed exactly at the nodes: the first score in each stretch of ``h / 16``
    (``_NODES_PER_H``) from the first score on, and the last score. Between consecutive
    nodes ``a < s < b`` the chord from ``a`` to ``b`` lies above ``g``, and the chords of
    the neighbouring node pairs, extended, lie below it:
    ``g(s) >= g(a) + S_left (s - a)`` and ``g(s) >= g(b) - S_right (b - s)`` (slopes of a
    convex function increase). Each ``g`` is taken as uncertain by
    ``eps = 1e-9 + 1e-12 max |g|``, far above the rounding of the sums, and the bounds are
    widened accordingly (an extended chord of width ``w`` by ``eps (1 + 2 d / w)`` at
    distance ``d``); at the nodes both are the exact value. A score with no lower bound
    (between the only two nodes, or next to equal nodes) gets ``-inf``.
    """
    cell = np.floor((s - s[0]) * (_NODES_PER_H / h))
    first_in_cell = np.concatenate([[True], cell[1:] != cell[:-1]])
    first_in_cell[-1] = True
    nodes = np.flatnonzero(first_in_cell)
    exact = _log_kde_exact(s[nodes], data, h, weights)
    if nodes.size == s.size:
        return exact, exact.copy()
    mid = 0.5 * (s[0] + s[-1])
    lift = (0.5 / (h * h)) * (s - mid) ** 2
    g = exact + lift[nodes]
    x = s[nodes]
    eps = 1e-9 + 1e-12 * np.abs(g).max()  # far above the rounding of each g
    gap = np.diff(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = np.diff(g) / gap  # NaN between equal scores: no bound from it
        seg = np.minimum(np.searchsorted(nodes, np.arange(s.size), side="right") - 1,
                         nodes.size - 2)
        a, b = x[seg], x[seg + 1]
        frac = np.where(b > a, (s - a) / (b - a), 0.0)
        upper = g[seg] + (g[seg + 1] - g[seg]) * frac + eps
        # an extended chord's error grows with the distance over its own width
        before, after = seg - 1, np.minimum(seg + 1, gap.size - 1)
        left = np.where(seg > 0, g[seg] + slope[before] * (s - a)
                        - eps * (1 + 2 * (s - a) / gap[before]), np.nan)
        right = np.where(seg + 1 < gap.size, g[seg + 1] - slope[after] * (b - s)
                         - eps * (1 + 2 * (b - s) / gap[after]), np.nan)
        lower = np.fmax(left, right)
    lower = np.where(np.isnan(lower), -np.inf, lower)
    low, high = lower - lift, upper - lift
    low[nodes] = high[nodes] = exact
    return low, high


class _ResampleQuartiles:
    """75th and 25th percentiles (linear interpolation) of same-size resamples of a data set.

    Notes
    -----
    Order statistic ``j`` of a resample of size ``n`` is the data value of rank ``t``
    (in the sorted data) where the number of draws of rank at most ``t`` first exceeds
    ``j``. The number of draws of rank below ``j`` is binomial with standard deviation
    ``sqrt(n p (1 - p))``, ``p = j / n``, so ``t`` lies within 10 such deviations of
    ``j`` except with probability below 1e-20. Each rank in these brackets gets a bin of
    its own and each gap between them one wide bin, so the resample's draw counts over
    the sorted data (:meth:`counts`) summed per bin and a cumulative sum locate all four
    order statistics; a replicate whose order statistic falls outside its bracket is
    handed to :func:`numpy.percentile`. This avoids a selection pass over every
    resample, which is never formed. The same counts give each resample's SD
    (:meth:`sd`).
    """

    def __init__(self, values: np.ndarray) -> None:
        n = values.size
        order = np.argsort(values, kind="stable")
        self.sorted = values[order]
        self.positions = [q * (n - 1) for q in (0.75, 0.25)]
        special = np.zeros(n, dtype=bool)
        for pos in self.positions:
            j = int(np.floor(pos))
            half = int(np.ceil(10 * np.sqrt(j * (1 - j / n)))) + 2
            special[max(0, j - half) : min(n, j + half + 2)] = True
        starts = special | np.concatenate([[True], special[:-1]])
        bin_of_rank = np.cumsum(starts) - 1
        self.n_bins = int(bin_of_rank[-1]) + 1
        self.bin_of_point = np.empty(n, dtype=np.intp)
        self.bin_of_point[order] = bin_of_rank
        self.rank_of_bin = np.full(self.n_bins + 1, -1)  # -1: a wide bin (or past the end)
        self.rank_of_bin[bin_of_rank[special]] = np.flatnonzero(special)
        self.bin_starts = np.flatnonzero(starts)
        self.order = order
        self.centred = self.sorted - self.sorted.mean()

    def counts(self, idx: np.ndarray) -> np.ndarray:
        """Draw counts of each sorted value per replicate (rows of ``idx``), shape (k, n),
        as floating-point numbers (exact: integers far below 2^53)."""
        out = np.empty(idx.shape)
        for b, row in enumerate(idx):  # one bincount per replicate, in cache
            out[b] = np.bincount(row, minlength=idx.shape[1])[self.order]
        return out

    def sd(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """SD (``ddof=1``) of each resample from its draw counts, and which are constant.

        ``S1 = sum c_i v_i`` and ``S2 = sum c_i v_i^2`` with ``v`` the data centred on
        the full-data mean (so ``S1^2 / n`` is small against ``S2``: no cancellation),
        ``var = (S2 - S1^2 / n) / (n - 1)``. A constant resample has a computed SD of at
        most about ``sqrt(2 n eps) max |v|`` (rounding of the two sums); only resamples
        below ``1e-4 max |v|`` are checked exactly (smallest drawn value equal to the
        largest).
        """
        n = counts.shape[1]
        sums = counts @ np.stack([self.centred, self.centred * self.centred], axis=1)
        sd = np.sqrt(np.maximum(sums[:, 1] - sums[:, 0] ** 2 / n, 0.0) / (n - 1))
        constant = np.zeros(sd.size, dtype=bool)
        for b in np.flatnonzero(~(sd > 1e-4 * np.abs(self.centred).max())):
            drawn = np.flatnonzero(counts[b])
            constant[b] = self.sorted[drawn[0]] == self.sorted[drawn[-1]]
        return sd, constant

    def __call__(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """75th and 25th percentiles of each resample from its draw counts."""
        n = counts.shape[1]
        cum = np.cumsum(np.add.reduceat(counts, self.bin_starts, axis=1), axis=1)
        out = []
        for q, pos in zip((0.75, 0.25), self.positions, strict=True):
            j = int(np.floor(pos))
            stats = []
            for jj in (j, min(j + 1, n - 1)):
                rank = self.rank_of_bin[np.count_nonzero(cum <= jj, axis=1)]
                stats.append((self.sorted[rank], rank >= 0))
            (low, ok_low), (high, ok_high) = stats
            value = low + (high - low) * (pos - j)
            for b in np.flatnonzero(~(ok_low & ok_high)):
                value[b] = np.percentile(np.repeat(self.sorted, counts[b].astype(np.intp)),
                                         100 * q)
            out.append(value)
        return out[0], out[1]


def _log_kde_counts(s: np.ndarray, h: np.ndarray, quartiles: _ResampleQuartiles,
                    counts: np.ndarray) -> np.ndarray:
    """``log KDE`` at each score of each resample given by its draw counts: shape (k, s).

    ``h`` holds each resample's bandwidth (:func:`_resamples`). As in
    :func:`_log_kde_exact`, with ``x*`` the resample's point nearest to a score ``s`` and
    ``d = |s - x*|``, points farther than ``sqrt(d^2 + R^2 h^2)``,
    ``R^2 = 2 (ln n + 30)``, together change the density by less than ``e^-30``; all
    replicates share one window of the sorted data, wide enough for the largest ``d``
    and ``h``, and each kernel is weighted by its draw count:
    ``log KDE = -d^2 / (2 h^2) + log sum_i c_i exp((x_i - x*) (2 s - x_i - x*) / (2 h^2))``
    minus the normalisation (the difference of squares factored, so no large squares
    cancel). A resample's nearest point is searched among the ``_NEAR`` ranks on either
    side of the score (missing them all has probability about ``exp(-_NEAR)``); if it is
    not settled there, that replicate's density at that
    score is the exact windowed sum over its resample.
    """
    k, n = counts.shape
    xs = quartiles.sorted
    reach = 2.0 * (np.log(n) + 30.0)
    const = np.log(n) + np.log(h) + 0.5 * np.log(2 * np.pi)
    out = np.empty((k, s.size))
    for j, score in enumerate(s):
        pos = int(np.searchsorted(xs, score))
        lo, hi = max(0, pos - _NEAR), min(n, pos + _NEAR)
        drawn = counts[:, lo:hi] > 0
        below, above = drawn[:, : pos - lo], drawn[:, pos - lo :]
        # distance to the nearest drawn point on each side; beyond the band, a lower bound
        d_below = np.full(k, np.inf if lo == 0 else score - xs[lo - 1])
        d_above = np.full(k, np.inf if hi == n else xs[hi] - score)
        near_below = near_above = np.zeros(k)
        found_below, found_above = below.any(axis=1), above.any(axis=1)
        if below.shape[1]:
            near_below = xs[pos - 1 - np.argmax(below[:, ::-1], axis=1)]
            d_below = np.where(found_below, score - near_below, d_below)
        if above.shape[1]:
            near_above = xs[pos + np.argmax(above, axis=1)]
            d_above = np.where(found_above, near_above - score, d_above)
        d = np.minimum(d_below, d_above)
        settled = np.where(d_below <= d_above, found_below, found_above)
        ok = np.flatnonzero(settled)
        if ok.size:
            radius = np.sqrt(np.max(d[ok]) ** 2 + reach * np.max(h[ok]) ** 2)
            w_lo = int(np.searchsorted(xs, score - radius, side="left"))
            w_hi = int(np.searchsorted(xs, score + radius, side="right"))
            x = xs[w_lo:w_hi]
            near = np.where(d_below <= d_above, near_below, near_above)[ok, None]
            # -((x - s)^2 - d^2) / (2 h^2), the difference of squares factored
            e = (x - near) * (2.0 * score - near - x)
            e *= (0.5 / h[ok] ** 2)[:, None]
            np.minimum(e, 0.0, out=e)  # undrawn points nearer than d (weight 0) stay finite
            np.exp(e, out=e)
            e *= counts[ok, w_lo:w_hi]
            out[ok, j] = np.log(e.sum(axis=1)) - 0.5 * (d[ok] / h[ok]) ** 2 - const[ok]
        for b in np.flatnonzero(~settled):
            resample = np.repeat(xs, counts[b].astype(np.intp))
            out[b, j] = _log_kde_exact(np.array([score]), resample, h[b])[0]
    return out
