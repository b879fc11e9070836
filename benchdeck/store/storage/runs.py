"""Hosts, builds, workloads and runs: creating them and recording a run's outcome."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb

from benchdeck.engine.builds import Build
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.records import SysbenchSummary
from benchdeck.store.storage import raw
from benchdeck.store.storage.dialect import insert_or_replace, insert_returning, lake_of

RUN_STATUSES = ("queued", "running", "finished", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class NewRun:
    """What is known about a run when it is created."""

    host: str
    build: Build
    workload: str
    source: str
    config: str = ""
    family: str = "sysbench"
    threads: int | None = None
    tables: int | None = None
    table_size: int | None = None
    device: str | None = None
    source_path: str | None = None
    command: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    status: str = "running"
    started_at: datetime | None = None
    content_key: str | None = None
    dated_from: str | None = None


@dataclass(frozen=True, slots=True)
class RunSummary:
    """A run's result: the QPS users read, latency, and per-op hardware metrics."""

    qps: float | None
    tps: float | None = None
    eps: float | None = None
    lat_avg_ms: float | None = None
    lat_pct_ms: float | None = None
    lat_pct: float | None = None
    lat_max_ms: float | None = None
    total_events: int | None = None
    elapsed_s: float | None = None
    per_op: PerOp | None = None
    bench_samples: int = 0
    vm_samples: int = 0
    io_samples: int = 0
    tool_version: str | None = None
    per_op_source: str | None = None
    """'computed' from samples, 'imported' from the source's own table; None: 'computed' if
    ``per_op`` is set."""
    per_op_ops: float | None = None
    """The o/s imported per-op metrics are per, as the source printed it (None: the QPS)."""

    @classmethod
    def of(
        cls,
        s: SysbenchSummary,
        qps: float | None,
        per_op: PerOp | None,
        samples: tuple[int, int, int],
        per_op_source: str | None = None,
        per_op_ops: float | None = None,
    ) -> RunSummary:
        """A summary from the sysbench parser's: the one builder for runs benchdeck ran
        (store/storage/ingest.py) and imported ones (store/importers/read_run.py); ``samples`` =
        (bench, vmstat, iostat) rows stored."""
        return cls(
            qps=qps,
            tps=s.tps,
            eps=s.eps,
            lat_avg_ms=s.lat_avg_ms,
            lat_pct_ms=s.lat_pct_ms,
            lat_pct=s.lat_pct,
            lat_max_ms=s.lat_max_ms,
            total_events=s.total_events,
            elapsed_s=s.total_time_s,
            per_op=per_op,
            bench_samples=samples[0],
            vm_samples=samples[1],
            io_samples=samples[2],
            tool_version=s.sysbench_version,
            per_op_source=per_op_source,
            per_op_ops=per_op_ops,
        )


def ensure_host(cur: duckdb.DuckDBPyConnection, name: str, ncpu: int | None = None) -> int:
    if (lake := lake_of(cur)) is not None:  # names are claimed in the team store's catalog
        host_id, added = lake.ensure_name("hosts", name, {"ncpu": ncpu})
        if not added and ncpu is not None:
            row = cur.execute("SELECT ncpu FROM hosts WHERE host_id = ?", [host_id]).fetchone()
            if row is not None and row[0] is None:
                cur.execute("UPDATE hosts SET ncpu = ? WHERE host_id = ?", [ncpu, host_id])
        return host_id
    cur.execute("INSERT INTO hosts (name, ncpu) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", [name, ncpu])
    row = cur.execute("SELECT host_id, ncpu FROM hosts WHERE name = ?", [name]).fetchone()
    assert row is not None
    if ncpu is not None and row[1] is None:
        cur.execute("UPDATE hosts SET ncpu = ? WHERE host_id = ?", [ncpu, row[0]])
    return int(row[0])


def save_host_facts(cur: duckdb.DuckDBPyConnection, name: str, facts: dict[str, Any]) -> int:
    """Record a host's facts (CPU, cores, RAM, storage, OS ...); ``ncpu`` is kept in a column."""
    host_id = ensure_host(cur, name)
    ncpu = facts.get("ncpu")
    cur.execute(
        "UPDATE hosts SET facts = ?, facts_at = current_timestamp, ncpu = coalesce(?, ncpu) "
        "WHERE host_id = ?",
        [json.dumps(facts, sort_keys=True), ncpu, host_id],
    )
    return host_id


