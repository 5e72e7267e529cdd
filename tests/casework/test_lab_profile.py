"""The laboratory profile: validation with file and key in every message, precedence
command line > case file > profile > default, the sources table, the SHA-256 in the
provenance, the confirmed scale without a caveat, and a profile outside the case folder."""

from __future__ import annotations

import hashlib
import shutil
import warnings

import numpy as np
import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.profile import load_profile
from forensic_lr.casework.spec import load_case
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.report import build_report

PNG = bytes.fromhex(  # a 1 x 1 PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

PROFILE = """\
[laboratory]
name = "Forensic Institute Example"
logo = "logo.png"

[verbal_scale]
scale = "enfsi"
confirmed_by = "Head of evaluation, J. Doe"
confirmed_on = 2026-01-15
below_first_band = "limited"

[criteria]
sop = "SOP-VAL-03 rev. 2"
date = 2026-01-01
cllr_max = 0.6

[method]
calibrator = "gaussian"
elub = false

[uncertainty]
method = "none"

[opinion]
slope_min = 0.7

[report]
prior_odds_table = false

[data]
roots = ["shared"]
"""

CASE = """\
[case]
id = "LP-1"
[propositions]
hp = "same"
hd = "different"
[evidence]
score = 1.0
[background]
ss = "../lab/shared/ss.csv"
ds = "../lab/shared/ds.csv"
[report]
lab_profile = "../lab/lab.toml"
"""


@pytest.fixture
def lab(tmp_path):
    """A lab folder (profile, logo, shared background) and a case folder beside it."""
    lab_dir, case_dir = tmp_path / "lab", tmp_path / "case"
    (lab_dir / "shared").mkdir(parents=True)
    case_dir.mkdir()
    rng = np.random.default_rng(3)
    np.savetxt(lab_dir / "shared" / "ss.csv", rng.normal(2, 1, 80))
    np.savetxt(lab_dir / "shared" / "ds.csv", rng.normal(-1, 1, 200))
    (lab_dir / "logo.png").write_bytes(PNG)
    (lab_dir / "lab.toml").write_text(PROFILE, encoding="utf-8")
    (case_dir / "case.toml").write_text(CASE, encoding="utf-8")
    return lab_dir, case_dir / "case.toml"


def _sources(spec) -> dict[str, str]:
    return dict(spec.settings_sources)


def test_profile_supplies_what_the_case_leaves_out(lab):
    lab_dir, case = lab
    spec = load_case(case)
    assert spec.method.calibrator == "gaussian" and spec.method.elub is False
    assert spec.uncertainty.method == "none" and spec.opinion.slope_min == 0.7
    assert spec.validation.criteria.cllr_max == 0.6
    assert spec.report.prior_odds_table is False and spec.report.below_first_band == "limited"
    assert spec.case.laboratory == "Forensic Institute Example"
    src = _sources(spec)
    assert src["method.calibrator"] == src["method.elub"] == "lab profile"
    assert src["validation.criteria.cllr_max"] == "lab profile"
    assert src["opinion.slope_max"] == "default" and src["uncertainty.level"] == "default"
    raw = (lab_dir / "lab.toml").read_bytes()
    assert spec.lab_sha256 == hashlib.sha256(raw).hexdigest()
    assert spec.lab.criteria_sop == "SOP-VAL-03 rev. 2"
    assert spec.lab.scale_confirmed_by == "Head of evaluation, J. Doe"


def test_case_file_wins_over_profile_and_command_line_over_both(lab):
    _, case = lab
    text = case.read_text(encoding="utf-8").replace(
        "[report]", '[method]\nmethod = "logistic"\nelub = true\n[report]')
    case.write_text(text, encoding="utf-8")
    spec = load_case(case)
    assert (spec.method.calibrator, spec.method.elub) == ("logistic", True)
    assert _sources(spec)["method.calibrator"] == "case file"
    spec = load_case(case, overrides={"method": {"calibrator": "pav", "elub": False}})
    assert (spec.method.calibrator, spec.method.elub) == ("pav", False)
    assert _sources(spec)["method.calibrator"] == _sources(spec)["method.elub"] == "command line"


def test_lab_option_wins_over_the_case_reference(lab, tmp_path):
    lab_dir, case = lab
    other = tmp_path / "other.toml"
    other.write_text('[method]\ncalibrator = "logistic"\n', encoding="utf-8")
    spec = load_case(case, lab=other, data_roots=(lab_dir,))
    assert spec.method.calibrator == "logistic" and spec.lab.name == ""


def test_report_states_sources_confirmation_and_sha(lab):
    lab_dir, case = lab
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(load_case(case))
    result = run.result
    assert result.provenance.lab_profile_sha256 == hashlib.sha256(
        (lab_dir / "lab.toml").read_bytes()).hexdigest()
    rows = {p.key: (p.value, p.source) for p in result.policy}
    assert rows["method.elub"] == (False, "lab profile")
    assert rows["report.prior_odds_table"] == (False, "lab profile")
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    assert "could not be checked" not in html
    assert "The laboratory confirmed this scale against its source" in html
    assert "Head of evaluation, J. Doe, 2026-01-15" in html
    assert "Annex E. Policy settings" in html and "lab profile" in html
    assert result.provenance.lab_profile_sha256 in html
    assert "SOP-VAL-03 rev. 2 of 2026-01-01" in html
    assert "Posterior odds with" not in html  # the prior-odds table is off
    assert 'src="data:image/png;base64,' in html


def test_confirmation_does_not_carry_over_to_another_scale(lab):
    _, case = lab
    text = case.read_text(encoding="utf-8").replace("[report]", '[report]\nverbal_scale = "afsp"')
    case.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"\[report\] verbal_scale = 'afsp' \(case file\)"):
        load_case(case)  # another scale than the laboratory's needs a written override
    case.write_text(text + '[opinion]\nlab_override = true\nlab_override_justification = '
                    '"the requester\'s jurisdiction uses the AFSP scale"\n', encoding="utf-8")
    spec = load_case(case)
    assert spec.report.verbal_scale == "afsp" and spec.lab.scale_confirmed_by == ""


