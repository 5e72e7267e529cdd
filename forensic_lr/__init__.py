"""forensic-lr: calibrated likelihood ratios, method validation and expert reports.

The public API, importable from here (each name is imported on first use, so that
``forensic-lr --version`` and ``import forensic_lr`` stay fast):

* reading data: :func:`load_scores`, :func:`load_case`, :func:`load_measurements` (feature
  values: the sub-package ``features`` forms pairs by source, scores them and holds the
  two-level model :class:`TwoLevelModel`);
* calibration: :func:`make_calibrator`, :data:`CALIBRATORS`, :func:`save_calibrator` and
  :func:`load_calibrator` (a fitted calibrator as JSON, no pickle);
* the evidence and the case: :func:`evaluate_evidence`, :func:`run_case`, :func:`run_case_full`;
* validation: :func:`evaluate_llrs` (every metric of a set of LLRs at once; ``evaluate`` is
  its older name, kept as an alias), :func:`bootstrap_metrics`, :func:`compare_systems`,
  :func:`run_validation_study`;
* uncertainty: :func:`cross_validated_llr`, :func:`bootstrap_interval`;
* reports: :func:`write_case_report` (of ``run_case_full``'s run),
  :func:`write_validation_report` (of a study): the files the command line writes;
* the defaults every face shares (a case file's): :data:`DEFAULT_CALIBRATOR`,
  :data:`DEFAULT_SEED`. A function that takes a calibrator takes a name or an object, right
  after the data (``cross_validated_llr(ss, ds, "logistic")``);
* sub-packages: ``io``, ``features``, ``metrics``, ``calibration``, ``validation``,
  ``casework``, ``plots``, ``report``, ``studies``, ``records``.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_API = {
    "evaluate_llrs": "metrics",
    "evaluate": "metrics",  # the older name of evaluate_llrs
    "load_scores": "io",
    "load_measurements": "features",
    "TwoLevelModel": "features",
    "load_case": "casework",
    "make_calibrator": "calibration",
    "CALIBRATORS": "calibration",
    "DEFAULT_CALIBRATOR": "calibration",
    "DEFAULT_SEED": "resampling",
    "evaluate_evidence": "casework",
    "run_case": "casework",
    "run_case_full": "casework",
    "bootstrap_metrics": "validation",
    "compare_systems": "validation",
    "run_validation_study": "validation",
    "cross_validated_llr": "uncertainty",
    "bootstrap_interval": "uncertainty",
    "write_case_report": "report.files",
    "write_validation_report": "report.files",
    "save_calibrator": "output",
    "load_calibrator": "output",
}
_SUBPACKAGES = (
    "calibration", "casework", "features", "io", "metrics", "plots", "records", "report",
    "studies", "uncertainty", "validation",
)

__all__ = ["__version__", *sorted(_API)]


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(importlib.import_module(f".{_API[name]}", __name__), name)
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'forensic_lr' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBPACKAGES})
