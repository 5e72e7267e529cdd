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
printed as written. Parameter names say how a value is printed:

- ``*_code``: a phrase of this catalogue, by its code, filled with the same parameters
  (``""`` for none);
- ``*_term``: a text of the ``report`` catalogue (a metric's name);
- ``*_level``: a verbal level of the case's scale, printed in the scale's wording when the
  caller gives ``level`` (the report does), as written otherwise;
- ``*_warning``: another warning's English text, in the language when it has a code
  (:func:`recognised`);
- ``*_span``: two numbers, one a line, printed "low to high" (code ``list.span``);
- ``*_levels``: several such levels, one a line, printed quoted as a list
  ("“a”, “b” and “c”", codes ``list.quoted`` and ``list.and``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping

from ..errors import InputError
from . import SOURCE_LANGUAGE, catalogue_path, read_catalogue, supported, translations
from .classes import ClassNames, message_code
from .formatting import localized

__all__ = ["Coded", "english", "message_codes", "message_text", "raised_text", "recognised",
           "statement", "warning_text"]

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


def message_text(code: str, params: Mapping[str, str], language: str = SOURCE_LANGUAGE,
                 level: Callable[[str], str] | None = None,
                 classes: ClassNames | None = None) -> str:
    """The sentence of ``code`` in ``language`` with ``params`` filled in.

    ``classes``: how the sentence (and the phrases it holds) names the two classes of
    background trials (:func:`forensic_lr.i18n.classes.message_code`; default: as sources).

    ``level`` prints a verbal level of the case's scale in the report's language (the
    ``*_level`` and ``*_levels`` parameters); without it levels are printed as written.

    Raises
    ------
    InputError
        An unknown code, or a language whose catalogue lacks it (no silent English).
    """
    table = _catalogue(supported(language))
    code = message_code(code, classes)
    if code not in table:
        raise InputError(f"the {language!r} messages catalogue has no text for {code!r}",
                         path=str(catalogue_path(language, "messages")))
    values = {k: _param(k, v, params, language, level, classes) for k, v in params.items()}
    return table[code] % values


def _param(name: str, value: str, params: Mapping[str, str], language: str,
           level: Callable[[str], str] | None, classes: ClassNames | None = None) -> str:
    """A parameter as printed (the module's naming rules)."""
    if name.endswith("_code"):  # a phrase of the catalogue itself ("" for none)
        if not value:
            return ""
        inner = {k: v for k, v in params.items() if not k.endswith("_code")}
        return message_text(value, inner, language, level, classes)
    if name.endswith("_term"):  # "" would give the catalogue's header
        return translations(language, "report").gettext(value) if value else ""
    if name.endswith("_levels"):
        quoted = [message_text("list.quoted", {"text": level(v) if level else v}, language)
                  for v in value.split("\n")]
        if len(quoted) == 1:
            return quoted[0]
        return message_text("list.and", {"first": ", ".join(quoted[:-1]), "last": quoted[-1]},
                            language)
    if name.endswith("_warning"):  # a warning's English text: in the language if coded
        return warning_text(value, language, level, classes)
    if name.endswith("_span"):  # "low\nhigh" -> "low to high" ("" for none)
        if not value:
            return ""
        low, high = value.split("\n")
        return message_text("list.span", {"low": low, "high": high}, language)
    if name.endswith("_level"):
        return level(value) if level else value
    return localized(value, language) if _NUMBER.fullmatch(value) else value


def warning_text(text: str, language: str = SOURCE_LANGUAGE,
                 level: Callable[[str], str] | None = None,
                 classes: ClassNames | None = None) -> str:
    """A warning's English ``text`` in ``language`` when it is the sentence of a
    ``warning.*`` code (:func:`recognised`), else as written."""
    found = recognised(text, "warning.")
    return text if found is None else message_text(*found, language, level, classes)


def statement(messages: Iterable, language: str = SOURCE_LANGUAGE,
              level: Callable[[str], str] | None = None,
              classes: ClassNames | None = None) -> str:
    """Messages (:class:`~forensic_lr.records.Message`) as one sentence: their texts joined
    by ``"; "``, the first letter capitalised, a full stop at the end (``""`` for none)."""
    text = "; ".join(message_text(m.code, m.params, language, level, classes)
                     for m in messages)
    return text[:1].upper() + text[1:] + "." if text else ""


class Coded(str):
    """An English sentence of the catalogue that keeps its code and parameters.

    It is the ``str`` :func:`english` returns, so it travels wherever a warning's or a
    note's English text travels (``warnings.warn``, lists of texts, a record's text field
    typed :data:`forensic_lr.records.Text`), and whoever records it reads its code and
    parameters back without parsing the English (:func:`recognised`). Compared, hashed,
    joined and written to JSON it is its English text.
    """

    code: str
    params: dict[str, str]

    def __new__(cls, text: str, code: str = "", params: Mapping[str, str] | None = None):
        self = super().__new__(cls, text)
        self.code, self.params = code, dict(params or {})
        return self


def english(code: str, **params: str) -> Coded:
    """The English sentence of ``code`` (what result.json keeps beside the code), with its
    code and parameters (:class:`Coded`)."""
    return Coded(message_text(code, params), code, params)


def raised_text(message: Warning | str) -> str:
    """The text a warning was raised with: the :class:`Coded` sentence itself when it was
    one (``str(warning)`` would give its English only), else its text."""
    if isinstance(message, Warning) and len(message.args) == 1 and isinstance(
            message.args[0], str):
        return message.args[0]
    return str(message)


@functools.lru_cache(maxsize=64)
def _pattern(code: str) -> re.Pattern:
    """The English sentence of ``code`` as a pattern, each placeholder a named group."""
    text = _catalogue(SOURCE_LANGUAGE)[code].replace("%%", "%")
    parts = re.split(r"%\((\w+)\)s", text)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)"
                              for i, p in enumerate(parts)), re.DOTALL)


def recognised(text: str, prefix: str) -> tuple[str, dict[str, str]] | None:
    """``(code, params)`` of the catalogue's code under ``prefix`` whose English sentence
    ``text`` is, or None.

    A text written with :func:`english` carries its code (:class:`Coded`), which is
    returned as it is. A plain English text (a warning read back from an older result.json,
    or quoted inside another warning's parameters) is matched against the catalogue's
    sentences, which gives back its code and parameters, so that the report prints it in its
    language. The codes under ``prefix`` use no ``*_code`` parameters; where two sentences
    fit, the one with more fixed text wins.
    """
    if isinstance(text, Coded) and text.code:
        return (text.code, dict(text.params)) if text.code.startswith(prefix) else None
    found = []
    for code in message_codes():
        if code.startswith(prefix):
            match = _pattern(code).fullmatch(text)
            if match:  # the most specific sentence wins: the most fixed text
                fixed = len(text) - sum(len(v) for v in match.groupdict().values())
                found.append((fixed, code, match.groupdict()))
    if not found:
        return None
    _, code, params = max(found, key=lambda f: f[0])
    return code, params

