"""``forensic-lr validate``: values against the library and a hand computation; errors."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.metrics import dcf, evaluate, min_dcf


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
    assert out | {"dcf": None} == evaluate(ss, ds).to_dict() | {"dcf": None}
    assert out["dcf"] == [{
        "p_target": 0.1,
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


def test_plots_written_and_not_overwritten(llr_files, capsys):
    folder, _, _ = llr_files
    base = ["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--plots", str(folder / "figs")]
    assert main(base) == 0
    names = sorted(p.name for p in (folder / "figs").iterdir())
    assert names == sorted(["tippett.svg", "tippett_type2.svg", "ape.svg", "ece.svg",
                            "det.svg", "roc.svg", "pav.svg", "llr_hist.svg"])
    assert main(base) == 2
    assert "--force" in capsys.readouterr().err
    assert main([*base, "--force"]) == 0


def test_raw_scores_report(llr_files, capsys):
    folder, _, _ = llr_files
    criteria = folder / "criteria.toml"
    criteria.write_text("cllr_max = 0.6\neer_max = 0.01\n")
    args = ["validate", "--ss", str(folder / "ss.csv"), "--ds", str(folder / "ds.csv"),
            "--report", str(folder / "study"), "--compare", "gaussian,logistic",
            "--criteria", str(criteria)]
    assert main(args) == 0
    study = json.loads((folder / "study" / "validation.json").read_text())
    assert [m["method"] for m in study["methods"]] == ["gaussian", "logistic"]
    eer = {c["name"]: c["met"] for c in study["methods"][0]["criteria"]}
    assert eer["eer_max"] is False  # an EER of 1 % is out of reach for these data
    assert (folder / "study" / "validation_report.pdf").read_bytes().startswith(b"%PDF")


def test_bad_input_exit_2_without_traceback(tmp_path):
    bad = tmp_path / "ss.csv"
    bad.write_text("1.0\nnot-a-number\n")
    proc = subprocess.run(
        [sys.executable, "-m", "forensic_lr", "validate", "--ss", str(bad), "--ds", str(bad)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 2
    assert "ss.csv, line 2" in proc.stderr and "'not-a-number'" in proc.stderr
    assert "Traceback" not in proc.stderr
