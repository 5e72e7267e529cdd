"""Generate the synthetic background data of the worked cases (deterministic).

Run from anywhere: ``python case_examples/generate.py``. Each case has its own
fixed seed; the files are rewritten byte for byte identical. The data are
synthetic: they illustrate the method and come from no real casework.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _write(path: Path, values: np.ndarray) -> None:
    """One score per line, four decimals (the resolution of the simulated systems)."""
    path.write_text("".join(f"{v:.4f}\n" for v in values), encoding="utf-8")


def voice() -> None:
    """Voice comparison scores like Ramos' simulated case: SS about 4-7, DS about 2-5."""
    rng = np.random.default_rng(1000)
    ss = rng.normal(5.5, 0.6, 300)
    ds = rng.normal(3.4, 0.65, 3000)
    _write(HERE / "voice" / "ss.csv", ss)
    _write(HERE / "voice" / "ds.csv", ds)


def small_background() -> None:
    """A new method with only 12 SS and 40 DS validation comparisons."""
    rng = np.random.default_rng(1200)
    ss = rng.normal(2.0, 1.0, 12)
    ds = rng.normal(-1.0, 1.0, 40)
    _write(HERE / "small-background" / "ss.csv", ss)
    _write(HERE / "small-background" / "ds.csv", ds)


def glass_distance() -> None:
    """Standardised distances between glass measurements: small for SS, large for DS."""
    rng = np.random.default_rng(1400)
    ss = np.sqrt(rng.chisquare(3, 200))          # |N(0, I_3)|: same-source distances
    ds = rng.lognormal(np.log(5.0), 0.6, 2000)    # different-source distances
    _write(HERE / "glass-distance" / "ss.csv", ss)
    _write(HERE / "glass-distance" / "ds.csv", ds)


if __name__ == "__main__":
    voice()
    small_background()
    glass_distance()
