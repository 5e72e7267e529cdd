"""validate --csv: the metrics as CSV, checked against the metric functions called directly."""

import csv

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.metrics import cllr, min_cllr
from forensic_lr.validation import metrics_csv


def _files(tmp_path, seed=2):
    rng = np.random.default_rng(seed)
    ss, ds = rng.normal(1.5, 1.0, 60), rng.normal(-1.5, 1.2, 90)
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    return ss, ds


def test_llr_metrics_as_csv(tmp_path, capsys):
    ss, ds = _files(tmp_path)
    out = tmp_path / "m.csv"
    assert main(["validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
                 "--csv", str(out)]) == 0
    (row,) = list(csv.DictReader(out.open()))
    assert row["system"] == "input"
    assert float(row["cllr"]) == pytest.approx(cllr(ss, ds), rel=1e-12)
    assert float(row["min_cllr"]) == pytest.approx(min_cllr(ss, ds), rel=1e-12)
    assert int(row["n_ss"]) == 60
    # never over an existing file without --force
    assert main(["validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
                 "--csv", str(out)]) == 2


def test_compare_writes_one_line_per_method(tmp_path, capsys):
    _files(tmp_path)
    out = tmp_path / "m.csv"
    assert main(["validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
                 "--compare", "gaussian,logistic", "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["system"] for r in rows] == ["gaussian", "logistic"]
    assert all(0 < float(r["cllr"]) < 1 for r in rows)


def test_metrics_csv_cells():
    text = metrics_csv([("a,b", {"cllr": 0.1, "eer": None, "n": 3, "x": float("inf")})])
    assert text == 'system,cllr,eer,n,x\n"a,b",0.1,,3,inf\n'
