"""Bootstrap refits of a calibrator: fitted once, evaluated wherever they are needed.

A calibrator that refits all bootstrap replicates at once may say so in two steps:
``bootstrap_fits(ss, ds, *, n, rng, progress=None)`` fits the ``n`` replicates on the
draws of :func:`forensic_lr.resampling.bootstrap_index_chunks` and returns a
:class:`BootstrapFits`, whose :meth:`BootstrapFits.llr` evaluates any replicates at any
scores. The ``bootstrap_llr`` hook of the calibration contract is then that evaluation
at the evidence scores (:class:`RefitsOnce`). A caller that needs the refits at many
scores, such as each replicate's ELUB bounds, which need its LLR at every background
score (:func:`forensic_lr.casework.sensitivity.background_bootstrap`), fits once and
evaluates in blocks of replicates, so the fitting work is done once and memory stays
bounded whatever the number of scores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._checks import as_score_array

__all__ = ["BootstrapFits", "RefitsOnce", "normal_pair_fits"]


@dataclass(frozen=True, eq=False)
class BootstrapFits:
    """``n`` bootstrap refits of one calibrator.

    Attributes
    ----------
    n : int
        Number of replicates.
    evaluate : callable
        ``evaluate(scores, rows)``: the LLRs of replicates ``rows`` (an integer index
        array) at ``scores`` (a float array), shape ``(len(rows), len(scores))``; NaN rows
        for replicates whose refit fails (as ``fit`` would).
    """

    n: int
    evaluate: Callable[[np.ndarray, np.ndarray], np.ndarray]

    def llr(self, scores, rows=None) -> np.ndarray:
        """LLRs of replicates ``rows`` (default: all, in order) at ``scores``."""
        index = np.arange(self.n) if rows is None else np.asarray(rows, dtype=np.intp)
        return self.evaluate(as_score_array(scores, "scores"), index)


class RefitsOnce:
    """Mixin: the ``bootstrap_llr`` hook of a calibrator that defines ``bootstrap_fits``."""

    def bootstrap_llr(self, ss, ds, scores, *, n, rng, progress=None) -> np.ndarray:
        """LLRs at ``scores`` of ``n`` bootstrap refits, all replicates at once.

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
            ``bootstrap_fits(ss, ds, n=n, rng=rng).llr(scores)``: row ``b`` equals
            ``fit`` on resample ``b`` evaluated at ``scores``; NaN where that fit fails.
        """
        fits = self.bootstrap_fits(ss, ds, n=n, rng=rng, progress=progress)  # type: ignore[attr-defined]
        return fits.llr(scores)


def normal_pair_fits(mean_ss, sd_ss, mean_ds, sd_ds, failed) -> BootstrapFits:
    """Refits with one normal density per class: ``llr = log N(s; m1, s1) - log N(s; m0, s0)``.

    The log ratio of two normal densities is a quadratic in the score,
    ``llr(s) = (a s + b) s + c`` with ``a = (1/s0^2 - 1/s1^2) / 2``,
    ``b = m1/s1^2 - m0/s0^2`` and ``c = (m0^2/s0^2 - m1^2/s1^2) / 2 + log(s0/s1)``, so each
    replicate's three coefficients are formed once and every score costs two products and
    two sums (a quarter of the arithmetic of two standardised squares on (replicates x
    scores) arrays). Replicates flagged in ``failed`` give NaN rows.
    """
    m1, s1, m0, s0 = (np.asarray(v, dtype=np.float64) for v in (mean_ss, sd_ss, mean_ds, sd_ds))
    failed = np.asarray(failed, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p0 = 1.0 / (s1 * s1), 1.0 / (s0 * s0)  # precisions
        a = 0.5 * (p0 - p1)
        b = m1 * p1 - m0 * p0
        c = 0.5 * (m0 * m0 * p0 - m1 * m1 * p1) + np.log(s0 / s1)

    def evaluate(s: np.ndarray, rows: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", over="ignore"):
            out = a[rows, None] * s
            out += b[rows, None]
            out *= s
            out += c[rows, None]
        out[failed[rows]] = np.nan
        return out

    return BootstrapFits(failed.size, evaluate)
