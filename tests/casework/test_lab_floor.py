"""The laboratory's policy is a floor, and only the laboratory's profile may widen what a
case reads: a case may tighten the profile's criteria and opinion thresholds, never loosen
them or change the verbal scale without a written override printed on page 1; a profile
inside the case folder sets no floor, no data roots and no file outside the folder."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest

from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.casework.profile import FLOOR, relation
from forensic_lr.casework.spec import load_case
from forensic_lr.cli import main
from forensic_lr.errors import ForensicLRWarning, InputError
from forensic_lr.report import build_report

LAB = """\
[laboratory]
name = "Institute of Example Forensics"

[verbal_scale]
scale = "enfsi"

[criteria]
sop = "SOP-VAL-07 rev. 1"
rule = "estimate_and_bound"
cllr_max = 0.15
auc_min = 0.9

[method]
elub = true

[validation]
folds = 10

[opinion]
slope_min = 0.8
slope_max = 1.25
offset_max = 0.5
monotonic_tolerance_log10 = 0.05
monotonic_quantiles = [0.05, 0.95]
"""

CASE = """\
[case]
id = "FL-1"
laboratory = ""
[propositions]
hp = "The questioned and reference items come from one source."
hd = "They come from different sources."
[evidence]
score = 2.0
[background]
ss = "ss.csv"
ds = "ds.csv"
[uncertainty]
method = "none"
"""


@pytest.fixture
def folders(tmp_path):
    """A laboratory folder with its profile and a case folder beside it."""
    lab, case = tmp_path / "lab", tmp_path / "case"
    lab.mkdir()
    case.mkdir()
    (lab / "lab.toml").write_text(LAB, encoding="utf-8")
    rng = np.random.default_rng(5)
    np.savetxt(case / "ss.csv", rng.normal(3.0, 1.0, 60))
    np.savetxt(case / "ds.csv", rng.normal(0.0, 1.5, 200))
    (case / "case.toml").write_text(CASE, encoding="utf-8")
    return lab / "lab.toml", case / "case.toml"


def _with(case, text: str):
    case.write_text(CASE + text, encoding="utf-8")
    return case


# --------------------------------------------------------------------------- the floor

LOOSER = [
    ("[validation.criteria]\ncllr_max = 0.5\n", "[validation.criteria] cllr_max = 0.5"),
    ("[validation.criteria]\nauc_min = 0.8\n", "[validation.criteria] auc_min = 0.8"),
    ("[opinion]\nslope_min = 0.7\n", "[opinion] slope_min = 0.7"),
    ("[opinion]\nslope_max = 1.4\n", "[opinion] slope_max = 1.4"),
    ("[opinion]\noffset_max = 0.7\n", "[opinion] offset_max = 0.7"),
    ("[opinion]\nmonotonic_tolerance_log10 = 0.1\n", "monotonic_tolerance_log10 = 0.1"),
    ("[opinion]\nmonotonic_quantiles = [0.1, 0.95]\n", "monotonic_quantiles = [0.1, 0.95]"),
    ("[validation]\nfolds = 5\n", "[validation] folds = 5"),
    ("[method]\nelub = false\n", "[method] elub = False"),
    ('[report]\nverbal_scale = "afsp"\n', "[report] verbal_scale = 'afsp'"),
    ('[validation]\ncriteria_rule = "estimate"\n', "[validation] criteria_rule = 'estimate'"),
]


@pytest.mark.parametrize(("text", "named"), LOOSER)
def test_a_looser_case_value_is_refused_naming_the_key(folders, text, named):
    lab, case = folders
    with pytest.raises(InputError) as info:
        load_case(_with(case, text), lab=lab)
    message = str(info.value)
    assert "loosens the laboratory's policy" in message and named in message
    assert "lab_override = true" in message


STRICTER = [
    ("[validation.criteria]\ncllr_max = 0.1\n", "validation.criteria.cllr_max", 0.15),
    ("[validation.criteria]\nauc_min = 0.95\n", "validation.criteria.auc_min", 0.9),
    ("[opinion]\nslope_min = 0.9\n", "opinion.slope_min", 0.8),
    ("[opinion]\noffset_max = 0.3\n", "opinion.offset_max", 0.5),
    ("[opinion]\nmonotonic_quantiles = [0.0, 1.0]\n", "opinion.monotonic_quantiles",
     [0.05, 0.95]),
    ("[validation]\nfolds = 20\n", "validation.folds", 10),
]


@pytest.mark.parametrize(("text", "key", "lab_value"), STRICTER)
def test_a_stricter_case_value_applies_and_is_marked(folders, text, key, lab_value):
    from forensic_lr.casework.profile import policy_settings

    lab, case = folders
    spec = load_case(_with(case, text), lab=lab)
    rows = {p.key: p for p in policy_settings(spec)}
    assert rows[key].source == "case file" and rows[key].relation == "stricter"
    assert rows[key].lab_value == lab_value


def test_a_criterion_the_lab_does_not_set_may_be_added(folders):
    lab, case = folders
    spec = load_case(_with(case, "[validation.criteria]\neer_max = 0.1\n"), lab=lab)
    assert spec.validation.criteria.eer_max == 0.1
    assert spec.validation.criteria.cllr_max == 0.15  # the laboratory's still applies


def test_the_command_line_cannot_loosen_the_floor_either(folders):
    lab, case = folders
    with pytest.raises(InputError, match=r"\[method\] elub = False \(command line\)"):
        load_case(case, lab=lab, overrides={"method": {"elub": False}})


def test_every_looser_key_is_named_at_once(folders):
    lab, case = folders
    text = "[validation.criteria]\ncllr_max = 0.5\n[opinion]\nslope_max = 2.0\n"
    with pytest.raises(InputError) as info:
        load_case(_with(case, text), lab=lab)
    assert "cllr_max = 0.5" in str(info.value) and "slope_max = 2.0" in str(info.value)


def test_relation_by_hand():
    assert relation("validation.criteria.cllr_max", 0.5, 0.15) == "looser"
    assert relation("validation.criteria.cllr_max", 0.15, 0.15) == ""
    assert relation("validation.criteria.auc_min", 0.95, 0.9) == "stricter"
    assert relation("opinion.monotonic_quantiles", (0.0, 0.95), [0.05, 0.95]) == "stricter"
    assert relation("opinion.monotonic_quantiles", (0.0, 0.9), (0.05, 0.95)) == "looser"
    assert relation("method.elub", True, False) == "stricter"
    assert relation("report.verbal_scale", "nfc", "enfsi") == "looser"
    assert relation("uncertainty.n", 2000, 1000) == "differs"
    assert set(FLOOR) >= {"validation.folds", "method.elub", "report.verbal_scale"}


def test_the_written_override_applies_the_looser_value_and_says_so_on_page_one(folders):
    lab, case = folders
    justification = ("the requester's jurisdiction requires the criterion of the "
                     "inter-laboratory exercise")
    text = ("[validation.criteria]\ncllr_max = 0.5\n[opinion]\nlab_override = true\n"
            f'lab_override_justification = "{justification}"\n')
    spec = load_case(_with(case, text), lab=lab)
    assert spec.validation.criteria.cllr_max == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(spec)
    c = run.result.conclusion
    assert c.lab_departures == (
        "validation criterion: Cllr (bits) at most: 0.5 (the laboratory's profile: 0.15)",)
    assert c.lab_justification == justification
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    start = html.index("<h2>1 Conclusion</h2>")
    page_one = html[start:html.index("<h2>", start + 1)]  # up to the next section
    assert "Departure from the laboratory's policy" in page_one
    assert "the laboratory&#39;s profile: 0.15" in page_one  # a value: escaped
    assert justification.replace("'", "&#39;") in page_one
    annex = html[html.index("Annex E"):]
    assert "looser than the laboratory's 0.15" in annex
    assert "except those the table marks as set by the case" in annex
    # page 1 in Spanish: the departure from its code, the criterion's name translated
    es = dataclasses.replace(run, spec=run.spec.model_copy(update={
        "report": run.spec.report.model_copy(update={"language": "es"})}))
    html = build_report(es, formats=("html",))["report.html"].decode("utf-8")
    assert ("criterio de validación: Cllr (bits) como máximo: 0,5 (perfil del laboratorio: "
            "0,15)") in html
    assert "(the laboratory&#39;s profile: 0.15)" not in html


def test_a_looser_keyword_is_worded_on_page_one_in_the_language(folders):
    """A departure whose values are case-file keywords (the beyond-background rule) is
    listed with what they mean, in English as in Spanish (typed by hand)."""
    lab, case = folders
    lab.write_text(LAB.replace("[opinion]\n", '[opinion]\nbeyond_background = '
                                               '"withhold-unbounded"\n'), encoding="utf-8")
    text = ('[opinion]\nbeyond_background = "report"\nlab_override = true\n'
            'lab_override_justification = "the court asked for every value"\n')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        run = run_case_full(load_case(_with(case, text), lab=lab))
    assert run.result.conclusion.lab_departures == (
        "an evidence score outside the background range: reported, with its reliance on "
        "extrapolation stated (the laboratory's profile: withheld unless the bounds applied "
        "to the reported LR limit it, and then only the limited value is reported)",)
    es = dataclasses.replace(run, spec=run.spec.model_copy(update={
        "report": run.spec.report.model_copy(update={"language": "es"})}))
    html = build_report(es, formats=("html",))["report.html"].decode("utf-8")
    assert ("un score de la evidencia fuera del rango de referencia: informa, indicando que "
            "se basa en una extrapolación (perfil del laboratorio: omite salvo que los límites "
            "aplicados a la LR informada la limiten, y entonces solo se informa el valor "
            "limitado)") in html
    assert "withhold-unbounded)" not in html.split("Anexo E")[0]


def test_override_needs_its_justification(folders):
    lab, case = folders
    with pytest.raises(InputError, match="lab_override_justification"):
        load_case(_with(case, "[opinion]\nlab_override = true\n"), lab=lab)


def test_blank_text_in_the_case_counts_as_unset(folders):
    lab, case = folders
    spec = load_case(case, lab=lab)  # the case writes laboratory = ""
    assert spec.case.laboratory == "Institute of Example Forensics"


def test_run_refuses_a_case_looser_than_the_lab(folders, tmp_path, capsys):
    lab, case = folders
    _with(case, "[validation.criteria]\ncllr_max = 0.5\n")
    out = tmp_path / "out"
    assert main(["run", str(case), "--lab", str(lab), "--out", str(out), "--draft"]) == 2
    assert "cllr_max = 0.5" in capsys.readouterr().err and not out.exists()


# --------------------------------------------------------------------------- a case's own profile

def test_a_profile_inside_the_case_folder_sets_no_floor(folders):
    lab, case = folders
    (case.parent / "lab.toml").write_text(lab.read_text(encoding="utf-8"), encoding="utf-8")
    spec = load_case(_with(case, '[validation.criteria]\ncllr_max = 0.5\n'
                                 '[report]\nlab_profile = "lab.toml"\n'))
    assert spec.validation.criteria.cllr_max == 0.5 and not spec.lab.sets_floor
    assert spec.settings_sources["validation.criteria.auc_min"] == "case folder's profile"


def test_a_profile_in_another_case_folder_of_the_run_sets_no_floor(folders, tmp_path):
    lab, case = folders
    spec = load_case(_with(case, '[validation.criteria]\ncllr_max = 0.5\n'
                                 '[report]\nlab_profile = "../lab/lab.toml"\n'),
                     case_folders=(lab.parent,))
    assert spec.validation.criteria.cllr_max == 0.5 and not spec.lab.sets_floor
    with pytest.raises(InputError, match="loosens the laboratory's policy"):
        load_case(case)  # outside every case folder of the run: the laboratory's, a floor


ATTACKS = [
    ('[data]\nroots = ["/"]\n', r"\[data\] roots: a profile inside the case folder"),
    ('[laboratory]\nlogo = "/etc/hostname"\n', r"\[laboratory\] logo: .*leads outside"),
    ('[laboratory]\nlogo = "../../../../../../etc/hostname"\n', r"\[laboratory\] logo"),
    ('[report]\ntemplate_dir = "/"\n', r"\[report\] template_dir: .*leads outside"),
    ('[verbal_scale]\nscale = "/tmp/scale.json"\n', r"\[verbal_scale\] scale: .*leads outside"),
]


@pytest.mark.parametrize(("profile", "match"), ATTACKS)
def test_a_case_cannot_widen_its_own_roots(tmp_path, profile, match, capsys):
    """The attack: a case names a profile in its own folder that opens the whole machine."""
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "lab.toml").write_text(profile, encoding="utf-8")
    (folder / "case.toml").write_text(
        CASE.replace('ss = "ss.csv"', 'ss = "/etc/passwd"')
        + '[report]\nlab_profile = "lab.toml"\n', encoding="utf-8")
    np.savetxt(folder / "ds.csv", np.arange(10.0))
    with pytest.raises(InputError, match=match):
        load_case(folder / "case.toml")
    out = tmp_path / "out"
    assert main(["run", str(folder / "case.toml"), "--out", str(out), "--draft"]) == 2
    err = capsys.readouterr().err
    assert "lab_profile" in err and "root:" not in err and len(err) < 2000
    assert not out.exists()
    assert sorted(p.name for p in folder.iterdir()) == ["case.toml", "ds.csv", "lab.toml"]


def test_the_same_profile_given_with_lab_may_name_data_roots(tmp_path):
    """Given by the laboratory (--lab), roots and a logo outside its folder are allowed."""
    shared, lab_dir, folder = tmp_path / "shared", tmp_path / "lab", tmp_path / "case"
    for f in (shared, lab_dir, folder):
        f.mkdir()
    rng = np.random.default_rng(2)
    np.savetxt(shared / "ss.csv", rng.normal(3.0, 1.0, 40))
    np.savetxt(shared / "ds.csv", rng.normal(0.0, 1.0, 80))
    (lab_dir / "lab.toml").write_text('[data]\nroots = ["../shared"]\n', encoding="utf-8")
    (folder / "case.toml").write_text(
        CASE.replace('"ss.csv"', '"../shared/ss.csv"').replace('"ds.csv"', '"../shared/ds.csv"'),
        encoding="utf-8")
    spec = load_case(folder / "case.toml", lab=lab_dir / "lab.toml")
    assert spec.lab.sets_floor and spec.resolve("../shared/ss.csv").is_file()


def test_init_with_lab_leaves_out_what_the_profile_sets(folders, tmp_path):
    import tomllib

    lab, _ = folders
    assert main(["-q", "init", str(tmp_path / "new"), "--lab", str(lab)]) == 0
    text = (tmp_path / "new" / "case.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert "elub" not in data.get("method", {}) and "laboratory" not in data["case"]
    assert "folds" not in data.get("validation", {})
    assert "verbal_scale" not in data.get("report", {})
    assert "# monotonic_tolerance_log10 =" not in text and "# slope_min =" not in text
    assert "set by the laboratory's profile" in text
    assert json.dumps(data)  # still a valid case file


def test_run_prints_the_departure_and_its_justification(folders, tmp_path, capsys):
    lab, case = folders
    _with(case, "[validation.criteria]\ncllr_max = 0.5\n[opinion]\nlab_override = true\n"
          'lab_override_justification = "criterion of the inter-laboratory exercise"\n')
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        assert main(["run", str(case), "--lab", str(lab), "--out", str(out), "--draft",
                     "--format", "json"]) == 0
    printed = capsys.readouterr().out
    assert ("departure from the laboratory's policy: validation criterion: Cllr (bits) at "
            "most: 0.5 (the laboratory's profile: 0.15)") in printed
    assert "justification of the departure: criterion of the inter-laboratory" in printed
    data = json.loads((out / "result.json").read_text(encoding="utf-8"))
    rows = {p["key"]: p for p in data["policy"]}
    assert rows["validation.criteria.cllr_max"]["relation"] == "looser"
    assert rows["validation.criteria.cllr_max"]["lab_value"] == 0.15
