"""Score tables as labs export them: spreadsheet CSVs, encodings, .xlsx, chosen columns,
provenance of the original bytes, and the errors (never a silently different number).

The reference values are the numbers' texts read one by one with Python's ``float`` (an
independent parser); the reference hashes are ``hashlib.sha256`` of the bytes written.
"""

import hashlib
import io
import json
import re
import zipfile

import numpy as np
import openpyxl
import pytest

from forensic_lr._checks import as_score_array
from forensic_lr.errors import InputError
from forensic_lr.io import tables
from forensic_lr.io.matrix import read_matrix
from forensic_lr.io.paired import load_paired_scores
from forensic_lr.io.scores import (
    column_choice,
    load_scores,
    read_class_file,
    read_score_file,
    to_natural_llr,
)

RNG = np.random.default_rng(20261123)
LABELS = ["ss", "ds"] * 12
TEXTS = [repr(float(v)) for v in RNG.normal(0.0, 3.0, size=len(LABELS)).round(6)]
SOURCES = [f"Sprecher {i // 2:02d}" for i in range(len(LABELS))]
TEXTS[3] = "1e-05"  # a number without a separator
TEXTS[5] = "12"


def expected():
    values = np.array([float(t) for t in TEXTS])
    is_ss = np.array([lab == "ss" for lab in LABELS])
    return values[is_ss], values[~is_ss]


