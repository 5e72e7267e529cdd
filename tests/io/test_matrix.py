"""Reading logits and labels: formats, and errors that point at the line."""

import numpy as np
import pytest

from forensic_lr.errors import InputError
from forensic_lr.io.matrix import read_labels, read_matrix


@pytest.mark.parametrize("sep", [",", "\t", " "])
def test_text_round_trip_with_and_without_header(tmp_path, sep):
    z = np.random.default_rng(0).normal(size=(7, 3))
    for header in ("", "a,b,c"):
        path = tmp_path / "z.txt"
        np.savetxt(path, z, delimiter=sep, header=header.replace(",", sep), comments="")
        assert np.allclose(read_matrix(path), z)


def test_npy_round_trip(tmp_path):
    z = np.arange(12.0).reshape(4, 3)
    np.save(tmp_path / "z.npy", z)
    np.save(tmp_path / "y.npy", np.array([0, 2, 1, 1]))
    assert np.array_equal(read_matrix(tmp_path / "z.npy"), z)
    assert read_labels(tmp_path / "y.npy").tolist() == [0, 2, 1, 1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a,b\n1,2\n\n3,x\n", "line 4, column 'b': value 'x' is not a number"),
        ("1,2\n3,4,5\n", "line 2: has 3 values"),
        ("1,2\nnan,4\n", "line 2, column 'column 1': value 'nan' is not a finite"),
        ("1\n2\n", "one column per class"),
    ],
)
def test_matrix_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "logits.csv"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        read_matrix(path)
    assert "logits.csv" in str(info.value)
    assert message in str(info.value)


def test_label_errors(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("label\n0\n1.5\n")
    with pytest.raises(InputError, match=r"line 3: value 1\.5 is not an integer"):
        read_labels(path)
    with pytest.raises(InputError, match="not found"):
        read_labels(tmp_path / "missing.csv")