def ensure_build(cur: duckdb.DuckDBPyConnection, build: Build) -> int:
    if (lake := lake_of(cur)) is not None:
        cols = ("dbms", "version", "version_key", "fork", "variant")
        return lake.ensure_name("builds", build.name, {c: getattr(build, c) for c in cols})[0]
    cur.execute(
        "INSERT INTO builds (name, dbms, version, version_key, fork, variant) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
        [build.name, build.dbms, build.version, build.version_key, build.fork, build.variant],
    )
    row = cur.execute("SELECT build_id FROM builds WHERE name = ?", [build.name]).fetchone()
    assert row is not None
    return int(row[0])


def ensure_workload(cur: duckdb.DuckDBPyConnection, name: str, family: str = "sysbench") -> int:
    if (lake := lake_of(cur)) is not None:
        return lake.ensure_name("workloads", name, {"family": family})[0]
    cur.execute(
        "INSERT INTO workloads (name, family) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
        [name, family],
    )
    row = cur.execute("SELECT workload_id FROM workloads WHERE name = ?", [name]).fetchone()
    assert row is not None
    return int(row[0])


def create_run(cur: duckdb.DuckDBPyConnection, run: NewRun, ncpu: int | None = None) -> int:
    """Insert a run (and its host, build and workload if new); returns the run id."""
    host_id = ensure_host(cur, run.host, ncpu)
    build_id = ensure_build(cur, run.build)
    workload_id = ensure_workload(cur, run.workload, run.family)
    return insert_returning(
        cur,
        "INSERT INTO runs (host_id, build_id, workload_id, config, threads, tables, table_size, "
        "device, status, source, source_path, command, params, started_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            host_id,
            build_id,
            workload_id,
            run.config,
            run.threads,
            run.tables,
            run.table_size,
            run.device,
            run.status,
            run.source,
            run.source_path,
            run.command,
            json.dumps(run.params, sort_keys=True),
            run.started_at,
        ],
        "run_id",
        "run_id_seq",
    )


def save_summary(cur: duckdb.DuckDBPyConnection, run_id: int, s: RunSummary) -> None:
    p = s.per_op
    insert_or_replace(
        cur,
        "INSERT OR REPLACE INTO run_summary (run_id, qps, tps, eps, lat_avg_ms, lat_pct_ms, "
        "lat_pct, lat_max_ms, total_events, elapsed_s, cpu_o, cs_o, r_o, rkb_o, wkb_o, cpu_us_o, "
        "bench_samples, vm_samples, io_samples, tool_version, per_op_source, per_op_ops) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            s.qps,
            s.tps,
            s.eps,
            s.lat_avg_ms,
            s.lat_pct_ms,
            s.lat_pct,
            s.lat_max_ms,
            s.total_events,
            s.elapsed_s,
            p.cpu_o if p else None,
            p.cs_o if p else None,
            p.r_o if p else None,
            p.rkb_o if p else None,
            p.wkb_o if p else None,
            p.cpu_us_o if p else None,
            s.bench_samples,
            s.vm_samples,
            s.io_samples,
            s.tool_version,
            s.per_op_source or ("computed" if p else None),
            s.per_op_ops,
        ],
        "run_summary",
        {"run_id": run_id},
    )


def save_per_type(cur: duckdb.DuckDBPyConnection, run_id: int, per_type: dict[str, dict[str, float]]) -> None:
    """Each operation type's figures (TPC-C-like transactions) into the run's params, under
    ``transactions``: per-run figures beside the run's options, no table of their own."""
    cur.execute(
        "UPDATE runs SET params = json_merge_patch(coalesce(params, '{}'), ?) WHERE run_id = ?",
        [json.dumps({"transactions": per_type}), run_id],
    )


def set_status(
    cur: duckdb.DuckDBPyConnection,
    run_id: int,
    status: str,
    error: str | None = None,
    finished_at: datetime | None = None,
) -> None:
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    cur.execute(
        "UPDATE runs SET status = ?, error = coalesce(?, error), "
        "finished_at = coalesce(?, finished_at, current_timestamp) WHERE run_id = ?",
        [status, error, finished_at, run_id],
    )


def save_raw(cur: duckdb.DuckDBPyConnection, run_id: int, kind: str, name: str, text: str) -> None:
    """Keep a raw file with the run (compressed; :func:`store.raw.read_raw` reads it back)."""
    raw.save_raw(cur, run_id, kind, name, text)
