"""A case from measurements: background comparisons of a population database and the case's
questioned-vs-control comparisons, as values a calibrator turns into LRs.

Two kinds of model (:class:`FeatureModel`):

* ``"score"``: a score function (:mod:`forensic_lr.features.scores`) of the two items'
  mean feature values: a *similarity-only* score, blind to how common the values are;
* ``"two_level"``: the natural-log LR of Aitken and Lucy's two-level model
  (:mod:`forensic_lr.features.two_level`), which *accounts for typicality*; it is then
  calibrated like any score (the practice of Morrison 2013 [1]_ for feature-based systems),
  so that the validation of the case measures the reported LRs.

The background values of a fitted model (the standardised distance's covariance, the
two-level model's components) are out of fold: each population pair is compared by a model
fitted without its sources (:func:`~forensic_lr.resampling.source_folds`), as the case's
comparison is by a model that never saw the questioned or control item.

References
----------
.. [1] G. S. Morrison, "Tutorial on logistic-regression calibration and fusion: converting
   a score to a likelihood ratio", Australian Journal of Forensic Sciences 45 (2013) 173-197.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..defaults import DEFAULT_MAX_DIFFERENT, DEFAULT_SEED
from ..errors import InputError
from ..i18n import N_
from ..records import Serialisable
from .measurements import Measurements
from .pairs import Pairs, UnitKind, Units, fold_tests, out_of_fold, pair_units, units_of
from .scores import DistanceScore, SourceSums
from .two_level import TwoLevelModel

__all__ = ["FeatureModel", "MeasuredBackground", "background_values", "evidence_pairs",
           "evidence_values", "population_summary", "resampled_values"]


#: The title and summary of a model ``score`` (one of :data:`.scores.SCORE_FUNCTIONS`: its title
#: and formula), each written whole so that the reports can translate it.
SCORE_MODEL_TEXTS: dict[str, tuple[str, str]] = {
    "euclidean": (
        N_("Euclidean distance of the mean feature values"),
        N_("The comparison score is the Euclidean distance between the questioned and control "
           "items' mean measurements, sqrt(sum_k (x_k - y_k)^2); the calibration method turns "
           "it into an LR using the same-source and different-source comparisons of the "
           "population database.")),
    "manhattan": (
        N_("Manhattan (city-block) distance of the mean feature values"),
        N_("The comparison score is the Manhattan (city-block) distance between the "
           "questioned and control items' mean measurements, sum_k |x_k - y_k|; the "
           "calibration method turns it into an LR using the same-source and "
           "different-source comparisons of the population database.")),
    "standardised": (
        N_("Standardised (Mahalanobis) distance with the pooled within-source covariance W "
           "of the population of the mean feature values"),
        N_("The comparison score is the standardised (Mahalanobis) distance with the pooled "
           "within-source covariance W of the population between the questioned and control "
           "items' mean measurements, sqrt((x - y)' W^-1 (x - y)); the calibration method "
           "turns it into an LR using the same-source and different-source comparisons of "
           "the population database.")),
    "cosine": (
        N_("Cosine distance of the mean feature values"),
        N_("The comparison score is the cosine distance between the questioned and control "
           "items' mean measurements, 1 - x'y / (|x| |y|); the calibration method turns it "
           "into an LR using the same-source and different-source comparisons of the "
           "population database.")),
}


@dataclass(frozen=True)
class FeatureModel:
    """What turns two items' measurements into one value.

    Parameters
    ----------
    kind : {"two_level", "score"}
    score : str
        The score function of ``kind = "score"`` (:data:`SCORE_FUNCTIONS`).
    between : {"normal", "kde"}
        The two-level model's between-source distribution.
    bandwidth : float, optional
        The two-level kernel's bandwidth (default Aitken and Lucy's rule).
    """

    kind: Literal["two_level", "score"] = "two_level"
    score: str = "standardised"
    between: Literal["normal", "kde"] = "normal"
    bandwidth: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("two_level", "score"):
            raise InputError(f"model must be 'two_level' or 'score'; got {self.kind!r}")
        if self.kind == "score":
            DistanceScore(self.score)  # refuses an unknown name, listing the choices
        else:
            TwoLevelModel(between=self.between, bandwidth=self.bandwidth)

    @property
    def direction(self) -> str:
        """``higher_is_similar`` (an LLR) or ``lower_is_similar`` (a distance)."""
        return "higher_is_similar" if self.kind == "two_level" else "lower_is_similar"

    @property
    def typicality(self) -> bool:
        """Whether the values account for how common the features are in the population."""
        return self.kind == "two_level"

    @property
    def fitted_parameters(self) -> bool:
        """Whether the model estimates anything from the population."""
        return self.kind == "two_level" or self.score == "standardised"

    def fit(self, population: Measurements):
        """The model fitted on a population's measurements (every row of every source)."""
        if self.kind == "two_level":
            return TwoLevelModel(between=self.between, bandwidth=self.bandwidth).fit(population)
        return DistanceScore(self.score).fit(population.values, population.sources)

    def fit_sums(self, sums: SourceSums, weights=None):
        """:meth:`fit` from each source's :class:`~forensic_lr.features.scores.SourceSums`,
        source ``s`` counted ``weights[s]`` times (a bootstrap resample of sources: the fit
        on that many copies of each, each copy a source of its own)."""
        if self.kind == "two_level":
            return TwoLevelModel(between=self.between,
                                 bandwidth=self.bandwidth).fit_sums(sums, weights)
        return DistanceScore(self.score).fit_sums(sums, weights)

    def compare_pairs(self, fitted, units: Units, pairs: Pairs) -> np.ndarray:
        """The value of each pair of units (the two-level model's LLR, with each unit's own
        terms computed once; or the score function of the units' means)."""
        if self.kind == "two_level":
            return fitted.llr_pairs(units, pairs)
        return fitted.score(units.means[pairs.first], units.means[pairs.second])

    def describe(self) -> dict[str, str]:
        """Title, summary and reference of the model, for the record."""
        if self.kind == "score":
            title, summary = SCORE_MODEL_TEXTS[self.score]
            return {
                "title": title,
                "summary": summary,
                "reference": ("P. C. Mahalanobis, On the generalised distance in statistics, "
                              "Proc. Natl. Inst. Sci. India 2 (1936) 49-55"
                              if self.score == "standardised" else ""),
            }
        kde = self.between == "kde"  # each text whole, so that the reports can translate it
        return {
            "title": N_("Two-level random-effects model (Aitken and Lucy 2004) with a Gaussian "
                        "kernel density estimate of the between-source distribution") if kde
            else N_("Two-level random-effects model (Aitken and Lucy 2004) with a normal "
                    "between-source distribution"),
            "summary": N_(
                "Measurements vary normally about their source's true value (within-source "
                "covariance U); true values vary between sources as estimated from the "
                "population database (between-source covariance C, kernel density over the "
                "sources' means). The model's LR compares the probability of the questioned "
                "and control measurements if they share one source with the probability if "
                "they come from two sources drawn from the population; its natural logarithm "
                "is the comparison score, which the calibration method then calibrates on the "
                "population's comparisons.") if kde else N_(
                "Measurements vary normally about their source's true value (within-source "
                "covariance U); true values vary between sources as estimated from the "
                "population database (between-source covariance C). The model's LR compares "
                "the probability of the questioned and control measurements if they share one "
                "source with the probability if they come from two sources drawn from the "
                "population; its natural logarithm is the comparison score, which the "
                "calibration method then calibrates on the population's comparisons."),
            "reference": ("C. G. G. Aitken, D. Lucy, Evaluation of trace evidence in the form "
                          "of multivariate data, Applied Statistics 53 (2004) 109-122; "
                          "calibration as in G. S. Morrison, Australian Journal of Forensic "
                          "Sciences 45 (2013) 173-197"),
        }

    def typicality_statement(self) -> str:
        """What the report says about typicality."""
        if self.typicality:
            return N_("The LR accounts for typicality: the two-level model weighs how close "
                      "the questioned and control measurements are against how common such "
                      "values are in the population database, so a match on rare values gives "
                      "more support than a match on common ones.")
        return N_("The LR comes from a similarity-only score: the score measures how close the "
                  "questioned and control measurements are, not how common such values are in "
                  "the population, so a match on rare values and a match on common ones with "
                  "the same distance receive the same LR.")


