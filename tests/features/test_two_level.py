"""The two-level model of Aitken and Lucy (2004) against the values printed for Zadora's glass
data, brute-force numerical integration over the source's true value (scipy.integrate) of
the replicates' own densities, Lindley's (1977) closed form, and a per-source loop for its
variance components."""

from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

from forensic_lr.errors import InputError, NotFittedError
from forensic_lr.features import load_measurements, measurements_from_arrays, pair_units
from forensic_lr.features.two_level import (
    TwoLevelModel,
    cross_validated_pair_llr,
    default_bandwidth,
)

DATA = Path(__file__).parent / "data" / "zadora_glass.csv"


@pytest.fixture(scope="module")
def glass():
    return load_measurements(DATA)


@pytest.mark.parametrize("between, same, different", [
    # R package comparison 1.0-5 (Lucy, Curran, Martyna 2020), tests/testCalcLR.R and the
    # help pages of two.level.normal.LR / two.level.density.LR: control = rows 1-6 (object
    # s1), recovered = rows 7-12 (s1) and rows 19-24 (s2), features logKO, logCaO, logFeO,
    # population all 200 objects; printed to 9 decimal places
    ("normal", 51.1424311, 0.0289990757),
    ("kde", 20.5896672, 0.0116139204),
])
def test_zadora_glass_reproduces_the_published_likelihood_ratios(glass, between, same,
                                                                 different):
    model = TwoLevelModel(between=between).fit(glass)
    x = glass.values
    assert round(float(np.exp(model.llr(x[0:6], x[6:12]))), 7) == same
    assert round(float(np.exp(model.llr(x[0:6], x[18:24]))), 10) == different


def _components_by_loop(x, sources):
    """U, C and mu by the textbook one-way ANOVA, one source at a time (Searle et al.
    1992, sec. 3.6): SSW / (N - m); (SSB / (m - 1) - U) / n0."""
    groups = [x[sources == s] for s in dict.fromkeys(sources)]
    big_n, m = len(x), len(groups)
    mu = x.mean(axis=0)
    ssw = sum((g - g.mean(0)).T @ (g - g.mean(0)) for g in groups)
    ssb = sum(len(g) * np.outer(g.mean(0) - mu, g.mean(0) - mu) for g in groups)
    u = ssw / (big_n - m)
    n0 = (big_n - sum(len(g) ** 2 for g in groups) / big_n) / (m - 1)
    return mu, u, (ssb / (m - 1) - u) / n0


def test_variance_components_match_a_per_source_anova_and_aitken_lucys_balanced_form(glass):
    rng = np.random.default_rng(4)
    counts = rng.integers(2, 7, size=40)
    sources = np.repeat(np.arange(40), counts).astype(str)
    theta = rng.normal(size=(40, 2)) * [1.0, 3.0]
    x = theta[np.repeat(np.arange(40), counts)] + rng.normal(size=(counts.sum(), 2)) * 0.3
    model = TwoLevelModel().fit(x, sources)
    mu, u, c = _components_by_loop(x, sources)
    np.testing.assert_allclose(model.mean_, mu, rtol=1e-12)
    np.testing.assert_allclose(model.within_, u, rtol=1e-10)
    np.testing.assert_allclose(model.between_, c, rtol=1e-10)
    # balanced (12 measurements per object): C = S_b / (m - 1) - U / n, Aitken & Lucy p. 114
    fitted = TwoLevelModel().fit(glass)
    means = np.array([glass.values[glass.sources == s].mean(0)
                      for s in dict.fromkeys(glass.sources)])
    s_b = (means - means.mean(0)).T @ (means - means.mean(0))
    np.testing.assert_allclose(fitted.between_, s_b / 199 - fitted.within_ / 12, rtol=1e-9)


def _population(d=1, m=30, n=4, seed=5):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(m, d)) * 2.0 + 10.0
    x = theta[np.repeat(np.arange(m), n)] + rng.normal(size=(m * n, d)) * 0.4
    return measurements_from_arrays(x, np.repeat(np.arange(m), n))


def _integral(log_density, lo, hi, shift):
    """integral of exp(log_density(theta) - shift) over [lo, hi], to 1e-13 relative."""
    value, _ = integrate.quad(lambda t: np.exp(log_density(t) - shift), lo, hi,
                              epsabs=0, epsrel=1e-13, limit=500)
    return np.log(value) + shift


