"""The "report" catalogues: report.pot holds what the templates mark, and every language's
catalogue translates all of it (no missing, empty or fuzzy entry: no silent English)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from forensic_lr.errors import InputError
from forensic_lr.i18n import (
    SOURCE_LANGUAGE,
    SUPPORTED_LANGUAGES,
    catalogue_path,
    check_language,
    incomplete_entries,
    locale_dir,
)

ROOT = Path(__file__).resolve().parents[2]
POT = locale_dir() / "report.pot"
TRANSLATED = [lang for lang in SUPPORTED_LANGUAGES
              if lang != SOURCE_LANGUAGE and catalogue_path(lang, "report").is_file()]


def _extracted() -> set:
    """What babel.cfg's extraction finds today (as `pybabel extract -F babel.cfg -k N_`)."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    found = set()
    for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, options_map,
                                                keywords=keywords):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def _pot_ids() -> set:
    with POT.open("rb") as handle:
        return {m.id if isinstance(m.id, str) else tuple(m.id) for m in read_po(handle) if m.id}


def test_pot_is_up_to_date():
    extracted, pot = _extracted(), _pot_ids()
    new, gone = sorted(map(str, extracted - pot))[:3], sorted(map(str, pot - extracted))[:3]
    assert extracted == pot, (f"forensic_lr/locale/report.pot is out of date (new: {new}, "
                              f"gone: {gone}): run the pybabel commands in babel.cfg")


@pytest.mark.parametrize("language", TRANSLATED)
def test_catalogue_complete(language):
    assert incomplete_entries(language, "report") == []
    assert check_language(language) == language


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_placeholders_and_markup(language):
    """Every translation names the same placeholders (%(name)s: the same value in the same
    role) and keeps the same HTML tags as its English text."""
    with catalogue_path(language, "report").open("rb") as handle:
        catalog = read_po(handle)
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        wanted = set(re.findall(r"%\(\w+\)[sd]", ids[-1])) - {"%(num)d"}
        tags = sorted(re.findall(r"</?\w+>", ids[0]))
        for text in strings:
            assert set(re.findall(r"%\(\w+\)[sd]", text)) - {"%(num)d"} == wanted, (
                message.id, text)
            assert sorted(re.findall(r"</?\w+>", text)) == tags, (message.id, text)
            assert text.count("%") - 2 * text.count("%%") == len(
                re.findall(r"%\(\w+\)[sd]", text)), (message.id, text)


def test_missing_catalogue_is_a_clear_error(tmp_path, monkeypatch):
    import forensic_lr.i18n as i18n

    monkeypatch.setattr(i18n, "locale_dir", lambda: tmp_path)
    with pytest.raises(InputError, match="has no 'report' catalogue yet"):
        check_language("sv")


def test_incomplete_catalogue_is_refused(tmp_path, monkeypatch):
    import forensic_lr.i18n as i18n

    folder = tmp_path / "nl" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (tmp_path / "report.pot").write_text('msgid "Conclusion"\nmsgstr ""\n\nmsgid "Date"\n'
                                         'msgstr ""\n', encoding="utf-8")
    (folder / "report.po").write_text('msgid "Conclusion"\nmsgstr "Conclusie"\n\n#, fuzzy\n'
                                      'msgid "Date"\nmsgstr "Datum"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "locale_dir", lambda: tmp_path)
    assert i18n.incomplete_entries("nl", "report") == ["Date"]
    with pytest.raises(InputError, match=r"'nl' \(Dutch\) is not yet complete: 1 text"):
        check_language("nl")


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("defect", ["missing", "empty", "fuzzy"])
@pytest.mark.parametrize("msgid", ["Tippett plot (type I)",
                                   "Gaussian calibration (two normal densities)",
                                   "%(count)s of %(total)s (%(percent)s)"])
def test_a_figure_or_method_text_left_out_refuses_the_language(language, defect, msgid,
                                                                tmp_path, monkeypatch):
    """The shipped catalogue with one text of a figure, a calibration method or a count
    missing, emptied or marked fuzzy: the language is refused, naming that text (no silent
    English in a figure or a method's description)."""
    import forensic_lr.i18n as i18n

    folder = tmp_path / language / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (tmp_path / "report.pot").write_bytes(POT.read_bytes())
    text = catalogue_path(language, "report").read_text(encoding="utf-8")
    entry = re.search(rf'(#, python-format\n)?msgid "{re.escape(msgid)}"\nmsgstr "[^\n]+"\n',
                      text)
    assert entry, (language, msgid)
    flags = "#, fuzzy, python-format\n" if entry.group(1) else "#, fuzzy\n"
    replacement = {"missing": "",
                   "empty": f'{entry.group(1) or ""}msgid "{msgid}"\nmsgstr ""\n',
                   "fuzzy": flags + entry.group(0).removeprefix(entry.group(1) or "")}[defect]
    (folder / "report.po").write_text(text.replace(entry.group(0), replacement),
                                      encoding="utf-8")
    monkeypatch.setattr(i18n, "locale_dir", lambda: tmp_path)
    assert i18n.incomplete_entries(language, "report") == [msgid]
    with pytest.raises(InputError, match="1 text"):
        check_language(language)