@dataclass(frozen=True, eq=False)
class MeasuredBackground(Serialisable):
    """The population's comparisons as a calibrator's background.

    ``values``: one value per pair (score-like or distance, as ``model.direction``);
    ``pairs``: which units were compared, with their sources; ``units``: the population's
    units; ``out_of_fold``: whether each value comes from a model fitted without its pair's
    sources.
    """

    values: np.ndarray
    pairs: Pairs
    units: Units
    out_of_fold: bool

    @property
    def ss(self) -> np.ndarray:
        return self.values[self.pairs.same]

    @property
    def ds(self) -> np.ndarray:
        return self.values[~self.pairs.same]


def background_values(model: FeatureModel, population: Measurements, *,
                      unit: UnitKind = "item", max_different: int | None = DEFAULT_MAX_DIFFERENT,
                      folds: int | None = 5, seed: int = DEFAULT_SEED) -> MeasuredBackground:
    """Values of every same-source and the (sampled) different-source population pairs.

    A model with fitted parameters is refitted for each source fold without the sources
    the fold's test pairs involve; a parameter-free distance is computed once.
    """
    units, pairs = pair_units(population, unit, max_different=max_different, seed=seed)
    if not model.fitted_parameters:
        values = model.compare_pairs(model.fit(population), units, pairs)
        return MeasuredBackground(values, pairs, units, False)
    values = out_of_fold(model.fit, model.compare_pairs, population, units, pairs,
                         folds=folds, seed=seed)
    return MeasuredBackground(values, pairs, units, True)


