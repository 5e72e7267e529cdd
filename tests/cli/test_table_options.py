"""The spreadsheet-reading options on the command line: --column, --decimal, --sheet."""

import json

import numpy as np

from forensic_lr.cli import main


def test_calibrate_reads_a_german_export_by_column_name(tmp_path, capsys):
    rng = np.random.default_rng(8)
    ss, ds = rng.normal(2.0, 1.0, 40), rng.normal(-1.0, 1.0, 120)
    np.savetxt(tmp_path / "ss.csv", ss, fmt="%.5f")
    np.savetxt(tmp_path / "ds.csv", ds, fmt="%.5f")
    for name, values in (("ss", ss), ("ds", ds)):
        text = "Nr;Wert\r\n" + "".join(f"{i};{v:.5f}\r\n".replace(".", ",")
                                       for i, v in enumerate(values))
        (tmp_path / f"{name}_de.csv").write_bytes(text.encode("cp1252"))
    common = ["calibrate", "--method", "gaussian", "--score", "1.2", "--interval", "none",
              "--json"]
    assert main([*common, "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv")]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*common, "--ss", str(tmp_path / "ss_de.csv"), "--ds", str(tmp_path / "ds_de.csv"),
                 "--column", "Wert", "--decimal", ","]) == 0
    german = json.loads(capsys.readouterr().out)
    assert german["results"] == plain["results"]


def test_validate_refuses_a_missing_column_name_with_exit_2(tmp_path, capsys):
    (tmp_path / "ss.csv").write_text("Wert\n1.5\n2.5\n3.0\n")
    (tmp_path / "ds.csv").write_text("Wert\n-1.5\n-2.5\n0.1\n")
    code = main(["validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
                 "--column", "Score"])
    assert code == 2
    err = capsys.readouterr().err
    assert "Score" in err and "ss.csv" in err
