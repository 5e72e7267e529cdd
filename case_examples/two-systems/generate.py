"""Generate the synthetic LLRs of this example (deterministic: fixed seed).

Model: 40 speakers with 4 recordings each. Same-source (SS) trials compare two recordings
of one speaker (6 per speaker, 240 in all); different-source (DS) trials compare one
recording of each of two speakers (one per pair of speakers, 780 in all). Each speaker
has an effect ``u ~ N(0, 1)`` shared by all its trials (some voices are harder), so
trials of one speaker are not independent. Two systems score every trial:

* ``new``: well calibrated, ``llr = +-mu + u + e`` with ``mu = 3``, ``e ~ N(0, 2)``;
* ``old``: weaker and overconfident, ``llr = 1.6 * (+-1.5 + u + e')``, ``e' ~ N(0, 2)``.

Run from this folder: ``python generate.py``. Writes new.csv (trials in id order) and
old.csv (the same trials, sorted by the old system's LLR, as many systems write them);
both have the columns trial, label, score, source_a, source_b.
"""

from itertools import combinations
from pathlib import Path

import numpy as np

SPEAKERS, RECORDINGS, SEED = 40, 4, 20261123


def trials(rng):
    """(label, source_a, source_b) of every trial and each speaker's effect."""
    effect = rng.normal(0.0, 1.0, SPEAKERS)
    rows = [("ss", s, s) for s in range(SPEAKERS) for _ in combinations(range(RECORDINGS), 2)]
    rows += [("ds", a, b) for a, b in combinations(range(SPEAKERS), 2)]
    return rows, effect


def main() -> None:
    here = Path(__file__).parent
    rng = np.random.default_rng(SEED)
    rows, effect = trials(rng)
    sign = np.array([1.0 if label == "ss" else -1.0 for label, _, _ in rows])
    shared = np.array([(effect[a] + effect[b]) / 2 for _, a, b in rows]) * sign
    new = 3.0 * sign + shared + rng.normal(0.0, np.sqrt(2.0), sign.size)
    old = 1.6 * (1.5 * sign + shared + rng.normal(0.0, np.sqrt(2.0), sign.size))
    for name, llr, order in (("new", new, range(sign.size)), ("old", old, np.argsort(old))):
        lines = ["trial,label,score,source_a,source_b"]
        for i in order:
            label, a, b = rows[i]
            lines.append(f"t{i + 1:04d},{label},{llr[i]:.4f},spk{a + 1:02d},spk{b + 1:02d}")
        (here / f"{name}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
