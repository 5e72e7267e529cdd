"""Decision costs must be positive finite numbers, on the command line and in the library.

Rebuilt from the description: ``--c-fa inf`` printed "actual nan, minimum nan" with exit 0
(``--c-miss 0`` was refused). Every non-finite or non-positive cost now ends in exit 2
naming the option, and prints no metrics.
"""

from __future__ import annotations

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.metrics.dcf import bayes_threshold, dcf, min_dcf


@pytest.fixture
def llr_files(tmp_path):
    (tmp_path / "ss.csv").write_text("1\n2\n3\n")
    (tmp_path / "ds.csv").write_text("-1\n0.5\n-2\n")
    return str(tmp_path / "ss.csv"), str(tmp_path / "ds.csv")


@pytest.mark.parametrize("flag", ["--c-fa", "--c-miss"])
@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "0", "-1"])
def test_non_finite_or_non_positive_costs_exit_2_naming_the_option(llr_files, capsys, flag,
                                                                   value):
    ss, ds = llr_files
    assert main(["validate", "--ss", ss, "--ds", ds, "--prior", "0.5", f"{flag}={value}"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{flag} {value}" in err and "positive finite number" in err


def test_library_refuses_infinite_costs():
    ss, ds = np.array([1.0, 2.0]), np.array([-1.0, 0.5])
    for costs in ({"c_fa": np.inf}, {"c_miss": np.nan}):
        with pytest.raises(InputError, match="positive finite"):
            dcf(ss, ds, 0.5, **costs)
        with pytest.raises(InputError, match="positive finite"):
            min_dcf(ss, ds, 0.5, **costs)


def test_extreme_finite_cost_ratio_by_hand(llr_files, capsys):
    """c_miss = 1e308, c_fa = 1e-308, p = 0.5: the threshold is -(ln 1e308 - ln 1e-308) =
    -1418.3, below every LLR, so every trial is called Hp: P_miss = 0, P_fa = 1 and the
    normalised DCF is 0.5 * 1e-308 / min(0.5e308, 0.5e-308) = 1 by hand; the minimum is 0
    (a threshold between 0.5 and 1 makes no error). The ratio 1e616 would overflow."""
    ss, ds = llr_files
    assert bayes_threshold(0.5, 1e308, 1e-308) == pytest.approx(
        -2 * 308 * np.log(10), rel=1e-12)
    assert main(["validate", "--ss", ss, "--ds", ds, "--prior", "0.5", "--c-miss", "1e308",
                 "--c-fa", "1e-308"]) == 0
    assert "actual 1.0000, minimum 0.0000" in capsys.readouterr().out
