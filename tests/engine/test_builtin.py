"""The built-in SQLite workloads: real runs of sqlite_bench, parsed and through the real runner.

Nothing is mocked: every run starts ``python -m benchdeck.engine.families.builtin.sqlite_bench`` on this
machine.
"""

from __future__ import annotations

import math
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.events import (
    BenchBatch,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
    Skipped,
    VmstatBatch,
)
from benchdeck.engine.families.builtin import BUILTIN_WORKLOADS, builtin_argv, is_builtin
from benchdeck.engine.families.builtin.catalogue import KeyGen, Zipfian
from benchdeck.engine.families.builtin.sqlite_bench import VERSION, Histogram, Stats
from benchdeck.engine.hosts.requirements import local_missing, needed_tools, server_tools, what_to_install
from benchdeck.engine.metrics import run_qps
from benchdeck.engine.parsers.sysbench import SysbenchResult, parse_sysbench_output
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.transport.local import LocalTransport

pytestmark = pytest.mark.integration  # real sqlite_bench runs with vmstat and iostat

TABLE_SIZE = 1000
# reads, writes, other statements per event (transaction) of each workload
SHAPES = {
    "point-query": (1, 0, 0),
    "random-points": (1, 0, 0),
    "range-covered-pk": (1, 0, 0),
    "scan": (1, 0, 0),
    "read-only": (14, 0, 2),
    "insert": (0, 1, 0),
    "read-write": (14, 4, 2),
    "update-index": (0, 1, 0),
    "update-nonindex": (0, 1, 0),
}


def sh(argv: list[str], timeout: float = 60) -> tuple[int, str]:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    return p.returncode, p.stdout + p.stderr


def parsed(text: str) -> SysbenchResult:
    return parse_sysbench_output(text.splitlines())


def prepare(db: Path, workload: str = "point-query_range=100", tables: int = 1) -> None:
    argv = builtin_argv(workload, db_path=str(db), tables=tables, table_size=TABLE_SIZE, command="prepare")
    rc, out = sh(argv)
    assert rc == 0, out
    res = parsed(out)
    assert res.skipped == (), out
    assert res.messages == ()
    assert f"Inserting {TABLE_SIZE} records into 'sbtest1'" in out


# --- every built-in workload, run for real and read by the sysbench parser -------------------


@pytest.mark.parametrize("workload", BUILTIN_WORKLOADS)
def test_workload_runs_and_parses(tmp_path: Path, workload: str) -> None:
    db = tmp_path / "sb.db"
    tables = 2 if workload.startswith("read-write") else 1
    prepare(db, workload, tables=tables)
    duration = 3 if workload.startswith("point-query") else 2
    argv = builtin_argv(
        workload, db_path=str(db), time_s=duration, threads=2, tables=tables, table_size=TABLE_SIZE
    )
    t0 = time.monotonic()
    rc, out = sh(argv)
    assert rc == 0, out
    assert time.monotonic() - t0 < duration + 5
    lines = out.splitlines()
    assert lines[0].startswith("sysbench --db-driver=sqlite ")
    assert lines[0].endswith(f"{workload} run")

    res = parsed(out)
    assert res.skipped == (), res.skipped
    assert res.messages == ()
    assert 1 <= len(res.intervals) <= 3
    assert [iv.t for iv in res.intervals] == [float(i) for i in range(1, len(res.intervals) + 1)]
    assert {(iv.threads, iv.latency_pct) for iv in res.intervals} == {(2, 95)}
    assert all(iv.tps > 0 and iv.qps for iv in res.intervals)
    s = res.summary
    assert s.sysbench_version == VERSION == "1.0.20-sqlite_bench"
    assert s.threads == 2
    assert s.qps
    assert s.tps
    assert s.total_time_s
    assert duration - 0.1 < s.total_time_s < duration + 1
    assert s.total_events
    assert s.total_events == s.transactions
    assert s.queries == s.queries_total
    assert s.queries_total == (s.reads or 0) + (s.writes or 0) + (s.other or 0)
    assert None not in (s.lat_min_ms, s.lat_pct_ms)
    assert s.lat_avg_ms
    assert s.lat_max_ms
    assert s.lat_sum_ms
    assert s.lat_max_ms >= s.lat_avg_ms >= (s.lat_min_ms or 0)
    assert s.lat_pct == 95
    assert (s.ignored_errors, s.reconnects) == (0, 0)
    r, w, o = SHAPES[workload.partition("_range=")[0]]
    n = s.total_events
    assert (s.reads, s.writes, s.other) == (r * n, w * n, o * n)
    # the command line carries the options importers and run_qps read
    opts = s.options
    assert (opts["table-size"], opts["tables"], opts["threads"]) == (str(TABLE_SIZE), str(tables), "2")
    assert opts["test"] == workload
    qps = run_qps(s, workload, TABLE_SIZE)
    assert qps
    assert run_qps(s, workload) == qps  # table size read from the first line
    if workload.startswith("scan"):
        assert qps == pytest.approx(TABLE_SIZE / (s.lat_avg_ms / 1000.0))  # rows per second
    else:
        assert qps == s.qps


