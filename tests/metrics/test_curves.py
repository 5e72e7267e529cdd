"""ROC hull, DET, DCF, APE, ECE and Tippett data against independent computations.

Independent values used here: scipy.spatial.ConvexHull (Qhull) for the ROC convex hull,
scipy.stats.norm.ppf for DET coordinates, threshold scans and per-trial Python loops for
error rates, the closed-form binary entropy for the ECE reference, math.log1p/math.exp in
plain Python for the ECE, and scikit-learn's IsotonicRegression for the PAV LLRs.
"""

import math

import numpy as np
import pytest
from scipy.spatial import ConvexHull
from scipy.special import expit
from scipy.stats import norm
from sklearn.isotonic import IsotonicRegression

from forensic_lr import metrics as m
from forensic_lr.errors import InputError


def sample(seed, n_ss=30, n_ds=50, decimals=1):
    """Rounded Gaussian LLRs, so that ties occur within and across classes."""
    rng = np.random.default_rng(seed)
    return rng.normal(1.5, 1.5, n_ss).round(decimals), rng.normal(-1.0, 1.5, n_ds).round(decimals)


def brute_roc(ss, ds):
    """Raw ROC points by a scan: decide Hp when score > t, t = -inf and every pooled value."""
    t = np.r_[-np.inf, np.unique(np.r_[ss, ds])]
    p_miss = np.array([np.mean(ss <= v) for v in t])
    p_fa = np.array([np.mean(ds > v) for v in t])
    return p_fa, p_miss


def brute_min_bayes_error(ss, ds, p, c_miss=1.0, c_fa=1.0):
    p_fa, p_miss = brute_roc(ss, ds)
    return np.min(p * c_miss * p_miss + (1 - p) * c_fa * p_fa)


def sklearn_pav_llr(ss, ds):
    """Prior-neutral PAV LLRs from scikit-learn (class weights 1/(2 N)); sklearn pools tied x."""
    x = np.r_[ss, ds]
    y = np.r_[np.ones(ss.size), np.zeros(ds.size)]
    w = np.r_[np.full(ss.size, 0.5 / ss.size), np.full(ds.size, 0.5 / ds.size)]
    p = IsotonicRegression(y_min=0, y_max=1).fit(x, y, sample_weight=w).predict(x)
    with np.errstate(divide="ignore"):
        llr = np.log(p) - np.log1p(-p)
    return llr[: ss.size], llr[ss.size :]


def python_ece(ss, ds, plo):
    """ECE in bits by a plain double loop (math module, no numpy vectorisation)."""
    out = []
    for g in plo:
        p = 1 / (1 + math.exp(-g))
        c_ss = sum(math.log1p(math.exp(-(x + g))) for x in ss) / len(ss)
        c_ds = sum(math.log1p(math.exp(x + g)) for x in ds) / len(ds)
        out.append((p * c_ss + (1 - p) * c_ds) / math.log(2))
    return np.array(out)


# ---------------------------------------------------------------------- ROC convex hull
@pytest.mark.parametrize("seed", range(5))
def test_roc_convex_hull_matches_qhull(seed):
    ss, ds = sample(seed)
    p_fa, p_miss = brute_roc(ss, ds)
    # Lower-left hull of the ROC in the error domain = the hull of the points and (1, 1)
    # without the (1, 1) corner (Qhull drops collinear points; compare as curves).
    pts = np.unique(np.c_[np.r_[p_fa, 1.0], np.r_[p_miss, 1.0]], axis=0)
    vertices = pts[ConvexHull(pts).vertices]
    vertices = vertices[~np.all(vertices == 1.0, axis=1)]
    vertices = vertices[np.argsort(vertices[:, 0])]
    hull = m.roc_convex_hull(ss, ds)
    grid = np.linspace(0, 1, 1001)
    ours = np.interp(grid, hull.p_fa[::-1], hull.p_miss[::-1])
    qhull = np.interp(grid, vertices[:, 0], vertices[:, 1])
    assert np.allclose(ours, qhull, atol=1e-12)
    # every hull vertex is a raw ROC point
    raw = set(zip(np.round(p_fa, 12), np.round(p_miss, 12), strict=True))
    assert all(v in raw for v in zip(hull.p_fa.round(12), hull.p_miss.round(12), strict=True))


