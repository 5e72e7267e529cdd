"""The `init` template's examples are valid TOML when uncommented, a score of 0 is a score,
and case-file slips get their fix: text without quotes, Windows paths in double quotes,
and every problem of a case file listed at once."""

from __future__ import annotations

import re
import tomllib

import pytest

from forensic_lr._resources import examples_dir
from forensic_lr.casework.checklist import check_case
from forensic_lr.casework.spec import case_template, load_case
from forensic_lr.cli import main
from forensic_lr.errors import InputError

VOICE = (examples_dir() / "voice" / "case.toml").read_text(encoding="utf-8")

#: A commented example in the template: ``# key = value`` or ``# [table]`` / ``# [[table]]``.
EXAMPLE = re.compile(r"^# (?=\[|[A-Za-z_]+ = )")


def _uncommented(text: str) -> str:
    return "\n".join(EXAMPLE.sub("", line) for line in text.splitlines())


@pytest.fixture
def folder(tmp_path):
    for name in ("ss.csv", "ds.csv"):
        (tmp_path / name).write_bytes((examples_dir() / "voice" / name).read_bytes())
    return tmp_path


def _error(folder, text: str) -> str:
    (folder / "case.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_case(folder / "case.toml")
    return str(info.value)


def test_every_example_of_the_template_uncommented_is_valid_toml():
    data = tomllib.loads(_uncommented(case_template()))
    examples = [line for line in case_template().splitlines() if EXAMPLE.match(line)]
    assert len(examples) > 40  # the pattern found the examples
    items = data["case"]["items"]
    assert [i["id"] for i in items] == ["Q1", "K1"]
    for item in items:
        assert set(item) == {"id", "description", "seal", "condition", "received", "examined"}
    # the keys after the items still belong to their own sections
    assert data["evidence"]["score"] == 3.2 and "description" in data["evidence"]
    assert data["validation"]["criteria"]["cllr_max"] == 0.5


def test_the_template_items_fill_the_custody_fields(folder):
    text = case_template()
    start = text.index("# [[case.items]]")
    end = text.index("[propositions]")
    text = text[:start] + _uncommented(text[start:end]) + "\n" + text[end:]
    text = text.replace("# score = 3.2 ", "score = 3.2   ")
    (folder / "case.toml").write_text(text, encoding="utf-8")
    spec = load_case(folder / "case.toml")
    assert [i.id for i in spec.case.items] == ["Q1", "K1"]
    keys = {p.key for p in check_case(spec, read_inputs=False).problems}
    assert not any(k.startswith("items") for k in keys)


def test_a_fresh_template_has_no_score_and_check_asks_for_one(folder):
    (folder / "case.toml").write_text(case_template(), encoding="utf-8")
    spec = load_case(folder / "case.toml")
    assert spec.evidence.values == ()
    problems = {f"[{p.section}] {p.key}": p.message for p in check_case(spec).problems}
    assert "even for a draft" in problems["[evidence] score"]


@pytest.mark.parametrize("score", ["0", "0.0", "-0.0"])
def test_a_score_of_zero_is_a_score(folder, capsys, score):
    (folder / "case.toml").write_text(VOICE.replace("score = 5.96", f"score = {score}"),
                                      encoding="utf-8")
    assert main(["check", str(folder / "case.toml")]) == 0
    assert "ready for a final report" in capsys.readouterr().out
    assert load_case(folder / "case.toml").evidence.values == (0.0,)


def test_a_draft_without_a_score_is_refused(folder, capsys):
    text = VOICE.replace("score = 5.96\n", "").replace('labels = ["Q1-K1"]\n', "")
    (folder / "case.toml").write_text(text, encoding="utf-8")
    out = folder / "out"
    assert main(["run", str(folder / "case.toml"), "--out", str(out), "--draft"]) == 2
    err = capsys.readouterr().err
    assert "[evidence] score" in err and "score = 3.2" in err and "Traceback" not in err
    assert not out.exists()


def test_text_without_quotes_says_put_it_in_quotes(folder, capsys):
    text = VOICE.replace('examiner = "A. Examiner"', "examiner = Dr. Weiß")
    (folder / "case.toml").write_text(text, encoding="utf-8")
    assert main(["check", str(folder / "case.toml")]) == 2
    err = capsys.readouterr().err
    assert 'put text in quotes: examiner = "Dr. Weiß"' in err and "line 7" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("word", ["yes", "no", "on"])
def test_yes_no_for_a_switch_says_true_or_false(folder, word):
    message = _error(folder, VOICE.replace("elub = true", f"elub = {word}"))
    assert "write true or false" in message


@pytest.mark.parametrize("path", [r"C:\Users\me\ss.csv", r"data\ss.csv"])
def test_backslashes_in_double_quotes_suggest_forward_slashes(folder, path):
    message = _error(folder, VOICE.replace('ss = "ss.csv"', f'ss = "{path}"'))
    assert "forward slashes" in message
    assert f'ss = "{path.replace(chr(92), "/")}"' in message and f"ss = '{path}'" in message


def test_a_backslash_path_that_parses_to_a_control_character_is_explained(folder):
    # "data\new.csv" is valid TOML: \n is a line break, the path then names no file
    (folder / "data").mkdir()
    message = _error(folder, VOICE.replace('ss = "ss.csv"', r'ss = "data\new.csv"'))
    assert "new.csv'" in message and "file not found" in message and "forward slashes" in message
    assert "single quotes" in message


def test_a_path_in_single_quotes_with_backslashes_reads_as_written(folder):
    (folder / "data").mkdir()
    (folder / "data" / "ss.csv").write_bytes((folder / "ss.csv").read_bytes())
    message = _error(folder, VOICE.replace('ss = "ss.csv"', r"ss = 'data\ss.csv'"))
    # on POSIX a backslash is part of the name: the message quotes the path as typed
    assert "data\\ss.csv" in message and "control character" not in message


def test_schema_problems_are_listed_at_once(folder):
    text = (VOICE.replace('examiner = "A. Examiner"', 'examiner = "A. Examiner"\ncolour = 1')
            .replace("n = 4000", 'n = "many"')
            .replace('calibrator = "bayes"', 'calibrator = "magic"')
            .replace('"pdf", "html"', '"doc", "html"'))
    message = _error(folder, text)
    assert "has 4 problem(s)" in message
    for part in ("[case] colour: unknown key", '[uncertainty] n: "many" is not a whole number',
                 "[method] calibrator: unknown calibrator 'magic'", "[report] formats[0]"):
        assert part in message, part


def test_file_problems_are_listed_at_once(folder):
    text = (VOICE.replace('ds = "ds.csv"', 'ds = "nothere.csv"')
            .replace('verbal_scale = "enfsi"', 'verbal_scale = "nope"\ntemplate_dir = "tpl"')
            .replace('ss = "ss.csv"', 'ss = "../outside.csv"'))
    message = _error(folder, text)
    assert "has 4 problem(s)" in message
    for part in ("[background] ss: path '../outside.csv' leads outside", "[background] ds:",
                 "nothere.csv: file not found", "tpl: folder not found",
                 "[report] verbal_scale:", "[report] template_dir:"):
        assert part in message, part


def test_check_lists_missing_background_files_with_the_other_file_problems(folder, capsys):
    text = (VOICE.replace('ds = "ds.csv"', 'ds = "nothere.csv"')
            .replace('verbal_scale = "enfsi"', 'verbal_scale = "nope"'))
    (folder / "case.toml").write_text(text, encoding="utf-8")
    assert main(["check", str(folder / "case.toml")]) == 2
    err = capsys.readouterr().err
    assert "has 2 problem(s)" in err and "nothere.csv" in err and "verbal_scale" in err


def test_an_inline_table_over_several_lines_points_to_case_items_tables(folder):
    # the items written the way an older template showed them: one inline table on 3 lines
    items = ('items = [\n  { id = "Q1", description = "questioned recording",\n'
             '    seal = "bag 1" },\n]\n')
    start = VOICE.index("items = [")
    end = VOICE.index("]\n", start) + 2
    message = _error(folder, VOICE[:start] + items + VOICE[end:])
    assert "must stay on one line" in message and "[[case.items]]" in message
