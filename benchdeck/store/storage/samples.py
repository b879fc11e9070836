"""Batched appends of samples, one statement per table (never row-at-a-time inserts)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from typing import Any

import duckdb

from benchdeck.engine.record_columns import columns_of
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, VmstatSample
from benchdeck.store.storage import bulk

# Record field -> (table column, DuckDB type), in the tables' column order.
_BENCH = {
    "t": ("t", "DOUBLE"),
    "threads": ("threads", "INTEGER"),
    **{a: (a, "DOUBLE") for a in ("tps", "qps", "reads", "writes", "other", "latency_ms", "latency_pct")},
    "errors_s": ("errors_s", "DOUBLE"),
    "reconnects_s": ("reconnects_s", "DOUBLE"),
}
_VM = {
    "seq": ("seq", "INTEGER"),
    **{a: (a, "BIGINT") for a in ("r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo")},
    "in_": ('"in"', "BIGINT"),
    "cs": ("cs", "BIGINT"),
    **{a: (a, "INTEGER") for a in ("us", "sy", "id", "wa", "st", "gu")},
    "timestamp": ("ts", "VARCHAR"),
}
_IO = {
    "seq": ("seq", "INTEGER"),
    "device": ("device", "VARCHAR"),
    **{
        a: (a, "DOUBLE")
        for a in ("r_s", "w_s", "rkb_s", "wkb_s", "rrqm_s", "wrqm_s", "r_await", "w_await", "aqu_sz", "util")
    },
    "timestamp": ("ts", "VARCHAR"),
}
SAMPLE_TIME_FORMATS = (
    "['%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S%z', '%m/%d/%y %H:%M:%S', '%m/%d/%Y %I:%M:%S %p', "
    "'%m/%d/%Y %H:%M:%S', '%d/%m/%y %H:%M:%S']"
)
"""How vmstat -t and iostat -t print a sample's time (ISO, or the locale's: S_TIME_FORMAT, LC_TIME);
the same list migration 11 converted the stored strings with."""
_TS = {"ts": f"try_strptime({{}}, {SAMPLE_TIME_FORMATS})::TIMESTAMP"}
"""The tools' time text -> the tables' TIMESTAMP, in the INSERT (NULL when it printed none)."""

VM_COLUMNS = _VM
"""vmstat record field -> (column, type): the run's vmstat_samples and its nodes' too."""
IO_COLUMNS = _IO
"""iostat record field -> (column, type): the run's iostat_samples and its nodes' too."""

_TABLES = {
    "bench": ("bench_samples", _BENCH),
    "vmstat": ("vmstat_samples", _VM),
    "iostat": ("iostat_samples", _IO),
}


def append_bench(cur: duckdb.DuckDBPyConnection, run_id: int, rows: Sequence[BenchInterval]) -> int:
    return append_many(cur, "bench", [(run_id, rows)])


def append_vmstat(cur: duckdb.DuckDBPyConnection, run_id: int, rows: Sequence[VmstatSample]) -> int:
    return append_many(cur, "vmstat", [(run_id, rows)])


def append_iostat(cur: duckdb.DuckDBPyConnection, run_id: int, rows: Sequence[IostatSample]) -> int:
    return append_many(cur, "iostat", [(run_id, rows)])


def append_skipped(
    cur: duckdb.DuckDBPyConnection, run_id: int, source: str, rows: Sequence[SkippedLine]
) -> int:
    return append_skipped_many(cur, [(run_id, source, rows)])


def append_many(cur: duckdb.DuckDBPyConnection, kind: str, runs: Sequence[tuple[int, Sequence[Any]]]) -> int:
    """Samples of several runs (``kind``: bench, vmstat or iostat) in one insert."""
    table, attrs = _TABLES[kind]
    run_ids = list(chain.from_iterable(repeat(run_id, len(rows)) for run_id, rows in runs))
    if not run_ids:
        return 0
    columns: dict[str, tuple[str, Sequence[Any]]] = {"run_id": ("BIGINT", run_ids)}
    # each run's rows as a list per field (a parser's RecordColumns as they are; records by one
    # attrgetter call each, then a transpose), joined run after run
    names = tuple(attrs)
    per_run = [columns_of(rows, names) for _, rows in runs if rows]
    for k, (column, sql_type) in enumerate(attrs.values()):
        columns[column] = (sql_type, list(chain.from_iterable(c[k] for c in per_run)))
    return bulk.insert_columns(cur, table, columns, _TS if kind != "bench" else None)


def append_skipped_many(
    cur: duckdb.DuckDBPyConnection, rows: Sequence[tuple[int, str, Sequence[SkippedLine]]]
) -> int:
    """Skipped lines of several runs, as (run_id, source, lines), in one insert."""
    flat = [(run_id, source, r) for run_id, source, lines in rows for r in lines]
    if not flat:
        return 0
    return bulk.insert_columns(
        cur,
        "skipped_lines",
        {
            "run_id": ("BIGINT", [f[0] for f in flat]),
            "source": ("VARCHAR", [f[1] for f in flat]),
            "lineno": ("INTEGER", [f[2].lineno for f in flat]),
            "text": ("VARCHAR", [f[2].text for f in flat]),
            "reason": ("VARCHAR", [f[2].reason for f in flat]),
        },
    )
