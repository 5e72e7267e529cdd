"""Load the LLRs of two systems on the same trials, paired trial by trial.

A paired comparison (:func:`forensic_lr.validation.bootstrap.compare_systems`) is only valid
when trial ``i`` of system A and trial ``i`` of system B are the same comparison. Three
layouts are accepted, each checked so that a mismatch is an error, never a silent
mis-pairing:

* **two files in the same row order** - row ``r`` of A is row ``r`` of B; both files
  must have the same number of rows and the same label on every row;
* **two files with a shared trial-id column** (``id_column``) - rows are matched by id,
  in any order; ids must be unique in each file and the two files must hold the same
  ids, with the same label for each;
* **one file with two LLR columns** (``columns=("llr_a", "llr_b")``) - one row per trial.

Files are labelled tables (CSV, TSV or whitespace text with a ``label`` column, see
:mod:`forensic_lr.io.scores`) or JSON lists of objects with the same keys. Optional source
columns (``source`` or ``source_a,source_b``) are read as for score files; when both
files have them they must agree trial by trial.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .scores import (
    ColumnChoice,
    LabelledRows,
    ScoreSet,
    check_class_size,
    existing_file,
    json_rows,
    no_table_options,
    read_class_pair,
    read_json,
    table_rows,
    to_natural_llr,
)
from .tables import InputProvenance

__all__ = ["PairedScores", "load_paired_scores", "load_system_scores"]


@dataclass(frozen=True, eq=False)
class PairedScores:
    """Natural-log LLRs of systems A and B on the same trials (index ``i`` = same trial).

    Attributes
    ----------
    a_ss, a_ds, b_ss, b_ds : ndarray
        SS and DS LLRs of each system, paired by position.
    ss_sources, ds_sources : ndarray or None
        Source ids ``(n, 2)`` of the SS and DS trials (None without source columns).
    names : tuple of str
        Names of the systems (the column names in the one-file layout).
    matched_by : str
        How the trials were paired, for the record: ``"row order"``,
        ``"trial id column 'ID'"`` or ``"two LLR columns of one file"``.
    files : dict
        SHA-256 of each file read (path as given -> hex digest of its original bytes).
    inputs : tuple of InputProvenance
        Provenance of each file read (format, encoding, delimiter, decimal, sheet,
        columns).
    """

    a_ss: np.ndarray
    a_ds: np.ndarray
    b_ss: np.ndarray
    b_ds: np.ndarray
    ss_sources: np.ndarray | None
    ds_sources: np.ndarray | None
    names: tuple[str, str]
    matched_by: str
    files: dict[str, str]
    inputs: tuple[InputProvenance, ...] = ()


def _read_trials(path, score_columns: dict[str, ColumnChoice], id_column: str | None,
                 options: dict) -> LabelledRows:
    """Rows of a labelled table or JSON list of objects (see the module docstring).

    ``options``: ``label_column``, ``source_column``, ``decimal``, ``sheet``.
    """
    p = existing_file(path)
    if p.suffix.lower() == ".npy":
        raise InputError(
            "a .npy file holds one class without labels; give a labelled CSV or JSON file",
            path=str(p),
        )
    if p.suffix.lower() == ".json":
        data, provenance = read_json(p)
        if not (isinstance(data, list) and data and all(isinstance(d, dict) for d in data)):
            raise InputError(
                "must be a list of objects with a 'label' and "
                + " and ".join(repr(c or "score") for c in score_columns.values())
                + " key (one object per trial)",
                path=str(p),
            )
        no_table_options(p, {k: options[k] for k in ("source_column", "decimal", "sheet")})
        return json_rows(data, p, provenance, score_columns, id_column,
                          options["label_column"])
    return table_rows(p, score_columns, id_column, **options)


def _match_ids(a: LabelledRows, b: LabelledRows, id_column: str) -> np.ndarray:
    """Row of B holding each row's trial of A (both hold exactly the same ids)."""
    order = np.argsort(b.ids)
    sorted_b = b.ids[order]
    pos = np.minimum(np.searchsorted(sorted_b, a.ids), sorted_b.size - 1)
    found = sorted_b[pos] == a.ids
    for lacking, holder, present in ((b, a, found), (a, b, np.isin(b.ids, a.ids))):
        if not present.all():
            missing = np.flatnonzero(~present)
            raise InputError(
                f"{missing.size} trial id(s) of {holder.path} are not in {lacking.path}, "
                f"the first {str(holder.ids[missing[0]])!r} ({holder.unit} "
                f"{int(holder.where[missing[0]])}); both files must hold the same trials",
                column=id_column,
            )
    return order[pos]


