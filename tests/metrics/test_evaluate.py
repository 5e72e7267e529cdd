"""Binary metrics against independent values: brute force, scikit-learn, scipy, hand work."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

from forensic_lr import metrics as m
from forensic_lr.errors import InputError

LN2 = np.log(2)


def sample(seed, n_ss=40, n_ds=90, decimals=1):
    """Rounded Gaussian scores, so that ties occur within and across classes."""
    rng = np.random.default_rng(seed)
    return (
        rng.normal(1.5, 1.5, n_ss).round(decimals),
        rng.normal(-1.0, 1.5, n_ds).round(decimals),
    )


# ---------------------------------------------------------------------- brute-force references
def brute_auc(ss, ds):
    diff = ss[:, None] - ds[None, :]
    return np.mean(diff > 0) + 0.5 * np.mean(diff == 0)


def brute_roc_points(ss, ds):
    """Decide Hp when score > t, for t = -inf and every distinct pooled value."""
    t = np.r_[-np.inf, np.unique(np.r_[ss, ds])]
    p_miss = np.array([np.mean(ss <= v) for v in t])
    p_fa = np.array([np.mean(ds > v) for v in t])
    return p_miss, p_fa


def brute_min_dcf(ss, ds, p, c_miss=1.0, c_fa=1.0):
    p_miss, p_fa = brute_roc_points(ss, ds)
    return np.min(p * c_miss * p_miss + (1 - p) * c_fa * p_fa)


def brute_rocch_eer(ss, ds):
    """EER of the convex hull = max over priors of the minimum Bayes error (unit costs)."""
    priors = np.linspace(1e-4, 1 - 1e-4, 20001)
    return max(brute_min_dcf(ss, ds, p) for p in priors[::50])


def sklearn_pav_llr(ss, ds):
    """Prior-neutral PAV LLR from scikit-learn's isotonic regression (classes weighted equally)."""
    x = np.r_[ss, ds]
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    w = np.r_[np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)]
    p = IsotonicRegression(y_min=0, y_max=1).fit(x, y, sample_weight=w).predict(x)
    with np.errstate(divide="ignore"):
        llr = np.log(p) - np.log1p(-p)
    return llr[: ss.size], llr[ss.size :]


# ---------------------------------------------------------------------- cllr
def test_cllr_hand_computed():
    # llr_ss = [0, ln 3], llr_ds = [-ln 3]:
    # SS: log2(1+1) = 1 and log2(1 + 1/3) = 0.415037...; DS: log2(1 + 1/3) = 0.415037...
    expected = 0.5 * (1 + np.log2(4 / 3)) / 2 + 0.5 * np.log2(4 / 3)
    assert m.cllr([0.0, np.log(3)], [-np.log(3)]) == pytest.approx(expected, rel=1e-14)


def test_cllr_uninformative_is_one():
    assert m.cllr(np.zeros(7), np.zeros(3)) == pytest.approx(1.0, abs=1e-15)


def test_cllr_extreme_and_infinite_llrs():
    assert m.cllr([1e3], [-1e3]) == pytest.approx(0.0, abs=1e-300)
    # wrong side by 1e3 nats: cost ~ 1e3 / ln 2 bits on half the weight
    assert m.cllr([-1e3], [-1e3]) == pytest.approx(0.5 * 1e3 / LN2, rel=1e-12)
    assert m.cllr([np.inf], [-np.inf]) == 0.0
    assert m.cllr([-np.inf], [0.0]) == np.inf


