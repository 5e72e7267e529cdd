"""Measurement tables: read through the one table reader, checked with messages that name
the file, line, column and the fix."""

import numpy as np
import pytest

from forensic_lr.errors import InputError
from forensic_lr.features import load_measurements, measurements_from_arrays

GOOD = """source,item,ri,na
w1,f1,1.5180,13.1
w1,f1,1.5181,13.2
w1,f2,1.5182,13.0
w2,f1,1.5200,12.9
w2,f2,1.5201,12.8
"""


def test_a_table_reads_sources_items_and_every_other_column_as_a_feature(tmp_path):
    path = tmp_path / "pop.csv"
    path.write_text(GOOD)
    m = load_measurements(path)
    assert m.features == ("ri", "na")
    assert m.sources.tolist() == ["w1", "w1", "w1", "w2", "w2"]
    assert m.items.tolist() == ["f1", "f1", "f2", "f1", "f2"]
    np.testing.assert_array_equal(m.values[:, 0], [1.5180, 1.5181, 1.5182, 1.5200, 1.5201])
    assert m.provenance.columns["source"] == "source"
    assert m.n_sources == 2


def test_chosen_feature_columns_and_a_decimal_comma_workbook(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in GOOD.splitlines():
        sheet.append([float(c) if c[0].isdigit() else c for c in row.split(",")])
    book.save(tmp_path / "pop.xlsx")
    m = load_measurements(tmp_path / "pop.xlsx", feature_columns=["na"])
    assert m.features == ("na",)
    np.testing.assert_array_equal(m.values[:, 0], [13.1, 13.2, 13.0, 12.9, 12.8])
    (tmp_path / "pop.csv").write_text(GOOD.replace(",", ";").replace(".", ","))
    m = load_measurements(tmp_path / "pop.csv", decimal=",")
    assert m.values[0, 0] == 1.518


@pytest.mark.parametrize("text, where, fix", [
    (GOOD.replace("13.2", "abc"), "line 3, column 'na'", "not a number"),
    (GOOD.replace("13.2", "nan"), "line 3, column 'na'", "not a finite number"),
    (GOOD.replace("w2,f1", ",f1"), "line 5, column 'source'", "give every measurement"),
    (GOOD.replace("source,", "window,"), "", "no 'source' column"),
    ("1,2,3\n4,5,6\n", "", "no header line"),
    (GOOD.replace("w2", "w1"), "", "at least 2 sources"),
    ("source,ri\na,1\nb,2\n", "", "at least one source needs two"),
    (GOOD.replace("13.1", "13").replace("13.2", "13").replace("13.0", "13")
     .replace("12.9", "13").replace("12.8", "13"), "", "feature 'na' has the same value"),
    ("source,item\na,1\n", "", "no feature column"),
    ("source,ri\n", "", "no measurements"),
])
def test_bad_tables_name_file_line_column_and_fix(tmp_path, text, where, fix):
    path = tmp_path / "pop.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_measurements(path)
    message = str(err.value)
    assert str(path) in message and where in message and fix in message


def test_missing_files_are_refused_with_the_fix(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_measurements(tmp_path / "none.csv")


def test_arrays_in_memory_pass_the_same_checks():
    m = measurements_from_arrays([[1.0, 2], [1.1, 2.5], [3, 4]], ["a", "a", "b"])
    assert m.features == ("x1", "x2") and m.items.tolist() == ["0", "1", "2"]
    with pytest.raises(InputError, match="row 2, column 'x2'"):
        measurements_from_arrays([[1.0, 2], [1.1, np.inf], [3, 4]], ["a", "a", "b"])
    with pytest.raises(InputError, match="one id per measurement"):
        measurements_from_arrays([[1.0], [2.0]], ["a"])
