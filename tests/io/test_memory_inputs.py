"""load_scores takes data already in memory (arrays, lists, Series, DataFrames, mappings) and
gives what it gives for the same data in a file, with the same checks."""

from __future__ import annotations

import numpy as np
import pytest

from forensic_lr import load_scores
from forensic_lr.errors import InputError

pd = pytest.importorskip("pandas")


def _labelled_csv(tmp_path):
    rows = [("ss", 3.25, "A"), ("ds", -0.5, "B"), ("same", 2.75, "C"), ("0", 0.125, "D"),
            ("target", 4.0, "E"), ("nontarget", -1.5, "F")]
    path = tmp_path / "all.csv"
    path.write_text("label,score,source\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
    return path, rows


def test_a_dataframe_gives_what_its_csv_file_gives(tmp_path):
    path, rows = _labelled_csv(tmp_path)
    frame = pd.DataFrame(rows, columns=["Label", "Score", "Source"])
    from_file, from_frame = load_scores(str(path)), load_scores(frame)
    np.testing.assert_array_equal(from_frame.ss, from_file.ss)
    np.testing.assert_array_equal(from_frame.ds, from_file.ds)
    np.testing.assert_array_equal(from_frame.ss_sources, from_file.ss_sources)
    np.testing.assert_array_equal(from_frame.ss, [3.25, 2.75, 4.0])  # by hand
    np.testing.assert_array_equal(from_frame.ds, [-0.5, 0.125, -1.5])
    assert from_frame.files == {} and from_file.files  # only files have a SHA-256


def test_arrays_lists_series_and_a_mapping_of_classes():
    ss, ds = [2.0, 3.0, 4.0], np.array([0.0, -1.0])
    expected = load_scores(ss=ss, ds=ds)
    for got in (load_scores({"ss": ss, "ds": ds}), load_scores({"SS": pd.Series(ss), "DS": ds}),
                load_scores(ss=pd.Series(ss), ds=list(ds))):
        np.testing.assert_array_equal(got.ss, [2.0, 3.0, 4.0])
        np.testing.assert_array_equal(got.ds, expected.ds)
    distances = load_scores(ss=ss, ds=ds, direction="lower_is_similar")
    np.testing.assert_array_equal(distances.ss, [-2.0, -3.0, -4.0])
    log10 = load_scores(ss=[1.0, 2.0], ds=[-1.0, 0.0], log_base="10")
    np.testing.assert_allclose(log10.ss, [np.log(10), 2 * np.log(10)])


def test_a_mapping_of_columns_with_chosen_columns_by_name_and_position():
    table = {"Vergleich": ["ss", "ds", "ss", "ds"], "Wert": [1.5, 0.5, 2.5, -0.5]}
    by_name = load_scores(table, label_column="vergleich", score_column="WERT")
    by_position = load_scores(scores=table, label_column=1, score_column=2)
    np.testing.assert_array_equal(by_name.ss, [1.5, 2.5])
    np.testing.assert_array_equal(by_position.ds, [0.5, -0.5])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: load_scores(ss=[1.0, float("nan")], ds=[0.0, 1.0]), r"ss, row 1: value nan"),
    (lambda: load_scores(ss=[1.0, "high"], ds=[0.0, 1.0]), r"ss, row 1: value 'high'"),
    (lambda: load_scores(pd.DataFrame({"label": ["ss", "suspect"], "score": [1.0, 2.0]})),
     r"column 'label', row 1: label 'suspect' is not recognised"),
    (lambda: load_scores(pd.DataFrame({"label": ["ss", "ds"], "value": [1.0, 2.0]})),
     r"no score column 'score'; the table's columns are \['label', 'value'\]"),
    (lambda: load_scores({"ss": [1.0, 2.0], "ds": [0.0, 1.0]}, ss=[1.0]), "give the data once"),
    (lambda: load_scores(ss=[1.0, 2.0], ds=[0.0, 1.0], decimal=","), "files only"),
    (lambda: load_scores(ss=[1.0], ds=[0.0, 1.0]), "same-source"),
])
def test_bad_data_in_memory_is_named_as_a_file_would_be(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_a_series_index_is_the_row_quoted():
    scores = pd.Series([1.0, np.inf], index=["trial-7", "trial-9"])
    with pytest.raises(InputError, match="row trial-9"):
        load_scores(ss=scores, ds=[0.0, 1.0])
