"""The textbook example of the calibration slides (Ramos): a simulated voice case.

Same-speaker scores lie between 4 and 7, different-speaker scores between 2 and 5; the
evidence score is 5.96, where the Gaussian densities read off the slides' figure are 0.35
(same speaker) and 0.15 (different speakers), so LR = 0.35 / 0.15 = 2.33.

:func:`textbook_background` gives a background whose Gaussian maximum-likelihood fits have
exactly those densities at 5.96; the web app's teaching view and the course
(docs/course/1-bayes-to-lr.md) share it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["DS_DENSITY", "EVIDENCE", "SS_DENSITY", "textbook_background", "textbook_lr",
           "write_textbook_data"]

#: The evidence score of the slides.
EVIDENCE = 5.96
#: The densities read off the slides' figure at the evidence score.
SS_DENSITY = 0.35
DS_DENSITY = 0.15


def textbook_lr() -> float:
    """The slides' arithmetic: ``LR = f(5.96 | Hp) / f(5.96 | Hd) = 0.35 / 0.15 = 2.33``."""
    return SS_DENSITY / DS_DENSITY


def _mean_at_density(density: float, sd: float = 1.0) -> float:
    """The mean ``m < EVIDENCE`` with ``N(EVIDENCE; m, sd) = density``:
    ``m = EVIDENCE - sd * sqrt(-2 ln(density * sd * sqrt(2 pi)))``."""
    return EVIDENCE - sd * math.sqrt(-2 * math.log(density * sd * math.sqrt(2 * math.pi)))


def textbook_background() -> tuple[np.ndarray, np.ndarray, float]:
    """``(ss, ds, evidence)``: two same-source and two different-source scores and 5.96.

    Two points ``m -+ sd`` have maximum-likelihood mean ``m`` and standard deviation ``sd``
    (ddof 0). With ``sd = 1`` the means are placed so that ``N(5.96; m_ss, 1) = 0.35`` and
    ``N(5.96; m_ds, 1) = 0.15``: same source 4.45 and 6.45 (mean 5.45), different sources
    3.56 and 5.56 (mean 4.56).
    """
    m_ss = _mean_at_density(SS_DENSITY)
    m_ds = _mean_at_density(DS_DENSITY)
    return np.array([m_ss - 1, m_ss + 1]), np.array([m_ds - 1, m_ds + 1]), EVIDENCE


def write_textbook_data(folder: str | Path) -> tuple[Path, Path]:
    """Write ``textbook-ss.txt`` and ``textbook-ds.txt`` (one score a line, full precision)
    into *folder*; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ss, ds, _ = textbook_background()
    paths = []
    for name, scores in (("textbook-ss.txt", ss), ("textbook-ds.txt", ds)):
        path = folder / name
        path.write_text("".join(f"{float(x)!r}\n" for x in scores), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]
