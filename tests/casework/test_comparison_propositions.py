"""Several comparisons in one case: each with its own propositions.

A single pair of propositions that names items a comparison does not involve is refused,
with the ``[[propositions.comparison]]`` tables to write; those tables, pasted in place of
hp and hd, make a valid case file (the message is checked by using it).
"""

from __future__ import annotations

import re

import pytest

from forensic_lr.casework.spec import load_case
from forensic_lr.errors import InputError

ITEMS = "".join(f'[[case.items]]\nid = "{i}"\ndescription = "item {i}"\n'
                for i in ("Q1", "Q2", "Q3", "Q10", "K1", "K2"))
LABELS = ("Q1-K1", "Q3-K1", "Q1-K2", "Q2-K2")
SINGLE = ('[propositions]\nhp = "The speaker of Q1 is Mr A (K1)."\n'
          'hd = "The speaker of Q1 is another speaker."\n')


def _case(propositions: str, labels=LABELS) -> str:
    scores = ", ".join(str(1.0 + i) for i in range(len(labels)))
    names = ", ".join(f'"{x}"' for x in labels)
    return (f'[case]\nid = "C-4"\n{ITEMS}{propositions}[evidence]\nscores = [{scores}]\n'
            f'labels = [{names}]\n[background]\nss = "ss.csv"\nds = "ds.csv"\n')


def _tables(labels=LABELS) -> str:
    return "".join(
        f'[[propositions.comparison]]\nlabel = "{x}"\nhp = "Hp of {x}."\nhd = "Hd of {x}."\n'
        for x in labels)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ss.csv").write_text("1.0\n2.0\n3.0\n", encoding="utf-8")
    (tmp_path / "ds.csv").write_text("-1.0\n0.0\n1.0\n", encoding="utf-8")
    return tmp_path


def _load(folder, text):
    (folder / "case.toml").write_text(text, encoding="utf-8")
    return load_case(folder / "case.toml")


def _error(folder, text) -> str:
    with pytest.raises(InputError) as info:
        _load(folder, text)
    return str(info.value)


def test_one_pair_naming_other_items_is_refused_with_the_tables_to_write(folder):
    message = _error(folder, _case(SINGLE))
    assert "[propositions] hp and hd name Q1, K1" in message
    assert "Q3-K1 does not involve Q1" in message and "Q1-K2 does not involve K1" in message
    assert "Q2-K2 does not involve Q1, K1" in message and "Q1-K1 does not" not in message
    tables = message[message.index("[[propositions.comparison]]"):]
    assert tables.count("[[propositions.comparison]]") == 4
    # the tables, pasted in place of hp and hd (placeholders filled in), load
    filled = re.sub(r"\((H[pd]) of ([^:]+): name its items\)", r"\1 of \2", tables)
    spec = _load(folder, _case("[propositions]\n" + filled + "\n"))
    assert [p.label for p in spec.propositions.comparison] == list(LABELS)
    assert spec.propositions.pair("Q1-K1").hp == "The speaker of Q1 is Mr A (K1)."
    assert spec.propositions.pair("Q3-K1").hp == "Hp of Q3-K1"


def test_each_comparison_gets_its_own_pair(folder):
    spec = _load(folder, _case("[propositions]\n" + _tables()))
    for label in LABELS:
        assert spec.propositions.pair(label).hp == f"Hp of {label}."
        assert spec.propositions.pair(label).hd == f"Hd of {label}."
    assert spec.propositions.hp is None and spec.comparison_labels == LABELS


def test_tables_must_match_the_comparisons(folder):
    message = _error(folder, _case("[propositions]\n" + _tables((*LABELS[:3], "Q9-K1"))))
    assert "no comparison is labelled 'Q9-K1'" in message
    assert "add a table for 'Q2-K2'" in message and 'label = "Q2-K2"' in message
    message = _error(folder, _case("[propositions]\n" + _tables(LABELS + LABELS[:1])))
    assert "label 'Q1-K1' is given twice" in message


def test_both_forms_or_neither_are_refused(folder):
    message = _error(folder, _case(SINGLE + _tables()))
    assert "not both" in message
    message = _error(folder, _case('[propositions]\nhp = "same"\n', labels=("E1",)))
    assert "[propositions] hd: required but missing" in message
    assert "[[propositions.comparison]]" in message


def test_one_pair_stays_valid_where_it_fits(folder):
    # every comparison involves Q1 and K1 (the pair names no other item)
    spec = _load(folder, _case(SINGLE, labels=("Q1-K1", "Q1-K1 repeat")))
    assert spec.propositions.pair("Q1-K1 repeat").hp == "The speaker of Q1 is Mr A (K1)."
    # labels that name no item give nothing to check; Q10 is not Q1
    _load(folder, _case(SINGLE, labels=("E1", "E2")))
    message = _error(folder, _case(SINGLE, labels=("Q10-K1",)))
    assert "Q10-K1 does not involve Q1" in message
