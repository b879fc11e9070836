"""Benchmark: how to hand DuckDB a batch of rows, measured on the store's own tables and row shapes.

How it measures, its targets and its history: docs/performance.md (bench_inserts.py).

    python bench/bench_inserts.py [--repeat 15] [--tree PATH] [--import-repeat 3] [--runs 8]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb
import numpy as np

from bench.results import Figure, record
from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import BenchBatch, IostatBatch, VmstatBatch
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, VmstatSample
from benchdeck.store.importers import import_mytools_tree
from benchdeck.store.importers.writer import _RUN_COLS, _RUN_TYPES, _SUMMARY_COLS, _SUMMARY_TYPES
from benchdeck.store.storage import bulk
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.runs import NewRun, create_run
from benchdeck.store.storage.samples import append_many, append_skipped_many

Columns = Mapping[str, tuple[str, Sequence[Any]]]
Insert = Callable[[duckdb.DuckDBPyConnection, str, Columns], int]


def _arrow(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns) -> int:
    import pyarrow as pa

    types = {
        "BIGINT": pa.int64(), "INTEGER": pa.int32(), "DOUBLE": pa.float64(), "VARCHAR": pa.string(),
        "JSON": pa.string(), "TIMESTAMP": pa.timestamp("us"), "BLOB": pa.binary(),
    }  # fmt: skip
    tbl = pa.table({f"c{i}": pa.array(v, types[t]) for i, (t, v) in enumerate(columns.values())})
    select = ", ".join(
        f"CAST(c{i} AS JSON)" if t == "JSON" else f"c{i}" for i, (t, _) in enumerate(columns.values())
    )
    cur.register("_bd_rows", tbl)
    try:
        cur.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM _bd_rows")
    finally:
        cur.unregister("_bd_rows")
    return tbl.num_rows


def _scan(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns, data: object, masked: bool) -> int:
    select = ", ".join(
        f"CAST(if(m{i}, NULL, c{i}) AS {t})" if masked and f"m{i}" in data else f"CAST(c{i} AS {t})"  # type: ignore[operator]
        for i, (t, _) in enumerate(columns.values())
    )
    cur.register("_bd_rows", data)
    try:
        cur.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM _bd_rows")
    finally:
        cur.unregister("_bd_rows")
    return len(next(iter(columns.values()))[1])


def _nanoarrow(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns) -> int:
    """Every table as a nanoarrow batch (store.bulk's fallback, used for all)."""
    n = len(next(iter(columns.values()))[1])
    return _scan(cur, table, columns, bulk._arrow_batch(columns, n), masked=False)


def _numpy(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns) -> int:
    """Every table as NumPy arrays; a column no typed array holds is an object array."""
    arrays: dict[str, Any] = {}
    for i, (name, (t, v)) in enumerate(columns.items()):
        one = bulk._numpy({name: (t, v)})
        if one is None:
            one = {"c0": np.empty(len(v), dtype=object)}
            one["c0"][:] = v
        arrays.update({k[0] + str(i): a for k, a in one.items()})
    return _scan(cur, table, columns, arrays, masked=True)


def _lists(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns) -> int:
    select = ", ".join(f"unnest(${i + 1}::{t}[])" for i, (t, _) in enumerate(columns.values()))
    cur.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}",
        [list(v) for _, v in columns.values()],
    )
    return len(next(iter(columns.values()))[1])


def _rows(columns: Columns) -> list[tuple[Any, ...]]:
    return list(zip(*(v for _, v in columns.values()), strict=True))


def _placeholders(columns: Columns) -> str:
    return "(" + ", ".join(f"?::{t}" for t, _ in columns.values()) + ")"


def _values(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns) -> int:
    rows = _rows(columns)
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES " + ", ".join(
        [_placeholders(columns)] * len(rows)
    )
    cur.execute(sql, [v for r in rows for v in r])
    return len(rows)


def _executemany(cur: duckdb.DuckDBPyConnection, table: str, columns: Columns) -> int:
    rows = _rows(columns)
    cur.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {_placeholders(columns)}", rows)
    return len(rows)


