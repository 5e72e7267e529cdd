"""Benchmark: 1000-replicate bootstrap intervals of all metrics as a ratio to one `evaluate`.

Targets (10^6 trials, 10 % SS, 1000 replicates): the trial bootstrap of Cllr, minCllr,
Cllr_cal, EER, AUC, RMEP and RMED in at most 100 times one `evaluate` call on the same
data, and the paired comparison of two systems in at most 2 times that bootstrap.
Three rounds, each timing `evaluate`, the bootstrap and the paired comparison in turn
(so all see the same machine load); the median ratio of the three rounds is printed with
its range, once with the replicates on one thread (``workers=1``) and once on every core
(the default). The load average is printed at the start and the end.
Also timed once: the source bootstrap (10^6 trials, SS within and DS between 1000
sources) and the naive loop (resample, then `evaluate`) on a few replicates.
Run: python benchmarks/bench_validation_stats.py [--n-trials 1000000] [--replicates 1000]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from timing import best_of, elapsed

from forensic_lr.metrics import evaluate
from forensic_lr.validation import bootstrap_metrics, compare_systems


def data(n_trials: int, n_sources: int, seed: int = 0):
    """10 % SS trials within sources, 90 % DS trials between two different sources."""
    rng = np.random.default_rng(seed)
    n_ss = n_trials // 10
    n_ds = n_trials - n_ss
    ss_src = rng.integers(0, n_sources, n_ss)
    a = rng.integers(0, n_sources, n_ds)
    b = (a + rng.integers(1, n_sources, n_ds)) % n_sources  # b != a
    ss = rng.normal(3.0, np.sqrt(6.0), n_ss)
    ds = rng.normal(-3.0, np.sqrt(6.0), n_ds)
    return ss, ds, ss_src, np.column_stack([a, b])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-trials", type=int, default=1_000_000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--sources", type=int, default=1000)
    args = parser.parse_args()
    ss, ds, ss_src, ds_src = data(args.n_trials, args.sources)
    n = args.replicates
    print(f"{args.n_trials} trials ({ss.size} SS, {ds.size} DS), {n} replicates, "
          f"{os.cpu_count()} cores, load average {_load()}")

    def ratio(label, fn, per: int = n, runs: int = 1) -> None:
        """Print the ratio; with ``runs > 1`` the median and range of that many runs, each
        with its own `evaluate` timing (this VM's speed drifts between runs)."""
        found = []
        for _ in range(runs):
            before = best_of(lambda: evaluate(ss, ds), repeat=3)
            seconds = elapsed(fn)
            after = best_of(lambda: evaluate(ss, ds), repeat=3)
            one = min(before, after)
            found.append((seconds * n / per / one, seconds, one))
        found.sort()
        value, seconds, one = found[len(found) // 2]
        spread = f" (median of {runs}: {found[0][0]:.0f}-{found[-1][0]:.0f}x)" if runs > 1 else ""
        print(f"{label:<44} {seconds:8.2f} s   evaluate {one * 1e3:6.1f} ms   "
              f"ratio {value:7.1f}x" + (f" (x{n // per} extrapolated)" if per != n else "")
              + spread)

    noisy_ss = ss + np.random.default_rng(2).normal(0, 1, ss.size)
    noisy_ds = ds + np.random.default_rng(3).normal(0, 1, ds.size)
    for workers in (1, None):
        rounds = []
        for _ in range(3):
            one = best_of(lambda: evaluate(ss, ds), repeat=3)
            single = elapsed(lambda w=workers: bootstrap_metrics(ss, ds, n=n, seed=1, workers=w))
            paired = elapsed(lambda w=workers: compare_systems(
                ss, ds, noisy_ss, noisy_ds, n=n, seed=1, workers=w))
            one = min(one, best_of(lambda: evaluate(ss, ds), repeat=3))
            rounds.append((single / one, paired / single, single, paired, one))
        label = "1 thread" if workers == 1 else f"{os.cpu_count()} threads"
        for j, what in ((0, "trial bootstrap / evaluate"), (1, "paired comparison / bootstrap")):
            values = sorted(r[j] for r in rounds)
            middle = sorted(rounds, key=lambda r: r[j])[1]
            print(f"{what + ', ' + label:<46} ratio {values[1]:7.2f}x (median of 3: "
                  f"{values[0]:.2f}-{values[2]:.2f}x)   bootstrap {middle[2]:.2f} s, paired "
                  f"{middle[3]:.2f} s, evaluate {middle[4] * 1e3:.1f} ms")
    ratio(
        f"bootstrap by source ({args.sources} sources)",
        lambda: bootstrap_metrics(ss, ds, ss_sources=ss_src, ds_sources=ds_src, n=n, seed=1),
    )
    rng = np.random.default_rng(4)
    few = 10

    def naive() -> None:
        for _ in range(few):
            evaluate(ss[rng.integers(0, ss.size, ss.size)], ds[rng.integers(0, ds.size, ds.size)])

    ratio("naive loop: resample + evaluate", naive, per=few)
    print(f"load average at the end {_load()}")


def _load() -> str:
    """The 1, 5 and 15 minute load averages (other work on the machine skews the ratios)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
