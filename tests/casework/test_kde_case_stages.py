"""A kde case (whose sensitivity analysis bounds each refit by ELUB from its draw counts)
gives the same result, byte for byte, with its stages in one process and side by side in
a process pool (two and three workers).

Independent value: the same case run with one worker, every stage one after the other.
"""

from __future__ import annotations

import shutil
import warnings

from forensic_lr._resources import examples_dir
from forensic_lr.casework import pipeline
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import ForensicLRWarning
from forensic_lr.records import dumps


def test_kde_case_is_the_same_with_one_two_and_three_workers(tmp_path, monkeypatch,
                                                             no_children_left):
    shutil.copytree(examples_dir() / "voice", tmp_path / "voice")
    spec = load_case(tmp_path / "voice" / "case.toml")
    spec = spec.model_copy(update={
        "uncertainty": spec.uncertainty.model_copy(update={"method": "bootstrap", "n": 200}),
        "method": spec.method.model_copy(update={"calibrator": "kde", "options": {}}),
    })
    assert spec.method.elub
    runs = []
    for workers in (1, 2, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ForensicLRWarning)
            runs.append(pipeline.run_case_full(spec, workers=workers))
    serial = dumps(runs[0].result)
    assert runs[0].result.sensitivity.bootstrap is not None
    assert all(dumps(run.result) == serial for run in runs[1:])
    assert no_children_left()
