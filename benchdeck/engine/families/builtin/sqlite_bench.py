"""sqlite_bench: sysbench-shaped microbenchmarks on SQLite, printing sysbench 1.0.20's text format.

Standard library only, so a machine without sysbench or a DBMS can still run, watch and compare
real benchmarks; the ordinary sysbench parser reads the output. Its first line is the command
line in sysbench's form (the parser and importers read ``--table-size`` etc. from it); the banner
says which program really ran. ``python3 -m benchdeck.engine.families.builtin.sqlite_bench --help``
lists options.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import shlex
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from types import FrameType

from benchdeck.engine.families.builtin.catalogue import (
    WORKLOADS,
    Counts,
    Ctx,
    KeyGen,
    Workload,
    create_table,
    drop_tables,
    missing_tables,
)

VERSION = "1.0.20-sqlite_bench"  # the output format it mirrors, and which program wrote it
DEFAULT_DB = os.path.join(tempfile.gettempdir(), "benchdeck-sqlite_bench.db")
BUSY_TIMEOUT_S = 30.0


class Histogram:
    """Latencies in 1024 logarithmic buckets from 1 us to 100 s, like sysbench's."""

    N, LO, HI = 1024, 1e-3, 1e5
    MULT = (N - 1) / math.log(HI / LO)

    def __init__(self) -> None:
        self.counts = [0] * self.N
        self.total = 0

    def add(self, ms: float) -> None:
        i = int(math.log(max(ms, self.LO) / self.LO) * self.MULT + 0.5)
        self.counts[min(i, self.N - 1)] += 1
        self.total += 1

    def percentile(self, pct: float) -> float:
        """The bucket value at or below which ``pct`` % of the events fall; 0 when empty."""
        need, seen = self.total * pct / 100.0, 0
        for i, n in enumerate(self.counts):
            seen += n
            if n and seen >= need:
                return self.LO * math.exp(i / self.MULT)
        return 0.0


class Stats:
    """Counters the worker threads share (under one lock): per report interval and cumulative."""

    def __init__(self, threads: int) -> None:
        self.lock = threading.Lock()
        self.threads = threads
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.total = [0, 0, 0, 0, 0]  # events, reads, writes, other, ignored errors
            self.iv = [0, 0, 0, 0, 0]
            self.hist, self.iv_hist = Histogram(), Histogram()
            self.lat_min, self.lat_max, self.lat_sum = math.inf, 0.0, 0.0
            self.thread_events = [0] * self.threads
            self.thread_ms = [0.0] * self.threads

    def record(self, thread: int, ms: float, counts: Counts) -> None:
        with self.lock:
            for acc in (self.total, self.iv):
                acc[0] += 1
                acc[1] += counts[0]
                acc[2] += counts[1]
                acc[3] += counts[2]
            self.hist.add(ms)
            self.iv_hist.add(ms)
            self.lat_min, self.lat_max = min(self.lat_min, ms), max(self.lat_max, ms)
            self.lat_sum += ms
            self.thread_events[thread] += 1
            self.thread_ms[thread] += ms

    def error(self) -> None:
        with self.lock:
            self.total[4] += 1
            self.iv[4] += 1

    def take_interval(self) -> tuple[list[int], Histogram]:
        with self.lock:
            iv, hist = self.iv, self.iv_hist
            self.iv, self.iv_hist = [0, 0, 0, 0, 0], Histogram()
        return iv, hist


class Control:
    """Shared by the threads of a run: when to stop, the writers' queue, a fatal error."""

    def __init__(self, deadline: float) -> None:
        self.stop = threading.Event()
        self.write_lock = threading.Lock()  # SQLite has one writer: queue here, not in busy-waits
        self.deadline = deadline
        self.fatal: str | None = None


# --durability: "normal" is WAL with synchronous=NORMAL (the default build, `sqlite`);
# "full" is a rollback journal with synchronous=FULL (`sqlite-sync`): fsync on every commit.
DURABILITY = {
    "normal": ("journal_mode=WAL", "synchronous=NORMAL"),
    "full": ("journal_mode=DELETE", "synchronous=FULL"),
}


