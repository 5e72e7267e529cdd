"""Generate the synthetic logits of this example (deterministic: fixed seed).

Model: an item of class y has features u ~ N(a * e_y, I_K). The Bayes posterior is then
softmax(a * u), so logits z = c * a * u come from a classifier that is over-confident
by the factor c: its ideal temperature is T = c. Run from this folder:

    python generate.py
"""

from pathlib import Path

import numpy as np

K = 20  # candidate sources
SEPARATION = 2.4  # a
OVERCONFIDENCE = 1.5  # c, the temperature that calibrates the logits
SEED = 20261123


def simulate(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, K, n)
    features = rng.normal(size=(n, K))
    features[np.arange(n), labels] += SEPARATION
    return OVERCONFIDENCE * SEPARATION * features, labels


def main() -> None:
    here = Path(__file__).parent
    rng = np.random.default_rng(SEED)
    for split, n in (("val", 1500), ("test", 1500)):
        logits, labels = simulate(rng, n)
        header = ",".join(f"class_{k}" for k in range(K))
        np.savetxt(here / f"{split}_logits.csv", logits, fmt="%.2f", delimiter=",",
                   header=header, comments="")
        np.savetxt(here / f"{split}_labels.csv", labels, fmt="%d", header="label", comments="")


if __name__ == "__main__":
    main()
