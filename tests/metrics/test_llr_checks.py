"""The API checks what the command line checks: raw scores or swapped classes given to
``evaluate_llrs`` (alias ``evaluate``) or to a case's evaluation warn, with named classes."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import forensic_lr as flr
from forensic_lr import metrics
from forensic_lr._resources import examples_dir
from forensic_lr.calibration.base import fit_warnings
from forensic_lr.cli import main
from forensic_lr.errors import RawScoreWarning, SwappedClassesWarning
from forensic_lr.io import load_scores

VOICE = examples_dir() / "voice"
_VALUES = st.one_of(st.floats(-40, 40), st.sampled_from([0.0, -0.0, np.inf, -np.inf, 2.3]))


def _caught(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, caught


def _true_llrs(n: int, seed: int = 1):
    """LLRs of the known model SS ~ N(1, 1), DS ~ N(-1, 1): llr(x) = 2x exactly."""
    rng = np.random.default_rng(seed)
    return 2.0 * rng.normal(1.0, 1.0, n), 2.0 * rng.normal(-1.0, 1.0, n)


def test_evaluate_llrs_is_the_new_name_and_evaluate_stays():
    assert flr.evaluate_llrs is flr.evaluate is metrics.evaluate_llrs is metrics.evaluate
    assert "evaluate_llrs" in dir(flr) and "evaluate" in dir(flr)


def test_raw_scores_warn_and_true_llrs_do_not():
    rng = np.random.default_rng(0)
    ss, ds = rng.normal(60, 5, 300), rng.normal(40, 5, 300)  # raw scores, not LLRs
    result, caught = _caught(flr.evaluate_llrs, ss, ds)
    raw = [w for w in caught if w.category is RawScoreWarning]
    assert len(raw) == 1 and "all 600 values are positive" in str(raw[0].message)
    assert "RMED = 1.00" in str(raw[0].message)
    assert raw[0].filename == __file__  # points at the caller's line
    # Cllr of the scores read as LLRs, by the definition (it is the number that misleads)
    hand = 0.5 * np.mean(np.log2(1 + np.exp(-ss))) + 0.5 * np.mean(np.log2(1 + np.exp(ds)))
    assert result.cllr == pytest.approx(hand, rel=1e-12)

    ss_llr, ds_llr = _true_llrs(3000)
    _, caught = _caught(flr.evaluate_llrs, ss_llr, ds_llr)
    assert not [w for w in caught if issubclass(w.category, flr.errors.ForensicLRWarning)]


def test_swapped_llrs_warn_by_name():
    ss_llr, ds_llr = _true_llrs(2000)
    _, caught = _caught(flr.evaluate, ds_llr, ss_llr)  # the classes given the wrong way round
    swapped = [w for w in caught if w.category is SwappedClassesWarning]
    assert len(swapped) == 1
    text = str(swapped[0].message)
    # the means it names are those of the inputs, computed here independently
    assert f"({float(np.mean(ds_llr)):.4g})" in text and f"({float(np.mean(ss_llr)):.4g})" in text
    assert "swapped" in text


def test_check_false_is_silent_and_gives_the_same_metrics():
    rng = np.random.default_rng(2)
    ss, ds = rng.normal(60, 5, 50), rng.normal(40, 5, 50)
    quiet, caught = _caught(flr.evaluate_llrs, ss, ds, check=False)
    assert not caught
    loud, _ = _caught(flr.evaluate_llrs, ss, ds)
    assert quiet == loud


def test_api_warns_when_the_command_line_warns():
    """The same file read as LLRs: ``validate`` prints a warning and the API raises one."""
    data = load_scores(ss=VOICE / "ss.csv", ds=VOICE / "ds.csv")
    _, caught = _caught(flr.evaluate_llrs, data.ss, data.ds)
    api = [str(w.message) for w in caught if w.category is RawScoreWarning]
    out = _cli_json(["validate", "--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv")])
    assert len(api) == 1 and len(out["warnings"]) == 1
    signs = out["warnings"][0].split("(", 1)[1].split(")")[0]
    assert signs in api[0]  # the same symptoms, word for word


def _cli_json(argv):
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "--json"]) == 0
    return json.loads(buffer.getvalue())


def test_expectation_shortcut_matches_the_definition_near_its_limit():
    """The mean of LR over DS is checked without exponentiating values <= 0 when the
    positive ones cannot reach 10: at and around the limit it agrees with the plain sum."""
    for top in np.linspace(math.log(10 * 99 - 98), math.log(10 * 99 + 5), 25):
        ds = np.concatenate([np.zeros(98), [-50.0], [top]])  # mean of e^l: (98 + e^top)/100
        plain = math.log10((98 + math.exp(-50.0) + math.exp(top)) / 100)
        signs = " ".join(metrics.llr_checks.raw_score_signs([5.0], ds))
        assert ("LR over the different-source" in signs) == (plain > 1.0), top


def test_one_misleading_llr_is_named_as_the_cause():
    """199 same-source LLRs of 0 and one of -ln 2000: mean 1/LR (199 + 2000)/200 = 11.0 > 10,
    2000/2199 = 91 % of it from the one value, and the other 199 average 1: the sign names
    that value instead of blaming the whole set."""
    ss = np.concatenate([np.zeros(199), [-math.log(2000.0)]])
    signs = metrics.llr_checks.raw_score_signs(ss, np.array([-1.0, 0.5, -2.0]))
    assert len(signs) == 1
    assert f"10^{math.log10(2199 / 200):.1f}" in signs[0]
    assert "91% of it comes from one same-source LLR of -7.6" in signs[0]


def test_raw_scores_are_not_blamed_on_one_value():
    """Scores 60-70 against 40-45: every different-source term exceeds the limit alone."""
    signs = " ".join(metrics.llr_checks.raw_score_signs([60.0, 70.0], [40.0, 45.0]))
    assert "10^19.2" in signs and "comes from one" not in signs


@pytest.mark.parametrize("direction", ["higher_is_similar", "lower_is_similar"])
def test_a_case_with_swapped_background_warns(direction):
    """Raw background scores with SS below DS (after the direction is applied) warn with
    the means as measured; the right way round, no such warning."""
    rng = np.random.default_rng(5)
    high, low = rng.normal(3.0, 1.0, 40), rng.normal(0.0, 1.0, 60)  # as the model uses them
    sign = -1.0 if direction == "lower_is_similar" else 1.0
    texts, caught = _caught(fit_warnings, low, high, [1.0], direction=direction)
    swapped = [w for w in caught if w.category is SwappedClassesWarning]
    assert len(swapped) == 1 and str(swapped[0].message) in texts
    word = "distance" if direction == "lower_is_similar" else "score"
    assert f"mean same-source {word} ({sign * float(low.mean()):.4g})" in texts[0]
    texts, caught = _caught(fit_warnings, high, low, [1.0], direction=direction)
    assert not [w for w in caught if w.category is SwappedClassesWarning]


def test_evaluate_evidence_carries_the_swap_warning():
    rng = np.random.default_rng(6)
    ss, ds = rng.normal(0.0, 1.0, 60), rng.normal(3.0, 1.0, 80)
    result = flr.evaluate_evidence(ss, ds, [1.0], calibrator="gaussian", interval="none")
    assert [t for t in result.warnings if "swapped" in t] == [
        f"the mean same-source score ({float(ss.mean()):.4g}) lies below the mean "
        f"different-source one ({float(ds.mean()):.4g}), but higher scores must support the "
        "same-source proposition: check that the same-source and different-source values "
        "are not swapped, and that the scores are not distances"]


@settings(max_examples=150, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=25), st.lists(_VALUES, min_size=1, max_size=25))
def test_presorted_signs_equal_the_unsorted_ones(ss, ds):
    """evaluate_llrs reads the signs off its sorted arrays; the same signs as from the
    values in any order (which tests/cli/test_guard_rails.py pins to their definitions)."""
    assert metrics.llr_checks.raw_score_signs(np.sort(ss), np.sort(ds), presorted=True) == (
        metrics.llr_checks.raw_score_signs(ss, ds))


def test_one_infinite_llr_does_not_make_the_classes_look_swapped():
    """A single LR of infinity among the different-source values (a misleading trial) makes
    the DS mean infinite; the medians (2 vs -2 here, by hand) decide instead."""
    from forensic_lr.metrics.llr_checks import swapped_sign

    ss = np.array([1.0, 2.0, 3.0])
    assert swapped_sign(ss, np.array([-3.0, -2.0, -1.0, np.inf])) is None
    text = swapped_sign(-ss, np.array([1.0, 2.0, 3.0, -np.inf]))
    assert text is not None and "median same-source value (-2)" in text