def connect(path: str, durability: str = "normal") -> sqlite3.Connection:
    """A connection in autocommit mode (explicit BEGIN/COMMIT), with a large cache: CPU-bound."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    journal, sync = DURABILITY[durability]
    for pragma in (journal, sync, "cache_size=-65536", "mmap_size=268435456", "temp_store=MEMORY"):
        conn.execute(f"PRAGMA {pragma}")
    return conn


def _out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()  # a follower sees each line as it is written


class Stopped(BaseException):
    """SIGTERM/SIGINT during a prepare: unwinds it so its transaction is rolled back."""


_UNWIND = False
"""Set while a prepare runs: a signal raises :class:`Stopped` instead of exiting at once."""


def prepare(a: argparse.Namespace) -> None:
    """Create the tables. A cancel (SIGTERM) rolls the open transaction back and closes the file,
    so no hot ``-journal`` (``sqlite-sync``) or ``-wal`` is left beside it."""
    global _UNWIND
    conn = connect(a.db, a.durability)
    cx = Ctx(KeyGen(a.table_size, "uniform", a.rand_seed or None), a.tables, a.table_size, a.range_size)
    _UNWIND = True
    try:
        for n in range(1, a.tables + 1):
            create_table(conn, n, cx, _out)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        _UNWIND = False
        if conn.in_transaction:
            conn.rollback()
        conn.close()


def cleanup(a: argparse.Namespace) -> None:
    if not os.path.exists(a.db):
        return
    conn = connect(a.db, a.durability)
    left = drop_tables(conn, a.tables, _out)
    conn.close()
    if left == 0:  # nothing else lives in the file: remove it with its WAL and shared memory
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(a.db + suffix)


def worker(i: int, a: argparse.Namespace, wl: Workload, stats: Stats, ctl: Control) -> None:
    """One client thread with its own connection and key generator, until the deadline."""
    seed = a.rand_seed + i if a.rand_seed else None
    cx = Ctx(KeyGen(a.table_size, a.rand_type, seed), a.tables, a.table_size, a.range_size)
    conn = connect(a.db, a.durability)
    try:
        while not ctl.stop.is_set() and time.perf_counter() < ctl.deadline:
            t0 = time.perf_counter()
            try:
                with ctl.write_lock if wl.writes or a.serial else contextlib.nullcontext():
                    counts = wl.event(conn, cx)
            except sqlite3.OperationalError as exc:  # busy/locked: sysbench's "ignored errors"
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                stats.error()
                continue
            stats.record(i, (time.perf_counter() - t0) * 1000.0, counts)
    except Exception as exc:
        ctl.fatal = f"FATAL: thread {i}: {type(exc).__name__}: {exc}"
        ctl.stop.set()
    finally:
        conn.close()


def run(a: argparse.Namespace) -> int:
    conn = sqlite3.connect(a.db) if os.path.exists(a.db) else None
    missing = missing_tables(conn, a.tables) if conn else [a.db]
    if conn:
        conn.close()
    if missing:
        _out(f"FATAL: {missing[0]} does not exist (run 'prepare' first)")
        return 1
    wl, stats = WORKLOADS[a.workload.partition("_range=")[0]], Stats(a.threads)
    _out(f"Running the test with following options:\nNumber of threads: {a.threads}")
    if a.report_interval:
        _out(f"Report intermediate results every {a.report_interval} second(s)")
    _out("Initializing random number generator from " + ("seed" if a.rand_seed else "current time"))
    _out("\n\nInitializing worker threads...\n")
    ctl = Control(math.inf)  # the measured time starts after the warm-up
    args = (a, wl, stats, ctl)
    threads = [threading.Thread(target=worker, args=(i, *args), daemon=True) for i in range(a.threads)]
    for t in threads:
        t.start()
    _out("Threads started!\n")
    if a.warmup_time:
        _out(f"Warming up for {a.warmup_time} seconds...")
        ctl.stop.wait(a.warmup_time)
        stats.reset()
    start = last = time.perf_counter()
    ctl.deadline = start + a.time
    k = 1
    while a.report_interval:
        target = start + k * a.report_interval
        if target > ctl.deadline + 0.001 or ctl.stop.wait(max(0.0, target - time.perf_counter())):
            break
        now = time.perf_counter()
        (ev, r, w, o, err), hist = stats.take_interval()
        s, last = now - last, now
        _out(
            f"[ {k * a.report_interval}s ] thds: {a.threads} tps: {ev / s:.2f} "
            f"qps: {(r + w + o) / s:.2f} (r/w/o: {r / s:.2f}/{w / s:.2f}/{o / s:.2f}) "
            f"lat (ms,{a.percentile}%): {hist.percentile(a.percentile):.2f} "
            f"err/s: {err / s:.2f} reconn/s: 0.00"
        )
        k += 1
    for t in threads:
        t.join()
    if ctl.fatal:
        _out(ctl.fatal)
        return 1
    _out("\n".join(summary_lines(stats, time.perf_counter() - start, a.percentile)) + "\n")
    return 0


def summary_lines(st: Stats, secs: float, pct: int) -> list[str]:
    """sysbench 1.0.20's final report, column for column."""
    ev, r, w, o, err = st.total
    lines = ["SQL statistics:", "    queries performed:"]
    lines += [f"{'        ' + k + ':':<41}{v}" for k, v in (("read", r), ("write", w), ("other", o))]
    lines.append(f"{'        total:':<41}{r + w + o}")
    rates = (("transactions", ev), ("queries", r + w + o), ("ignored errors", err), ("reconnects", 0))
    for label, n in rates:
        lines.append(f"{'    ' + label + ':':<41}{n:<6} ({n / secs:.2f} per sec.)")
    lines += ["", "General statistics:", f"{'    total time:':<41}{secs:.4f}s"]
    lines += [f"{'    total number of events:':<41}{ev}", "", "Latency (ms):"]
    lat = [
        ("min", st.lat_min if ev else 0.0),
        ("avg", st.lat_sum / ev if ev else 0.0),
        ("max", st.lat_max),
        (f"{pct}th percentile", st.hist.percentile(pct)),
        ("sum", st.lat_sum),
    ]
    lines += [f"         {k}:{f' {v:.2f}':>{43 - len(k)}}" for k, v in lat]
    secs_t = [ms / 1000.0 for ms in st.thread_ms]
    n = len(secs_t)
    lines += ["", "Threads fairness:"]
    lines.append(f"{'    events (avg/stddev):':<35}{ev / n:.4f}/{_stddev(st.thread_events):3.2f}")
    lines.append(f"{'    execution time (avg/stddev):':<35}{sum(secs_t) / n:.4f}/{_stddev(secs_t):3.2f}")
    return lines


