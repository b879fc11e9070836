"""Column-wise inserts of many rows in one statement: typed NumPy arrays, or a nanoarrow batch.

DuckDB 1.5 converts each Python object it is handed (a parameter, an element of a list
parameter, a cell of an object array) one by one, and each conversion first compares it with
pandas' NA and NaT: without pandas installed, that is a failed ``import pandas`` per value, a
cost far above the value's own. So rows go in as arrays DuckDB reads as memory:

- typed NumPy arrays (float64, int64, datetime64, fixed-width str), the fastest for the live
  sink's small batches; DuckDB reads NaN and NaT as NULL, integer or text columns with
  ``None`` carry a mask beside them, and a str array arrives as an ENUM (cast to VARCHAR);
- an Arrow batch built by nanoarrow (3 MB, read by DuckDB through the Arrow PyCapsule
  interface, no pyarrow) when a column is one NumPy cannot hold as such: BLOBs, and text that a
  fixed-width array would change (a value ending in NUL) or bloat (``_WIDE_TEXT``).

bench/bench_inserts.py measures these against pyarrow, list parameters and executemany.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import nanoarrow as na
import numpy as np
import numpy.typing as npt

Columns = Mapping[str, tuple[str, Sequence[Any]]]

_WIDE_TEXT = 1 << 22  # rows x longest value, in characters (4 bytes each in a NumPy str array)
_INTS = {"BIGINT", "INTEGER"}
_TEXT = {"VARCHAR", "JSON"}
_EPOCH = datetime(1970, 1, 1)
_US = timedelta(microseconds=1)


def insert_columns(
    cur: duckdb.DuckDBPyConnection, table: str, columns: Columns, convert: Mapping[str, str] | None = None
) -> int:
    """``INSERT INTO table`` the rows whose columns are ``{column: (DuckDB type, values)}``
    (types BIGINT, INTEGER, DOUBLE, VARCHAR, JSON, TIMESTAMP, BLOB; all of one length).
    ``convert`` maps a column to SQL applied to its value in the INSERT (``{}`` stands for it),
    e.g. text parsed into the table's TIMESTAMP in the same statement.

    Returns the number of rows. ``table``, the column names and ``convert`` are the caller's
    constants, never user values.
    """
    n = len(next(iter(columns.values()))[1]) if columns else 0
    if n == 0:
        return 0
    arrays = _numpy(columns)
    data: object = arrays if arrays is not None else _arrow_batch(columns, n)
    select = []
    for i, (col, (t, _)) in enumerate(columns.items()):
        # DuckDB reads a NumPy str array as an ENUM: to VARCHAR first (ENUM -> JSON quotes it)
        expr = f"CAST(c{i} AS VARCHAR)" if t in _TEXT else f"c{i}"
        if arrays is not None and f"c{i}" not in arrays:
            expr = "NULL"  # a text column of NULLs only (vmstat/iostat without -t): no array to read
        elif arrays is not None and f"m{i}" in arrays:
            expr = f"if(m{i}, NULL, {expr})"
        cast = f"CAST({expr} AS {t})"
        select.append(convert[col].format(cast) if convert and col in convert else cast)
    cur.register("_bd_rows", data)  # a name on this cursor only
    try:
        cur.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(select)} FROM _bd_rows")  # noqa: S608
    finally:
        cur.unregister("_bd_rows")
    return n


def _numpy(columns: Columns) -> dict[str, npt.NDArray[Any]] | None:
    """The columns as typed NumPy arrays (``c<i>``) and NULL masks (``m<i>``), or None when one
    column cannot be held that way."""
    arrays: dict[str, npt.NDArray[Any]] = {}
    for i, (sql_type, values) in enumerate(columns.values()):
        if sql_type == "DOUBLE":
            arrays[f"c{i}"] = np.array(values, dtype=np.float64)  # None -> NaN -> NULL
            continue
        if sql_type == "TIMESTAMP":
            naive = [None if v is None else _naive(v) for v in values]
            arrays[f"c{i}"] = np.array(naive, dtype="datetime64[us]")  # None -> NaT -> NULL
            continue
        if sql_type not in _INTS and sql_type not in _TEXT:
            return None
        if sql_type in _TEXT and values.count(None) == len(values):
            continue  # NULL in the SELECT: a str array is an ENUM DuckDB first sorts out (np.unique)
        if None in values:
            arrays[f"m{i}"] = np.array([v is None for v in values], dtype=np.bool_)
            fill = 0 if sql_type in _INTS else ""
            values = [fill if v is None else v for v in values]
        if sql_type in _INTS:
            arrays[f"c{i}"] = np.array(values, dtype=np.int64)
            continue
        widest = max(map(len, values))
        if widest * len(values) > _WIDE_TEXT or any(s.endswith("\0") for s in values):
            return None  # NumPy strips trailing NULs
        arrays[f"c{i}"] = np.array(values, dtype=f"<U{max(widest, 1)}")
    return arrays or None  # no column to read the rows' count from: an Arrow batch


_ARROW_TYPES = {
    "BIGINT": na.int64(), "INTEGER": na.int32(), "DOUBLE": na.float64(), "VARCHAR": na.string(),
    "JSON": na.string(), "TIMESTAMP": na.timestamp("us"), "BLOB": na.binary(),
}  # fmt: skip


def _arrow_batch(columns: Columns, n: int) -> na.Array:
    children = []
    for sql_type, values in columns.values():
        if sql_type == "TIMESTAMP":
            values = [None if v is None else (_naive(v) - _EPOCH) // _US for v in values]
        children.append(na.c_array(values, _ARROW_TYPES[sql_type]))
    schema = na.struct({f"c{i}": _ARROW_TYPES[t] for i, (t, _) in enumerate(columns.values())})
    return na.Array(na.c_array_from_buffers(schema, n, [None], children=children))


def _naive(v: datetime) -> datetime:
    """A TIMESTAMP column's value: an aware datetime as UTC, without its zone."""
    if v.tzinfo is None:
        return v
    return v.astimezone(UTC).replace(tzinfo=None)
