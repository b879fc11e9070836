"""Are the benchmark tables complete? Row counts (and the secondary index) of sysbench's tables.

An interrupted ``prepare`` leaves tables that exist but are short, or lack the index it creates
last; a check for existence alone would measure them. The query prints one line per expected
table that exists, ``NAME ROWS HAS_INDEX``, and never fails for a missing table (so a failing
check means the database is unreachable). Table names are ``sbtest<int>``, made here.
"""

# ruff: noqa: S608 - the only values in this SQL are table names generated here (sbtest<int>)

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_TABLE = re.compile(r"sbtest[0-9]+\Z")
_TRUE = frozenset({"1", "t", "true"})


def table_names(tables: int, prefix: str = "sbtest") -> tuple[str, ...]:
    """``sbtest1`` ... ``sbtestN``."""
    return tuple(f"{prefix}{n}" for n in range(1, tables + 1))


def _checked(names: Sequence[str]) -> list[str]:
    bad = [n for n in names if not _TABLE.match(n)]
    if bad or not names:
        raise ValueError(f"not sysbench table names: {bad or 'none'}")
    return list(names)


def mysql_sql(names: Sequence[str]) -> str:
    """MySQL/MariaDB: a count(*) per existing table, built from information_schema and run as a
    prepared statement (an empty result when none exists)."""
    listed = ", ".join(f"'{n}'" for n in _checked(names))
    return (
        "SET SESSION group_concat_max_len = 1000000; "
        "SET @q = (SELECT GROUP_CONCAT(CONCAT('SELECT ''', t.table_name, ''', count(*), ', "
        "(SELECT count(*) > 0 FROM information_schema.statistics s WHERE s.table_schema = t.table_schema "
        "AND s.table_name = t.table_name AND s.index_name = CONCAT('k_', SUBSTRING(t.table_name, 7))), "
        "' FROM `', t.table_name, '`') SEPARATOR ' UNION ALL ') FROM information_schema.tables t "
        f"WHERE t.table_schema = DATABASE() AND t.table_name IN ({listed})); "
        "SET @q = COALESCE(@q, 'SELECT 1 FROM DUAL WHERE FALSE'); "
        "PREPARE bd_rows FROM @q; EXECUTE bd_rows; DEALLOCATE PREPARE bd_rows;"
    )


def postgres_sql(names: Sequence[str]) -> str:
    """PostgreSQL: the count through ``query_to_xml`` only for tables that exist."""
    listed = ", ".join(f"'{n}'" for n in _checked(names))
    return (
        "SELECT t, (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I', t), "
        "false, true, '')))[1]::text::bigint, "
        "EXISTS (SELECT 1 FROM pg_indexes i WHERE i.tablename = t AND i.indexname = 'k_' || substr(t, 7)) "
        f"FROM unnest(ARRAY[{listed}]) AS t WHERE to_regclass(t) IS NOT NULL"
    )


@dataclass(frozen=True, slots=True)
class TableState:
    name: str
    rows: int
    has_index: bool


def parse(output: str) -> dict[str, TableState]:
    """The check's output (tab- or ``|``-separated columns), by table name."""
    found: dict[str, TableState] = {}
    for line in output.splitlines():
        cols = [c for c in re.split(r"[\t|]", line.strip()) if c.strip()]
        if len(cols) == 3 and _TABLE.match(cols[0]) and cols[1].isdigit():
            found[cols[0]] = TableState(cols[0], int(cols[1]), cols[2].strip().lower() in _TRUE)
    return found


def shortfalls(
    found: dict[str, TableState], expected: Sequence[str], table_size: int, need_index: bool
) -> list[str]:
    """What is wrong with the tables, one phrase each (empty: every table is complete).

    A table with more rows than ``table_size`` is complete: insert steps add rows."""
    out: list[str] = []
    for name in expected:
        t = found.get(name)
        if t is None:
            out.append(f"{name} is missing")
        elif t.rows < table_size:
            out.append(f"{name} has {t.rows:,} of {table_size:,} rows")
        elif need_index and not t.has_index:
            out.append(f"{name} has no index k_{name[6:]}")
    return out
