"""Measurement tables: one row per measured item, its source's id and its feature values.

A laboratory that starts from measurements (the refractive index and elemental composition
of glass fragments, a drug profile, an ink spectrum) gives one table per population
database or case: a ``source`` column (the window, batch or pen each item came from), an
optional ``item`` column (the fragment a row measures, when an item is measured several
times: its replicates) and one numeric column per feature. The table is read by the
project's one table reader (:func:`forensic_lr.io.tables.read_table`: CSV, TSV, an
``.xlsx`` sheet or a Parquet file, with its rules for encodings, delimiters and decimal
commas), so a bad value is reported with its file, line or row, column and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io.tables import Column, InputProvenance, names, read_table
from ..records import Serialisable

__all__ = ["Measurements", "load_measurements", "measurements_from_arrays"]

@dataclass(frozen=True, eq=False)
class Measurements(Serialisable):
    """Items' feature values with the id of each item's source.

    Attributes
    ----------
    values : numpy.ndarray
        ``(n, d)`` float64: one row per measurement, one column per feature.
    sources : numpy.ndarray
        ``(n,)`` str: the source of each row.
    items : numpy.ndarray
        ``(n,)`` str: the item each row measures (rows of one item are its replicates);
        each row its own item when the table has no item column.
    features : tuple of str
        The features' names, in column order.
    provenance : InputProvenance or None
        What was read (file, SHA-256, columns), None for arrays given in memory.
    """

    values: np.ndarray
    sources: np.ndarray
    items: np.ndarray
    features: tuple[str, ...]
    provenance: InputProvenance | None = field(default=None)

    @property
    def n_sources(self) -> int:
        """Distinct sources."""
        return int(np.unique(self.sources).size)

    def select(self, rows: np.ndarray) -> Measurements:
        """The measurements of ``rows`` (indices or a boolean mask), features unchanged."""
        return Measurements(self.values[rows], self.sources[rows], self.items[rows],
                            self.features, self.provenance)


def _check(values: np.ndarray, sources: np.ndarray, items: np.ndarray,
           features: tuple[str, ...], where: str, rows: np.ndarray | None,
           population: bool = True, unit: str = "line") -> None:
    """The checks a measurement table must pass, whoever made it (file or arrays).

    ``rows``: the file's line (or sheet or Parquet row, ``unit``) of each measurement, for
    messages (None: rows of arrays, numbered from 1); ``population``: also the checks of a
    population database (two sources, one measured twice, no constant feature), which a
    case's few items need not pass.
    """

    def at(i: int) -> str:
        return f"{where}, {unit} {int(rows[i])}" if rows is not None else f"{where}, row {i + 1}"

    blank = np.flatnonzero(np.strings.str_len(np.strings.strip(sources)) == 0)
    if blank.size:
        raise InputError(f"the source id is empty ({blank.size} row(s)); give every "
                         "measurement the id of its source", path=at(int(blank[0])),
                         column="source")
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise InputError(f"value {values[i, j]!r} is not a finite number; correct or remove "
                         "that row", path=at(i), column=features[j])
    if not population:
        return
    n_sources = np.unique(sources).size
    if n_sources < 2:
        raise InputError(f"has {n_sources} source(s); a population of measurements needs at "
                         "least 2 sources (different-source comparisons)", path=where)
    _, per_source = np.unique(sources, return_counts=True)
    if per_source.max() < 2:
        raise InputError("has one measurement per source; at least one source needs two or "
                         "more (same-source comparisons, within-source variation)", path=where)
    flat = np.flatnonzero(np.ptp(values, axis=0) == 0)
    if flat.size:
        raise InputError(f"feature {features[int(flat[0])]!r} has the same value in every row; "
                         "it cannot tell sources apart: remove the column (or choose the "
                         "feature columns with feature_columns)", path=where)


def measurements_from_arrays(values, sources, items=None, features=None) -> Measurements:
    """Measurements given in memory (a numpy array or a pandas DataFrame's columns).

    Parameters
    ----------
    values : array_like
        ``(n, d)`` feature values, or ``(n,)`` for one feature.
    sources : array_like
        ``(n,)`` source ids (any type; compared as text).
    items : array_like, optional
        ``(n,)`` item ids (rows of one item are replicate measurements); default: every
        row its own item.
    features : sequence of str, optional
        Feature names (default ``x1``, ``x2``, ...).

    Raises
    ------
    InputError
        Shapes that disagree, non-finite values, fewer than two sources, no source with two
        measurements, or a feature constant over all rows.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise InputError(f"values must be a (measurements, features) array; got shape "
                         f"{np.shape(values)}")
    n, d = array.shape
    src = np.asarray(sources).astype(str)
    itm = np.arange(n).astype(str) if items is None else np.asarray(items).astype(str)
    for name, ids in (("sources", src), ("items", itm)):
        if ids.shape != (n,):
            raise InputError(f"{name} must give one id per measurement ({n}); got shape "
                             f"{ids.shape}")
    feats = tuple(f"x{j + 1}" for j in range(d)) if features is None else tuple(map(str, features))
    if len(feats) != d:
        raise InputError(f"features names {len(feats)} columns for {d} feature columns")
    _check(array, src, itm, feats, "measurements", None)
    return Measurements(np.ascontiguousarray(array), src, itm, feats)


def _layout(source_column: str | int, item_column: str | int | None,
            feature_columns: tuple[str | int, ...] | None):
    """The columns of a measurement table: source, optional item, the features."""

    def layout(header, width, fail):
        if header is None:
            fail("has no header line; a measurement table needs one naming the source column "
                 "and the feature columns, e.g. source,item,ri,na,mg")
        lowered = [h.lower() for h in header]
        source = Column("source", "text", choice=source_column, option="source_column")
        default_item = ("item" if item_column is None and "item" in lowered
                        and str(source_column).strip().lower() != "item" else None)
        item = Column("item", "text", choice=item_column or default_item,
                      option="item_column")
        cols = [source] + ([item] if item.choice is not None else [])
        if feature_columns is not None:
            chosen = list(feature_columns)
        else:
            taken = {str(c.choice).strip().lower() for c in cols if isinstance(c.choice, str)}
            taken |= {h.lower() for c in cols if isinstance(c.choice, int)
                      for h in [header[c.choice - 1]] if 1 <= c.choice <= width}
            chosen = [h for h in header if h.lower() not in taken]
        if not chosen:
            fail(f"has no feature column besides the source and item columns (columns: "
                 f"{names(header)}); add one numeric column per feature")
        return cols + [Column(f"feature {j + 1}", "number", choice=c, option="feature_columns")
                       for j, c in enumerate(chosen)]

    return layout


def load_measurements(path, *, source_column: str | int = "source",
                      item_column: str | int | None = None,
                      feature_columns=None, decimal: str | None = None,
                      sheet: str | None = None, delimiter: str | None = None,
                      population: bool = True) -> Measurements:
    """Read a measurement table (CSV, TSV, ``.xlsx`` or Parquet) and check it.

    Parameters
    ----------
    path : str or Path
        The table: a header line, then one row per measurement.
    source_column : str or int
        The source-id column, by header name or 1-based position (default ``source``).
    item_column : str or int, optional
        The item-id column (rows of one item are replicate measurements); default the
        column named ``item`` if there is one, else every row is its own item.
    feature_columns : sequence of str or int, optional
        The feature columns; default every other column.
    decimal, sheet, delimiter
        As for score files (:func:`forensic_lr.io.tables.read_table`).
    population : bool
        A population database (default): at least two sources, one of them measured at
        least twice, and no feature with one value in every row. False for a case's
        questioned and control items, which need only finite values and ids.

    Returns
    -------
    Measurements

    Raises
    ------
    InputError
        Naming the file, line (or sheet row) and column: a missing file or column, a value
        that is not a finite number, an empty source id, fewer than two sources, no source
        measured twice, or a feature with one value in every row.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file; check the path", path=str(p))
    if feature_columns is not None:
        feature_columns = tuple(feature_columns)
        if not feature_columns:
            raise InputError("feature_columns is empty; name at least one feature column",
                             path=str(p))
    table = read_table(p, _layout(source_column, item_column, feature_columns),
                       decimal=decimal, sheet=sheet, delimiter=delimiter)
    roles = [r for r in table.values if r.startswith("feature ")]
    features = tuple(table.provenance.columns[r] for r in roles)
    if not table.where.size:
        raise InputError("has a header but no measurements; add one row per measurement",
                         path=table.location)
    values = np.column_stack([table.values[r] for r in roles])
    sources = table.values["source"]
    items = table.values.get("item")
    if items is None:
        items = table.where.astype(str)
    _check(values, sources, items, features, table.location, table.where, population,
           table.unit)
    return Measurements(values, sources, items, features, table.provenance)

