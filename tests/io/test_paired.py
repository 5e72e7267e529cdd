"""Pairing two systems' LLRs trial by trial (forensic_lr.io.paired, `compare` layouts).

The expected arrays are built by the test from the generated trials themselves (the
pairing is known by construction), and the metrics are checked with
forensic_lr.evaluate on those arrays and scikit-learn's roc_auc_score.
"""

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.io.paired import load_paired_scores
from forensic_lr.metrics import evaluate


@pytest.fixture
def trials():
    """40 trials: ids, labels, sources, and the LLRs of two systems."""
    rng = np.random.default_rng(4)
    n = 40
    labels = np.array(["ss"] * 15 + ["ds"] * 25)
    src = [f"s{i % 5}" for i in range(n)]
    other = [f"s{(i % 5 + 1 + i % 3) % 5}" for i in range(n)]
    sources = np.array(
        [(a, a) if lab == "ss" else (a, b) for lab, a, b in zip(labels, src, other, strict=True)]
    )
    llr_a = np.where(labels == "ss", 2.0, -2.0) + rng.normal(0, 1.5, n)
    llr_b = 0.5 * llr_a + rng.normal(0, 1.5, n)
    ids = np.array([f"t{i:03d}" for i in range(n)])
    return ids, labels, sources, llr_a, llr_b


def _table(path, header, rows):
    path.write_text(",".join(header) + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return path


def _system_file(path, ids, labels, sources, llr, order):
    header = ["trial", "label", "score", "source_a", "source_b"]
    rows = [(ids[i], labels[i], repr(float(llr[i])), *sources[i]) for i in order]
    return _table(path, header, rows)


def test_id_column_matches_rows_in_any_order(trials, tmp_path):
    ids, labels, sources, llr_a, llr_b = trials
    n = ids.size
    shuffled = np.random.default_rng(1).permutation(n)
    a = _system_file(tmp_path / "a.csv", ids, labels, sources, llr_a, range(n))
    b = _system_file(tmp_path / "b.csv", ids, labels, sources, llr_b, shuffled)
    got = load_paired_scores(a=a, b=b, id_column="trial")
    is_ss = labels == "ss"
    np.testing.assert_array_equal(got.a_ss, llr_a[is_ss])
    np.testing.assert_array_equal(got.b_ss, llr_b[is_ss])  # re-ordered to A's trials
    np.testing.assert_array_equal(got.b_ds, llr_b[~is_ss])
    np.testing.assert_array_equal(got.ds_sources, sources[~is_ss])
    assert got.matched_by == "trial id column 'trial'"
    assert set(got.files) == {str(a), str(b)}
    # by row order the shuffled file is refused: its labels do not line up
    with pytest.raises(InputError, match="disagree on the label"):
        load_paired_scores(a=a, b=b)


def test_two_columns_of_one_file(trials, tmp_path):
    ids, labels, _, llr_a, llr_b = trials
    rows = [(labels[i], llr_a[i] / np.log(10), llr_b[i] / np.log(10)) for i in range(ids.size)]
    path = _table(tmp_path / "both.csv", ["label", "llr_new", "llr_old"], rows)
    got = load_paired_scores(scores=path, columns=("llr_new", "llr_old"), log_base="10")
    is_ss = labels == "ss"
    np.testing.assert_allclose(got.a_ds, llr_a[~is_ss], rtol=1e-12)
    np.testing.assert_allclose(got.b_ss, llr_b[is_ss], rtol=1e-12)
    assert got.names == ("llr_new", "llr_old") and got.ss_sources is None
    assert got.matched_by == "two LLR columns of one file"


def test_json_items_with_ids(trials, tmp_path):
    ids, labels, _, llr_a, llr_b = trials
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    items = [
        {"id": str(i), "label": str(lab), "score": float(v)}
        for i, lab, v in zip(ids, labels, llr_a, strict=True)
    ]
    a.write_text(json.dumps(items))
    b_items = [{**item, "score": float(v)} for item, v in zip(items, llr_b, strict=True)]
    b.write_text(json.dumps(b_items[::-1]))
    got = load_paired_scores(a=a, b=b, id_column="id")
    np.testing.assert_array_equal(got.b_ds, llr_b[labels == "ds"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: [*rows, rows[3]], r"trial id 't003' is on lines 5 and 42"),
        (lambda rows: rows[:-1], r"1 trial id\(s\) of .*a.csv are not in .*b.csv, the first"),
        (lambda rows: [(r[0], "ds", r[2], "s2", "s9") if r[0] == "t002" else r for r in rows],
         "disagree on the label: ss at .*a.csv, line 4 but ds at .*b.csv, line 4"),
        (lambda rows: [(*r[:3], "zz", "zz") if r[0] == "t001" else r for r in rows],
         "name different sources"),
        (lambda rows: [("", *r[1:]) if r[0] == "t007" else r for r in rows],
         "line 9: the trial id is empty"),
    ],
)
def test_pairing_errors_name_the_trial(trials, tmp_path, edit, message):
    ids, labels, sources, llr_a, llr_b = trials
    a = _system_file(tmp_path / "a.csv", ids, labels, sources, llr_a, range(ids.size))
    rows = [(ids[i], labels[i], repr(float(llr_b[i])), *sources[i]) for i in range(ids.size)]
    b = _table(tmp_path / "b.csv", ["trial", "label", "score", "source_a", "source_b"], edit(rows))
    with pytest.raises(InputError, match=message):
        load_paired_scores(a=a, b=b, id_column="trial")


