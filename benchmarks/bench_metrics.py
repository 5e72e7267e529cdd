"""Benchmark: `evaluate` and `min_cllr` against np.sort of the same data and against peers.

Prints, from one run: the time of `forensic_lr.evaluate` on 10^5, 10^6 and 10^7 trials
(10 % same-source, Gaussian LLRs) as a ratio to `np.sort` of the pooled array (the floor:
any exact rank-based metric sorts once; the two are timed alternately, best of 5, so that
both see the same machine load), and `min_cllr` against lir's `cllr_min` and a
scikit-learn IsotonicRegression-based minimum Cllr, plus peak memory of `evaluate`;
at 10^6 trials also the checks that values given as LLRs look like LLRs and the ELUB
bounds, as ratios to np.sort.
Run: python benchmarks/bench_metrics.py   (needs the `bench` extra for the peers)
"""

from __future__ import annotations

import tracemalloc

import numpy as np
from timing import best_of

from forensic_lr.calibration.elub import elub_bounds
from forensic_lr.metrics import evaluate, min_cllr
from forensic_lr.metrics.llr_checks import warn_if_not_llrs


def sklearn_min_cllr(ss, ds) -> float:
    from sklearn.isotonic import IsotonicRegression

    x = np.concatenate([ss, ds])
    y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
    w = np.concatenate([np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)])
    p = IsotonicRegression(y_min=0, y_max=1).fit(x, y, sample_weight=w).predict(x)
    with np.errstate(divide="ignore"):
        llr = np.log(p) - np.log1p(-p)
    from forensic_lr.metrics import cllr

    return cllr(llr[: ss.size], llr[ss.size :])


def lir_min_cllr():
    """lir's cllr_min on the same data (log10 LLRs in an LLRData container), or None."""
    try:
        from lir.data.models import LLRData
        from lir.metrics import cllr_min
    except ImportError:
        return None

    def run(ss, ds):
        llrs = np.concatenate([ss, ds]) / np.log(10)
        y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
        return cllr_min(LLRData(features=llrs, labels=y))

    return run


def interleaved(fn_a, fn_b, repeat: int = 5) -> tuple[float, float]:
    """Best-of times of two functions run alternately, so that both see the same load."""
    times_a, times_b = [], []
    for _ in range(repeat):
        times_a.append(best_of(fn_a, repeat=1))
        times_b.append(best_of(fn_b, repeat=1))
    return min(times_a), min(times_b)


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'trials':>10} {'np.sort ms':>11} {'evaluate ms':>12} {'ratio':>6} {'peak MB':>8}")
    for n in (10**5, 10**6, 10**7):
        n_ss = n // 10
        ss, ds = rng.normal(2.0, 2.0, n_ss), rng.normal(-2.0, 2.0, n - n_ss)
        pooled = np.concatenate([ss, ds])
        floor, t = interleaved(
            lambda pooled=pooled: np.sort(pooled), lambda ss=ss, ds=ds: evaluate(ss, ds)
        )
        tracemalloc.start()
        evaluate(ss, ds)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(f"{n:>10} {floor * 1e3:>11.1f} {t * 1e3:>12.1f} {t / floor:>6.1f} {peak:>8.0f}")

    n = 10**6
    ss, ds = rng.normal(2.0, 2.0, n // 10), rng.normal(-2.0, 2.0, n - n // 10)
    floor, checks = interleaved(lambda: np.sort(np.concatenate([ss, ds])),
                                lambda: warn_if_not_llrs(ss, ds))
    _, elub = interleaved(lambda: None, lambda: elub_bounds(ss, ds))
    print(f"\nat {n} trials, ratio to np.sort ({floor * 1e3:.1f} ms):")
    print(f"  checks of values given as LLRs (one pass)  {checks * 1e3:8.1f} ms  "
          f"{checks / floor:6.2f}x")
    print(f"  ELUB bounds (sort + searchsorted)          {elub * 1e3:8.1f} ms  "
          f"{elub / floor:6.2f}x")
    floor, ours = interleaved(lambda: np.sort(np.concatenate([ss, ds])), lambda: min_cllr(ss, ds))
    print(f"\nmin_cllr at {n} trials, ratio to np.sort ({floor * 1e3:.1f} ms):")
    print(f"  forensic-lr min_cllr        {ours * 1e3:8.1f} ms  {ours / floor:6.1f}x")
    try:
        t = best_of(lambda: sklearn_min_cllr(ss, ds), repeat=1)
        same = abs(sklearn_min_cllr(ss, ds) - min_cllr(ss, ds)) < 1e-9
        label = "  scikit-learn isotonic      "
        print(f"{label} {t * 1e3:8.1f} ms  {t / floor:6.1f}x  (same value: {same})")
    except ImportError:
        print("  scikit-learn not available")
    run = lir_min_cllr()
    if run is None:
        print("  lir not available")
    else:
        t = best_of(lambda: run(ss, ds), repeat=1)
        print(
            f"  lir cllr_min                {t * 1e3:8.1f} ms  {t / floor:6.1f}x  "
            f"(value {run(ss, ds):.6f} vs ours {min_cllr(ss, ds):.6f})"
        )


if __name__ == "__main__":
    main()
