"""Numbers and dates as a locale writes them (Babel, from the Unicode CLDR).

The package formats every number once, in English form (:mod:`forensic_lr._numbers`,
:func:`forensic_lr.casework.verbal.format_lr`): ``"1,234.5"``, ``"+1.23"``, ``"3.1 × 10^7"``.
:func:`localized` writes such a text with the locale's decimal and grouping marks, which is
what Babel's own ``format_decimal`` gives for the same pattern: ``"1.234,5"`` in German,
``"1\u202f234,5"`` (narrow no-break space) in French, ``"1\u00a0234,5"`` (no-break space)
in Swedish. Digits, signs, ``×``, ``^`` and ``/`` are left as they are (Babel writes the
hyphen-minus in all six languages), so rounding and the number of digits never depend on
the language. English texts are returned unchanged, byte for byte.
"""

from __future__ import annotations

import datetime
import functools

from . import SOURCE_LANGUAGE, supported

__all__ = ["localized", "long_date", "number_symbols", "percent_text"]


@functools.lru_cache(maxsize=16)
def number_symbols(language: str) -> tuple[str, str]:
    """``(decimal mark, grouping mark)`` of ``language`` in CLDR: ``(",", ".")`` for de."""
    supported(language)
    from babel.numbers import get_decimal_symbol, get_group_symbol

    return get_decimal_symbol(language), get_group_symbol(language)


@functools.lru_cache(maxsize=16)
def _table(language: str) -> dict[int, str]:
    decimal, group = number_symbols(language)
    return str.maketrans({".": decimal, ",": group})


def localized(text: str, language: str) -> str:
    """A number written in English form (``"1,234.5"``) in ``language``'s marks.

    Only for texts the package's formatters produce (digits, ``.``, ``,``, signs,
    ``×``, ``^``, ``/``, brackets): ``localized("-1,234.50", "de") == "-1.234,50"``,
    as ``babel.numbers.format_decimal(-1234.5, "#,##0.00", locale="de")``.
    """
    if language == SOURCE_LANGUAGE:
        return text
    return text.translate(_table(language))


@functools.lru_cache(maxsize=16)
def _percent_pattern(language: str) -> tuple[str, str]:
    """What the locale writes before and after the number of a percentage.

    From CLDR's percent pattern: ``"#,##0\u00a0%"`` (de, es, fr, sv) puts a no-break
    space before the sign, ``"#,##0%"`` (nl) none.
    """
    from babel import Locale

    pattern = Locale.parse(language).percent_formats[None].pattern.split(";")[0]
    start, end = pattern.index("#"), pattern.rindex("0") + 1
    return pattern[:start], pattern[end:]


def percent_text(number_text: str, language: str) -> str:
    """A percentage from its number in English form (``"12.3"``, already x 100).

    English keeps the report's ISO form ``"12.3 %"`` (unchanged); another language
    follows its CLDR percent pattern, as Babel's ``format_percent`` does:
    ``"12,3\u00a0%"`` in German, ``"12,3%"`` in Dutch.
    """
    if language == SOURCE_LANGUAGE:
        return f"{number_text} %"
    before, after = _percent_pattern(language)
    return f"{before}{localized(number_text, language)}{after}"


def long_date(text: str, language: str) -> str:
    """An ISO date (``"2024-03-01"``) in the locale's long form: "1. März 2024" (de).

    English, and any text that is not an ISO date (a case file may write "spring 2024"),
    are returned as written.
    """
    if language == SOURCE_LANGUAGE:
        return text
    try:
        day = datetime.date.fromisoformat(str(text).strip())
    except ValueError:
        return text
    from babel.dates import format_date

    return format_date(day, format="long", locale=language)
