"""Views and comments that make the store readable without benchdeck.

The tables are normalised (a run's host, build and workload are ids); these views answer the
common questions in one ``SELECT`` and carry the run's identity on every sample. They are
derived, not data: :func:`apply` replaces them after every migration, so a migration that changes
a table only has to keep the view's columns meaning the same thing.
"""

# ruff: noqa: S608 - view names, columns and comments are this module's constants; no user values

from __future__ import annotations

from typing import Final

import duckdb

from benchdeck.store.storage.column_docs import describe

_RUN_IDENTITY: Final = """
    r.run_id, h.name AS host, b.name AS build, b.dbms, b.version, b.fork, b.variant,
    r.config, w.name AS workload, w.family, r.threads AS dop"""

_RUN_JOINS: Final = """
    JOIN runs r USING (run_id)
    JOIN hosts h ON h.host_id = r.host_id
    JOIN builds b ON b.build_id = r.build_id
    JOIN workloads w ON w.workload_id = r.workload_id"""

VIEWS: Final[dict[str, str]] = {
    "run_results": f"""
        SELECT {_RUN_IDENTITY},
            r.status, r.error, r.source, r.tags, r.tables, r.table_size, r.device,
            r.started_at, r.finished_at, r.created_at,
            s.qps, s.tps, s.eps, s.lat_avg_ms, s.lat_pct_ms, s.lat_pct, s.lat_max_ms,
            s.total_events, s.elapsed_s,
            s.cpu_o, s.cs_o, s.r_o, s.rkb_o, s.wkb_o, s.cpu_us_o, s.per_op_source, s.per_op_ops,
            s.bench_samples, s.vm_samples, s.io_samples, s.tool_version
        FROM runs r
        JOIN hosts h ON h.host_id = r.host_id
        JOIN builds b ON b.build_id = r.build_id
        JOIN workloads w ON w.workload_id = r.workload_id
        LEFT JOIN run_summary s ON s.run_id = r.run_id
    """,
    "bench_series": f"""
        SELECT {_RUN_IDENTITY},
            x.t, x.threads, x.qps, x.tps, x.reads, x.writes, x.other,
            x.latency_ms, x.latency_pct, x.errors_s, x.reconnects_s
        FROM bench_samples x {_RUN_JOINS}
    """,
    "vmstat_series": f"""
        SELECT {_RUN_IDENTITY},
            x.seq, x.ts, x.r, x.b, x.swpd, x.free, x.buff, x.cache, x.si, x.so,
            x.bi, x.bo, x."in", x.cs, x.us, x.sy, x.id, x.wa, x.st, x.gu
        FROM vmstat_samples x {_RUN_JOINS}
    """,
    "iostat_series": f"""
        SELECT {_RUN_IDENTITY},
            x.seq, x.ts, x.device, x.r_s, x.w_s, x.rkb_s, x.wkb_s,
            x.rrqm_s, x.wrqm_s, x.r_await, x.w_await, x.aqu_sz, x.util
        FROM iostat_samples x {_RUN_JOINS}
    """,
    "counter_series": f"""
        SELECT {_RUN_IDENTITY},
            x.window_no, cw.start_s, cw.seconds, cw.target, cw.source,
            x.event, x.value, x.unit, x.running_pct, x.status
        FROM counter_values x JOIN counter_windows cw USING (run_id, window_no) {_RUN_JOINS}
    """,
}

_VIEW_NEEDS: Final[dict[str, tuple[str, ...]]] = {"counter_series": ("counter_windows", "counter_values")}
"""Tables a view reads that a store before their migration (12) does not have."""

_VIEW_COMMENTS: Final[dict[str, str]] = {
    "run_results": "One row per run: host, build (dbms, version, fork, variant), config, workload, "
    "dop, status, QPS, latency and per-op metrics (cpu/o, cs/o, r/o, rKB/o, wKB/o).",
    "bench_series": "Per-second benchmark samples (sysbench intervals, pgbench progress ...) with "
    "their run's identity; t = seconds since the measured step began.",
    "vmstat_series": "vmstat samples (one a second, the since-boot row dropped) with their run's "
    "identity; ts is the sample's time when vmstat printed one (-t).",
    "iostat_series": "iostat device rows (one a second per device) with their run's identity.",
    "counter_series": "perf stat counts, one row per window and event, with their run's identity; "
    "value NULL when perf did not count the event (status says why), never 0.",
}