def evidence_pairs(items: Measurements, comparisons) -> tuple[Units, Pairs]:
    """The case items as units (each item's replicates averaged) and the pairs of item ids
    ``comparisons`` as pairs of them."""
    units = units_of(items, "whole")
    index = {str(s): k for k, s in enumerate(units.sources)}
    missing = sorted({i for pair in comparisons for i in pair if i not in index})
    if missing:
        raise InputError(f"no measurements of item(s) {', '.join(map(repr, missing))} in the "
                         f"items file (items: {', '.join(map(repr, index))})")
    a = np.array([index[p[0]] for p in comparisons], dtype=np.intp)
    b = np.array([index[p[1]] for p in comparisons], dtype=np.intp)
    return units, Pairs(a, b, np.zeros(a.size, bool),
                        np.column_stack([units.sources[a], units.sources[b]]), a.size)


def evidence_values(model: FeatureModel, population: Measurements, items: Measurements,
                    comparisons) -> tuple[np.ndarray, dict[str, int]]:
    """The case's comparisons: ``(values, replicates per item)``.

    ``items``: the case items' measurements, with each row's item id as its source;
    ``comparisons``: pairs of item ids. The model is fitted on the whole population.
    """
    units, pairs = evidence_pairs(items, comparisons)
    values = model.compare_pairs(model.fit(population), units, pairs)
    return values, {s: int(n) for s, n in zip(units.sources.tolist(), units.counts.tolist(),
                                               strict=True)}


