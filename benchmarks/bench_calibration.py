"""Benchmark: fit + 1000-replicate bootstrap interval per calibrator, 10^4 SS / 10^5 DS scores.

Each time is reported as a ratio to 1000 scikit-learn ``LogisticRegression`` fits of the
same data (a naive bootstrap of a logistic calibration). Only 20 scikit-learn fits are
timed and the time is multiplied by 50; the script says so in its output.
Targets: logistic <= 0.1x; gaussian and bayes far below.
Run: python benchmarks/bench_calibration.py [--methods gaussian,bayes,...] [--n 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import LogisticRegression

from forensic_lr.calibration import make_calibrator
from forensic_lr.uncertainty import bootstrap_interval


def sklearn_reference(ss: np.ndarray, ds: np.ndarray, fits: int = 20) -> float:
    """Seconds for ``fits`` LogisticRegression fits (balanced class weights, as prior-neutral)."""
    x = np.concatenate([ss, ds])[:, None]
    y = np.concatenate([np.ones(ss.size), np.zeros(ds.size)])
    start = time.perf_counter()
    for _ in range(fits):
        LogisticRegression(class_weight="balanced").fit(x, y)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="gaussian,bayes,logistic,pav,kde")
    parser.add_argument("--n", type=int, default=1000, help="bootstrap replicates")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(2.0, 1.0, 10_000), rng.normal(0.0, 1.2, 100_000)
    scores = np.array([-1.0, 1.0, 3.0])

    ref20 = sklearn_reference(ss, ds)
    ref = ref20 * 50
    print(f"reference: 20 sklearn LogisticRegression fits = {ref20:.2f} s, x50 -> {ref:.1f} s")
    print(f"{'method':<10}{'seconds':>10}{'ratio':>10}  (fit + {args.n}-replicate bootstrap)")
    for name in args.methods.split(","):
        start = time.perf_counter()
        make_calibrator(name).fit(ss, ds).llr(scores)
        bootstrap_interval(ss, ds, scores, make_calibrator(name), n=args.n, seed=1)
        took = time.perf_counter() - start
        print(f"{name:<10}{took:>10.2f}{took / ref:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
