"""Tests of forensic_lr.studies.label_noise against independent values.

Sources of expected values: hand computation (written out in each test), a forward model
that builds the observed 2x2 table from a true table by explicit enumeration of
(true label, expert label, system label), the worked numbers of Vasil'ev's paper (ROMIP 2012
table), Monte Carlo simulation, closed-form maximum-likelihood solutions, and
scipy.optimize on a per-item log-likelihood written separately from the EM code.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from forensic_lr._resources import examples_dir
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.studies.label_noise import (
    correct_metrics,
    corrected_precision,
    corrected_recall,
    estimate_error_rates,
    inflation_factors,
    reachable_precision,
    reachable_recall,
    read_judgements,
)


# --------------------------------------------------------------------------- forward model
def observed_from_true(true_table, alpha, beta):
    """Observed P(c1, c0_hat) from the true P(c0, c1) by enumerating the expert's label.

    ``true_table[c0, c1]``; the expert flips a true 1 with prob alpha, a true 0 with beta,
    independently of the system. Returns ``obs[c1, c0_hat]``.
    """
    expert = np.array([[1 - beta, beta], [alpha, 1 - alpha]])  # expert[c0, c0_hat]
    obs = np.zeros((2, 2))
    for c0, c1, ch in itertools.product((0, 1), repeat=3):
        obs[c1, ch] += true_table[c0, c1] * expert[c0, ch]
    return obs


def observed_metrics(obs):
    p1 = obs[1, 1] / obs[1].sum()
    r1 = obs[1, 1] / obs[:, 1].sum()
    return p1, r1, obs[:, 1].sum(), obs[1].sum()


# --------------------------------------------------------------------------- by hand
def test_independent_model_by_hand():
    # P0 = (0.8 - 0.1) / (1 - 0.2) = 0.875; pi1 = R1 pi_hat / P1 = 0.7*0.3/0.8 = 0.2625;
    # R0 = (0.7*0.3 - 0.1*0.2625) / (0.3 - 0.1) = 0.18375 / 0.2 = 0.91875;
    # pi = (0.3 - 0.1) / 0.8 = 0.25.
    res = correct_metrics(0.8, 0.7, 0.3, eps=0.1)
    assert res.model == "independent"
    assert res.precision == pytest.approx(0.875, abs=1e-15)
    assert res.system_positive_rate == pytest.approx(0.2625, abs=1e-15)
    assert res.recall == pytest.approx(0.91875, abs=1e-15)
    assert res.prevalence == pytest.approx(0.25, abs=1e-15)


def test_conditional_model_by_hand():
    # P0 = (0.8 - 0.05) / (1 - 0.1 - 0.05) = 0.75 / 0.85 = 15/17;
    # R0 = (0.21 - 0.05 * 0.2625) / (0.3 - 0.05) = 0.196875 / 0.25 = 0.7875;
    # pi = 0.25 / 0.85 = 5/17.
    res = correct_metrics(0.8, 0.7, 0.3, alpha=0.1, beta=0.05)
    assert res.precision == pytest.approx(15 / 17, abs=1e-15)
    assert res.recall == pytest.approx(0.7875, abs=1e-15)
    assert res.prevalence == pytest.approx(5 / 17, abs=1e-15)
    assert corrected_precision(0.8, alpha=0.1, beta=0.05) == pytest.approx(15 / 17, abs=1e-15)
    r0 = corrected_recall(0.7, expert_prevalence=0.3, system_positive_rate=0.2625, beta=0.05)
    assert r0 == pytest.approx(0.7875, abs=1e-15)
    # reachable observed precision (beta, 1 - alpha), Vasil'ev's paper
    assert reachable_precision(alpha=0.1, beta=0.05) == (0.05, 0.9)


# --------------------------------------------------------------------------- forward model
@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(st.floats(0.02, 1.0), min_size=4, max_size=4),
    alpha=st.floats(0.0, 0.6),
    beta=st.floats(0.0, 0.35),
)
def test_forward_model_inverts_exactly(cells, alpha, beta):
    true = np.array(cells).reshape(2, 2) / sum(cells)  # true[c0, c1]
    obs = observed_from_true(true, alpha, beta)
    p1, r1, pi_hat, pi1 = observed_metrics(obs)
    res = correct_metrics(p1, r1, pi_hat, alpha=alpha, beta=beta)
    p0 = true[1, 1] / true[:, 1].sum()
    r0 = true[1, 1] / true[1].sum()
    assert res.precision == pytest.approx(p0, abs=1e-12)
    assert res.recall == pytest.approx(r0, abs=1e-12)
    assert res.prevalence == pytest.approx(true[1].sum(), abs=1e-12)
    assert res.system_positive_rate == pytest.approx(pi1, abs=1e-12)
    lo, hi = res.recall_reachable
    assert lo - 1e-12 <= r1 <= hi + 1e-12


@settings(max_examples=30, deadline=None)
@given(cells=st.lists(st.floats(0.02, 1.0), min_size=4, max_size=4), eps=st.floats(0.0, 0.45))
def test_forward_model_independent_eps(cells, eps):
    # simulated expected counts: N = 10_000 items, noise applied to the expected counts
    counts = 10_000 * np.array(cells).reshape(2, 2) / sum(cells)
    obs = observed_from_true(counts, eps, eps)
    p1, r1, n_hat, _ = observed_metrics(obs)
    res = correct_metrics(p1, r1, n_hat / 10_000, eps=eps)
    assert res.precision == pytest.approx(counts[1, 1] / counts[:, 1].sum(), abs=1e-12)
    assert res.recall == pytest.approx(counts[1, 1] / counts[1].sum(), abs=1e-12)


def test_reachable_recall_endpoints_are_images_of_r0_0_and_1():
    # true tables with R0 = 0 and R0 = 1 (pi = 0.3 fixed) through the forward model give
    # the endpoints of the paper's interval.
    alpha, beta, pi, pi1 = 0.15, 0.08, 0.3, 0.25
    lo, _ = reachable_recall(prevalence=pi, system_positive_rate=pi1, alpha=alpha, beta=beta)
    t0 = np.array([[1 - pi - pi1, pi1], [pi, 0.0]])  # R0 = 0: no true positive detected
    assert observed_metrics(observed_from_true(t0, alpha, beta))[1] == pytest.approx(lo, abs=1e-14)
    # R0 = 1 needs pi1 >= pi; use pi1 = 0.4 for that endpoint
    pi1 = 0.4
    _, hi = reachable_recall(prevalence=pi, system_positive_rate=pi1, alpha=alpha, beta=beta)
    t1 = np.array([[1 - pi - (pi1 - pi), pi1 - pi], [0.0, pi]])
    assert observed_metrics(observed_from_true(t1, alpha, beta))[1] == pytest.approx(hi, abs=1e-14)


# ------------------------------------------------------------------ Vasil'ev's paper numbers
@pytest.mark.parametrize(
    ("alpha", "beta", "expected"),
    [(0.12, 0.01, (1, 88)), (0.01, 0.12, (12, 99))],  # Vasil'ev's paper, ROMIP 2012, 2 classes
)
def test_seed_precision_intervals(alpha, beta, expected):
    lo, hi = reachable_precision(alpha=alpha, beta=beta)
    assert (round(100 * lo), round(100 * hi)) == expected


@pytest.mark.parametrize(
    ("pi", "alpha", "beta", "pi1", "expected"),
    [
        # Vasil'ev's paper, ROMIP 2012 "Полнота": class 1 1%-91%, class 2 11%-98%. The paper
        # does not state the system positive rate pi1; pi1 = 0.14 (class 1) and 0.86 (class 2)
        # of one system reproduces all four rounded figures (docs/methods/label-noise.md).
        (0.10, 0.12, 0.01, 0.14, (1, 91)),
        (0.90, 0.01, 0.12, 0.86, (11, 98)),
    ],
)
def test_seed_recall_intervals(pi, alpha, beta, pi1, expected):
    lo, hi = reachable_recall(prevalence=pi, system_positive_rate=pi1, alpha=alpha, beta=beta)
    assert (round(100 * lo), round(100 * hi)) == expected


def test_seed_interval_denominator_is_expert_prevalence():
    # Vasil'ev's paper: pi (1 - alpha - beta) + beta = pi_hat; with R1 = lower end, R0 = 0 exactly.
    pi, a, b, pi1 = 0.1, 0.12, 0.01, 0.14
    pi_hat = pi * (1 - a - b) + b  # 0.097 by hand
    assert pi_hat == pytest.approx(0.097, abs=1e-15)
    lo, hi = reachable_recall(prevalence=pi, system_positive_rate=pi1, alpha=a, beta=b)
    assert lo == pytest.approx(0.14 * 0.01 / 0.097, abs=1e-15)
    assert corrected_recall(lo, expert_prevalence=pi_hat, system_positive_rate=pi1, beta=b) == (
        pytest.approx(0.0, abs=1e-15)
    )
    assert corrected_recall(hi, expert_prevalence=pi_hat, system_positive_rate=pi1, beta=b) == (
        pytest.approx(1.0, abs=1e-15)
    )


# --------------------------------------------------------------------------- inflation factors
def test_inflation_independent_model_matches_seed_printed_formula():
    # Vasil'ev prints l_P = eps(1-eps)/(1-alpha-beta)^2 + P0 (alpha-beta)/(1-alpha-beta) + 1;
    # at alpha = beta = eps = 0.1: 0.09 / 0.64 + 0 + 1 = 1.140625 (by hand).
    f = inflation_factors(
        precision0=0.6,
        recall0=0.5,
        expert_prevalence=0.3,
        system_positive_rate=0.2,
        alpha=0.1,
        beta=0.1,
    )
    assert f.l_precision == pytest.approx(1.140625, abs=1e-15)
    # l_R by hand: beta (R0 (pi_hat-beta)(1-2 pi1) + pi1 (pi_hat - beta pi1)) / (pi_hat-beta)^2 + 1
    #   = 0.1 (0.5*0.2*0.6 + 0.2*(0.3-0.02)) / 0.04 + 1 = 0.1 * 0.116 / 0.04 + 1 = 1.29
    assert f.l_recall == pytest.approx(1.29, abs=1e-14)


@settings(max_examples=40, deadline=None)
@given(
    p0=st.floats(0.05, 0.95),
    r0=st.floats(0.05, 0.95),
    alpha=st.floats(0.0, 0.4),
    beta=st.floats(0.0, 0.4),
)
def test_inflation_equals_excess_binomial_variance(p0, r0, alpha, beta):
    # Independent derivation: l - 1 = (per-item variance of the corrected estimator) minus
    # (error-free variance). Precision: P1 = beta + P0 d, var(P0_hat) n = P1(1-P1)/d^2.
    pi, pi1 = 0.3, 0.25
    d = 1 - alpha - beta
    pi_hat = beta + pi * d
    p1 = beta + p0 * d
    r1 = (r0 * (pi_hat - beta) + beta * pi1) / pi_hat  # forward recall model
    f = inflation_factors(
        precision0=p0,
        recall0=r0,
        expert_prevalence=pi_hat,
        system_positive_rate=pi1,
        alpha=alpha,
        beta=beta,
    )
    ex_p = p1 * (1 - p1) / d**2 - p0 * (1 - p0)
    ex_r = pi_hat**2 * r1 * (1 - r1) / (pi_hat - beta) ** 2 - r0 * (1 - r0)
    assert f.l_precision - 1 == pytest.approx(ex_p, abs=1e-12)
    assert f.l_recall - 1 == pytest.approx(ex_r, abs=1e-12)
    assert f.variance_ratio_precision == pytest.approx(1 + ex_p / (p0 * (1 - p0)), rel=1e-12)


def test_inflation_against_simulation():
    # n system positives; each truly positive w.p. P0, expert errs with alpha / beta.
    rng = np.random.default_rng(20261123)
    p0, a, b, n, reps = 0.7, 0.1, 0.05, 400, 40_000
    p1 = b + p0 * (1 - a - b)
    est = (rng.binomial(n, p1, reps) / n - b) / (1 - a - b)
    f = inflation_factors(
        precision0=p0,
        recall0=0.5,
        expert_prevalence=0.3,
        system_positive_rate=0.2,
        alpha=a,
        beta=b,
    )
    # n var = P0(1-P0) + (l_P - 1); the MC sd of a variance from 40k draws is ~0.7 %
    assert n * est.var() == pytest.approx(p0 * (1 - p0) + f.l_precision - 1, rel=0.03)


# --------------------------------------------------------------------------- delta method
def test_delta_method_against_simulation():
    rng = np.random.default_rng(7)
    true = np.array([[0.55, 0.08], [0.07, 0.30]])  # true[c0, c1]
    a, b, n, reps = 0.1, 0.05, 4000, 20_000
    obs = observed_from_true(true, a, b)  # obs[c1, c0_hat]
    p1, r1, pi_hat, _ = observed_metrics(obs)
    res = correct_metrics(p1, r1, pi_hat, alpha=a, beta=b, n_items=n)
    cells = rng.multinomial(n, [obs[1, 1], obs[1, 0], obs[0, 1], obs[0, 0]], size=reps) / n
    tp, fp, fn = cells[:, 0], cells[:, 1], cells[:, 2]
    p0_sim = (tp / (tp + fp) - b) / (1 - a - b)
    r0_sim = (tp - b * (tp + fp)) / (tp + fn - b)
    # sd from 20k replicates has a relative MC error of ~0.5 %; the delta method's own error
    # is O(1/N); 3 % tolerance.
    assert res.precision_se == pytest.approx(p0_sim.std(), rel=0.03)
    assert res.recall_se == pytest.approx(r0_sim.std(), rel=0.03)
    # closed form for precision: P1 (1-P1) / (N pi1 d^2)
    pi1 = obs[1].sum()
    assert res.precision_se == pytest.approx(
        math.sqrt(p1 * (1 - p1) / (n * pi1 * (1 - a - b) ** 2)), rel=1e-12
    )
    lo, hi = res.precision_ci
    assert lo == pytest.approx(res.precision - 1.959963984540054 * res.precision_se, abs=1e-12)
    assert hi == pytest.approx(res.precision + 1.959963984540054 * res.precision_se, abs=1e-12)


# --------------------------------------------------------------------------- EM
def simulate(rng, n, m, pi, alpha, beta, missing=0.0):
    c0 = rng.random(n) < pi
    u = rng.random((n, m))
    j = np.where(c0[:, None], u >= alpha, u < beta).astype(float)
    if missing:
        drop = rng.random((n, m)) < missing
        drop[:, 0] = False  # every item keeps one judgement
        j[drop] = np.nan
    return j


def neg_loglik_per_item(theta, judgements):
    """Negative log-likelihood summed item by item (written independently of the EM code)."""
    pi, a, b = theta
    total = 0.0
    for row in judgements:
        row = row[~np.isnan(row)]
        k, m = row.sum(), row.size
        l1 = pi * (1 - a) ** k * a ** (m - k)
        l0 = (1 - pi) * b**k * (1 - b) ** (m - k)
        total -= math.log(l1 + l0)
    return total


def fisher_se(pi, a, b, m, n):
    """Asymptotic SEs of (pi, alpha, beta): enumerate the 2^m judgement vectors."""
    theta = np.array([pi, a, b])

    def logp(t, x):
        k = sum(x)
        return math.log(
            t[0] * (1 - t[1]) ** k * t[1] ** (m - k)
            + (1 - t[0]) * t[2] ** k * (1 - t[2]) ** (m - k)
        )

    info = np.zeros((3, 3))
    h = 1e-6
    for x in itertools.product((0, 1), repeat=m):
        grad = np.array(
            [(logp(theta + h * e, x) - logp(theta - h * e, x)) / (2 * h) for e in np.eye(3)]
        )
        info += math.exp(logp(theta, x)) * np.outer(grad, grad)
    return np.sqrt(np.diag(np.linalg.inv(info)) / n)


def test_em_recovers_parameters_within_sampling_error():
    # Vasil'ev's 2-class ROMIP row: pi = 10 %, alpha = 12 %, beta = 1 %.
    rng = np.random.default_rng(20261123)
    pi, a, b, n = 0.10, 0.12, 0.01, 20_000
    est = estimate_error_rates(simulate(rng, n, 3, pi, a, b))
    assert est.converged
    se = fisher_se(pi, a, b, 3, n)
    # 4 asymptotic standard errors (Fisher information by enumeration): a false failure has
    # probability < 1e-4 per parameter.
    assert abs(est.prevalence - pi) < 4 * se[0]
    assert abs(est.alpha - a) < 4 * se[1]
    assert abs(est.beta - b) < 4 * se[2]
    assert est.n_items == n and est.n_judgements == 3 * n
    # the reported SEs (outer product of scores) against the expected information computed
    # by enumeration; the OPG estimate from 20k items is within a few % of it
    assert np.allclose([est.prevalence_se, est.alpha_se, est.beta_se], se, rtol=0.1)


def test_em_is_the_mle_against_scipy():
    rng = np.random.default_rng(3)
    j = simulate(rng, 600, 4, 0.3, 0.2, 0.1, missing=0.3)
    est = estimate_error_rates(j, tol=1e-13)
    opt = minimize(
        neg_loglik_per_item,
        [0.4, 0.15, 0.15],
        args=(j,),
        method="L-BFGS-B",
        bounds=[(1e-6, 1 - 1e-6)] * 3,
        options={"ftol": 1e-15, "gtol": 1e-10},
    )
    assert est.log_likelihood == pytest.approx(-opt.fun, abs=1e-6)
    assert np.allclose([est.prevalence, est.alpha, est.beta], opt.x, atol=1e-4)


def test_em_equal_rates_two_judgements_closed_form():
    # With m = 2 and alpha = beta = eps the model is saturated: P(k=1) = 2 eps (1-eps) and
    # P(k=2) = pi (1-eps)^2 + (1-pi) eps^2, so eps = (1 - sqrt(1 - 2 f1)) / 2 and
    # pi = (f2 - eps^2) / (1 - 2 eps) with f the observed pattern frequencies.
    rng = np.random.default_rng(11)
    j = simulate(rng, 5000, 2, 0.35, 0.08, 0.08)
    k = j.sum(axis=1)
    f1, f2 = np.mean(k == 1), np.mean(k == 2)
    eps = (1 - math.sqrt(1 - 2 * f1)) / 2
    est = estimate_error_rates(j, equal_rates=True, tol=1e-14)
    assert est.eps == pytest.approx(eps, abs=1e-9)
    assert est.prevalence == pytest.approx((f2 - eps**2) / (1 - 2 * eps), abs=1e-9)
    # delta method on the closed form: d eps / d f1 = 1 / (2 sqrt(1 - 2 f1)), var f1 =
    # f1 (1 - f1) / n. The model is saturated (fitted = observed pattern frequencies), so the
    # outer-product-of-scores SE equals this delta-method SE up to rounding.
    se_eps = math.sqrt(f1 * (1 - f1) / 5000) / (2 * math.sqrt(1 - 2 * f1))
    assert est.alpha_se == pytest.approx(se_eps, rel=1e-7)
    assert est.beta_se == est.alpha_se


def test_em_label_switching_invariance():
    # flipping every judgement maps (pi, alpha, beta) to (1 - pi, beta, alpha).
    rng = np.random.default_rng(5)
    j = simulate(rng, 3000, 3, 0.3, 0.15, 0.05)
    e1 = estimate_error_rates(j, tol=1e-13)
    e2 = estimate_error_rates(1.0 - j, tol=1e-13)
    assert e1.alpha + e1.beta < 1 and e2.alpha + e2.beta < 1
    assert e2.prevalence == pytest.approx(1 - e1.prevalence, abs=1e-8)
    assert e2.alpha == pytest.approx(e1.beta, abs=1e-8)
    assert e2.beta == pytest.approx(e1.alpha, abs=1e-8)


def test_em_pattern_counts_by_hand():
    # rows: (1,1,1) (1,1,1) (0,0,nan) (1,0,1): patterns (m,k) = (3,3) x2, (2,0), (3,2)
    j = np.array([[1, 1, 1], [1, 1, 1], [0, 0, np.nan], [1, 0, 1]], dtype=float)
    est = estimate_error_rates(j)
    got = sorted((m, k, c) for m, k, c, _ in est.patterns)
    assert got == [(2, 0, 1), (3, 2, 1), (3, 3, 2)]
    assert est.to_dict()["n_judgements"] == 11


def test_em_uninformative_judgements_warn():
    # every item has one of each judgement pattern equally often: no signal
    j = np.array(list(itertools.product((0.0, 1.0), repeat=3)) * 50)
    with pytest.warns(ForensicLRWarning):
        est = estimate_error_rates(j, max_iter=5)
    assert not est.converged and est.warnings


# --------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"eps": 0.5}, "below 0.5"),
        ({"eps": 0.7}, "below 0.5"),
        ({"alpha": 0.6, "beta": 0.4}, "alpha \\+ beta"),
        ({"alpha": 0.1}, "both alpha"),
        ({"eps": 0.1, "alpha": 0.1, "beta": 0.1}, "not both"),
        ({"eps": -0.1}, "proportion"),
    ],
)
def test_bad_rates(kwargs, match):
    with pytest.raises(InputError, match=match):
        correct_metrics(0.8, 0.7, 0.3, **kwargs)


@settings(max_examples=60, deadline=None)
@given(p1=st.floats(0.0, 1.0), alpha=st.floats(0.0, 0.6), beta=st.floats(0.0, 0.39))
def test_corrected_precision_in_unit_interval_iff_reachable(p1, alpha, beta):
    # Vasil'ev's paper: P0 in [0, 1] exactly when P1 in [beta, 1 - alpha]; otherwise a clear error
    if beta <= p1 <= 1 - alpha:
        assert -1e-15 <= corrected_precision(p1, alpha=alpha, beta=beta) <= 1 + 1e-15
    else:
        with pytest.raises(InputError, match="reachable interval"):
            corrected_precision(p1, alpha=alpha, beta=beta)


def test_unreachable_observed_values_are_explained():
    with pytest.raises(InputError, match="reachable interval"):
        correct_metrics(0.04, 0.7, 0.3, alpha=0.1, beta=0.05)  # P1 < beta
    with pytest.raises(InputError, match="reachable interval"):
        correct_metrics(0.95, 0.7, 0.3, alpha=0.1, beta=0.05)  # P1 > 1 - alpha
    with pytest.raises(InputError, match="reachable"):
        correct_metrics(0.8, 0.99, 0.3, alpha=0.1, beta=0.05)  # R1 above its interval
    with pytest.raises(InputError, match="pi_hat"):
        correct_metrics(0.8, 0.7, 0.03, alpha=0.1, beta=0.05)  # pi_hat < beta
    with pytest.raises(InputError, match="2x2 table"):
        correct_metrics(0.2, 0.9, 0.5, eps=0.01)  # implies pi1 = 2.25
    with pytest.raises(InputError, match="not reachable jointly"):
        # each value is inside its own interval, but the implied true table has a negative
        # cell: pi = (0.675 - 0.165) / 0.655 = 0.7786, pi1 = 0.175 * 0.675 / 0.328 = 0.3601,
        # R0 = 0.1151, 1 - pi - pi1 + R0 pi = -0.0491 (by hand)
        correct_metrics(0.328, 0.175, 0.675, alpha=0.18, beta=0.165)
    with pytest.raises(InputError, match="undetermined"):
        correct_metrics(0.0, 0.0, 0.3, eps=0.01)
    with pytest.raises(InputError, match="n_items"):
        correct_metrics(0.8, 0.7, 0.3, eps=0.1, n_items=0)


@pytest.mark.parametrize(
    ("table", "match"),
    [
        (np.zeros((0, 3)), "non-empty"),
        (np.array([1.0, 0.0, 1.0]), "2-D"),
        (np.array([[1, 0, 2]], dtype=float), r"judgements\[0, 2\] = 2.0"),
        (np.array([[1, 0, 1], [np.nan] * 3]), "row\\) 1 has no judgement"),
        (np.array([[1, 0], [1, 1]], dtype=float), "not identifiable"),
        (np.zeros((5, 3)), "every judgement is 0"),
        (np.array([[1, 1, np.nan], [1, 1, 1]]), "every judgement is 1"),
    ],
)
def test_bad_judgement_tables(table, match):
    with pytest.raises(InputError, match=match):
        estimate_error_rates(table)


def test_single_judgements_with_equal_rates():
    with pytest.raises(InputError, match="single judgement"):
        estimate_error_rates(np.array([[1.0], [0.0]]), equal_rates=True)


# --------------------------------------------------------------------------- CSV reader
def test_read_judgements(tmp_path):
    f = tmp_path / "j.csv"
    f.write_text("item,A,B,C\n# a comment\nx1,1,1,\nx2,0,,0\nx3,1,0,1\n")
    t = read_judgements(f)
    assert t.assessors == ("A", "B", "C") and t.items == ("x1", "x2", "x3")
    expected = np.array([[1, 1, np.nan], [0, np.nan, 0], [1, 0, 1]])
    assert np.array_equal(t.values, expected, equal_nan=True)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "no rows"),
        ("A,B,C\n", "no item rows"),
        ("A,B,C\n1,0,1\n1,yes,0\n", "line 3, column 'B': value 'yes'"),
        ("A,B,C\n1,0,1\n1,0\n", "line 3: 2 fields"),
        ("A,B,C\n1,0,1\n,,\n", "line 3: no assessor"),
        ("1,0,1\n0,0,1\n", "line 1: the first row must name"),
    ],
)
def test_read_judgements_errors(tmp_path, text, match):
    f = tmp_path / "j.csv"
    f.write_text(text)
    with pytest.raises(InputError, match=match):
        read_judgements(f)


def test_read_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_judgements(tmp_path / "nope.csv")


def test_to_dict_is_json_able():
    import json

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = correct_metrics(0.8, 0.7, 0.3, alpha=0.1, beta=0.05, n_items=1000)
    out = json.loads(json.dumps(res.to_dict()))
    assert out["recall"] == pytest.approx(0.7875, abs=1e-15)
    assert out["recall_ci"][0] < 0.7875 < out["recall_ci"][1]


# --------------------------------------------------------------------------- worked example
def test_case_example_numbers():
    # numbers printed in case_examples/label-noise/README.md

    here = examples_dir() / "label-noise"
    table = read_judgements(here / "judgements.csv")
    est = estimate_error_rates(table)
    assert (round(100 * est.alpha, 2), round(100 * est.beta, 2)) == (9.87, 1.15)
    assert round(100 * est.prevalence, 2) == 9.78
    assert round(est.log_likelihood, 6) == -2116.340005
    assert [round(100 * v, 2) for v in (est.alpha_se, est.beta_se, est.prevalence_se)] == [
        1.29,
        0.13,
        0.51,
    ]
    eq = estimate_error_rates(table, equal_rates=True)
    assert (round(100 * eq.eps, 2), round(100 * eq.prevalence, 2)) == (1.99, 8.80)
    assert round(eq.log_likelihood, 2) == -2164.31
    system, truth = np.loadtxt(
        here / "evaluation.csv", delimiter=",", skiprows=1, usecols=(1, 2), unpack=True
    )
    a_labels = table.values[:, 0]
    tp = np.sum(system * a_labels)
    p1, r1, pi_hat = tp / system.sum(), tp / a_labels.sum(), a_labels.mean()
    assert (round(p1, 4), round(r1, 4), round(pi_hat, 4)) == (0.6104, 0.6758, 0.1003)
    res = correct_metrics(0.6104, 0.6758, 0.1003, alpha=0.0987, beta=0.0115, n_items=4000)
    assert (round(100 * res.precision, 2), round(100 * res.recall, 2)) == (67.31, 74.89)
    # the truth (known for synthetic data only) lies inside the 95 % intervals
    p0_true = np.sum(system * truth) / system.sum()
    r0_true = np.sum(system * truth) / truth.sum()
    assert res.precision_ci[0] < p0_true < res.precision_ci[1]
    assert res.recall_ci[0] < r0_true < res.recall_ci[1]


def test_small_cells_warn():
    # N = 50: the (system 1, expert 0) cell holds 50 * 0.2625 * 0.2 = 2.6 items
    with pytest.warns(ForensicLRWarning, match="fewer than 10"):
        res = correct_metrics(0.8, 0.7, 0.3, eps=0.1, n_items=50)
    assert len(res.warnings) == 1
