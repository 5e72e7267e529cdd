"""A case whose background comes as a European spreadsheet export (';', decimal comma, CRLF,
cp1252, a German header, a chosen column) or as .xlsx gives exactly the numbers of the plain
CSV, and result.json records the original files' SHA-256."""

import hashlib
import json

import numpy as np
import pytest

from forensic_lr.cli import main

CASE = """
[case]
id = "C-7"
[propositions]
hp = "same source"
hd = "different sources"
[evidence]
score = 1.7
[background]
ss = "{ss}"
ds = "{ds}"
{extra}
[method]
calibrator = "logistic"
elub = false
[uncertainty]
method = "bootstrap"
n = 100
seed = 3
[validation]
folds = 3
"""


def _write_sets(folder, ss, ds):
    np.savetxt(folder / "ss.csv", ss, fmt="%.6f")
    np.savetxt(folder / "ds.csv", ds, fmt="%.6f")
    for name, values in (("ss", ss), ("ds", ds)):
        lines = ["Vergleich;Prüfer;Wert"] + [
            f"V{i};Müller;{v:.6f}".replace(".", ",") for i, v in enumerate(values)
        ]
        (folder / f"{name}_de.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode("cp1252"))


def _run(folder, name, ss, ds, extra=""):
    (folder / f"{name}.toml").write_text(CASE.format(ss=ss, ds=ds, extra=extra),
                                         encoding="utf-8")
    out = folder / f"out-{name}"
    assert main(["-q", "run", str(folder / f"{name}.toml"), "--draft", "--out", str(out),
                 "--format", "json"]) == 0
    return json.loads((out / "result.json").read_text())


def test_spreadsheet_exports_give_the_plain_csv_numbers(tmp_path):
    rng = np.random.default_rng(5)
    ss, ds = rng.normal(2.0, 1.0, 60), rng.normal(-1.0, 1.0, 200)
    _write_sets(tmp_path, ss, ds)
    plain = _run(tmp_path, "plain", "ss.csv", "ds.csv")
    german = _run(tmp_path, "german", "ss_de.csv", "ds_de.csv", 'score_column = "Wert"')
    assert german["results"][0]["llr"] == plain["results"][0]["llr"]
    assert german["results"][0]["interval"] == plain["results"][0]["interval"]
    assert german["validation"]["metrics"] == plain["validation"]["metrics"]
    files = {f["name"]: f for f in german["provenance"]["input_files"]}
    raw = (tmp_path / "ss_de.csv").read_bytes()
    assert files["ss_de.csv"]["sha256"] == hashlib.sha256(raw).hexdigest()
    assert files["ss_de.csv"]["decimal"] == "," and files["ss_de.csv"]["delimiter"] == ";"
    assert files["ss_de.csv"]["encoding"] == "cp1252"
    assert german["provenance"]["inputs"]["ss_de.csv"] == hashlib.sha256(raw).hexdigest()


def test_xlsx_sheets_give_the_plain_csv_numbers(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    rng = np.random.default_rng(6)
    ss, ds = rng.normal(2.0, 1.0, 50), rng.normal(-1.0, 1.0, 150)
    _write_sets(tmp_path, ss, ds)
    plain = _run(tmp_path, "plain", "ss.csv", "ds.csv")
    for name, values in (("ss", ss), ("ds", ds)):
        book = openpyxl.Workbook()
        sheet = book.active
        sheet.title = "Daten"
        sheet.append(["Vergleich", "Wert"])
        for i, v in enumerate(values):
            sheet.append([f"V{i}", float(f"{v:.6f}")])
        book.save(tmp_path / f"{name}.xlsx")
    xlsx = _run(tmp_path, "xlsx", "ss.xlsx", "ds.xlsx", 'sheet = "Daten"\nscore_column = "Wert"')
    assert xlsx["results"][0]["llr"] == plain["results"][0]["llr"]
    assert xlsx["results"][0]["interval"] == plain["results"][0]["interval"]
    assert xlsx["validation"]["metrics"] == plain["validation"]["metrics"]
    files = {f["name"]: f for f in xlsx["provenance"]["input_files"]}
    assert files["ss.xlsx"]["format"] == "xlsx" and files["ss.xlsx"]["sheet"] == "Daten"
    raw = (tmp_path / "ss.xlsx").read_bytes()
    assert files["ss.xlsx"]["sha256"] == hashlib.sha256(raw).hexdigest()
