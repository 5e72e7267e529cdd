"""Numbers and dates by locale, checked against Babel's own formatters and CLDR's values."""

from __future__ import annotations

import datetime
import gettext
from decimal import Decimal

import pytest
from babel.dates import format_date
from babel.numbers import format_decimal
from hypothesis import given
from hypothesis import strategies as st

from forensic_lr.errors import InputError
from forensic_lr.i18n import SUPPORTED_LANGUAGES, translations
from forensic_lr.i18n.formatting import localized, long_date, percent_text

# Values CLDR gives for 1234.5 (decimal mark, grouping mark), written out by hand:
# French groups with U+202F (narrow no-break space), Swedish with U+00A0 (no-break space).
DOCUMENTED = {
    "en": "1,234.5",
    "es": "1.234,5",
    "de": "1.234,5",
    "fr": "1\u202f234,5",
    "nl": "1.234,5",
    "sv": "1\u00a0234,5",
}


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_documented_marks(language):
    assert localized(f"{1234.5:,.1f}", language) == DOCUMENTED[language]


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
@given(value=st.floats(-1e9, 1e9, allow_nan=False), digits=st.integers(0, 4))
def test_as_babel_formats_it(language, value, digits):
    pattern = "+#,##0" + ("." + "0" * digits if digits else "") + ";-#,##0" + (
        "." + "0" * digits if digits else "")
    english = f"{value:+,.{digits}f}"
    # the value as Python rounded it: the test compares marks and grouping, not rounding
    expected = format_decimal(Decimal(f"{value:.{digits}f}"), format=pattern, locale=language)
    if english.lstrip("+-").strip("0.,") == "":  # Python and Babel sign a rounded zero apart
        return
    assert localized(english, language) == expected


def test_english_unchanged_byte_for_byte():
    for text in ("+1.23", "-0.40", "3,100", "3.1 × 10^7", "1/(3.1 × 10^7)", "∞"):
        assert localized(text, "en") == text
    assert percent_text("12.3", "en") == "12.3 %"
    assert long_date("2024-03-01", "en") == "2024-03-01"


def test_scientific_and_fractions_keep_their_shape():
    assert localized("1/(3.1 × 10^7)", "de") == "1/(3,1 × 10^7)"
    assert localized("310,000", "fr") == "310\u202f000"


@pytest.mark.parametrize(("language", "expected"), [
    ("es", "12,3\u00a0%"), ("de", "12,3\u00a0%"), ("fr", "12,3\u00a0%"), ("nl", "12,3%"),
    ("sv", "12,3\u00a0%")])
def test_percent_as_cldr(language, expected):
    assert percent_text("12.3", language) == expected
    # Babel's own percent formatter, with one decimal, agrees
    from babel import Locale
    pattern = Locale.parse(language).percent_formats[None].pattern.replace("0", "0.0", 1)
    pattern = pattern.replace("#,##0.0", "#,##0").replace("#,##0", "#,##0.0", 1)
    assert expected == __import__("babel.numbers").numbers.format_percent(
        0.123, format=pattern, locale=language)


@pytest.mark.parametrize(("language", "expected"), [
    ("es", "1 de marzo de 2024"), ("de", "1. März 2024"), ("fr", "1 mars 2024"),
    ("nl", "1 maart 2024"), ("sv", "1 mars 2024")])
def test_long_dates(language, expected):
    assert long_date("2024-03-01", language) == expected
    assert expected == format_date(datetime.date(2024, 3, 1), "long", locale=language)
    assert long_date("spring 2024", language) == "spring 2024"


def test_loader_english_is_identity_and_unknown_refused():
    t = translations("en", "report")
    assert isinstance(t, gettext.NullTranslations)
    assert t.gettext("Conclusion") == "Conclusion"
    with pytest.raises(InputError, match="unknown report language 'pt'"):
        translations("pt", "report")


def test_report_filters_in_english():
    """The report's filters in English print as before the languages came (hand-written)."""
    from forensic_lr.report.render import environment

    en = environment()
    assert str(en.filters["count"](1234567)) == "1,234,567"
    assert str(en.filters["percent"](0.0391)) == "3.9 %"
    assert str(en.filters["log10_interval"](1.2, 2.449)) == "[+1.20, +2.45]"
    assert str(en.filters["odds"](3.38)) == "2,400 to 1"
