"""``#`` inside a source or trial id is part of the id; only a whole line is a comment.

Rebuilt from the description: 20 speakers named ``case{c}#spk{k}`` (five cases of four
speakers) used to be cut at the ``#`` and merged into 5 sources, which changed the
leave-one-source-out Cllr and its interval without a warning. The same scores with ``_``
instead of ``#`` give the independent reference: every number must be identical.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from forensic_lr.cli import main
from forensic_lr.errors import InputError
from forensic_lr.io.paired import load_paired_scores
from forensic_lr.io.scores import load_scores, read_score_file


def _files(folder, sep):
    """``(ss, ds)`` files with ``score,source`` columns: 20 speakers, ids joined by sep."""
    def ident(i):
        return f"case{i // 4}{sep}spk{i}"

    rng = np.random.default_rng(1)
    ss = "".join(f"{rng.normal(2.5, 1):.6f},{ident(i)}\n" for i in range(20) for _ in range(4))
    ds = "".join(f"{rng.normal(0, 1.3):.6f},{ident(i)}\n" for i in range(20) for _ in range(10))
    name = "hash" if sep == "#" else "plain"
    (folder / f"ss_{name}.csv").write_text("# exported scores\nscore,source\n" + ss)
    (folder / f"ds_{name}.csv").write_text("score,source\n" + ds)
    return folder / f"ss_{name}.csv", folder / f"ds_{name}.csv"


def test_hash_ids_give_the_numbers_of_the_same_ids_without_hash(tmp_path, capsys):
    results = {}
    for sep in ("#", "_"):
        ss, ds = _files(tmp_path, sep)
        data = load_scores(ss=ss, ds=ds)
        assert np.unique(data.ss_sources).size == 20
        assert main(["validate", "--ss", str(ss), "--ds", str(ds), "--calibrate", "gaussian",
                     "--ci", "bootstrap", "--n", "200", "--json"]) == 0
        results[sep] = json.loads(capsys.readouterr().out)
    hashed, plain = results["#"], results["_"]
    assert hashed["folds_by"] == "source" and hashed["ci"]["n_sources"] == 20
    assert hashed == plain  # Cllr, its interval and every other number, byte for byte


def test_quoted_and_unquoted_hash_values_read_as_written(tmp_path):
    path = tmp_path / "all.csv"
    path.write_text('label,score,source\n  # a comment line, indented\n'
                    'ss,1.5,"spk#0"\nds,-1.0,spk#1\nss,2.0,"#2"\nds,-0.5,x#\n')
    data = load_scores(scores=path)
    assert data.ss_sources[:, 0].tolist() == ["spk#0", "#2"]
    assert data.ds_sources[:, 0].tolist() == ["spk#1", "x#"]
    assert data.ss.tolist() == [1.5, 2.0] and data.ds.tolist() == [-1.0, -0.5]


def test_trial_ids_with_hash_pair_two_systems(tmp_path):
    """B lists the trials in reverse order: pairing by the ids ``t#0`` ... ``t#11`` must
    match each trial with itself (B = A + 0.5 on every trial)."""
    for name, shift, order in (("a", 0.0, range(12)), ("b", 0.5, range(11, -1, -1))):
        (tmp_path / f"{name}.csv").write_text("id,label,score\n" + "".join(
            f"t#{i},{'ss' if i % 2 else 'ds'},{(i % 2) * 2 - 1 + shift + i / 100}\n"
            for i in order))
    paired = load_paired_scores(a=tmp_path / "a.csv", b=tmp_path / "b.csv", id_column="id")
    assert paired.a_ss.size == paired.a_ds.size == 6
    np.testing.assert_allclose(paired.b_ss - paired.a_ss, 0.5)
    np.testing.assert_allclose(paired.b_ds - paired.a_ds, 0.5)


def test_a_comment_after_a_value_is_refused_with_the_rule(tmp_path):
    path = tmp_path / "ss.csv"
    path.write_text("score\n1.5\n2.25 #checked\n")
    with pytest.raises(InputError, match=r"line 3.*'#' starts a comment only as the first"):
        read_score_file(path)


def test_blank_and_comment_lines_read_without_warnings(tmp_path):
    """Blank lines inside a block are skipped silently: numpy's note that they do not
    count towards ``max_rows`` is not passed on to the user."""
    from forensic_lr.io.matrix import read_matrix

    (tmp_path / "m.csv").write_text("a,b\n1,2\n\n# note\n3,4\n")
    (tmp_path / "s.csv").write_text("score\n1.5\n\n2.5\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_matrix(tmp_path / "m.csv").tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert read_score_file(tmp_path / "s.csv").tolist() == [1.5, 2.5]