def test_zipfian_and_seeded_run(tmp_path: Path) -> None:
    db = tmp_path / "sb.db"
    prepare(db)
    argv = builtin_argv("update-index_range=100", db_path=str(db), time_s=1, table_size=TABLE_SIZE)
    rc, out = sh([*argv[:-2], "--rand-type=zipfian", "--rand-seed=7", *argv[-2:]])
    assert rc == 0, out
    res = parsed(out)
    assert res.skipped == ()
    assert res.summary.options["rand-type"] == "zipfian"
    assert res.summary.writes


def test_run_without_prepare_fails_with_a_fatal_message(tmp_path: Path) -> None:
    rc, out = sh(builtin_argv("point-query_range=100", db_path=str(tmp_path / "none.db"), time_s=1))
    assert rc == 1
    res = parsed(out)
    assert res.skipped == ()
    assert [m.text for m in res.messages] == [
        f"FATAL: {tmp_path / 'none.db'} does not exist (run 'prepare' first)"
    ]


def test_sigterm_stops_at_once_with_intervals_flushed(tmp_path: Path) -> None:
    db = tmp_path / "sb.db"
    prepare(db)
    argv = builtin_argv("point-query_range=100", db_path=str(db), time_s=60, table_size=TABLE_SIZE)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("[ 1s ]"):
            break
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    lines += proc.stdout.readlines()
    assert proc.wait(timeout=5) == 128 + signal.SIGTERM
    assert time.monotonic() - t0 < 2
    res = parsed("".join(lines))
    assert res.skipped == ()
    assert len(res.intervals) >= 1
    assert res.summary.qps is None  # like sysbench: no summary when killed


def test_cleanup_removes_tables_and_file(tmp_path: Path) -> None:
    db = tmp_path / "sb.db"
    prepare(db)
    rc, out = sh(builtin_argv("point-query_range=100", db_path=str(db), command="cleanup"))
    assert rc == 0
    assert parsed(out).skipped == ()
    assert "Dropping table 'sbtest1'..." in out
    assert not db.exists()


def test_builtin_argv_and_catalogue() -> None:
    argv = builtin_argv("scan_range=100", db_path="/tmp/x.db", time_s=5, threads=3, tables=2, table_size=99)
    assert argv[:3] == [sys.executable, "-m", "benchdeck.engine.families.builtin.sqlite_bench"]
    assert argv[-2:] == ["scan_range=100", "run"]
    assert {"--time=5", "--threads=3", "--tables=2", "--table-size=99", "--db=/tmp/x.db"} <= set(argv)
    prep = builtin_argv("scan_range=100", db_path="/tmp/x.db", command="prepare")
    assert prep[-1] == "prepare"
    assert not any(a.startswith("--time") for a in prep)
    with pytest.raises(ValueError, match="not a built-in"):
        builtin_argv("hot-points_range=100", db_path="/tmp/x.db")
    with pytest.raises(ValueError, match="command"):
        builtin_argv("scan_range=100", db_path="/tmp/x.db", command="drop")
    assert is_builtin("read-write_range=10")
    assert not is_builtin("scan_range=x")
    cat = default_catalogue()
    assert all(cat.group_of(w) != "other" for w in BUILTIN_WORKLOADS)  # the posts' names and groups


