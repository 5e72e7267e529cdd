"""Distances (``score_direction = "lower_is_similar"``) are printed as measured.

The model works on the negated distance; the report, its warnings and Figure 1's axis must
show the distance itself. Independent values: the range of the background distances is taken
here from the values written to the files, and the figure's tick labels are read from its SVG.
"""

from __future__ import annotations

import html as html_lib
import re
import warnings

import numpy as np
import pytest

from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.report import build_report

_TEXT = re.compile(r"<text[^>]*text-anchor=\"middle\"[^>]*>([^<]*)</text>")


@pytest.fixture(scope="module")
def far(tmp_path_factory):
    folder = tmp_path_factory.mktemp("glass")
    rng = np.random.default_rng(12)
    ss = np.round(rng.gamma(4.0, 0.4, 80), 4)  # same-source distances: small
    ds = np.round(rng.gamma(3.0, 2.5, 300), 4)  # different-source distances: larger
    np.savetxt(folder / "ss.csv", ss, fmt="%.4f")
    np.savetxt(folder / "ds.csv", ds, fmt="%.4f")
    (folder / "case.toml").write_text(
        '[case]\nid = "G1"\n[propositions]\nhp = "a"\nhd = "b"\n[evidence]\nscore = 50\n'
        'score_direction = "lower_is_similar"\n[background]\nss = "ss.csv"\nds = "ds.csv"\n'
        '[method]\ncalibrator = "logistic"\nelub = true\n[uncertainty]\nmethod = "none"\n'
        '[validation]\nfolds = 4\n', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_case_full(load_case(folder / "case.toml"))
    files = build_report(run, formats=("html",))
    raw = files["report.html"].decode("utf-8")
    text = re.sub(r"<svg.*?</svg>", " ", raw, flags=re.S)
    text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", text)).split())
    both = np.concatenate([ss, ds])
    return run, text, files["figures/score_densities.svg"].decode("utf-8"), both


def test_warnings_give_the_distance_and_the_range_as_measured(far):
    run, text, _, both = far
    expected = (f"distance 50 lies outside the range of the background distances "
                f"[{both.min():g}, {both.max():g}]")
    assert any(w.startswith(expected) for w in run.result.warnings)
    assert expected in text
    assert run.result.results[0].score == 50.0 and run.result.results[0].score_used == -50.0


def test_no_negated_distance_is_printed(far):
    _, text, _, both = far
    for value in (50.0, both.min(), both.max()):
        for shown in (f"{value:g}", f"{value:.4g}", f"{value:.3g}"):
            assert f"-{shown}" not in text and f"\u2212{shown}" not in text, shown
    assert "negated distance" not in text and "Score used" not in text
    assert "Distance (lower = more similar)" in text


def test_figure_axis_is_in_measured_units(far):
    _, _, svg, _ = far
    assert "distance (lower = more similar)" in svg
    ticks = [t for t in _TEXT.findall(svg) if re.fullmatch(r"[\u2212\-]?\d+(\.\d+)?", t)]
    values = [float(t.replace("\u2212", "-")) for t in ticks]
    assert values and min(values) >= 0.0  # the negated axis ran from -50 to 0
    assert max(values) >= 50.0 - 10  # the axis reaches the case's distance


def test_validation_report_draws_distances_as_measured(tmp_path):
    from forensic_lr.cli import main

    rng = np.random.default_rng(3)
    np.savetxt(tmp_path / "ss.csv", rng.gamma(4.0, 0.4, 60), fmt="%.4f")
    np.savetxt(tmp_path / "ds.csv", rng.gamma(3.0, 2.5, 200), fmt="%.4f")
    out = tmp_path / "study"
    assert main(["validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
                 "--direction", "lower_is_similar", "--report", str(out), "-q"]) == 0
    svg = (out / "figures" / "score_densities.svg").read_text(encoding="utf-8")
    assert "distance (lower = more similar)" in svg
    ticks = [float(t) for t in _TEXT.findall(svg) if re.fullmatch(r"\d+(\.\d+)?", t)]
    negative = [t for t in _TEXT.findall(svg) if re.fullmatch(r"[\u2212\-]\d+(\.\d+)?", t)]
    assert ticks and not negative  # the x axis (text-anchor middle) in distances >= 0
