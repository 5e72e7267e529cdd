"""Parquet tables (pyarrow, optional): the same numbers, ids, checks and messages as the same
data written as CSV; without pyarrow a clear input error with the install command."""

import csv
import hashlib
import io
import re
import sys

import numpy as np
import pytest

from forensic_lr.errors import InputError
from forensic_lr.features import load_measurements
from forensic_lr.io.matrix import read_matrix
from forensic_lr.io.scores import load_scores, read_class_file

MEASUREMENTS = """source,item,ri,na
w1,f1,1.5180,13.1
w1,f1,1.5181,13.2
w1,f2,1.5182,13.0
w2,f1,1.5200,12.9
w2,f2,1.5201,12.8
w3,f1,1.5190,13.4
"""


def write_both(tmp_path, name: str, csv_text: str, types: dict | None = None):
    """The CSV text as ``name.csv`` and as ``name.parquet`` (written by pyarrow, columns as
    numbers where every value is one, else text; ``types`` overrides a column's type);
    returns both paths."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    header, *rows = csv.reader(io.StringIO(csv_text))
    columns = {}
    for j, name_j in enumerate(header):
        cells = [r[j] for r in rows]
        if types and name_j in types:
            columns[name_j] = pa.array(types[name_j](cells))
            continue
        try:
            columns[name_j] = pa.array([float(c) for c in cells], pa.float64())
        except ValueError:
            columns[name_j] = pa.array(cells, pa.string())
    csv_path, parquet_path = tmp_path / f"{name}.csv", tmp_path / f"{name}.parquet"
    csv_path.write_text(csv_text)
    pq.write_table(pa.table(columns), parquet_path)
    return csv_path, parquet_path


def test_measurements_from_parquet_equal_the_csv_reading(tmp_path):
    csv_path, parquet_path = write_both(tmp_path, "pop", MEASUREMENTS)
    a, b = load_measurements(csv_path), load_measurements(parquet_path)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.values.tolist()[0] == [1.518, 13.1]  # typed in the test
    assert b.sources.tolist() == a.sources.tolist() == ["w1", "w1", "w1", "w2", "w2", "w3"]
    assert b.items.tolist() == a.items.tolist()
    assert b.features == a.features == ("ri", "na")
    q = b.provenance
    assert q.format == "parquet" and q.rows == 6 and q.header is True
    assert q.sha256 == hashlib.sha256(parquet_path.read_bytes()).hexdigest()
    assert q.size == parquet_path.stat().st_size


def test_score_files_from_parquet_equal_the_csv_reading(tmp_path):
    rng = np.random.default_rng(31)
    scores = rng.normal(size=200) * 10.0 ** rng.integers(-8, 8, 200)  # full doubles
    labels = np.where(rng.random(200) < 0.3, "ss", "ds")
    source_a = rng.integers(0, 40, 200).astype(str)
    source_b = np.where(labels == "ss", source_a, "x" + source_a)
    text = "label,score,source_a,source_b\n" + "".join(
        f"{lab},{float(s)!r},{a},{b}\n"
        for lab, s, a, b in zip(labels, scores, source_a, source_b, strict=True))
    csv_path, parquet_path = write_both(tmp_path, "all", text,
                                        types={"source_a": list, "source_b": list})
    a, b = load_scores(scores=csv_path), load_scores(scores=parquet_path)
    np.testing.assert_array_equal(b.ss, scores[labels == "ss"])  # exact doubles
    np.testing.assert_array_equal(b.ds, scores[labels == "ds"])
    np.testing.assert_array_equal(a.ss, b.ss)
    np.testing.assert_array_equal(a.ds_sources, b.ds_sources)
    assert b.inputs[0].columns == a.inputs[0].columns


def test_parquet_column_types_read_as_their_values(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({
        "__index_level_0__": pa.array([7, 8, 9, 10]),  # pandas' unnamed index: not a column
        "label": pa.array(["same", "different", "ss", "ds"]).dictionary_encode(),
        "score": pa.array([1, 2, 3, 2**53 + 1], pa.int64()),  # integers, one above 2**53
        "flag": pa.array([True, False, True, False]),
        "source": pa.array([1, 2, 3, 4], pa.int32()),
    })
    path = tmp_path / "typed.parquet"
    pq.write_table(table, path)
    data = load_scores(scores=path)
    assert data.ss.tolist() == [1.0, 3.0]
    assert data.ds.tolist() == [2.0, float(2**53 + 1)]  # rounded as Python's float rounds
    assert data.ss_sources.tolist() == [["1", "1"], ["3", "3"]]
    flags = load_scores(scores=path, label_column="flag")  # booleans: true / false labels
    assert flags.ss.tolist() == [1.0, 3.0]
    assert "__index_level_0__" not in str(data.inputs[0].columns)


def test_number_names_are_a_header_and_a_matrix_reads(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"0": [1.5, 2.5], "1": [-2.0, 0.25]}), tmp_path / "m.parquet")
    assert read_matrix(tmp_path / "m.parquet").tolist() == [[1.5, -2.0], [2.5, 0.25]]
    ones = read_class_file(tmp_path / "m.parquet", score_column="1")
    assert ones.values.tolist() == [-2.0, 0.25]


def _parquet_message(csv_message: str, csv_path, parquet_path) -> str:
    """The CSV's message as a Parquet file says it: its path, data rows for lines (the
    CSV's header is line 1, so line k is row k - 1, and a Parquet file's column names are
    no row), rows for lines in counts."""
    text = csv_message.replace(str(csv_path), str(parquet_path)).replace(", line 1:", ":")
    text = re.sub(r"line (\d+)", lambda m: f"row {int(m.group(1)) - 1}", text)
    return text.replace("more line(s)", "more row(s)").replace("remove that line",
                                                                "remove that row")


@pytest.mark.parametrize("text, types", [
    (MEASUREMENTS.replace("13.2", "nan"), None),  # NaN stored as a number
    (MEASUREMENTS.replace("13.2", "abc"), None),  # text in a number column
    (MEASUREMENTS.replace("13.2", "inf").replace("12.9", "-inf"), None),  # two rows
    (MEASUREMENTS.replace("w2,f1", ",f1"), None),  # an empty source id
    (MEASUREMENTS.replace("13.2", '"13,2"'), {"na": list}),  # a decimal comma typed as text
    (MEASUREMENTS.replace("w2", "w1").replace("w3", "w1"), None),  # one source
    (MEASUREMENTS.replace("source,", "window,"), None),  # no source column
    ("source,ri\na,1\nb,2\n", None),  # no source measured twice
])
def test_bad_parquet_tables_give_the_csv_message_with_rows(tmp_path, text, types):
    csv_path, parquet_path = write_both(tmp_path, "pop", text, types)
    with pytest.raises(InputError) as from_csv:
        load_measurements(csv_path)
    with pytest.raises(InputError) as from_parquet:
        load_measurements(parquet_path)
    assert str(from_parquet.value) == _parquet_message(str(from_csv.value), csv_path,
                                                       parquet_path)


def test_a_null_is_an_empty_value_and_rows_count_across_blocks(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from forensic_lr.io.parquet import BLOCK_ROWS

    n = BLOCK_ROWS + 10
    score = np.arange(n, dtype=np.float64)
    score[[BLOCK_ROWS + 2, BLOCK_ROWS + 5]] = np.nan
    path = tmp_path / "ss.parquet"
    pq.write_table(pa.table({"score": score}), path, row_group_size=BLOCK_ROWS // 2)
    with pytest.raises(InputError, match=rf"ss.parquet, row {BLOCK_ROWS + 3}, column 'score': "
                       r"value 'nan' is not a finite number.*\(1 more row\(s\)"):
        read_class_file(path)
    nulls = pa.array([1.0, None, 2.0])
    pq.write_table(pa.table({"score": nulls}), path)
    with pytest.raises(InputError, match=r"row 2, column 'score': the value is empty"):
        read_class_file(path)


def test_refused_parquet_content_names_the_file_and_column(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"score": pa.array([[1.0], [2.0]])}), path)
    with pytest.raises(InputError, match=r"nested.parquet, column 'score': holds list"):
        read_class_file(path)
    (tmp_path / "fake.parquet").write_text("score\n1.5\n")
    with pytest.raises(InputError, match=r"fake.parquet: is not a readable Parquet file"):
        read_class_file(tmp_path / "fake.parquet")
    pq.write_table(pa.table({"score": [1.0, 2.0]}), tmp_path / "ok.parquet")
    with pytest.raises(InputError, match=r"applies to \.xlsx workbooks only; remove it for a "
                       "Parquet file"):
        read_class_file(tmp_path / "ok.parquet", sheet="Daten")


def test_without_pyarrow_parquet_is_an_input_error_with_the_install_command(
        tmp_path, monkeypatch, capsys):
    for name in ("pyarrow", "pyarrow.parquet", "pyarrow.compute"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as when not installed
    path = tmp_path / "pop.parquet"
    path.write_bytes(b"PAR1 not read")
    with pytest.raises(InputError, match=r"pop.parquet: .*pip install forensic-lr\[parquet\]"):
        load_measurements(path)
    (tmp_path / "ds.csv").write_text("score\n-1.5\n-2.5\n0.1\n")
    from forensic_lr.cli import main

    code = main(["validate", "--ss", str(path), "--ds", str(tmp_path / "ds.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert "pip install forensic-lr[parquet]" in err and "Traceback" not in err
