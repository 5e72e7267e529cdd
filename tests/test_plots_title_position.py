"""Titles placed at the top of the axes without measuring (``axes.titley`` in the package
style): the same SVG, byte for byte, as with matplotlib's automatic title placement (the
slow definition: it measures every axis's decorations to move the title above them)."""

import math

import numpy as np
import pytest

from forensic_lr import plots
from forensic_lr.calibration import make_calibrator

LN10 = math.log(10.0)

RNG = np.random.default_rng(5)
SS, DS = RNG.normal(2, 1.5, 400), RNG.normal(-2, 1.5, 1200)


def _densities(scale: float) -> str:
    ss, ds = SS * scale, DS * scale  # densities of about 1/scale: an offset text at 1e6
    model = make_calibrator("gaussian").fit(ss, ds)
    return plots.score_density_svg(ss, ds, model, case_score=scale, elub_log10=(-2.0, 2.0))


FIGURES = {
    "tippett": lambda: plots.tippett_svg(SS, DS, case_llr=0.5 * LN10, elub_log10=(-2.0, 2.0)),
    "tippett_ii": lambda: plots.tippett_svg(SS, DS, kind="II"),
    "det": lambda: plots.det_svg(SS, DS, case_llr=1.0),
    "ape": lambda: plots.ape_svg(SS, DS, case_llr=1.0),
    "ece": lambda: plots.ece_svg(SS, DS, case_llr=1.0),
    "pav": lambda: plots.pav_svg(SS, DS, llr_input=True),
    "roc": lambda: plots.roc_svg(SS, DS),
    "llr_histogram": lambda: plots.llr_histogram_svg(SS, DS, case_llr=1.0),
    "densities": lambda: _densities(1.0),
    "densities_tiny": lambda: _densities(1e6),
    "densities_large": lambda: _densities(1e-6),
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_title_at_the_top_draws_as_the_automatic_placement(name, monkeypatch):
    fast = FIGURES[name]()
    style = {k: v for k, v in plots._STYLE.items() if k != "axes.titley"}
    monkeypatch.setattr(plots, "_STYLE", style)
    assert FIGURES[name]() == fast