@pytest.mark.parametrize("recovered", [[10.6, 10.4], [12.0, 12.5, 11.8, 12.2], [13.5]])
@pytest.mark.parametrize("between", ["normal", "kde"])
def test_univariate_llr_equals_numerical_integration_over_the_true_value(between, recovered):
    """LR = int p(xc|t) p(xr|t) f(t) dt / (int p(xc|t) f(t) dt int p(xr|t) f(t) dt), with
    p(x|t) the product of the replicates' own normal densities (not their means): the
    model's reduction to means and its closed-form integrals are both checked."""
    m = _population()
    model = TwoLevelModel(between=between).fit(m)
    sd = np.sqrt(model.within_[0, 0])
    if between == "normal":
        def log_f(t):
            return stats.norm.logpdf(t, model.mean_[0], np.sqrt(model.between_[0, 0]))
    else:
        spread = model.bandwidth_ * np.sqrt(model.between_[0, 0])

        def log_f(t):
            return np.log(np.mean(stats.norm.pdf(t, model.centres_[:, 0], spread)))
    control, recovered = np.array([10.3, 10.9, 10.5]), np.array(recovered)

    def joint(t, *items):
        return sum(stats.norm.logpdf(v, t, sd).sum() for v in items) + log_f(t)

    lo, hi = 0.0, 20.0
    both = np.r_[control, recovered]
    num = _integral(lambda t: joint(t, control, recovered), lo, hi,
                    joint(both.mean(), control, recovered))
    den = (_integral(lambda t: joint(t, control), lo, hi, joint(control.mean(), control))
           + _integral(lambda t: joint(t, recovered), lo, hi,
                       joint(recovered.mean(), recovered)))
    assert model.llr(control[:, None], recovered[:, None]) == pytest.approx(num - den, abs=1e-8)


def test_bivariate_normal_llr_equals_a_double_integral():
    m = _population(d=2, m=25, n=3, seed=8)
    model = TwoLevelModel().fit(m)
    within, between, mu = model.within_, model.between_, model.mean_
    control = np.array([[9.8, 10.4], [10.2, 10.1]])
    recovered = np.array([[10.6, 9.9], [10.1, 10.3], [10.5, 10.0]])

    inv_w, inv_b = np.linalg.inv(within), np.linalg.inv(between)
    log_w = -0.5 * np.linalg.slogdet(2 * np.pi * within)[1]
    log_b = -0.5 * np.linalg.slogdet(2 * np.pi * between)[1]

    def log_joint(t, *items):  # replicates' normal densities given t, times f(t)
        rows = np.vstack(items) - t
        return (len(rows) * log_w - 0.5 * np.einsum("ij,jk,ik->", rows, inv_w, rows)
                + log_b - 0.5 * (t - mu) @ inv_b @ (t - mu))

    def integral(*items):
        centre = np.vstack(items).mean(0)
        shift = log_joint(centre, *items)
        half = 6 * np.sqrt(np.diag(within))  # the likelihood is negligible beyond
        value, _ = integrate.dblquad(
            lambda b, a: np.exp(log_joint(np.array([a, b]), *items) - shift),
            centre[0] - half[0], centre[0] + half[0], centre[1] - half[1],
            centre[1] + half[1], epsabs=0, epsrel=1e-11)
        return np.log(value) + shift

    want = integral(control, recovered) - integral(control) - integral(recovered)
    assert model.llr(control, recovered) == pytest.approx(want, abs=1e-8)


def test_univariate_normal_llr_is_lindleys_1977_closed_form():
    """D. V. Lindley, "A problem in forensic science", Biometrika 64 (1977) 207-213: the
    LR in its own algebra (as written out in Aitken and Taroni 2004, sec. 10.4)."""
    m = _population()
    model = TwoLevelModel().fit(m)
    u, c, mu = model.within_[0, 0], model.between_[0, 0], model.mean_[0]
    x, nx, y, ny = 10.5, 3, 11.4, 5
    a2 = 1 / nx + 1 / ny
    w = (nx * x + ny * y) / (nx + ny)
    d1, d2, d3 = c + u / nx, c + u / ny, c + u / (nx + ny)
    z = (d2 * x + d1 * y) / (d1 + d2)
    log_lr = (np.log(np.sqrt(d1 * d2) / (np.sqrt(a2 * u) * np.sqrt(d3)))
              - (x - y) ** 2 * c / (a2 * u * (d1 + d2))
              + (z - mu) ** 2 * (d1 + d2) / (2 * d1 * d2) - (w - mu) ** 2 / (2 * d3))
    got = model.llr_means([x], nx, [y], ny)[0]
    assert got == pytest.approx(log_lr, abs=1e-10)


