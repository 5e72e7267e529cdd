"""forensic_lr.sklearn.LRCalibrator follows scikit-learn's estimator conventions and gives the
numbers the library gives (scikit-learn itself is used here as the independent referee)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import cross_val_predict  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402

from forensic_lr import cross_validated_llr  # noqa: E402
from forensic_lr.calibration import make_calibrator  # noqa: E402
from forensic_lr.errors import InputError  # noqa: E402
from forensic_lr.resampling import fold_ids  # noqa: E402
from forensic_lr.sklearn import LRCalibrator  # noqa: E402


def _data(n_ss=60, n_ds=140, seed=3):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(2.0, 1.0, n_ss), rng.normal(-1.0, 1.2, n_ds)
    X = np.concatenate([ss, ds])[:, None]
    y = np.r_[np.ones(n_ss, int), np.zeros(n_ds, int)]
    return ss, ds, X, y


def test_clone_keeps_the_constructor_parameters():
    est = LRCalibrator("pav", options={"interpolation": "centres"}, prior=0.1)
    twin = clone(est)
    assert twin is not est
    assert twin.get_params() == {"method": "pav", "options": {"interpolation": "centres"},
                                 "prior": 0.1}
    assert clone(est.set_params(method="gaussian")).method == "gaussian"


def test_cross_val_predict_gives_the_llrs_of_cross_validated_llr_with_the_same_folds():
    ss, ds, X, y = _data()
    folds, seed = 5, 11
    rng = np.random.default_rng(seed)  # the stratified folds cross_validated_llr deals
    fold = np.concatenate([fold_ids(ss.size, folds, rng), fold_ids(ds.size, folds, rng)])
    cv = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(folds)]
    # scikit-learn accepts only its own method names; at prior 0.5 decision_function = LLR
    ours = cross_val_predict(LRCalibrator("logistic"), X, y, cv=cv, method="decision_function")
    ss_llr, ds_llr = cross_validated_llr(ss, ds, make_calibrator("logistic"), folds, seed)
    np.testing.assert_allclose(ours, np.concatenate([ss_llr, ds_llr]), rtol=1e-12, atol=1e-12)


def test_logistic_llr_equals_scikit_learns_weighted_logistic_regression():
    """Prior-neutral logistic calibration = logistic regression with class weights
    1/n_ss, 1/n_ds, whose log odds minus the training log odds (0) is the LLR."""
    ss, ds, X, y = _data()
    w = np.where(y == 1, 1.0 / ss.size, 1.0 / ds.size)
    ref = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(X, y, sample_weight=w)
    grid = np.linspace(-4, 5, 19)[:, None]
    est = LRCalibrator("logistic").fit(X, y)
    np.testing.assert_allclose(est.predict_llr(grid), ref.decision_function(grid), atol=1e-5)


def test_a_pipeline_whose_first_step_makes_the_score():
    ss, ds, X, y = _data()
    features = np.column_stack([X[:, 0], np.zeros(X.shape[0])])  # the score is column 0
    pipe = make_pipeline(FunctionTransformer(lambda F: F[:, :1]), LRCalibrator("gaussian"))
    pipe.fit(features, y)
    direct = make_calibrator("gaussian").fit(ss, ds)
    np.testing.assert_allclose(pipe.decision_function(features), direct.llr(X[:, 0]),
                               rtol=1e-12)
    assert pipe.score(features, y) > 0.8  # accuracy of the Bayes decision at prior 0.5


def test_probability_and_decision_follow_bayes_rule_at_the_prior():
    *_, X, y = _data()
    est = LRCalibrator("gaussian", prior=0.2).fit(X, y)
    lr = np.exp(est.predict_llr(X))
    odds = lr * 0.2 / 0.8  # posterior odds = LR x prior odds
    np.testing.assert_allclose(est.predict_proba(X)[:, 1], odds / (1 + odds), rtol=1e-12)
    np.testing.assert_allclose(est.predict_log10_lr(X), np.log10(lr), rtol=1e-12)
    np.testing.assert_array_equal(est.predict(X), (odds > 1).astype(int))


def test_project_labels_fit_as_ones_and_zeros():
    *_, X, y = _data()
    words = np.where(y == 1, "SS", "different-source")
    a = LRCalibrator("logistic").fit(X, y).predict_llr(X)
    b = LRCalibrator("logistic").fit(X, words).predict_llr(X)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(InputError, match="'suspect'"):
        LRCalibrator().fit(X, np.where(y == 1, "ss", "suspect"))
    with pytest.raises(InputError, match="not fitted"):
        LRCalibrator("pav").predict_llr(X)


def test_the_module_imports_and_keeps_parameters_without_scikit_learn():
    code = ("import sys; sys.modules['sklearn'] = None\n"
            "from forensic_lr.sklearn import LRCalibrator\n"
            "e = LRCalibrator('pav', prior=0.3)\n"
            "assert e.get_params() == {'method': 'pav', 'options': None, 'prior': 0.3}\n"
            "assert e.set_params(prior=0.4).prior == 0.4\n"
            "import numpy as np\n"
            "print(e.fit(np.r_[1.0, 2, 3, 4], [0, 0, 1, 1]).predict_llr([0.5, 3.5]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_sample_weight_counts_as_repeated_scores():
    """fit(X, y, sample_weight=counts) is the fit on the repeated rows (the calibrator
    contract's weights, passed through)."""
    from forensic_lr.sklearn import LRCalibrator

    rng = np.random.default_rng(2)
    x = np.r_[rng.normal(1.5, 1.0, 60), rng.normal(-1.0, 1.2, 140)]
    y = np.r_[np.ones(60, int), np.zeros(140, int)]
    counts = rng.integers(0, 4, x.size)
    weighted = LRCalibrator("logistic").fit(x[:, None], y, sample_weight=counts)
    repeated = LRCalibrator("logistic").fit(np.repeat(x, counts)[:, None], np.repeat(y, counts))
    s = np.array([[-2.0], [0.0], [3.0]])
    np.testing.assert_allclose(weighted.predict_llr(s), repeated.predict_llr(s), rtol=1e-9)
