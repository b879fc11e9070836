"""Write parsed runs to the store in batches: one transaction and one Arrow append per table
for many runs (DuckDB's per-statement cost, not the data, dominated one-run-at-a-time imports)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import duckdb
import pyarrow as pa

from store.db import Store
from store.dialect import next_ids
from store.importers.read_run import ParsedRun
from store.runs import ensure_build, ensure_host, ensure_workload
from store.samples import append_many, append_skipped_many

_RUN_COLS = (
    "run_id", "host_id", "build_id", "workload_id", "config", "threads", "tables", "table_size",
    "device", "status", "source", "source_path", "command", "params", "created_at", "started_at",
    "finished_at",
)  # fmt: skip
_SUMMARY_COLS = (
    "run_id", "qps", "tps", "eps", "lat_avg_ms", "lat_pct_ms", "lat_pct", "lat_max_ms",
    "total_events", "elapsed_s", "cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o", "cpu_us_o",
    "bench_samples", "vm_samples", "io_samples", "tool_version", "per_op_source", "per_op_ops",
)  # fmt: skip


class RunWriter:
    """Collects :class:`ParsedRun` s and writes them ``batch_runs`` (or ``batch_bytes`` of raw
    data) at a time, each batch in one transaction; ``on_written`` sees each written batch.

    Call :meth:`flush` at the end. ``run_ids`` lists the ids given, in the order added.
    """

    def __init__(
        self,
        store: Store,
        batch_runs: int = 500,
        batch_bytes: int = 64 << 20,
        on_written: Callable[[list[tuple[int, ParsedRun]]], None] | None = None,
    ):
        self.store = store
        self.batch_runs = batch_runs
        self.batch_bytes = batch_bytes
        self.on_written = on_written
        self.run_ids: list[int] = []
        self._pending: list[ParsedRun] = []
        self._bytes = 0
        self._ids: dict[tuple[str, str], int] = {}

    def add(self, run: ParsedRun) -> None:
        self._pending.append(run)
        self._bytes += sum(len(r.data) for r in run.raw)
        if len(self._pending) >= self.batch_runs or self._bytes >= self.batch_bytes:
            self.flush()

    def flush(self) -> list[int]:
        """Write what is pending in one transaction; returns the new run ids."""
        pending, self._pending, self._bytes = self._pending, [], 0
        if not pending:
            return []
        try:
            with self.store.transaction() as cur:
                ids = self._write(cur, pending)
        except BaseException:
            self._ids.clear()  # ids created in the rolled-back transaction are gone
            raise
        self.run_ids.extend(ids)
        if self.on_written:
            self.on_written(list(zip(ids, pending, strict=True)))
        return ids

    def _id(self, cur: duckdb.DuckDBPyConnection, kind: str, run: ParsedRun) -> int:
        r = run.run
        name = {"host": r.host, "build": r.build.name, "workload": r.workload}[kind]
        key = (kind, name)
        if key not in self._ids:
            if kind == "host":
                self._ids[key] = ensure_host(cur, r.host)
            elif kind == "build":
                self._ids[key] = ensure_build(cur, r.build)
            else:
                self._ids[key] = ensure_workload(cur, r.workload, r.family)
        return self._ids[key]

    def _write(self, cur: duckdb.DuckDBPyConnection, runs: list[ParsedRun]) -> list[int]:
        ids = next_ids(cur, "run_id_seq", len(runs))
        ncpus: dict[str, int] = {}
        for p in runs:  # a host's CPU count, when a file says it and the host has none yet
            if p.ncpu is not None:
                ncpus.setdefault(p.run.host, p.ncpu)
        for host, ncpu in ncpus.items():
            self._ids[("host", host)] = ensure_host(cur, host, ncpu)
        runs_data: dict[str, list[Any]] = {c: [] for c in _RUN_COLS}
        summary: dict[str, list[Any]] = {c: [] for c in _SUMMARY_COLS}
        for run_id, p in zip(ids, runs, strict=True):
            r, s, m = p.run, p.summary, p.summary.per_op
            run_vals: tuple[Any, ...] = (
                run_id, self._id(cur, "host", p), self._id(cur, "build", p),
                self._id(cur, "workload", p), r.config, r.threads, r.tables, r.table_size, r.device,
                "finished", r.source, r.source_path, r.command, json.dumps(r.params, sort_keys=True),
                r.started_at, r.started_at, p.finished_at,
            )  # fmt: skip
            for c, v in zip(_RUN_COLS, run_vals, strict=True):
                runs_data[c].append(v)
            sum_vals: tuple[Any, ...] = (
                run_id, s.qps, s.tps, s.eps, s.lat_avg_ms, s.lat_pct_ms, s.lat_pct, s.lat_max_ms,
                s.total_events, s.elapsed_s, m.cpu_o if m else None, m.cs_o if m else None,
                m.r_o if m else None, m.rkb_o if m else None, m.wkb_o if m else None,
                m.cpu_us_o if m else None, s.bench_samples, s.vm_samples, s.io_samples,
                s.tool_version, s.per_op_source, s.per_op_ops,
            )  # fmt: skip
            for c, v in zip(_SUMMARY_COLS, sum_vals, strict=True):
                summary[c].append(v)
        runs_tbl = pa.table(
            {**runs_data, "threads": pa.array(runs_data["threads"], pa.int32()),
             "tables": pa.array(runs_data["tables"], pa.int32()),
             "table_size": pa.array(runs_data["table_size"], pa.int64()),
             "created_at": pa.array(runs_data["created_at"], pa.timestamp("us")),
             "started_at": pa.array(runs_data["started_at"], pa.timestamp("us")),
             "finished_at": pa.array(runs_data["finished_at"], pa.timestamp("us"))}
        )  # fmt: skip
        _insert(cur, "runs", _RUN_COLS, runs_tbl, casts={"params": "JSON"})
        _insert(cur, "run_summary", _SUMMARY_COLS, _summary_table(summary))
        pairs = list(zip(ids, runs, strict=True))
        append_many(cur, "bench", [(i, p.intervals) for i, p in pairs])
        append_many(cur, "vmstat", [(i, p.vmstat) for i, p in pairs])
        append_many(cur, "iostat", [(i, p.iostat) for i, p in pairs])
        append_skipped_many(cur, [(i, src, lines) for i, p in pairs for src, lines in p.skipped])
        raw = [(i, b) for i, p in pairs for b in p.raw]
        raw_tbl = pa.table(
            {
                "run_id": pa.array([i for i, _ in raw], pa.int64()),
                "kind": [b.kind for _, b in raw],
                "name": [b.name for _, b in raw],
                "codec": ["zstd"] * len(raw),
                "size": pa.array([b.size for _, b in raw], pa.int64()),
                "data": pa.array([b.data for _, b in raw], pa.binary()),
            }
        )
        _insert(cur, "raw_files", ("run_id", "kind", "name", "codec", "size", "data"), raw_tbl)
        return ids


def _summary_table(summary: dict[str, list[Any]]) -> pa.Table:
    types = {c: pa.float64() for c in _SUMMARY_COLS}
    types.update(
        run_id=pa.int64(), total_events=pa.int64(), bench_samples=pa.int32(), vm_samples=pa.int32(),
        io_samples=pa.int32(), tool_version=pa.string(), per_op_source=pa.string(),
    )  # fmt: skip
    return pa.table({c: pa.array(summary[c], types[c]) for c in _SUMMARY_COLS})


def _insert(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    cols: tuple[str, ...],
    data: pa.Table,
    casts: dict[str, str] | None = None,
) -> None:
    casts = casts or {}
    select = ", ".join(f"CAST({c} AS {casts[c]})" if c in casts else c for c in cols)
    cur.register("_bd_rows", data)
    try:
        # Table and column names are our constants, never user values.
        cur.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select} FROM _bd_rows")  # noqa: S608
    finally:
        cur.unregister("_bd_rows")