# --- through the real engine: runner, local transport, vmstat and iostat ---------------------


@pytest.mark.parametrize("workload", ["read-write_range=10", "scan_range=100"])
async def test_runner_runs_a_builtin_workload(tmp_path: Path, workload: str) -> None:
    db = str(tmp_path / "sb.db")
    prepare(Path(db), workload)  # as a step, the runner would poll its end every POLL_S (5 s)
    plan = RunPlan(
        run_id=1,
        host="local",
        workload=workload,
        remote_dir=str(tmp_path / "run"),
        bench_argv=tuple(builtin_argv(workload, db_path=db, time_s=2, threads=2, table_size=TABLE_SIZE)),
        duration_s=2,
        table_size=TABLE_SIZE,
        ncpu=os.cpu_count(),
        monitors=True,
    )
    t0 = time.monotonic()
    events: list[RunEvent] = [ev async for ev in Runner(LocalTransport(), plan).events()]
    assert time.monotonic() - t0 < 15
    assert not [ev for ev in events if isinstance(ev, RunFailed)], events
    assert not [ev for ev in events if isinstance(ev, Skipped) and ev.source == "sysbench"]
    assert sum(isinstance(ev, RunStarted) for ev in events) == 1
    bench = [row for ev in events if isinstance(ev, BenchBatch) for row in ev.rows]
    assert 1 <= len(bench) <= 3
    assert all(row.tps > 0 for row in bench)
    assert sum(len(ev.rows) for ev in events if isinstance(ev, VmstatBatch)) >= 1
    (fin,) = [ev for ev in events if isinstance(ev, RunFinished)]
    text = Path(plan.remote_dir, "bench.out").read_text()
    m = re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    assert m, text
    if workload.startswith("scan"):
        assert fin.summary.lat_avg_ms
        assert fin.qps == pytest.approx(TABLE_SIZE / (fin.summary.lat_avg_ms / 1000.0))
    else:
        assert fin.qps == float(m.group(1)) == fin.summary.qps
    assert fin.per_op.ops == fin.qps
    assert fin.per_op.cpu_o is not None


# --- key generators, histogram and shared counters ----------------------------------------


def test_uniform_keys_cover_the_range() -> None:
    kg = KeyGen(100, "uniform", seed=1)
    keys = [kg.key() for _ in range(50_000)]
    assert (min(keys), max(keys)) == (1, 100)
    assert sum(keys) / len(keys) == pytest.approx(50.5, rel=0.02)
    with pytest.raises(ValueError, match="rand-type"):
        KeyGen(10, "special")


def test_zipfian_matches_the_zipf_law() -> None:
    n, exp, draws = 1000, 0.8, 200_000
    z, rng = Zipfian(n, exp), random.Random(42)
    counts = Counter(z.sample(rng) for _ in range(draws))
    assert min(counts) >= 1
    assert max(counts) <= n
    norm = math.fsum(k**-exp for k in range(1, n + 1))
    for k in (1, 2, 3, 10):
        assert counts[k] / draws == pytest.approx(k**-exp / norm, rel=0.05)
    assert counts[1] / counts[2] == pytest.approx(2**exp, rel=0.1)
    # total variation distance between the sampled and exact distributions
    tvd = 0.5 * math.fsum(abs(counts[k] / draws - k**-exp / norm) for k in range(1, n + 1))
    assert tvd < 0.03
    assert {Zipfian(1).sample(rng) for _ in range(100)} == {1}
    assert all(1 <= Zipfian(2, 1.0).sample(rng) <= 2 for _ in range(100))  # exponent 1: the log branch
    with pytest.raises(ValueError, match="n >= 1"):
        Zipfian(0)


