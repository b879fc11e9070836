"""Insert Benchmark client: runs one step against MariaDB/MySQL or PostgreSQL and reports it.

``python3 -m benchdeck.engine.families.insertbench.client --dbms mariadb --host H --port P --user U
--password X --database D --step l.i0 --rows N --report-interval 1`` (``--help`` lists all options).

Output (read by :class:`engine.parsers.insertbench.InsertBenchParser`): the effective command
line (password masked), ``dbms: <server version>``, one line per report interval::

    [ 3s ] step: qr100 thds: 3 ips: 100.00 dps: 100.00 qps: 1234.50 lat (ms,95%): 1.23 max_ins_lag_s: 0.00

(``ixps: rows indexed/s`` follows ``qps`` in l.x; a shorter last interval may end the step) and
a summary block ending with ``elapsed: S s``. Each worker (inserter, deleter, query thread,
indexer) is a process with its own connection. Background inserts of query steps are paced by
a token bucket; achieving < 95 % of ``--rate`` on any table prints ``sla: failed`` and exits 3.
Exit status 1: a database error (an ``ERROR:`` line says which).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import shlex
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from benchdeck.engine.families.insertbench import schema
from benchdeck.engine.families.insertbench.steps import CLIENT_MODULE, Config, get_step
from benchdeck.engine.families.insertbench.workers import (
    DONE_NS,
    ERRS,
    HIST,
    LAT_MAX_US,
    LAT_SUM_US,
    LO_MS,
    MULT,
    NB,
    OPS,
    ROWS,
    SLOT,
    Job,
    build_jobs,
    work,
)

SLA_FRACTION = 0.95
EXIT_ERROR, EXIT_SLA = 1, 3
MAIN_KIND = {"load": "insert", "write": "insert", "index": "index", "query": "query"}


def _positive(kind: type[int] | type[float]) -> Any:
    def conv(text: str) -> int | float:
        value = kind(text)
        if not value >= 0 or math.isinf(value):
            raise argparse.ArgumentTypeError(f"must be >= 0: {text}")
        return value

    return conv


def add_connection_options(p: argparse.ArgumentParser, database: str) -> None:
    """--dbms, --host, --port (default: the DBMS's), --user, --password, --database."""
    p.add_argument("--dbms", required=True, choices=schema.DBMS_NAMES)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int)
    p.add_argument("--user", default="root")
    p.add_argument("--password", default="")
    p.add_argument("--database", default=database)