@pytest.mark.parametrize("seed", range(5))
def test_eer_is_where_the_qhull_hull_crosses_the_diagonal(seed):
    ss, ds = sample(seed)
    p_fa, p_miss = brute_roc(ss, ds)
    pts = np.unique(np.c_[np.r_[p_fa, 1.0], np.r_[p_miss, 1.0]], axis=0)
    v = pts[ConvexHull(pts).vertices]
    v = v[~np.all(v == 1.0, axis=1)]
    v = v[np.argsort(v[:, 0])]
    # crossing of the hull polyline with y = x by bisection on y - x (a different algorithm)
    lo, hi = 0.0, 1.0  # f(x) = hull(x) - x decreases from hull(0) >= 0 to hull(1) - 1 <= 0
    for _ in range(200):
        mid = (lo + hi) / 2
        if np.interp(mid, v[:, 0], v[:, 1]) - mid > 0:
            lo = mid
        else:
            hi = mid
    assert m.eer(ss, ds) == pytest.approx(lo, abs=1e-12)


def test_eer_interpolated_hand_computed():
    # ss = [1, 3], ds = [0, 2]: raw ROC (p_fa, p_miss) = (1,0) (.5,0) (.5,.5) (0,.5) (0,1);
    # (.5,.5) is on the diagonal: eer_interpolated = 0.5; the hull joins (.5,0)-(0,.5): 0.25
    assert m.eer_interpolated([1.0, 3.0], [0.0, 2.0]) == pytest.approx(0.5)
    assert m.eer([1.0, 3.0], [0.0, 2.0]) == pytest.approx(0.25)
    # ss = [1, 2, 3], ds = [0, 1.5]: points (1,0) (.5,0) (.5,1/3) (0,1/3) (0,2/3) (0,1);
    # p_miss - p_fa: -1, -.5, -1/6, 1/3 -> crossing between (.5,1/3) and (0,1/3):
    # horizontal segment y = 1/3 meets y = x at 1/3
    assert m.eer_interpolated([1.0, 2.0, 3.0], [0.0, 1.5]) == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", range(4))
def test_eer_interpolated_is_on_the_raw_roc_and_above_the_hull_eer(seed):
    ss, ds = sample(seed)
    p_fa, p_miss = brute_roc(ss, ds)
    e = m.eer_interpolated(ss, ds)
    # (e, e) lies on the piecewise-linear raw ROC: some segment contains it
    x0, y0, x1, y1 = p_fa[:-1], p_miss[:-1], p_fa[1:], p_miss[1:]
    cross = (x1 - x0) * (e - y0) - (y1 - y0) * (e - x0)
    inside = (np.minimum(x0, x1) - 1e-12 <= e) & (e <= np.maximum(x0, x1) + 1e-12)
    inside &= (np.minimum(y0, y1) - 1e-12 <= e) & (e <= np.maximum(y0, y1) + 1e-12)
    assert np.any(inside & (np.abs(cross) < 1e-12))
    assert e >= m.eer(ss, ds) - 1e-12


def test_det_points_are_probits_of_the_roc():
    ss, ds = sample(2)
    x, y = m.det_points(ss, ds)
    p_fa, p_miss = brute_roc(ss, ds)
    assert np.allclose(x, norm.ppf(p_fa))  # allclose: inf equals inf of the same sign
    assert np.allclose(y, norm.ppf(p_miss))
    assert x[0] == np.inf and y[0] == -np.inf and x[-1] == -np.inf and y[-1] == np.inf


# ---------------------------------------------------------------------- DCF
def brute_dcf(ss, ds, t, p, c_miss, c_fa):
    """Per-trial loop: an LLR at or above t decides Hp."""
    misses = sum(1 for x in ss if not x >= t)
    false_alarms = sum(1 for x in ds if x >= t)
    return p * c_miss * misses / len(ss) + (1 - p) * c_fa * false_alarms / len(ds)


