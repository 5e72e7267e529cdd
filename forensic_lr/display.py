"""How a result shows itself in a notebook or a terminal: one small table per result.

A result class that users get from the API (the evaluation of evidence scores, the metrics
of a set of LLRs, a validation study, a case, a set of scores) builds one :class:`Table` of
its numbers in ``_table()``; the :class:`Tabular` mixin turns that table into

* ``repr()``: a title line and a few aligned rows, numbers to 4 significant figures, never a
  whole array (at most :data:`TEXT_ROWS` rows, then how many more);
* ``_repr_html_()``: the same rows as a small HTML table (Jupyter shows it; at most
  :data:`HTML_ROWS` rows), every text escaped;
* ``to_frame()``: every row as a pandas DataFrame with the unrounded values. pandas is
  optional: it is imported here, when called, and its absence is a clear error.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

from .errors import ForensicLRError

__all__ = ["HTML_ROWS", "TEXT_ROWS", "Table", "Tabular", "short_number", "warning_notes"]

#: Most rows ``repr()`` prints; the rest are counted ("... 12 more rows").
TEXT_ROWS = 10
#: Most rows the notebook's HTML table shows.
HTML_ROWS = 20


def short_number(value: Any) -> str:
    """A cell as text: floats to 4 significant figures (``inf``, ``-inf``, ``nan`` as such),
    None as ``"-"``, booleans as ``"yes"``/``"no"``, anything else as ``str``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}" if math.isfinite(value) else str(value)
    return str(value)


def warning_notes(warnings: tuple[str, ...], shown: int = 3) -> tuple[str, ...]:
    """The first ``shown`` warnings, each cut to one short line, and how many more."""
    notes = tuple(f"warning: {w if len(w) <= 110 else w[:107] + '...'}"
                  for w in warnings[:shown])
    more = len(warnings) - shown
    return notes + ((f"... {more} more warnings (.warnings)",) if more > 0 else ())


@dataclass(frozen=True)
class Table:
    """A result's numbers: a title, column names, rows of plain values and notes."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        """The title, the first :data:`TEXT_ROWS` rows aligned, and the notes."""
        shown = [[short_number(v) for v in row] for row in self.rows[:TEXT_ROWS]]
        widths = [max(len(c), *(len(r[i]) for r in shown)) for i, c in enumerate(self.columns)]
        lines = [self.title]
        for cells in [list(self.columns), *shown]:
            lines.append("  " + "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip())
        hidden = len(self.rows) - len(shown)
        if hidden:
            lines.append(f"  ... {hidden} more row{'s' if hidden > 1 else ''} (to_frame() "
                         "gives every row)")
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)

    def html(self) -> str:
        """A small HTML table: caption, header, the first :data:`HTML_ROWS` rows, notes."""
        esc = html.escape
        head = "".join(f"<th>{esc(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(
                f"<td style='text-align:{'left' if i == 0 else 'right'}'>"
                f"{esc(short_number(v))}</td>" for i, v in enumerate(row)
            ) + "</tr>"
            for row in self.rows[:HTML_ROWS]
        )
        hidden = len(self.rows) - min(len(self.rows), HTML_ROWS)
        notes = ([f"{hidden} more rows: to_frame() gives every row"] if hidden else [])
        notes += list(self.notes)
        foot = "".join(f"<p>{esc(n)}</p>" for n in notes)
        return (f"<div><table><caption style='text-align:left'>{esc(self.title)}</caption>"
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{foot}</div>")

    def frame(self) -> Any:
        """Every row as a pandas DataFrame, indexed by the first column (values unrounded)."""
        try:
            import pandas as pd
        except ImportError:
            raise ForensicLRError(
                "to_frame() needs pandas, which is not installed: install it with "
                "'pip install pandas' (forensic-lr itself does not need it), or read the "
                "values from the result's fields or to_dict()"
            ) from None
        return pd.DataFrame(list(self.rows), columns=list(self.columns)).set_index(
            self.columns[0])


class Tabular:
    """Mixin: ``repr``, ``_repr_html_`` and ``to_frame`` from the class's ``_table()``.

    A dataclass using it must be declared with ``repr=False`` (else the dataclass writes
    its own ``__repr__`` over this one).
    """

    __slots__ = ()

    def _table(self) -> Table:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self._table().text()

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """The result as a small HTML table (Jupyter calls this to show it)."""
        return self._table().html()

    def to_frame(self) -> Any:
        """The result's table as a pandas DataFrame (every row, values unrounded).

        pandas is optional: raises :class:`~forensic_lr.errors.ForensicLRError` when it
        is not installed.
        """
        return self._table().frame()
