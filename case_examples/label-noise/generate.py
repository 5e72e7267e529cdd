"""Generate the synthetic data of this example (deterministic: fixed seed).

Model (conditional error model): 4000 book reviews, a share PI of them truly
negative ("class 1" of the paper's ROMIP 2012 table, the positive class here). Three
assessors A, B, C label each review independently given its true class: a truly positive
review is labelled negative with probability ALPHA, a truly negative one positive with
probability BETA (the paper's EM estimates for that class). Assessor C labelled only a
random 60 % of the reviews. An automatic classifier with true recall 0.80 and a false
positive rate of 0.04 labels every review. Run from this folder:

    python generate.py

Writes judgements.csv (item, A, B, C; blank = not judged) and evaluation.csv (item, system,
truth): the classifier's labels and, for checking the correction only, the true labels.
"""

from pathlib import Path

import numpy as np

N = 4000
PI, ALPHA, BETA = 0.10, 0.12, 0.01  # Vasil'ev's paper, ROMIP 2012, 2 classes, class 1
RECALL, FALSE_POSITIVE_RATE = 0.80, 0.04
SEED = 20261123


def main() -> None:
    here = Path(__file__).parent
    rng = np.random.default_rng(SEED)
    truth = (rng.random(N) < PI).astype(int)
    u = rng.random((N, 3))
    judged = np.where(truth[:, None] == 1, u >= ALPHA, u < BETA).astype(int)
    judged_c = rng.random(N) < 0.6
    system = np.where(truth == 1, rng.random(N) < RECALL, rng.random(N) < FALSE_POSITIVE_RATE)
    rows = ["item,A,B,C"]
    for i in range(N):
        c = str(judged[i, 2]) if judged_c[i] else ""
        rows.append(f"r{i + 1:04d},{judged[i, 0]},{judged[i, 1]},{c}")
    (here / "judgements.csv").write_text("\n".join(rows) + "\n")
    rows = ["item,system,truth"]
    rows += [f"r{i + 1:04d},{int(system[i])},{truth[i]}" for i in range(N)]
    (here / "evaluation.csv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