def test_dcf_with_llrs_exactly_at_the_threshold():
    ln2 = math.log(2)
    ss = [-ln2, -ln2, 0.0, 0.0, 1.0, -2.0]
    ds = [-ln2, 0.0, -1.0, -3.0, 0.5]
    # p = 0.5, c_miss = c_fa = 1: t = 0. Misses: -ln2, -ln2, -2 (3/6); FAs: 0, 0.5 (2/5)
    # DCF = 0.5 * 0.5 + 0.5 * 0.4 = 0.45; normalized by min(0.5, 0.5): 0.9
    assert m.dcf(ss, ds, 0.5) == pytest.approx(0.45, abs=1e-15)
    assert m.dcf(ss, ds, 0.5, normalize=True) == pytest.approx(0.9, abs=1e-15)
    # c_miss = 2: t = -ln 2 exactly. Misses: -2 (1/6); FAs: -ln2, 0, 0.5 (3/5)
    # DCF = 0.5*2/6 + 0.5*3/5 = 1/6 + 0.3
    assert m.dcf(ss, ds, 0.5, c_miss=2.0) == pytest.approx(1 / 6 + 0.3, abs=1e-15)
    assert m.bayes_threshold(0.5, 2.0, 1.0) == -ln2


@pytest.mark.parametrize("seed", range(4))
def test_dcf_and_min_dcf_against_loops(seed):
    ss, ds = sample(seed)
    for p, c_miss, c_fa in [(0.5, 1.0, 1.0), (0.2, 1.0, 3.0), (0.9, 5.0, 1.0), (0.01, 1.0, 1.0)]:
        t = -math.log(p / (1 - p)) - math.log(c_miss / c_fa)
        want = brute_dcf(ss, ds, t, p, c_miss, c_fa)
        assert m.dcf(ss, ds, p, c_miss, c_fa) == pytest.approx(want, abs=1e-12)
        low = brute_min_bayes_error(ss, ds, p, c_miss, c_fa)
        assert m.min_dcf(ss, ds, p, c_miss, c_fa) == pytest.approx(low, abs=1e-12)
        ref = min(p * c_miss, (1 - p) * c_fa)
        assert m.min_dcf(ss, ds, p, c_miss, c_fa, normalize=True) == pytest.approx(low / ref)
        assert m.min_dcf(ss, ds, p, c_miss, c_fa) <= m.dcf(ss, ds, p, c_miss, c_fa) + 1e-12


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5])
def test_dcf_rejects_bad_priors(bad):
    with pytest.raises(InputError, match="p_target"):
        m.dcf([1.0], [0.0], bad)
    with pytest.raises(InputError, match="p_target"):
        m.min_dcf([1.0], [0.0], bad)


def test_dcf_rejects_bad_costs():
    with pytest.raises(InputError, match="costs"):
        m.dcf([1.0], [0.0], 0.5, c_miss=0.0)


# ---------------------------------------------------------------------- APE
@pytest.mark.parametrize("seed", range(3))
def test_ape_curve_against_loops(seed):
    ss, ds = sample(seed)
    plo = np.linspace(-4, 4, 41)
    curve = m.ape_curve(ss, ds, plo)
    for i, g in enumerate(plo):
        p = 1 / (1 + math.exp(-g))
        assert curve.actual[i] == pytest.approx(brute_dcf(ss, ds, -g, p, 1, 1), abs=1e-12)
        # the PAV minimum is the minimum Bayes error over all thresholds at this prior
        low = brute_min_bayes_error(ss, ds, p)
        assert curve.minimum[i] == pytest.approx(low, abs=1e-12)
        assert curve.reference[i] == pytest.approx(min(p, 1 - p), abs=1e-15)
    norm_curve = m.normalized_bayes_error(ss, ds, plo)
    assert np.allclose(norm_curve.actual, curve.actual / np.minimum(expit(plo), expit(-plo)))
    assert np.all(norm_curve.reference == 1.0)
    assert np.all(norm_curve.minimum <= 1.0 + 1e-12)


def test_ape_default_grid_and_to_dict():
    curve = m.ape_curve([1.0, 2.0], [-1.0, 0.5])
    assert curve.plo.size == 281 and curve.plo[0] == -7 and curve.plo[-1] == 7
    d = curve.to_dict()
    assert set(d) == {"plo", "actual", "minimum", "reference"}
    assert all(isinstance(v, float) for v in d["actual"])


def test_curves_reject_bad_prior_grids():
    with pytest.raises(InputError, match="plo"):
        m.ape_curve([1.0], [0.0], plo=[0.0, np.nan])
    with pytest.raises(InputError, match="plo"):
        m.ece_curve([1.0], [0.0], plo=[[0.0, 1.0]])


