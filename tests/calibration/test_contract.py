"""The calibrator contract, for every method in the table: a fitted check naming the
calibrator; per-score weights as scikit-learn's ``sample_weight`` (counts give the fit on
the repeated data); extra inputs declared on the class."""

from __future__ import annotations

import numpy as np
import pytest

from forensic_lr.calibration import CALIBRATORS, ELUB, make_calibrator
from forensic_lr.errors import NotFittedError

ALL = list(CALIBRATORS)
#: S-cal warns where a limit reaches max_abs_llr (these backgrounds show no saturation)
pytestmark = pytest.mark.filterwarnings("ignore::forensic_lr.calibration.scal.SaturationWarning")


@pytest.mark.parametrize("name", ALL)
def test_unfitted_calibrator_names_itself(name):
    cal = make_calibrator(name)
    cls = type(cal).__name__
    for use in (lambda: cal.llr([0.0]), cal.params, cal.check_fitted):
        pattern = rf"{cls} \('{name}'\) is not fitted.*fit\(ss, ds\)"
        with pytest.raises(NotFittedError, match=pattern):
            use()
    with pytest.raises(NotFittedError, match="not fitted"):
        ELUB(make_calibrator(name)).params()


def test_extra_inputs_come_from_the_declarations():
    """The case file, the command line and the record take every declared extra input (and
    only those): a new calibrator declaring one needs no edit elsewhere."""
    from forensic_lr.calibration import extra_inputs
    from forensic_lr.casework.spec import Background
    from forensic_lr.cli import build_parser
    from forensic_lr.records import CaseResult

    declared = extra_inputs()
    assert set(declared) == {"suspect_ss", "unlabelled"}  # the two methods that take one
    fields = CaseResult.model_fields
    calibrate = build_parser()._subparsers._group_actions[0].choices["calibrate"]
    flags = {a.dest: a.option_strings for a in calibrate._actions}
    for key, (spec, method) in declared.items():
        assert key in Background.model_fields
        assert f"background_{key}" in fields
        assert flags[key] == [spec.flag]
        assert method in CALIBRATORS and spec in CALIBRATORS[method].extra_inputs


# ---------------------------------------------------------------- weights (sample_weight)

def _options(name, rng):
    """Options each method needs (its extra inputs) for a fit."""
    if name == "suspect_map":
        return {"suspect_ss": rng.normal(2.0, 0.7, 12)}
    if name == "unsupervised":
        return {"unlabelled": np.r_[rng.normal(1.7, 0.9, 40), rng.normal(-0.8, 1.2, 120)]}
    return {}


def _weighted_and_repeated(name, n_ss, n_ds, seed, ties=False):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(1.5, 1.0, n_ss), rng.normal(-1.0, 1.3, n_ds)
    if ties:
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    c_ss, c_ds = rng.integers(0, 4, n_ss), rng.integers(0, 4, n_ds)
    options = _options(name, rng)
    weighted = make_calibrator(name, **options).fit(ss, ds, ss_weight=c_ss, ds_weight=c_ds)
    repeated = make_calibrator(name, **options).fit(np.repeat(ss, c_ss), np.repeat(ds, c_ds))
    return weighted, repeated


SCORES = np.array([-4.0, -1.3, -0.2, 0.0, 0.7, 1.9, 3.5, 6.0])


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(("n_ss", "n_ds", "ties"), [(15, 40, False), (60, 150, True),
                                                     (800, 2500, False)])
def test_count_weights_fit_the_repeated_data(name, n_ss, n_ds, ties):
    """fit(ss, ds, counts) is the fit on np.repeat(ss, counts): the definition of the weights
    (zero counts included: those scores are left out)."""
    weighted, repeated = _weighted_and_repeated(name, n_ss, n_ds, seed=n_ss, ties=ties)
    np.testing.assert_allclose(weighted.llr(SCORES), repeated.llr(SCORES), rtol=1e-8,
                               atol=1e-8)
    assert weighted.params().keys() == repeated.params().keys()