def test_cllr_of_calibrated_gaussian_llrs_matches_numerical_integration():
    # For calibrated Gaussian LLRs, llr_ss ~ N(mu, 2 mu) and llr_ds ~ N(-mu, 2 mu) (variance 2 mu).
    mu = 2.0
    sd = np.sqrt(2 * mu)
    expected_ss = integrate.quad(
        lambda x: np.logaddexp(0, -x) * stats.norm.pdf(x, mu, sd), -60, 60
    )[0]
    expected = expected_ss / LN2  # the DS half is the mirror image, same value
    rng = np.random.default_rng(1)
    n = 400_000
    got = m.cllr(rng.normal(mu, sd, n), rng.normal(-mu, sd, n))
    # standard error of the sample mean of log2(1+e^-x) is about 1.2 / sqrt(n) / 2 -> 1e-3
    assert got == pytest.approx(expected, abs=4e-3)
    # calibrated: the PAV cannot improve much (only its small-sample overfit)
    assert m.cllr_cal(rng.normal(mu, sd, 20_000), rng.normal(-mu, sd, 20_000)) < 0.01


# ---------------------------------------------------------------------- PAV / minCllr
@pytest.mark.parametrize("seed", range(5))
def test_pav_llr_matches_sklearn_isotonic_regression(seed):
    ss, ds = sample(seed)
    ours = m.pav_llr(ss, ds)
    ref = sklearn_pav_llr(ss, ds)
    for a, b in zip(ours, ref, strict=True):
        finite = np.isfinite(b)
        assert np.array_equal(np.isfinite(a), finite)
        assert np.allclose(a[finite], b[finite], atol=1e-10)
        assert np.array_equal(a[~finite], b[~finite])
    assert m.min_cllr(ss, ds) == pytest.approx(m.cllr(*ref), rel=1e-12)


def test_pav_hand_computed_with_ties():
    # sorted pooled: 1(ds) 2(ss) 2(ds) 3(ss) ; N_ss = N_ds = 2
    # groups by value: {1: 0/1}, {2: 1/2}, {3: 1/1}: already monotone -> three blocks
    # block llr = log(n_ss/2) - log(n_ds/2): -inf, 0, +inf
    fit = m.pav_fit([2.0, 3.0], [1.0, 2.0])
    assert fit.block_low.tolist() == [1.0, 2.0, 3.0]
    assert fit.llr.tolist() == [-np.inf, 0.0, np.inf]
    # minCllr = 0.5 * mean(log2(1+e^0), 0) + 0.5 * mean(0, log2(1+e^0)) = 0.5
    assert m.min_cllr([2.0, 3.0], [1.0, 2.0]) == pytest.approx(0.5)


def test_pav_pools_violators():
    # sorted: 1(ss) 2(ds) 3(ds) 4(ss): SS shares 1,0,0,1 -> first three pool to 1/3
    fit = m.pav_fit([1.0, 4.0], [2.0, 3.0])
    assert fit.n_ss.tolist() == [1.0, 1.0]
    assert fit.n_ds.tolist() == [2.0, 0.0]
    assert fit.llr[0] == pytest.approx(np.log(0.5) - np.log(1.0))


# ---------------------------------------------------------------------- ROC, EER, AUC
@pytest.mark.parametrize("seed", range(6))
def test_auc_against_brute_force_and_sklearn(seed):
    ss, ds = sample(seed)
    assert m.auc(ss, ds) == pytest.approx(brute_auc(ss, ds), abs=1e-14)
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    assert m.auc(ss, ds) == pytest.approx(roc_auc_score(y, np.r_[ss, ds]), abs=1e-14)
    assert m.evaluate(ss, ds).auc == pytest.approx(brute_auc(ss, ds), abs=1e-14)


@pytest.mark.parametrize("seed", range(6))
def test_roc_points_against_threshold_scan(seed):
    ss, ds = sample(seed, 15, 25)
    curve = m.roc(ss, ds)
    p_miss, p_fa = brute_roc_points(ss, ds)
    assert np.allclose(curve.p_miss, p_miss) and np.allclose(curve.p_fa, p_fa)


