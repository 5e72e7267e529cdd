"""Benchmark: the metric bootstrap engine against the plain loop, at casework sizes.

Prints, from one run, for each size (SS / DS trials): the time of ``bootstrap_metrics``
(all seven metrics, ``workers=1``) and of the plain loop that defines it (draw each class
with replacement, then ``forensic_lr.evaluate`` on the resampled arrays: the tests'
reference, ``_looped_intervals`` in ``tests/validation/test_bootstrap_exactness.py``),
each as a ratio to one ``evaluate`` of the data (the floor: ``B`` replicates cost ``B``
times it unless they share work, which the engine does), and the engine's speed-up over
the loop. The three are timed alternately and the best of each over the rounds is kept,
so all see the same machine load. The loop runs on a tenth of the replicates, scaled up.
Run: python benchmarks/bench_bootstrap_engine.py [--replicates 1000] [--sizes 100/1000,...]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from timing import best_of, elapsed

from forensic_lr.metrics import evaluate
from forensic_lr.validation import bootstrap_metrics

SIZES = ("100/1000", "1000/10000", "10000/100000")


def data(n_ss: int, n_ds: int, seed: int = 0):
    """Calibrated Gaussian LLRs (mean +-3, variance 6), as in the other benchmarks."""
    rng = np.random.default_rng(seed)
    return rng.normal(3.0, np.sqrt(6.0), n_ss), rng.normal(-3.0, np.sqrt(6.0), n_ds)


def plain_loop(ss, ds, n: int, seed: int = 1) -> np.ndarray:
    """The definition: resample each class with replacement, then evaluate every metric."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        rows.append(evaluate(ss[rng.integers(0, ss.size, ss.size)],
                             ds[rng.integers(0, ds.size, ds.size)]).cllr)
    return np.array(rows)


def best_times(ss, ds, n: int, few: int, rounds: int) -> tuple[float, float, float]:
    """Best of ``rounds`` alternating rounds: one ``evaluate``, the engine, the loop (scaled)."""
    floor, engine, loop = [], [], []
    for _ in range(rounds):
        floor.append(best_of(lambda: evaluate(ss, ds), repeat=5))
        engine.append(elapsed(lambda: bootstrap_metrics(ss, ds, n=n, seed=1, workers=1)))
        loop.append(elapsed(lambda: plain_loop(ss, ds, few)) * n / few)
    return min(floor), min(engine), min(loop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--sizes", default=",".join(SIZES),
                        help="comma-separated SS/DS sizes (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n, few = args.replicates, max(1, args.replicates // 10)
    print(f"{n} replicates, workers=1, {os.cpu_count()} cores, "
          f"load average {_load()}; best of {args.rounds} alternating rounds")
    print(f"{'SS / DS':>14} {'evaluate':>10} {'engine':>9} {'loop':>9} "
          f"{'engine/eval':>12} {'loop/eval':>10} {'loop/engine':>12}")
    for size in args.sizes.split(","):
        n_ss, n_ds = (int(x) for x in size.split("/"))
        one, eng, plain = best_times(*data(n_ss, n_ds), n, few, args.rounds)
        print(f"{size:>14} {one * 1e3:8.2f}ms {eng:8.3f}s {plain:8.3f}s "
              f"{eng / one:11.0f}x {plain / one:9.0f}x {plain / eng:11.1f}x")
    print(f"load average at the end {_load()}")


def _load() -> str:
    """The 1, 5 and 15 minute load averages (other work on the machine skews the ratios)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
