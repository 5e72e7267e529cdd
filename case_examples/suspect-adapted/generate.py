"""Generate the synthetic data of the suspect-adapted worked case (deterministic).

Run from anywhere: ``python case_examples/suspect-adapted/generate.py``. The files are
rewritten byte for byte identical (seed 1600). The data are synthetic: they illustrate
the method and come from no real casework.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

#: Background speakers, and same-speaker comparisons per speaker: each of 9 recordings
#: compared with the speaker's reference recording. Left out one at a time in the
#: validation, a speaker's other 8 play the suspect's 8 scores.
SPEAKERS = 40
SS_PER_SPEAKER = 9


def _rows(values: np.ndarray, *columns: list[str]) -> str:
    """CSV lines: the score with four decimals (the simulated system's resolution), then ids."""
    return "".join(
        ",".join([f"{v:.4f}", *ids]) + "\n" for v, *ids in zip(values, *columns, strict=True)
    )


def suspect_adapted() -> None:
    """Population voice scores of 40 named speakers plus 8 same-speaker scores of the suspect.

    Each speaker has his own same-speaker score level (mean N(5.5, 0.45)) and spread (SD
    0.4): pooled, the population's same-speaker scores have an SD of about 0.6, wider
    than any one speaker's, which is why adapting the model to a speaker's own scores
    helps. Different-speaker scores are N(3.4, 0.65), one for each ordered pair of
    speakers (the first compared with the second's reference). The suspect is none of
    the 40; his 8 scores are lower than most speakers' (his calls came through a noisier
    line) and spread like any one speaker's.
    """
    rng = np.random.default_rng(1600)
    names = [f"S{i + 1:02d}" for i in range(SPEAKERS)]
    level = rng.normal(5.5, 0.45, SPEAKERS)
    ss = rng.normal(np.repeat(level, SS_PER_SPEAKER), 0.4)
    first, second = np.nonzero(~np.eye(SPEAKERS, dtype=bool))
    ds = rng.normal(3.4, 0.65, first.size)
    (HERE / "ss.csv").write_text(
        "score,source\n" + _rows(ss, np.repeat(names, SS_PER_SPEAKER).tolist()),
        encoding="utf-8")
    (HERE / "ds.csv").write_text(
        "score,source_a,source_b\n"
        + _rows(ds, [names[i] for i in first], [names[i] for i in second]),
        encoding="utf-8")
    (HERE / "suspect_ss.csv").write_text(_rows(rng.normal(4.7, 0.4, 8)), encoding="utf-8")


if __name__ == "__main__":
    suspect_adapted()