def _check_pairing(a: LabelledRows, b: LabelledRows, rows_b: np.ndarray, how: str) -> None:
    """Same label, and the same sources when both files have them, for every pair."""
    fix = "both files must hold the same trials"
    if how == "row order":
        fix += " in the same order, or a shared trial-id column to match them by (--id)"
    diff = np.flatnonzero(a.is_ss != b.is_ss[rows_b])
    if diff.size:
        i = int(diff[0])
        labels = ("ss" if a.is_ss[i] else "ds", "ss" if b.is_ss[rows_b[i]] else "ds")
        raise InputError(
            f"the trials paired by {how} disagree on the label: {labels[0]} at {a.at(i)} but "
            f"{labels[1]} at {b.at(int(rows_b[i]))} ({diff.size} such trial(s)); {fix}"
        )
    if a.sources is not None and b.sources is not None:
        other = b.sources[rows_b]
        diff = np.flatnonzero(np.any(a.sources != other, axis=1))
        if diff.size:
            i = int(diff[0])
            raise InputError(
                f"the trials paired by {how} name different sources: "
                f"{'/'.join(a.sources[i])} at {a.at(i)} but {'/'.join(other[i])} at "
                f"{b.at(int(rows_b[i]))}; {fix}"
            )


def load_paired_scores(
    *,
    a=None,
    b=None,
    scores=None,
    id_column: str | None = None,
    columns: tuple[str, str] | None = None,
    names: tuple[str, str] | None = None,
    log_base: str = "e",
    score_column: ColumnChoice = None,
    label_column: ColumnChoice = None,
    source_column: ColumnChoice = None,
    decimal: str | None = None,
    sheet: str | None = None,
) -> PairedScores:
    """Read two systems' LLRs on the same trials (layouts in the module docstring).

    Parameters
    ----------
    a, b : path, optional
        Labelled LLR files of systems A and B (``label``, ``score`` columns).
    scores : path, optional
        One labelled file with both systems' LLRs in ``columns`` (instead of ``a``, ``b``).
    id_column : str, optional
        Column (JSON key) with a trial id shared by ``a`` and ``b``: rows are matched by
        it. Without it, rows are matched by order.
    columns : (str, str), optional
        The two LLR columns of ``scores``.
    names : (str, str), optional
        Names of the systems; default ``("A", "B")``, or the column names.
    log_base : {"e", "10", "2"}
        Base of the LLRs in the files; returned as natural logs.
    score_column : str or int, optional
        The LLR column of ``a`` and ``b`` by header name or 1-based position (default
        ``score``).
    label_column, source_column : str or int, optional
        The label and source columns (default ``label``, ``source`` /
        ``source_a,source_b``).
    decimal, sheet : str, optional
        Decimal separator of text tables and sheet of ``.xlsx`` workbooks (as for
        :func:`forensic_lr.scores.load_scores`).

    Returns
    -------
    PairedScores

    Raises
    ------
    InputError
        Naming the file, line and column: a missing column or header, an empty or
        repeated trial id, ids present in one file only, a label or source that differs
        between the two files for the same trial, a class with fewer than 2 trials, or an
        invalid combination of arguments.
    """
    options = {"label_column": label_column, "source_column": source_column,
               "decimal": decimal, "sheet": sheet}
    if scores is not None:
        if a is not None or b is not None or id_column is not None:
            raise InputError(
                "give either one file with two LLR columns (scores, columns) or two files "
                "(a, b), not both"
            )
        if columns is None or len(columns) != 2 or columns[0] == columns[1]:
            raise InputError(
                "name the two LLR columns of the scores file, e.g. columns=('llr_a', 'llr_b')"
            )
        if score_column is not None:
            raise InputError(
                "score_column names the LLR column of two files (a, b); one file with two "
                "LLR columns names them in columns"
            )
        roles = (f"llr {columns[0]}", f"llr {columns[1]}")  # never 'label', 'id', 'source'
        one = _read_trials(scores, dict(zip(roles, columns, strict=True)), None, options)
        first, second = one, one
        rows_b = np.arange(one.is_ss.size)
        columns_ab = roles
        how = "two LLR columns of one file"
        default_names = tuple(str(c) for c in columns)
    elif a is not None and b is not None:
        if columns is not None:
            raise InputError("columns name the two LLR columns of one scores file only")
        first = _read_trials(a, {"score": score_column}, id_column, options)
        second = _read_trials(b, {"score": score_column}, id_column, options)
        if id_column is None:
            how = "row order"
            if first.is_ss.size != second.is_ss.size:
                raise InputError(
                    f"{first.path} has {first.is_ss.size} trials but {second.path} has "
                    f"{second.is_ss.size}; both files must hold the same trials in the same "
                    "order (or give a shared trial-id column)"
                )
            rows_b = np.arange(first.is_ss.size)
        else:
            how = f"trial id column {id_column!r}"
            rows_b = _match_ids(first, second, id_column)
        _check_pairing(first, second, rows_b, how)
        columns_ab = ("score", "score")
        default_names = ("A", "B")
    else:
        raise InputError("give two files (a and b) or one file with two LLR columns (scores)")
    is_ss = first.is_ss
    llr_a = to_natural_llr(first.scores[columns_ab[0]], log_base)
    llr_b = to_natural_llr(second.scores[columns_ab[1]][rows_b], log_base)
    check_class_size(llr_a[is_ss], "same-source (ss)", first.path)
    check_class_size(llr_a[~is_ss], "different-source (ds)", first.path)
    sources = first.sources if first.sources is not None else (
        None if second.sources is None else second.sources[rows_b]
    )
    inputs = tuple({r.provenance.name: r.provenance for r in (first, second)}.values())
    return PairedScores(
        a_ss=llr_a[is_ss],
        a_ds=llr_a[~is_ss],
        b_ss=llr_b[is_ss],
        b_ds=llr_b[~is_ss],
        ss_sources=None if sources is None else sources[is_ss],
        ds_sources=None if sources is None else sources[~is_ss],
        names=tuple(names) if names is not None else default_names,
        matched_by=how,
        files={p.name: p.sha256 for p in inputs},
        inputs=inputs,
    )


