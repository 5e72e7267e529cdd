"""Exceptions and warnings raised by forensic-lr.

User mistakes (bad input files, bad case files, impossible options) raise
:class:`ForensicLRError` or a subclass. The command line catches exactly this
class, prints the message without a traceback and exits with status 2; anything
else is a bug and keeps its traceback.
"""

from __future__ import annotations


class ForensicLRError(Exception):
    """A problem with the user's input or options; the message says how to fix it."""


class InputError(ForensicLRError, ValueError):
    """Invalid input data: names the file, line/row, column and value where known.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    path : str, optional
        The file the value came from.
    line : int, optional
        1-based line number in that file.
    column : str, optional
        Column name (or index) of the value.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class NotFittedError(ForensicLRError, RuntimeError):
    """A calibrator was used before :meth:`fit` was called."""


class ConvergenceError(ForensicLRError, RuntimeError):
    """An iterative fit did not converge; the message names the method and the remedy."""


class ForensicLRWarning(UserWarning):
    """Base class of the warnings forensic-lr returns in its results and also raises."""


class ExtrapolationWarning(ForensicLRWarning):
    """A score lies outside the range of the background data used to fit the model."""


class SmallSampleWarning(ForensicLRWarning):
    """A background class has too few scores for a stable estimate."""


class RawScoreWarning(ForensicLRWarning):
    """Values given as natural-log LRs do not look like calibrated LLRs (raw scores?)."""


class SwappedClassesWarning(ForensicLRWarning):
    """Same-source values lie below different-source ones on average: swapped classes, or
    distances given without their direction?"""


def excerpt(value, limit: int = 40) -> str:
    """A short, printable, quoted excerpt of ``value`` for an error message.

    Control and other non-printable characters are shown as escapes (``repr``), and a
    value longer than ``limit`` characters is cut with its length noted, so a message never
    echoes a whole line or a megabyte-long field: ``'2,0014'``, ``'aaaa...' (200000
    characters)``.
    """
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"
