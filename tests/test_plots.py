"""Figures: valid, labelled, deterministic SVG; robust to extreme inputs; no extrapolation."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from forensic_lr import plots
from forensic_lr.calibration import make_calibrator
from forensic_lr.multiclass import reliability_diagram, softmax

RNG = np.random.default_rng(0)
SS, DS = RNG.normal(2, 1.5, 80), RNG.normal(-2, 1.5, 200)

FIGURES = {
    "tippett": lambda: plots.tippett_svg(SS, DS, case_log10_lr=1.0),
    "tippett2": lambda: plots.tippett_svg(SS, DS, kind="II"),
    "ape": lambda: plots.ape_svg(SS, DS, case_llr=2.0),
    "ece": lambda: plots.ece_svg(SS, DS),
    "det": lambda: plots.det_svg(SS, DS),
    "roc": lambda: plots.roc_svg(SS, DS),
    "pav": lambda: plots.pav_svg(SS, DS),
    "hist": lambda: plots.llr_histogram_svg(SS, DS, case_llr=2.0),
    "density": lambda: plots.score_density_svg(
        SS, DS, make_calibrator("gaussian").fit(SS, DS), case_score=1.0
    ),
}
LABELS = {
    "tippett": "log10 LR (x)", "ape": "prior log10 odds", "ece": "prior log10 odds",
    "det": "false alarm rate (different source judged same)", "roc": "hit rate",
    "hist": "log10 LR", "density": "score",
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_svg_is_valid_and_deterministic(name):
    first, second = FIGURES[name](), FIGURES[name]()
    assert first == second
    root = ET.fromstring(first.encode())
    assert root.tag.endswith("svg")


@pytest.mark.parametrize("name", sorted(LABELS))
def test_axis_labels_name_the_log_base(name):
    # text is kept as SVG <text> elements (svg.fonttype "none")
    assert f">{LABELS[name]}</text>" in FIGURES[name]()


def test_extreme_and_tiny_inputs_do_not_crash():
    ss, ds = np.array([np.inf, 3.0]), np.array([-np.inf, -1e3])
    for fn in (plots.tippett_svg, plots.ape_svg, plots.ece_svg, plots.det_svg, plots.roc_svg,
               plots.llr_histogram_svg):
        assert fn(ss, ds).lstrip().startswith("<?xml")


def test_reliability_diagram_plot():
    z = RNG.normal(size=(300, 4)) * 3
    y = RNG.integers(0, 4, 300)
    svg = plots.reliability_svg(reliability_diagram(softmax(z), y), title="Test")
    assert ">Test: ECE = " in svg