TABLE_COMMENTS: Final[dict[str, str]] = {
    "hosts": "Machines benchmarks ran on; facts = the last `benchdeck hosts check` (JSON).",
    "builds": "DBMS builds: name as users write it (my8040_rel_o2nofp), parsed into dbms, version, "
    "fork and variant; version_key sorts versions.",
    "workloads": "Benchmark steps (point-query_range=100, readww.byrx, l.i0 ...) and their family.",
    "runs": "One workload on one host with one build and config: status, source (run/import), "
    "the command line (passwords masked), tags, timestamps.",
    "run_summary": "A run's result: QPS as the tool printed it, latency, per-op hardware metrics.",
    "bench_samples": "Per-second samples of the benchmark tool, by run_id.",
    "vmstat_samples": "vmstat samples by run_id (seq = sample number).",
    "iostat_samples": "iostat device rows by run_id (seq = report number).",
    "schema_version": "The schema migrations applied to this store (store/storage/schema.py).",
    "skipped_lines": "Output lines no parser could use, with the reason: kept, never dropped.",
    "raw_files": "The raw output files of a run as read, compressed (codec zstd or none; size = "
    "uncompressed bytes).",
    "remote_runs": "Remote processes of runs benchdeck started, for reattaching.",
    "run_records": "What a run ran on, captured when it ran: host facts, DBMS version and variables, "
    "config files, server binary version and git commit, command lines (passwords masked).",
    "queues": "Run matrices (hosts x builds x workloads).",
    "queue_items": "One queued run of a matrix, with its status and run_id once started.",
    "build_records": "Builds benchdeck compiled (benchdeck build / pgo), every attempt: recipe, "
    "variant, flags, compiler and version, duration, binary size, PGO training and measured "
    "workloads; the newest finished one per host and name is a registered build.",
    "counter_windows": "perf stat windows of a run: start (s after the measured phase began), "
    "length, what was counted (target) and where they came from (source).",
    "counter_values": "One event per perf stat window: value as perf scales it, NULL when not "
    "counted (status: 'not supported' / 'not counted'), never 0; running_pct when multiplexed.",
    "profile_windows": "perf record -g windows of a run: sampling event, frequency, samples.",
    "profile_stacks": "Folded call stacks per profile window (frames root first, ';'-joined) "
    "and their samples, as FlameGraph's stackcollapse writes them.",
    "capture_gaps": "perf windows a run's capture did not take (kind 'counters' or 'cpu'): when "
    "(start_s) and why (perf killed on the host, the target process gone).",
    "run_clusters": "A run on a cluster: its name, replication kind and lag limit; when it ended, "
    "the worst replica's max and p95 lag, whether a replica fell behind past the limit, its node "
    "faults, and the cluster's per-op metrics (each host counted once) per the primary's QPS.",
    "cluster_nodes": "The nodes of a run's cluster (one primary, replicas): host, role, port; "
    "per node its max and p95 lag and its per-op metrics per the primary's QPS.",
    "replica_lag": "Each replica's lag behind the primary, one row a second (t on the run's clock).",
    "node_vmstat_samples": "vmstat samples of a cluster's nodes by run_id and node (seq = sample number).",
    "node_iostat_samples": "iostat device rows of a cluster's nodes by run_id "
    "and node (seq = report number).",
    "node_faults": "A node that stopped replicating or went away during a run (or came back): when and why.",
}

