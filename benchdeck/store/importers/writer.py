"""Write parsed runs to the store in batches: one transaction and one insert per table
for many runs (DuckDB's per-statement cost, not the data, dominated one-run-at-a-time imports)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import duckdb

from benchdeck.store.importers.read_run import ParsedRun, RawBlob
from benchdeck.store.storage import bulk
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.dialect import next_ids
from benchdeck.store.storage.runs import ensure_build, ensure_host, ensure_workload
from benchdeck.store.storage.samples import append_many, append_skipped_many

_RUN_COLS = (
    "run_id", "host_id", "build_id", "workload_id", "config", "threads", "tables", "table_size",
    "device", "status", "source", "source_path", "command", "params", "created_at", "started_at",
    "finished_at", "content_key", "dated_from",
)  # fmt: skip
_SUMMARY_COLS = (
    "run_id", "qps", "tps", "eps", "lat_avg_ms", "lat_pct_ms", "lat_pct", "lat_max_ms",
    "total_events", "elapsed_s", "cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o", "cpu_us_o",
    "bench_samples", "vm_samples", "io_samples", "tool_version", "per_op_source", "per_op_ops",
)  # fmt: skip
# The columns' DuckDB types (store/storage/schema.py), for the arrays handed to DuckDB.
_RUN_TYPES = {
    **dict.fromkeys(_RUN_COLS, "VARCHAR"), "run_id": "BIGINT", "host_id": "INTEGER", "build_id": "INTEGER",
    "workload_id": "INTEGER", "threads": "INTEGER", "tables": "INTEGER", "table_size": "BIGINT",
    "params": "JSON", "created_at": "TIMESTAMP", "started_at": "TIMESTAMP", "finished_at": "TIMESTAMP",
}  # fmt: skip
_SUMMARY_TYPES = {
    **dict.fromkeys(_SUMMARY_COLS, "DOUBLE"), "run_id": "BIGINT", "total_events": "BIGINT",
    "bench_samples": "INTEGER", "vm_samples": "INTEGER", "io_samples": "INTEGER",
    "tool_version": "VARCHAR", "per_op_source": "VARCHAR",
}  # fmt: skip


class RunWriter:
    """Collects :class:`ParsedRun` s and writes them ``batch_runs`` (or ``batch_bytes`` of raw
    data) at a time, each batch in one transaction; ``on_written`` sees each written batch.

    Call :meth:`flush` at the end. ``run_ids`` lists the ids given, in the order added.
    :meth:`fill` gives runs already stored the device rows of a new read of them, in the batches'
    transactions.
    """

    def __init__(
        self,
        store: Store,
        batch_runs: int = 16,
        batch_bytes: int = 16 << 20,
        on_written: Callable[[list[tuple[int, ParsedRun]]], None] | None = None,
        in_transaction: Callable[[duckdb.DuckDBPyConnection, list[int]], None] | None = None,
    ):
        self.store = store
        self.batch_runs = batch_runs
        self.batch_bytes = batch_bytes
        self.on_written = on_written
        self.in_transaction = in_transaction
        """Writes more rows of the batch's runs (by id) in the batch's transaction."""
        self.run_ids: list[int] = []
        self._pending: list[ParsedRun] = []
        self._fills: list[tuple[int, ParsedRun]] = []
        self._bytes = 0
        self._ids: dict[tuple[str, str], int] = {}

    def add(self, run: ParsedRun) -> None:
        self._pending.append(run)
        self._bytes += sum(len(r.data) for r in run.raw)
        if len(self._pending) >= self.batch_runs or self._bytes >= self.batch_bytes:
            self.flush()

    def fill(self, run_id: int, run: ParsedRun) -> None:
        """Give stored run ``run_id`` (stored without a device) ``run``'s device: its iostat rows,
        raw file and skipped lines, r/o, rKB/o and wKB/o."""
        self._fills.append((run_id, run))
        self._bytes += sum(len(r.data) for r in run.raw if r.kind == "iostat")
        if len(self._pending) + len(self._fills) >= self.batch_runs or self._bytes >= self.batch_bytes:
            self.flush()

    def flush(self) -> list[int]:
        """Write what is pending in one transaction; returns the new run ids."""
        pending, self._pending, self._bytes = self._pending, [], 0
        fills, self._fills = self._fills, []
        if not pending and not fills:
            return []
        try:
            with self.store.transaction() as cur:
                _fill(cur, fills)
                ids = self._write(cur, pending) if pending else []
                if self.in_transaction:
                    self.in_transaction(cur, ids)
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
        for host, ncpu in ncpus.items():  # once a host has its CPU count, a batch need not ask again
            if ("ncpu", host) not in self._ids:
                self._ids[("host", host)] = ensure_host(cur, host, ncpu)
                self._ids[("ncpu", host)] = ncpu
        now = datetime.now()  # created_at of an undated run (its date out of range)
        runs_data: dict[str, list[Any]] = {c: [] for c in _RUN_COLS}
        summary: dict[str, list[Any]] = {c: [] for c in _SUMMARY_COLS}
        for run_id, p in zip(ids, runs, strict=True):
            r, s, m = p.run, p.summary, p.summary.per_op
            run_vals: tuple[Any, ...] = (
                run_id, self._id(cur, "host", p), self._id(cur, "build", p),
                self._id(cur, "workload", p), r.config, r.threads, r.tables, r.table_size, r.device,
                "finished", r.source, r.source_path, r.command, json.dumps(r.params, sort_keys=True),
                r.started_at or now, r.started_at, p.finished_at, r.content_key, r.dated_from,
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
        _insert(cur, "runs", runs_data, _RUN_TYPES)
        _insert(cur, "run_summary", summary, _SUMMARY_TYPES)
        pairs = list(zip(ids, runs, strict=True))
        append_many(cur, "bench", [(i, p.intervals) for i, p in pairs])
        append_many(cur, "vmstat", [(i, p.vmstat) for i, p in pairs])
        append_many(cur, "iostat", [(i, p.iostat) for i, p in pairs])
        append_skipped_many(cur, [(i, src, lines) for i, p in pairs for src, lines in p.skipped])
        _insert_raw(cur, [(i, b) for i, p in pairs for b in p.raw])
        return ids


def _fill(cur: duckdb.DuckDBPyConnection, fills: list[tuple[int, ParsedRun]]) -> None:
    """Stored runs' device metrics and rows from new reads of them (see RunWriter.fill)."""
    if not fills:
        return
    cur.executemany(
        "UPDATE runs SET device = ? WHERE run_id = ?", [(p.run.device, run_id) for run_id, p in fills]
    )
    if per_op := [(m, p, i) for i, p in fills if (m := p.summary.per_op) is not None]:
        cur.executemany(
            "UPDATE run_summary SET r_o = ?, rkb_o = ?, wkb_o = ?, io_samples = ? WHERE run_id = ?",
            [(m.r_o, m.rkb_o, m.wkb_o, p.summary.io_samples, i) for m, p, i in per_op],
        )
    append_many(cur, "iostat", [(i, p.iostat) for i, p in fills])
    append_skipped_many(cur, [(i, src, rows) for i, p in fills for src, rows in p.skipped if src == "iostat"])
    _insert_raw(cur, [(i, b) for i, p in fills for b in p.raw if b.kind == "iostat"])


def _insert_raw(cur: duckdb.DuckDBPyConnection, raw: list[tuple[int, RawBlob]]) -> None:
    cols: dict[str, tuple[str, Sequence[Any]]] = {
        "run_id": ("BIGINT", [i for i, _ in raw]),
        "kind": ("VARCHAR", [b.kind for _, b in raw]),
        "name": ("VARCHAR", [b.name for _, b in raw]),
        "codec": ("VARCHAR", ["zstd"] * len(raw)),
        "size": ("BIGINT", [b.size for _, b in raw]),
        "data": ("BLOB", [b.data for _, b in raw]),
    }
    bulk.insert_columns(cur, "raw_files", cols)


def _insert(
    cur: duckdb.DuckDBPyConnection, table: str, data: dict[str, list[Any]], types: dict[str, str]
) -> None:
    bulk.insert_columns(cur, table, {c: (types[c], values) for c, values in data.items()})