@pytest.mark.parametrize("name", ALL)
def test_unit_weights_change_nothing(name):
    rng = np.random.default_rng(4)
    ss, ds = rng.normal(1.5, 1.0, 50), rng.normal(-1.0, 1.3, 90)
    options = _options(name, rng)
    plain = make_calibrator(name, **options).fit(ss, ds)
    ones = make_calibrator(name, **options).fit(ss, ds, np.ones(50), np.ones(90))
    np.testing.assert_allclose(ones.llr(SCORES), plain.llr(SCORES), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(("weights", "match"), [
    ({"ss_weight": [1.0, -1.0, 1.0]}, r"ss_weight\[1\] = -1.0.*>= 0"),
    ({"ds_weight": [1.0, np.nan, 1.0, 1.0]}, r"ds_weight\[1\].*finite"),
    ({"ss_weight": [1.0, 1.0]}, r"ss_weight has shape \(2,\).*one weight per score \(3\)"),
    ({"ss_weight": [0.0, 0.0, 1.0]}, "at least 2"),
    ({"ss_weight": [2.0, 0.0, 3.0]}, None),
])
def test_bad_weights_are_named(weights, match):
    from forensic_lr.errors import InputError

    cal = make_calibrator("gaussian")
    if match is None:  # two scores of positive weight: fine
        cal.fit([1.0, 2.0, 3.0], [0.0, 0.5, 1.0, 2.0], **weights)
        return
    with pytest.raises(InputError, match=match):
        cal.fit([1.0, 2.0, 3.0], [0.0, 0.5, 1.0, 2.0], **weights)


@pytest.mark.parametrize("ties", [False, True])
def test_pav_counts_on_sorted_classes_fit_the_repeated_data(ties):
    """PAV skips its sort when each class comes in ascending order (as a bootstrap refit hands
    it): the same blocks, bit for bit, as the fit on the repeated scores in shuffled order."""
    rng = np.random.default_rng(21)
    ss, ds = rng.normal(1.5, 1.0, 300), rng.normal(-1.0, 1.3, 900)
    if ties:
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    c_ss, c_ds = rng.integers(0, 4, ss.size), rng.integers(0, 4, ds.size)
    o_ss, o_ds = np.argsort(ss), np.argsort(ds)
    weighted = make_calibrator("pav").fit(ss[o_ss], ds[o_ds], c_ss[o_ss], c_ds[o_ds])
    rep_ss, rep_ds = np.repeat(ss, c_ss), np.repeat(ds, c_ds)
    repeated = make_calibrator("pav").fit(rng.permutation(rep_ss), rng.permutation(rep_ds))
    assert weighted.params() == repeated.params()
    in_order = make_calibrator("pav").fit(np.sort(rep_ss), np.sort(rep_ds))  # no weights
    assert in_order.params() == repeated.params()


def test_pav_bootstrap_refits_the_resampled_scores():
    """pav's bootstrap interval: replicate b is the PAV fit on ss[idx_ss], ds[idx_ds] of the
    contract's draws (resampled scores, no weights), and the interval their type-7
    percentiles (numpy.quantile)."""
    from forensic_lr.resampling import bootstrap_index_chunks
    from forensic_lr.uncertainty import bootstrap_interval

    rng = np.random.default_rng(5)
    ss, ds = np.round(rng.normal(1.5, 1.0, 120), 1), rng.normal(-1.0, 1.3, 300)
    scores = np.array([-2.0, 0.3, 1.1, 4.0])
    rows = []
    for idx_ss, idx_ds in bootstrap_index_chunks(np.random.default_rng(8), 40, ss.size, ds.size):
        rows += [make_calibrator("pav").fit(ss[i], ds[j]).llr(scores)
                 for i, j in zip(idx_ss, idx_ds, strict=True)]
    got = bootstrap_interval(ss, ds, scores, "pav", n=40, seed=8, level=0.9)
    np.testing.assert_allclose(got.llr_low, np.quantile(rows, 0.05, axis=0), rtol=1e-12)
    np.testing.assert_allclose(got.llr_high, np.quantile(rows, 0.95, axis=0), rtol=1e-12)


def _weighted_background(seed, n_ss=80, n_ds=200, ties=False):
    """Scores with real-valued weights (zeros among them) and sklearn's sample_weight for
    the prior-neutral objective: ``w_i / (2 W_class)``."""
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(1.2, 1.0, n_ss), rng.normal(-0.8, 1.4, n_ds)
    if ties:
        ss, ds = np.round(ss, 1), np.round(ds, 1)
    w_ss, w_ds = rng.uniform(0, 3, n_ss), rng.uniform(0, 3, n_ds)
    w_ss[::7], w_ds[::9] = 0.0, 0.0
    sample_weight = np.r_[0.5 * w_ss / w_ss.sum(), 0.5 * w_ds / w_ds.sum()]
    return ss, ds, w_ss, w_ds, sample_weight


@pytest.mark.parametrize("ties", [False, True])
def test_weighted_pav_matches_sklearn_isotonic(ties):
    """Block LLRs at the training scores = logit of scikit-learn 1.9's IsotonicRegression with
    sample_weight (prior-neutral class weights), where finite (PAV bounds the others)."""
    from sklearn.isotonic import IsotonicRegression

    ss, ds, w_ss, w_ds, weight = _weighted_background(11, ties=ties)
    x, y = np.r_[ss, ds], np.r_[np.ones(ss.size), np.zeros(ds.size)]
    keep = weight > 0
    p = IsotonicRegression(y_min=0, y_max=1).fit(
        x[keep], y[keep], sample_weight=weight[keep]).predict(x[keep])
    inside = (p > 0) & (p < 1)
    cal = make_calibrator("pav").fit(ss, ds, ss_weight=w_ss, ds_weight=w_ds)
    np.testing.assert_allclose(cal.llr(x[keep][inside]), np.log(p[inside] / (1 - p[inside])),
                               rtol=1e-9, atol=1e-9)
    low, high = cal.bounds_
    assert np.all(cal.llr(x[keep][p == 0]) == low) and np.all(cal.llr(x[keep][p == 1]) == high)
    assert high == pytest.approx(np.log(w_ds.sum() + 1))  # N_ds: the summed DS weight


@pytest.mark.parametrize("seed", [3, 8])
def test_weighted_logistic_matches_sklearn(seed):
    """Intercept and slope against scikit-learn 1.9's LogisticRegression (C=inf: no
    penalty) with sample_weight ``w_i / (2 W_class)``, real-valued weights."""
    from sklearn.linear_model import LogisticRegression

    ss, ds, w_ss, w_ds, weight = _weighted_background(seed)
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(
        np.r_[ss, ds][:, None], np.r_[np.ones(ss.size), np.zeros(ds.size)],
        sample_weight=weight)
    a, b = make_calibrator("logistic").fit(ss, ds, w_ss, w_ds).coefficients()
    np.testing.assert_allclose([a, b], [ref.intercept_[0], ref.coef_[0, 0]], rtol=1e-6)


@pytest.mark.parametrize("name", ["logistic", "kde"])
def test_elub_with_count_weights_bounds_the_repeated_data(name):
    """ELUB(calibrator).fit with counts: the fit and the bounds of the repeated data."""
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(2.5, 1.0, 40), rng.normal(-1.0, 1.0, 300)
    c_ss, c_ds = rng.integers(0, 4, 40), rng.integers(0, 4, 300)
    weighted = ELUB(make_calibrator(name)).fit(ss, ds, c_ss, c_ds)
    repeated = ELUB(make_calibrator(name)).fit(np.repeat(ss, c_ss), np.repeat(ds, c_ds))
    assert weighted.bounds_log10_ == repeated.bounds_log10_
    np.testing.assert_allclose(weighted.llr(SCORES), repeated.llr(SCORES), rtol=1e-9)