COLUMN_COMMENTS: Final[dict[tuple[str, str], str]] = {
    ("runs", "threads"): "Concurrency (dop): client threads of the benchmark.",
    ("runs", "config"): "DBMS config name, e.g. z11a_c32r128 ('' when none).",
    ("runs", "status"): "queued, running, finished, failed or cancelled.",
    ("runs", "source"): "How the run got here: 'run' (started by benchdeck) or an importer's name.",
    ("runs", "content_key"): "Imported runs: a hash of the benchmark's output file (blake2b-128 of its "
    "bytes), so a file imported again from another path or copy is recognised; NULL for runs benchdeck ran.",
    ("runs", "dated_from"): "Imported runs: the evidence started_at comes from, best first: 'vmstat' or "
    "'iostat' (-t timestamps), 'sb.ps' (the first date line of the mytools run's sb.ps), 'sysbench' (a date "
    "line; 'Done at' an end), 'mtime' (the output's modification time, when its folder's are evidence), "
    "'suite order' (the mytools suite's step order and elapsed times from the folder's dated log); "
    "'undated'; NULL when ran.",
    ("run_summary", "qps"): "Operations per second: sysbench's final queries per sec., db_bench "
    "ops/sec, Insert Benchmark rows or queries per second; scans: rows per second.",
    ("run_summary", "cpu_o"): "cpu/o: vmstat us+sy averaged over the run, divided by QPS.",
    ("run_summary", "cs_o"): "cs/o: vmstat context switches per second divided by QPS.",
    ("run_summary", "r_o"): "r/o: iostat reads per second divided by QPS.",
    ("run_summary", "rkb_o"): "rKB/o: iostat KB read per second divided by QPS.",
    ("run_summary", "wkb_o"): "wKB/o: iostat KB written per second divided by QPS.",
    ("run_summary", "cpu_us_o"): "CPU microseconds per operation: cpu/o * ncpu * 10^4.",
    ("run_summary", "per_op_source"): "Where the per-op metrics came from: 'computed' from the run's "
    "vmstat/iostat samples, or 'imported' from the source's own per-op table (mytools sb.met).",
    ("run_summary", "per_op_ops"): "The o/s imported per-op metrics are per, as the source printed it "
    "(NULL: the QPS).",
    ("bench_samples", "t"): "Seconds since the measured step began.",
    ("queue_items", "threads"): "Client threads (dop) of this item; NULL: the queue's options.",
    ("queue_items", "repeat_no"): "Which repeat of its (build, config, dop, workload) cell, from 1; "
    "repeats are interleaved across builds (A B A B).",
}


def apply(cur: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the views and comments; called in the migration transaction. Every column of
    a table or view gets a comment (store/storage/column_docs.py)."""
    tables = {
        t for (t,) in cur.execute("SELECT DISTINCT table_name FROM information_schema.columns").fetchall()
    }
    for name, sql in VIEWS.items():
        if not tables.issuperset(_VIEW_NEEDS.get(name, ())):
            continue  # a store at a version before its tables (the migration tests make them)
        cur.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")  # our constants, not user values
        cur.execute(f"COMMENT ON VIEW {name} IS {_literal(_VIEW_COMMENTS[name])}")
    columns = cur.execute("SELECT table_name, column_name FROM information_schema.columns").fetchall()
    tables = {t for t, _ in columns}
    stmts = [f"COMMENT ON TABLE {t} IS {_literal(text)}" for t, text in TABLE_COMMENTS.items() if t in tables]
    kind = cur.execute("SELECT type FROM duckdb_databases() WHERE database_name = current_database()")
    if (row := kind.fetchone()) is not None and row[0] != "duckdb":  # DuckLake: no view column comments
        columns = [(t, c) for t, c in columns if t not in VIEWS]
    for table, column in columns:
        if (doc := describe(table, column, COLUMN_COMMENTS)) is not None:
            stmts.append(f'COMMENT ON COLUMN {table}."{column}" IS {_literal(doc)}')
    cur.execute(";\n".join(stmts))  # one call: ~320 statements one by one were slow


def _literal(text: str) -> str:
    """A SQL string literal of one of our constant comments (DDL takes no parameters)."""
    return "'" + text.replace("'", "''") + "'"
