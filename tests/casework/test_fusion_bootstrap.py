"""The bootstrap interval of a [fusion] case refits both stages in every replicate: the
fusion weights (on all comparisons for the case's fused value, and without each of the
case's cross-validation splits for the background's out-of-fold values) and then the
calibration of those values; by source when the files name sources.

Independent values: a plain loop written here, replicate by replicate with the same seed
and the same draws (sources, or each class's comparisons, drawn with replacement from
numpy's default_rng), fitting LogisticFusion and the logistic calibrator with the draws
as count weights (both checked against scikit-learn in their own tests), and numpy's
quantile. Properties: the interval does not change when a system's scores are rescaled
and shifted (the fusion absorbs it), and it widens when the background has half the
sources.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from forensic_lr._numbers import LN10
from forensic_lr.calibration import LogisticFusion, make_calibrator
from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.errors import ForensicLRError
from forensic_lr.uncertainty import fold_splits

CASE = """\
[case]
id = "F-2"
items = [{ id = "Q1", description = "call" }, { id = "K1", description = "reference" }]
[propositions]
hp = "same speaker"
hd = "another speaker"
[evidence]
description = "two systems"
[fusion]
systems = ["a", "b"]
scores = [[1.8, 0.9], [-0.5, 0.2]]
[background]
scores = "scores.csv"
[method]
calibrator = "logistic"
[uncertainty]
method = "bootstrap"
n = 100
seed = 7
[validation]
folds = 4
"""


def _table(n_sources=20, seed=5, scale_b=1.0, shift_b=0.0, sources=True):
    """label, a, b (, source_a, source_b) rows: 4 SS per source, 10 DS per source."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_sources):
        for z in rng.normal(size=(4, 2)):
            rows.append(("ss", 1.5 + z[0], 0.8 + z[1], f"S{s}", f"S{s}"))
    for _ in range(10 * n_sources):
        i, j = rng.choice(n_sources, 2, replace=False)
        z = rng.normal(size=2)
        rows.append(("ds", z[0], z[1], f"S{i}", f"S{j}"))
    header = "label,a,b" + (",source_a,source_b" if sources else "")
    lines = [header] + [
        f"{r[0]},{r[1]:.6f},{r[2] * scale_b + shift_b:.6f}" + (f",{r[3]},{r[4]}" if sources else "")
        for r in rows]
    return "\n".join(lines) + "\n"


