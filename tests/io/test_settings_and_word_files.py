"""The hand-written JSON/TOML files (criteria, verbal scale, fusion counts, lab profile) and the
word tables (fusion decisions and labels, assessors' judgements) are read in every supported
encoding, and damaged ones end in a named cause (exit 2 on the command line), never a
traceback."""

from __future__ import annotations

import json

import numpy as np
import pytest

from forensic_lr.casework.profile import load_profile
from forensic_lr.casework.verbal import load_scale
from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.io.settings_files import read_settings_file
from forensic_lr.io.text_rows import read_rows
from forensic_lr.studies.fusion.io import read_counts, read_decisions, read_labels
from forensic_lr.studies.label_noise.io import read_judgements

COUNTS = {"system_pos": {"tp": 90, "fn": 10, "fp": 5, "tn": 95},
          "system_neg": {"tp": 80, "fn": 20, "fp": 2, "tn": 98},
          "model": {"tp": 70, "fn": 30, "fp": 10, "tn": 90}}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-32"])
def test_json_settings_read_in_every_encoding_with_a_bom(tmp_path, encoding):
    path = tmp_path / "counts.json"
    path.write_bytes(json.dumps(COUNTS).encode(encoding))
    counts = read_counts(path)
    assert (counts["model"].tp, counts["model"].tn) == (70, 90)


def test_utf16_criteria_file_is_read(tmp_path):
    from forensic_lr.cli.validate import _criteria
    criteria = tmp_path / "criteria.json"
    criteria.write_bytes(json.dumps({"cllr_max": 0.5}).encode("utf-16"))
    assert _criteria(str(criteria))[0].cllr_max == 0.5


@pytest.mark.parametrize("name, data, words", [
    ("deep.json", b"[" * 100_000, ["nested too deeply", "criteria file"]),
    ("deep.toml", b"a = " + b"[" * 100_000, ["nested too deeply"]),
    ("big.json", b'{"cllr_max": ' + b"9" * 5000 + b"}", ["more than", "digits"]),
    ("big.toml", b"cllr_max = " + b"9" * 5000, ["not a usable criteria file"]),
    ("bad.toml", b"cllr_max = [", ["not a valid criteria file"]),
    ("nobom.json", "{}".encode("utf-16-le"), ["NUL bytes"]),
    ("list.json", b"[1, 2]", ["a table of keys"]),
    ("typo.toml", b"cllr_mx = 0.5", ["cllr_mx", "unknown key"]),
])
def test_damaged_criteria_file_is_exit_2_with_the_cause(tmp_path, capsys, name, data, words):
    path = tmp_path / name
    path.write_bytes(data)
    ss, ds = tmp_path / "ss.csv", tmp_path / "ds.csv"
    ss.write_text("1\n2\n3\n")
    ds.write_text("-1\n-2\n-3\n")
    code = main(["validate", "--ss", str(ss), "--ds", str(ds), "--report", str(tmp_path / "o"),
                 "--criteria", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and name in err
    for word in words:
        assert word in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("data, words", [
    (b"[" * 100_000, ["nested too deeply", "verbal scale file"]),
    (json.dumps({"name": "x"}).encode("utf-16")[:-1], ["utf-16"]),
    (b"", ["not valid JSON"]),
])
def test_damaged_verbal_scale_is_named(tmp_path, data, words):
    path = tmp_path / "scale.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        load_scale(path)
    for word in words:
        assert word in str(info.value)


def test_utf16_verbal_scale_reads_like_utf8(tmp_path):
    shipped = json.loads((load_scale.__globals__["_DATA"]).read_text(encoding="utf-8"))
    key, table = next(iter(shipped["scales"].items()))
    paths = []
    for encoding in ("utf-8", "utf-16"):
        path = tmp_path / f"{encoding}.json"
        path.write_bytes(json.dumps({"scales": {key: table}}, ensure_ascii=False).encode(encoding))
        paths.append(path)
    a, b = (load_scale(p) for p in paths)
    assert a.bands == b.bands and a.statement_hp == b.statement_hp


def test_deep_lab_profile_is_named(tmp_path):
    path = tmp_path / "lab.toml"
    path.write_bytes(b"x = " + b"[" * 100_000)
    with pytest.raises(InputError, match="lab profile"):
        load_profile(path)


def test_settings_file_that_is_a_folder_or_missing(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        read_settings_file(tmp_path, "criteria file")
    with pytest.raises(InputError, match="criteria file not found"):
        read_settings_file(tmp_path / "none.json", "criteria file")


# --- word tables ---------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "cp1252"])
def test_word_tables_in_every_encoding(tmp_path, encoding):
    text = "# decisions\nA;B;Café\n1;0;1\n\n0;0;1\n"
    path = tmp_path / "d.csv"
    path.write_bytes(text.encode(encoding))
    names, decisions = read_decisions(path)
    assert names == ("A", "B", "Café")
    assert decisions.tolist() == [[True, False, True], [False, False, True]]


def test_read_rows_keeps_editor_line_numbers_and_quotes(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('# comment\n\n"item",A\n"x, y", 1\n')
    assert read_rows(path) == [(3, ["item", "A"]), (4, ["x, y", "1"])]


@pytest.mark.parametrize("line, cause", [
    ("1," + "9" * 200_000, "longer than"),
    ('1,"0', "quote is not closed"),
    ('1,0"x"', None),  # a quote inside an unquoted field is kept as text (then refused as a code)
])
def test_damaged_word_table_lines_are_named(tmp_path, line, cause):
    path = tmp_path / "labels.csv"
    path.write_text(f"A,B\n1,0\n{line}\n")
    with pytest.raises(InputError) as info:
        read_decisions(path)
    message = str(info.value)
    assert "line 3" in message and len(message) < 400
    if cause:
        assert cause in message


def test_label_noise_reads_utf16_and_refuses_a_huge_field(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_bytes("item\tA\tB\n1\t1\t0\n2\t0\t\n3\t1\t1\n".encode("utf-16"))
    judgements = read_judgements(path)
    assert judgements.assessors == ("A", "B")
    assert np.isnan(judgements.values[1, 1])
    path.write_text("item,A,B\n1,1," + "0" * 200_000 + "\n")
    assert main(["label-noise", "estimate", "--judgements", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "longer than" in err and "Traceback" not in err
    assert len(err) < 600


def test_fusion_labels_utf16_through_the_command_line(tmp_path, capsys):
    decisions, labels = tmp_path / "d.csv", tmp_path / "l.csv"
    rng = np.random.default_rng(3)
    truth = rng.random(200) < 0.5
    comp = np.column_stack([truth ^ (rng.random(200) < 0.1) for _ in range(3)])
    decisions.write_bytes(("A,B,C\n" + "\n".join(",".join(str(int(v)) for v in row)
                                              for row in comp)).encode("utf-16"))
    labels.write_bytes("\n".join(str(int(v)) for v in truth).encode("utf-16"))
    assert read_labels(labels).tolist() == truth.tolist()
    code = main(["fusion", "worst-case", "--decisions", str(decisions), "--labels", str(labels),
                 "--component", "A", "--fuser", "majority", "--json"])
    assert code == 0, capsys.readouterr().err


def test_word_table_that_is_a_folder_or_missing(tmp_path):
    with pytest.raises(InputError, match="is a folder, not a CSV file"):
        read_rows(tmp_path)
    with pytest.raises(InputError, match="CSV file not found"):
        read_rows(tmp_path / "none.csv")
