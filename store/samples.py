"""Batched appends of samples through Arrow (never row-at-a-time inserts)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import duckdb
import pyarrow as pa

from engine.records import BenchInterval, IostatSample, SkippedLine, VmstatSample

_BENCH_COLS = [f.name for f in fields(BenchInterval)]
_VM_COLS = [f.name for f in fields(VmstatSample)]
_IO_COLS = [f.name for f in fields(IostatSample)]

# Dataclass field -> table column where the names differ.
_VM_RENAME = {"in_": '"in"', "timestamp": "ts"}
_IO_RENAME = {"timestamp": "ts"}


def _append(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    run_id: int,
    records: Sequence[Any],
    attrs: list[str],
    rename: dict[str, str],
) -> int:
    if not records:
        return 0
    data: dict[str, list[Any]] = {"run_id": [run_id] * len(records)}
    for a in attrs:
        data[a] = [getattr(r, a) for r in records]
    batch = pa.table(data)
    cols = ", ".join(["run_id", *(rename.get(a, a) for a in attrs)])
    src = ", ".join(["run_id", *attrs])
    cur.register("_bd_batch", batch)
    try:
        # Table and column names are our constants, never user values.
        cur.execute(f"INSERT INTO {table} ({cols}) SELECT {src} FROM _bd_batch")  # noqa: S608
    finally:
        cur.unregister("_bd_batch")
    return len(records)


def append_bench(cur: duckdb.DuckDBPyConnection, run_id: int, rows: Sequence[BenchInterval]) -> int:
    return _append(cur, "bench_samples", run_id, rows, _BENCH_COLS, {})


def append_vmstat(cur: duckdb.DuckDBPyConnection, run_id: int, rows: Sequence[VmstatSample]) -> int:
    return _append(cur, "vmstat_samples", run_id, rows, _VM_COLS, _VM_RENAME)


def append_iostat(cur: duckdb.DuckDBPyConnection, run_id: int, rows: Sequence[IostatSample]) -> int:
    return _append(cur, "iostat_samples", run_id, rows, _IO_COLS, _IO_RENAME)


def append_skipped(
    cur: duckdb.DuckDBPyConnection, run_id: int, source: str, rows: Sequence[SkippedLine]
) -> int:
    if not rows:
        return 0
    batch = pa.table(
        {
            "run_id": [run_id] * len(rows),
            "source": [source] * len(rows),
            "lineno": [r.lineno for r in rows],
            "text": [r.text for r in rows],
            "reason": [r.reason for r in rows],
        }
    )
    cur.register("_bd_skip", batch)
    try:
        cur.execute("INSERT INTO skipped_lines SELECT * FROM _bd_skip")
    finally:
        cur.unregister("_bd_skip")
    return len(rows)


_TABLES = {
    "bench": ("bench_samples", _BENCH_COLS, {}),
    "vmstat": ("vmstat_samples", _VM_COLS, _VM_RENAME),
    "iostat": ("iostat_samples", _IO_COLS, _IO_RENAME),
}


def append_many(cur: duckdb.DuckDBPyConnection, kind: str, runs: Sequence[tuple[int, Sequence[Any]]]) -> int:
    """Samples of several runs (``kind``: bench, vmstat or iostat) in one Arrow append."""
    table, attrs, rename = _TABLES[kind]
    run_ids = [run_id for run_id, rows in runs for _ in rows]
    if not run_ids:
        return 0
    data: dict[str, list[Any]] = {"run_id": run_ids}
    for a in attrs:
        data[a] = [getattr(r, a) for _, rows in runs for r in rows]
    cols = ", ".join(["run_id", *(rename.get(a, a) for a in attrs)])
    src = ", ".join(["run_id", *attrs])
    cur.register("_bd_batch", pa.table(data))
    try:
        # Table and column names are our constants, never user values.
        cur.execute(f"INSERT INTO {table} ({cols}) SELECT {src} FROM _bd_batch")  # noqa: S608
    finally:
        cur.unregister("_bd_batch")
    return len(run_ids)


def append_skipped_many(
    cur: duckdb.DuckDBPyConnection, rows: Sequence[tuple[int, str, Sequence[SkippedLine]]]
) -> int:
    """Skipped lines of several runs, as (run_id, source, lines), in one Arrow append."""
    flat = [(run_id, source, r) for run_id, source, lines in rows for r in lines]
    if not flat:
        return 0
    batch = pa.table(
        {
            "run_id": [f[0] for f in flat],
            "source": [f[1] for f in flat],
            "lineno": [f[2].lineno for f in flat],
            "text": [f[2].text for f in flat],
            "reason": [f[2].reason for f in flat],
        }
    )
    cur.register("_bd_skip", batch)
    try:
        cur.execute("INSERT INTO skipped_lines SELECT * FROM _bd_skip")
    finally:
        cur.unregister("_bd_skip")
    return len(flat)
