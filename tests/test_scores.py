"""Score loading: every format, and errors that name the file, line and value."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forensic_lr.errors import InputError
from forensic_lr.scores import load_scores, read_score_file, sha256_file, to_natural_llr

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