def test_duplicate_in_first_file_names_its_lines(trials, tmp_path):
    ids, labels, sources, llr_a, _ = trials
    order = [*range(ids.size), 0]
    a = _system_file(tmp_path / "a.csv", ids, labels, sources, llr_a, order)
    with pytest.raises(InputError, match=r"a.csv, column 'trial': trial id 't000' is on lines 2"):
        load_paired_scores(a=a, b=a, id_column="trial")


def test_bad_layouts(trials, tmp_path):
    ids, labels, sources, llr_a, llr_b = trials
    plain = tmp_path / "plain.csv"
    plain.write_text("".join(f"{lab},{v}\n" for lab, v in zip(labels, llr_a, strict=True)))
    with pytest.raises(InputError, match="no header line; add one naming the columns"):
        load_paired_scores(a=plain, b=plain, id_column="trial")
    a = _system_file(tmp_path / "a.csv", ids, labels, sources, llr_a, range(ids.size))
    with pytest.raises(InputError, match="has no 'id' column"):
        load_paired_scores(a=a, b=a, id_column="id")
    with pytest.raises(InputError, match="name the two LLR columns"):
        load_paired_scores(scores=a, columns=("score", "score"))
    with pytest.raises(InputError, match="not both"):
        load_paired_scores(a=a, scores=a, columns=("x", "y"))
    short = _system_file(tmp_path / "s.csv", ids, labels, sources, llr_b, range(ids.size - 1))
    with pytest.raises(InputError, match=r"40 trials but .*s.csv has 39"):
        load_paired_scores(a=a, b=short)


@pytest.mark.filterwarnings("ignore::forensic_lr.validation.bootstrap.ResamplingWarning")
def test_cli_compare_by_id_and_by_columns(trials, tmp_path, capsys):
    ids, labels, sources, llr_a, llr_b = trials
    n = ids.size
    a = _system_file(tmp_path / "a.csv", ids, labels, sources, llr_a, range(n))
    b = _system_file(tmp_path / "b.csv", ids, labels, sources, llr_b, range(n)[::-1])
    common = ["--n", "100", "--seed", "2", "--json"]
    assert main(["compare", "--a", str(a), "--b", str(b), "--id", "trial", *common]) == 0
    by_id = json.loads(capsys.readouterr().out)
    rows = [(labels[i], llr_a[i], llr_b[i], *sources[i]) for i in range(n)]
    both = _table(tmp_path / "both.csv", ["label", "new", "old", "source_a", "source_b"], rows)
    assert main(["compare", "--scores", str(both), "--columns", "new,old", *common]) == 0
    by_columns = json.loads(capsys.readouterr().out)
    is_ss = labels == "ss"
    expected_a = evaluate(llr_a[is_ss], llr_a[~is_ss])
    expected_b = evaluate(llr_b[is_ss], llr_b[~is_ss])
    for out in (by_id, by_columns):
        assert out["by"] == "source"
        assert out["metrics_a"]["cllr"] == pytest.approx(expected_a.cllr)
        assert out["metrics_b"]["min_cllr"] == pytest.approx(expected_b.min_cllr)
        assert out["delong"]["auc_b"] == pytest.approx(roc_auc_score(is_ss, llr_b))
    assert by_id["matched_by"] == "trial id column 'trial'"
    assert by_columns["names"] == ["new", "old"]
    # same trials, same weights: the same intervals whichever layout carried them
    assert by_id["cllr_diff"] == by_columns["cllr_diff"]


def test_cli_compare_usage_errors(trials, tmp_path, capsys):
    ids, labels, sources, llr_a, _ = trials
    a = _system_file(tmp_path / "a.csv", ids, labels, sources, llr_a, range(ids.size))
    for args in (
        ["compare", "--a", str(a)],
        ["compare", "--scores", str(a)],
        ["compare", "--a", str(a), "--b", str(a), "--columns", "x,y"],
        ["compare", "--scores", str(a), "--columns", "score"],
    ):
        assert main(args) == 2
        assert "Traceback" not in capsys.readouterr().err


