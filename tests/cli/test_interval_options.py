"""One rule for interval options on every face: at least 100 replicates, 0.5 < level < 1.

``compare --n 1`` used to print a zero-width interval and a verdict, ``calibrate --n 1`` an
interval excluding its own estimate, while the case file refused ``n < 100``.
"""

from __future__ import annotations

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.spec import Uncertainty
from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.resampling import LEVEL_RANGE, MIN_REPLICATES, check_interval_options

VOICE = examples_dir() / "voice"
BACKGROUND = ["--ss", str(VOICE / "ss.csv"), "--ds", str(VOICE / "ds.csv")]


@pytest.fixture()
def llr_files(tmp_path):
    rng = np.random.default_rng(1)
    rows = ["label,score"] + [f"ss,{v:.4f}" for v in rng.normal(2, 1, 40)] + [
        f"ds,{v:.4f}" for v in rng.normal(-2, 1, 40)]
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("\n".join(rows) + "\n")
    b.write_text("\n".join(rows[:1] + [r[:-1] + "0" for r in rows[1:]]) + "\n")
    return ["--a", str(a), "--b", str(b)]


@pytest.mark.parametrize(("flags", "named"), [
    (["--n", "1"], "--n 1"), (["--n", "99"], "--n 99"),
    (["--level", "0.5"], "--level 0.5"), (["--level", "1.0"], "--level 1.0"),
])
def test_compare_refuses_too_few_replicates_and_bad_levels(llr_files, capsys, flags, named):
    assert main(["compare", *llr_files, *flags]) == 2
    captured = capsys.readouterr()
    assert named in captured.err and "performs better" not in captured.out


@pytest.mark.parametrize(("flags", "named"), [
    (["--n", "1"], "--n 1"), (["--level", "0.2"], "--level 0.2"),
])
def test_calibrate_refuses_too_few_replicates_and_bad_levels(capsys, flags, named):
    argv = ["calibrate", *BACKGROUND, "--method", "gaussian", "--score", "5", *flags]
    assert main(argv) == 2
    assert named in capsys.readouterr().err


def test_validate_ci_refuses_too_few_replicates(capsys):
    assert main(["validate", *BACKGROUND, "--calibrate", "gaussian", "--ci", "bootstrap",
                 "--n", "1"]) == 2
    assert "--n 1" in capsys.readouterr().err


def test_least_allowed_values_pass(llr_files, capsys):
    assert main(["compare", *llr_files, "--n", str(MIN_REPLICATES), "--level", "0.51"]) == 0


def test_library_rule_and_case_file_agree():
    check_interval_options(MIN_REPLICATES, 0.95)
    check_interval_options(None, 0.95)
    for n, level in ((MIN_REPLICATES - 1, 0.95), (1000, LEVEL_RANGE[0]), (1000, 1.0),
                     (1000.0, 0.95), (True, 0.95), (1000, float("nan"))):
        with pytest.raises(InputError):
            check_interval_options(n, level)
    fields = Uncertainty.model_fields
    bounds = {type(m).__name__: m for m in fields["n"].metadata + fields["level"].metadata}
    assert bounds["Ge"].ge == MIN_REPLICATES
    assert (bounds["Gt"].gt, bounds["Lt"].lt) == LEVEL_RANGE
