"""Regenerate the course's data files and figures from the library: deterministic.

Run from the repository root: ``python docs/course/make_figures.py`` (or give an output
folder: ``python docs/course/make_figures.py /tmp/course``). Writes ``data/`` (score files)
and ``figures/`` (SVG, drawn by :mod:`forensic_lr.plots`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from forensic_lr import plots
from forensic_lr.calibration import GaussianCalibrator
from forensic_lr.casework.textbook import write_textbook_data
from forensic_lr.uncertainty import cross_validated_llr

#: The course system: same-source scores N(2, 1), different-source scores N(-1, 1).
SEED = 20261128
N = 200


def course_scores() -> tuple[np.ndarray, np.ndarray]:
    """The course's simulated system: 200 same-source and 200 different-source scores."""
    rng = np.random.default_rng(SEED)
    return np.round(rng.normal(2.0, 1.0, N), 4), np.round(rng.normal(-1.0, 1.0, N), 4)


def course_llrs() -> tuple[np.ndarray, np.ndarray]:
    """Cross-validated natural-log LRs of the course scores (logistic regression, 5 folds)."""
    ss, ds = course_scores()
    return cross_validated_llr(ss, ds, "logistic", folds=5, seed=SEED)


def _write(folder: Path, name: str, fig) -> None:
    (folder / name).write_text(plots.to_svg(fig), encoding="utf-8")


def main(out: Path) -> None:
    """Write every course file under *out*."""
    data = out / "data"
    write_textbook_data(data)
    ss, ds = course_scores()
    for name, scores in (("scores-ss.txt", ss), ("scores-ds.txt", ds)):
        (data / name).write_text("".join(f"{x:.4f}\n" for x in scores), encoding="utf-8")

    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    _write(figures, "2-densities.svg",
           plots.score_densities(ss, ds, GaussianCalibrator().fit(ss, ds), case_score=1.5))
    ss_llr, ds_llr = course_llrs()
    fig = plots.tippett(ss_llr, ds_llr, label="calibrated (logistic regression)",
                        color="black")
    plots.tippett(3 * ss_llr, 3 * ds_llr, label="over-confident (LLRs x 3)", color="tab:red",
                  ax=fig.axes[0])
    plots.tippett(ss_llr / 3, ds_llr / 3, label="under-confident (LLRs / 3)", color="tab:blue",
                  ax=fig.axes[0])
    _write(figures, "2-over-under.svg", fig)
    _write(figures, "3-tippett.svg", plots.tippett(ss_llr, ds_llr, case_llr=2.0))
    _write(figures, "3-ape.svg", plots.ape(ss_llr, ds_llr))
    _write(figures, "3-ece.svg", plots.ece(ss_llr, ds_llr))
    _write(figures, "3-det.svg", plots.det(ss_llr, ds_llr))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
