"""Section 7 never says a method "was validated" when the laboratory's criteria fail."""

import warnings

from forensic_lr._resources import examples_dir
from forensic_lr.casework import load_case, run_case_full
from forensic_lr.report import build_report


def test_failed_criteria_say_the_method_is_not_validated_for_the_case():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_case_full(load_case(examples_dir() / "small-background" / "case.toml"))
    assert run.result.validation.all_criteria_met is False
    html = build_report(run, formats=("html",))["report.html"].decode("utf-8")
    assert "The method was validated" not in html
    assert "the method is not validated for this case" in html


def test_validation_report_explains_an_interval_that_misses_its_estimate(tmp_path):
    # PAV-calibrated scores of a small synthetic background (40 SS ~ N(2, 1), 80 DS ~ N(0, 1),
    # numpy's PCG64 seed 1): the replicates' Cllr_cal fall below the estimate (a resample with
    # repeated trials moves the PAV fit), so the percentile interval misses it.
    # Independent value: the interval in validation.json against its estimate.
    import json

    import numpy as np

    from forensic_lr.cli import main

    rng = np.random.default_rng(1)
    ss, ds = tmp_path / "ss.csv", tmp_path / "ds.csv"
    np.savetxt(ss, rng.normal(2, 1, 40), header="score", comments="")
    np.savetxt(ds, rng.normal(0, 1, 80), header="score", comments="")
    out = tmp_path / "report"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["validate", "--ss", str(ss), "--ds", str(ds),
                     "--calibrate", "pav", "--ci", "bootstrap", "--report", str(out),
                     "-q"]) == 0
    study = json.loads((out / "validation.json").read_text(encoding="utf-8"))
    cal = study["intervals"]["intervals"]["cllr_cal"]
    assert not cal["low"] <= cal["estimate"] <= cal["high"]
    html = (out / "validation_report.html").read_text(encoding="utf-8")
    assert "The interval of Cllr_cal does not contain its estimate." in html


def test_validation_report_shows_the_overestimation_curve_with_its_band(tmp_path):
    """The figure of the best method's cross-validated LLRs (plots.llr_overestimation, whose
    drawn arrays tests/metrics/test_overestimation_band.py checks), numbered after the score
    densities."""
    import numpy as np

    from forensic_lr.cli import main

    rng = np.random.default_rng(2)
    ss, ds = tmp_path / "ss.csv", tmp_path / "ds.csv"
    np.savetxt(ss, rng.normal(2, 1, 60), header="score", comments="")
    np.savetxt(ds, rng.normal(0, 1, 200), header="score", comments="")
    out = tmp_path / "report"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["validate", "--ss", str(ss), "--ds", str(ds), "--report", str(out),
                     "-q", "--calibrate", "logistic"]) == 0
    html = (out / "validation_report.html").read_text(encoding="utf-8")
    assert "Figure 8. LLR overestimation of the cross-validated" in html
    assert "95 % fiducial interval" in html
    svg = (out / "figures" / "llr_overestimation.svg").read_text(encoding="utf-8")
    assert "LLR overestimation curve" in svg and "95 % fiducial interval" in svg
