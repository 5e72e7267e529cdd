"""Case files: every error path names the section, the key and the fix; the template loads."""

from __future__ import annotations

import json
import math
import tomllib

import pytest

from forensic_lr.casework.spec import case_from_dict, case_template, load_case
from forensic_lr.errors import InputError

MINIMAL = """\
[case]
id = "C-1"
[propositions]
hp = "same source"
hd = "different sources"
[evidence]
score = 2.5
[background]
ss = "ss.csv"
ds = "ds.csv"
"""


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ss.csv").write_text("1.0\n2.0\n3.0\n", encoding="utf-8")
    (tmp_path / "ds.csv").write_text("-1.0\n0.0\n1.0\n", encoding="utf-8")
    return tmp_path


def _load(folder, text, name="case.toml"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return load_case(path)


def _error(folder, text) -> str:
    with pytest.raises(InputError) as info:
        _load(folder, text)
    return str(info.value)


def test_minimal_case_defaults(folder):
    spec = _load(folder, MINIMAL)
    assert spec.method.calibrator == "bayes" and spec.method.elub is True  # ELUB on for cases
    assert spec.uncertainty.method == "bootstrap" and spec.uncertainty.n == 1000
    assert spec.validation.folds == 5 and spec.report.verbal_scale == "enfsi"
    assert spec.case.effective_report_id == "C-1-R1"
    assert spec.evidence.values == (2.5,)
    assert spec.resolve("ss.csv") == folder.resolve() / "ss.csv"
    # the SHA-256 of the case file's bytes, checked with an independent hashlib call
    import hashlib

    assert spec.source_sha256 == hashlib.sha256(MINIMAL.encode()).hexdigest()
    # internal fields never appear in the normalised configuration
    assert "base_dir" not in spec.model_dump() and "source_sha256" not in spec.model_dump()


def test_json_case_file(folder):
    data = tomllib.loads(MINIMAL)
    path = folder / "case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_case(path).evidence.score == 2.5


def test_template_loads_once_data_exist(folder):
    spec = _load(folder, case_template())
    assert spec.case.id == "CASE-0001"
    # every section and every criterion of the schema is mentioned in the template
    text = case_template()
    for key in ("cllr_max", "min_cllr_max", "cllr_cal_max", "eer_max", "auc_min", "rmep_max",
                "rmed_max", "devpav_max", "template_dir", "labels", "report_id", "items"):
        assert key in text


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # unknown key in a section
        (("[evidence]\n", "[evidence]\ncolour = 1\n"),
         ["[evidence] colour", "unknown key", "forensic-lr init"]),
        # unknown section
        (("[case]\n", "[cases]\nid = 'x'\n[case]\n"), ["[cases]", "unknown key"]),
        # unknown calibrator
        (("[background]", "[method]\ncalibrator = 'magic'\n[background]"),
         ["[method] calibrator", "unknown calibrator 'magic'", "choose one of"]),
        # both score and scores
        (("score = 2.5", "score = 2.5\nscores = [1.0]"), ["[evidence]", "exactly one of"]),
        # non-finite evidence score
        (("score = 2.5", "score = nan"), ["[evidence]", "finite"]),
        # labels of the wrong length
        (("score = 2.5", "scores = [1.0, 2.0]\nlabels = ['a']"), ["'labels' has 1 names"]),
        # bad interval level
        (("[background]", "[uncertainty]\nlevel = 1.5\n[background]"),
         ["[uncertainty] level", "less than 1"]),
        # bad uncertainty method
        (("[background]", "[uncertainty]\nmethod = 'jackknife'\n[background]"),
         ["[uncertainty] method", "'bootstrap', 'bayes' or 'none'"]),
        # too few bootstrap replicates
        (("[background]", "[uncertainty]\nn = 10\n[background]"),
         ["[uncertainty] n", "greater than or equal to 100"]),
        # missing section
        (("[propositions]\nhp = \"same source\"\nhd = \"different sources\"\n", ""),
         ["[propositions]", "required but missing"]),
        # missing key
        (('hd = "different sources"\n', ""), ["[propositions] hd", "required but missing"]),
        # empty proposition
        (('hd = "different sources"', 'hd = ""'), ["[propositions] hd", "at least 1 character"]),
        # ss and one labelled scores file at once
        (('ds = "ds.csv"', 'ds = "ds.csv"\nscores = "ss.csv"'),
         ["[background]", "not both"]),
        # only one class file
        (('ds = "ds.csv"\n', ""), ["[background]", "give both 'ss' and 'ds'"]),
        # missing background file
        (('ss = "ss.csv"', 'ss = "nothere.csv"'),
         ["[background] ss", "file not found", "nothere.csv", "relative to the case file"]),
        # bad score direction
        (("score = 2.5", "score = 2.5\nscore_direction = 'up'"),
         ["[evidence] score_direction", "'higher_is_similar' or 'lower_is_similar'"]),
        # unknown verbal scale
        (("[background]", "[report]\nverbal_scale = 'nope'\n[background]"),
         ["[report] verbal_scale", "unknown verbal scale 'nope'", "enfsi"]),
        # unknown report format
        (("[background]", "[report]\nformats = ['docx']\n[background]"),
         ["[report] formats[0]", "'pdf', 'html' or 'json'"]),
        # missing template folder
        (("[background]", "[report]\ntemplate_dir = 'tpl'\n[background]"),
         ["[report] template_dir", "folder not found"]),
        # too few folds
        (("[background]", "[validation]\nfolds = 1\n[background]"),
         ["[validation] folds", "greater than or equal to 2"]),
        # unknown criterion
        (("[background]", "[validation.criteria]\ncllr_maximum = 0.5\n[background]"),
         ["[validation] criteria.cllr_maximum", "unknown key"]),
        # bad case id
        (('id = "C-1"', 'id = "#1"'), ["[case] id", "should match pattern"]),
        # a Bayesian interval for a method without a posterior
        (("[background]", "[method]\ncalibrator = 'gaussian'\n[uncertainty]\nmethod = 'bayes'\n"
                          "[background]"),
         ['[uncertainty] method = "bayes" needs [method] calibrator = "bayes"', "bootstrap"]),
        # internal field smuggled in at the top level
        (("[case]", "base_dir = '/'\n[case]"), ["base_dir", "unknown key"]),
    ],
)
def test_case_file_errors(folder, edit, expected):
    old, new = edit
    assert old in MINIMAL
    message = _error(folder, MINIMAL.replace(old, new, 1))
    assert "case.toml" in message
    for part in expected:
        assert part in message, (part, message)