def plain_csv(path):
    rows = [f"{lab},{t}" for lab, t in zip(LABELS, TEXTS, strict=True)]
    path.write_text("label,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def spreadsheet_csv(path):
    """';', decimal comma, CRLF, cp1252 with non-ASCII text, German header, extra columns."""
    rows = [
        f"{s};{lab};{t.replace('.', ',')};Zürich"
        for s, lab, t in zip(SOURCES, LABELS, TEXTS, strict=True)
    ]
    text = "Quelle;Vergleich;Ähnlichkeit;Ort\r\n" + "\r\n".join(rows) + "\r\n"
    path.write_bytes(text.encode("cp1252"))
    return path


def workbook(path, *, sheet="Daten", formula_row=None, extra_sheet=True):
    book = openpyxl.Workbook()
    if extra_sheet:
        book.active.title = "Notizen"
        book.active["A1"] = "nothing to read here"
        ws = book.create_sheet(sheet)
    else:
        ws = book.active
        ws.title = sheet
    ws.append(["Quelle", "Vergleich", "Ähnlichkeit"])
    for s, lab, t in zip(SOURCES, LABELS, TEXTS, strict=True):
        ws.append([s, lab, float(t)])
    if formula_row is not None:
        ws.cell(row=formula_row, column=3).value = "=1+1"
    book.save(path)
    return path


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------ must show
def test_spreadsheet_csv_and_xlsx_give_exactly_the_plain_csv_numbers(tmp_path):
    ss, ds = expected()
    plain = load_scores(scores=plain_csv(tmp_path / "plain.csv"))
    sheet_csv = spreadsheet_csv(tmp_path / "export.csv")
    german = load_scores(scores=sheet_csv, label_column="Vergleich", score_column="ähnlichkeit")
    xlsx = workbook(tmp_path / "export.xlsx")
    excel = load_scores(scores=xlsx, label_column=2, score_column=3, sheet="Daten")
    for data in (plain, german, excel):
        assert np.array_equal(data.ss, ss) and np.array_equal(data.ds, ds)
        assert data.ss.dtype == np.float64
    p = german.inputs[0]
    assert (p.name, p.sha256, p.size) == (str(sheet_csv), sha(sheet_csv), sheet_csv.stat().st_size)
    assert (p.format, p.encoding, p.delimiter, p.decimal, p.header) == (
        "text", "cp1252", ";", ",", True
    )
    assert p.columns == {"label": "Vergleich", "score": "Ähnlichkeit"}
    assert p.rows == len(LABELS)
    q = excel.inputs[0]
    assert (q.sha256, q.format, q.sheet, q.encoding) == (sha(xlsx), "xlsx", "Daten", None)
    assert q.columns == {"label": "Vergleich", "score": "Ähnlichkeit"}
    assert german.files == {str(sheet_csv): sha(sheet_csv)}
    assert json.loads(json.dumps(german.to_dict()))["inputs"][0]["sha256"] == sha(sheet_csv)


def test_source_column_chosen_by_name_in_both_formats(tmp_path):
    csv_data = load_scores(scores=spreadsheet_csv(tmp_path / "e.csv"), label_column="Vergleich",
                           score_column=3, source_column="quelle")
    xlsx_data = load_scores(scores=workbook(tmp_path / "e.xlsx"), label_column="Vergleich",
                            score_column="Ähnlichkeit", source_column=1, sheet="Daten")
    is_ss = np.array([lab == "ss" for lab in LABELS])
    for data in (csv_data, xlsx_data):
        assert data.ss_sources[:, 0].tolist() == np.array(SOURCES)[is_ss].tolist()
        assert (data.ss_sources[:, 0] == data.ss_sources[:, 1]).all()


@pytest.mark.parametrize(
    ("encoding", "name"),
    [("utf-8", "utf-8"), ("utf-8-sig", "utf-8-sig"), ("utf-16", "utf-16"),
     ("utf-32", "utf-32"), ("cp1252", "cp1252")],
)
def test_encodings_are_detected_and_named(tmp_path, encoding, name):
    path = tmp_path / "s.csv"
    path.write_bytes("Größe€\n1.5\n-2.25\n".encode(encoding))
    read = read_class_file(path, score_column=1)
    assert read.values.tolist() == [1.5, -2.25]
    assert read.provenance.encoding == name
    assert read.provenance.sha256 == sha(path)


def test_latin1_when_cp1252_leaves_a_byte_undefined(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"score\x81\xe9\n1.5\n2.5\n")  # 0x81 is undefined in cp1252
    assert read_class_file(path, score_column=1).provenance.encoding == "latin-1"


def test_ascii_file_is_named_utf8_and_plain_files_keep_working(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("score\textra\n1\tx\n2\ty\n")
    read = read_class_file(path)
    assert read.values.tolist() == [1.0, 2.0]
    p = read.provenance
    assert (p.encoding, p.delimiter, p.decimal) == ("utf-8", "tab", ".")
    assert p.columns == {"score": "score"}


def test_explicit_decimal_comma_in_other_delimiters(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("label\tscore\nss\t1,5\nds\t-0,25\nss\t2\nds\t0,125\n")
    with pytest.raises(InputError, match=r'looks like a decimal comma: use decimal = ","'):
        load_scores(scores=path)
    data = load_scores(scores=path, decimal=",")
    assert data.ss.tolist() == [1.5, 2.0] and data.ds.tolist() == [-0.25, 0.125]
    quoted = tmp_path / "q.csv"
    quoted.write_text('label,score\nss,"1,5"\nds,"-0,25"\nss,2\nds,"0,125"\n')
    data = load_scores(scores=quoted, decimal=",")
    assert data.ss.tolist() == [1.5, 2.0] and data.ds.tolist() == [-0.25, 0.125]


def test_formula_cells_are_read_by_their_cached_values(tmp_path):
    path = workbook(tmp_path / "f.xlsx", extra_sheet=False, formula_row=2)
    with pytest.raises(InputError) as info:
        load_scores(scores=path, label_column="Vergleich", score_column=3)
    message = str(info.value)
    assert "cell C2" in message and "no saved value" in message
    assert "save it so the values are stored" in message
    # give the formula a cached result, as a spreadsheet program saves it
    part = "xl/worksheets/sheet1.xml"
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    xml = parts[part].decode()
    xml, n = re.subn(r"<f>1\+1</f>\s*(?:<v\s*/>|<v></v>)?", "<f>1+1</f><v>2</v>", xml)
    assert n == 1
    parts[part] = xml.encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    data = load_scores(scores=path, label_column="Vergleich", score_column=3)
    ss, _ = expected()
    assert data.ss[0] == 2.0 and np.array_equal(data.ss[1:], ss[1:])


def test_matrix_reader_takes_decimal_commas_and_workbooks(tmp_path):
    path = tmp_path / "z.csv"
    path.write_text("a;b\n1,5;-2\n0,25;3,75\n")
    assert read_matrix(path).tolist() == [[1.5, -2.0], [0.25, 3.75]]
    book = openpyxl.Workbook()
    book.active.append(["a", "b"])
    book.active.append([1.5, -2])
    book.save(tmp_path / "z.xlsx")
    assert read_matrix(tmp_path / "z.xlsx").tolist() == [[1.5, -2.0]]


def test_paired_reader_takes_the_same_options(tmp_path):
    rows = ["Nr;Vergleich;A;B"] + [
        f"t{i};{lab};{t.replace('.', ',')};{i},5" for i, (lab, t) in
        enumerate(zip(LABELS, TEXTS, strict=True))
    ]
    path = tmp_path / "both.csv"
    path.write_bytes(("\r\n".join(rows) + "\r\n").encode("cp1252"))
    paired = load_paired_scores(scores=path, columns=("a", "b"), label_column="Vergleich")
    ss, _ = expected()
    assert np.array_equal(paired.a_ss, ss)
    assert paired.b_ss[0] == 0.5
    assert paired.inputs[0].sha256 == sha(path) and paired.files == {str(path): sha(path)}


@pytest.mark.parametrize(
    "text",
    ["", " ", ".", "1.", ".5", "1e", "1e+", "e5", "1d5", "0x1p3", "1_0", "nan", "-nan", "inf",
     "-Infinity", "infinit", "+1.5", " 1.5 ", "１", "١", "1.5.5", "--1", "1e5 x",
     "NAN(1)", "1j", "1e400", "-0", "00012", "1E-3"],
)
def test_both_number_paths_follow_one_rule(text):
    """The loadtxt float path and the string path (numpy's str -> float cast after the ASCII
    and underscore checks) accept exactly the same texts, with the same value (reference:
    Python's float on ASCII text without underscores)."""
    ok = text.isascii() and "_" not in text
    try:
        reference = float(text) if ok else None
    except ValueError:
        reference = None
    try:
        fast = float(np.loadtxt([f"a;{text}"], dtype=[("l", object), ("s", "f8")],
                                delimiter=";", comments=None, quotechar=None)["s"])
    except ValueError:
        fast = None
    try:
        strings = float(np.array([text]).astype(np.float64)[0]) if ok else None
    except ValueError:
        strings = None
    assert (fast is None) == (reference is None) == (strings is None)
    if reference is not None:
        assert np.array_equal([fast, strings], [reference] * 2, equal_nan=True)


# ------------------------------------------------------------------ never silently wrong
def check(info, *fragments):
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


def test_decimal_commas_in_a_comma_file_are_an_error_not_integers(tmp_path):
    path = tmp_path / "voice.csv"
    path.write_text("label,score\nss,5,3072\nds,-1,5\nss,2,1\nds,0,5\n")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "voice.csv", "line 2", "has 3 values but the header has 2", "'ss,5,3072'",
          "decimal", "3 more line(s)")


def test_ragged_rows_are_errors(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("label,score\nss,1.5\nds,-1,5\nss,2\nds,0\n")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "line 3", "has 3 values")
    path.write_text("label,score\nss,1.5\nds\nss,2\nds,0\n")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "line 3", "expected a 'score' value in column 2")
    headerless = tmp_path / "h.csv"
    headerless.write_text("ss,1.5\nds,2.5,7\nss,2\nds,0\n")
    with pytest.raises(InputError) as info:
        load_scores(scores=headerless)
    check(info, "line 2", "has 3 values but the first row has 2")


def test_one_message_for_2200_bad_lines(tmp_path):
    path = tmp_path / "ds.csv"
    path.write_text("score\n" + "".join(f"2,{i:04d}\n" for i in range(2200)))
    with pytest.raises(InputError) as info:
        read_score_file(path)
    message = check(info, "line 2", "'2,0000'", 'use decimal = ","', "--decimal ,",
                    "2,199 more line(s)")
    assert message.count("\n") == 0 and len(message) < 400


def test_mixed_separators_and_thousands_separators(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("label;score\nss;1,5\nds;2.5\nss;2\nds;0\n")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "line 3", "'2.5'", "uses '.'", "line 2 has '1,5'", "one decimal separator")
    path.write_text("label;score\nss;1.234,5\nds;2\nss;2\nds;0\n")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "line 2", "'1.234,5'", "thousands")
    path.write_text("label;score\nss;1.5\nds;2,5\nss;2\nds;0\n")
    with pytest.raises(InputError, match=r"uses ',' as decimal separator but the file uses '\.'"):
        load_scores(scores=path)
    with pytest.raises(InputError, match="line 3, column 'score': value '2,5' looks like"):
        load_scores(scores=path, decimal=".")


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('label,score\nss,"1"5\nds,2\n', ["line 2", "double quote"]),
        ('label,score\nss,1"5\nds,2\n', ["line 2", "quote inside a number"]),
        ("label,score\nss,1_5\nds,2\n", ["line 2", "'1_5'", "not a number"]),
        ("label,score\nss,١٥\nds,2\n", ["line 2", "not a number"]),
        ("label,score\nss,1e400\nds,2\n", ["line 2", "overflows"]),
        ("label,score\nss,\nds,2\n", ["line 2", "empty"]),
        ("label,score\nss,1.5\nmaybe,2\n", ["line 3", "'maybe'", "not recognised"]),
    ],
)
def test_partly_numbers_are_errors(tmp_path, text, fragments):
    path = tmp_path / "p.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "p.csv", *fragments)


