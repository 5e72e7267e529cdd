"""A table of one very wide line is read with memory for its rows, not 50,000 of them,
and a table wider than the limit is refused at its first line."""

from __future__ import annotations

import time

import pytest

from forensic_lr.errors import InputError
from forensic_lr.io.scores import load_scores
from forensic_lr.limits import LIMITS


def test_a_table_wider_than_the_limit_is_refused_at_once(tmp_path):
    most = LIMITS["table_columns"].most
    path = tmp_path / "wide.csv"
    path.write_text("1," * most + "1\n")
    (tmp_path / "ds.csv").write_text("1\n2\n")
    start = time.monotonic()
    with pytest.raises(InputError, match=rf"{most + 1:,} columns, above the limit of {most:,}"):
        load_scores(ss=path, ds=tmp_path / "ds.csv")
    assert time.monotonic() - start < 20