def test_llr_stays_finite_far_in_the_tails_and_is_symmetric():
    m = _population(d=2)
    for between in ("normal", "kde"):
        model = TwoLevelModel(between=between).fit(m)
        far = np.array([[400.0, -300.0]])
        got = model.llr_means(far, 3, far + 0.1, 2)[0]
        assert np.isfinite(got) and got > 50  # identical and very atypical: strong support
        apart = model.llr_means(far, 3, -far, 2)[0]
        assert np.isfinite(apart) and apart < -1e4
        a, b = m.values[:3], m.values[5:9]
        assert model.llr(a, b) == pytest.approx(model.llr(b, a), abs=1e-12)


def test_typicality_a_common_value_gives_a_smaller_lr_than_a_rare_one_at_equal_distance():
    m = _population()
    model = TwoLevelModel().fit(m)
    common = model.llr_means([model.mean_[0]], 3, [model.mean_[0] + 0.1], 3)[0]
    rare = model.llr_means([model.mean_[0] + 5], 3, [model.mean_[0] + 5.1], 3)[0]
    assert rare > common > 0


def test_bandwidth_rule_and_bad_options():
    assert default_bandwidth(200, 3) == pytest.approx((4 / 7) ** (1 / 7) * 200 ** (-1 / 7))
    with pytest.raises(InputError, match="'normal' or 'kde'"):
        TwoLevelModel(between="t")
    with pytest.raises(InputError, match="kde' only"):
        TwoLevelModel(bandwidth=0.5)
    with pytest.raises(NotFittedError):
        TwoLevelModel().llr([1.0], [2.0])
    flat = measurements_from_arrays(np.r_[np.zeros(6), 1.0] + np.arange(7) * 1e-3,
                                    ["a", "a", "b", "b", "c", "c", "c"])
    with pytest.raises(InputError, match="not positive definite"):
        TwoLevelModel().fit(flat)


def test_cross_validated_llrs_come_from_models_that_never_saw_the_pairs_sources():
    m = _population(d=2, m=24, n=4)
    units, pairs = pair_units(m, "source")
    model = TwoLevelModel()
    out = cross_validated_pair_llr(model, m, units, pairs, folds=4, seed=1)
    assert np.isfinite(out).all()
    # a pair of sources s, t: its LLR is that of a model fitted on the other sources only,
    # whichever split tested it (the model is refitted without every source the split tests)
    inside = model.fit(m).llr_pairs(units, pairs)
    assert not np.allclose(out, inside)
    assert np.mean(out[pairs.same] > 0) > 0.9 and np.mean(out[~pairs.same] < 0) > 0.9


def test_pairs_of_units_get_the_llr_of_their_means_and_the_kernel_sum_matches_scipy():
    m = _population(d=3, m=30, n=4, seed=9)
    units, pairs = pair_units(m, "item")
    model = TwoLevelModel(between="kde").fit(m)
    a, b = pairs.first, pairs.second
    direct = model.llr_means(units.means[a], units.counts[a], units.means[b], units.counts[b])
    np.testing.assert_allclose(model.llr_pairs(units, pairs), direct, rtol=1e-12, atol=1e-12)
    # log g(y; U/n) of one point as scipy's normal log densities summed one centre at a time
    y, n = units.means[0], units.counts[0]
    cov = model.within_ / n + model.bandwidth_**2 * model.between_
    terms = [stats.multivariate_normal.logpdf(y, c, cov) for c in model.centres_]
    want = np.logaddexp.reduce(terms) - np.log(len(terms))
    assert model._log_g(y[None, :], np.array([n]))[0] == pytest.approx(want, abs=1e-10)
