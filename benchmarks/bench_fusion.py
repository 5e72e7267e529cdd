"""Benchmark: the simulation study of the worst-case method and the worst case from 10^6 decisions.

Times are ratios to a floor: for the simulation, one ``rng.multinomial`` draw of the same
shape (n_rep x 4; the study needs four) and one ``rng.random`` draw of n_rep x 4 numbers;
for decisions, one pass over the decision array (``d.sum(axis=0)``).
Targets: simulation <= 8x the multinomial floor; decisions <= 10x the pass.
Run: python benchmarks/bench_fusion.py
"""

from __future__ import annotations

import numpy as np
from timing import best_of

from forensic_lr import fusion


def main() -> None:
    n_rep = 100_000  # the method's Experiment 2
    kw = fusion.random_scenarios(n_rep, seed=0)
    probs = fusion.joint_correct_probabilities(kw["acc_pos"][:, 0], kw["acc_pos"][:, 1],
                                               kw["rho_pos"])  # fmt: skip
    rng = np.random.default_rng(0)
    floor_mn = best_of(lambda: rng.multinomial(10_000, probs))
    floor_rand = best_of(lambda: rng.random((n_rep, 4)))
    t_sim = best_of(lambda: fusion.simulate_worst_case(10_000, 10_000, n_rep=n_rep, **kw))
    print(f"simulation, {n_rep} replicates x 10000 instances per class and data set")
    print(f"  floor rng.multinomial (n_rep x 4): {floor_mn * 1e3:8.1f} ms")
    print(f"  floor rng.random (n_rep x 4):      {floor_rand * 1e3:8.1f} ms")
    print(f"  simulate_worst_case:               {t_sim * 1e3:8.1f} ms  "
          f"ratio {t_sim / floor_mn:.1f}x multinomial (target 8x), "
          f"{t_sim / floor_rand:.0f}x random")  # fmt: skip

    n, k = 1_000_000, 5
    d = rng.random((n, k)) < 0.6
    y = rng.random(n) < 0.5
    names = [f"m{i}" for i in range(k)]
    floor = best_of(lambda: d.sum(axis=0))
    t = best_of(lambda: fusion.worst_case_from_decisions(d, y, names, "m2", "majority"))
    print(f"decisions {n} x {k}, majority fuser")
    print(f"  floor d.sum(axis=0): {floor * 1e3:8.1f} ms")
    print(f"  worst_case_from_decisions: {t * 1e3:8.1f} ms  ratio {t / floor:.1f}x (target 10x)")


if __name__ == "__main__":
    main()
