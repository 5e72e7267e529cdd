"""The prose of the result records, from the ``messages`` catalogue, by stable code.

A record keeps a text as a code and its parameters (:class:`forensic_lr.records.Message`):
``policy.check.slope_too_strong`` with ``slope = "0.62"``, ... The sentence comes from one
place per language: ``forensic_lr/locale/<language>/LC_MESSAGES/messages.po``, whose
message ids are the codes and whose strings hold ``%(name)s`` placeholders. English is a
catalogue too (``locale/en/LC_MESSAGES/messages.po``), so that every English sentence is
written once, and result.json keeps it beside the code whatever the report's language.

Parameters are texts in the package's English form; where a parameter is a number
(digits, signs, ``.``, ``,``, ``%``) it is written with the locale's marks when printed
(:func:`forensic_lr.i18n.formatting.localized`); other parameters (labels, names) are
printed as written.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from ..errors import InputError
from . import SOURCE_LANGUAGE, catalogue_path, read_catalogue, supported, translations
from .formatting import localized

__all__ = ["english", "message_codes", "message_text"]

#: a number as the package writes it: "-1.20", "12.5 %", "3,100", "1/20", "3.1 × 10^7",
#: "1/(3.1 × 10^7)"
_NUMBER = re.compile(r"[-+−]?(1/\(?)?[0-9][0-9.,]*( × 10\^[-−]?[0-9]+)?\)?( ?%)?")


@functools.lru_cache(maxsize=16)
def _catalogue(language: str) -> dict[str, str]:
    """``code -> text`` of a language's messages catalogue (empty and fuzzy entries left out)."""
    catalog = read_catalogue(language, "messages")
    return {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}


def message_codes() -> tuple[str, ...]:
    """Every code of the English catalogue (the source of every other)."""
    return tuple(_catalogue(SOURCE_LANGUAGE))


def message_text(code: str, params: Mapping[str, str], language: str = SOURCE_LANGUAGE) -> str:
    """The sentence of ``code`` in ``language`` with ``params`` filled in.

    Raises
    ------
    InputError
        An unknown code, or a language whose catalogue lacks it (no silent English).
    """
    table = _catalogue(supported(language))
    if code not in table:
        raise InputError(f"the {language!r} messages catalogue has no text for {code!r}",
                         path=str(catalogue_path(language, "messages")))
    values = {k: _param(k, v, language) for k, v in params.items()}
    return table[code] % values


def _param(name: str, value: str, language: str) -> str:
    """A parameter as printed: a number in the locale's marks; a ``*_term`` parameter (a
    text the report catalogue translates, e.g. a metric's name) and a ``*_code`` parameter
    (a phrase of this catalogue, by its code) in the language."""
    if name.endswith("_code"):  # a phrase of the catalogue itself ("" for none)
        return message_text(value, {}, language) if value else ""
    if name.endswith("_term"):
        return translations(language, "report").gettext(value)
    return localized(value, language) if _NUMBER.fullmatch(value) else value


def english(code: str, **params: str) -> str:
    """The English sentence of ``code`` (what result.json keeps beside the code)."""
    return message_text(code, params)