def test_keygen_is_thread_safe_and_per_thread_deterministic() -> None:
    shared = KeyGen(1000, "zipfian", seed=3)
    out: dict[int, list[int]] = {}

    def draw(i: int) -> None:
        own = KeyGen(1000, "zipfian", seed=100 + i)
        out[i] = [own.key() for _ in range(5000)]
        out[100 + i] = [shared.key() for _ in range(5000)]

    threads = [threading.Thread(target=draw, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(v) == 5000 and all(1 <= k <= 1000 for k in v) for v in out.values())
    for i in range(8):  # a thread's own generator gives the same keys whatever the others do
        again = KeyGen(1000, "zipfian", seed=100 + i)
        assert out[i] == [again.key() for _ in range(5000)]


def test_stats_under_concurrent_recording() -> None:
    stats, per_thread = Stats(8), 5000

    def work(i: int) -> None:
        for _ in range(per_thread):
            stats.record(i, 1.0, (14, 4, 2))
        stats.error()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = 8 * per_thread
    assert stats.total == [n, 14 * n, 4 * n, 2 * n, 8]
    assert stats.thread_events == [per_thread] * 8
    assert stats.hist.total == n
    iv, hist = stats.take_interval()
    assert iv == stats.total
    assert hist.total == n
    assert stats.take_interval()[0] == [0, 0, 0, 0, 0]


def test_histogram_percentiles() -> None:
    h = Histogram()
    assert h.percentile(95) == 0.0
    for ms in range(1, 101):
        h.add(float(ms))
    assert h.percentile(95) == pytest.approx(95, rel=0.02)
    assert h.percentile(100) == pytest.approx(100, rel=0.02)
    h.add(0.0)
    h.add(1e9)  # clamped into the first and last buckets
    assert h.total == 102


# --- what to install ---------------------------------------------------------------------


def test_what_to_install_names_the_packages() -> None:
    msgs = what_to_install(["sysbench", "iostat", "vmstat", "db_bench", "pgbench"], "mariadb")
    text = "\n".join(msgs)
    for pkg in (
        "apt-get install sysbench",
        "sysstat",
        "procps",
        "rocksdb-tools",
        "pgbench: apt-get install postgresql",
    ):
        assert pkg in text
    assert "MariaDB server: apt-get install mariadb-server" in msgs
    pkgs = "sysbench sysstat procps rocksdb-tools postgresql mariadb-server"
    assert msgs[-2] == f"all at once: sudo apt-get install {pkgs}"
    assert "built-in" in msgs[-1]
    assert what_to_install([], "postgresql")[0] == "PostgreSQL server: apt-get install postgresql"
    assert what_to_install(["iostat", "iostat"], None) == [
        "iostat: apt-get install sysstat (iostat is part of sysstat)"
    ]
    assert what_to_install([], None) == []
    assert "no known package" in what_to_install(["frobnicate"])[0]


def test_needed_and_local_missing_tools() -> None:
    assert needed_tools("sysbench") == ["sysbench", "vmstat", "iostat"]
    assert needed_tools("builtin", monitors=False) == []
    assert set(server_tools("mariadb")) == {"mariadbd", "mysqld"}
    assert "postgres" in server_tools("PostgreSQL")
    assert local_missing([Path(sys.executable).name, "no-such-tool-bd42", "no-such-tool-bd42"]) == [
        "no-such-tool-bd42"
    ]
    if list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):  # not on PATH on Debian
        assert local_missing(["pg_ctl"]) == []


def test_a_cancelled_prepare_rolls_back_and_leaves_no_journal(tmp_path: Path) -> None:
    """Issue 25 item 16: SIGTERM (a cancel) during sqlite-sync's prepare exited at once, leaving a
    hot ``-journal`` beside the database; the prepare now rolls back and closes first."""
    db = tmp_path / "sb.db"
    journal = tmp_path / "sb.db-journal"
    argv = builtin_argv(
        "point-query_range=100", db_path=str(db), table_size=5_000_000, command="prepare", durability="full"
    )
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("Inserting"):
            break
    deadline = time.monotonic() + 30
    while not journal.exists():  # the transaction's journal: the state a cancel meets
        assert time.monotonic() < deadline, "the insert never opened its journal"
        assert proc.poll() is None, "the prepare ended before it could be cancelled"
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    proc.stdout.read()
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert not journal.exists()
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM sbtest1").fetchone() == (0,), "the insert rolled back"
    con.close()
