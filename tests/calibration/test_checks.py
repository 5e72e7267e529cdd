"""Input validation helpers: accepted shapes and the errors users see."""

import numpy as np
import pytest

from forensic_lr._checks import as_score_array, check_pair
from forensic_lr.errors import InputError


def test_scalar_becomes_one_element_array():
    out = as_score_array(3, "x")
    assert out.dtype == np.float64
    assert out.tolist() == [3.0]


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ([[1.0, 2.0]], "one-dimensional"),
        ([], "at least 1"),
        ([1.0, np.nan], r"x\[1\]"),
        (["a"], "numeric"),
    ],
)
def test_bad_values_are_named(values, fragment):
    with pytest.raises(InputError, match=fragment):
        as_score_array(values, "x")


def test_infinite_llrs_allowed_only_when_asked():
    with pytest.raises(InputError, match="non-finite"):
        as_score_array([np.inf], "x")
    assert np.isinf(as_score_array([np.inf], "x", allow_inf=True)[0])
    ss, ds = check_pair([np.inf, 1.0], [-np.inf, 0.0])
    assert ss.size == ds.size == 2
