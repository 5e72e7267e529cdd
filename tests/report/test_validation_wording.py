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
