"""Save and load every fitted calibrator as JSON: the loaded one gives bit-identical LLRs
and parameters, and the file is plain JSON (no pickle)."""

import json

import numpy as np
import pytest

from forensic_lr.calibration import (
    CALIBRATORS,
    calibrator_from_json,
    calibrator_to_json,
    make_calibrator,
)
from forensic_lr.errors import InputError
from forensic_lr.output import load_calibrator, save_calibrator

SCORES = np.array([-np.inf, -8.0, -1.3, 0.0, 0.7, 2.2, 9.0, np.inf])


def _fitted(name):
    rng = np.random.default_rng(11)
    ss, ds = rng.normal(2.0, 1.0, 60), rng.normal(-1.0, 1.4, 90)
    extra = {"suspect_map": {"suspect_ss": rng.normal(2.3, 0.8, 12)},
             "unsupervised": {"unlabelled": np.r_[rng.normal(2, 1, 30), rng.normal(-1, 1.4, 50)]}}
    return make_calibrator(name, **extra.get(name, {})).fit(ss, ds)


def _llr(cal):
    finite = SCORES[np.isfinite(SCORES)] if cal.name != "four_pl" else SCORES
    with np.errstate(all="ignore"):
        return cal.llr(finite)


@pytest.mark.parametrize("name", list(CALIBRATORS))
def test_round_trip_is_exact_for_every_calibrator(name, tmp_path):
    cal = _fitted(name)
    path = save_calibrator(cal, tmp_path / "cal.json")
    loaded = load_calibrator(path)
    assert type(loaded) is type(cal)
    np.testing.assert_array_equal(_llr(loaded), _llr(cal))
    assert json.dumps(loaded.params(), sort_keys=True, default=str) == json.dumps(
        cal.params(), sort_keys=True, default=str)
    assert calibrator_to_json(loaded) == calibrator_to_json(cal)
    json.loads(path.read_text())  # strict JSON: no NaN/Infinity literals


def test_existing_file_is_not_overwritten_without_force(tmp_path):
    cal = _fitted("gaussian")
    path = save_calibrator(cal, tmp_path / "cal.json")
    with pytest.raises(InputError, match=r"force=True") as refused:
        save_calibrator(cal, path)
    assert "--force" not in str(refused.value)  # a Python caller's spelling
    save_calibrator(cal, path, force=True)


def test_bad_files_are_refused():
    with pytest.raises(InputError, match="not JSON"):
        calibrator_from_json("{")
    with pytest.raises(InputError, match="format"):
        calibrator_from_json('{"method": "gaussian"}')
    text = json.loads(calibrator_to_json(_fitted("gaussian")))
    text["method"] = "os.system"
    with pytest.raises(InputError, match="unknown calibration method"):
        calibrator_from_json(json.dumps(text))
