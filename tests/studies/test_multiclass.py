"""Multiclass temperature calibration and its metrics, checked against independent values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import softmax as scipy_softmax

from forensic_lr.errors import ConvergenceError, InputError, NotFittedError
from forensic_lr.studies.multiclass import (
    ExpectationConsistentTemperature,
    TemperatureScaling,
    brier_decomposition,
    brier_score,
    calibration_metrics,
    log_softmax,
    negative_log_likelihood,
    reliability_diagram,
    softmax,
    source_llr,
)


def overconfident_logits(n=3000, k=8, separation=2.0, overconfidence=2.5, seed=3):
    """Logits whose calibrated temperature is known: u ~ N(sep * e_y, I); the Bayes
    posterior is softmax(sep * u), so z = overconfidence * sep * u needs T = overconfidence."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    u = rng.normal(size=(n, k))
    u[np.arange(n), y] += separation
    return overconfidence * separation * u, y


def test_softmax_matches_scipy_and_is_stable_for_huge_logits():
    z = np.array([[1e4, 0.0, -1e4], [3.0, 1.0, 0.2]])
    assert np.allclose(softmax(z), scipy_softmax(z, axis=1))
    assert np.all(np.isfinite(log_softmax(z)))
    assert log_softmax(z)[0, 1] == pytest.approx(-1e4)  # exact: log(e^0 / (e^1e4 + ...))


def test_temperature_one_leaves_probabilities_unchanged():
    z, _ = overconfident_logits(n=50)
    assert np.allclose(softmax(z, 1.0), scipy_softmax(z, axis=1))


def test_ts_temperature_matches_direct_scipy_minimisation_of_nll():
    z, y = overconfident_logits()
    fitted = TemperatureScaling().fit(z, y).temperature_

    def nll(t):  # written independently of the module: scipy's softmax
        p = scipy_softmax(z / t, axis=1)
        return -np.mean(np.log(p[np.arange(y.size), y]))

    direct = minimize_scalar(nll, bounds=(0.1, 20), method="bounded", options={"xatol": 1e-9}).x
    assert fitted == pytest.approx(direct, rel=1e-6)
    # and the known generating temperature is recovered (sampling error ~ a few %)
    assert fitted == pytest.approx(2.5, rel=0.05)


def test_ec_temperature_satisfies_its_equation():
    z, y = overconfident_logits()
    fitted = ExpectationConsistentTemperature().fit(z, y)
    t = fitted.temperature_
    mean_confidence = scipy_softmax(z / t, axis=1).max(axis=1).mean()
    accuracy = np.mean(z.argmax(axis=1) == y)
    assert abs(mean_confidence - accuracy) < 1e-8
    assert fitted.accuracy_ == accuracy


def test_calibration_cuts_ece_and_keeps_accuracy():
    z, y = overconfident_logits()
    before = calibration_metrics(z, y)
    for method in (TemperatureScaling(), ExpectationConsistentTemperature()):
        after = calibration_metrics(z, y, temperature=method.fit(z, y).temperature_)
        assert after.accuracy == before.accuracy
        assert after.ece < before.ece / 3
        assert after.nll < before.nll


def test_ece_by_hand_on_a_tiny_example():
    # 4 items, 2 classes, M = 2 equal-width bins (0, .5] and (.5, 1].
    # confidences 0.9, 0.8, 0.6, 0.7 all land in bin 2; predictions correct for items 1, 3.
    p = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    y = np.array([0, 0, 0, 0])
    # bin 2: conf = (0.9+0.8+0.6+0.7)/4 = 0.75, acc = 2/4 = 0.5 -> ECE = |0.5-0.75| = 0.25
    diagram = reliability_diagram(p, y, bins=2)
    assert diagram.count.tolist() == [0, 4]
    assert diagram.ece == pytest.approx(0.25)
    assert diagram.mce == pytest.approx(0.25)
    # with 10 bins: (0.5,0.6]: conf .6 acc 1; (0.6,0.7]: .7, 0; (0.7,0.8]: .8, 0; (0.8,0.9]: .9, 1
    # ECE = (0.4 + 0.7 + 0.8 + 0.1) / 4 = 0.5 ; MCE = 0.8
    diagram = reliability_diagram(p, y, bins=10)
    assert diagram.ece == pytest.approx(0.5)
    assert diagram.mce == pytest.approx(0.8)


def test_equal_mass_bins_hold_equal_counts():
    z, y = overconfident_logits(n=1000)
    diagram = reliability_diagram(softmax(z), y, bins=10, binning="mass")
    assert diagram.count.tolist() == [100] * 10
    assert np.all(np.diff(diagram.bin_edges) >= 0)