BULK: Insert = bulk.insert_columns
METHODS: dict[str, Insert] = {
    "arrow": _arrow, "bulk": BULK, "numpy": _numpy, "nanoarrow": _nanoarrow, "lists": _lists,
    "values": _values, "executemany": _executemany,
}  # fmt: skip
SLOW = {"lists", "values", "executemany"}  # measured once on big batches: seconds each
WORKLOAD_METHODS = ("arrow", "bulk", "numpy", "nanoarrow", "lists")


# --- the store's row shapes ------------------------------------------------------------------
def bench_rows(n: int) -> list[BenchInterval]:
    return [
        BenchInterval(float(i), 16, 1000.0 + i, 20000.0 + i, 14000.0, 4000.0, 2000.0, 1.5, 95.0)
        for i in range(n)
    ]


def vm_rows(n: int) -> list[VmstatSample]:
    ts = "2026-11-21 19:52:23"
    return [VmstatSample(i, 3, 0, 0, 10**9, 10**6, 10**8, 0, 0, 5, 900, 9000, 12000, 30, 10, 60, 0, 0, None,
                         ts)
            for i in range(n)]  # fmt: skip


def io_rows(n: int, devices: int = 4) -> list[IostatSample]:
    return [
        IostatSample(i // devices, f"nvme{i % devices}n1", 1.0, 2000.0, 3.0, 80000.0, 0.0, 10.0, 0.1, 0.2,
                     1.5, 50.0, "2026-11-21 19:52:23")
        for i in range(n)
    ]  # fmt: skip


def skipped_rows(n: int) -> list[SkippedLine]:
    return [SkippedLine(i, f"garbage line {i} ###", "not numeric") for i in range(n)]


def runs_columns(first_id: int, n: int) -> dict[str, tuple[str, Sequence[Any]]]:
    now = datetime(2026, 11, 21, 19, 52, 23)
    values: dict[str, list[Any]] = {
        "run_id": list(range(first_id, first_id + n)), "host_id": [1] * n, "build_id": [1] * n,
        "workload_id": [1] * n, "config": ["c8r32"] * n, "threads": [16] * n, "tables": [8] * n,
        "table_size": [10_000_000] * n, "device": [None] * n, "status": ["finished"] * n,
        "source": ["mytools"] * n, "source_path": [f"/arc/x.c8r32.pk1/sb.o.step{i}" for i in range(n)],
        "command": ["sysbench --threads=16 --tables=8 --table-size=10000000 oltp_read_only run"] * n,
        "params": ['{"range": 100, "threads": 16}'] * n, "created_at": [now] * n, "started_at": [now] * n,
        "finished_at": [now] * n,
    }  # fmt: skip
    return {c: (_RUN_TYPES[c], values[c]) for c in _RUN_COLS}


def summary_columns(first_id: int, n: int) -> dict[str, tuple[str, Sequence[Any]]]:
    values: dict[str, list[Any]] = {c: [1.5 + i for i in range(n)] for c in _SUMMARY_COLS}
    values["run_id"] = list(range(first_id, first_id + n))
    for c in ("total_events", "bench_samples", "vm_samples", "io_samples"):
        values[c] = [300] * n
    values["tool_version"] = ["1.0.20"] * n
    values["per_op_source"] = ["computed"] * n
    values["tps"] = [None] * n
    return {c: (_SUMMARY_TYPES[c], values[c]) for c in _SUMMARY_COLS}