def load_system_scores(
    columns: Sequence[ColumnChoice],
    *,
    ss=None,
    ds=None,
    scores=None,
    label_column: ColumnChoice = None,
    source_column: ColumnChoice = None,
    decimal: str | None = None,
    sheet: str | None = None,
) -> tuple[np.ndarray, np.ndarray, ScoreSet]:
    """Several systems' scores of the same comparisons, one column each, every file read once.

    Parameters
    ----------
    columns : sequence of str or int
        The score column of each system (header name or 1-based position), at least one.
    ss, ds, scores : path
        One file per class, or one labelled file (``label`` column), as for
        :func:`~forensic_lr.io.scores.load_scores`: tables (CSV, TSV, text, ``.xlsx``) or,
        for a labelled file, a JSON list of objects with a key per system.
    label_column, source_column, decimal, sheet
        As for :func:`~forensic_lr.io.scores.load_scores`.

    Returns
    -------
    ss, ds : numpy.ndarray
        ``(n_ss, k)`` and ``(n_ds, k)`` raw scores (no direction applied), one column per
        system in the order of ``columns``.
    first : ScoreSet
        The first system's scores as :func:`~forensic_lr.io.scores.load_scores` returns
        them with ``score_column = columns[0]``: sources, hashes and provenance (whose
        ``columns`` name the first system's column as ``score``, as that call records it).

    Raises
    ------
    InputError
        What :func:`~forensic_lr.io.scores.load_scores` refuses, naming the file, line and
        column; a ``.npy`` file or a JSON file of one class (they hold one score per
        comparison).
    """
    roles = {"score": columns[0], **{f"score {j + 1}": c for j, c in enumerate(columns[1:], 1)}}
    if scores is not None:
        if ss is not None or ds is not None:
            raise InputError("give either one labelled file (scores) or two files (ss and ds), "
                             "not both")
        rows = _read_trials(scores, roles, None, {
            "label_column": label_column, "source_column": source_column,
            "decimal": decimal, "sheet": sheet})
        matrix = np.column_stack([rows.scores[role] for role in roles])
        is_ss = rows.is_ss
        for name, part in (("same-source (ss)", is_ss), ("different-source (ds)", ~is_ss)):
            check_class_size(matrix[part, 0], name, rows.path)
        provenance = _first_column(rows.provenance, roles)
        sources = rows.sources
        first = ScoreSet(matrix[is_ss, 0], matrix[~is_ss, 0],
                         {provenance.name: provenance.sha256},
                         None if sources is None else sources[is_ss],
                         None if sources is None else sources[~is_ss], (provenance,))
        return matrix[is_ss], matrix[~is_ss], first
    if ss is None or ds is None:
        raise InputError("give both an ss and a ds file, or one labelled scores file")
    more = {role: c for role, c in roles.items() if role != "score"}
    pair = read_class_pair(ss, ds, score_column=columns[0], source_column=source_column,
                           decimal=decimal, sheet=sheet, more=more)
    for (name, where), read in zip((("same-source (ss)", ss), ("different-source (ds)", ds)),
                                   pair, strict=True):
        check_class_size(read.values, name, str(where))
    ss_read, ds_read = (dataclasses.replace(r, provenance=_first_column(r.provenance, roles))
                        for r in pair)
    inputs = (ss_read.provenance, ds_read.provenance)
    first = ScoreSet(ss_read.values, ds_read.values, {p.name: p.sha256 for p in inputs},
                     ss_read.sources, ds_read.sources, inputs)
    ss_matrix, ds_matrix = (np.column_stack([r.values, *r.more.values()]) for r in pair)
    return ss_matrix, ds_matrix, first


def _first_column(provenance: InputProvenance, roles: dict) -> InputProvenance:
    """``provenance`` with only the first system's score column (as ``score``)."""
    columns = {k: v for k, v in provenance.columns.items() if k == "score" or k not in roles}
    return InputProvenance(**{**provenance.to_dict(), "columns": columns})
