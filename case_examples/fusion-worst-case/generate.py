"""Make the synthetic data and reproduce the method's simulation study for this example.

Run from this folder: ``python generate.py`` (seed 20261123; the outputs are committed).

* ``decisions.csv``, ``labels.csv``: 400 comparisons (200 same-source = positive, 200
  different-source = negative) judged by three binary modules ``minutiae``, ``texture`` and
  ``candidate``; each module is right with a fixed per-class probability, and the two
  established modules share a common "hard item" factor so that they err together.
* ``fuser_table.csv``: the lab's fusion rule ``minutiae OR (texture AND candidate)`` as data.
* ``counts.json``: case (a) -- intervened counts from the lab's system validation set
  (1000 + 1000 comparisons) and the candidate's confusion matrix on its own 300 + 500 set.
* ``experiment1.csv``: Experiment 1 of the worst-case method (OR fuser, accuracies 0.5,
  correlation 0.95 on positives and -0.95 on negatives, 1000 replicates per pair of data-set sizes).
* ``experiment2.json``: Experiment 2 of the worst-case method (random accuracies,
  correlations and OR/AND fuser, 10000 instances per class, 100000 replicates): summary of
  EvalReal / PeorCaso.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from forensic_lr import fusion

HERE = Path(__file__).parent
SEED = 20261123


def decisions(rng: np.random.Generator) -> None:
    n = 200
    labels = np.r_[np.ones(n, bool), np.zeros(n, bool)]
    hard = rng.random(2 * n) < 0.2  # items on which the established modules struggle
    acc = {"minutiae": (0.85, 0.45), "texture": (0.80, 0.50), "candidate": (0.80, 0.80)}
    cols = {}
    for name, (easy, on_hard) in acc.items():
        p_right = np.where(hard & (name != "candidate"), on_hard, easy)
        right = rng.random(2 * n) < p_right
        cols[name] = np.where(labels, right, ~right)  # says positive
    with open(HERE / "decisions.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(cols))
        w.writerows(np.column_stack(list(cols.values())).astype(int).tolist())
    with open(HERE / "labels.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["same_source"])
        w.writerows([[int(v)] for v in labels])
    with open(HERE / "fuser_table.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["minutiae", "texture", "candidate", "fused"])
        for m in (0, 1):
            for t in (0, 1):
                for c in (0, 1):
                    w.writerow([m, t, c, int(m or (t and c))])


def counts() -> None:
    data = {
        "system_pos": {"tp": 940, "fn": 60, "fp": 210, "tn": 790},
        "system_neg": {"tp": 780, "fn": 220, "fp": 40, "tn": 960},
        "model": {"tp": 255, "fn": 45, "fp": 60, "tn": 440},
    }
    (HERE / "counts.json").write_text(json.dumps(data, indent=2) + "\n")


def experiment1() -> None:
    sizes = [10, 30, 100, 300, 1000, 3000, 10000]
    with open(HERE / "experiment1.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n_system", "n_model", "p_worst_ge_real", "standard_error"])
        for i, ns in enumerate(sizes):
            for j, nm in enumerate(sizes):
                r = fusion.simulate_worst_case(ns, nm, n_rep=1000, seed=SEED + 100 * i + j)
                w.writerow([ns, nm, f"{r.p_worst_ge_real:.3f}", f"{r.standard_error:.3f}"])


def experiment2() -> None:
    kw = fusion.random_scenarios(100_000, seed=SEED)
    r = fusion.simulate_worst_case(10_000, 10_000, n_rep=100_000, seed=SEED + 1, **kw)
    (HERE / "experiment2.json").write_text(json.dumps(r.to_dict(), indent=2) + "\n")


if __name__ == "__main__":
    decisions(np.random.default_rng(SEED))
    counts()
    experiment1()
    experiment2()
