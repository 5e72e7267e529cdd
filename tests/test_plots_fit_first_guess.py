"""The axes placed in one measure more often: the first measure is taken with the axes
already raised above the legend (``plots._fit``).

Independent value: the place found is a fixed point of measuring: measuring the finished
figure again, from where its axes stand, moves nothing (the margins depend only on the
ticks and labels, not on where the axes stood when measured).
"""

import math

import numpy as np
import pytest

from forensic_lr import plots
from forensic_lr.calibration import make_calibrator

LN10 = math.log(10.0)

RNG = np.random.default_rng(3)
SS, DS = RNG.normal(2.0, 1.0, 2000), RNG.normal(-1.0, 1.2, 20000)


def _densities():
    model = make_calibrator("gaussian").fit(SS, DS)
    curves = plots.model_curves(model, SS, DS, case_score=1.5)
    return plots.score_densities(SS, DS, case_score=1.5, curves=curves,
                                 elub_log10=(-3.0, 3.0))


FIGURES = {
    "densities": _densities,  # a four-row legend and a twin axis
    "tippett": lambda: plots.tippett(SS, DS, case_llr=0.5 * LN10, elub_log10=(-2.0, 2.0)),
    "ape": lambda: plots.ape(SS, DS, case_llr=1.0),
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_the_place_found_is_a_fixed_point_of_measuring(name):
    fig = FIGURES[name]()
    placed = [a.get_position().bounds for a in fig.axes]
    plots._fit(fig)
    again = [a.get_position().bounds for a in fig.axes]
    np.testing.assert_allclose(again, placed, atol=1e-9)


def test_the_density_figure_is_placed_in_one_measure(monkeypatch):
    calls = []
    ticks = plots._ticks
    monkeypatch.setattr(plots, "_ticks", lambda fig: calls.append(1) or ticks(fig))
    _densities()
    assert len(calls) == 2  # one measure, then the check that the ticks stayed