@pytest.mark.parametrize(("text", "message"), [
    ("[method]\ncalibrator = \"magic\"\n", r"\[method\] calibrator: unknown calibrator"),
    ("[method]\nelbu = true\n", r"\[method\] elbu: unknown key"),
    ("[opinion]\nslope_min = 1.5\n", r"\[opinion\] slope_min"),
    ("[laboratory]\nlogo = \"missing.png\"\n", r"\[laboratory\] logo: .*missing\.png: file not"),
    ("[criteria\n", "is not a valid lab profile"),
])
def test_profile_errors_name_file_and_key(tmp_path, text, message):
    path = tmp_path / "lab.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        load_profile(path)
    assert str(path) in str(info.value)


def test_case_naming_a_missing_profile_is_an_error(tmp_path):
    folder = tmp_path / "case"
    shutil.copytree(examples_dir() / "small-background", folder)
    with (folder / "case.toml").open("a", encoding="utf-8") as f:
        f.write('\n[opinion]\n')
    text = (folder / "case.toml").read_text(encoding="utf-8").replace(
        "[report]", '[report]\nlab_profile = "nowhere.toml"')
    (folder / "case.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"\[report\] lab_profile: .*: lab profile not found"):
        load_case(folder / "case.toml")


def test_worked_examples_run_without_a_profile():
    spec = load_case(examples_dir() / "voice" / "case.toml")
    assert spec.lab is None and spec.lab_sha256 is None
    assert set(spec.settings_sources.values()) <= {"case file", "default"}


def test_run_command_takes_lab_and_method_options(lab, tmp_path, capsys):
    from forensic_lr.cli import main

    lab_dir, case = lab
    case.write_text(case.read_text(encoding="utf-8").replace(
        'lab_profile = "../lab/lab.toml"', ""), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["run", str(case), "--draft", "--out", str(out), "--format", "json",
            "--lab", str(lab_dir / "lab.toml"), "--method", "logistic", "--elub"]
    assert main(argv) == 0
    import json

    data = json.loads((out / "result.json").read_text(encoding="utf-8"))
    rows = {p["key"]: p for p in data["policy"]}
    assert rows["method.calibrator"]["value"] == "logistic"
    assert rows["method.calibrator"]["source"] == rows["method.elub"]["source"] == "command line"
    assert rows["validation.criteria.cllr_max"]["source"] == "lab profile"
    assert data["method"]["elub_applied"] is True
    assert data["provenance"]["lab_profile_sha256"]


def test_profile_does_not_open_paths_the_case_names(lab, tmp_path):
    # an absolute template folder in the case file stays refused with a profile in use
    _, case = lab
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    case.write_text(case.read_text(encoding="utf-8").replace(
        "[report]", f'[report]\ntemplate_dir = "{outside.as_posix()}"'), encoding="utf-8")
    with pytest.raises(InputError, match="leads outside"):
        load_case(case)


def test_profile_template_folder_and_scale_file_are_usable(lab):
    lab_dir, case = lab
    (lab_dir / "templates").mkdir()
    from forensic_lr.casework.verbal import load_scale

    raw = load_scale("nfc").to_dict()
    raw.pop("key")
    import json

    (lab_dir / "our-scale.json").write_text(json.dumps(raw), encoding="utf-8")
    text = (lab_dir / "lab.toml").read_text(encoding="utf-8")
    text = text.replace('scale = "enfsi"', 'scale = "our-scale.json"').replace(
        "[report]\n", '[report]\ntemplate_dir = "templates"\n')
    (lab_dir / "lab.toml").write_text(text, encoding="utf-8")
    spec = load_case(case)
    assert spec.resolve(spec.report.template_dir) == (lab_dir / "templates").resolve()
    assert spec.report.verbal_scale.endswith("our-scale.json")
    assert spec.lab.scale_confirmed_by  # the profile confirms its own scale file


def test_the_record_accepts_exactly_the_sources_the_profile_names():
    """PolicySetting.source's allowed values are the profile's SETTING_SOURCES, one list."""
    import typing

    from forensic_lr.casework.profile import SETTING_SOURCES
    from forensic_lr.records import PolicySetting

    allowed = typing.get_args(PolicySetting.model_fields["source"].annotation)
    assert set(allowed) == set(SETTING_SOURCES) and len(allowed) == 5
