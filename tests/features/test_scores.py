"""Score functions against scipy.spatial.distance, the pooled covariance against a
per-source loop with numpy.cov, and a classifier's probability against scikit-learn's own
predict_proba."""

import numpy as np
import pytest
from scipy.spatial import distance

from forensic_lr.errors import InputError, NotFittedError
from forensic_lr.features import (
    ClassifierScore,
    DistanceScore,
    make_pairs,
    pair_scores,
    pooled_within_covariance,
    units_of,
)
from forensic_lr.features import measurements_from_arrays as arrays


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(3)
    source_means = rng.normal(size=(20, 3)) * [1.0, 5.0, 0.2]
    sources = np.repeat(np.arange(20), 4)
    within = rng.multivariate_normal([0, 0, 0], [[1, 0.5, 0], [0.5, 2, 0.1], [0, 0.1, 0.3]],
                                     size=80) * 0.1
    return arrays(source_means[sources] + within, sources)


def test_pooled_within_covariance_is_the_weighted_mean_of_the_sources_covariances(population):
    """With n_s measurements per source, W = sum_s (n_s - 1) cov_s / (N - S)."""
    got = pooled_within_covariance(population.values, population.sources)
    parts = [np.cov(population.values[population.sources == s].T) * (4 - 1)
             for s in np.unique(population.sources)]
    np.testing.assert_allclose(got, np.sum(parts, axis=0) / (80 - 20), rtol=1e-12)


@pytest.mark.parametrize("name, reference", [
    ("euclidean", distance.euclidean),
    ("manhattan", distance.cityblock),
    ("cosine", distance.cosine),
])
def test_distances_agree_with_scipy(population, name, reference):
    units = units_of(population, "row")
    pairs = make_pairs(units.sources, max_different=300, seed=1)
    got = pair_scores(DistanceScore(name).fit(population.values, population.sources), units,
                      pairs)
    want = [reference(units.means[i], units.means[j])
            for i, j in zip(pairs.first, pairs.second, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_standardised_distance_is_scipy_mahalanobis_with_the_inverse_pooled_covariance(
        population):
    units = units_of(population, "row")
    pairs = make_pairs(units.sources, max_different=300, seed=1)
    score = DistanceScore("standardised").fit(population.values, population.sources)
    inverse = np.linalg.inv(pooled_within_covariance(population.values, population.sources))
    want = [distance.mahalanobis(units.means[i], units.means[j], inverse)
            for i, j in zip(pairs.first, pairs.second, strict=True)]
    np.testing.assert_allclose(pair_scores(score, units, pairs), want, rtol=1e-10)


def test_unfitted_unknown_and_degenerate_score_functions_are_refused(population):
    with pytest.raises(InputError, match="choose one of"):
        DistanceScore("chebyshev")
    with pytest.raises(NotFittedError):
        DistanceScore("euclidean").score([1.0], [2.0])
    values = np.c_[population.values, population.values[:, 0] * 2]  # a dependent feature
    with pytest.raises(InputError, match="singular"):
        DistanceScore("standardised").fit(values, population.sources)
    with pytest.raises(InputError, match="vector of zeros"):
        DistanceScore("cosine").fit(values, population.sources).score([0.0, 0], [1.0, 1])


def test_classifier_probability_is_the_estimators_predict_proba_on_absolute_differences(
        population):
    linear_model = pytest.importorskip("sklearn.linear_model")
    score = ClassifierScore(linear_model.LogisticRegression(), max_different=400, seed=2)
    score.fit(population.values, population.sources)
    pairs = make_pairs(population.sources, max_different=400, seed=2)
    x = population.values
    reference = linear_model.LogisticRegression().fit(
        np.abs(x[pairs.first] - x[pairs.second]), pairs.same.astype(int))
    got = score.score(x[:5], x[5:10])
    want = reference.predict_proba(np.abs(x[:5] - x[5:10]))[:, 1]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(got, score.score(x[5:10], x[:5]))  # symmetric
    same = score.score(x[0], x[1])[0]  # two rows of one source
    different = score.score(x[0], x[79])[0]
    assert same > 0.5 > different
    with pytest.raises(InputError, match=r"no fit\(\) method"):
        ClassifierScore(object())
