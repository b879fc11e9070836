"""What every column of the store means: the comments ``duckdb_columns()`` shows.

Apart from store/storage/views.py (which holds the views, the table comments and the few column comments
that came first) because one comment per column of ~20 tables and 4 views is most of a module.
A column is described by its own entry (table, column), else, for a view, by the entry of the
table it comes from (:data:`VIEW_SOURCES`), else by its name (:data:`BY_NAME`: ``run_id`` means
the same everywhere). Units follow the tools' own output (vmstat(8), iostat(1), sysbench).
"""

from __future__ import annotations

from typing import Final

BY_NAME: Final[dict[str, str]] = {
    # identity of a run, as the views carry it on every row
    "run_id": "The run (runs.run_id).",
    "host": "Host name, as in the inventory and `benchdeck hosts list`.",
    "build": "Build name as users write it, e.g. my8040_rel_o2nofp (builds.name).",
    "dbms": "DBMS: mysql, mariadb, postgres, rocksdb, sqlite ...",
    "version": "DBMS version, e.g. 8.0.40.",
    "fork": "Fork or line of the build ('' for upstream), e.g. adv in my8040adv_rel_o2nofp.",
    "variant": "Build variant, e.g. rel_o2nofp, rel_lto.",
    "config": "DBMS server config name, e.g. z11a_c32r128 ('' when none).",
    "workload": "Workload (benchmark step) name, e.g. point-query_range=100.",
    "family": "Workload family: sysbench, dbbench, insertbench, pgbench, tpcc or builtin.",
    "dop": "Concurrency (client threads) of the run.",
    "device": "Storage device of the benchmark, as iostat names it (e.g. nvme0n1).",
    "status": "State: queued, running, finished, failed or cancelled (builds and queue items: "
    "their own steps).",
    "error": "Why it failed, as one line (NULL when it did not).",
    "source": "Where the row came from: 'run' (started by benchdeck) or an importer/tool name.",
    "created_at": "When the row was made (local time).",
    "started_at": "When it started (local time; NULL when unknown).",
    "finished_at": "When it ended (local time; NULL while running or when unknown).",
    "name": "Name, unique in its table.",
    "seq": "Sample number within the run, from 0 (report order).",
    "ts": "The sample's time as the tool printed it (vmstat -t, iostat -t), as TIMESTAMP; NULL "
    "when it printed none.",
    "window_no": "Window number within the run, from 0.",
    "start_s": "Seconds after the measured phase began when the window started (NULL: unknown).",
    "seconds": "Length of the window in seconds.",
    "target": "What was counted or sampled: 'pid 1234', 'pids 1,2,3' or 'all'.",
    "samples": "Number of samples.",
    "event": "perf event name, e.g. cycles, instructions, cpu-clock.",
    # bench_samples and run_summary: the benchmark's own figures
    "threads": "Client threads the tool reported for the interval.",
    "qps": "Queries (operations) per second.",
    "tps": "Transactions per second (sysbench: events per second).",
    "eps": "Events per second as the tool printed it.",
    "reads": "Read statements per second.",
    "writes": "Write statements per second.",
    "other": "Other statements (BEGIN, COMMIT ...) per second.",
    "latency_ms": "Latency of the interval in ms at the percentile in latency_pct (sysbench's lat (ms,95%)).",
    "latency_pct": "The percentile latency_ms is at (e.g. 95).",
    "errors_s": "Errors per second.",
    "reconnects_s": "Reconnects per second.",
    "lat_avg_ms": "Average latency in ms over the run.",
    "lat_pct_ms": "Latency in ms at the percentile lat_pct over the run.",
    "lat_pct": "The percentile lat_pct_ms is at (e.g. 95).",
    "lat_max_ms": "Maximum latency in ms.",
    "total_events": "Events (transactions) the tool counted over the run.",
    "elapsed_s": "Seconds measured (the tool's total time).",
    "bench_samples": "Number of per-second benchmark samples stored (bench_samples).",
    "vm_samples": "Number of vmstat samples stored (vmstat_samples).",
    "io_samples": "Number of iostat rows stored (iostat_samples).",
    "tool_version": "Version of the benchmark tool that ran (e.g. sysbench 1.1.0).",
    # vmstat(8) columns, one sample a second
    "r": "vmstat r: runnable processes (running or waiting for a CPU).",
    "b": "vmstat b: processes in uninterruptible sleep (usually waiting for I/O).",
    "swpd": "vmstat swpd: swap used, KB.",
    "free": "vmstat free: idle memory, KB.",
    "buff": "vmstat buff: memory used as buffers, KB.",
    "cache": "vmstat cache: memory used as page cache, KB.",
    "si": "vmstat si: memory swapped in from disk, KB/s.",
    "so": "vmstat so: memory swapped out to disk, KB/s.",
    "bi": "vmstat bi: blocks received from block devices, per second.",
    "bo": "vmstat bo: blocks sent to block devices, per second.",
    "in": "vmstat in: interrupts per second.",
    "cs": "vmstat cs: context switches per second.",
    "us": "vmstat us: % of CPU time in user code (all CPUs).",
    "sy": "vmstat sy: % of CPU time in the kernel.",
    "id": "vmstat id: % of CPU time idle.",
    "wa": "vmstat wa: % of CPU time waiting for I/O.",
    "st": "vmstat st: % of CPU time stolen by the hypervisor.",
    "gu": "vmstat gu: % of CPU time running guests (newer vmstat; NULL when not printed).",
    # iostat -x columns, one report a second per device
    "r_s": "iostat r/s: reads completed per second.",
    "w_s": "iostat w/s: writes completed per second.",
    "rkb_s": "iostat rkB/s: KB read per second.",
    "wkb_s": "iostat wkB/s: KB written per second.",
    "rrqm_s": "iostat rrqm/s: read requests merged per second.",
    "wrqm_s": "iostat wrqm/s: write requests merged per second.",
    "r_await": "iostat r_await: average ms per read, queueing included.",
    "w_await": "iostat w_await: average ms per write, queueing included.",
    "aqu_sz": "iostat aqu-sz: average queue length of the device.",
    "util": "iostat %util: % of time the device had I/O in flight.",
    # per-op metrics (docs/domain.md): vmstat/iostat averages over the run divided by QPS
    "cpu_o": "cpu/o: vmstat us+sy averaged over the run, divided by QPS.",
    "cs_o": "cs/o: vmstat context switches per second divided by QPS.",
    "r_o": "r/o: iostat reads per second divided by QPS.",
    "rkb_o": "rKB/o: iostat KB read per second divided by QPS.",
    "wkb_o": "wKB/o: iostat KB written per second divided by QPS.",
    "cpu_us_o": "CPU microseconds per operation: cpu/o * ncpu * 10^4.",
    "per_op_source": "Where the per-op metrics came from: 'computed' from the run's vmstat/iostat "
    "samples, or 'imported' from the source's own per-op table (mytools sb.met).",
    "per_op_ops": "The o/s imported per-op metrics are per, as the source printed it (NULL: the QPS).",
    # runs
    "tables": "Number of benchmark tables (sysbench --tables).",
    "table_size": "Rows per benchmark table (sysbench --table-size).",
    "tags": "User tags (benchdeck tag / the Runs screen).",
    "remote_dir": "The run directory on its host (raw outputs, pid files).",
    "procs": "Remote processes (name, pid, process group, output file) as JSON, for reattaching.",
}