def test_brier_score_by_hand():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    y = np.array([0, 1])
    # item 1: .09 + .04 + .01 = .14 ; item 2: .01 + .81 + .64 = 1.46 ; mean .80
    assert brier_score(p, y) == pytest.approx(0.80)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.integers(1, 20),
    binning=st.sampled_from(["width", "mass"]),
    k=st.integers(2, 5),
)
def test_brier_decomposition_adds_up(seed, bins, binning, k):
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=3, size=(60, k))
    y = rng.integers(0, k, 60)
    parts = brier_decomposition(softmax(z), y, bins=bins, binning=binning)
    total = (
        parts.reliability - parts.resolution + parts.uncertainty
        + parts.within_bin_variance - 2 * parts.within_bin_covariance
    )
    assert total == pytest.approx(brier_score(softmax(z), y), abs=1e-12)
    assert parts.reliability >= 0 and parts.resolution >= 0


def test_brier_decomposition_is_murphys_when_forecasts_are_constant_per_bin():
    # two distinct forecasts only -> within-bin terms vanish; terms by hand:
    # forecasts (.8,.2) for 5 items (4 of class 0) and (.3,.7) for 5 items (1 of class 0)
    p = np.array([[0.8, 0.2]] * 5 + [[0.3, 0.7]] * 5)
    y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1, 1])
    parts = brier_decomposition(p, y, bins=10)
    assert parts.within_bin_variance == pytest.approx(0, abs=1e-15)
    # class 0: REL = (5*(.8-.8)^2 + 5*(.3-.2)^2)/10 = .005; RES = (5*.3^2 + 5*.3^2)/10 = .09
    # UNC = .5*.5 = .25; class 1 mirrors class 0 -> totals doubled
    assert parts.reliability == pytest.approx(0.01)
    assert parts.resolution == pytest.approx(0.18)
    assert parts.uncertainty == pytest.approx(0.5)


def test_nll_matches_direct_formula():
    z, y = overconfident_logits(n=200)
    p = scipy_softmax(z / 1.7, axis=1)
    expected = -np.mean(np.log(p[np.arange(200), y]))
    assert negative_log_likelihood(z, y, 1.7) == pytest.approx(expected)


def test_source_llr_is_posterior_odds_over_prior_odds():
    z = np.array([[2.0, 0.5, -1.0], [0.0, 0.0, 0.0]])
    priors = np.array([0.5, 0.3, 0.2])
    p = scipy_softmax(z / 2.0, axis=1)
    expected = np.log(p[:, 1] / (1 - p[:, 1])) - np.log(0.3 / 0.7)
    assert np.allclose(source_llr(z, 1, temperature=2.0, priors=priors), expected)
    # uniform priors and equal logits: posterior = prior -> LR = 1
    assert source_llr(z[1:], 2)[0] == pytest.approx(0.0, abs=1e-15)
    # huge logits stay finite
    assert np.isfinite(source_llr(np.array([[1e4, 0.0, -5.0]]), 1)).all()


def test_unfitted_and_bad_inputs_raise_clear_errors():
    with pytest.raises(NotFittedError):
        TemperatureScaling().predict_proba(np.zeros((2, 3)))
    with pytest.raises(InputError, match="shape"):
        TemperatureScaling().fit(np.zeros((4, 3)), np.zeros(5, dtype=int))
    with pytest.raises(InputError, match=r"outside 0\.\.2"):
        TemperatureScaling().fit(np.zeros((2, 3)), np.array([0, 3]))
    with pytest.raises(InputError, match="not finite"):
        TemperatureScaling().fit(np.array([[0.0, np.nan]]), np.array([0]))
    with pytest.raises(InputError, match="positive"):
        softmax(np.zeros((1, 2)), temperature=0)


def test_ec_explains_an_unreachable_accuracy():
    # every item correct with a large margin -> accuracy 1 > any reachable mean confidence
    z = np.tile([[50.0, 0.0]], (10, 1))
    z[0] = [0.001, 0.0]
    with pytest.raises(ConvergenceError, match="exceeds the mean confidence"):
        ExpectationConsistentTemperature().fit(z, np.zeros(10, dtype=int))
    # chance-level classifier: accuracy below 1/K
    z, _ = overconfident_logits(n=300, k=4)
    with pytest.raises(ConvergenceError, match="chance level"):
        ExpectationConsistentTemperature().fit(z, (z.argmax(axis=1) + 1) % 4)


def test_ts_explains_separable_data():
    z = np.array([[5.0, 0.0], [0.0, 5.0], [4.0, 1.0]])
    with pytest.raises(ConvergenceError, match="below t_min"):
        TemperatureScaling().fit(z, np.array([0, 1, 0]))
