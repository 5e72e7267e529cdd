"""Logarithm constants and the one log10 formatter, shared by every layer.

Every LLR in the package is a natural log (``llr``); reports and JSON also give base 10
(``log10_lr = llr / LN10``) and Cllr is in bits (``bits = nats / LN2``). These are the one
definition of the two factors. :func:`format_log10` is the one way a logarithm of an LR is
printed (reports, messages, the command line): fixed decimals, never ``"-0.00"``, and in
scientific form beyond :data:`HUGE_LOG10`.
"""

from __future__ import annotations

import math

__all__ = ["HUGE_LOG10", "LN2", "LN10", "fixed", "format_log10", "interval_misses", "scientific",
           "signed_log10"]

#: ln 10: ``log10(x) = ln(x) / LN10``
LN10 = math.log(10.0)
#: ln 2: ``log2(x) = ln(x) / LN2`` (Cllr and ECE in bits)
LN2 = math.log(2.0)

#: From this |log10 LR| on, texts write the logarithm itself in scientific form: an LR of
#: ``10^(2.3 × 10^299)`` rather than an exponent of 300 digits.
HUGE_LOG10 = 1e6


def fixed(value: float, digits: int, *, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals, ``+`` before positive values when ``sign``.

    A value that rounds to zero is printed without a minus sign: ``fixed(-0.0004, 3)`` is
    ``"0.000"`` (``"+0.000"`` with ``sign``), never ``"-0.000"``.
    """
    text = f"{value:{'+' if sign else ''}.{digits}f}"
    if text.lstrip("+-").strip("0.") == "":  # rounds to zero
        text = ("+" if sign else "") + text.lstrip("+-")
    return text


def scientific(x: float) -> str:
    """``x > 0`` to two significant figures as ``"2.3 × 10^299"``."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}"


def format_log10(value: float, places: int = 3, *, sign: bool = False) -> str:
    """A logarithm (of an LR) as fixed-point text with ``places`` decimals.

    Reports and messages print a log10 LR in :func:`signed_log10`'s form (two decimals,
    signed, ``"+0.00"`` for a value that rounds to zero, never ``"-0.00"``). Beyond
    :data:`HUGE_LOG10` in size (an evidence score far outside the background under a
    linear model) the value is written ``"2.3 × 10^299"`` so that no text prints hundreds
    of digits; ``sign`` adds ``+`` to positive values.
    """
    x = float(value)
    if math.isfinite(x) and abs(x) >= HUGE_LOG10:
        text = scientific(abs(x))
        return ("-" if x < 0 else "+" if sign else "") + text
    return fixed(x, places, sign=sign)


def signed_log10(value: float) -> str:
    """A log10 LR as reports and messages print it: ``format_log10(value, 2, sign=True)``.

    ``"+1.23"``, ``"-0.40"``, ``"+0.00"`` (never ``"-0.00"``), ``"+2.3 × 10^300"``.
    """
    return format_log10(value, 2, sign=True)


def interval_misses(estimate: float | None, low: float | None, high: float | None,
                    digits: int | None = None) -> bool:
    """Whether the interval ``[low, high]`` misses its ``estimate``, all as printed.

    The one rule of every face (reports, command line) for marking an estimate that lies
    outside its own interval (bias-corrected bootstrap intervals, and posterior intervals
    around a posterior-predictive estimate, can do that). The three values are compared
    rounded to the ``digits`` decimals they are printed with (None: as they are): the mark
    explains what the reader sees. Rounding keeps order, so a miss in print is a miss in
    the values; an estimate of 0.12344 below a low end of 0.12346, both printed 0.123, is
    not marked. An undefined value (None, NaN) marks nothing; an infinite end is an end
    (0.05 misses ``[0.1, inf]``).
    """
    values = (estimate, low, high)
    if any(v is None or v != v for v in values):
        return False
    if digits is not None:
        values = tuple(round(float(v), digits) for v in values)
    value, lo, hi = values
    return not lo <= value <= hi