def parse_args(argv: Sequence[str] | None = None) -> Config:
    """Options -> Config (step defaults filled in from engine.insertbench.steps); exits 2 if invalid."""
    p = argparse.ArgumentParser(prog="python3 -m " + CLIENT_MODULE, description="Insert Benchmark client")
    add_connection_options(p, database="ib")
    p.add_argument("--table-count", type=int, default=1)
    p.add_argument("--table-prefix", default="pi")
    p.add_argument(
        "--step", required=True, help="l.i0 l.x l.i1 l.i2 qr100 qp100 qr500 qp500 qr1000 qp1000, qrN, qpN"
    )
    p.add_argument("--rows", type=_positive(int), help="rows per table to insert (load/write steps)")
    p.add_argument("--seconds", type=_positive(float), help="run time of query steps, cap for others")
    p.add_argument("--rate", type=_positive(float), help="inserts/s per table (0 = unlimited)")
    p.add_argument("--query-threads", type=_positive(int))
    p.add_argument("--insert-threads", type=int, default=1)
    p.add_argument("--delete-per-insert", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--rows-per-commit", type=int)
    p.add_argument("--rows-per-query", type=int, default=10)
    p.add_argument("--data-length-min", type=_positive(int), default=10)
    p.add_argument("--data-length-max", type=_positive(int), default=20)
    p.add_argument("--report-interval", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    try:
        st = get_step(a.step)
    except ValueError as exc:
        p.error(str(exc))
    if not schema.valid_prefix(a.table_prefix):
        p.error(f"--table-prefix must match [a-z][a-z0-9_]*: {a.table_prefix!r}")
    bad = [n for n in ("table_count", "insert_threads", "rows_per_query") if getattr(a, n) < 1]
    if bad or (a.rows_per_commit is not None and a.rows_per_commit < 1) or a.report_interval <= 0:
        p.error("--table-count, --insert-threads, --rows-per-commit, --rows-per-query and "
                "--report-interval must be > 0")  # fmt: skip
    if a.data_length_min > a.data_length_max or a.data_length_max > 4000:
        p.error("need --data-length-min <= --data-length-max <= 4000")

    def pick(value: Any, default: Any) -> Any:
        return default if value is None else value

    return Config(
        dbms=a.dbms, host=a.host, port=pick(a.port, schema.DEFAULT_PORTS[a.dbms]), user=a.user,
        password=a.password, database=a.database, table_count=a.table_count, table_prefix=a.table_prefix,
        step=a.step, kind=st.kind, rows=pick(a.rows, st.rows), seconds=float(pick(a.seconds, st.seconds)),
        rate=float(pick(a.rate, st.rate)), query_threads=pick(a.query_threads, st.query_threads),
        insert_threads=a.insert_threads, delete_per_insert=pick(a.delete_per_insert, st.delete_per_insert),
        rows_per_commit=pick(a.rows_per_commit, st.rows_per_commit), rows_per_query=a.rows_per_query,
        data_length_min=a.data_length_min, data_length_max=a.data_length_max,
        report_interval=a.report_interval, seed=a.seed,
    )  # fmt: skip


def percentile_ms(hist: Sequence[int], pct: float) -> float:
    """The upper bound of the bucket holding the ``pct`` percentile; 0 when empty."""
    need, seen = sum(hist) * pct / 100.0, 0
    for i, n in enumerate(hist):
        seen += n
        if n and seen >= need:
            return LO_MS * math.exp((i + 1) / MULT)
    return 0.0


class Totals:
    """Sums over the workers of one snapshot of the shared counters."""

    def __init__(self, cfg: Config, jobs: Sequence[Job], snap: Sequence[int]) -> None:
        main = MAIN_KIND[cfg.kind]

        def total(kind: str, field: int) -> int:
            return sum(snap[j.slot * SLOT + field] for j in jobs if j.kind == kind)

        self.inserts, self.deletes, self.queries = (
            total("insert", ROWS),
            total("delete", ROWS),
            total("query", OPS),
        )
        self.indexed, self.errors, self.ops = (
            total("index", ROWS),
            sum(snap[j.slot * SLOT + ERRS] for j in jobs),
            total(main, OPS),
        )
        self.lat_sum_us, self.lat_max_us = (
            total(main, LAT_SUM_US),
            max((snap[j.slot * SLOT + LAT_MAX_US] for j in jobs if j.kind == main), default=0),
        )
        self.hist = [sum(snap[j.slot * SLOT + HIST + i] for j in jobs if j.kind == main) for i in range(NB)]
        self.per_table = [
            sum(snap[j.slot * SLOT + ROWS] for j in jobs if j.kind == "insert" and j.tindex == t)
            for t in range(cfg.table_count)
        ]


def _fmt_t(t: float) -> str:
    return str(round(t)) if abs(t - round(t)) < 0.005 else f"{t:.2f}"


def interval_line(cfg: Config, nthreads: int, t: float, dt: float, a: Totals, b: Totals) -> str:
    """One report line for the interval (t - dt, t]: the rates of ``b - a``."""

    def rate(x: int, y: int) -> str:
        return f"{(y - x) / dt if dt > 0 else 0.0:.2f}"

    lat = percentile_ms([y - x for x, y in zip(a.hist, b.hist, strict=True)], 95)
    # background inserts behind schedule by more than one transaction, worst table, in seconds
    behind = (max(0.0, cfg.rate * t - n - cfg.rows_per_commit) / cfg.rate for n in b.per_table)
    lag = max(behind, default=0.0) if cfg.rate else 0.0
    ix = f" ixps: {rate(a.indexed, b.indexed)}" if cfg.kind == "index" else ""
    return (
        f"[ {_fmt_t(t)}s ] step: {cfg.step} thds: {nthreads} ips: {rate(a.inserts, b.inserts)} "
        f"dps: {rate(a.deletes, b.deletes)} qps: {rate(a.queries, b.queries)}{ix} "
        f"lat (ms,95%): {lat:.2f} max_ins_lag_s: {lag:.2f}"
    )


def summary_lines(cfg: Config, nthreads: int, elapsed: float, z: Totals) -> tuple[list[str], bool]:
    """The final block (it ends with ``elapsed:``) and whether the SLA failed."""

    def per_sec(n: int) -> str:
        return f"{n} ({n / elapsed if elapsed > 0 else 0.0:.2f} per sec.)"

    out = [f"step: {cfg.step}", f"threads: {nthreads}", f"inserts: {per_sec(z.inserts)}"]
    out += [f"deletes: {per_sec(z.deletes)}", f"queries: {per_sec(z.queries)}"]
    if cfg.kind == "index":
        out.append(f"indexed: {per_sec(z.indexed)}")
    avg = z.lat_sum_us / z.ops / 1000.0 if z.ops else 0.0
    p95 = min(percentile_ms(z.hist, 95), z.lat_max_us / 1000.0)  # a bucket's bound may pass the max
    out += [
        f"errors: {z.errors}",
        f"latency (ms): avg {avg:.2f} p95 {p95:.2f} max {z.lat_max_us / 1000.0:.2f}",
    ]
    failed = False
    if cfg.rate > 0:
        worst = min(z.per_table) / elapsed if elapsed > 0 else 0.0
        failed = worst < SLA_FRACTION * cfg.rate
        rate = int(cfg.rate) if cfg.rate.is_integer() else cfg.rate
        out.append(
            f"sla: {'failed' if failed else 'ok'} (background rate {rate}/s sustained at {worst:.1f}/s)"
        )
    out.append(f"elapsed: {elapsed:.2f} s")
    return out, failed


def _watch(cfg: Config, jobs: list[Job], slots: Any, stop: Any) -> tuple[float, float, Totals, int]:
    """Print interval lines until the step is over: (elapsed, time of the last line, its totals, lines)."""
    finite = [j.slot * SLOT + DONE_NS for j in jobs if j.kind != "query"] if cfg.kind != "query" else []
    t0, k, end, iv = time.monotonic(), 1, cfg.seconds or math.inf, cfg.report_interval
    last_t, last, emitted = 0.0, Totals(cfg, jobs, slots[:]), 0
    while True:
        now = time.monotonic() - t0
        if now >= k * iv:
            cur = Totals(cfg, jobs, slots[:])
            print(interval_line(cfg, len(jobs), k * iv, k * iv - last_t, last, cur), flush=True)
            last_t, last, k, emitted = k * iv, cur, k + 1, emitted + 1
        elif stop.value or now >= end:
            return min(now, end), last_t, last, emitted
        elif finite and all(slots[i] for i in finite):  # done: when the last worker ended
            return max(slots[i] for i in finite) / 1e9 - t0, last_t, last, emitted
        else:
            time.sleep(min(0.01, k * iv - now))


def run_step(cfg: Config, jobs: list[Job], ids0: Sequence[int]) -> int:
    """Run the workers, print interval lines and the summary; returns the exit status."""
    ctx = mp.get_context("fork")  # POSIX hosts; the workers' arguments are picklable for spawn too
    slots, ids = ctx.RawArray("q", len(jobs) * SLOT), ctx.RawArray("q", list(ids0))
    stop, errors, barrier = ctx.RawValue("b", 0), ctx.SimpleQueue(), ctx.Barrier(len(jobs) + 1)
    procs = [
        ctx.Process(target=work, args=(cfg, j, slots, ids, stop, errors, barrier), daemon=True) for j in jobs
    ]
    for p in procs:
        p.start()
    try:
        barrier.wait(timeout=180)
        elapsed, last_t, last, emitted = _watch(cfg, jobs, slots, stop)
    except threading.BrokenBarrierError:
        errors.put("workers did not start within 180 s")
        elapsed, last_t, last, emitted = 0.0, 0.0, Totals(cfg, jobs, slots[:]), 1
    finally:
        stop.value = 1
        for p in procs:
            p.join(60)
            if p.is_alive():
                p.kill()
    final = Totals(cfg, jobs, slots[:])
    if elapsed - last_t > 0.01 or not emitted:
        print(interval_line(cfg, len(jobs), elapsed, elapsed - last_t, last, final), flush=True)
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    for msg in failures:
        print(f"ERROR: {msg}", flush=True)
    lines, sla_failed = summary_lines(cfg, len(jobs), elapsed, final)
    print("\n".join(lines), flush=True)
    return EXIT_ERROR if failures else EXIT_SLA if sla_failed else 0


# Per is_postgres: the Debian package, or pip, that gives the client its DB driver.
DRIVER_PACKAGES = {
    False: "python3-pymysql (apt-get install -y python3-pymysql, or pip install PyMySQL)",
    True: "python3-psycopg (apt-get install -y python3-psycopg, or pip install 'psycopg[binary]')",
}


def driver_missing(dbms: str, exc: ModuleNotFoundError) -> str:
    """The one line for a DB driver this interpreter lacks: which Python, what to install, and
    that the inventory may name another (``python = "/usr/bin/python3"`` on the host)."""
    package = DRIVER_PACKAGES[schema.is_postgres(dbms)]
    return (
        f"ERROR: {dbms}: {exc} in {sys.executable}: install {package} for it, "
        'or name a Python that has it as the host\'s python = "..." in the inventory'
    )


def main(argv: Sequence[str] | None = None) -> int:
    cfg = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))  # stop the workers first
    print(shlex.join(cfg.argv()), flush=True)
    try:
        conn = cfg.connect(autocommit=True)
        try:
            version, counts, ids = schema.prepare(conn, cfg.dbms, cfg.kind, cfg.tables())
        finally:
            conn.close()
    except ModuleNotFoundError as exc:  # the DB driver is missing on this host
        print(driver_missing(cfg.dbms, exc), flush=True)
        return EXIT_ERROR
    except Exception as exc:  # driver errors; ValueError: a missing table
        why = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        print(f"ERROR: {cfg.dbms} at {cfg.host}:{cfg.port}: {why}", flush=True)
        return EXIT_ERROR
    print(f"dbms: {cfg.dbms} {version}", flush=True)
    return run_step(cfg, build_jobs(cfg, counts), ids)


if __name__ == "__main__":
    sys.exit(main())