def test_a_long_label_is_never_cut_to_a_known_one(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("label,score\nss,1\nds,2\nss,3\n" + "ss" + " " * 22 + "x,4\n")
    with pytest.raises(InputError, match=r"line 5, column 'label': label 'ss {22}x' is not"):
        load_scores(scores=path)


def test_a_nul_character_anywhere_is_refused(tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(b"score\n" + b"1.5\n" * 3000 + b"2.5\x00\n")
    with pytest.raises(InputError, match="line 3002: holds a NUL character"):
        read_score_file(path)


def test_values_are_quoted_as_short_excerpts(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("score\n1\n" + "9" * 100 + "x" * 200_000 + "\n")
    with pytest.raises(InputError) as info:
        read_score_file(path)
    message = check(info, "line 3", "200,100 characters")
    assert len(message) < 300
    path.write_text('score\n1\n"' + "x" * 140_000 + '"\n')
    with pytest.raises(InputError) as info:
        read_score_file(path)
    assert len(str(info.value)) < 300


# ------------------------------------------------------------------ workbooks refused
def test_corrupt_and_refused_workbooks(tmp_path):
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InputError, match=r"not a readable \.xlsx"):
        read_score_file(bad)
    good = workbook(tmp_path / "good.xlsx", extra_sheet=False)
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(good) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    with zipfile.ZipFile(damaged, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data[: len(data) // 2] if name.endswith("sheet1.xml") else data)
    with pytest.raises(InputError, match=r"damaged|not a readable"):
        load_scores(scores=damaged, label_column=2, score_column=3)
    for extra, message in (("xl/vbaProject.bin", "macro"), ("xl/externalLinks/externalLink1.xml",
                                                          "links to other workbooks")):
        path = tmp_path / f"{extra.count('/')}.xlsx"
        with zipfile.ZipFile(path, "w") as z:
            for name, data in parts.items():
                z.writestr(name, data)
            z.writestr(extra, b"x")
        with pytest.raises(InputError, match=message):
            read_score_file(path)
    macro = tmp_path / "m.xlsm"
    macro.write_bytes(good.read_bytes())
    with pytest.raises(InputError, match="macro-enabled"):
        read_score_file(macro)
    with pytest.raises(InputError, match=r"no sheet 'Tabelle9'.*'Daten'"):
        read_score_file(good, sheet="Tabelle9")
    renamed = tmp_path / "renamed.csv"
    renamed.write_bytes(good.read_bytes())
    with pytest.raises(InputError, match="ZIP archive"):
        read_score_file(renamed)


def test_workbook_without_a_numeric_column(tmp_path):
    book = openpyxl.Workbook()
    book.active.append(["Vergleich", "Score"])
    for lab in ("ss", "ds", "ss", "ds"):
        book.active.append([lab, "hoch"])
    path = tmp_path / "text.xlsx"
    book.save(path)
    with pytest.raises(InputError) as info:
        load_scores(scores=path, label_column="Vergleich")
    check(info, "text.xlsx, sheet 'Sheet', row 2", "'hoch'", "not a number", "3 more row(s)")
    book = openpyxl.Workbook()
    book.active.append(["Vergleich", "Score"])
    book.active.append(["ss", True])
    book.save(path)
    with pytest.raises(InputError, match="'TRUE' is not a number"):
        load_scores(scores=path, label_column="Vergleich")


def test_read_table_with_a_chosen_delimiter(tmp_path):
    path = tmp_path / "pipes.txt"
    path.write_text("label|score\nss|1.5\nds|2,5\n")

    def layout(header, width, fail):
        return [tables.Column("score", "number", names=("score",))]

    with pytest.raises(InputError, match="line 3, column 'score': value '2,5' looks like"):
        tables.read_table(path, layout, delimiter="|")  # a point unless the file is ;-separated
    path.write_text("label|score\nss|1,5\nds|2,5\n")
    table = tables.read_table(path, layout, delimiter="|", decimal=",")
    assert table.values["score"].tolist() == [1.5, 2.5]
    assert (table.provenance.delimiter, table.provenance.decimal) == ("|", ",")
    with pytest.raises(InputError, match="delimiter must be one character"):
        tables.read_table(path, layout, delimiter="||")


def test_column_choice_from_text():
    assert [column_choice(t) for t in ("2", " 3 ", "Score", 4, None)] == [2, 3, "Score", 4, None]


def test_column_choice_errors_teach_the_options(tmp_path):
    path = spreadsheet_csv(tmp_path / "e.csv")
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "has no 'label' column", "Vergleich", "label_column")
    with pytest.raises(InputError) as info:
        load_scores(scores=path, label_column="Vergleich", score_column="Wert")
    check(info, "has no 'Wert' column", "score_column")
    with pytest.raises(InputError, match="score_column = 9: the file has 4 column"):
        load_scores(scores=path, label_column="Vergleich", score_column=9)
    with pytest.raises(InputError, match=r"sheet = 'x' applies to \.xlsx"):
        load_scores(scores=path, sheet="x")
    with pytest.raises(InputError, match=r'decimal must be "\." or ","'):
        load_scores(scores=path, decimal=";")
    npy = tmp_path / "s.npy"
    np.save(npy, np.arange(3.0))
    with pytest.raises(InputError, match="score_column: these options apply to CSV"):
        read_score_file(npy, score_column=2)
    with pytest.raises(InputError, match="label_column applies to one labelled"):
        load_scores(ss=npy, ds=npy, label_column="x")


# ------------------------------------------------------------------ named causes, no tracebacks
def test_damaged_npy_and_json_have_named_causes(tmp_path):
    empty = tmp_path / "empty.npy"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="is empty"):
        read_score_file(empty)
    npz = tmp_path / "archive.npy"
    with open(npz, "wb") as handle:
        np.savez(handle, a=np.arange(3.0))
    with pytest.raises(InputError, match="npz"):
        read_score_file(npz)
    truncated = tmp_path / "cut.npy"
    buffer = io.BytesIO()
    np.save(buffer, np.arange(100.0))
    truncated.write_bytes(buffer.getvalue()[:200])
    with pytest.raises(InputError, match=r"not a readable \.npy"):
        read_score_file(truncated)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested too deeply"):
        read_score_file(deep)
    digits = tmp_path / "digits.json"
    digits.write_text("[" + "7" * 5000 + "]")
    with pytest.raises(InputError, match="more than 4,300 digits"):
        read_score_file(digits)
    boolean = tmp_path / "bool.json"
    boolean.write_text("[true, 1.5, 2.5]")
    with pytest.raises(InputError, match="item 1: value 'true' is not a number"):
        read_score_file(boolean)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-8-sig"])
def test_json_in_other_encodings(tmp_path, encoding):
    path = tmp_path / "s.json"
    text = json.dumps([{"label": "ss", "score": 1.5}, {"label": "ds", "score": -2.0}] * 2)
    if encoding == "utf-16-le":  # no byte-order mark: refused with the reason
        path.write_bytes(text.encode(encoding))
        with pytest.raises(InputError, match="byte-order mark"):
            load_scores(scores=path)
        return
    path.write_bytes(text.encode(encoding))
    data = load_scores(scores=path)
    assert data.ss.tolist() == [1.5, 1.5] and data.inputs[0].sha256 == sha(path)


def test_field_longer_than_the_csv_limit(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text('label,score\nss,"' + "1" * 140_000 + '"\nds,2\n')
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check(info, "line 2", "longer than 131,072 characters")


def test_nan_and_bool_messages_in_array_checks():
    with pytest.raises(InputError) as info:
        as_score_array(np.array([1.0, np.inf - np.inf]), "score")
    message = check(info, "score[1] = nan is non-finite (NaN: not a number")
    assert "np.float64" not in message
    with pytest.raises(InputError, match="true/false"):
        as_score_array(True, "score")
    with pytest.raises(InputError, match="true/false"):
        as_score_array([1.5, True], "score")
    with pytest.raises(InputError, match=r"'xxxx+'\.\.\. \(200,000 characters\) is not a number"):
        as_score_array(["1", "x" * 200_000], "score")


def test_log_base_conversion_that_overflows_is_an_error():
    with pytest.raises(InputError, match="too large to convert"):
        to_natural_llr(np.array([1.0, 1e308]), "10")
    assert to_natural_llr(np.array([2.0]), "10")[0] == pytest.approx(2 * np.log(10.0))


# ------------------------------------------------------------------ streaming
@pytest.mark.parametrize("block", [1, 2, 3, 7, 64])
def test_block_boundaries_do_not_change_anything(tmp_path, monkeypatch, block):
    """Tiny read blocks split CRLF pairs, multi-byte characters and lines everywhere."""
    path = spreadsheet_csv(tmp_path / "e.csv")
    reference = load_scores(scores=path, label_column=2, score_column=3, source_column=1)
    monkeypatch.setattr(tables, "_BLOCK_BYTES", block)
    data = load_scores(scores=path, label_column=2, score_column=3, source_column=1)
    assert np.array_equal(data.ss, reference.ss) and np.array_equal(data.ds, reference.ds)
    assert np.array_equal(data.ss_sources, reference.ss_sources)
    assert data.inputs == reference.inputs
    utf16 = tmp_path / "u.csv"
    utf16.write_bytes("Größe\r\n1,5\r\n# Kommentar\r\n\r\n2\r\n".encode("utf-16"))
    read = read_class_file(utf16, score_column=1, decimal=",")
    assert read.values.tolist() == [1.5, 2.0] and read.provenance.encoding == "utf-16"
    bad = tmp_path / "bad.csv"
    bad.write_text("score\n1\n\n# c\n2\nx\n")
    with pytest.raises(InputError, match="line 6"):
        read_score_file(bad)


def test_a_bad_last_line_stops_the_read_with_its_line_number(tmp_path):
    path = tmp_path / "big.csv"
    n = 300_000
    with open(path, "w") as handle:
        handle.write("label,score\n")
        handle.write("ss,1.25\nds,-0.5\n" * (n // 2))
        handle.write("ss,1,25\n")
    with pytest.raises(InputError, match=f"line {n + 2}: has 3 values"):
        load_scores(scores=path)


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        (b"label,score\nss,5,3072\nds,-1,5\nss,2,1\nds,0,5\n", ["line 2", "decimal"]),
        (b"\x93NUMPY", ["not a readable .npy"]),
        (b"[" * 100_000, ["nested too deeply"]),
    ],
)
def test_command_line_exit_2_without_traceback(tmp_path, content, fragments, fresh_python):
    suffix = {b"\x93": ".npy", b"[": ".json"}.get(content[:1], ".csv")
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(content)
    good = tmp_path / "ds.json"
    good.write_text("[1.0, 2.0, 3.0]")
    args = ["--scores", str(path)] if suffix == ".csv" else ["--ss", str(path), "--ds", str(good)]
    proc = fresh_python("-m", "forensic_lr", "validate", *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr
