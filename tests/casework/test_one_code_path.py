"""Every face calls the same computation: ``calibrate`` and ``run`` agree exactly, and the
validation-study JSON is the study record serialised."""

import json

import numpy as np
import pytest

from forensic_lr.calibration import method_names
from forensic_lr.cli import main
from forensic_lr.io import load_scores
from forensic_lr.validation import run_validation_study

SCORES = (1.0, 6.5)  # the second lies beyond the background: extrapolation, ELUB bounds
EXTRA = {"suspect_map": ("suspect_ss", "--suspect-ss"), "unsupervised": ("unlabelled",
                                                                         "--unlabelled")}


@pytest.fixture(scope="module")
def background(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bg")
    rng = np.random.default_rng(11)
    np.savetxt(folder / "ss.csv", rng.normal(2.0, 1.0, 80))
    np.savetxt(folder / "ds.csv", rng.normal(-1.0, 1.2, 300))
    np.savetxt(folder / "suspect_ss.csv", rng.normal(2.4, 0.8, 12))
    np.savetxt(folder / "unlabelled.csv", np.concatenate([rng.normal(2.0, 1.0, 60),
                                                          rng.normal(-1.0, 1.2, 140)]))
    return folder


def _case(folder, method: str, elub: bool, interval: str) -> str:
    extra = ""
    if method in EXTRA:
        key = EXTRA[method][0]
        extra = f'{key} = "{key}.csv"\n'
    return f"""
[case]
id = "C-1"
[propositions]
hp = "same source"
hd = "different sources"
[evidence]
scores = [{SCORES[0]}, {SCORES[1]}]
[background]
ss = "ss.csv"
ds = "ds.csv"
{extra}
[method]
calibrator = "{method}"
elub = {str(elub).lower()}
[uncertainty]
method = "{interval}"
n = 100
level = 0.9
seed = 7
[validation]
folds = 3
"""


@pytest.mark.parametrize("elub", [False, True])
@pytest.mark.parametrize("method", method_names())
def test_calibrate_and_run_give_the_same_evidence_numbers(background, tmp_path, capsys,
                                                          method, elub):
    interval = "bayes" if method == "bayes" else "bootstrap"
    (background / "case.toml").write_text(_case(background, method, elub, interval))
    out = tmp_path / "out"
    assert main(["-q", "run", str(background / "case.toml"), "--out", str(out), "--draft",
                 "--format", "json"]) == 0
    case = json.loads((out / "result.json").read_text())
    argv = ["calibrate", "--ss", str(background / "ss.csv"), "--ds", str(background / "ds.csv"),
            "--method", method, "--interval", interval, "--n", "100", "--level", "0.9",
            "--seed", "7", "--folds", "3", "--json"]
    argv += [a for s in SCORES for a in ("--score", str(s))]
    argv.append("--elub" if elub else "--no-elub")
    if method in EXTRA:
        key, flag = EXTRA[method]
        argv += [flag, str(background / f"{key}.csv")]
    capsys.readouterr()
    assert main(argv) == 0
    cal = json.loads(capsys.readouterr().out)

    assert len(cal["results"]) == len(case["results"]) == 2
    for c, r in zip(cal["results"], case["results"], strict=True):
        for key in ("score", "llr", "log10_lr", "llr_unbounded", "bounded", "extrapolated"):
            assert c[key] == r[key], key  # bit for bit: one code path
        assert c["interval"] == r["interval"]  # bounds, level, note and the clipping flag
    m = case["method"]
    assert cal["elub_supported"] == {"log10_lr_low": m["elub_log10_lr_low"],
                                     "log10_lr_high": m["elub_log10_lr_high"]}
    assert (cal["elub"] is not None) == elub == m["elub_applied"]
    assert cal["params"] == m["params"]
    # the run adds the validation's warnings after the evidence's own, which are the same
    assert case["warnings"][: len(cal["warnings"])] == cal["warnings"]
    assert any("outside the range" in w for w in cal["warnings"])


def test_clipping_flag_marks_intervals_cut_at_the_elub_bounds(background, capsys):
    argv = ["calibrate", "--ss", str(background / "ss.csv"), "--ds", str(background / "ds.csv"),
            "--method", "logistic", "--score", "6.5", "--n", "200", "--seed", "3", "--elub",
            "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    r, elub = out["results"][0], out["elub"]
    # the extreme score's LR sits at the upper bound and so does its interval's top
    assert r["bounded"] and r["log10_lr"] == pytest.approx(elub["log10_lr_high"], abs=1e-12)
    assert r["interval"]["clipped"]
    assert r["interval"]["log10_lr_high"] == pytest.approx(elub["log10_lr_high"], abs=1e-12)


def test_validate_report_json_is_the_study_record(background, tmp_path, monkeypatch):
    from forensic_lr.report import pdf

    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, roots, **_: b"%PDF-stub")
    out = tmp_path / "study"
    assert main(["-q", "validate", "--ss", str(background / "ss.csv"), "--ds",
                 str(background / "ds.csv"), "--report", str(out), "--compare",
                 "gaussian,logistic", "--folds", "3", "--fold-seed", "5"]) == 0
    data = load_scores(ss=str(background / "ss.csv"), ds=str(background / "ds.csv"))
    study = run_validation_study(data.ss, data.ds, methods=("gaussian", "logistic"), folds=3,
                                 seed=5, inputs=data.files, about={})
    # the command's record also keeps the options it was given (for verify --study)
    options = {"ss": str(background / "ss.csv"), "ds": str(background / "ds.csv"),
               "compare": "gaussian,logistic", "folds": 3, "fold_seed": 5}
    written = json.loads((out / "validation.json").read_text())
    assert {k: written["command_options"][k] for k in options} == options
    study = study.model_copy(update={"command_options": written["command_options"]})
    assert (out / "validation.json").read_text() == study.to_json()


def test_the_evidence_numbers_do_not_depend_on_the_blas_threads():
    """logistic's bootstrap sums by BLAS products: computed on one thread, whatever is set."""
    from threadpoolctl import threadpool_limits

    from forensic_lr.casework.evidence import evaluate_evidence_full
    from forensic_lr.records import dumps

    rng = np.random.default_rng(31)
    ss, ds = rng.normal(2.0, 1.0, 2000), rng.normal(-1.0, 1.2, 20000)
    out = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            out.append(dumps(evaluate_evidence_full(
                ss, ds, [0.5, 6.0], calibrator="logistic", n=200, seed=3).record))
    assert out[0] == out[1]
