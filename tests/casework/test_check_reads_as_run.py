"""`check` reads the background exactly as `run` does: the case's score and label columns,
decimal separator and sheet apply, a file `run` refuses is refused with the same message,
and hostile case files (a 5,000-digit integer, tables nested thousands deep) end in exit 2
with a message, never a traceback."""

from __future__ import annotations

import numpy as np
import pytest

from forensic_lr.cli import main


@pytest.fixture
def voice(tmp_path):
    """A ready worked case whose background the tests rewrite."""
    assert main(["-q", "examples", "copy", "voice", str(tmp_path / "v")]) == 0
    folder = tmp_path / "v"
    ss = np.loadtxt(folder / "ss.csv")
    ds = np.loadtxt(folder / "ds.csv")
    return folder, ss, ds


def _case(folder, background: str, name: str = "case2.toml"):
    """The voice case with its [background] file keys replaced by ``background``."""
    text = (folder / "case.toml").read_text(encoding="utf-8")
    text = text.replace('ss = "ss.csv"\nds = "ds.csv"\n', background + "\n")
    assert background in text
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def _check(path, capsys):
    code = main(["check", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_xlsx_with_sheet_and_score_column_is_ready(voice, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    folder, ss, ds = voice
    for name, values in (("ss", ss), ("ds", ds)):
        book = openpyxl.Workbook()
        book.active.title = "Notes"  # the first sheet is not the scores
        book.active.append(["exported by the scoring system"])
        sheet = book.create_sheet("Scores")
        sheet.append(["trial", "Wert"])
        for i, v in enumerate(values):
            sheet.append([f"T{i}", float(v)])
        book.save(folder / f"{name}.xlsx")
    case = _case(folder, 'ss = "ss.xlsx"\nds = "ds.xlsx"\nscore_column = "Wert"\n'
                 'sheet = "Scores"')
    code, out, _ = _check(case, capsys)
    assert code == 0, out
    assert "ready for a final report" in out
    assert f"ss.xlsx': {ss.size:,} scores" in out and f"ds.xlsx': {ds.size:,} scores" in out


@pytest.mark.parametrize("decimal_key", [True, False], ids=["decimal-given", "detected"])
def test_semicolon_decimal_comma_export_is_ready(voice, capsys, decimal_key):
    folder, ss, ds = voice
    for name, values in (("ss", ss), ("ds", ds)):
        lines = ["Vergleich;Prüfer;Wert"] + [
            f"V{i};Müller;{v:.4f}".replace(".", ",") for i, v in enumerate(values)]
        (folder / f"{name}_de.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode("cp1252"))
    extra = '\ndecimal = ","' if decimal_key else ""
    case = _case(folder, f'ss = "ss_de.csv"\nds = "ds_de.csv"\nscore_column = 3{extra}')
    code, out, _ = _check(case, capsys)
    assert code == 0, out
    assert f"{ss.size:,} scores" in out and f"{ds.size:,} scores" in out


def test_labelled_file_with_label_and_score_columns_is_ready(voice, capsys):
    folder, ss, ds = voice
    rows = [f"{v:.4f},{c}" for values, c in ((ss, "H1"), (ds, "H2")) for v in values]
    (folder / "all.csv").write_text("Wert,Klasse\n" + "\n".join(rows) + "\n")
    case = _case(folder, 'scores = "all.csv"\nscore_column = "Wert"\nlabel_column = "Klasse"')
    code, out, err = _check(case, capsys)
    # the labels H1/H2 are not the reader's words: check refuses exactly as run does
    run_code = main(["-q", "run", str(case), "--out", str(folder / "o"), "--format", "json"])
    run_err = capsys.readouterr().err
    assert code == run_code == 2
    assert err.strip() and err == run_err
    rows = [f"{v:.4f},{c}" for values, c in ((ss, "ss"), (ds, "ds")) for v in values]
    (folder / "all.csv").write_text("Wert,Klasse\n" + "\n".join(rows) + "\n")
    code, out, _ = _check(case, capsys)
    assert code == 0, out
    assert f"'all.csv': {ss.size + ds.size:,} scores" in out


def test_a_file_run_refuses_is_refused_by_check_with_the_same_message(voice, capsys):
    folder, ss, _ = voice
    np.savetxt(folder / "ss.csv", np.append(ss, np.inf))
    code, _, err = _check(folder / "case.toml", capsys)
    assert code == main(["-q", "run", str(folder / "case.toml"), "--out", str(folder / "o"),
                         "--format", "json"]) == 2
    assert err == capsys.readouterr().err
    assert "[background]" in err and "ss.csv" in err and "line" in err
    assert not (folder / "o").exists()


@pytest.mark.parametrize("where", ["score", "sources"])
def test_a_5000_digit_integer_is_exit_2(voice, capsys, where):
    folder, _, _ = voice
    text = (folder / "case.toml").read_text(encoding="utf-8")
    key = "score = 5.96" if where == "score" else next(
        line for line in text.splitlines() if line.startswith("sources = "))
    (folder / "case.toml").write_text(text.replace(key, f"{where} = {'1' * 5000}"))
    for command in (["check"], ["run", "--out", str(folder / "o")]):
        assert main([command[0], str(folder / "case.toml"), *command[1:]]) == 2
        err = capsys.readouterr().err
        assert "case.toml" in err and "4,300 digits" in err and len(err) < 400
    assert not (folder / "o").exists()


@pytest.mark.parametrize("deep", [
    "[report.x" + ".a" * 3000 + "]\ny = 1\n",          # dotted tables: a deep dict
    "[method.options]\nx = " + "[" * 300 + "]" * 300 + "\n",  # lists inside lists
    "[validation.criteria.x" + ".a" * 40 + "]\n",
])
def test_deeply_nested_tables_are_exit_2(voice, capsys, deep):
    folder, _, _ = voice
    text = (folder / "case.toml").read_text(encoding="utf-8")
    (folder / "deep.toml").write_text(text + "\n" + deep, encoding="utf-8")
    code, _, err = _check(folder / "deep.toml", capsys)
    assert code == 2
    assert "deep.toml" in err and "levels deep" in err and len(err.splitlines()) == 1


def test_a_json_case_file_with_a_huge_integer_is_exit_2(voice, capsys):
    folder, _, _ = voice
    (folder / "case.json").write_text('{"case": {"id": ' + "7" * 5000 + "}}")
    code, _, err = _check(folder / "case.json", capsys)
    assert code == 2 and "4,300 digits" in err
