"""The bootstrap engine shared by the metric intervals and the paired comparison.

:func:`forensic_lr.validation.bootstrap_metrics` (intervals of one system's metrics) and
:func:`forensic_lr.validation.compare_systems` (paired differences of two systems) resample
the same way: the options are checked by :func:`check_options` and :func:`resolve_by`, each
system's LLRs are sorted once (:mod:`.weighted_metrics`), every replicate draws integer
weights per trial (:func:`draws`, :func:`replicate_weights`: multinomial counts by trial, or
sources drawn with replacement) and is evaluated from running totals of those weights
(:mod:`.weighted_metrics`), the replicates run serially or on a
process pool with identical rows (:func:`run_replicates`), and the interval ends come from
the replicates by the percentile or bias-corrected percentile method
(:func:`interval_bounds`). The names here are the package's own, not a user API.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np
from scipy.special import ndtr, ndtri

from ..errors import ForensicLRWarning, InputError
from ..i18n import N_
from ..i18n.messages import english
from ..parallel import default_workers, run_jobs
from ..resampling import Progress, quantile_rows, source_codes, trial_counts
from .weighted_metrics import SortedSystem, replicate_metrics

#: Bootstrap interval methods (default first) and their names in reports.
INTERVALS = {"bc": N_("bias-corrected percentile"), "percentile": N_("percentile")}


#: How each kind of resampling is described in reports and JSON.
NOTES = {
    "trial": N_(
        "Trials were resampled independently within each class. This is valid only when "
        "trials are independent; when several trials share a source the interval is too "
        "narrow (use --by source with source columns)."
    ),
    "source": N_(
        "Sources were resampled with replacement and every trial among the sampled sources "
        "was kept (a different-source trial as often as both its sources were drawn). "
        "Trials sharing a source move together, so the interval reflects the variation "
        "between sources, usually wider than a trial-level interval."
    ),
}


T = TypeVar("T")


class ResamplingWarning(ForensicLRWarning):
    """Some bootstrap replicates could not be evaluated (a class got no trial)."""


# --------------------------------------------------------------------------- input checks
def check_options(n: int, level: float, interval: str = "bc") -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"n must be a positive integer, got {n!r}; use e.g. n=1000")
    level = float(level)
    if not 0.0 < level < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1, got {level!r}; use e.g. 0.95")
    if interval not in INTERVALS:
        raise InputError(f"interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    return int(n), level


def resolve_by(by: str, ss_sources, ds_sources) -> str:
    if by not in ("auto", "trial", "source"):
        raise InputError(f"by must be 'auto', 'trial' or 'source', got {by!r}")
    has = ss_sources is not None and ds_sources is not None
    if (ss_sources is None) != (ds_sources is None):
        raise InputError("give both ss_sources and ds_sources, or neither")
    if by == "source" and not has:
        raise InputError(
            "by='source' needs source ids: add a 'source' (or 'source_a,source_b') column "
            "to the score files, or use by='trial'"
        )
    if by == "auto":
        return "source" if has else "trial"
    return by


# --------------------------------------------------------------------------- weights
def replicate_weights(by, rng, n, systems, ss_sources, ds_sources):
    """Per replicate, the trial weights of each system in its own sorted order.

    ``by="trial"``: each class resampled with replacement at its own size (counts drawn
    over the first system's sorted positions, carried to the others by the trial
    pairing; :func:`~forensic_lr.resampling.trial_counts`). ``by="source"``: source ``s``
    drawn ``m_s`` times, a trial between sources ``a`` and ``b`` weighted ``m_a`` if
    ``a == b`` and ``m_a m_b`` otherwise.

    Returns the generator and the number of sources (None for trials).
    """
    draws_from, weights, k = draws(by, rng, n, systems, ss_sources, ds_sources)
    return (weights(d) for d in draws_from(0)), k


def draws(by, rng, n, systems, ss_sources, ds_sources, carries=None):
    """The random part of :func:`replicate_weights`, and how a draw becomes weights.

    ``carries``: :func:`carry_orders` of ``systems`` when the caller has them already (they
    are computed here otherwise).

    Returns ``(draws_from, weights, k)``: ``draws_from(start)`` yields one draw per
    replicate from replicate ``start`` on (the counts in the first system's sorted order,
    or the source multiplicities), replicate ``r`` drawing from its own stream
    (:class:`_Streams`); ``weights(draw)`` gives the list of ``(c_ss, c_ds)`` of every
    system (a deterministic function, so it may run in any thread: the counts are carried
    there to the other systems' orders, or the source products formed); ``k`` is the
    number of sources (None for trials).
    """
    first = systems[0]
    n_ss, n_ds = first.cost_ss.size, first.cost_ds.size
    if by == "trial":
        carry = carry_orders(systems) if carries is None else carries
        return (_Streams(partial(_trial_draws, n_ss, n_ds), rng.bit_generator, n),
                partial(_carried, carry), None)
    codes_ss, codes_ds, k = source_codes(ss_sources, ds_sources, n_ss, n_ds)
    if k < 2:
        raise InputError(f"only {k} distinct source id; resampling by source needs at least 2")
    pairs = [
        (_second_or_one(codes_ss[s.order_ss], k), _second_or_one(codes_ds[s.order_ds], k))
        for s in systems
    ]
    return _Streams(partial(_source_draw, k), rng.bit_generator, n), partial(_products, pairs), k


def _trial_draws(n_ss: int, n_ds: int, own: np.random.Generator):
    """A trial replicate's random part: the SS and the DS counts."""
    return trial_counts(own, n_ss), trial_counts(own, n_ds)


def _carried(carry, draw) -> list:
    """``[(c_ss, c_ds)]`` of every system from a trial draw: the first system's counts,
    carried to the others' sorted orders (``carry``, :func:`carry_orders`)."""
    c_ss, c_ds = draw
    return [(c_ss, c_ds)] + [  # the indices are a permutation: no bounds to check
        (c_ss.take(p_ss, mode="wrap"), c_ds.take(p_ds, mode="wrap")) for p_ss, p_ds in carry
    ]


def _source_draw(k: int, own: np.random.Generator) -> np.ndarray:
    """A source replicate's random part: each of ``k`` sources' multiplicity, and a 1 for
    the trials whose second source is none."""
    return np.append(trial_counts(own, k), 1)


def _products(pairs, m: np.ndarray) -> list:
    """``[(w_ss, w_ds)]`` of every system: a trial between sources ``a`` and ``b`` weighs
    ``m_a m_b`` (``b`` is the extra 1 for a trial within one source)."""
    return [(m[a_ss] * m[b_ss], m[a_ds] * m[b_ds]) for (a_ss, b_ss), (a_ds, b_ds) in pairs]


@dataclass(frozen=True)
class _Streams:
    """``draws_from(start, stop=n)``: the draws of replicates ``start, ..., stop - 1``.

    Replicate ``r`` draws from the seed's bit generator jumped ``r`` times
    (``PCG64.jumped``: as if about 0.618 * 2**128 numbers had been drawn per jump, numpy's
    way of making streams that do not overlap), so a process can start at any replicate
    without drawing the ones before it, and replicate ``r`` gets the same draw however
    the replicates are shared out. A jump costs about 10 microseconds.
    """

    draw: Callable[[np.random.Generator], object]
    bits: np.random.BitGenerator
    n: int

    def __call__(self, start: int, stop: int | None = None):
        for r in range(start, self.n if stop is None else stop):
            yield self.draw(np.random.Generator(self.bits.jumped(r)))


#: Trials (SS + DS) from which the replicates are shared between processes when more
#: than one worker is asked for: below it a pool's start-up costs more than it saves
#: (measured on two cores; ``docs/dev/architecture.md``, *Processes*).
REPLICATES_IN_PROCESSES_FROM = 300_000


def run_replicates(draws_from, job, out: np.ndarray, progress: Progress | None,
                    workers: int, beside: Callable[[], T] | None = None) -> T | None:
    """``out[r] = job(draw_r)`` for every replicate, the same rows however it is shared out.

    ``beside``: one more job without arguments (the point estimates), run in this process
    before the replicates; its value is returned.

    With ``workers > 1`` (and at least :data:`REPLICATES_IN_PROCESSES_FROM` trials, which
    the caller checks), the replicates are cut into chunks (:func:`_chunks`) shared
    between this process and a pool (:func:`~forensic_lr.parallel.run_jobs`): whichever
    process is free takes the next chunk, so the processes finish together even when a
    core is shared with other work. Every chunk draws its replicates' own streams
    (:class:`_Streams`), and ``job`` is deterministic, so the rows are identical to a
    serial run. ``draws_from`` and ``job`` must then be picklable.
    """
    n = out.shape[0]
    if workers <= 1:
        estimate = None if beside is None else beside()
        for r, draw in enumerate(draws_from(0)):
            out[r] = job(draw)
            if progress is not None:
                progress(r + 1, n)
        return estimate
    bounds = _chunks(n, workers)
    jobs = {"beside": beside if beside is not None else _nothing}
    jobs.update({str(i): partial(_chunk, draws_from, job, int(bounds[i]), int(bounds[i + 1]),
                                 out.shape[1:]) for i in range(bounds.size - 1)})

    def chunks_done(done: int, total: int) -> None:
        if progress is not None:
            progress(round(n * (done - 1) / (total - 1)), n)

    values = run_jobs(jobs, workers, progress=chunks_done)
    for i in range(bounds.size - 1):
        out[bounds[i] : bounds[i + 1]] = values[str(i)]
    return values["beside"]


def _nothing() -> None:
    """No point estimate to run beside the replicates."""


def _chunk(draws_from, job, start: int, stop: int, shape: tuple[int, ...]) -> np.ndarray:
    """The rows of replicates ``start, ..., stop - 1``."""
    rows = np.empty((stop - start, *shape))
    for r, draw in enumerate(draws_from(start, stop)):
        rows[r] = job(draw)
    return rows


def _chunks(n: int, processes: int) -> np.ndarray:
    """Bounds of the chunks of ``n`` replicates that the processes take one at a time.

    32 chunks per process (none empty): at 10^6 trials a chunk of 1000 / 64 replicates
    takes about 40 ms, so the processes finish within about that of each other.
    """
    return np.linspace(0, n, min(n, 32 * processes) + 1).round().astype(int)


def replicate_workers(workers: int | None, trials: int) -> int:
    """Processes for the replicates: ``None`` means every core; 1 below
    :data:`REPLICATES_IN_PROCESSES_FROM` trials."""
    if workers is None:
        workers = default_workers()
    elif isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InputError(f"workers must be a positive integer or None, got {workers!r}")
    return int(workers) if trials >= REPLICATES_IN_PROCESSES_FROM else 1


def metrics_of_draw(system: SortedSystem, weights, draw) -> np.ndarray:
    """The metrics of one replicate of one system from its draw."""
    return replicate_metrics(system, *weights(draw)[0])


def carry_orders(systems) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per system after the first, the SS and DS indices ``p`` with ``weights = first's
    weights[p]`` in that system's sorted order (:func:`_carry`)."""
    first = systems[0]
    return [(_carry(first.order_ss, s.order_ss), _carry(first.order_ds, s.order_ds))
            for s in systems[1:]]


def _carry(order_from: np.ndarray, order_to: np.ndarray) -> np.ndarray:
    """Index ``p`` with ``weights_to = weights_from[p]`` for the same trials."""
    position = np.empty(order_from.size, dtype=np.intp)
    position[order_from] = np.arange(order_from.size)
    return position[order_to]


def _second_or_one(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Source codes ``a`` and ``b`` with ``b`` set to ``k`` (a count of 1) when ``a == b``."""
    a, b = codes[:, 0], codes[:, 1]
    return a, np.where(a == b, k, b)


def interval_bounds(
    samples: np.ndarray, estimates, level: float, interval: str
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Interval of each column of the replicates, ignoring NaN rows, safe with +-inf.

    ``"percentile"``: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles. ``"bc"``:
    the quantiles at :func:`_bc_levels` instead, unless both levels fall below ``1/B``
    or both above ``1 - 1/B`` (the estimate lies so far beyond the ``B`` replicates that
    the corrected interval would shrink to the extreme replicate): then the percentile
    interval is kept and the column is listed in the third return value. Quantiles are
    those of the LR intervals (``resampling.quantile_rows``: Hyndman & Fan type 7, safe
    with +-inf).
    """
    alpha = 1.0 - level
    low, high = np.full(samples.shape[1], np.nan), np.full(samples.shape[1], np.nan)
    kept_percentile = []
    for j in range(samples.shape[1]):
        column = np.sort(samples[~np.isnan(samples[:, j]), j])
        if not column.size:
            continue
        levels = (alpha / 2, 1 - alpha / 2)
        if interval == "bc" and not math.isnan(estimates[j]):
            corrected = _bc_levels(column, float(estimates[j]), alpha)
            if corrected[1] >= 1 / column.size and corrected[0] <= 1 - 1 / column.size:
                levels = corrected
            else:
                kept_percentile.append(j)
        low[j], high[j] = (float(quantile_rows(column, q)) for q in levels)
    return low, high, kept_percentile


def percentile_kept(names, kept: list[int]) -> tuple[str, ...]:
    """Warning text for the metrics whose bias-corrected interval could not be read
    (``names``: as reports print them, e.g. "Cllr_cal")."""
    if not kept:
        return ()
    return (english("warning.percentile_kept", metrics=", ".join(names[j] for j in kept)),)


def _bc_levels(column: np.ndarray, estimate: float, alpha: float) -> tuple[float, float]:
    """Efron's bias-corrected percentile levels ``Phi(2 z0 -+ z_{1-alpha/2})``.

    ``z0 = Phi^-1(p)`` with ``p`` the share of the (sorted) replicates below the
    estimate, ties counted half, kept within ``[1/(2B), 1 - 1/(2B)]``; ``z0 = 0`` (half the
    replicates below) gives the plain percentile interval [1]_.

    References
    ----------
    .. [1] B. Efron, "Nonparametric standard errors and confidence intervals", Canadian
       Journal of Statistics 9 (1981) 139-158; Efron & Tibshirani (1993), sec. 14.3.
    """
    size = column.size
    below = np.searchsorted(column, estimate, side="left")
    ties = np.searchsorted(column, estimate, side="right") - below
    share = min(max((below + 0.5 * ties) / size, 0.5 / size), 1.0 - 0.5 / size)
    z0, z = float(ndtri(share)), float(ndtri(1.0 - alpha / 2))
    return float(ndtr(2 * z0 - z)), float(ndtr(2 * z0 + z))


def invalid_warning(n_valid: int, n: int) -> tuple[str, ...]:
    if n_valid == n:
        return ()
    text = english("warning.replicates_left_out", left=str(n - n_valid), n=str(n))
    warnings.warn(text, ResamplingWarning, stacklevel=3)
    return (text,)
