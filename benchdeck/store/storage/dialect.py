"""Where a store's SQL differs between a DuckDB file and a DuckLake team store.

The file store keeps its SQL (sequences, ``ON CONFLICT``, ``RETURNING``, ``INSERT OR REPLACE``).
A team store's cursors carry their session as ``cur.lake`` (store/storage/lake_session.py's
LakeCursor and Recorder: the store made them, so the store decides), which gives ids from the
catalog's PostgreSQL sequences and claims names. A DuckDB cursor has no ``lake``: on a file,
:func:`lake_of` is one failed attribute lookup.
"""

# ruff: noqa: S608 - table and column names are the schema's constants, not user values

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # (the app's first frame imports store.queries, which needs no DuckDB)
    import duckdb


class Lake(Protocol):
    """What a team store's cursor offers the SQL that differs (store/lake_session.LakeSession)."""

    def next_ids(self, seq: str, n: int = 1) -> list[int]: ...
    def ensure_name(self, table: str, name: str, row: Mapping[str, Any]) -> tuple[int, bool]: ...


def lake_of(cur: duckdb.DuckDBPyConnection) -> Lake | None:
    """The team store ``cur`` belongs to, or None on a DuckDB file."""
    return getattr(cur, "lake", None)


def next_ids(cur: duckdb.DuckDBPyConnection, seq: str, n: int = 1) -> list[int]:
    """``n`` new ids of the sequence ``seq`` (e.g. ``run_id_seq``)."""
    if (lake := lake_of(cur)) is not None:
        return lake.next_ids(seq, n)
    # n as a literal (an int): a Python parameter costs DuckDB's client a failed pandas import
    rows = cur.execute(f"SELECT nextval('{seq}') FROM range({int(n)})").fetchall()
    return [int(r[0]) for r in rows]


def insert_or_replace(
    cur: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any], table: str, key: Mapping[str, Any]
) -> None:
    """Run ``sql`` (an ``INSERT OR REPLACE INTO table ...``). A lake has no keys: the row of
    ``key`` is deleted first (only if there is one: a DELETE clashes with other writers'
    inserts), then inserted, in the caller's transaction."""
    if lake_of(cur) is None:
        cur.execute(sql, params)
        return
    where = " AND ".join(f"{k} = ?" for k in key)
    if cur.execute(f"SELECT 1 FROM {table} WHERE {where} LIMIT 1", list(key.values())).fetchone():
        cur.execute(f"DELETE FROM {table} WHERE {where}", list(key.values()))
    cur.execute(sql.replace("INSERT OR REPLACE INTO", "INSERT INTO", 1), params)


_INSERT = re.compile(r"(?s)^(INSERT INTO \w+ \(.*?)(\) VALUES \(.*)\)\s*$")


def insert_returning(
    cur: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any], id_col: str, seq: str
) -> int:
    """Run ``sql`` (``INSERT INTO t (cols) VALUES (...)``, one row) and return the new row's
    ``id_col``: the file store's sequence default (``RETURNING``), or on a lake a new id of
    ``seq`` from the catalog, inserted with the row."""
    if (lake := lake_of(cur)) is None:
        row = cur.execute(f"{sql} RETURNING {id_col}", params).fetchone()
        assert row is not None
        return int(row[0])
    m = _INSERT.match(sql)
    if m is None:
        raise ValueError(f"not a one-row INSERT: {sql[:60]!r}")
    [ident] = lake.next_ids(seq)
    cur.execute(f"{m.group(1)}, {id_col}{m.group(2)}, ?)", [*params, ident])
    return ident
