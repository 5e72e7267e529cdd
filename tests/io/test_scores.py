"""Score loading: every format, and errors that name the file, line and value."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.errors import InputError
from forensic_lr.io.scores import load_scores, read_score_file, sha256_file, to_natural_llr

SS = [1.5, 2.25, 3.0]
DS = [-1.0, 0.5, -2.75, 0.0]


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("plain.csv", "1.5\n2.25\n3.0\n"),
        ("header.csv", "score\n1.5\n2.25\n3.0\n"),
        ("columns.csv", "id,score,note\na,1.5,x\nb,2.25,y\nc,3.0,z\n"),
        ("tabs.tsv", "id\tscore\na\t1.5\nb\t2.25\nc\t3.0\n"),
        ("comments.txt", "# exported 2026\n\n1.5\n2.25\n\n3.0\n"),
        ("list.json", "[1.5, 2.25, 3.0]"),
    ],
)
def test_one_class_formats(tmp_path, name, text):
    assert read_score_file(write(tmp_path / name, text)).tolist() == SS


def test_npy(tmp_path):
    np.save(tmp_path / "ss.npy", np.array(SS))
    assert read_score_file(tmp_path / "ss.npy").tolist() == SS


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("l.csv", "label,score\nss,1.5\nDS,-1\nsame,2.25\ndifferent,0.5\nTarget,3.0\n"
                  "nontarget,-2.75\nnon-target,0\n"),
        ("l2.csv", "1,1.5\n0,-1\ntrue,2.25\nfalse,0.5\n1,3.0\n0,-2.75\n0,0\n"),
        ("l.json", json.dumps({"ss": SS, "ds": DS})),
        ("items.json", json.dumps(
            [{"label": "ss", "score": s} for s in SS] + [{"label": "ds", "score": d} for d in DS]
        )),
    ],
)
def test_labelled_formats(tmp_path, name, text):
    data = load_scores(scores=write(tmp_path / name, text))
    assert data.ss.tolist() == SS
    assert data.ds.tolist() == DS
    assert list(data.files.values()) == [sha256_file(tmp_path / name)]


def test_two_files_and_provenance(tmp_path):
    ss = write(tmp_path / "ss.csv", "1.5\n2.25\n3.0\n")
    ds = write(tmp_path / "ds.csv", "-1\n0.5\n-2.75\n0\n")
    data = load_scores(ss=ss, ds=ds)
    assert data.ss.tolist() == SS and data.ds.tolist() == DS
    # SHA-256 of "1.5\n2.25\n3.0\n" computed independently with hashlib
    import hashlib

    assert data.files[str(ss)] == hashlib.sha256(b"1.5\n2.25\n3.0\n").hexdigest()


def test_log_base_and_direction_by_hand(tmp_path):
    ss = write(tmp_path / "ss.csv", "1\n2\n")
    ds = write(tmp_path / "ds.csv", "-1\n0\n")
    assert load_scores(ss=ss, ds=ds, log_base="10").ss.tolist() == pytest.approx(
        [math.log(10), 2 * math.log(10)]
    )
    assert to_natural_llr([3.0], "2").tolist() == pytest.approx([3 * math.log(2)])
    assert load_scores(ss=ss, ds=ds, direction="lower_is_similar").ds.tolist() == [1.0, -0.0]


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("1.5\nabc\n3\n", ["line 2", "'abc'", "not a number"]),
        ("score\n1.5\n\nnan\n", ["line 4", "'nan'", "finite"]),
        ("1.5\ninf\n", ["line 2", "'inf'"]),
        ("", ["empty"]),
        ("value\n1\n2\n", ["no 'score' column", "value"]),
        ("1,2\n3,4\n", ["several columns but no header"]),
    ],
)
def test_one_class_errors_point_at_the_line(tmp_path, text, fragments):
    path = write(tmp_path / "ss.csv", text)
    with pytest.raises(InputError) as info:
        read_score_file(path)
    message = str(info.value)
    assert "ss.csv" in message
    for fragment in fragments:
        assert fragment in message


def test_labelled_errors(tmp_path):
    path = write(tmp_path / "s.csv", "label,score\nss,1\nmaybe,2\n")
    with pytest.raises(InputError, match=r"line 3.*'maybe' is not recognised"):
        load_scores(scores=path)
    path = write(tmp_path / "t.csv", "label,score\nss,1\nss,2\n")
    with pytest.raises(InputError, match="no different-source"):
        load_scores(scores=path)
    path = write(tmp_path / "u.csv", "label,score\nss,1\nss,2\nds,3\n")
    with pytest.raises(InputError, match="only 1 different-source"):
        load_scores(scores=path)
    path = write(tmp_path / "v.json", "{bad json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_scores(scores=path)


def test_option_errors(tmp_path):
    ss = write(tmp_path / "ss.csv", "1\n2\n")
    with pytest.raises(InputError, match="not found"):
        load_scores(ss=ss, ds=tmp_path / "missing.csv")
    with pytest.raises(InputError, match="not both"):
        load_scores(ss=ss, ds=ss, scores=ss)
    with pytest.raises(InputError, match="log base"):
        load_scores(ss=ss, ds=ss, log_base="3")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=2,
             max_size=30),
)
def test_round_trip(tmp_path_factory, values):
    folder = tmp_path_factory.mktemp("rt")
    path = folder / "ss.csv"
    path.write_text("\n".join(repr(v) for v in values) + "\n")
    assert read_score_file(path).tolist() == values


# ---------------------------------------------------------------- more formats and layouts
@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("semi.csv", "id;score\na;1.5\nb;2.25\nc;3.0\n"),
        ("space.txt", "id score\na   1.5\nb 2.25\nc\t3.0\n"),
        ("quoted.csv", 'score\n"1.5"\n"2.25"\n"3.0"\n'),
        ("crlf.csv", "score\r\n1.5\r\n2.25\r\n3.0\r\n"),
        ("comment_lines.csv", "# first\n1.5\n  # indented\n2.25\n3.0\n# last\n"),
        ("upper.CSV", "Score\n1.5\n2.25\n3.0\n"),
    ],
)
def test_more_one_class_layouts(tmp_path, name, text):
    assert read_score_file(write(tmp_path / name, text)).tolist() == SS


def test_byte_order_mark(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfscore\n1.5\n2.25\n3.0\n")
    assert read_score_file(path).tolist() == SS


def test_labelled_tsv_with_extra_columns_and_labels_in_any_case(tmp_path):
    text = "id\tscore\tlabel\n" + "".join(
        f"{i}\t{s}\t{lab}\n"
        for i, (s, lab) in enumerate(
            [(1.5, "SAME"), (-1.0, "Non-Target"), (2.25, "True"), (0.5, "FALSE"),
             (3.0, "Target"), (-2.75, "different"), (0.0, "0")]
        )
    )
    data = load_scores(scores=write(tmp_path / "all.tsv", text))
    assert data.ss.tolist() == SS and data.ds.tolist() == DS


def test_log_base_e_is_the_identity_and_two_by_hand(tmp_path):
    ss = write(tmp_path / "ss.csv", "1\n-2\n")
    ds = write(tmp_path / "ds.csv", "0.5\n0\n")
    assert load_scores(ss=ss, ds=ds, log_base="e").ss.tolist() == [1.0, -2.0]
    # ln 2 = 0.6931471805599453 (math.log(2), hand check: 2 ** 1 = e ** 0.693...)
    got = load_scores(ss=ss, ds=ds, log_base="2")
    assert got.ss.tolist() == pytest.approx([0.6931471805599453, -1.3862943611198906])
    assert got.ds.tolist() == pytest.approx([0.34657359027997264, 0.0])
    # distances in log10: negated, then scaled by ln 10 = 2.302585092994046
    got = load_scores(ss=ss, ds=ds, log_base="10", direction="lower_is_similar")
    assert got.ss.tolist() == pytest.approx([-2.302585092994046, 4.605170185988092])


# ---------------------------------------------------------------- every error names its place
def check_message(info, *fragments):
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_error_line_counts_comments_and_blank_lines(tmp_path):
    # the editor shows 'x1' on line 6: header, comment, blank lines all count
    path = write(tmp_path / "ds.csv", "# export\nscore\n1.0\n\n# note\nx1\n2\n")
    with pytest.raises(InputError) as info:
        read_score_file(path)
    check_message(info, "ds.csv", "line 6", "column 'score'", "'x1'", "correct or remove")


@pytest.mark.parametrize(
    ("name", "text", "fragments"),
    [
        ("a.csv", "label,score\nss,1\nds,abc\nss,2\nds,3\n",
         ["a.csv", "line 3", "column 'score'", "'abc'", "not a number"]),
        ("b.csv", "label,score\nss,1\nds,NaN\nss,2\nds,3\n",
         ["b.csv", "line 3", "'NaN'", "finite"]),
        ("c.csv", "ss,1\nds,2\nss,-inf\nds,3\n", ["c.csv", "line 3", "'-inf'", "finite"]),
        ("d.csv", "label;score\nss;1\n\nfoo;2\n", ["d.csv", "line 4", "column 'label'", "'foo'",
                                                  "1/0, ss/ds"]),
        ("e.csv", "kind,score\nss,1\n", ["e.csv", "line 1", "no 'label' column", "kind, score"]),
        ("f.csv", "label,value\nss,1\n", ["f.csv", "no 'score' column"]),
        ("g.csv", "label,score\nss\n", ["g.csv", "line 2", "expected a 'score' value"]),
        ("h.json", json.dumps({"ss": [1, 2], "ds": [1, "x"]}),
         ["h.json", "item 2", "column 'ds'", "'x'", "not a number"]),
        ("i.json", json.dumps([{"label": "ss", "score": 1}, {"label": "xx", "score": 2}]),
         ["i.json", "item 2", "'xx'", "not recognised"]),
        ("j.json", json.dumps([{"label": "ss", "score": 1}, {"score": 2}]),
         ["j.json", "item 2", "'label'"]),
        ("k.json", '{"ss": [1, 2],\n "ds": [1, 2,]}', ["k.json", "line 2", "not valid JSON"]),
        ("l.json", json.dumps({"ss": 5, "ds": [1, 2]}), ["l.json", '"ss" must be a JSON list']),
        ("m.json", json.dumps({"same": [1, 2]}), ["m.json", '{"ss": [...], "ds": [...]}']),
        ("n.npy", None, ["n.npy", "one class", "--ss and --ds"]),
        ("o.csv", "", ["o.csv", "empty"]),
    ],
)
def test_labelled_file_errors(tmp_path, name, text, fragments):
    path = tmp_path / name
    if text is None:
        np.save(path, np.array([1.0, 2.0]))
    else:
        path.write_text(text)
    with pytest.raises(InputError) as info:
        load_scores(scores=path)
    check_message(info, *fragments)


@pytest.mark.parametrize(
    ("name", "content", "fragments"),
    [
        ("p.json", "[1, 2, null]", ["p.json", "item 3", "'null'", "not a number"]),
        ("q.json", '{"a": 1}', ["q.json", "JSON list"]),
        ("r.npy", np.array([1.0, np.nan, 2.0]), ["r.npy", "element 2", "nan", "finite"]),
        ("s.npy", np.ones((2, 2)), ["s.npy", "1-D numeric"]),
        ("t.npy", np.array(["a", "b"]), ["t.npy", "1-D numeric"]),
        ("u.csv", "1,5\n2,5\n", ["u.csv", "line 1", "no header", "decimal"]),
        ("v.csv", b"1\x00\n\x002\x00", ["v.csv", "UTF-8"]),
    ],
)
def test_one_class_file_errors(tmp_path, name, content, fragments):
    path = tmp_path / name
    if isinstance(content, np.ndarray):
        np.save(path, content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(InputError) as info:
        read_score_file(path)
    check_message(info, *fragments)


def test_small_classes_name_the_file(tmp_path):
    one = write(tmp_path / "one.csv", "# only one\n1.0\n")
    none = write(tmp_path / "none.csv", "score\n")
    two = write(tmp_path / "two.csv", "1\n2\n")
    with pytest.raises(InputError) as info:
        load_scores(ss=one, ds=two)
    check_message(info, "one.csv", "only 1 same-source (ss) score", "at least 2")
    with pytest.raises(InputError) as info:
        load_scores(ss=two, ds=none)
    check_message(info, "none.csv", "no different-source (ds) scores")


def test_missing_file_and_wrong_options(tmp_path):
    two = write(tmp_path / "two.csv", "1\n2\n")
    with pytest.raises(InputError) as info:
        load_scores(ss=two, ds=tmp_path / "nope.csv")
    check_message(info, "nope.csv", "file not found", "check the path")
    with pytest.raises(InputError, match="give both an ss and a ds file"):
        load_scores(ss=two)
    with pytest.raises(InputError, match="direction must be one of"):
        load_scores(ss=two, ds=two, direction="up")


# ---------------------------------------------------------------- round trips and agreement
_finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)
_labelled_rows = st.lists(st.tuples(st.booleans(), _finite), min_size=4, max_size=40).filter(
    lambda rows: sum(r[0] for r in rows) >= 2 and sum(not r[0] for r in rows) >= 2
)


@settings(max_examples=25, deadline=None)
@given(
    _labelled_rows,
    st.sampled_from([",", "\t", ";", " "]),
    st.booleans(),
    st.sampled_from([("ss", "ds"), ("1", "0"), ("Target", "non-target"), ("TRUE", "false")]),
)
def test_labelled_round_trip(tmp_path_factory, rows, sep, header, names):
    path = tmp_path_factory.mktemp("rt") / "all.txt"
    body = [f"{names[0] if is_ss else names[1]}{sep}{score!r}" for is_ss, score in rows]
    path.write_text("\n".join(([f"label{sep}score"] if header else []) + body) + "\n")
    data = load_scores(scores=path)
    assert data.ss.tolist() == [s for is_ss, s in rows if is_ss]
    assert data.ds.tolist() == [s for is_ss, s in rows if not is_ss]


@settings(max_examples=15, deadline=None)
@given(st.lists(_finite, min_size=2, max_size=30), st.lists(_finite, min_size=2, max_size=30))
def test_json_and_npy_round_trip(tmp_path_factory, ss, ds):
    folder = tmp_path_factory.mktemp("rt")
    (folder / "both.json").write_text(json.dumps({"ss": ss, "ds": ds}))
    data = load_scores(scores=folder / "both.json")
    assert data.ss.tolist() == ss and data.ds.tolist() == ds
    np.save(folder / "ss.npy", np.array(ss))
    np.save(folder / "ds.npy", np.array(ds))
    # byte-identical files for the two classes are refused ([0.0] and [-0.0] are equal
    # lists but different files: the sign bit differs)
    if (folder / "ss.npy").read_bytes() == (folder / "ds.npy").read_bytes():
        with pytest.raises(InputError, match="identical contents"):
            load_scores(ss=folder / "ss.npy", ds=folder / "ds.npy")
        return
    data = load_scores(ss=folder / "ss.npy", ds=folder / "ds.npy")
    assert data.ss.tolist() == ss and data.ds.tolist() == ds
