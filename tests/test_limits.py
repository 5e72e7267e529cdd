"""Every count option, case-file list and text has a limit, checked before the work.

Each runaway input of the description is rebuilt: exit 2 within 20 s, a message naming the
option or key, the value and the limit, and nothing written.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from scipy import stats

from forensic_lr._resources import docs_dir, examples_dir
from forensic_lr.cli import main
from forensic_lr.limits import LIMITS
from tests.conftest import run_cli as _run

VOICE = examples_dir() / "voice"
SS, DS = str(VOICE / "ss.csv"), str(VOICE / "ds.csv")


@pytest.mark.parametrize(("args", "option", "limit"), [
    (["calibrate", "--ss", SS, "--ds", DS, "--method", "gaussian", "--score", "1",
      "--n", "1000000000"], "--n", "100,000 replicates"),
    (["compare", "--a", SS, "--b", DS, "--n", "1000000000"], "--n", "100,000 replicates"),
    (["validate", "--ss", SS, "--ds", DS, "--calibrate", "gaussian", "--ci", "bootstrap",
      "--n", "1000000000"], "--n", "100,000 replicates"),
    (["validate", "--ss", SS, "--ds", DS, "--calibrate", "gaussian", "--folds", "1000000"],
     "--folds", "50 folds"),
    (["multiclass", "--val-logits", "x.npy", "--val-labels", "y.csv", "--bins", "100000000"],
     "--bins", "10,000 bins"),
    (["multiclass", "--val-logits", "x.npy", "--val-labels", "y.csv", "--bins", "1000000"],
     "--bins", "10,000 bins"),
    (["label-noise", "correct", "--precision", "0.9", "--recall", "0.8",
      "--expert-prevalence", "0.5", "--eps", "0.1", "--n-items", "1" + "0" * 30],
     "--n-items", "1,000,000,000,000 items"),
])
def test_count_options_beyond_their_limit_are_refused_at_once(args, option, limit, capsys,
                                                              tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, text, seconds = _run(args, capsys)
    assert code == 2 and seconds < 20
    assert f"error: {option} 1" in text and f"above the limit of {limit}" in text
    assert "Traceback" not in text and not any(tmp_path.iterdir())


@pytest.fixture
def case(tmp_path):
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "case")]) == 0
    return tmp_path / "case" / "case.toml"


def test_a_very_long_labels_list_is_refused(case, tmp_path, capsys):
    n = 5_000
    text = case.read_text()
    evidence = re.search(r"^score = .*$", text, re.M).group(0)
    case.write_text(text.replace(evidence, "scores = [" + ", ".join(["1.5"] * n) + "]\nlabels = ["
                                 + ", ".join(f'"q{i}"' for i in range(n)) + "]"))
    code, message, seconds = _run(["run", str(case), "--out", str(tmp_path / "out"), "--draft"],
                                  capsys)
    assert code == 2 and seconds < 20
    assert "[evidence]" in message
    assert "a list of 5,000 is above the limit of 1,000 items" in message
    assert not (tmp_path / "out").exists()


def test_a_very_long_text_is_refused(case, tmp_path, capsys):
    text = case.read_text()
    case.write_text(text.replace('hp = "', 'hp = "' + "word " * 200_000, 1))
    code, message, seconds = _run(["run", str(case), "--out", str(tmp_path / "out"), "--draft"],
                                  capsys)
    assert code == 2 and seconds < 20
    assert "[propositions] hp" in message
    assert "a text of 1,000,0" in message and "limit of 10,000 characters" in message
    assert not (tmp_path / "out").exists()


def test_the_case_file_replicates_use_the_same_limit(case, tmp_path, capsys):
    case.write_text(case.read_text().replace("n = 1000", "n = 100001"))
    code, message, _ = _run(["check", str(case)], capsys)
    assert code == 2 and "[uncertainty] n" in message and "100000" in message


def test_the_replicate_limit_is_justified_as_documented():
    # Monte Carlo standard error of the 97.5 % sample quantile from m draws of a normal:
    # sqrt(p (1 - p) / m) / phi(z_p) (asymptotic quantile variance), against the width of
    # the 95 % interval, 2 z_0.975; independent of the code under test.
    p, m = 0.975, 10_000
    se = (p * (1 - p) / m) ** 0.5 / stats.norm.pdf(stats.norm.ppf(p))
    assert se / (2 * stats.norm.ppf(p)) < 0.01
    assert LIMITS["replicates"].most >= m


def test_the_documented_table_is_the_table_in_the_code():
    page = (Path(docs_dir()) / "user" / "limits.md").read_text(encoding="utf-8")
    rows = [ln for ln in page.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    assert rows == [f"| {lim.applies_to} | {f'{lim.most:,} {lim.unit}'.rstrip()} | {lim.why} |"
                    for lim in LIMITS.values()]


def _large(tmp_path, m: int = 20_000):
    import numpy as np

    rng = np.random.default_rng(0)
    ss, ds = rng.normal(2, 1, m // 2), rng.normal(-2, 1, m // 2)
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    return ss, ds


def test_a_bootstrap_beyond_the_work_limit_is_refused_before_it_starts(tmp_path):
    from forensic_lr.calibration import make_calibrator
    from forensic_lr.errors import InputError
    from forensic_lr.uncertainty import bootstrap_interval
    from forensic_lr.validation.bootstrap import bootstrap_metrics
    from forensic_lr.validation.compare import compare_systems

    ss, ds = _large(tmp_path)  # 20,000 trials: 1e9 / 20,000 = 50,000 replicates at most
    most = LIMITS["bootstrap_draws"].most
    assert most // 20_000 == 50_000
    calls = [
        lambda: bootstrap_interval(ss, ds, [1.0], make_calibrator("logistic"), n=50_001),
        lambda: bootstrap_metrics(ss, ds, n=50_001),
        lambda: compare_systems(ss, ds, ss + 1, ds + 1, n=50_001),
    ]
    for call in calls:
        start = time.monotonic()
        with pytest.raises(InputError, match=r"50,001 replicates of 20,000 trials .* at most "
                                             r"50,000"):
            call()
        assert time.monotonic() - start < 20


def test_validate_refuses_a_bootstrap_beyond_the_work_limit(tmp_path, capsys):
    _large(tmp_path)
    code, text, seconds = _run(["validate", "--ss", str(tmp_path / "ss.csv"), "--ds",
                                str(tmp_path / "ds.csv"), "--ci", "bootstrap", "--n", "100000"],
                               capsys)
    assert code == 2 and seconds < 20 and "lower the number of replicates (n)" in text