SPECIFIC: Final[dict[tuple[str, str], str]] = {
    ("schema_version", "version"): "A schema migration applied to this store (store/storage/schema.py).",
    ("schema_version", "applied_at"): "When the migration was applied.",
    ("hosts", "host_id"): "Host id (runs.host_id).",
    ("hosts", "name"): "Host name, as in the inventory.",
    ("hosts", "ncpu"): "CPUs of the host (for cpu_us_o).",
    ("hosts", "facts"): "The last `benchdeck hosts check`: CPU, RAM, disks, kernel, tools (JSON).",
    ("hosts", "facts_at"): "When facts were recorded.",
    ("builds", "build_id"): "Build id (runs.build_id).",
    ("builds", "name"): "Build name as users write it, e.g. my8040_rel_o2nofp.",
    ("builds", "version_key"): "version zero-padded so that it sorts (0008.0000.0040).",
    ("workloads", "workload_id"): "Workload id (runs.workload_id).",
    ("workloads", "name"): "Workload name, e.g. point-query_range=100, readww.byrx, l.i0.",
    ("runs", "run_id"): "Run id, referenced by every per-run table.",
    ("runs", "host_id"): "The host it ran on (hosts.host_id).",
    ("runs", "build_id"): "The build it ran (builds.build_id).",
    ("runs", "workload_id"): "The workload it ran (workloads.workload_id).",
    ("runs", "source_path"): "The imported file or result folder (NULL for runs benchdeck started).",
    ("runs", "command"): "The benchmark's command line, passwords masked.",
    ("runs", "params"): "Run options (duration, warm-up, table size ...) as JSON.",
    ("run_summary", "run_id"): "The run (runs.run_id); one row per run with a result.",
    ("run_summary", "tps"): "Transactions per second as the tool printed it.",
    ("bench_samples", "threads"): "Client threads the tool reported for the interval.",
    ("skipped_lines", "source"): "Which output the line came from (sysbench, vmstat, iostat ...).",
    ("skipped_lines", "lineno"): "Line number in that output, from 1.",
    ("skipped_lines", "text"): "The line as read.",
    ("skipped_lines", "reason"): "Why no parser used it.",
    ("raw_files", "kind"): "What the file is: sysbench, vmstat, iostat, met, output ...",
    ("raw_files", "name"): "The file's name as read or written on the host.",
    ("raw_files", "codec"): "Compression of data: zstd or none (store.raw.read_raw reads both).",
    ("raw_files", "size"): "Uncompressed size in bytes.",
    ("raw_files", "data"): "The file's bytes, compressed with codec.",
    ("remote_runs", "host"): "Host the run's processes run on.",
    ("remote_runs", "plan"): "The run's plan (commands, files, durations) as JSON, for reattaching.",
    ("remote_runs", "started_at"): "When the run's processes were started.",
    ("run_records", "host_facts"): "The host's facts when the run started (JSON).",
    ("run_records", "dbms_version"): "The DBMS's version string (SELECT version()).",
    ("run_records", "variables"): "SHOW GLOBAL VARIABLES / pg_settings when the run started (JSON).",
    ("run_records", "config_files"): "The DBMS config files' content (JSON: path -> text).",
    ("run_records", "binary_version"): "The server binary's --version output.",
    ("run_records", "git_commit"): "The basedir's git commit, where it has one.",
    ("run_records", "commands"): "The exact command lines run, passwords masked (JSON).",
    ("run_records", "notes"): "What could not be recorded, and why (JSON list).",
    ("run_records", "recorded_at"): "When the record was taken.",
    ("queues", "queue_id"): "Queue id (benchdeck cancel --queue N).",
    ("queues", "created_at"): "When the queue was made.",
    ("queues", "options"): "The queue's run options (threads, durations ...) as JSON.",
    ("queue_items", "item_id"): "Queue item id.",
    ("queue_items", "queue_id"): "Its queue (queues.queue_id).",
    ("queue_items", "position"): "Order within the queue, from 0.",
    ("queue_items", "status"): "pending, running, done, failed or cancelled.",
    ("queue_items", "run_id"): "The run once started (NULL before).",
    ("queue_items", "config"): "The build's server config to use (NULL: its default).",
    ("build_records", "build_run_id"): "Build attempt id (from the runs' sequence: never a run's).",
    ("build_records", "host"): "Host the build was compiled on.",
    ("build_records", "name"): "Build name it registers, e.g. my8040_rel_lto.",
    ("build_records", "recipe"): "Build recipe (inventory), e.g. mysql, sqlite.",
    ("build_records", "variant"): "Variant built, e.g. rel_o2nofp, rel_lto, rel_pgo_use.",
    ("build_records", "base_variant"): "The variant a PGO build starts from (NULL otherwise).",
    ("build_records", "status"): "queued, running, finished, failed or cancelled.",
    ("build_records", "prefix"): "Install prefix on the host.",
    ("build_records", "binary_path"): "The server (or library) binary built.",
    ("build_records", "library_dir"): "Directory of its shared library, when it is one (SQLite).",
    ("build_records", "cflags"): "Compiler flags used.",
    ("build_records", "ldflags"): "Linker flags used.",
    ("build_records", "spec"): "The whole build specification as JSON.",
    ("build_records", "compiler"): "Compiler used (gcc, clang).",
    ("build_records", "compiler_version"): "Its version output.",
    ("build_records", "duration_s"): "Seconds the build took.",
    ("build_records", "step_seconds"): "Seconds per build step (configure, make ...) as JSON.",
    ("build_records", "binary_size"): "Size of binary_path in bytes.",
    ("build_records", "profile_dir"): "Where PGO profiles were written (NULL without PGO).",
    ("build_records", "profile_files"): "PGO profile files found after training.",
    ("build_records", "missing_profiles"): "Objects the PGO build found no profile for.",
    ("build_records", "training"): "PGO training workloads and their runs (JSON).",
    ("build_records", "measured"): "Workloads measured after a PGO build (JSON).",
    ("build_records", "probe"): "Output of the built binary's --version (a check that it runs).",
    ("build_records", "remote_dir"): "The build's directory on its host (logs).",
    ("build_records", "procs"): "The build's remote processes (JSON), for reattaching.",
    ("build_records", "log_tail"): "The end of the build log (on failure: why).",
    ("counter_windows", "source"): "Where the counts came from: perf stat live, or an import.",
    ("counter_values", "event"): "perf event name, e.g. cycles, instructions, cache-misses.",
    ("counter_values", "value"): "The count as perf scales it; NULL when not counted (never 0).",
    ("counter_values", "unit"): "Unit perf printed ('' for a plain count, msec for task-clock).",
    ("counter_values", "running_pct"): "% of the window the event was counted (multiplexing).",
    ("counter_values", "status"): "counted, 'not supported' or 'not counted'.",
    ("capture_gaps", "kind"): "What was not captured: counters (perf stat) or cpu (perf record).",
    ("capture_gaps", "reason"): "Why the window is missing, e.g. perf was killed on the host.",
    ("counter_series", "value"): "The count as perf scales it; NULL when not counted (never 0).",
    ("counter_series", "unit"): "Unit perf printed ('' for a plain count, msec for task-clock).",
    ("counter_series", "running_pct"): "% of the window the event was counted (multiplexing).",
    ("profile_windows", "event"): "Sampling event (cpu-clock or cycles).",
    ("profile_windows", "frequency_hz"): "Sampling frequency (NULL when unknown, e.g. imported SVGs).",
    ("profile_windows", "samples"): "Samples in the window.",
    ("profile_windows", "seconds"): (
        "How long perf recorded; 0 when unknown (an import without --seconds: ratios only)."
    ),
    ("profile_windows", "source"): (
        "Where the profile came from: 'perf record -g' (captured live), or an import ('svg', 'folded', "
        "'perf-script'), kept beside the captured windows."
    ),
    ("profile_stacks", "stack"): "Call stack, frames root first joined by ';' (FlameGraph folded).",
    ("profile_stacks", "samples"): "Samples with that stack.",
}

VIEW_SOURCES: Final[dict[str, tuple[str, ...]]] = {
    "run_results": ("runs", "run_summary"),
    "bench_series": ("bench_samples",),
    "vmstat_series": ("vmstat_samples",),
    "iostat_series": ("iostat_samples",),
}
"""Where a view's columns come from: a column takes that table's comment."""


def describe(table: str, column: str, first: dict[tuple[str, str], str]) -> str | None:
    """The comment of ``table.column``: ``first`` (views.py's own), then :data:`SPECIFIC`, then
    the source table's of a view, then :data:`BY_NAME`."""
    for key in ((table, column), *((src, column) for src in VIEW_SOURCES.get(table, ()))):
        if key in first:
            return first[key]
        if key in SPECIFIC:
            return SPECIFIC[key]
    return BY_NAME.get(column)
