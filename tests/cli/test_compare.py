"""Command line: `forensic-lr compare` and `validate --ci bootstrap`.

Expected values are independent of the code under test: metrics from
forensic_lr.evaluate (checked elsewhere against hand values) on the same files,
AUCs from scikit-learn's roc_auc_score.
"""

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from forensic_lr.cli import main
from forensic_lr.metrics import evaluate


def _write(path, labels, scores, sources=None):
    header = "label,score" + (",source_a,source_b" if sources is not None else "")
    lines = [header]
    for i, (label, score) in enumerate(zip(labels, scores, strict=True)):
        extra = f",{sources[i][0]},{sources[i][1]}" if sources is not None else ""
        lines.append(f"{label},{float(score)!r}{extra}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def two_systems(tmp_path):
    rng = np.random.default_rng(9)
    ids = [f"g{i}" for i in range(8)]
    labels, good, sources = [], [], []
    for i in range(8):
        for _ in range(4):
            labels.append("ss")
            good.append(2.0 + rng.normal(0, 1))
            sources.append((ids[i], ids[i]))
    for i in range(8):
        for j in range(i + 1, 8):
            labels.append("ds")
            good.append(-2.0 + rng.normal(0, 1))
            sources.append((ids[i], ids[j]))
    good = np.array(good)
    poor = 0.4 * good + rng.normal(0, 1, good.size)
    a = _write(tmp_path / "a.csv", labels, good, sources)
    b = _write(tmp_path / "b.csv", labels, poor, sources)
    return a, b, np.array(labels), good, poor


def test_compare_json(two_systems, capsys):
    a, b, labels, good, poor = two_systems
    assert main(["compare", "--a", str(a), "--b", str(b), "--n", "200", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    is_ss = labels == "ss"
    ev_a, ev_b = evaluate(good[is_ss], good[~is_ss]), evaluate(poor[is_ss], poor[~is_ss])
    assert out["by"] == "source"  # source columns present
    assert out["metrics_a"]["cllr"] == pytest.approx(ev_a.cllr)
    assert out["cllr_diff"]["estimate"] == pytest.approx(ev_a.cllr - ev_b.cllr)
    assert out["cllr_diff"]["high"] < 0 and out["cllr_diff"]["outcome"] == "better"
    y = is_ss.astype(int)
    assert out["delong"]["auc_a"] == pytest.approx(roc_auc_score(y, good))
    assert out["delong"]["auc_b"] == pytest.approx(roc_auc_score(y, poor))
    assert "A has the lower Cllr" in out["verdict"]
    assert set(out["inputs"]) == {str(a), str(b)}


def test_compare_text_and_plot(two_systems, capsys, tmp_path):
    a, b, *_ = two_systems
    plot = tmp_path / "cmp.svg"
    args = ["compare", "--a", str(a), "--b", str(b), "--n", "100", "--by", "trial",
            "--names", "new,old", "--plot", str(plot)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "bootstrap by trial" in text and "DeLong" in text and "new has the lower" in text
    assert plot.read_text().startswith("<?xml")
    assert main(args) == 2  # the plot exists: refused without --force
    assert "--force" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0


def test_compare_mismatched_files(two_systems, tmp_path, capsys):
    a, _, labels, good, _ = two_systems
    short = _write(tmp_path / "short.csv", labels[:-1], good[:-1])
    assert main(["compare", "--a", str(a), "--b", str(short)]) == 2
    assert "same trials" in capsys.readouterr().err


def test_validate_ci_bootstrap_json(two_systems, capsys):
    a, _, labels, good, _ = two_systems
    args = ["validate", "--scores", str(a), "--ci", "bootstrap", "--by", "trial", "--n", "200",
            "--seed", "3", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    ci = out["ci"]
    assert ci["by"] == "trial" and ci["n"] == 200 and ci["seed"] == 3
    is_ss = labels == "ss"
    expected = evaluate(good[is_ss], good[~is_ss])
    assert ci["intervals"]["cllr"]["estimate"] == pytest.approx(expected.cllr)
    assert ci["intervals"]["cllr"]["low"] <= expected.cllr <= ci["intervals"]["cllr"]["high"]
    assert main(args) == 0  # same seed, same intervals
    assert json.loads(capsys.readouterr().out)["ci"] == ci


def test_validate_by_source_needs_source_columns(tmp_path, capsys):
    path = _write(tmp_path / "plain.csv", ["ss", "ss", "ds", "ds"], [1.0, 2.0, -1.0, 0.5])
    assert main(["validate", "--scores", str(path), "--ci", "bootstrap", "--by", "source"]) == 2
    assert "source" in capsys.readouterr().err


def test_validate_raw_scores_folds_by_source(two_systems, capsys):
    a, *_ = two_systems
    args = ["validate", "--scores", str(a), "--calibrate", "gaussian", "--folds", "0",
            "--ci", "bootstrap", "--n", "100", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["folds_by"] == "source"
    assert out["ci"]["by"] == "source"