def _stddev(xs: Sequence[float]) -> float:
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="sqlite_bench", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--db", default=DEFAULT_DB, help=f"SQLite database file (default {DEFAULT_DB})")
    p.add_argument("--tables", type=int, default=1)
    p.add_argument("--table-size", type=int, default=10000)
    p.add_argument("--threads", type=int, default=1, help="client threads, one connection each")
    p.add_argument("--time", type=int, default=10, help="seconds measured")
    p.add_argument("--report-interval", type=int, default=1, help="seconds; 0: no interval lines")
    p.add_argument("--warmup-time", type=int, default=0, help="seconds run before measuring")
    p.add_argument("--rand-type", choices=("uniform", "zipfian"), default="uniform")
    p.add_argument("--rand-seed", type=int, default=0, help="0: seeded from the current time")
    p.add_argument("--range-size", type=int, help="rows per range, points per IN-list (default: the name's)")
    p.add_argument("--percentile", type=int, default=95)
    p.add_argument(
        "--durability",
        choices=tuple(DURABILITY),
        default="normal",
        help="normal: WAL, synchronous=NORMAL; full: rollback journal, synchronous=FULL",
    )
    p.add_argument(
        "--serial",
        action="store_true",
        help="hold one exclusive lock per query, reads too (config 'serial': a planted scalability limit)",
    )
    p.add_argument(
        "--expect-lib",
        metavar="DIR",
        help="fail unless the SQLite library loaded is DIR's (a build's, put on LD_LIBRARY_PATH)",
    )
    p.add_argument("workload", help=", ".join(f"{n}_range=N" for n in WORKLOADS))
    p.add_argument("command", choices=("prepare", "run", "cleanup"))
    a = p.parse_args(argv)
    test, _, size = a.workload.partition("_range=")
    if test not in WORKLOADS or (size and not size.isdigit()):
        p.error(f"unknown workload {a.workload!r}")
    a.range_size = a.range_size or int(size or WORKLOADS[test].default_range)
    if min(a.tables, a.table_size, a.threads, a.range_size, a.time) < 1 or not 0 < a.percentile <= 100:
        p.error("--tables, --table-size, --threads, --time and the range must be >= 1")
    if min(a.report_interval, a.warmup_time, a.rand_seed) < 0:
        p.error("--report-interval, --warmup-time and --rand-seed must be >= 0")
    return a