def raw_columns(first_id: int, n: int) -> dict[str, tuple[str, Sequence[Any]]]:
    rng = random.Random(1)
    sizes = [rng.choice((540, 540, 4_000, 30_000)) for _ in range(n)]  # hetz.2: median 541 B, mean 9.4 kB
    return {
        "run_id": ("BIGINT", [first_id + i // 2 for i in range(n)]),
        "kind": ("VARCHAR", ["output"] * n),
        "name": ("VARCHAR", [f"sb.o.step{i}" for i in range(n)]),
        "codec": ("VARCHAR", ["zstd"] * n),
        "size": ("BIGINT", [s * 15 for s in sizes]),
        "data": ("BLOB", [rng.randbytes(s) for s in sizes]),
    }


def batches(run_id: int) -> list[tuple[str, str, int, Callable[[duckdb.DuckDBPyConnection], int]]]:
    """(kind, what, rows, insert) for each batch measured; inserts go through store.bulk."""
    out: list[tuple[str, str, int, Callable[[duckdb.DuckDBPyConnection], int]]] = []

    def samples(kind: str, rows: Sequence[Any], runs: int = 1) -> Callable[[duckdb.DuckDBPyConnection], int]:
        per = len(rows) // runs
        split = [(run_id, rows[i * per : (i + 1) * per]) for i in range(runs)]
        return lambda cur: append_many(cur, kind, split)

    for n in (1, 4, 16):
        out.append(("live", "bench_samples", n, samples("bench", bench_rows(n))))
    for n in (1, 16):
        out.append(("live", "vmstat_samples", n, samples("vmstat", vm_rows(n))))
    for n in (4, 16):
        out.append(("live", "iostat_samples", n, samples("iostat", io_rows(n))))
    out.append(
        (
            "live",
            "skipped_lines",
            1,
            lambda cur: append_skipped_many(cur, [(run_id, "vmstat", skipped_rows(1))]),
        )
    )
    out.append(("import", "bench_samples", 3600, samples("bench", bench_rows(3600), runs=12)))
    out.append(("import", "vmstat_samples", 3600, samples("vmstat", vm_rows(3600), runs=12)))
    out.append(("import", "iostat_samples", 3600, samples("iostat", io_rows(3600), runs=12)))
    out.append(
        (
            "import",
            "skipped_lines",
            100,
            lambda cur: append_skipped_many(cur, [(run_id, "vmstat", skipped_rows(100))]),
        )
    )
    ids = iter(range(10**9, 2 * 10**9, 1000))  # runs' primary keys: fresh ones per insert
    out.append(
        ("import", "runs", 500, lambda cur: bulk.insert_columns(cur, "runs", runs_columns(next(ids), 500)))
    )
    out.append(
        (
            "import",
            "run_summary",
            500,
            lambda cur: bulk.insert_columns(cur, "run_summary", summary_columns(next(ids), 500)),
        )
    )
    raw = raw_columns(1, 1000)
    out.append(("import", "raw_files", 1000, lambda cur: bulk.insert_columns(cur, "raw_files", raw)))
    return out


def use(method: Insert) -> None:
    bulk.insert_columns = method  # samples.py and writer.py call it through the module


def per_batch(db: Path, methods: list[str], repeat: int) -> None:
    print(f"Part 1: one committed batch, median ms of {repeat} (methods interleaved)")
    with Store.open(db) as store:
        with store.transaction() as cur:
            rid = create_run(cur, NewRun("h", parse_build_name("ma110_rel"), "insert_range=100", "bench"))
        head = f"{'batch':<8}{'table':<16}{'rows':>6}" + "".join(f"{m:>12}" for m in methods)
        print(head + "   ratio to bulk")
        for kind, table, n, insert in batches(rid):
            times: dict[str, list[float]] = {m: [] for m in methods}
            for r in range(repeat):
                for m in methods:
                    if m in SLOW and n > 100 and r > 0:
                        continue
                    use(METHODS[m])
                    with store.transaction() as cur:  # the commit (the same for all) is not timed
                        t0 = time.perf_counter()
                        insert(cur)
                        times[m].append(time.perf_counter() - t0)
            med = {m: 1000 * statistics.median(v) for m, v in times.items()}
            ratios = " ".join(f"{m} x{med[m] / med['bulk']:.2f}" for m in methods if m != "bulk")
            cells = "".join(f"{med[m]:>12.2f}" for m in methods)
            print(f"{kind:<8}{table:<16}{n:>6}{cells}   {ratios}",
                  flush=True)  # fmt: skip
    use(BULK)


def import_once(tree: Path, method: Insert) -> tuple[float, float, int]:
    use(method)
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "import.duckdb") as store:
        c0, t0 = time.process_time(), time.perf_counter()
        res = import_mytools_tree(store, tree, "bench")
        return time.perf_counter() - t0, time.process_time() - c0, len(res.run_ids)


def live_flushes(db: Path, method: Insert, runs: int, flushes: int) -> float:
    """CPU ms per EventSink flush: ``runs`` runs, each 1 bench + 1 vmstat + 4 iostat rows."""
    use(method)
    with Store.open(db) as store:
        with store.transaction() as cur:
            ids = [
                create_run(cur, NewRun(f"h{i}", parse_build_name("ma110_rel"), "insert_range=100", "bench"))
                for i in range(runs)
            ]
        sink = EventSink(store, batch_time=3600.0)
        cpu: list[float] = []
        for k in range(flushes):
            for rid in ids:
                sink.handle(BenchBatch(rid, tuple(bench_rows(1))))
                sink.handle(VmstatBatch(rid, tuple(vm_rows(1))))
                sink.handle(IostatBatch(rid, tuple(io_rows(4))))
            c0 = time.process_time()
            sink.flush()
            if k >= 5:  # the first flushes warm up
                cpu.append(time.process_time() - c0)
        return 1000 * statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--tree", type=Path, help="a mytools result tree to import per method (part 2)")
    ap.add_argument("--import-repeat", type=int, default=3)
    ap.add_argument("--runs", type=int, default=8, help="live runs per sink flush (part 2)")
    ap.add_argument("--flushes", type=int, default=200)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument(
        "--import-methods", default="arrow,bulk,numpy,nanoarrow", help="lists: ~30x slower per batch, minutes"
    )
    args = ap.parse_args()
    methods = args.methods.split(",")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print("pyarrow is not installed: no 'arrow' baseline (pip install pyarrow to compare)")
        methods = [m for m in methods if m != "arrow"]
    print(f"duckdb {duckdb.__version__}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        per_batch(Path(tmp) / "batches.duckdb", methods, args.repeat)
        wl = [m for m in WORKLOAD_METHODS if m in methods]
        print(f"\nPart 2: live EventSink flush, {args.runs} runs x (1 bench + 1 vmstat + 4 iostat rows), "
              f"CPU ms per flush, median of {args.flushes}")  # fmt: skip
        live = {
            m: live_flushes(Path(tmp) / f"live-{m}.duckdb", METHODS[m], args.runs, args.flushes) for m in wl
        }
        for m in wl:
            print(f"  {m:<10}{live[m]:8.2f} ms  (x{live[m] / live['bulk']:.2f} of bulk)")
        flush = f"live flush of {args.runs} runs, CPU"
        figures = [
            Figure(f"{flush}, {m}", live[m], "ms", live["bulk"], "bulk (NumPy arrays)")
            for m in wl
            if m != "bulk"
        ]
        figures.append(Figure(f"{flush}, bulk", live["bulk"], "ms"))
        if args.tree:
            print(
                f"\nPart 2: import mytools {args.tree}, median of {args.import_repeat} (methods interleaved)"
            )
            wl = [m for m in args.import_methods.split(",") if m in methods]
            res: dict[str, list[tuple[float, float, int]]] = {m: [] for m in wl}
            for _ in range(args.import_repeat):
                for m in wl:
                    res[m].append(import_once(args.tree, METHODS[m]))
            base = statistics.median(w for w, _, _ in res["bulk"])
            for m in wl:
                wall = statistics.median(w for w, _, _ in res[m])
                cpu = statistics.median(c for _, c, _ in res[m])
                each = ", ".join(f"{w:.2f}" for w, _, _ in res[m])
                print(f"  {m:<10}wall {wall:6.2f} s (x{wall / base:.2f} of bulk), CPU {cpu:6.2f} s, "
                      f"{res[m][0][2]} runs; each: {each}")  # fmt: skip
                figures.append(
                    Figure(f"import mytools {args.tree}, wall, {m}", wall, "s", base, "bulk (NumPy arrays)")
                )
        use(BULK)
    record("bench_inserts", figures, args)


if __name__ == "__main__":
    main()
