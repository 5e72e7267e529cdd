"""Read the columns of an Apache Parquet file as blocks of cells, for the one table reader.

Parquet [1]_ stores a table by columns, each with a type. It is read with pyarrow, an
optional dependency (``pip install forensic-lr[parquet]``); without it a ``.parquet`` file
is an input error that says so, never a traceback. The file's bytes are read once: the
SHA-256 recorded is that of exactly the bytes parsed.

A Parquet file always names its columns, so its column names are the header (even names
that look like numbers, such as pandas' ``"0"``, ``"1"``); ``__index_level_0__`` and
the like, pandas' unnamed index stored beside the data, are not columns of the table. Rows
are numbered from 1, the first row of data (the names are not a row).

The cells of a wanted column come as one array per block of rows (a record batch):

* a column of numbers (float or integer type) without missing values, read as numbers:
  float64, exact (integers above 2**53 rounded as Python's ``float`` rounds them);
* anything else as text, by the rules of a score file's text (so the same values give the
  same numbers and the same messages): floats as the shortest text that gives back the
  same double, integers and decimals as written, booleans ``true``/``false``, dates in ISO
  form, a missing value (null) as an empty cell, dictionary-encoded (categorical) columns
  by their values. A column of lists, structs or maps is refused naming it.

References
----------
.. [1] Apache Parquet, "File Format" specification, version 2 (parquet-format 2.10).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import numpy as np

from ..errors import InputError, excerpt

#: file name endings read as Parquet files
PARQUET_SUFFIXES = (".parquet", ".pq")

#: rows per block
BLOCK_ROWS = 1 << 16

INSTALL_HINT = "pip install forensic-lr[parquet]"

#: pandas' name for an index without a name, stored beside the data
_PANDAS_INDEX = re.compile(r"^__index_level_\d+__$")


def _pyarrow(path: str):
    """``(pyarrow, pyarrow.parquet, pyarrow.compute)``, or an InputError with the fix."""
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.parquet
    except ImportError:
        raise InputError(
            "is a Parquet file; reading Parquet needs the optional package pyarrow: "
            f"{INSTALL_HINT} (or save the table as CSV)",
            path=path,
        ) from None
    return pyarrow, pyarrow.parquet, pyarrow.compute


class ParquetTable:
    """An opened Parquet file: its column names and its wanted columns, block by block.

    Parameters
    ----------
    data : bytes
        The whole file.
    path : str
        The file, for messages.

    Raises
    ------
    InputError
        pyarrow is not installed, or the bytes are not a readable Parquet file.
    """

    def __init__(self, data: bytes, path: str) -> None:
        self.path = path
        self._pa, pq, self._pc = _pyarrow(path)
        try:
            self._file = pq.ParquetFile(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise InputError(
                f"is not a readable Parquet file ({excerpt(f'{type(exc).__name__}: {exc}', 80)}"
                "); write it again, or save the table as CSV",
                path=path,
            ) from None
        schema = self._file.schema_arrow
        self._fields = [f for f in schema if not _PANDAS_INDEX.match(f.name)]
        self.names = [f.name for f in self._fields]
        self.rows = int(self._file.metadata.num_rows)

    def blocks(self, wanted: dict[int, bool]) -> Iterator[tuple[int, dict[int, np.ndarray]]]:
        """``(first row, {column index: cells})`` per block of rows (first row 1-based).

        ``wanted`` maps each column index (in :attr:`names`) to whether it is read as a
        number: such a column of a number type without nulls comes as float64, every other
        one as str (module docstring).
        """
        indices = sorted(wanted)
        names = [self.names[i] for i in indices]
        first = 1
        try:
            batches = self._file.iter_batches(batch_size=BLOCK_ROWS, columns=names,
                                              use_pandas_metadata=False)
            for batch in batches:
                cells = {i: self._cells(batch.column(k), i, wanted[i])
                         for k, i in enumerate(indices)}
                yield first, cells
                first += batch.num_rows
        except InputError:
            raise
        except Exception as exc:  # a damaged page found while reading
            raise InputError(
                f"is damaged ({excerpt(f'{type(exc).__name__}: {exc}', 80)}); write it "
                "again, or save the table as CSV",
                path=self.path,
            ) from None

    def _cells(self, array, index: int, number: bool) -> np.ndarray:
        """One block of one column: float64 numbers, or its values as text."""
        pa, pc = self._pa, self._pc
        kind = array.type
        if pa.types.is_dictionary(kind):
            array = array.dictionary_decode()
            kind = array.type
        numeric = pa.types.is_floating(kind) or pa.types.is_integer(kind)
        if number and numeric and array.null_count == 0:
            return np.asarray(array.to_numpy(zero_copy_only=False), dtype=np.float64)
        if pa.types.is_floating(kind):
            values = np.asarray(array.fill_null(0).to_numpy(zero_copy_only=False),
                                dtype=np.float64).astype(str)
        else:
            try:
                text = pc.cast(array, pa.string())
            except Exception:  # lists, structs, maps, binary that is not UTF-8
                raise InputError(
                    f"holds {kind} values, which are not numbers or text; store one number "
                    "or one text per cell",
                    path=self.path, column=self.names[index] or f"column {index + 1}",
                ) from None
            values = np.asarray(text.fill_null("").to_numpy(zero_copy_only=False), dtype=str)
        if array.null_count:
            values[np.asarray(array.is_null().to_numpy(zero_copy_only=False))] = ""
        return values
