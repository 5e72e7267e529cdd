"""Tests of ``forensic-lr calibrate`` and ``validate --calibrate/--compare`` (raw scores).

Values are checked against direct library calls and, for the Gaussian method, against
the closed form computed here with scipy.stats.norm (ML mean and standard deviation).
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from forensic_lr import cli
from forensic_lr.cli.common import parse_options


def _need(*modules):
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except ImportError as exc:  # pragma: no cover - only while other modules are built
            pytest.skip(f"{name} not available yet ({exc})")
        if name == "forensic_lr.calibration" and not hasattr(mod, "make_calibrator"):
            pytest.skip("forensic_lr.calibration.make_calibrator not available yet")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(42)
    ss, ds = rng.normal(2.0, 1.0, 80), rng.normal(0.0, 1.3, 120)
    np.save(tmp_path / "ss.npy", ss)
    np.save(tmp_path / "ds.npy", ds)
    return str(tmp_path / "ss.npy"), str(tmp_path / "ds.npy"), ss, ds


def _run(capsys, argv):
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _calibrate_json(capsys, ss_path, ds_path, *extra):
    argv = ["calibrate", "--ss", ss_path, "--ds", ds_path, "--json", *extra]
    code, out, err = _run(capsys, argv)
    assert code == 0, err
    return json.loads(out)


def test_calibrate_json_structure_and_values(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    from scipy.stats import norm

    from forensic_lr.calibration import make_calibrator
    from forensic_lr.uncertainty import bootstrap_interval

    ss_path, ds_path, ss, ds = files
    out = _calibrate_json(
        capsys,
        ss_path,
        ds_path,
        "--method",
        "gaussian",
        "--score",
        "1.0",
        "--score",
        "2.5",
        "--n",
        "200",
        "--seed",
        "7",
        "--level",
        "0.9",
        "--no-elub",
    )
    assert {"method", "params", "results", "elub", "warnings"} <= set(out)
    assert out["method"] == "gaussian" and out["elub"] is None
    assert isinstance(out["warnings"], list) and isinstance(out["params"], dict)
    x = np.array([1.0, 2.5])
    # closed form: ML normal densities, LLR = log N(x; mean_ss, sd_ss) - log N(x; mean_ds, sd_ds)
    expected = norm.logpdf(x, ss.mean(), ss.std()) - norm.logpdf(x, ds.mean(), ds.std())
    iv = bootstrap_interval(ss, ds, x, make_calibrator("gaussian"), n=200, level=0.9, seed=7)
    for i, r in enumerate(out["results"]):
        assert {"score", "llr", "log10_lr", "lr", "interval"} <= set(r)
        assert r["score"] == x[i]
        assert r["llr"] == pytest.approx(expected[i], rel=1e-9)
        assert r["log10_lr"] == pytest.approx(expected[i] / np.log(10), rel=1e-9)
        assert r["lr"] == pytest.approx(np.exp(expected[i]), rel=1e-9)
        assert {"level", "log10_lr_low", "log10_lr_high"} <= set(r["interval"])
        assert r["interval"]["level"] == 0.9
        assert r["interval"]["log10_lr_low"] == pytest.approx(iv.to_dict()["log10_lr_low"][i])
        assert r["interval"]["log10_lr_high"] == pytest.approx(iv.to_dict()["log10_lr_high"][i])


def test_calibrate_deterministic_and_no_interval(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    ss_path, ds_path, _, _ = files
    args = ("--method", "logistic", "--score", "0.3", "--n", "100", "--seed", "3")
    assert _calibrate_json(capsys, ss_path, ds_path, *args) == _calibrate_json(
        capsys, ss_path, ds_path, *args
    )
    out = _calibrate_json(
        capsys, ss_path, ds_path, "--method", "pav", "--score", "0.3", "--interval", "none"
    )
    assert out["results"][0]["interval"] is None


def test_calibrate_lower_is_similar_negates_scores(capsys, tmp_path, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    ss_path, ds_path, ss, ds = files
    np.save(tmp_path / "dss.npy", -ss)  # distances: lower = more similar
    np.save(tmp_path / "dds.npy", -ds)
    common = ("--method", "gaussian", "--interval", "none")
    a = _calibrate_json(capsys, ss_path, ds_path, *common, "--score", "1.5")
    b = _calibrate_json(
        capsys,
        str(tmp_path / "dss.npy"),
        str(tmp_path / "dds.npy"),
        *common,
        "--score",
        "-1.5",
        "--direction",
        "lower_is_similar",
    )
    assert b["results"][0]["llr"] == pytest.approx(a["results"][0]["llr"], rel=1e-12)
    assert b["results"][0]["score"] == -1.5


def test_calibrate_elub_bounds_llr_and_interval(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    ss_path, ds_path, _, _ = files
    out = _calibrate_json(
        capsys,
        ss_path,
        ds_path,
        "--method",
        "gaussian",
        "--option",
        "equal_variance=true",
        "--elub",
        "--score",
        "40",
        "--score",
        "-40",
        "--n",
        "100",
    )
    lo, hi = out["elub"]["log10_lr_low"], out["elub"]["log10_lr_high"]
    assert lo < 0 < hi
    high, low = out["results"]
    assert high["log10_lr"] == pytest.approx(hi) and low["log10_lr"] == pytest.approx(lo)
    for r in out["results"]:
        assert lo <= r["interval"]["log10_lr_low"] <= r["interval"]["log10_lr_high"] <= hi
    assert out["warnings"], "scores far outside the background should be warned about"


def test_calibrate_bayes_interval(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.uncertainty import bayes_interval

    ss_path, ds_path, ss, ds = files
    out = _calibrate_json(
        capsys,
        ss_path,
        ds_path,
        "--method",
        "bayes",
        "--score",
        "1.0",
        "--interval",
        "bayes",
        "--n",
        "500",
    )
    iv = bayes_interval(make_calibrator("bayes").fit(ss, ds), 1.0, n=500).to_dict()
    assert out["results"][0]["interval"]["log10_lr_low"] == pytest.approx(iv["log10_lr_low"][0])


def test_calibrate_text_output(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    ss_path, ds_path, _, _ = files
    code, out, _ = _run(
        capsys,
        [
            "calibrate",
            "--ss",
            ss_path,
            "--ds",
            ds_path,
            "--method",
            "gaussian",
            "--score",
            "2",
            "--n",
            "100",
        ],
    )
    assert code == 0
    assert "LR =" in out and "log10 LR" in out and "bootstrap interval" in out


def test_text_output_uses_the_report_rounding(files, capsys):
    # the text LR is the report's conclusion rounding (two significant figures)
    ss_path, ds_path, _, _ = files
    base = ["--method", "gaussian", "--score", "3.5", "--interval", "none"]
    log10_lr = _calibrate_json(capsys, ss_path, ds_path, *base)["results"][0]["log10_lr"]
    code, out, _ = _run(capsys, ["calibrate", "--ss", ss_path, "--ds", ds_path, *base])
    assert code == 0
    mantissa = float(f"{10**log10_lr:.2g}")  # rounded by hand from the JSON value
    assert f"LR = {mantissa:,g}" in out or f"LR = {mantissa:,.0f}" in out


def test_parse_options():
    assert parse_options(["equal_variance=true", "l2=0.5", "mode=map", "x=True"]) == {
        "equal_variance": True,
        "l2": 0.5,
        "mode": "map",
        "x": True,
    }


@pytest.mark.parametrize(
    "extra",
    [
        ["--method", "gaussian", "--score", "1", "--option", "novalue"],
        ["--method", "gaussian", "--score", "1", "--interval", "bayes"],
        ["--method", "gaussian", "--score", "nan"],
        ["--method", "gaussian", "--score", "1", "--option", "no_such_option=1"],
        ["--method", "gaussian", "--score", "1", "--level", "1.5"],
    ],
)
def test_calibrate_bad_input_exit_2(capsys, files, extra):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    ss_path, ds_path, _, _ = files
    code, _, err = _run(capsys, ["calibrate", "--ss", ss_path, "--ds", ds_path, *extra])
    assert code == 2
    assert err.startswith("forensic-lr: error:")


def test_calibrate_bad_file_exit_2(capsys, tmp_path, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    _, ds_path, _, _ = files
    bad = tmp_path / "bad.csv"
    bad.write_text("1.0\n2.0\nabc\n")
    for path in (str(bad), str(tmp_path / "missing.csv")):
        code, _, err = _run(
            capsys,
            ["calibrate", "--ss", path, "--ds", ds_path, "--method", "gaussian", "--score", "1"],
        )
        assert code == 2 and "error" in err


def test_calibrate_argparse_errors_exit_2(files):
    ss_path, ds_path, _, _ = files
    with pytest.raises(SystemExit) as exc:
        cli.main(["calibrate", "--ss", ss_path, "--ds", ds_path, "--method", "svm", "--score", "1"])
    assert exc.value.code == 2


# --------------------------------------------------------- validate with raw scores


def _validate_args(*argv):
    args = cli.build_parser().parse_args(["validate", *argv])
    args.json = True
    return args


def test_validate_calibrate_matches_library(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores", "forensic_lr.metrics")
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.metrics import evaluate
    from forensic_lr.uncertainty import cross_validated_llr

    ss_path, ds_path, ss, ds = files
    args = _validate_args(
        "--ss",
        ss_path,
        "--ds",
        ds_path,
        "--calibrate",
        "logistic",
        "--folds",
        "4",
        "--fold-seed",
        "9",
    )
    assert cli.validate.run(args) == 0
    out = json.loads(capsys.readouterr().out)
    llr = cross_validated_llr(ss, ds, make_calibrator("logistic"), folds=4, seed=9)
    expected = evaluate(*llr).to_dict()
    assert out["method"] == "logistic" and out["folds"] == 4
    for key, value in expected.items():
        assert out[key] == pytest.approx(value)


def test_validate_compare_rows(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores", "forensic_lr.metrics")
    ss_path, ds_path, _, _ = files
    args = _validate_args("--ss", ss_path, "--ds", ds_path, "--compare", "gaussian,pav,kde")
    assert cli.validate.run(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["method"] for r in rows] == ["gaussian", "pav", "kde"]
    assert all(0.0 <= r["cllr"] < 1.0 for r in rows)  # well-separated classes: Cllr < 1 bit


def test_validate_compare_text(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores", "forensic_lr.metrics")
    ss_path, ds_path, _, _ = files
    args = _validate_args("--ss", ss_path, "--ds", ds_path, "--compare", "gaussian,logistic")
    args.json = False
    assert cli.validate.run(args) == 0
    out = capsys.readouterr().out
    assert "gaussian" in out and "logistic" in out and "cllr" in out


@pytest.mark.parametrize(
    "extra",
    [
        ["--compare", "gaussian,svm"],
        ["--calibrate", "pav", "--compare", "kde"],
        ["--calibrate", "pav", "--folds", "1000"],
    ],
)
def test_validate_raw_bad_input(files, extra):
    _need("forensic_lr.calibration", "forensic_lr.io.scores", "forensic_lr.metrics")
    from forensic_lr.errors import InputError

    ss_path, ds_path, _, _ = files
    with pytest.raises(InputError):
        cli.validate.run(_validate_args("--ss", ss_path, "--ds", ds_path, *extra))


def test_calibrate_lr_overflow_is_null_in_json_but_llr_finite(capsys, files):
    _need("forensic_lr.calibration", "forensic_lr.io.scores")
    ss_path, ds_path, ss, ds = files
    out = _calibrate_json(
        capsys,
        ss_path,
        ds_path,
        "--method",
        "gaussian",
        "--option",
        "equal_variance=true",
        "--score",
        "1e4",
        "--interval",
        "none",
        "--no-elub",  # the model's own LLR, unlimited
    )
    r = out["results"][0]
    # closed form: equal-variance LLR = (m1 - m0) / v * (x - (m1 + m0) / 2), v = mean of ML vars
    v = 0.5 * (ss.var() + ds.var())
    expected = (ss.mean() - ds.mean()) / v * (1e4 - (ss.mean() + ds.mean()) / 2)
    assert expected > 800  # exp(800) overflows a double
    assert r["llr"] == pytest.approx(expected, rel=1e-9)
    assert r["lr"] is None  # JSON has no infinity: a non-finite number is written as null
    assert any("outside" in w for w in out["warnings"])
