"""Casework: the case file, verbal scales, the evaluation of evidence and the case pipeline.

* :func:`load_case` - read and validate a case file into a :class:`CaseSpec`;
* :func:`evaluate_evidence` - fit a calibrator and give each evidence score its LR, ELUB
  bounds, interval and warnings (the code behind ``forensic-lr calibrate``);
* :func:`run_case` / :func:`run_case_full` - the whole case: evidence, cross-validation,
  criteria and provenance;
* :func:`open_case` - a case file read and checked for a final report (or a draft), its
  :class:`CaseJob` runs it and marks a draft: what ``forensic-lr run``, a batch, ``verify``
  and the web app share.
"""

from __future__ import annotations

from .evidence import evaluate_evidence
from .job import CaseJob, open_case
from .pipeline import CaseRun, run_case, run_case_full
from .spec import CaseSpec, Criteria, case_from_dict, case_template, load_case
from .verbal import VerbalScale, format_lr, load_scale, verbal_equivalent

__all__ = [
    "CaseJob",
    "CaseRun",
    "CaseSpec",
    "Criteria",
    "VerbalScale",
    "case_from_dict",
    "case_template",
    "evaluate_evidence",
    "format_lr",
    "load_case",
    "load_scale",
    "open_case",
    "run_case",
    "run_case_full",
    "verbal_equivalent",
]