def _run(folder, table, case=CASE):
    folder.mkdir(exist_ok=True)
    (folder / "scores.csv").write_text(table, encoding="utf-8")
    (folder / "case.toml").write_text(case, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. replicates left out: compared below
        return run_case_full(load_case(folder / "case.toml"))


def _read(folder):
    t = np.genfromtxt(folder / "scores.csv", delimiter=",", names=True, dtype=None,
                      encoding="utf-8")
    x = np.column_stack([t["a"], t["b"]])
    is_ss = t["label"] == "ss"
    pairs = (np.column_stack([t["source_a"], t["source_b"]])
             if "source_a" in t.dtype.names else None)
    return x[is_ss], x[~is_ss], (None if pairs is None else (pairs[is_ss], pairs[~is_ss]))


def _plain_loop(ss, ds, sources, evidence, n, seed, folds):
    """LLRs at the evidence of n replicates refitting both stages, one at a time."""
    splits = fold_splits(len(ss), len(ds), folds, seed, sources)
    rng = np.random.default_rng(seed)
    if sources is not None:
        ids = np.unique(np.concatenate([sources[0].ravel(), sources[1].ravel()]))
        c_ss, c_ds = (np.searchsorted(ids, s) for s in sources)
    out = np.full((n, len(evidence)), np.nan)
    for r in range(n):
        if sources is None:
            w_ss = np.bincount(rng.integers(0, len(ss), len(ss)), minlength=len(ss))
            w_ds = np.bincount(rng.integers(0, len(ds), len(ds)), minlength=len(ds))
        else:
            m = np.bincount(rng.integers(0, len(ids), len(ids)), minlength=len(ids))
            w_ss = m[c_ss[:, 0]]  # a same-source comparison: its source's count
            w_ds = m[c_ds[:, 0]] * m[c_ds[:, 1]]  # a pair of sources: the product
        try:
            x = LogisticFusion().fit(ss, ds, w_ss, w_ds).llr(evidence)
        except ForensicLRError:
            continue
        z_ss, z_ds = np.full(len(ss), np.nan), np.full(len(ds), np.nan)
        for split in splits:
            try:
                fold = LogisticFusion().fit(ss[split.train_ss], ds[split.train_ds],
                                            w_ss[split.train_ss], w_ds[split.train_ds])
            except ForensicLRError:
                continue  # fatal only if one of its test comparisons was drawn
            z_ss[split.test_ss] = fold.llr(ss[split.test_ss])
            z_ds[split.test_ds] = fold.llr(ds[split.test_ds])
        s, d = w_ss > 0, w_ds > 0
        if np.isnan(z_ss[s]).any() or np.isnan(z_ds[d]).any():
            continue
        try:
            calibrated = make_calibrator("logistic").fit(z_ss[s], z_ds[d], w_ss[s], w_ds[d])
        except ForensicLRError:
            continue
        out[r] = calibrated.llr(x)
    return out


@pytest.mark.parametrize("by_source", [True, False])
def test_the_interval_is_that_of_a_plain_loop_refitting_both_stages(tmp_path, by_source):
    run = _run(tmp_path, _table(sources=by_source))
    ss, ds, sources = _read(tmp_path)
    evidence = np.array([[1.8, 0.9], [-0.5, 0.2]])
    samples = _plain_loop(ss, ds, sources, evidence, n=100, seed=7, folds=4)
    ok = ~np.isnan(samples).any(axis=1)
    low, high = np.quantile(samples[ok], [0.025, 0.975], axis=0) / LN10
    results = run.result.results
    assert [e.interval.log10_lr_low_unbounded for e in results] == pytest.approx(low, abs=1e-7)
    assert [e.interval.log10_lr_high_unbounded for e in results] == pytest.approx(high,
                                                                                  abs=1e-7)
    assert run.result.fusion.folds_by == ("source" if by_source else "trial")
    # the case's own LR lies inside (its unbounded value)
    for e, lo, hi in zip(results, low, high, strict=True):
        assert lo < e.llr_unbounded / LN10 < hi


def test_rescaling_a_system_leaves_the_interval_unchanged(tmp_path):
    """ln LR = a + b1 s1 + b2 s2: scores s2' = -2.5 s2 + 3 (and the case's) give the same
    fused values, so every replicate, and the interval, is the same."""
    first = _run(tmp_path / "x", _table())
    case = CASE.replace("scores = [[1.8, 0.9], [-0.5, 0.2]]",
                        "scores = [[1.8, 0.75], [-0.5, 2.5]]")  # 0.9, 0.2 -> -2.5 s + 3
    second = _run(tmp_path / "y", _table(scale_b=-2.5, shift_b=3.0), case)
    for a, b in zip(first.result.results, second.result.results, strict=True):
        assert b.interval.log10_lr_low_unbounded == pytest.approx(
            a.interval.log10_lr_low_unbounded, abs=2e-6)
        assert b.interval.log10_lr_high_unbounded == pytest.approx(
            a.interval.log10_lr_high_unbounded, abs=2e-6)


def test_the_interval_widens_with_half_the_sources(tmp_path):
    more, fewer = tmp_path / "40", tmp_path / "20"
    case = CASE.replace("n = 100", "n = 200")
    wide = [_run(folder, _table(n_sources=k, seed=11), case).result.results
            for folder, k in ((more, 40), (fewer, 20))]
    width = [[e.interval.log10_lr_high_unbounded - e.interval.log10_lr_low_unbounded
              for e in results] for results in wide]
    assert all(w_few > w_more for w_more, w_few in zip(*width, strict=True))
