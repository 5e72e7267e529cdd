"""Progress on a terminal: stage names, a bar with the time left, timings with -v."""

from __future__ import annotations

import argparse
import io
import warnings

import numpy as np

from forensic_lr.calibration import make_calibrator
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.cli.common import Stages, progress_bar
from forensic_lr.errors import ForensicLRWarning
from forensic_lr.resampling import stage_progress
from forensic_lr.uncertainty import cross_validated_llr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self, *times):
        self.times = list(times)

    def __call__(self) -> float:
        return self.times.pop(0)


def _args(**kw):
    return argparse.Namespace(quiet=kw.get("quiet", False), verbose=kw.get("verbose", False))


def test_bar_names_the_stage_and_estimates_the_time_left():
    term = Terminal()
    stages = Stages(_args(), stream=term, clock=Clock(0.0, 2.0, 10.0))
    callback = stages.for_stage("bootstrap")
    callback(1, 5)  # 2 s for 1 of 5: 4 left at 2 s each
    assert "bootstrap [######" in term.getvalue() and "1/5, about 8 s left" in term.getvalue()
    callback(5, 5)
    assert term.getvalue().endswith("5/5\n")
    assert stages.timings == {"bootstrap": 10.0}


def test_minutes_in_the_estimate():
    term = Terminal()
    callback = Stages(_args(), stream=term, clock=Clock(0.0, 65.0)).for_stage("cross-validation")
    callback(1, 3)
    assert "about 2 min 10 s left" in term.getvalue()


def test_nothing_drawn_when_piped_or_quiet():
    piped = io.StringIO()
    Stages(_args(), stream=piped).for_stage("x")(1, 2)
    assert piped.getvalue() == ""
    term = Terminal()
    Stages(_args(quiet=True), stream=term).for_stage("x")(1, 2)
    assert term.getvalue() == ""
    assert progress_bar("x", _args()) is None  # pytest's stderr is not a terminal


def test_verbose_lists_stage_timings():
    out = io.StringIO()
    stages = Stages(_args(verbose=True), stream=out, clock=Clock(0.0, 1.5, 2.0, 2.25))
    with stages.stage("reading"):
        pass
    stages.for_stage("bootstrap")(3, 3)
    stages.finish()
    text = out.getvalue()
    assert "stage timings:" in text and "reading" in text and "1.50 s" in text
    assert "bootstrap" in text and "0.25 s" in text


def test_run_verbose_times_each_stage(tmp_path, capsys):
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "c")]) == 0
    case = tmp_path / "c" / "case.toml"
    case.write_text(case.read_text().replace("n = 1000", "n = 100"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        assert main(["-v", "run", str(case), "--out", str(tmp_path / "o"),
                     "--format", "json"]) == 0
    err = capsys.readouterr().err
    for stage in ("stage timings:", "reading the case", "bootstrap", "cross-validation",
                  "rendering"):
        assert stage in err


def test_plain_callback_still_gets_the_bootstrap_only(tmp_path):
    assert main(["-q", "examples", "copy", "small-background", str(tmp_path / "c")]) == 0
    case = tmp_path / "c" / "case.toml"
    case.write_text(case.read_text().replace("n = 1000", "n = 100"))
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run_case_full(load_case(case), progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (100, 100)
    assert {total for _, total in calls} == {100}


def test_stage_progress_dispatch():
    def plain(done, total):
        return None

    assert stage_progress(None, "bootstrap") is None
    assert stage_progress(plain, "bootstrap") is plain
    assert stage_progress(plain, "cross-validation") is None
    stages = Stages(_args(), stream=io.StringIO())
    assert callable(stage_progress(stages, "cross-validation"))


def test_cross_validation_reports_each_fold():
    rng = np.random.default_rng(0)
    calls = []
    cross_validated_llr(rng.normal(2, 1, 30), rng.normal(0, 1, 40), make_calibrator("gaussian"),
                        folds=4, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    calls.clear()
    sources = (np.repeat(np.arange(10), 3), np.repeat(np.arange(10, 30), 2))
    cross_validated_llr(rng.normal(2, 1, 30), rng.normal(0, 1, 40), make_calibrator("gaussian"),
                        folds=5, ss_sources=sources[0], ds_sources=sources[1],
                        progress=lambda d, t: calls.append((d, t)))
    assert calls[-1][0] == calls[-1][1] and [d for d, _ in calls] == sorted(
        d for d, _ in calls)


def test_short_estimates_say_less_than_a_second():
    term = Terminal()
    Stages(_args(), stream=term, clock=Clock(0.0, 0.1)).for_stage("x")(1, 3)
    assert "3, less than 1 s left" in term.getvalue()
