"""``forensic-lr validate``: values against the library and a hand computation; errors."""

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from forensic_lr import plots
from forensic_lr.cli import main
from forensic_lr.metrics import dcf, evaluate, min_dcf
from forensic_lr.output import MANIFEST


@pytest.fixture
def llr_files(tmp_path):
    rng = np.random.default_rng(2)
    ss, ds = rng.normal(1.0, 1.0, 40), rng.normal(-1.0, 1.0, 60)
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    return tmp_path, ss, ds


def test_json_agrees_with_the_library(llr_files, capsys):
    folder, ss, ds = llr_files
    args = ["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--prior", "0.1", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    ss, ds = np.loadtxt(folder / "ss.csv"), np.loadtxt(folder / "ds.csv")
    assert set(out.pop("supported_range")) == {"llrs", "elub_log10", "iv_log10"}  # added
    assert out | {"dcf": None, "warnings": None} == evaluate(ss, ds).to_dict() | {
        "dcf": None, "warnings": None}
    assert out["warnings"] == []  # calibrated LLRs: no sign of raw scores
    assert out["dcf"] == [{
        "p_target": 0.1,
        "c_miss": 1.0,
        "c_fa": 1.0,
        "dcf": dcf(ss, ds, 0.1, normalize=True),
        "min_dcf": min_dcf(ss, ds, 0.1, normalize=True),
    }]


def test_tiny_set_by_hand(tmp_path, capsys):
    # log10 LRs: ss = [1, -1], ds = [0, -1]
    # Cllr = 0.5 * mean(log2(1 + 1/10), log2(1 + 10)) + 0.5 * mean(log2(1 + 1), log2(1 + 1/10))
    (tmp_path / "s.csv").write_text("label,score\nss,1\nss,-1\nds,0\nds,-1\n")
    assert main(["validate", "--scores", str(tmp_path / "s.csv"), "--log-base", "10",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = 0.25 * (math.log2(1.1) + math.log2(11)) + 0.25 * (1.0 + math.log2(1.1))
    assert out["cllr"] == pytest.approx(expected)
    assert out["rmep"] == 0.5 and out["rmed"] == 0.0


def test_plots_written_atomically_and_not_overwritten(llr_files, capsys, monkeypatch):
    folder, _, _ = llr_files
    out = folder / "figs"
    base = ["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--plots", str(out)]
    assert main(base) == 0
    names = sorted(p.name for p in out.iterdir() if p.name != MANIFEST)  # nothing staged left
    assert names == sorted(["tippett.svg", "tippett_type2.svg", "ape.svg", "ece.svg",
                            "det.svg", "roc.svg", "pav.svg", "llr_hist.svg",
                            "llr_overestimation.svg"])
    for name in names:
        assert ET.fromstring((out / name).read_bytes()).tag.endswith("svg")
    before = (out / "det.svg").read_bytes()
    capsys.readouterr()
    assert main(base) == 2
    assert "--force" in capsys.readouterr().err
    assert (out / "det.svg").read_bytes() == before
    # --force replaces the files (figures stubbed: this test is about the files)
    for name in ("tippett_svg", "ape_svg", "ece_svg", "det_svg", "roc_svg", "pav_svg",
                 "llr_histogram_svg", "llr_overestimation_svg"):
        monkeypatch.setattr(plots, name, lambda *a, **k: "<svg/>")
    assert main([*base, "--force"]) == 0
    assert (out / "det.svg").read_text() == "<svg/>"


def test_bad_input_exit_2_without_traceback(tmp_path, fresh_python):
    bad = tmp_path / "ss.csv"
    bad.write_text("1.0\nnot-a-number\n")
    good = tmp_path / "ds.csv"
    good.write_text("1.0\n2.0\n")
    proc = fresh_python("-m", "forensic_lr", "validate", "--ss", str(bad), "--ds", str(good),
                        cwd=tmp_path)
    assert proc.returncode == 2
    assert "ss.csv, line 2" in proc.stderr and "'not-a-number'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_tiny_set_dcf_auc_by_hand(tmp_path, capsys):
    # log10 LRs ss = [1, -1], ds = [0, -1]; natural llr = log10 LR * ln 10.
    # AUC: pairs (1,0) > , (1,-1) > , (-1,0) < , (-1,-1) tie -> (2 + 0.5) / 4 = 0.625.
    # p_target = 0.1: Bayes threshold ln 9 = 2.197 (natural); only ss llr 2.303 exceeds it,
    # so P_miss = 1/2, P_fa = 0: DCF = 0.1 * 0.5 = 0.05, normalised by min(0.1, 0.9) -> 0.5.
    # min DCF over thresholds: {1, 0.5, 5, 9} (normalised) -> 0.5.
    (tmp_path / "ss.txt").write_text("1\n-1\n")
    (tmp_path / "ds.txt").write_text("0\n-1\n")
    args = ["validate", "--ss", str(tmp_path / "ss.txt"), "--ds", str(tmp_path / "ds.txt"),
            "--log-base", "10", "--prior", "0.1", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_ss"] == 2 and out["n_ds"] == 2
    assert out["auc"] == pytest.approx(0.625)
    assert out["dcf"][0]["dcf"] == pytest.approx(0.5)
    assert out["dcf"][0]["min_dcf"] == pytest.approx(0.5)


def test_costs_and_log_base_reach_the_metrics(llr_files, capsys):
    folder, _, _ = llr_files
    ss, ds = np.loadtxt(folder / "ss.csv"), np.loadtxt(folder / "ds.csv")
    args = ["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--log-base", "2", "--prior", "0.3", "--c-miss", "10", "--c-fa", "2", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    ss2, ds2 = ss * math.log(2), ds * math.log(2)  # log2 LR -> natural log
    assert out["cllr"] == pytest.approx(evaluate(ss2, ds2).cllr)
    assert out["dcf"][0]["dcf"] == pytest.approx(dcf(ss2, ds2, 0.3, 10, 2, normalize=True))
    assert out["dcf"][0]["min_dcf"] == pytest.approx(
        min_dcf(ss2, ds2, 0.3, 10, 2, normalize=True)
    )


def test_undefined_metric_is_null_in_strict_json(tmp_path, capsys):
    # classes that do not overlap: devPAV is undefined (NaN in the library)
    (tmp_path / "s.csv").write_text("label,score\nss,3\nss,4\nds,-1\nds,-2\n")
    assert main(["validate", "--scores", str(tmp_path / "s.csv"), "--json"]) == 0

    def reject(constant):
        raise AssertionError(f"not strict JSON: {constant}")

    out = json.loads(capsys.readouterr().out, parse_constant=reject)
    assert out["devpav"] is None and out["eer"] == 0.0 and out["auc"] == 1.0
    assert main(["validate", "--scores", str(tmp_path / "s.csv")]) == 0
    assert "undefined" in capsys.readouterr().out


def test_readable_table(llr_files, capsys):
    folder, ss, ds = llr_files
    args = ["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--prior", "0.01"]
    assert main(args) == 0
    out = capsys.readouterr().out
    ss, ds = np.loadtxt(folder / "ss.csv"), np.loadtxt(folder / "ds.csv")
    expected = evaluate(ss, ds)
    assert f"Cllr (bits)                {expected.cllr:10.4f}" in out
    assert "same-source trials                 40" in out
    assert "DCF at p_target=0.01" in out


@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        (["--scores", "{f}"], ["--scores", "not both"]),
        (["--prior", "1.5"], ["--prior 1.5", "between 0 and 1"]),
        (["--prior", "0.2", "--c-fa", "0"], ["--c-fa 0", "positive"]),
        (["--direction", "lower_is_similar"], ["--direction applies to raw scores"]),
    ],
)
def test_option_errors_exit_2(llr_files, capsys, extra, fragments):
    folder, _, _ = llr_files
    f = str(folder / "ss.csv")
    args = ["validate", "--ss", f, "--ds", str(folder / "ds.csv"),
            *[a.format(f=f) for a in extra]]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("forensic-lr: error: ") and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


@pytest.mark.parametrize(
    ("files", "fragments"),
    [
        ({"ss.csv": "1\n2\n"}, ["--ds is missing"]),
        ({"ss.csv": "1\n2\n", "ds.csv": "1\n"}, ["ds.csv", "only 1 different-source"]),
        ({"ss.csv": "1\n2\n", "ds.csv": "score\n1\ninf\n"}, ["ds.csv", "line 3", "'inf'"]),
        ({"ss.csv": "1\n2\n", "ds.json": "[1, 2"}, ["ds.json", "not valid JSON"]),
        ({"ss.csv": "1\n2\n", "nofile.csv": None}, ["nofile.csv", "file not found"]),
    ],
)
def test_input_errors_exit_2(tmp_path, capsys, files, fragments):
    args = ["validate"]
    for name, text in files.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        args += ["--ss" if name.startswith("ss") else "--ds", str(tmp_path / name)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def test_labelled_file_error_exit_2(tmp_path, capsys):
    (tmp_path / "all.csv").write_text("label,score\nss,1\nss,2\nsuspect,3\nds,4\n")
    assert main(["validate", "--scores", str(tmp_path / "all.csv")]) == 2
    err = capsys.readouterr().err
    assert "all.csv, line 4, column 'label': label 'suspect' is not recognised" in err


def test_calibrate_none_is_not_called_cross_validated(tmp_path, capsys):
    ss, ds = tmp_path / "ss.csv", tmp_path / "ds.csv"
    ss.write_text("1\n2\n3\n")
    ds.write_text("0\n-1\n-2\n-3\n-4\n-5\n")
    assert main(["validate", "--ss", str(ss), "--ds", str(ds), "--calibrate", "none"]) == 0
    out = capsys.readouterr().out
    assert "validated as they are" in out and "cross-validated metrics" not in out
    assert main(["validate", "--ss", str(ss), "--ds", str(ds), "--calibrate", "none",
                 "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["folds"] is None and row["folds_by"] is None
    # Cllr of the given LLRs by hand: mean log2(1 + e^-s) over SS, mean log2(1 + e^s) over DS
    by_hand = 0.5 * (sum(math.log2(1 + math.exp(-s)) for s in (1, 2, 3)) / 3
                     + sum(math.log2(1 + math.exp(d)) for d in (0, -1, -2, -3, -4, -5)) / 6)
    assert row["cllr"] == pytest.approx(by_hand, rel=1e-12)


def test_method_table_keeps_every_metric_name_apart(tmp_path, capsys):
    """A metric name longer than the 10-character columns (llr_overestimation) still has
    a space before it, and every row's values line up under their names."""
    ss, ds = tmp_path / "ss.csv", tmp_path / "ds.csv"
    ss.write_text("1\n2\n3\n2.5\n")
    ds.write_text("0\n-1\n-2\n-3\n-4\n-5\n1.5\n")
    assert main(["validate", "--ss", str(ss), "--ds", str(ds), "--calibrate", "none"]) == 0
    header, row = capsys.readouterr().out.splitlines()[1:3]
    names = header.split()
    assert names[0] == "method" and "devpav" in names and "llr_overestimation" in names
    assert len(row.split()) == len(names)
    assert len(row) == len(header)
