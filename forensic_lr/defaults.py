"""The defaults every face shares: a case file, the command line, the library and the web app.

One definition each, with no imports, so that the command line can show them without
loading the numerical stack.
"""

from __future__ import annotations

__all__ = ["BOUNDS_RULES", "DEFAULT_BOUNDS", "DEFAULT_CALIBRATOR", "DEFAULT_DRAWS",
           "DEFAULT_INTERVAL", "DEFAULT_LEVEL", "DEFAULT_MAX_DIFFERENT", "DEFAULT_SEED"]

#: The calibration method of a case file without ``[method]``, of ``calibrate`` without
#: ``--method`` and of the library's functions without a calibrator.
DEFAULT_CALIBRATOR = "bayes"
#: The rules that bound a reported LR (a case file's ``[method] bounds``, ``--bounds``):
#: empirical lower and upper bounds (Vergeer et al. 2016), invariance verification
#: (Alberink et al. 2025), ``[1/N, N]`` for ``N`` sources (the lir package's N-source
#: bounder), or fixed bounds set by the laboratory (``[method] fixed_bounds``).
BOUNDS_RULES = ("elub", "iv", "n-source", "fixed")
#: The rule of a case file without ``[method] bounds``, of ``calibrate`` without ``--bounds``
#: and of the library's functions.
DEFAULT_BOUNDS = "elub"
#: The default random seed of cases and studies (the case file's ``[uncertainty] seed``): a case
#: and a validation study of the same data use the same folds unless told otherwise.
DEFAULT_SEED = 20261122

#: The level of every interval unless told otherwise (case file, command line, library).
DEFAULT_LEVEL = 0.95
#: The interval of a reported LR unless told otherwise (case file, ``calibrate``, library).
DEFAULT_INTERVAL = "bootstrap"
#: Default number of draws per interval kind (bootstrap replicates, posterior samples).
DEFAULT_DRAWS = {"bootstrap": 1000, "bayes": 4000, "none": 0}

#: Different-source comparisons a case from measurements forms from its population database
#: (``[measurements] max_different``): all of them up to this many, else a sample drawn with the
#: case's seed.
DEFAULT_MAX_DIFFERENT = 20_000
