"""A ``.npy`` header is checked against the file's size before any array is allocated.

Rebuilt from the description: a header claiming 10^13 float64 values (72.8 TiB) used to end
in numpy's ArrayMemoryError; every command reading it now exits 2 naming the file, the
declared shape and size, and the bytes the file really holds.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from numpy.lib import format as npy_format

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.io.matrix import read_matrix
from forensic_lr.io.scores import read_score_file


def _header_only(path, shape, version=(1, 0), payload=b""):
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": shape}
    writer = {(1, 0): npy_format.write_array_header_1_0,
              (2, 0): npy_format.write_array_header_2_0}[version]
    writer(buffer, header)
    path.write_bytes(buffer.getvalue() + payload)
    return path


@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_header_claiming_10_to_the_13_values_is_refused(tmp_path, version):
    path = _header_only(tmp_path / "ss.npy", (10**13,), version, np.arange(10.0).tobytes())
    with pytest.raises(InputError) as info:
        read_score_file(path)
    message = str(info.value)
    # 10^13 x 8 bytes, computed by hand; the payload is 10 x 8 = 80 bytes
    assert "shape (10000000000000,)" in message and "80,000,000,000,000 bytes" in message
    assert "holds 80 bytes" in message and str(path) in message


def test_every_reader_checks_before_allocating(tmp_path, capsys):
    huge = _header_only(tmp_path / "z.npy", (10**6, 10**7))
    good = tmp_path / "ok.npy"
    np.save(good, np.array([0.5, -1.0, 2.0]))
    with pytest.raises(InputError, match=r"shape \(1000000, 10000000\)"):
        read_matrix(huge)
    for args in (["validate", "--ss", str(huge), "--ds", str(good)],
                 ["multiclass", "--val-logits", str(huge), "--val-labels", str(good)],
                 ["calibrate", "--ss", str(huge), "--ds", str(good), "--method", "gaussian",
                  "--score", "1"]):
        start = time.monotonic()
        assert main(args) == 2, args
        assert time.monotonic() - start < 20
        err = capsys.readouterr().err
        assert "z.npy" in err and "declares shape" in err and "damaged or cut short" in err


def test_a_well_formed_array_reads_as_saved(tmp_path):
    for values in (np.array([1.25, -3.5, 7.0]), np.array([1.25, -3.5, 7.0], np.float32),
                   np.array([1, -3, 7], np.int16)):
        np.save(tmp_path / "v.npy", values)
        np.testing.assert_array_equal(read_score_file(tmp_path / "v.npy"), values)


def test_object_arrays_are_refused_from_the_header(tmp_path):
    np.save(tmp_path / "o.npy", np.array([1.0, "a"], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="Python objects"):
        read_score_file(tmp_path / "o.npy")
