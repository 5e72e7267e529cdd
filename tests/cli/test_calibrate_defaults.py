"""One set of defaults: ``forensic-lr calibrate --ss --ds --score`` without options prints the
LR, ELUB bounds and interval that a case file without ``[method]``, ``[uncertainty]`` and
``[validation]`` sections reports for the same data, and both equal a hand-built evaluation
from the library's parts (the default method fitted on all scores, the ELUB of its 5-fold
cross-validated LLRs with the case seed, the percentile bootstrap of 1000 refits).

The two faces run as a user runs them: ``python -m forensic_lr`` in a fresh process
(``fresh_python``, tests/conftest.py).
"""

from __future__ import annotations

import json
import math
import subprocess

import numpy as np
import pytest

from forensic_lr.calibration import DEFAULT_CALIBRATOR, make_calibrator
from forensic_lr.calibration.elub import elub_bounds_log10
from forensic_lr.resampling import DEFAULT_SEED
from forensic_lr.uncertainty import bootstrap_interval, cross_validated_llr

SCORES = (1.0, 6.5)  # the second lies beyond the background: limited to the upper ELUB bound
CASE = """
[case]
id = "C-DEF"
[propositions]
hp = "same source"
hd = "different sources"
[evidence]
scores = [1.0, 6.5]
[background]
ss = "ss.csv"
ds = "ds.csv"
"""


def _background(folder, sources: bool) -> None:
    rng = np.random.default_rng(11)
    ss, ds = rng.normal(2.0, 1.0, 60), rng.normal(-1.0, 1.2, 200)
    if not sources:
        np.savetxt(folder / "ss.csv", ss)
        np.savetxt(folder / "ds.csv", ds)
        return
    # 12 speakers: same-source trials of one speaker, different-source trials of two
    ss_src = [f"s{i % 12}" for i in range(ss.size)]
    ds_pairs = [(f"s{i % 12}", f"s{(i * 5 + 1) % 12}") for i in range(ds.size)]
    ds_pairs = [(a, b if b != a else f"s{(int(a[1:]) + 1) % 12}") for a, b in ds_pairs]
    (folder / "ss.csv").write_text(
        "score,source\n" + "".join(f"{float(v)!r},{s}\n" for v, s in zip(ss, ss_src, strict=True)))
    (folder / "ds.csv").write_text("score,source_a,source_b\n" + "".join(
        f"{float(v)!r},{a},{b}\n" for v, (a, b) in zip(ds, ds_pairs, strict=True)))


