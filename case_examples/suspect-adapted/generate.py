"""Generate the synthetic data of the suspect-adapted worked case (deterministic).

Run from anywhere: ``python case_examples/suspect-adapted/generate.py``. The files are
rewritten byte for byte identical (seed 1600). The data are synthetic: they illustrate
the method and come from no real casework.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _write(path: Path, values: np.ndarray) -> None:
    """One score per line, four decimals (the resolution of the simulated system)."""
    path.write_text("".join(f"{v:.4f}\n" for v in values), encoding="utf-8")


def suspect_adapted() -> None:
    """Population voice scores plus 8 same-speaker scores of the suspect's own calls.

    The suspect's scores are lower and less spread than the population's same-speaker
    scores (his calls were recorded through a noisier channel than the background's).
    """
    rng = np.random.default_rng(1600)
    _write(HERE / "ss.csv", rng.normal(5.5, 0.6, 300))
    _write(HERE / "ds.csv", rng.normal(3.4, 0.65, 3000))
    _write(HERE / "suspect_ss.csv", rng.normal(4.7, 0.45, 8))


if __name__ == "__main__":
    suspect_adapted()