def resampled_values(model: FeatureModel, sums: SourceSums, background: MeasuredBackground,
                     evidence: tuple[Units, Pairs], draws: np.ndarray, *,
                     folds: int | None = 5, seed: int = DEFAULT_SEED,
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The case's and the background's values in bootstrap resamples of the population's
    sources, the model refitted on each.

    Parameters
    ----------
    model : FeatureModel
    sums : SourceSums
        The population's per-source sums (:func:`~forensic_lr.features.scores.source_sums`).
    background : MeasuredBackground
        The population's comparisons (:func:`background_values` with ``folds``, ``seed``).
    evidence : (Units, Pairs)
        The case's comparisons (:func:`evidence_pairs`).
    draws : numpy.ndarray
        ``(r, k)``: how often each source of ``sums.ids`` is drawn in each replicate
        (:func:`~forensic_lr.resampling.source_draws`).

    Returns
    -------
    (x, values)
        ``x`` ``(r, c)``: the case's values by the model fitted on each replicate's drawn
        sources; ``values`` ``(r, p)``: each population pair's value by the model fitted on
        the replicate's drawn sources without those of the pair's split (the splits of
        :func:`background_values`: out of fold, as the case's values are), or by the
        parameter-free score. NaN where a fit fails, and for a pair whose two sources
        were not both drawn (it counts 0 times in that replicate; not computed).

    Notes
    -----
    The replicate is the population with source ``s`` present ``draws[s]`` times, each
    copy a source of its own; its comparisons are the population's, a pair within source
    ``a`` counted ``m_a`` times and one between ``a != b`` ``m_a m_b`` times
    (:func:`~forensic_lr.resampling.pair_counts`). Two copies of one source are never
    compared with each other: as a different-source pair that would be the same fragments
    twice, as a same-source pair a comparison of a unit with itself. The pairs, the
    sample of different-source pairs and the folds stay those of the case (the copies of
    a source share its fold). Every fit is :meth:`FeatureModel.fit_sums` (no pass over
    the rows); a loop over replicates and folds, each evaluating its pairs at once.
    """
    draws = np.asarray(draws)
    r = draws.shape[0]
    pairs, units = background.pairs, background.units
    x = np.full((r, evidence[1].first.size), np.nan)
    values = np.full((r, pairs.same.size), np.nan)
    a, b = (np.searchsorted(sums.ids, pairs.sources[:, j].astype(str)) for j in (0, 1))
    if not model.fitted_parameters:  # nothing estimated: the values of every replicate
        fitted = model.fit_sums(sums)
        x[:] = model.compare_pairs(fitted, *evidence)
        values[:] = background.values
        values[(draws[:, a] == 0) | (draws[:, b] == 0)] = np.nan
        return x, values
    splits = [(test, ~np.isin(sums.ids, held_out))
              for test, held_out in fold_tests(pairs, folds=folds, seed=seed)]
    for row, drawn in enumerate(draws):
        try:
            x[row] = model.compare_pairs(model.fit_sums(sums, drawn), *evidence)
        except InputError:  # e.g. a between-source covariance not positive definite
            pass
        for test, train in splits:
            used = test[(drawn[a[test]] > 0) & (drawn[b[test]] > 0)]
            if not used.size:
                continue
            try:
                fitted = model.fit_sums(sums, drawn * train)
            except InputError:
                continue
            values[row, used] = model.compare_pairs(fitted, units, pairs.select(used))
    return x, values


def population_summary(population: Measurements, background: MeasuredBackground,
                       unit: str) -> dict[str, Any]:
    """Sizes of the population database and its comparisons, for the record."""
    _, per_source = np.unique(population.sources, return_counts=True)
    pairs = background.pairs
    return {
        "measurements": int(population.values.shape[0]), "sources": int(per_source.size),
        "features": list(population.features), "unit": unit,
        "per_source_min": int(per_source.min()), "per_source_max": int(per_source.max()),
        "same_source_pairs": int(pairs.same.sum()),
        "different_source_pairs": int((~pairs.same).sum()),
        "different_source_pairs_total": int(pairs.different_total),
        "out_of_fold": background.out_of_fold,
    }
