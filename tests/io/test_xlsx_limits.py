"""Workbooks that used to be read wrongly or slowly, rebuilt from their descriptions.

* Formula cells without a saved value (a workbook written by openpyxl, which does not
  compute formulas): 50 of 52 rows used to be read with exit 0; a row of such cells
  vanished. Now refused naming file, sheet, cell and the fix.
* A sheet whose only far cell is at its last column and row (XFD1048576): over 240 s. Now
  a value there is refused within seconds naming the cell; an empty (styled) far cell
  costs nothing and the table is read exactly.
* A declared size smaller than the sheet: every row is read.
"""

from __future__ import annotations

import re
import time
import zipfile

import numpy as np
import openpyxl
import pytest

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.io.scores import load_scores, read_score_file
from forensic_lr.io.spreadsheet import column_letter

FIX = "open the workbook in Excel or LibreOffice and save it so the values are stored"


def _scores(n=52, seed=0):
    # six decimals: openpyxl writes 16 significant digits, not every double exactly
    return np.round(np.random.default_rng(seed).normal(size=n), 6)


def _one_column(path, values, *, formulas=(), far=None):
    """A ``score`` column; rows in ``formulas`` (0-based) hold a formula instead."""
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Scores"
    ws.append(["score"])
    for i, v in enumerate(values):
        ws.append([f"=A{i + 1}+1" if i in formulas else float(v)])
    if far is not None:
        ws.cell(row=1048576, column=16384).value = far
        if far == "styled":
            ws.cell(row=1048576, column=16384).value = None
            ws.cell(row=1048576, column=16384).style = "Good"
    book.save(path)
    return path


def _rewrite(path, part, change):
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts[part] = change(parts[part].decode()).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)


def test_formula_cells_without_saved_values_are_refused(tmp_path, capsys):
    path = _one_column(tmp_path / "ss.xlsx", _scores(), formulas=(10, 30))
    with pytest.raises(InputError) as info:
        read_score_file(path)
    message = str(info.value)
    assert str(path) in message and "sheet 'Scores'" in message
    assert "cell A12" in message and FIX in message and "export the sheet as CSV" in message
    # the command line: exit 2, the same message, nothing read
    ds = tmp_path / "ds.csv"
    ds.write_text("\n".join(map(str, _scores(40, 1) - 2)) + "\n")
    assert main(["validate", "--ss", str(path), "--ds", str(ds)]) == 2
    assert "cell A12" in capsys.readouterr().err


def test_a_row_of_formula_cells_is_refused_not_skipped(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["label", "score"])
    ws.append(["ss", 2.5])
    ws.append(["=\"s\"&\"s\"", "=1+2"])  # a whole row of formulas: it used to vanish
    ws.append(["ds", -1.0])
    ws.append(["ds", -2.0])
    ws.append(["ss", 3.0])
    book.save(tmp_path / "all.xlsx")
    with pytest.raises(InputError, match=r"cell A3: the formula in this cell has no saved"):
        load_scores(scores=tmp_path / "all.xlsx")


def test_formula_with_saved_value_and_text_starting_with_equals_are_read(tmp_path):
    """A spreadsheet program stores the formula's result in <v>: that value is read (the
    file's XML is edited as Excel writes it); a text cell "=x" is text, not a formula."""
    values = _scores()
    path = _one_column(tmp_path / "ss.xlsx", values, formulas=(10,))
    _rewrite(path, "xl/worksheets/sheet1.xml",
             lambda xml: re.sub(r"<f>A11\+1</f>\s*(?:<v\s*/>|<v></v>)?",  # either writer
                                "<f>A11+1</f><v>0.125</v>", xml))
    expected = values.copy()
    expected[10] = 0.125
    np.testing.assert_array_equal(read_score_file(path), expected)

    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["label", "score", "note"])
    for i, v in enumerate(values[:6]):
        ws.append(["ss" if i % 2 else "ds", float(v), "=not a formula"])
        ws.cell(row=i + 2, column=3).data_type = "s"  # stored as text, as typed '=...
    book.save(tmp_path / "text.xlsx")
    data = load_scores(scores=tmp_path / "text.xlsx")
    assert data.ss.size + data.ds.size == 6


def test_far_value_at_the_last_cell_is_refused_quickly(tmp_path, capsys):
    path = _one_column(tmp_path / "ss.xlsx", _scores(), far=7.0)
    ds = tmp_path / "ds.csv"
    ds.write_text("\n".join(map(str, _scores(40, 1) - 2)) + "\n")
    start = time.monotonic()
    assert main(["validate", "--ss", str(path), "--ds", str(ds)]) == 2
    assert time.monotonic() - start < 20
    err = capsys.readouterr().err
    assert "row 1048576" in err and "column XFD (16,384)" in err and "clear the cell" in err


def test_empty_far_cell_and_a_wrong_declared_size_read_every_row_exactly(tmp_path):
    values = _scores()
    path = _one_column(tmp_path / "styled.xlsx", values, far="styled")
    start = time.monotonic()
    np.testing.assert_array_equal(read_score_file(path), values)
    assert time.monotonic() - start < 20
    small = _one_column(tmp_path / "small.xlsx", values)
    _rewrite(small, "xl/worksheets/sheet1.xml",
             lambda xml: re.sub(r'<dimension ref="[^"]*"', '<dimension ref="A1:A10"', xml))
    np.testing.assert_array_equal(read_score_file(small), values)


@pytest.mark.parametrize(("column", "letters"),
                         [(1, "A"), (26, "Z"), (27, "AA"), (702, "ZZ"), (703, "AAA"),
                          (16384, "XFD")])
def test_column_letters_as_the_spreadsheet_names_them(column, letters):
    assert column_letter(column) == letters == openpyxl.utils.get_column_letter(column)


def test_a_part_declaring_more_than_the_limit_is_refused_before_unpacking(tmp_path,
                                                                          monkeypatch):
    """A ZIP bomb declares gigabytes unpacked; the limit is lowered here so that an
    ordinary workbook stands in for one (building a real bomb would take the time the
    check saves)."""
    from forensic_lr.io import spreadsheet

    path = _one_column(tmp_path / "ss.xlsx", _scores())
    with zipfile.ZipFile(path) as z:
        largest = max(z.infolist(), key=lambda part: part.file_size)
    size = largest.file_size
    monkeypatch.setattr(spreadsheet, "MAX_PART_BYTES", size - 1)
    with pytest.raises(InputError, match=rf"'{largest.filename}' declares {size:,} "
                                         r"bytes unpacked.*save the sheet as CSV"):
        read_score_file(path)
    monkeypatch.setattr(spreadsheet, "MAX_PART_BYTES", size)
    np.testing.assert_array_equal(read_score_file(path), _scores())
