"""Logarithm constants shared by every layer.

Every LLR in the package is a natural log (``llr``); reports and JSON also give base 10
(``log10_lr = llr / LN10``) and Cllr is in bits (``bits = nats / LN2``). These are the one
definition of the two factors.
"""

from __future__ import annotations

import math

__all__ = ["LN2", "LN10"]

#: ln 10: ``log10(x) = ln(x) / LN10``
LN10 = math.log(10.0)
#: ln 2: ``log2(x) = ln(x) / LN2`` (Cllr and ECE in bits)
LN2 = math.log(2.0)
