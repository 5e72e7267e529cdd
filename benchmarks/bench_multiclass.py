"""Benchmark: fitting TS and EC temperatures on 10^5 x 100 logits.

Times are reported as ratios to one softmax pass over the same array (the floor: any
method must look at every logit at least once). Targets: TS <= 30x, EC <= 15x.
Run: python benchmarks/bench_multiclass.py
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax
from timing import best_of

from forensic_lr.studies.multiclass import ExpectationConsistentTemperature, TemperatureScaling


def main() -> None:
    rng = np.random.default_rng(0)
    n, k = 100_000, 100
    labels = rng.integers(0, k, n)
    features = rng.normal(size=(n, k))
    features[np.arange(n), labels] += 3.0
    logits = 2.0 * 3.0 * features  # over-confident by a factor 2
    floor = best_of(lambda: softmax(logits, axis=1))
    print(f"logits {n} x {k}; one softmax pass (scipy.special.softmax): {floor * 1e3:.1f} ms")
    print(f"{'method':<6} {'T':>8} {'time ms':>9} {'ratio':>7} {'target':>7}")
    for name, method, target in (
        ("TS", TemperatureScaling, 30),
        ("EC", ExpectationConsistentTemperature, 15),
    ):
        fitted = method().fit(logits, labels)
        t = best_of(lambda m=method: m().fit(logits, labels))
        print(f"{name:<6} {fitted.temperature_:8.4f} {t * 1e3:9.1f} {t / floor:7.1f} {target:>6}x")


if __name__ == "__main__":
    main()
