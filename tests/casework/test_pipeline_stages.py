"""The stages of a case run side by side: the evidence evaluation, the validation and the
sensitivity analysis in a process pool give the same result, byte for byte, as the whole
case run stage after stage in one process.

Independent value: the same case run with one worker (every stage here, one after the other).
"""

from __future__ import annotations

import os
import time
import warnings

from forensic_lr._resources import examples_dir
from forensic_lr.casework import pipeline
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import ForensicLRWarning
from forensic_lr.records import dumps


def _run(spec, monkeypatch, workers: int):
    """The run and the ids of the processes the sensitivity analysis ran in.

    With more than one worker the evidence stage (this process's own) waits until the
    sensitivity analysis has started, so that a pool process takes it however busy the
    machine (else this process could finish first and take it itself, as it may).
    """
    real = pipeline.sensitivity_analysis
    real_evidence = pipeline.evaluate_unbounded

    def spied(*args, **kwargs):
        with open(pid_file, "a", encoding="utf-8") as out:  # seen from a child as well
            out.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    def evidence_after_sensitivity_started(*args, **kwargs):
        deadline = time.monotonic() + 60.0
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real_evidence(*args, **kwargs)

    pid_file = spec.resolve("pids.txt")
    monkeypatch.setattr(pipeline, "sensitivity_analysis", spied)
    if workers > 1:
        monkeypatch.setattr(pipeline, "evaluate_unbounded",
                            evidence_after_sensitivity_started)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = pipeline.run_case_full(spec, workers=workers)
    monkeypatch.undo()
    return run, [int(v) for v in pid_file.read_text().split()]


def test_stages_in_a_process_pool_give_the_serial_result(tmp_path, monkeypatch,
                                                          no_children_left):
    import shutil

    shutil.copytree(examples_dir() / "voice", tmp_path / "voice")
    spec = load_case(tmp_path / "voice" / "case.toml")
    spec = spec.model_copy(update={"uncertainty": spec.uncertainty.model_copy(update={"n": 200})})
    serial, serial_pids = _run(spec, monkeypatch, 1)
    assert serial_pids == [os.getpid()]
    for workers in (2, 3):  # two: the evidence here, the others in turn; three: a stage each
        spec.resolve("pids.txt").unlink(missing_ok=True)
        forked, forked_pids = _run(spec, monkeypatch, workers)
        assert len(forked_pids) == 1 and forked_pids[0] != os.getpid()  # ran in the pool
        assert dumps(forked.result) == dumps(serial.result)
        assert forked.result.sensitivity is not None and forked.result.sensitivity.bootstrap
        assert forked.ss_llr_cv.tobytes() == serial.ss_llr_cv.tobytes()
    assert no_children_left()
