"""Benchmark: EM estimation of assessor error rates from 10^6 items x 3 duplicate judgements.

The time of :func:`forensic_lr.studies.label_noise.estimate_error_rates` (input checks, one pass to
count judgement patterns, then EM iterations on the pattern counts) is reported as a ratio
to a floor: one ``np.bincount`` pass over 10^6 integer codes, the least any method that
looks at every item must do. Target: ratio <= 25 (the validation, NaN handling and row sums
over a 10^6 x 3 float table are a few passes each; the EM iterations cost O(patterns)).
Run: python benchmarks/bench_label_noise.py
"""

from __future__ import annotations

import numpy as np
from timing import best_of

from forensic_lr.studies.label_noise import estimate_error_rates


def main() -> None:
    rng = np.random.default_rng(0)
    n, m, pi, alpha, beta = 1_000_000, 3, 0.1, 0.12, 0.01  # Vasil'ev's 2-class ROMIP row
    truth = rng.random(n) < pi
    u = rng.random((n, m))
    judgements = np.where(truth[:, None], u >= alpha, u < beta).astype(float)
    drop = rng.random((n, m)) < 0.1  # 10 % of the 2nd and 3rd judgements missing
    drop[:, 0] = False  # every item keeps its first judgement
    judgements[drop] = np.nan
    codes = rng.integers(0, 16, n)
    floor = best_of(lambda: np.bincount(codes, minlength=16))
    est = estimate_error_rates(judgements)
    t = best_of(lambda: estimate_error_rates(judgements))
    print(f"{n} items x {m} assessors; floor (one np.bincount of {n} ints): {floor * 1e3:.2f} ms")
    print(
        f"EM: {t * 1e3:.1f} ms, ratio {t / floor:.1f} (target <= 25); "
        f"{est.n_iter} iterations on {len(est.patterns)} patterns; "
        f"alpha = {est.alpha:.4f}, beta = {est.beta:.4f}, pi = {est.prevalence:.4f}"
    )


if __name__ == "__main__":
    main()