# ---------------------------------------------------------------------- ECE
@pytest.mark.parametrize("seed", range(3))
def test_ece_curve_against_plain_python_and_sklearn(seed):
    ss, ds = sample(seed, 20, 30)
    plo = np.linspace(-5, 5, 11)
    curve = m.ece_curve(ss, ds, plo)
    assert np.allclose(curve.actual, python_ece(ss, ds, plo), rtol=1e-12, atol=0)
    # calibrated: the ECE of scikit-learn's PAV LLRs (inf LLRs handled by the loop below)
    pav_ss, pav_ds = sklearn_pav_llr(ss, ds)
    for i, g in enumerate(plo):
        p = expit(g)
        c_ss = np.mean(np.logaddexp(0, -(pav_ss + g)))
        c_ds = np.mean(np.logaddexp(0, pav_ds + g))
        assert curve.calibrated[i] == pytest.approx((p * c_ss + (1 - p) * c_ds) / math.log(2))
    # reference: binary entropy of the prior, H(p) = -p log2 p - (1-p) log2 (1-p)
    p = expit(plo)
    entropy = -p * np.log2(p) - (1 - p) * np.log2(1 - p)
    assert np.allclose(curve.reference, entropy, rtol=1e-12)
    assert np.all(curve.calibrated <= curve.actual + 1e-12)
    assert np.all(curve.calibrated <= curve.reference + 1e-12)


def test_ece_default_grid_is_log10_odds_minus_2_5_to_2_5():
    curve = m.ece_curve([1.0], [-1.0])
    assert curve.plo.size == 101
    assert curve.plo[0] == pytest.approx(-2.5 * math.log(10))
    assert set(curve.to_dict()) == {"plo", "actual", "calibrated", "reference"}


def test_ece_of_separated_classes_after_pav_is_zero():
    # PAV gives +inf to the SS block and -inf to the DS block: no cost at any prior
    curve = m.ece_curve([2.0, 3.0], [-1.0, 0.0], plo=np.array([-3.0, 0.0, 3.0]))
    assert np.all(curve.calibrated == 0.0)


# ---------------------------------------------------------------------- Tippett
@pytest.mark.parametrize("seed", range(3))
def test_tippett_against_loops(seed):
    ss, ds = sample(seed)
    ss = np.r_[ss, np.inf]
    ds = np.r_[ds, -np.inf]
    t = m.tippett(ss, ds)
    observed = np.unique(np.r_[ss, ds])
    observed = observed[np.isfinite(observed)]
    assert np.allclose(t.log10_lr, observed / math.log(10), rtol=1e-15, atol=0)
    # proportions counted by loops over trials in the natural-log domain (the input)
    for x, got_ss, got_ds in zip(observed, t.ss_prop_ge, t.ds_prop_ge, strict=True):
        assert got_ss == pytest.approx(sum(v >= x for v in ss) / ss.size, abs=1e-15)
        assert got_ds == pytest.approx(sum(v >= x for v in ds) / ds.size, abs=1e-15)
    # no extrapolation: the abscissae run from the lowest to the highest finite observation
    assert t.log10_lr[0] == pytest.approx(observed[0] / math.log(10))
    assert t.log10_lr[-1] == pytest.approx(observed[-1] / math.log(10))


def test_tippett_hand_computed_with_ties_and_infinities():
    # ss = [0, ln 10, ln 10, +inf], ds = [-inf, -ln 10, 0]; log10 LR: ss 0, 1, 1, inf;
    # ds -inf, -1, 0. Abscissae: -1, 0, 1 (infinite values are counted, not drawn).
    # SS >= -1: 4/4, >= 0: 4/4, >= 1: 3/4.  DS >= -1: 2/3, >= 0: 1/3, >= 1: 0.
    ln10 = math.log(10)
    t = m.tippett([0.0, ln10, ln10, np.inf], [-np.inf, -ln10, 0.0])
    assert t.log10_lr.tolist() == pytest.approx([-1.0, 0.0, 1.0])
    assert t.ss_prop_ge.tolist() == pytest.approx([1.0, 1.0, 0.75])
    assert t.ds_prop_ge.tolist() == pytest.approx([2 / 3, 1 / 3, 0.0])
    assert set(t.to_dict()) == {"log10_lr", "ss_prop_ge", "ds_prop_ge"}
