"""The validation-study report: numbers checked by hand formulas, criteria, PDF text, CLI."""

import io
import json

import numpy as np
import pytest
from pypdf import PdfReader

from forensic_lr.calibration import make_calibrator
from forensic_lr.casework.spec import Criteria
from forensic_lr.cli import main
from forensic_lr.report import pdf
from forensic_lr.report.validation import build_validation_report
from forensic_lr.uncertainty import cross_validated_llr
from forensic_lr.validation import run_validation_study

METHODS = ("gaussian", "logistic", "pav")
FOLDS, SEED = 3, 7


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(2024)
    return rng.normal(2.0, 1.0, 60), rng.normal(0.0, 1.0, 150)


@pytest.fixture(scope="module")
def study(scores):
    ss, ds = scores
    criteria = Criteria(cllr_max=0.6, eer_max=0.01, auc_min=0.8)
    files = build_validation_report(run_validation_study(
        ss, ds, methods=METHODS, folds=FOLDS, seed=SEED, criteria=criteria,
        inputs={"ss.csv": "ab" * 32, "ds.csv": "cd" * 32},
    ))
    return files, json.loads(files["validation.json"])


def cllr_by_hand(ss_llr, ds_llr):
    """Cllr (Brummer and du Preez 2006, eq. 21) written directly with numpy, in bits."""
    ss_cost = np.mean(np.log2(1 + np.exp(-ss_llr)))
    ds_cost = np.mean(np.log2(1 + np.exp(ds_llr)))
    return 0.5 * (ss_cost + ds_cost)


def test_each_method_cllr_matches_the_formula_on_its_out_of_fold_llrs(scores, study):
    ss, ds = scores
    _, record = study
    assert [m["method"] for m in record["methods"]] == list(METHODS)
    for entry in record["methods"]:
        ss_llr, ds_llr = cross_validated_llr(
            ss, ds, make_calibrator(entry["method"]), FOLDS, SEED
        )
        finite = np.isfinite(ss_llr).all() and np.isfinite(ds_llr).all()
        if finite:  # PAV can give infinite LLRs; the hand formula is for finite ones
            assert entry["metrics"]["cllr"] == pytest.approx(cllr_by_hand(ss_llr, ds_llr),
                                                             rel=1e-9)
        # AUC by brute force over all SS x DS pairs (ties count one half)
        diff = ss_llr[:, None] - ds_llr[None, :]
        auc = np.mean(diff > 0) + 0.5 * np.mean(diff == 0)
        assert entry["metrics"]["auc"] == pytest.approx(auc, abs=1e-12)


def test_best_method_is_the_lowest_cllr(study):
    _, record = study
    cllrs = {m["method"]: m["metrics"]["cllr"] for m in record["methods"]}
    assert record["best_method"] == min(cllrs, key=cllrs.get)
    assert (record["n_ss"], record["n_ds"], record["folds"], record["seed"]) == (60, 150, 3, 7)


def test_criteria_met_or_not_by_hand(study):
    _, record = study
    # by hand: separation 2 sd gives EER ~ 16 % (Phi(-1)), far above 1 %; AUC ~ Phi(2/sqrt 2)
    # = 0.92 > 0.8; Cllr of a calibrated 2-sd system ~ 0.5 bits < 0.6 (all checked below
    # against the metrics themselves, not assumed)
    for entry in record["methods"]:
        m = entry["metrics"]
        decisions = {c["name"]: c["met"] for c in entry["criteria"]}
        assert decisions == {
            "cllr_max": m["cllr"] <= 0.6,
            "eer_max": m["eer"] <= 0.01,
            "auc_min": m["auc"] >= 0.8,
        }
        assert decisions["eer_max"] is False and decisions["auc_min"] is True
        assert entry["all_criteria_met"] is False


def test_pdf_shows_the_comparison_table_and_page_numbers(study):
    files, record = study
    reader = PdfReader(io.BytesIO(files["validation_report.pdf"]))
    n = len(reader.pages)
    pages = [page.extract_text() for page in reader.pages]
    for i, text in enumerate(pages, start=1):
        assert f"Page {i} of {n}" in text
    text = " ".join(" ".join(pages).split())
    for entry in record["methods"]:
        assert entry["method"] in text
        assert f"{entry['metrics']['cllr']:.3f}" in text
    assert "not met" in text
    assert record["best_method"] in text


def test_files_and_figures(study):
    files, _ = study
    html = files["validation_report.html"].decode()
    for name in ("tippett", "ece", "ape", "det", "pav", "score_densities"):
        assert f"figures/{name}.svg" in files
    assert html.count("<svg") >= 6 and "<?xml" not in html and "<script" not in html


def test_render_is_deterministic(scores, study):
    ss, ds = scores
    files, _ = study
    again = build_validation_report(run_validation_study(
        ss, ds, methods=METHODS, folds=FOLDS, seed=SEED,
        criteria=Criteria(cllr_max=0.6, eer_max=0.01, auc_min=0.8),
        inputs={"ss.csv": "ab" * 32, "ds.csv": "cd" * 32},
    ), formats=("html", "json"))
    assert again["validation.json"] == files["validation.json"]
    assert again["validation_report.html"] == files["validation_report.html"]


