"""Languages of the reports: gettext catalogues and numbers and dates by locale.

A report is written in one of :data:`SUPPORTED_LANGUAGES`. Its fixed texts come from
gettext catalogues kept as ``.po`` files in the package
(``forensic_lr/locale/<language>/LC_MESSAGES/<domain>.po``) and compiled when first loaded
(Babel's :mod:`babel.messages.pofile` and :mod:`babel.messages.mofile`), so an editable
install needs no build step. English is the source language: its texts are the message ids
themselves (:class:`gettext.NullTranslations`). Numbers and dates are formatted as Babel
(CLDR) formats them for the locale (:mod:`forensic_lr.i18n.formatting`). result.json never
depends on the language.

Domains: ``"report"`` (the case and validation report templates and figures) and
``"messages"`` (the prose of the result records: conclusions, notes, warnings).
"""

from __future__ import annotations

import functools
import gettext
import io
from pathlib import Path

from ..errors import InputError

__all__ = ["LANGUAGE_NAMES", "N_", "SOURCE_LANGUAGE", "SUPPORTED_LANGUAGES", "catalogue_path",
           "check_language", "incomplete_entries", "locale_dir", "read_catalogue", "supported",
           "translations"]

#: The languages a report can be written in (ISO 639-1 codes, as Babel names the locales).
SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "es", "de", "fr", "nl", "sv")
#: The language the templates and records are written in: its catalogue is the identity.
SOURCE_LANGUAGE = "en"
#: Each language's name in English, for messages and the documentation.
LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "de": "German", "fr": "French",
                  "nl": "Dutch", "sv": "Swedish"}


def N_(message: str) -> str:
    """Mark ``message`` for a catalogue (Babel extracts it); it is translated where printed.

    ``N_("equal error rate")`` is the text itself; a report template prints it with the
    ``tr`` filter, which looks it up in the ``report`` catalogue of the report's language.
    """
    return message


def locale_dir() -> Path:
    """The folder of the catalogues: ``forensic_lr/locale``."""
    return Path(__file__).resolve().parent.parent / "locale"


def catalogue_path(language: str, domain: str) -> Path:
    """``forensic_lr/locale/<language>/LC_MESSAGES/<domain>.po``."""
    return locale_dir() / language / "LC_MESSAGES" / f"{domain}.po"


def supported(language: str) -> str:
    """``language`` if it is one of :data:`SUPPORTED_LANGUAGES`, else an InputError."""
    if language not in SUPPORTED_LANGUAGES:
        raise InputError(f"unknown report language {language!r}; choose one of "
                         f"{', '.join(SUPPORTED_LANGUAGES)}")
    return language


def translations(language: str, domain: str) -> gettext.NullTranslations:
    """The gettext translations of ``domain`` into ``language``.

    English is :class:`gettext.NullTranslations` (every text is its own message id);
    another language is its ``.po`` catalogue, compiled once per process. An entry that is
    empty or marked fuzzy is left out, so gettext falls back to the English id;
    :func:`check_language` refuses a language whose catalogue has such entries.

    Raises
    ------
    InputError
        For a language not in :data:`SUPPORTED_LANGUAGES` or without a catalogue of
        ``domain``.
    """
    if supported(language) == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return _compiled(language, domain)


@functools.lru_cache(maxsize=32)
def _compiled(language: str, domain: str) -> gettext.GNUTranslations:
    from babel.messages.mofile import write_mo

    catalog = read_catalogue(language, domain)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def read_catalogue(language: str, domain: str):
    """The ``.po`` catalogue of ``domain`` in ``language`` (a Babel ``Catalog``), read as
    written: empty and fuzzy entries included (:func:`translations` and
    :func:`incomplete_entries` decide what they mean).

    Raises
    ------
    InputError
        When the language has no catalogue of ``domain``.
    """
    from babel.messages.pofile import read_po

    path = catalogue_path(language, domain)
    if not path.is_file():
        raise InputError(f"the report language {language!r} ({LANGUAGE_NAMES[language]}) has "
                         f"no {domain!r} catalogue yet; write the report in English or add "
                         "the catalogue (docs/user/report-languages.md)", path=str(path))
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=domain)


def incomplete_entries(language: str, domain: str, template=None) -> list[str]:
    """The message ids of ``domain`` that ``language`` does not translate.

    An entry counts as untranslated when it is missing from the catalogue, empty (any
    plural form empty) or marked fuzzy. ``template`` is the list of message ids to
    expect (default: the domain's ``.pot`` file, ``forensic_lr/locale/<domain>.pot``).
    English translates everything.
    """
    if language == SOURCE_LANGUAGE:
        return []
    catalog = read_catalogue(language, domain)
    if template is None:
        template = _template_ids(domain)
    missing = []
    for msgid in template:
        message = catalog.get(msgid)
        strings = (message.string if isinstance(message.string, (list, tuple))
                   else [message.string]) if message is not None else [""]
        if message is None or message.fuzzy or not all(strings):
            missing.append(msgid if isinstance(msgid, str) else msgid[0])
    return missing


def _template_ids(domain: str) -> list:
    from babel.messages.pofile import read_po

    path = locale_dir() / f"{domain}.pot"
    with path.open("rb") as handle:
        return [m.id for m in read_po(handle) if m.id]


def check_language(language: str, domain: str = "report") -> str:
    """``language`` when every text of ``domain`` is translated into it.

    Raises
    ------
    InputError
        For an unknown language, a missing catalogue, or one with missing, empty or
        fuzzy entries (naming how many and the first), so that no report is printed
        half in English.
    """
    supported(language)
    missing = incomplete_entries(language, domain)
    if missing:
        first = missing[0] if len(missing[0]) <= 60 else missing[0][:57] + "..."
        raise InputError(
            f"the report language {language!r} ({LANGUAGE_NAMES[language]}) is not yet "
            f"complete: {len(missing)} text(s) of its {domain!r} catalogue are missing, empty "
            f"or fuzzy (the first: {first!r}); write the report in another language or "
            "complete the catalogue (docs/user/report-languages.md)",
            path=str(catalogue_path(language, domain)))
    return language
