"""The bootstrap of a [measurements] case refits the feature model in every replicate: the
population's sources are drawn with replacement (a source drawn twice counts as two
sources), the model (two-level means, covariances, kernel; or the standardised distance's
covariance) is refitted on the drawn sources, the background's values are recomputed out of
fold and the case's values by the model fitted on all drawn sources, then the calibration.

Independent values: a plain loop written here, replicate by replicate with the same seed
and draws. It builds each replicate as a table of its own (each copy of a drawn source a
source of its own, "S3#0", "S3#1"), forms its comparisons with make_pairs from scratch
(dropping only the pairs of two copies of one source: see the property test), fits the
public TwoLevelModel / DistanceScore on the rows of the copies without each split's sources,
calibrates the explicit list of comparisons (no weights) with the logistic calibrator, and
takes numpy's quantiles.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr._numbers import LN10
from forensic_lr.calibration import make_calibrator
from forensic_lr.casework import load_case
from forensic_lr.casework.inputs import load_measured_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.errors import ForensicLRError, InputError
from forensic_lr.features import (
    DistanceScore,
    TwoLevelModel,
    load_measurements,
    make_pairs,
    measurements_from_arrays,
    pair_units,
    units_of,
)
from forensic_lr.resampling import pair_counts, source_codes, source_folds

CASE = """\
[case]
id = "G-2"
items = [{{ id = "Q1", description = "recovered" }}, {{ id = "K1", description = "control" }}]
[propositions]
hp = "Q1 comes from K1"
hd = "Q1 comes from another window"
[evidence]
description = "measurements"
[measurements]
database = "db.csv"
items = "items.csv"
{measurements}
[method]
calibrator = "logistic"
[uncertainty]
method = "bootstrap"
n = 100
seed = {seed}
[validation]
folds = 3
"""


def _write(folder, n_sources=24, seed=12, noise=0.7):
    """A population of ``n_sources`` sources, 2 items x 2 replicates each, 2 features."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n_sources, 2)) * [1.0, 2.0]
    rows = ["source,item,a,b"]
    for s in range(n_sources):
        for k in range(4):
            x = theta[s] + rng.normal(size=2) * noise
            rows.append(f"S{s:02d},f{k // 2},{x[0]:.5f},{x[1]:.5f}")
    (folder / "db.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    case = theta[3] + rng.normal(size=(5, 2)) * noise
    items = ["item,a,b"] + [f"{'K1' if i < 3 else 'Q1'},{x[0]:.5f},{x[1]:.5f}"
                            for i, x in enumerate(case)]
    (folder / "items.csv").write_text("\n".join(items) + "\n", encoding="utf-8")


def _run(folder, measurements, seed=5):
    (folder / "case.toml").write_text(CASE.format(measurements=measurements, seed=seed),
                                      encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. replicates left out: compared below
        return run_case_full(load_case(folder / "case.toml"))


class _Model:
    """The public model of a case's [measurements] options, as the loop uses it."""

    def __init__(self, kind, option):
        self.kind, self.option = kind, option

    def fit(self, values, sources):
        if self.kind == "two_level":
            return TwoLevelModel(between=self.option).fit(values, sources)
        return DistanceScore(self.option).fit(values, sources)

    def value(self, fitted, means_a, n_a, means_b, n_b):
        """Score-like: the two-level LLR, or minus the distance."""
        if self.kind == "two_level":
            return fitted.llr_means(means_a, n_a, means_b, n_b)
        return -fitted.score(means_a, means_b)


def _plain_loop(folder, model, *, n, seed, folds=3):
    """LLRs at the case's comparison of n replicates refitting the model and the
    calibration, one replicate, one split at a time."""
    population = load_measurements(folder / "db.csv")
    items = np.loadtxt(folder / "items.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    q1, k1 = items[3:], items[:3]
    _, pairs = pair_units(population, "item", max_different=None, seed=seed)
    splits = source_folds(pairs.ss_sources, pairs.ds_sources, folds=folds, seed=seed)
    split_of = {}  # a pair of sources -> the split its comparisons are tested in
    held = []
    same, different = np.flatnonzero(pairs.same), np.flatnonzero(~pairs.same)
    for f, split in enumerate(splits):
        test = np.r_[same[split.test_ss], different[split.test_ds]]
        for a, b in pairs.sources[test]:
            split_of[frozenset((a, b))] = f
        held.append(set(pairs.sources[test].ravel()))
    ids = np.unique(population.sources)
    rng = np.random.default_rng(seed)
    out = np.full(n, np.nan)
    for r in range(n):
        drawn = np.bincount(rng.integers(0, ids.size, ids.size), minlength=ids.size)
        rows = [np.flatnonzero(population.sources == s) for s in ids]
        index = np.concatenate([rows[s] for s in range(ids.size) for _ in range(drawn[s])])
        copy = np.concatenate([[f"{ids[s]}#{c}"] * rows[s].size
                               for s in range(ids.size) for c in range(drawn[s])])
        origin = population.sources[index]
        values = population.values[index]
        replicate = measurements_from_arrays(values, copy, items=population.items[index])
        try:
            fitted = model.fit(values, copy)
            x = model.value(fitted, q1.mean(0), len(q1), k1.mean(0), len(k1))[0]
        except InputError:
            continue
        # the replicate's comparisons, formed from scratch; copies of one source never
        # compared with each other
        rep_units = units_of(replicate, "item")
        rep_pairs = make_pairs(rep_units.sources)
        src = np.array([s.split("#")[0] for s in rep_units.sources])
        a, b = src[rep_pairs.first], src[rep_pairs.second]
        keep = rep_pairs.same | (a != b)
        first, second, is_ss = rep_pairs.first[keep], rep_pairs.second[keep], rep_pairs.same[keep]
        a, b = a[keep], b[keep]
        z = np.full(first.size, np.nan)
        fold = np.array([split_of[frozenset((p, q))] for p, q in zip(a, b, strict=True)])
        for f in range(len(splits)):
            train = ~np.isin(origin, list(held[f]))
            try:
                fold_fit = model.fit(values[train], copy[train])
            except InputError:
                continue
            at = fold == f
            z[at] = model.value(fold_fit, rep_units.means[first[at]], rep_units.counts[first[at]],
                                rep_units.means[second[at]], rep_units.counts[second[at]])
        if np.isnan(z).any():
            continue
        try:
            calibrated = make_calibrator("logistic").fit(z[is_ss], z[~is_ss])
        except ForensicLRError:  # e.g. the replicate's classes separate
            continue
        out[r] = calibrated.llr(np.array([x]))[0]
    return out


@pytest.mark.parametrize("measurements, model", [
    ('between = "kde"', _Model("two_level", "kde")),
    ('between = "normal"', _Model("two_level", "normal")),
    ('model = "score"\nscore = "standardised"', _Model("score", "standardised")),
    ('model = "score"\nscore = "euclidean"', _Model("score", "euclidean")),
])
def test_the_interval_is_that_of_a_plain_loop_refitting_model_and_calibration(
        tmp_path, measurements, model):
    _write(tmp_path)
    run = _run(tmp_path, 'unit = "item"\nmax_different = 100000\n' + measurements)
    samples = _plain_loop(tmp_path, model, n=100, seed=5)
    ok = ~np.isnan(samples)
    low, high = np.quantile(samples[ok], [0.025, 0.975]) / LN10
    (e,) = run.result.results
    assert e.interval.log10_lr_low_unbounded == pytest.approx(low, abs=1e-7)
    assert e.interval.log10_lr_high_unbounded == pytest.approx(high, abs=1e-7)
    assert low < e.llr_unbounded / LN10 < high
    # the sensitivity analysis's bootstrap is the same resampling (its first 100 of 200)
    assert run.result.sensitivity.bootstrap.by == "source"
    assert run.result.sensitivity.bootstrap.n_sources == 24


def test_the_model_uncertainty_widens_the_interval_of_a_fitted_model(tmp_path):
    """Refitting the two-level model in every replicate adds its uncertainty: the interval
    is wider than the calibration-only bootstrap of the same case by source (the values
    held fixed), computed here by refitting the calibrator on the case's fixed values."""
    _write(tmp_path)
    run = _run(tmp_path, 'unit = "item"\nbetween = "kde"')
    spec = load_case(tmp_path / "case.toml")
    data, *_ = load_measured_case(spec)
    codes = source_codes(data.ss_sources, data.ds_sources, data.ss.size, data.ds.size)
    rng = np.random.default_rng(5)
    fixed = []
    for _ in range(100):
        m = np.bincount(rng.integers(0, codes[2], codes[2]), minlength=codes[2])
        w_ss, w_ds = pair_counts(m, codes)
        fit = make_calibrator("logistic").fit(np.repeat(data.ss, w_ss), np.repeat(data.ds, w_ds))
        fixed.append(fit.llr(np.array(spec.evidence.values))[0])
    low, high = np.quantile(fixed, [0.025, 0.975]) / LN10
    (e,) = run.result.results
    assert (e.interval.log10_lr_high_unbounded - e.interval.log10_lr_low_unbounded
            > high - low)


def test_the_same_case_and_seed_give_the_same_result_json_byte_for_byte(tmp_path):
    _write(tmp_path)
    first = _run(tmp_path, 'between = "kde"').result.to_json()
    assert _run(tmp_path, 'between = "kde"').result.to_json() == first
    other = json.loads(_run(tmp_path, 'between = "kde"', seed=6).result.to_json())
    assert other["results"][0]["interval"] != json.loads(first)["results"][0]["interval"]


def test_replicates_whose_model_cannot_be_fitted_are_left_out_with_the_coded_warning(
        tmp_path):
    """21 sources in 3 folds: some replicates' fold models cannot be fitted (too few
    distinct training sources for a positive-definite between-source covariance) or their
    classes separate; they are left out and counted as the calibrator's degenerate
    replicates are (warning.bootstrap_degenerate), the same ones as in the plain loop."""
    _write(tmp_path, n_sources=21, seed=4, noise=0.6)
    run = _run(tmp_path, 'unit = "item"\nmax_different = 100000\nbetween = "normal"')
    samples = _plain_loop(tmp_path, _Model("two_level", "normal"), n=100, seed=5)
    failed = int(np.isnan(samples).sum())
    assert 0 < failed < 100
    (e,) = run.result.results
    coded = [m for m in run.result.warning_messages if m.code == "warning.bootstrap_degenerate"]
    assert [m.params for m in coded] == [{"bad": str(failed), "n": "100"}]
    assert e.interval.note.startswith(f"{failed} of 100 replicates were degenerate")
    ok = ~np.isnan(samples)
    low, high = np.quantile(samples[ok], [0.025, 0.975]) / LN10
    assert e.interval.log10_lr_low_unbounded == pytest.approx(low, abs=1e-7)
    assert e.interval.log10_lr_high_unbounded == pytest.approx(high, abs=1e-7)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=3, max_size=6), st.integers(0, 2**31))
def test_a_replicates_comparisons_are_its_copies_pairs_without_two_copies_of_one_source(
        units_per_source, seed):
    """The weights of a replicate (pair_counts: m_a for a pair within source a, m_a m_b for
    a and b) count exactly the comparisons of the table of copies, each copy a source of
    its own, except the pairs of two copies of one source, which are left out: they would
    compare a unit with itself (or the same source's units) as if from two sources."""
    sources = np.repeat([f"S{i}" for i in range(len(units_per_source))], units_per_source)
    pairs = make_pairs(sources)
    codes = source_codes(pairs.ss_sources, pairs.ds_sources, int(pairs.same.sum()),
                         int((~pairs.same).sum()))
    k = codes[2]
    m = np.bincount(np.random.default_rng(seed).integers(0, k, k), minlength=k)
    w_ss, w_ds = pair_counts(m, codes)
    ids = np.unique(sources)
    unit_of = np.arange(sources.size)
    copy_units, copy_sources = [], []
    for s, name in enumerate(ids):
        for c in range(m[s]):
            copy_units += list(unit_of[sources == name])
            copy_sources += [f"{name}#{c}"] * int((sources == name).sum())
    if len(copy_units) < 2:
        return
    copies = make_pairs(np.array(copy_sources))
    origin = np.array([s.split("#")[0] for s in copy_sources])
    cu = np.array(copy_units)
    a, b = origin[copies.first], origin[copies.second]
    between_copies = ~copies.same & (a == b)
    kept = ~between_copies

    def multiset(first, second, same, weights=None):
        keys = [(min(p, q), max(p, q), bool(s)) for p, q, s in zip(first, second, same,
                                                                    strict=True)]
        counts = {}
        for key, w in zip(keys, np.ones(len(keys), int) if weights is None else weights,
                          strict=True):
            counts[key] = counts.get(key, 0) + int(w)
        return {key: c for key, c in counts.items() if c}

    weighted = multiset(pairs.first, pairs.second, pairs.same, np.r_[w_ss, w_ds])
    built = multiset(cu[copies.first[kept]], cu[copies.second[kept]], copies.same[kept])
    assert weighted == built
    # the pairs left out are exactly the different-source pairs of two copies of one source
    assert not (copies.same & (a != b)).any()
    assert int(between_copies.sum()) == sum(
        int(m[s]) * (int(m[s]) - 1) // 2 * int((sources == name).sum()) ** 2
        for s, name in enumerate(ids))


@pytest.mark.parametrize("measurements, interval, language, page_1, section, absent, robust", [
    ('between = "kde"', "bootstrap", "en",
     "includes the uncertainty of the feature model: each bootstrap replicate draws the "
     "population database", "a source drawn twice counts as two sources, and its copies are "
     "never compared with each other", "held fixed",
     "Each resample refits the feature model on the drawn sources too"),
    ('between = "kde"', "bootstrap", "es",
     "incluye la incertidumbre del modelo de características: cada réplica bootstrap extrae "
     "de nuevo las fuentes", "una fuente extraída dos veces cuenta como dos fuentes, cuyas "
     "copias nunca se comparan entre sí", "se mantienen fijos",
     "Cada remuestreo reajusta también el modelo de características"),
    ('between = "kde"', "bayes", "en",
     "leaves out the uncertainty of the feature model, whose parameters are held fixed",
     "posterior credible interval", "refits both stages",
     "Each resample refits the feature model on the drawn sources too"),
    ('model = "score"\nscore = "euclidean"', "bootstrap", "en", "The model and the population "
     "database", "the score function estimates nothing from the population",
     "uncertainty of the feature model", None),
])
def test_page_1_and_the_interval_say_what_the_measured_cases_interval_resamples(
        tmp_path, measurements, interval, language, page_1, section, absent, robust):
    """A fitted feature model refitted in every replicate: page 1 and the interval's
    explanation say so (English, and Spanish typed here); a Bayesian interval holds the
    model's parameters fixed and says that; a parameter-free distance has nothing to refit
    and the interval says that the values do not change. The robustness section says that
    its bootstrap refits the feature model too (whatever the interval)."""
    from forensic_lr.report import build_report

    _write(tmp_path)
    text = CASE.format(measurements=measurements, seed=5)
    if interval == "bayes":
        text = text.replace('calibrator = "logistic"', 'calibrator = "bayes"').replace(
            'method = "bootstrap"', 'method = "bayes"')
    path = tmp_path / "case.toml"
    path.write_text(text + f'\n[report]\nlanguage = "{language}"\n', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_case_full(load_case(path))
    html = build_report(run, ("html",))["report.html"].decode("utf-8")
    conclusion, _, rest = html.partition("<h2>")[2].partition("<h2>")
    assert page_1 in conclusion and section in rest, language
    assert absent not in html, language
    if robust is None:
        assert "Each resample refits the feature model" not in html
    else:
        assert robust in rest, language
