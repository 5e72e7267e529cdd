"""Case files with [measurements]: the population database and the case items become the
background and evidence of the one case pipeline; the record names the model, the population
and whether the LR accounts for typicality; bad inputs name the file, line, column and fix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from forensic_lr.casework import load_case
from forensic_lr.casework.pipeline import run_case_full
from forensic_lr.errors import InputError
from forensic_lr.features import TwoLevelModel, load_measurements
from forensic_lr.io.paths import resolve_path

CASE = """\
[case]
id = "G-1"
items = [{{ id = "Q1", description = "recovered" }}, {{ id = "K1", description = "control" }}]
[propositions]
hp = "Q1 comes from K1"
hd = "Q1 comes from another window"
[evidence]
description = "measurements"
[measurements]
database = "db.csv"
items = "items.csv"
{measurements}
[method]
calibrator = "logistic"
[uncertainty]
method = "none"
seed = 3
[validation]
folds = 3
"""


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(12)
    theta = rng.normal(size=(40, 2)) * [1.0, 2.0]
    rows = ["source,item,a,b"]
    for s in range(40):
        for k in range(4):
            x = theta[s] + rng.normal(size=2) * 0.3
            rows.append(f"S{s},f{k // 2},{x[0]:.5f},{x[1]:.5f}")
    (tmp_path / "db.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    case = theta[3] + rng.normal(size=(5, 2)) * 0.3
    items = ["item,a,b"] + [f"{'K1' if i < 3 else 'Q1'},{x[0]:.5f},{x[1]:.5f}"
                            for i, x in enumerate(case)]
    (tmp_path / "items.csv").write_text("\n".join(items) + "\n", encoding="utf-8")
    return tmp_path


def _case(folder, measurements="", extra=""):
    path = folder / "case.toml"
    path.write_text(CASE.format(measurements=measurements) + extra, encoding="utf-8")
    return load_case(path)


def test_the_evidence_is_the_two_level_llr_of_the_items_by_the_model_fitted_on_the_database(
        folder):
    spec = _case(folder)
    population = load_measurements(folder / "db.csv")
    items = np.loadtxt(folder / "items.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    want = TwoLevelModel().fit(population).llr(items[3:], items[:3])
    assert spec.evidence.values == pytest.approx((want,), abs=1e-12)
    assert spec.evidence.labels == ("Q1-K1",)  # [case] items order
    assert spec.evidence.score_direction == "higher_is_similar"


def test_a_distance_model_is_lower_is_similar_and_its_value_is_the_distance_of_the_means(
        folder):
    spec = _case(folder, 'model = "score"\nscore = "euclidean"')
    items = np.loadtxt(folder / "items.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    want = float(np.linalg.norm(items[3:].mean(0) - items[:3].mean(0)))
    assert spec.evidence.values == pytest.approx((want,), rel=1e-12)
    assert spec.evidence.score_direction == "lower_is_similar"


def test_a_run_records_model_population_typicality_and_uses_folds_by_source(folder):
    run = run_case_full(_case(folder))
    m = run.result.measurements
    assert m.model == "two_level" and m.typicality
    assert "accounts for typicality" in m.typicality_statement
    assert m.population["sources"] == 40 and m.population["measurements"] == 160
    assert m.population["same_source_pairs"] == 40 * 1  # unit item: f0 and f1 per source
    assert m.population["out_of_fold"]
    assert {(i.id, i.replicates) for i in m.items} == {("K1", 3), ("Q1", 2)}
    assert m.database == "db.csv" and m.features == ("a", "b")
    assert run.result.validation.folds_by == "source"
    assert run.ss.size == 40 and run.ds.size == 80 * 79 // 2 - 40
    names = set(run.result.provenance.inputs)
    assert names == {"db.csv", "items.csv"}
    score = run_case_full(_case(folder, 'model = "score"')).result.measurements
    assert not score.typicality and "similarity-only" in score.typicality_statement


def test_the_same_case_gives_the_same_result_byte_for_byte(folder):
    first = run_case_full(_case(folder, 'between = "kde"')).result.to_json()
    assert run_case_full(_case(folder, 'between = "kde"')).result.to_json() == first
    assert json.loads(first)["measurements"]["options"]["between"] == "kde"


@pytest.mark.parametrize("measurements, extra, wanted", [
    ("", '\n[background]\nss = "db.csv"\nds = "db.csv"\n', "remove the score files"),
    ('score = "euclidean"', "", 'score applies to model = "score"'),
    ('model = "score"\nbetween = "kde"', "", "apply to model = \"two_level\""),
    ('model = "score"\nscore = "chebyshev"', "", "choose one of"),
    ('compare = [["Q1", "K9"]]', "", "no measurements of item(s) 'K9'"),
    ('feature_columns = ["a", "c"]', "", "has no 'c' column"),
    ('unit = "fragment"', "", "unit"),
])
def test_bad_measurement_sections_name_the_key_and_the_fix(folder, measurements, extra, wanted):
    with pytest.raises(InputError) as info:
        _case(folder, measurements, extra)
    assert wanted in str(info.value)


def test_an_evidence_score_beside_measurements_is_refused(folder):
    path = folder / "case.toml"
    path.write_text(CASE.format(measurements="").replace(
        'description = "measurements"', 'description = "x"\nscore = 2.0'), encoding="utf-8")
    with pytest.raises(InputError, match=r"\[evidence\] score: a case from \[measurements\]"):
        load_case(path)


def test_a_bad_value_in_the_database_names_file_line_and_column(folder):
    text = (folder / "db.csv").read_text().splitlines()
    text[5] = text[5].rsplit(",", 1)[0] + ",x1.2"
    (folder / "db.csv").write_text("\n".join(text) + "\n")
    with pytest.raises(InputError) as info:
        _case(folder)
    message = str(info.value)
    assert "[measurements] database:" in message and "db.csv" in message
    assert "line 6" in message and "column 'b'" in message and "not a number" in message


def test_the_command_line_exits_2_without_a_traceback(folder, capsys):
    from forensic_lr.cli import main

    (folder / "items.csv").write_text("item,a,b\nQ1,1,2\nK1,1,nan\n")
    path = folder / "case.toml"
    path.write_text(CASE.format(measurements=""), encoding="utf-8")
    assert main(["run", str(path), "--out", str(folder / "out")]) == 2
    err = capsys.readouterr().err
    assert "items:" in err and "Traceback" not in err and "not a finite number" in err


def test_the_shipped_glass_case_reads_and_its_score_is_the_kde_two_level_llr():
    from forensic_lr._resources import examples_dir

    folder = resolve_path(examples_dir() / "glass-measurements")
    spec = load_case(folder / "case.toml")
    population = load_measurements(folder / "database.csv")
    items = load_measurements(folder / "items.csv", source_column="item",
                              feature_columns=population.features, population=False)
    model = TwoLevelModel(between="kde").fit(population)
    want = model.llr(items.values[items.sources == "Q1"], items.values[items.sources == "K1"])
    assert spec.evidence.values == pytest.approx((want,), abs=1e-12)


def test_check_and_validate_case_read_the_measurements_as_run_does(folder, capsys):
    from forensic_lr.cli import main

    spec = _case(folder)
    path = folder / "case.toml"
    main(["check", str(path)])
    assert "read [measurements] database = 'db.csv': 3,160 comparisons" in capsys.readouterr().out
    assert main(["validate", "--case", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    cllr = run_case_full(spec).result.validation.metrics["cllr"]
    assert printed["cllr"] == pytest.approx(cllr, rel=1e-12) and printed["folds_by"] == "source"


def test_several_comparisons_each_get_their_value_and_label(folder):
    items = (folder / "items.csv").read_text().splitlines()
    items += [f"Q2,{row.split(',', 1)[1]}" for row in items[1:3]]  # two rows like K1's
    (folder / "items.csv").write_text("\n".join(items) + "\n")
    extra = ('\n[[propositions.comparison]]\nlabel = "Q1-K1"\nhp = "Q1 from K1"\nhd = "not"\n'
             '[[propositions.comparison]]\nlabel = "Q2-K1"\nhp = "Q2 from K1"\nhd = "not"\n')
    path = folder / "case.toml"
    text = CASE.format(measurements='compare = [["Q1", "K1"], ["Q2", "K1"]]')
    text = text.replace('hp = "Q1 comes from K1"\nhd = "Q1 comes from another window"\n', "")
    path.write_text(text.replace("[evidence]", extra + "[evidence]"), encoding="utf-8")
    spec = load_case(path)
    population = load_measurements(folder / "db.csv")
    rows = np.loadtxt(folder / "items.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    model = TwoLevelModel().fit(population)
    want = (model.llr(rows[3:5], rows[:3]), model.llr(rows[5:7], rows[:3]))
    assert spec.evidence.labels == ("Q1-K1", "Q2-K1")
    assert spec.evidence.values == pytest.approx(want, abs=1e-12)


def test_parquet_database_and_items_give_the_csv_case(folder):
    """The same tables as Parquet files (written by pyarrow): the same evidence value and
    the same background comparisons, with the Parquet files' SHA-256 in the record."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import csv
    import hashlib

    for name in ("db", "items"):
        with open(folder / f"{name}.csv", encoding="utf-8") as handle:
            header, *rows = csv.reader(handle)
        columns = {h: [r[j] for r in rows] for j, h in enumerate(header)}
        pq.write_table(pa.table({h: (pa.array([float(v) for v in c]) if h in ("a", "b")
                                     else pa.array(c)) for h, c in columns.items()}),
                       folder / f"{name}.parquet")
    spec = _case(folder)
    path = folder / "case.toml"
    path.write_text(CASE.format(measurements="").replace('"db.csv"', '"db.parquet"')
                    .replace('"items.csv"', '"items.parquet"'), encoding="utf-8")
    parquet = load_case(path)
    assert parquet.evidence.values == spec.evidence.values
    from forensic_lr.casework.inputs import load_measured

    (data_csv, *_), (data_pq, _, hashes, files, record) = (load_measured(spec),
                                                           load_measured(parquet))
    np.testing.assert_array_equal(data_pq.ss, data_csv.ss)
    np.testing.assert_array_equal(data_pq.ds, data_csv.ds)
    np.testing.assert_array_equal(data_pq.ds_sources, data_csv.ds_sources)
    assert hashes == {f: hashlib.sha256((folder / f).read_bytes()).hexdigest()
                      for f in ("db.parquet", "items.parquet")}
    assert record.database_sha256 == hashes["db.parquet"]
    assert {f["format"] for f in files} == {"parquet"}
