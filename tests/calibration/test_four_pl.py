"""Four-parameter logistic calibration, against an implementation written here in
probability space with the lir package's parametrisation ``p = c + (1 - c)/(1 + d) expit(a s + b)``
fitted by a bounded optimiser, and against the logistic calibrator (Newton) without infinities."""

import json
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from forensic_lr.calibration import CALIBRATORS, make_calibrator
from forensic_lr.errors import InputError


def _data(seed, n_ss=120, n_ds=200, inf_ss=0, inf_ds=0):
    rng = np.random.default_rng(seed)
    ss = np.concatenate([rng.normal(1.5, 1.2, n_ss), np.full(inf_ss, -np.inf)])
    ds = np.concatenate([rng.normal(-1.0, 1.5, n_ds), np.full(inf_ds, np.inf)])
    return ss, ds


def _reference_fit(ss, ds, floor, ceiling):
    """Minimise the balanced cross-entropy in probability space over (a, b[, c][, d])."""
    def p_of(s, a, b, c, d):
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.where(np.isinf(s), np.sign(a) * s, a * s + b)
        return c + (1 - c) / (1 + d) / (1 + np.exp(-z))

    def unpack(x):
        a, b, rest = x[0], x[1], list(x[2:])
        c = rest.pop(0) if floor else 0.0
        d = rest.pop(0) if ceiling else 0.0
        return a, b, c, d

    def loss(x):
        a, b, c, d = unpack(x)
        with np.errstate(divide="ignore"):
            return (-np.mean(np.log(p_of(ss, a, b, c, d)))
                    - np.mean(np.log(1 - p_of(ds, a, b, c, d))))

    x0 = [1.0, 0.0] + [0.01] * floor + [0.01] * ceiling
    bounds = [(None, None)] * 2 + [(1e-12, 1 - 1e-12)] * floor + [(1e-12, None)] * ceiling
    best = minimize(loss, x0, method="L-BFGS-B", bounds=bounds,
                    options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000})
    best = minimize(loss, best.x, method="Nelder-Mead", bounds=bounds,
                    options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000})

    def llr(s):
        p = p_of(s, *unpack(best.x))
        with np.errstate(divide="ignore"):
            return np.log(p) - np.log1p(-p)
    return best.fun, llr


@pytest.mark.parametrize("inf_ss, inf_ds", [(0, 0), (3, 0), (0, 4), (2, 5)])
def test_four_pl_against_a_probability_space_fit(inf_ss, inf_ds):
    ss, ds = _data(inf_ss * 10 + inf_ds, inf_ss=inf_ss, inf_ds=inf_ds)
    cal = make_calibrator("four_pl").fit(ss, ds)
    p = cal.params()
    assert (p["floor_fitted"], p["ceiling_fitted"]) == (inf_ss > 0, inf_ds > 0)
    ref_loss, ref_llr = _reference_fit(ss, ds, inf_ss > 0, inf_ds > 0)
    with np.errstate(over="ignore"):
        ours = (np.mean(np.logaddexp(0, -cal.llr(ss))) + np.mean(np.logaddexp(0, cal.llr(ds))))
    assert ours <= ref_loss + 1e-9  # our optimum is at least as good
    assert ours == pytest.approx(ref_loss, abs=1e-7)
    s = np.array([-np.inf, -3.0, 0.0, 2.0, np.inf])
    np.testing.assert_allclose(cal.llr(s), ref_llr(s), atol=2e-3)


def test_infinite_scores_get_finite_llrs_at_floor_and_ceiling():
    ss, ds = _data(7, inf_ss=2, inf_ds=3)
    cal = make_calibrator("four_pl").fit(ss, ds)
    p = cal.params()
    lo, hi = cal.llr([-np.inf, np.inf])
    assert np.isfinite([lo, hi]).all()
    assert lo == pytest.approx(math.log(p["floor"] / (1 - p["floor"])), rel=1e-9)
    assert hi == pytest.approx(math.log(p["ceiling"] / (1 - p["ceiling"])), rel=1e-9)
    assert 0 < p["floor"] < p["ceiling"] < 1
    json.dumps(p)


def test_without_infinities_it_is_logistic_calibration():
    ss, ds = _data(3)
    ours = make_calibrator("four_pl").fit(ss, ds)
    newton = make_calibrator("logistic").fit(ss, ds)
    s = np.linspace(-5, 5, 11)
    np.testing.assert_allclose(ours.llr(s), newton.llr(s), atol=1e-6)


def test_weights_are_counts():
    ss, ds = _data(4, 30, 40, inf_ss=1, inf_ds=1)
    w_ss = np.arange(ss.size) % 3
    w_ds = (np.arange(ds.size) % 2) + 1
    weighted = make_calibrator("four_pl").fit(ss, ds, w_ss, w_ds)
    repeated = make_calibrator("four_pl").fit(np.repeat(ss, w_ss), np.repeat(ds, w_ds))
    s = np.array([-np.inf, -1.0, 0.5, np.inf])
    np.testing.assert_allclose(weighted.llr(s), repeated.llr(s), atol=1e-5)


def test_four_pl_is_registered_and_refuses_unusable_data():
    assert CALIBRATORS["four_pl"].name == "four_pl"
    with pytest.raises(InputError, match="two different finite ss scores"):
        make_calibrator("four_pl").fit([1.0, -np.inf, 1.0], [1.0, 0.0, np.inf])
    with pytest.raises(InputError):
        make_calibrator("four_pl").fit([1.0, np.nan], [0.0, 1.0])
