"""The ``messages`` catalogues: the records' texts by stable code, one English sentence per
code, every language complete with the English placeholders, and the English sentences as
the policy wrote them before they became codes."""

from __future__ import annotations

import re

import pytest

from forensic_lr.errors import InputError
from forensic_lr.i18n import SUPPORTED_LANGUAGES, catalogue_path
from forensic_lr.i18n.messages import _catalogue, english, message_codes, message_text

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_catalogue_complete_with_the_english_placeholders(language):
    assert catalogue_path(language, "messages").is_file()
    table = _catalogue(language)
    english_table = _catalogue("en")
    assert sorted(table) == sorted(english_table), "codes missing or extra"
    for code, text in table.items():
        assert text.strip(), code
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english_table[code])), code
        # every % is a placeholder or written %%
        assert "%" not in PLACEHOLDER.sub("", text).replace("%%", ""), code
        if language != "en":
            assert text != english_table[code], f"{language}: {code} left in English"


# the sentences the opinion policy wrote as f-strings, with hand-chosen values
PARAMS = {"metric_term": "Cllr", "value": "0.412", "bound": "0.5", "comparison": "<=",
          "threshold": "0.3", "slope": "0.62", "level": "95 %", "low": "0.50", "high": "0.75",
          "min": "0.8", "max": "1.25", "offset": "-1.20", "label": "Q1-K1", "score": "3.5"}
OLD = {
    "policy.criterion_not_met.upper_bound":
        "the method does not meet the laboratory's validation criterion on Cllr: "
        "cross-validated value 0.412, one-sided 95 % upper bound 0.5, required <= 0.3",
    "policy.check.slope_too_strong":
        "the recalibration slope of the cross-validated LRs, 0.62 (95 % interval 0.50 to "
        "0.75), lies outside the laboratory's accepted range 0.8 to 1.25 and its interval "
        "excludes the ideal 1: the LRs are too strong",
    "policy.outside_background.score":
        "the score of Q1-K1 (3.5) lies outside the range of the background scores (-3.4514 "
        "to 3.3977), so its LR rests on extrapolation, and ELUB bounding is off",
    "policy.elub_note.largest":
        "Q1-K1: LR = 3.1 × 10^7 (log10 LR +7.49) lies beyond the empirical bounds the "
        "validation data support (ELUB, -2.00 to +2.45); with ELUB it would be limited to "
        "LR = 280 (log10 LR +2.45), the largest LR the validation data support",
    "policy.check.offset_towards_hd":
        "the recalibration offset of the cross-validated LRs, -1.20 in natural log (95 % "
        "interval 0.50 to 0.75), is larger in size than the laboratory's accepted 1.25 and "
        "its interval excludes the ideal 0: the LRs are shifted towards Hd",
}


@pytest.mark.parametrize("code", sorted(OLD))
def test_english_as_before(code):
    params = PARAMS
    if code.startswith("policy.outside_background"):
        params = {"label": "Q1-K1", "score": "3.5", "low": "-3.4514", "high": "3.3977",
                  "why_code": "policy.outside_background.elub_off"}
    if code.startswith("policy.elub_note"):
        params = {"label": "Q1-K1", "lr": "3.1 × 10^7", "log10": "+7.49", "low": "-2.00",
                  "high": "+2.45", "bound_lr": "280", "bound_log10": "+2.45"}
    assert english(code, **params) == OLD[code]


def test_numbers_in_the_locale_and_names_as_written():
    text = message_text("policy.check.slope_too_weak", PARAMS, "de")
    assert "0,62" in text and "1,25" in text and "zu schwach" in text
    # an LR as format_lr writes it, in CLDR marks (fr: narrow no-break space, decimal comma)
    note = message_text("policy.elub_note.smallest",
                        {"label": "E1", "lr": "1/(2,400.5 × 10^7)", "log10": "-10.38",
                         "low": "-2.00", "high": "+2.45", "bound_lr": "1/100",
                         "bound_log10": "-2.00"}, "fr")
    assert "1/(2\u202f400,5 × 10^7)" in note and "-10,38" in note
    # a label is printed as written (a case's own words)
    assert "E1.5" in message_text("policy.criterion_not_met",
                                  {**PARAMS, "metric_term": "E1.5"}, "es")


def test_every_code_used_by_the_policy_is_in_the_catalogue():
    import inspect

    from forensic_lr.casework import policy

    source = inspect.getsource(policy)
    used = set(re.findall(r'"(policy\.[a-z_.]+)"', source))
    used |= {f"policy.check.slope_{k}" for k in ("too_strong", "too_weak")}
    used |= {f"policy.check.offset_towards_{k}" for k in ("hp", "hd")}
    used |= {f"policy.criterion_not_met.{k}_bound" for k in ("upper", "lower")}
    used |= {f"policy.elub_note.{k}" for k in ("largest", "smallest")}
    used |= {f"policy.{k}.{w}" for k in ("outside_background", "not_monotonic")
             for w in ("score", "distance")}
    assert used <= set(message_codes())


def test_unknown_code_is_an_error():
    with pytest.raises(InputError, match=r"no text for 'policy\.nothing'"):
        english("policy.nothing")


CASE = """\
[case]
id = "W-1"
[propositions]
hp = "The questioned and reference items come from one source."
hd = "They come from different sources of the population."
[evidence]
score = 2.0
[background]
ss = "ss.csv"
ds = "ds.csv"
[uncertainty]
n = 100
[validation.criteria]
cllr_max = 0.01
[report]
language = "es"
"""


def test_withheld_reason_printed_in_the_language_and_kept_as_code(tmp_path):
    """A criterion no method meets (Cllr <= 0.01): the Spanish report prints the reason from
    the Spanish catalogue; result.json keeps the English sentence and the code."""
    import json
    import warnings

    import numpy as np

    from forensic_lr.cli import main
    from forensic_lr.errors import ForensicLRWarning

    rng = np.random.default_rng(11)
    np.savetxt(tmp_path / "ss.csv", rng.normal(3.0, 1.0, 60))
    np.savetxt(tmp_path / "ds.csv", rng.normal(0.0, 1.5, 200))
    (tmp_path / "case.toml").write_text(CASE, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ForensicLRWarning)
        assert main(["-q", "run", str(tmp_path / "case.toml"), "--out", str(tmp_path / "out"),
                     "--format", "html,json", "--draft"]) == 0
    result = json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8"))
    conclusion = result["conclusion"]
    assert conclusion["status"] == "withheld"
    (message,) = conclusion["reason_messages"]
    assert message["code"] == "policy.criterion_not_met.upper_bound"
    assert conclusion["reasons"] == [english(message["code"], **message["params"])]
    assert conclusion["reasons"][0].startswith(
        "the method does not meet the laboratory's validation criterion on")
    html = " ".join((tmp_path / "out" / "report.html").read_text(encoding="utf-8").split())
    assert "el método no cumple el criterio de validación del laboratorio" in html
    assert "does not meet the laboratory" not in html