def test_two_systems_example_as_its_readme_says(capsys):
    # case_examples/two-systems: old.csv lists the trials in another order, so only the
    # id column pairs them; the README quotes these figures.
    from forensic_lr._resources import examples_dir

    folder = examples_dir() / "two-systems"
    new, old = str(folder / "new.csv"), str(folder / "old.csv")
    assert main(["compare", "--a", new, "--b", old]) == 2
    assert "shared trial-id column" in capsys.readouterr().err
    assert main(["compare", "--a", new, "--b", old, "--id", "trial", "--names", "new,old",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["by"] == "source" and out["matched_by"] == "trial id column 'trial'"
    assert out["cllr_diff"]["estimate"] == pytest.approx(-0.4042, abs=5e-5)
    assert out["cllr_diff"]["high"] < 0 and out["min_cllr_diff"]["high"] < 0
    assert "new performs better" in out["verdict"]
    widths = {}
    for by in ("trial", "source"):
        assert main(["validate", "--scores", new, "--ci", "bootstrap", "--by", by, "--json"]) == 0
        cllr = json.loads(capsys.readouterr().out)["ci"]["intervals"]["cllr"]
        assert cllr["estimate"] == pytest.approx(0.1873, abs=5e-5)
        widths[by] = cllr["high"] - cllr["low"]
    assert widths["source"] > 1.5 * widths["trial"]


def test_headerless_files_pair_by_row_order(trials, tmp_path):
    # label,score rows without a header line (as score files may be): row order pairs them
    _, labels, _, llr_a, llr_b = trials
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{lab},{float(v)!r}\n" for lab, v in zip(labels, llr_a, strict=True)))
    b.write_text("".join(f"{lab},{float(v)!r}\n" for lab, v in zip(labels, llr_b, strict=True)))
    got = load_paired_scores(a=a, b=b)
    is_ss = labels == "ss"
    np.testing.assert_array_equal(got.a_ds, llr_a[~is_ss])
    np.testing.assert_array_equal(got.b_ss, llr_b[is_ss])
    assert got.matched_by == "row order" and got.ss_sources is None


# ----------------------------------------------------------------- load_system_scores
def test_system_scores_of_one_labelled_file_equal_each_column_read_alone(tmp_path, trials):
    """Every system's column, read in one pass, equals load_scores of that column alone;
    the provenance names the first system's column as load_scores does."""
    from forensic_lr.io.paired import load_system_scores
    from forensic_lr.io.scores import load_scores

    _, labels, sources, a, b = trials
    path = _table(tmp_path / "s.csv", ["label", "sa", "sb", "source_a", "source_b"],
                  [(lab, x, y, *s) for lab, x, y, s in zip(labels, a, b, sources, strict=True)])
    ss, ds, first = load_system_scores(["sb", 2], scores=str(path))
    alone = {c: load_scores(scores=str(path), score_column=c) for c in ("sb", "sa")}
    np.testing.assert_array_equal(ss, np.column_stack([alone["sb"].ss, alone["sa"].ss]))
    np.testing.assert_array_equal(ds, np.column_stack([alone["sb"].ds, alone["sa"].ds]))
    assert first.to_dict() == alone["sb"].to_dict()
    np.testing.assert_array_equal(first.ds_sources, alone["sb"].ds_sources)


def test_system_scores_of_two_class_files_and_their_refusals(tmp_path, trials):
    from forensic_lr.io.paired import load_system_scores
    from forensic_lr.io.scores import load_scores

    _, labels, sources, a, b = trials
    is_ss = labels == "ss"
    paths = {}
    for name, part in (("ss", is_ss), ("ds", ~is_ss)):
        paths[name] = str(_table(tmp_path / f"{name}.csv", ["x", "y", "source_a", "source_b"],
                                 [(x, y, *s) for x, y, s in zip(a[part], b[part], sources[part],
                                                                strict=True)]))
    ss, ds, first = load_system_scores(["x", "y"], **paths)
    np.testing.assert_array_equal(ss, np.column_stack([a[is_ss], b[is_ss]]))
    np.testing.assert_array_equal(ds, np.column_stack([a[~is_ss], b[~is_ss]]))
    assert first.to_dict() == load_scores(**paths, score_column="x").to_dict()
    with pytest.raises(InputError, match="has no 'z' column"):
        load_system_scores(["x", "z"], **paths)
    with pytest.raises(InputError, match="the same file"):
        load_system_scores(["x", "y"], ss=paths["ss"], ds=paths["ss"])
    np.save(tmp_path / "ss.npy", a[is_ss])
    with pytest.raises(InputError, match="holds one score per comparison"):
        load_system_scores(["x", "y"], ss=str(tmp_path / "ss.npy"), ds=paths["ds"])
