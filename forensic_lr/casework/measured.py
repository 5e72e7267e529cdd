"""A case's ``[measurements]``: read the database and the items, compute the comparisons.

The case file's section (:class:`~forensic_lr.casework.spec.MeasurementsSection`) names the
population database and the items file; this module reads both with the same columns and
hands the numbers to :mod:`forensic_lr.features.comparisons`. The case file loader calls
:func:`case_comparisons` (the questioned-vs-control values become the case's evidence
scores) and :func:`~forensic_lr.casework.inputs.load_measured` calls
:func:`measured_background` (the population's comparisons become its background).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..features.comparisons import (
    FeatureModel,
    MeasuredBackground,
    background_values,
    evidence_pairs,
    evidence_values,
    population_summary,
    resampled_values,
)
from ..features.measurements import Measurements, load_measurements
from ..features.pairs import Pairs, Units
from ..features.scores import SourceSums, source_sums
from ..io.scores import orient
from ..records import MeasurementItem, MeasurementModel
from .two_stage import TwoStageBootstrap

__all__ = ["MeasuredStage", "case_comparisons", "measured_background", "measured_bootstrap",
           "measurement_record", "read_tables"]


def read_tables(section: Any, database: Path, items: Path) -> tuple[Measurements, Measurements]:
    """The population database and the case items, with the same feature columns.

    Raises
    ------
    InputError
        Starting ``database:`` or ``items:``, naming the file, line and column.
    """
    options = {"decimal": section.decimal, "sheet": section.sheet}
    item_column = None if section.item_column == "item" else section.item_column
    try:
        population = load_measurements(database, source_column=section.source_column,
                                       item_column=item_column,
                                       feature_columns=section.feature_columns, **options)
    except InputError as exc:
        raise InputError(f"database: {exc}") from None
    try:
        case_items = load_measurements(items, source_column=section.item_column,
                                       feature_columns=population.features,
                                       population=False, **options)
    except InputError as exc:
        raise InputError(f"items: {exc}") from None
    return population, case_items


def _comparisons(section: Any, case_items: Measurements,
                 item_ids: list[str]) -> tuple[tuple[str, str], ...]:
    """The pairs of item ids to compare: ``compare``, else the file's two items."""
    present = list(dict.fromkeys(case_items.sources.tolist()))
    if section.compare is not None:
        return tuple(section.compare)
    if len(present) != 2:
        raise InputError(
            f"items: the file has {len(present)} item(s) ({', '.join(present[:6])}); name the "
            'comparisons, e.g. compare = [["Q1", "K1"]]')
    order = {i: k for k, i in enumerate(item_ids)}  # [case] items order when listed there
    return (tuple(sorted(present, key=lambda i: order.get(i, len(order)))),)


def case_comparisons(section: Any, database: Path, items: Path,
                     item_ids: list[str]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """``(labels, values)`` of the case's comparisons ("Q1-K1"), by the model fitted on the
    whole database."""
    population, case_items = read_tables(section, database, items)
    pairs = _comparisons(section, case_items, item_ids)
    values, _ = evidence_values(section.feature_model(), population, case_items, pairs)
    return tuple(f"{a}-{b}" for a, b in pairs), tuple(float(v) for v in values)


def measured_background(section: Any, database: Path, items: Path, *, folds: int,
                        seed: int) -> tuple[MeasuredBackground, Measurements, Measurements,
                                            dict[str, int]]:
    """The population's comparisons (out of fold for a fitted model) and the tables read;
    also the replicates behind each case item."""
    population, case_items = read_tables(section, database, items)
    model = section.feature_model()
    background = background_values(model, population, unit=section.unit,
                                   max_different=section.max_different, folds=folds, seed=seed)
    ids, counts = np.unique(case_items.sources, return_counts=True)
    return background, population, case_items, dict(zip(ids.tolist(), counts.tolist(),
                                                        strict=True))


def measurement_record(section: Any, background: MeasuredBackground, population: Measurements,
                       case_items: Measurements, replicates: dict[str, int]) -> MeasurementModel:
    """The record of how the case's values were made (model, population, items)."""
    model = section.feature_model()
    described = model.describe()
    options = ({"score": section.score} if section.model == "score" else
               {"between": section.between, "bandwidth": section.bandwidth})
    options |= {"unit": section.unit, "max_different": section.max_different}
    return MeasurementModel(
        model=section.model, **described, options=options, typicality=model.typicality,
        typicality_statement=model.typicality_statement(), database=section.database,
        database_sha256=population.provenance.sha256, items_file=section.items,
        items_sha256=case_items.provenance.sha256, features=population.features,
        population=population_summary(population, background, section.unit),
        items=tuple(MeasurementItem(id=i, replicates=n) for i, n in replicates.items()),
    )


@dataclass(frozen=True, eq=False)
class MeasuredStage:
    """The first stage of a ``[measurements]`` case's bootstrap
    (:class:`~forensic_lr.casework.two_stage.TwoStageBootstrap`): the feature model refitted
    on each replicate's drawn sources.

    For a block of replicates (``draws``: how often each of the population's sources is
    drawn) it gives the case's values by the model fitted on the drawn sources and each
    population comparison's value by the model fitted on them without the comparison's
    fold (:func:`~forensic_lr.features.comparisons.resampled_values`), oriented as the
    calibrator takes them (``direction``).
    """

    model: FeatureModel
    sums: SourceSums
    background: MeasuredBackground
    evidence: tuple[Units, Pairs]
    folds: int | None
    seed: int
    direction: str

    def __call__(self, w_ss: np.ndarray, w_ds: np.ndarray, draws: np.ndarray):
        x, values = resampled_values(self.model, self.sums, self.background, self.evidence,
                                     draws, folds=self.folds, seed=self.seed)
        x, values = orient(x, self.direction), orient(values, self.direction)
        same = self.background.pairs.same
        return x, values[:, same], values[:, ~same]


def measured_bootstrap(spec, background: MeasuredBackground, population: Measurements,
                       case_items: Measurements) -> TwoStageBootstrap:
    """The bootstrap of a ``[measurements]`` case: the population's sources drawn with
    replacement (the case's seed), the feature model refitted on each replicate
    (:class:`MeasuredStage`: the case's values and the background's out of fold, with the
    case's folds and seed) and then the calibration, every comparison counted as often as
    its sources were drawn."""
    section = spec.measurements
    sums = source_sums(population.values, population.sources)
    pairs = background.pairs
    ss, ds = (np.searchsorted(sums.ids, p.astype(str)) for p in (pairs.ss_sources,
                                                                  pairs.ds_sources))
    comparisons = _comparisons(section, case_items, [item.id for item in spec.case.items])
    stage = MeasuredStage(section.feature_model(), sums, background,
                          evidence_pairs(case_items, comparisons), spec.validation.folds,
                          spec.uncertainty.seed, spec.evidence.score_direction)
    return TwoStageBootstrap(stage, len(ss), len(ds), (ss, ds, int(sums.ids.size)))
