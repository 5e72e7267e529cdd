"""[propositions] classes: reports for propositions that are not about sources.

With ``classes = "propositions"`` no report text calls the background trials same-source or
different-source comparisons, in any language; the default keeps every existing record's
bytes; bad settings are clear errors naming the key and the fix."""

from __future__ import annotations

import html
import json
import re

import pytest
from babel.messages.pofile import read_po

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.i18n import SUPPORTED_LANGUAGES, locale_dir
from forensic_lr.i18n.classes import (
    MESSAGE_VARIANTS,
    REPORT_VARIANTS,
    ClassNames,
    class_gettext,
    class_labels,
)
from forensic_lr.i18n.messages import message_codes, message_text
from forensic_lr.records import Propositions

#: The words each language's catalogue uses for the source classes (the default wording).
SOURCE_WORDS = {
    "en": r"same.source|different.source",
    "de": r"gleiche[nr]? (Quelle|Herkunft)|derselben Quelle|verschiedene[nr]? (Quellen|Herkunft)",
    "es": r"misma fuente|distinta fuente|distintas fuentes",
    "fr": r"même source|sources différentes",
    "nl": r"dezelfde bron|verschillende bronnen",
    "sv": r"samma källa|olika källor",
}
#: Texts that only ever describe source comparisons (measurement pairs, the suspect-adapted
#: model, resampling by source): a case with classes = "propositions" has none of them.
SOURCE_ONLY = re.compile(r"suspect|adapted same-source|population database|"
                         r"Sources were resampled")


def _pot_ids() -> set[str]:
    with (locale_dir() / "report.pot").open("rb") as handle:
        return {m.id for m in read_po(handle) if m.id and isinstance(m.id, str)}


def test_every_text_naming_source_classes_has_a_propositions_wording():
    """Drift guard: a new text about same-source comparisons needs its variant (or is one
    that only source comparisons can print), and every variant's key is a real text."""
    ids = _pot_ids()
    naming = {i for i in ids if re.search(SOURCE_WORDS["en"] + "|same source|different source",
                                          i, re.IGNORECASE) or re.search(r"\((SS|DS)\)", i)}
    missing = sorted(i for i in naming - set(REPORT_VARIANTS) if not SOURCE_ONLY.search(i))
    assert not missing, f"add a propositions wording to REPORT_VARIANTS for: {missing[:3]}"
    assert set(REPORT_VARIANTS) <= ids
    assert set(REPORT_VARIANTS.values()) <= ids
    for variant in REPORT_VARIANTS.values():
        assert not re.search(SOURCE_WORDS["en"] + "|same source|different source", variant)


def test_every_message_naming_source_classes_has_a_propositions_wording():
    codes = set(message_codes())
    for code, variant in MESSAGE_VARIANTS.items():
        assert code in codes and variant in codes
        for language in SUPPORTED_LANGUAGES:
            text = message_text(code, {"n": "3", "min": "10", "ss_min": "1", "ss_max": "2",
                                       "ds_min": "0", "ds_max": "1"}, language,
                                classes=ClassNames("propositions", "a", "b"))
            assert not re.search(SOURCE_WORDS[language], text, re.IGNORECASE), text
    assert {c for c in codes if re.search(r"^(policy\.range_side|warning\.small_class)\.", c)
            and not c.endswith(".propositions")} <= set(MESSAGE_VARIANTS)


def test_labels_are_quoted_in_a_phrase_and_escaped_as_asked():
    classes = ClassNames("propositions", "above 0.05 %", "<b>")
    english = class_gettext(lambda text: text, classes)
    assert english("same source (Hp true)") == "“above 0.05 %” (Hp true)"
    # a text its caller formats keeps a label's % as %% until then
    counts = english("%(ss)s same-source and %(ds)s different-source comparisons")
    assert counts % {"ss": "428", "ds": "772"} == (
        "428 trials with Hp true (“above 0.05 %”) and 772 with Hd true (“<b>”)")
    escaped = class_gettext(lambda text: text, classes, escape=html.escape, formatted=True)
    assert escaped("different source (Hd true)") == "“&lt;b&gt;” (Hd true)"
    assert class_gettext(str, None) is str  # the default wording is the catalogue itself


def test_default_keeps_the_record_bytes_and_the_setting_is_recorded_otherwise():
    old = Propositions(hp="a", hd="b")
    assert old.to_dict() == {"comparison": [], "hd": "b", "hp": "a"}  # as before the setting
    assert Propositions(hp="a", hd="b", classes="source").to_json() == old.to_json()
    new = Propositions(hp="a", hd="b", classes="propositions", hp_class="x", hd_class="y")
    assert new.to_dict() == {"classes": "propositions", "comparison": [], "hd": "b",
                             "hd_class": "y", "hp": "a", "hp_class": "x"}
    assert Propositions.model_validate(new.to_dict()) == new
    assert new.class_names == ClassNames("propositions", "x", "y")


@pytest.mark.parametrize(("setting", "words"), [
    ({"classes": "sources"}, ["classes", '"sources"', "'propositions'"]),
    ({"hp_class": "above"}, ["hp_class", 'classes = "propositions"']),
    ({"classes": "propositions", "hp_class": "above"}, ["hd_class", "required"]),
    ({"classes": "propositions", "hd_class": "x"}, ["hp_class", "required"]),
    ({"classes": "propositions", "hp_class": "a" * 61, "hd_class": "b"},
     ["hp_class", "60 characters"]),
])
def test_bad_settings_name_the_key_and_the_fix(tmp_path, capsys, setting, words):
    from forensic_lr._resources import examples_dir

    text = (examples_dir() / "voice" / "case.toml").read_text(encoding="utf-8")
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in setting.items())
    text = text.replace("[evidence]", lines + "\n[evidence]", 1)
    case = tmp_path / "case.toml"
    case.write_text(text, encoding="utf-8")
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((examples_dir() / "voice" / name).read_bytes())
    assert main(["run", str(case), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "[propositions]" in err and "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_class_labels_checks_its_own_keys():
    with pytest.raises(InputError, match="--hd-class: required with --classes"):
        class_labels("propositions", "a", None, ("--classes", "--hp-class", "--hd-class"))
    assert class_labels(None, None, None).by_source


def test_web_form_writes_the_class_keys():
    import tomllib

    from forensic_lr.web.forms import case_document

    text = case_document({"propositions.hp": "above", "propositions.hd": "below",
                          "propositions.classes": "propositions",
                          "propositions.hp_class": "above the limit",
                          "propositions.hd_class": "at or below the limit"}, {})
    props = tomllib.loads(text)["propositions"]
    assert Propositions(**props).class_names == ClassNames(
        "propositions", "above the limit", "at or below the limit")
    default = tomllib.loads(case_document({"propositions.hp": "a", "propositions.hd": "b"},
                                          {}))["propositions"]
    assert set(default) == {"hp", "hd"}  # nothing chosen: the default, no key written