def test_cli_report_with_criteria_file(tmp_path, scores, monkeypatch):
    # the PDF itself is checked above; here a stub keeps the command-line test fast
    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, roots, **_: b"%PDF-stub")
    ss, ds = scores
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    (tmp_path / "criteria.toml").write_text("cllr_max = 0.9\n")
    out = tmp_path / "study"
    code = main([
        "--quiet", "validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
        "--report", str(out), "--compare", "gaussian", "--folds", "3",
        "--criteria", str(tmp_path / "criteria.toml"),
    ])
    assert code == 0
    record = json.loads((out / "validation.json").read_text())
    assert record["criteria"] == {"cllr_max": 0.9}
    assert (out / "validation_report.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "figures" / "tippett.svg").is_file()


def test_cli_bad_criteria_file_names_the_file(tmp_path, scores, capsys):
    ss, ds = scores
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    bad = tmp_path / "criteria.toml"
    bad.write_text("cllr_maximum = 0.5\n")
    code = main([
        "validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
        "--report", str(tmp_path / "out"), "--compare", "gaussian", "--criteria", str(bad),
    ])
    assert code != 0
    err = capsys.readouterr().err
    assert "criteria.toml" in err and "cllr_max" in err
    assert not (tmp_path / "out").exists()


def test_intervals_and_paired_comparisons_of_the_best_method(scores):
    # Differences are best - other on the same trials: their estimates equal the
    # differences of the metrics in the method table; an interval below 0 means "better".
    ss, ds = scores
    files = build_validation_report(run_validation_study(
        ss, ds, methods=METHODS, folds=FOLDS, seed=SEED, metric_intervals={"n": 300, "seed": 4},
    ), formats=("json", "html"))
    record = json.loads(files["validation.json"])
    metrics = {m["method"]: m["metrics"] for m in record["methods"]}
    best = record["best_method"]
    others = [m for m in METHODS if m != best]
    assert [c["names"] for c in record["comparisons"]] == [[best, o] for o in others]
    for c in record["comparisons"]:
        other = c["names"][1]
        diff = c["cllr_diff"]
        assert diff["estimate"] == pytest.approx(metrics[best]["cllr"] - metrics[other]["cllr"])
        assert diff["estimate"] <= 0  # the best has the lowest Cllr
        expected = ("better" if diff["high"] < 0 else "worse" if diff["low"] > 0
                    else "not distinguishable")
        assert diff["outcome"] == expected
        assert c["min_cllr_diff"]["estimate"] == pytest.approx(
            metrics[best]["min_cllr"] - metrics[other]["min_cllr"])
    html = files["validation_report.html"].decode()
    assert f"Is {best} better than the others?" in html
    assert record["intervals"]["n"] == 300


def test_cli_report_identity_matrix_and_limitations(tmp_path, scores, monkeypatch):
    monkeypatch.setattr(pdf, "html_to_pdf", lambda html, roots, **_: b"%PDF-stub")
    ss, ds = scores
    np.savetxt(tmp_path / "ss.csv", ss)
    np.savetxt(tmp_path / "ds.csv", ds)
    (tmp_path / "criteria.toml").write_text("eer_max = 0.25\n")
    out = tmp_path / "study"
    assert main([
        "--quiet", "validate", "--ss", str(tmp_path / "ss.csv"), "--ds", str(tmp_path / "ds.csv"),
        "--report", str(out), "--compare", "gaussian", "--folds", "3",
        "--criteria", str(tmp_path / "criteria.toml"), "--title", "Study <X>",
        "--laboratory", "Lab L", "--analyst", "B. Analyst", "--date", "2026-11-23",
        "--data-description", "200 comparisons of synthetic scores",
    ]) == 0
    record = json.loads((out / "validation.json").read_text())
    assert record["about"] == {"title": "Study <X>", "laboratory": "Lab L",
                               "analyst": "B. Analyst", "date": "2026-11-23",
                               "data": "200 comparisons of synthetic scores"}
    rows = {(r["characteristic"], r["metric"]): r for r in record["validation_matrix"]}
    eer = record["methods"][0]["metrics"]["eer"]
    assert rows[("discriminating power", "eer")]["criterion"] == "<= 25 %"
    assert rows[("discriminating power", "eer")]["decision"] == ("met" if eer <= 0.25
                                                                 else "not met")
    assert rows[("accuracy", "cllr")]["decision"] == "no criterion"
    for characteristic in ("robustness", "coherence", "generalisation"):
        assert rows[(characteristic, None)]["decision"] == "not assessed"
    html = (out / "validation_report.html").read_text()
    assert "<h1>Study &lt;X&gt;</h1>" in html
    assert "200 comparisons of synthetic scores" in html
    assert f"{100 * eer:.1f} %" in html  # the matrix result in the report's unit
    assert "3 Limitations" in html and "Sign-off" in html