def _cli(fresh_python, *argv: str, cwd) -> subprocess.CompletedProcess:
    done = fresh_python("-m", "forensic_lr", *argv, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module", params=[False, True], ids=["by-trial", "by-source"])
def both_faces(request, tmp_path_factory, fresh_python):
    folder = tmp_path_factory.mktemp("defaults")
    _background(folder, request.param)
    (folder / "case.toml").write_text(CASE)
    _cli(fresh_python, "-q", "run", "case.toml", "--out", "out", "--draft", "--format", "json",
         cwd=folder)
    case = json.loads((folder / "out" / "result.json").read_text())
    score_args = [a for s in SCORES for a in ("--score", str(s))]
    cal = json.loads(_cli(fresh_python, "calibrate", "--ss", "ss.csv", "--ds", "ds.csv",
                          *score_args, "--json", cwd=folder).stdout)
    text = _cli(fresh_python, "calibrate", "--ss", "ss.csv", "--ds", "ds.csv", *score_args,
                cwd=folder).stdout
    return folder, request.param, case, cal, text


def test_calibrate_without_options_reports_what_a_case_without_method_reports(both_faces):
    _, _, case, cal, _ = both_faces
    m = case["method"]
    assert cal["method"] == m["calibrator"] == DEFAULT_CALIBRATOR
    assert m["elub_applied"] and cal["elub"] is not None  # ELUB on by default on both
    assert cal["elub"] == {"log10_lr_low": m["elub_log10_lr_low"],
                           "log10_lr_high": m["elub_log10_lr_high"]}
    assert cal["interval"] == {"method": "bootstrap", "level": 0.95, "n": 1000,
                               "seed": DEFAULT_SEED}
    assert case["provenance"]["seed"] == DEFAULT_SEED
    for c, r in zip(cal["results"], case["results"], strict=True):
        for key in ("score", "llr", "log10_lr", "llr_unbounded", "bounded", "interval",
                    "uncertainty"):
            assert c[key] == r[key], key
    assert [r["bounded"] for r in cal["results"]] == [False, True]


def test_calibrate_text_prints_the_case_numbers(both_faces):
    _, _, case, _, text = both_faces
    m = case["method"]
    assert f"method: {DEFAULT_CALIBRATOR}" in text
    assert (f"ELUB bounds of log10 LR (cross-validated LRs): [{m['elub_log10_lr_low']:.3f}, "
            f"{m['elub_log10_lr_high']:.3f}]") in text
    first = case["results"][0]
    iv = first["interval"]
    assert f"log10 LR = {first['log10_lr']:.3f}" in text
    assert f"95 % bootstrap interval of log10 LR: [{iv['log10_lr_low']:.3f}, " \
           f"{iv['log10_lr_high']:.3f}]" in text
    assert case["results"][1]["uncertainty"] in text  # the limited LR's statement


def test_the_defaults_equal_a_hand_built_evaluation(both_faces):
    """The method fitted on all scores, limited to the ELUB of the 5-fold out-of-fold LLRs
    (seed 20261122; folds by source when the files name sources), and a percentile
    bootstrap of 1000 refits: built here from the library's parts, by name."""
    from forensic_lr.io import load_scores

    folder, by_source, _, cal, _ = both_faces
    data = load_scores(ss=str(folder / "ss.csv"), ds=str(folder / "ds.csv"))
    assert data.has_sources == by_source
    x = np.array(SCORES)
    llr = make_calibrator("bayes").fit(data.ss, data.ds).llr(x)
    cv = cross_validated_llr(data.ss, data.ds, "bayes", 5, 20261122,
                             ss_sources=data.ss_sources, ds_sources=data.ds_sources)
    low, high = elub_bounds_log10(*cv)
    assert cal["elub"] == {"log10_lr_low": low, "log10_lr_high": high}
    iv = bootstrap_interval(data.ss, data.ds, x, "bayes", n=1000, level=0.95, seed=20261122)
    for i, r in enumerate(cal["results"]):
        assert r["llr_unbounded"] == pytest.approx(llr[i], abs=1e-12)
        assert r["log10_lr"] == pytest.approx(min(max(llr[i] / math.log(10), low), high),
                                              abs=1e-12)
        assert r["interval"]["log10_lr_low_unbounded"] == pytest.approx(
            iv.llr_low[i] / math.log(10), abs=1e-12)
        assert r["interval"]["log10_lr_high_unbounded"] == pytest.approx(
            iv.llr_high[i] / math.log(10), abs=1e-12)


def test_no_elub_reports_the_model_and_warns(both_faces, fresh_python):
    folder, _, case, _, _ = both_faces
    out = json.loads(_cli(fresh_python, "calibrate", "--ss", "ss.csv", "--ds", "ds.csv",
                          "--score", "6.5", "--no-elub", "--interval", "none", "--json",
                          cwd=folder).stdout)
    r = out["results"][0]
    assert out["elub"] is None and not r["bounded"]
    assert r["llr"] == case["results"][1]["llr_unbounded"]
    assert any("ELUB bounding is off" in w for w in out["warnings"])
    # --elub (the default's old spelling) keeps working
    again = json.loads(_cli(fresh_python, "calibrate", "--ss", "ss.csv", "--ds", "ds.csv",
                            "--score", "6.5", "--elub", "--method", "bayes", "--interval",
                            "none", "--json", cwd=folder).stdout)
    assert again["results"][0]["log10_lr"] == case["results"][1]["log10_lr"]