def test_unreadable_case_files(folder):
    with pytest.raises(InputError, match="case file not found"):
        load_case(folder / "missing.toml")
    assert "cannot parse" in _error(folder, "[case\nid=1")
    bad = folder / "case.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="table of sections"):
        load_case(bad)


def test_lab_scale_path_is_relative_to_case(folder):
    scale = {
        "name": "Lab", "citation": "SOP", "neutral": "n.",
        "statement_hp": "{level} Hp", "statement_hd": "{level} Hd",
        "bands": [{"lower": 10, "level": "support"}],
    }
    (folder / "scale.json").write_text(json.dumps(scale), encoding="utf-8")
    spec = _load(folder, MINIMAL + "[report]\nverbal_scale = 'scale.json'\n")
    assert spec.report.verbal_scale == "scale.json"
    (folder / "broken.json").write_text(json.dumps({**scale, "bands": []}), encoding="utf-8")
    message = _error(folder, MINIMAL + "[report]\nverbal_scale = 'broken.json'\n")
    assert "[report] verbal_scale" in message and "'bands'" in message


def test_case_from_dict_without_file(folder):
    spec = case_from_dict(tomllib.loads(MINIMAL), base_dir=folder)
    assert spec.source_sha256 is None


def test_jsonable_writes_non_finite_numbers_as_null():
    import numpy as np

    from forensic_lr.records import jsonable

    data = {"a": [math.inf, 1.5, {"b": math.nan}], "c": -math.inf, "d": "x",
            "e": np.array([1.0, np.inf]), "f": np.float64(-np.inf), "g": (np.int64(3),)}
    assert jsonable(data) == {"a": [None, 1.5, {"b": None}], "c": None, "d": "x",
                              "e": [1.0, None], "f": None, "g": [3]}