def command_line(a: argparse.Namespace) -> str:
    """The invocation in sysbench's form, as users' result files start (the parser reads it)."""
    opts = {
        "db-driver": "sqlite", "sqlite-db": a.db, "tables": a.tables, "table-size": a.table_size,
        "threads": a.threads, "rand-type": a.rand_type, "range-size": a.range_size,
        "durability": a.durability,
    }  # fmt: skip
    if a.serial:
        opts["serial"] = "on"
    if a.command == "run":
        opts |= {"time": a.time, "report-interval": a.report_interval, "warmup-time": a.warmup_time}
        opts["percentile"] = a.percentile
    return shlex.join(["sysbench", *(f"--{k}={v}" for k, v in opts.items()), a.workload, a.command])


def _on_signal(signum: int, frame: FrameType | None) -> None:
    sys.stdout.flush()  # every line is flushed as written
    if _UNWIND:  # a prepare: roll back first (its finally), then exit with the signal's status
        raise Stopped(128 + signum)
    os._exit(128 + signum)  # stop at once, as sysbench does


def loaded_library() -> tuple[str, str]:
    """The libsqlite3 file this process loaded (from /proc/self/maps), and its COMPILER= option."""
    path = "(linked in)"
    with contextlib.suppress(OSError), open("/proc/self/maps", encoding="utf-8") as maps:
        path = next((ln.split()[-1] for ln in maps if "libsqlite3" in ln.rsplit("/", 1)[-1]), path)
    conn = sqlite3.connect(":memory:")
    compiler = [r[0] for r in conn.execute("PRAGMA compile_options") if str(r[0]).startswith("COMPILER=")]
    conn.close()
    return path, compiler[0] if compiler else ""


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    _out(command_line(a))
    py = platform.python_version()
    lib, compiler = loaded_library()
    what = f"SQLite {sqlite3.sqlite_version} {lib} {compiler}".strip()
    _out(f"sysbench {VERSION} (benchdeck built-in: {what}, Python {py})\n")
    if a.expect_lib and os.path.dirname(os.path.realpath(lib)) != os.path.realpath(a.expect_lib):
        _out(f"FATAL: the SQLite library loaded is {lib}, not the one in {a.expect_lib}")
        return 1
    try:
        if a.command == "prepare":
            prepare(a)
        elif a.command == "cleanup":
            cleanup(a)
        else:
            return run(a)
    except sqlite3.Error as exc:
        _out(f"FATAL: {a.command}: {exc}")
        return 1
    except Stopped as stop:
        return int(stop.args[0])  # rolled back and closed: the signal's status, as before
    return 0


if __name__ == "__main__":
    sys.exit(main())