@pytest.mark.parametrize("seed", range(6))
def test_min_dcf_against_threshold_scan(seed):
    ss, ds = sample(seed)
    for p, c_miss, c_fa in [(0.5, 1, 1), (0.1, 1, 1), (0.9, 2, 1), (0.01, 10, 1)]:
        got = m.min_dcf(ss, ds, p, c_miss, c_fa)
        assert got == pytest.approx(brute_min_dcf(ss, ds, p, c_miss, c_fa), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_rocch_eer_is_the_maximum_over_priors_of_min_bayes_error(seed):
    ss, ds = sample(seed, 30, 50)
    assert m.eer(ss, ds) == pytest.approx(brute_rocch_eer(ss, ds), abs=2e-3)
    # and the APE minimum curve peaks at the EER (fine prior grid)
    peak = m.ape_curve(ss, ds, plo=np.linspace(-5, 5, 20001)).minimum.max()
    assert peak == pytest.approx(m.eer(ss, ds), abs=1e-3)


def test_eer_hand_computed():
    # ss = [2, 4], ds = [1, 3]: raw ROC points (p_fa, p_miss): (1,0) (.5,0) (.5,.5) (0,.5) (0,1)
    # the hull skips (.5,.5) and joins (.5,0)-(0,.5), which crosses p_miss = p_fa at 0.25;
    # the raw curve passes through (.5,.5): eer_interpolated = 0.5
    assert m.eer([2.0, 4.0], [1.0, 3.0]) == pytest.approx(0.25)
    assert m.eer_interpolated([2.0, 4.0], [1.0, 3.0]) == pytest.approx(0.5)
    assert m.eer([1.0, 2.0], [1.0, 2.0]) == pytest.approx(0.5)  # no discrimination


def test_dcf_hand_computed():
    # p = 0.5, unit costs: threshold 0; ss = [-1, 1, 2] -> P_miss = 1/3; ds = [-2, 0.0, 0.5]
    # decide Hp when llr >= 0 -> P_fa = 2/3; DCF = 0.5/3 + 0.5*2/3 = 0.5; normalised / 0.5 = 1
    assert m.dcf([-1, 1, 2], [-2, 0.0, 0.5], 0.5) == pytest.approx(0.5)
    assert m.dcf([-1, 1, 2], [-2, 0.0, 0.5], 0.5, normalize=True) == pytest.approx(1.0)
    assert m.bayes_threshold(0.1, 1, 1) == pytest.approx(np.log(9))


# ---------------------------------------------------------------------- curves
def test_ape_curve_reference_and_actual_by_hand():
    curve = m.ape_curve([1.0], [-1.0], plo=np.array([0.0, 2.0]))
    # plo 0: threshold 0, no errors; plo 2: threshold -2 -> the DS llr -1 >= -2 is a false alarm
    assert curve.actual.tolist() == pytest.approx([0.0, 1 - 1 / (1 + np.exp(-2))])
    assert curve.reference.tolist() == pytest.approx([0.5, 1 / (1 + np.exp(2))])


def test_ece_at_zero_prior_log_odds_is_cllr():
    ss, ds = sample(3)
    curve = m.ece_curve(ss, ds, plo=np.array([0.0]))
    assert curve.actual[0] == pytest.approx(m.cllr(ss, ds))
    assert curve.calibrated[0] == pytest.approx(m.min_cllr(ss, ds))
    assert curve.reference[0] == pytest.approx(1.0)


def test_tippett_does_not_extrapolate():
    ss, ds = np.array([0.0, np.log(10), np.log(100)]), np.array([-np.log(10), 0.0])
    t = m.tippett(ss, ds)
    assert t.log10_lr.tolist() == pytest.approx([-1, 0, 1, 2])
    assert t.ss_prop_ge.tolist() == pytest.approx([1, 1, 2 / 3, 1 / 3])
    assert t.ds_prop_ge.tolist() == pytest.approx([1, 0.5, 0, 0])


def test_rates_of_misleading_evidence():
    assert m.rmep([-1, 0, 2, 3], [0]) == 0.25  # LR = 1 is not misleading
    assert m.rmed([0], [-1, 0.5, 1, 0]) == 0.5


def test_devpav_hand_computed():
    # ss = [0, 0, 1], ds = [-1, 0, 0]: groups -1 (0 ss/1 ds), 0 (2/2), 1 (1/0) -> PAV llr
    # -inf, 0, +inf: a single finite point (x = 0, y = 0) -> its distance to y = x, 0
    assert m.devpav([0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]) == 0.0
    assert m.devpav([0.5, 0.5, 1.0], [-1.0, 0.5, 0.5]) == pytest.approx(0.5 / np.log(10))
    assert np.isnan(m.devpav([1.0, 2.0], [-1.0, 0.0]))  # separated: no finite block
    # ss = [0, ln 10, 5], ds = [-5, 0, ln 10]: groups at 0 and ln 10 hold 1 SS + 1 DS each,
    # so they pool into one block with llr log(2/3) - log(2/3) = 0 spanning log10 LR 0..1.
    # The PAV curve is y = 0 on x in [0, 1]; area to y = x is 1/2, divided by width 1.
    ln10 = np.log(10)
    assert m.devpav([0.0, ln10, 5.0], [-5.0, 0.0, ln10]) == pytest.approx(0.5)


# ---------------------------------------------------------------------- properties
llr_lists = st.lists(
    st.floats(-30, 30, allow_nan=False).map(lambda v: round(v, 1)), min_size=1, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(ss=llr_lists, ds=llr_lists, seed=st.integers(0, 1000))
def test_properties(ss, ds, seed):
    ss, ds = np.array(ss), np.array(ds)
    e = m.evaluate(ss, ds)
    assert e.min_cllr <= e.cllr + 1e-12
    assert 0.0 <= e.eer <= 0.5 + 1e-12
    assert 0.0 <= e.auc <= 1.0
    assert m.auc(ss, ds) + m.auc(ds, ss) == pytest.approx(1.0)
    rng = np.random.default_rng(seed)
    shuffled = m.evaluate(rng.permutation(ss), rng.permutation(ds))
    assert shuffled.to_dict() == pytest.approx(e.to_dict(), nan_ok=True)
    # minCllr, EER, AUC depend only on the order: invariant to a strictly monotone map
    moved = m.evaluate(np.sinh(ss / 5) * 3 + 1, np.sinh(ds / 5) * 3 + 1)
    assert moved.min_cllr == pytest.approx(e.min_cllr, abs=1e-9)
    assert moved.eer == pytest.approx(e.eer, abs=1e-12)
    assert moved.auc == pytest.approx(e.auc, abs=1e-12)


def test_evaluate_agrees_with_the_single_functions():
    ss, ds = sample(9)
    e = m.evaluate(ss, ds)
    assert e.cllr == m.cllr(ss, ds)
    assert e.min_cllr == pytest.approx(m.min_cllr(ss, ds))
    assert e.eer == pytest.approx(m.eer(ss, ds))
    assert e.devpav == pytest.approx(m.devpav(ss, ds))
    assert e.rmep == m.rmep(ss, ds) and e.rmed == m.rmed(ss, ds)
    assert (e.n_ss, e.n_ds) == (40, 90)


@pytest.mark.parametrize(
    "bad", [[np.nan, 1.0], [], [[1.0, 2.0]], ["x"]], ids=["nan", "empty", "2d", "text"]
)
def test_bad_input_raises_input_error(bad):
    with pytest.raises(InputError):
        m.evaluate(bad, [0.0, 1.0])
    with pytest.raises(InputError):
        m.cllr([0.0], bad)


@pytest.mark.parametrize("seed", range(3))
def test_devpav_agrees_with_lir(seed):
    """Published implementation (lir, Netherlands Forensic Institute), when installed."""
    devpav_module = pytest.importorskip("lir.metrics.devpav")
    ss, ds = sample(seed, 200, 300)
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    reference = devpav_module.devpav(np.r_[ss, ds] / np.log(10), y)  # lir takes log10 LRs
    assert m.devpav(ss, ds) == pytest.approx(reference, rel=1e-12)
