"""The real ``benchdeck run | queue`` for the Insert Benchmark, pgbench and db_bench families.

benchdeck runs as a separate process on a ``local`` host (no SSH needed) against the private
MariaDB and PostgreSQL of tests/servers and Debian's db_bench; the QPS it stores must be the
figure each tool printed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import (
    bd,
    db_rows,
    inventory_env,
    local_host,
    mariadb_build,
    postgres_build,
    remote_output,
    start_in_prepare,
)
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import SECURE_DB, SECURE_PASSWORD, SECURE_USER, PostgresServer

pytestmark = pytest.mark.integration  # real MariaDB and PostgreSQL

MARIADB = "ma101119_rel"
POSTGRES = "pg15_rel"
ROCKSDB = "9.7.2"


@pytest.fixture
def env(tmp_path: Path, mariadb_server: MariaDBServer, postgres_server: PostgresServer) -> dict[str, str]:
    host = local_host("here", tmp_path / "remote", "threads = 1\ntables = 1\ntable_size = 10000")
    builds = mariadb_build("here", MARIADB, mariadb_server) + postgres_build(
        "here", POSTGRES, postgres_server
    )
    return inventory_env(tmp_path, host + builds + f'\n[[hosts.here.builds]]\nname = "{ROCKSDB}"\n')


def finished_run(r: subprocess.CompletedProcess[str]) -> tuple[int, float]:
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^run (\d+) finished qps ([\d.]+)", r.stdout, re.M)
    assert m, r.stdout
    return int(m.group(1)), float(m.group(2))


def stored_qps(env: dict[str, str], run_id: int) -> float:
    ((qps,),) = db_rows(env, "SELECT qps FROM run_summary WHERE run_id = ?", [run_id])
    assert isinstance(qps, float)
    return qps


def printed(pattern: str, text: str) -> float:
    m = re.search(pattern, text, re.M)
    assert m, text[-2000:]
    return float(m.group(1))


# The client's summary: the step's figure (inserts/s, rows indexed/s, queries/s).
IB_FIGURE = {
    "l.i0": r"^inserts: \d+ \(([\d.]+) per sec\.\)",
    "l.x": r"^indexed: \d+ \(([\d.]+) per sec\.\)",
    "qp100": r"^queries: \d+ \(([\d.]+) per sec\.\)",
}


def test_insert_benchmark_steps_run_in_order_and_store_their_figure(env: dict[str, str]) -> None:
    steps = list(IB_FIGURE)
    workloads = [a for s in steps for a in ("--workload", s)]
    r = bd(
        env, "queue", "--host", "here", "--build", MARIADB, *workloads, "--time", "2", "--param", "rows=3000"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    rows = db_rows(
        env,
        "SELECT i.workload, i.status, r.run_id, r.status FROM queue_items i JOIN runs r USING (run_id) "
        "ORDER BY i.position",
    )
    assert [(w, s1, s2) for w, s1, _, s2 in rows] == [(s, "finished", "finished") for s in steps]
    for workload, _, run_id, _ in rows:
        assert isinstance(run_id, int)
        text = remote_output(env, run_id)
        assert "--rows=3000" in text.splitlines()[0], "--param reaches the client"
        assert stored_qps(env, run_id) == printed(IB_FIGURE[str(workload)], text)
    assert "--seconds=2" in remote_output(env, int(str(rows[-1][2])))


def test_a_suite_against_the_wrong_build_is_refused_before_it_is_queued(env: dict[str, str]) -> None:
    r = bd(env, "queue", "--host", "here", "--build", ROCKSDB, "--suite", "insertbench")
    assert r.returncode == 2
    assert r.stderr == "benchdeck: insertbench needs a MySQL, MariaDB or PostgreSQL build; 9.7.2 is rocksdb\n"
    assert r.stdout == ""
    assert not Path(env["BENCHDECK_DB"]).exists(), "no queue, run or build stored"


def test_pgbench_run_stores_the_tps_pgbench_printed(env: dict[str, str]) -> None:
    r = bd(
        env, "run", "--host", "here", "--build", POSTGRES, "--workload", "pgbench.select-only", "--time", "3"
    )
    run_id, qps = finished_run(r)
    text = remote_output(env, run_id)
    tps = printed(r"^tps = ([\d.]+) \((?:without initial connection time|excluding conn)", text)
    assert stored_qps(env, run_id) == pytest.approx(tps)
    assert qps == pytest.approx(tps, abs=0.005)
    assert re.search(r"^progress: \d", text, re.M), "per-second progress lines were written"


def test_db_bench_run_loads_then_stores_the_ops_per_sec_db_bench_printed(env: dict[str, str]) -> None:
    r = bd(
        env, "run", "--host", "here", "--build", ROCKSDB, "--workload", "readww.byrx",
        "--time", "3", "--table-size", "20000",
    )  # fmt: skip
    run_id, qps = finished_run(r)
    assert "prepare" in r.stdout, "fillseq loaded the database first"
    text = remote_output(env, run_id)
    ops = printed(r"^readwhilewriting\s+:\s+[\d.]+ micros/op (\d+) ops/sec", text)
    assert stored_qps(env, run_id) == ops
    assert qps == ops
    db_dir = Path(env["BENCHDECK_CONFIG"]).parent / "remote" / "rocksdb" / f"{ROCKSDB}.byrx"
    assert (db_dir / "CURRENT").is_file()

    r = bd(
        env,
        "run",
        "--host",
        "here",
        "--build",
        ROCKSDB,
        "--workload",
        "fillseq.byrx",
        "--table-size",
        "20000",
    )
    run_id, qps = finished_run(r)  # the load itself measured: no --time, it writes --num keys
    assert qps == printed(r"^fillseq\s+:\s+[\d.]+ micros/op (\d+) ops/sec", remote_output(env, run_id))


def test_a_db_bench_load_killed_half_way_is_loaded_again(env: dict[str, str]) -> None:
    """A fillseq killed half way leaves CURRENT and part of the keys; the next run must load
    again, not measure the half-loaded database (before: "tables exist: skipped")."""
    db_dir = Path(env["BENCHDECK_CONFIG"]).parent / "remote" / "rocksdb" / f"{ROCKSDB}.byrx"
    mark = db_dir / "benchdeck-loaded"
    run = ["run", "--host", "here", "--build", ROCKSDB, "--workload", "readww.byrx", "--time", "1"]
    slow = [*run, "--table-size", "400000", "--param", f"benchmark_write_rate_limit={2 << 20}"]
    proc, run_id = start_in_prepare(env, *slow)  # ~20 s of load at 2 MiB/s: killed well before its end
    deadline = time.monotonic() + 60
    runs = Path(env["BENCHDECK_CONFIG"]).parent / "remote" / "runs"

    def prepare_out() -> str:  # the phase is printed before the prepare's file exists
        return "".join(p.read_text() for p in runs.glob(f"run{run_id}-*/prepare.out"))

    while " ops and " not in prepare_out():  # fillseq is writing (its per-second stats line)
        assert time.monotonic() < deadline, "the load never started writing"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    (pgid_file,) = runs.glob(f"run{run_id}-*/prepare.pgid")
    pgid = int(pgid_file.read_text())
    os.killpg(pgid, signal.SIGKILL)  # the remote load, as a crash would
    while True:  # until the group is gone (benchdeck refuses to run beside a live one)
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "the killed load's processes never went away"
        time.sleep(0.05)
    assert (db_dir / "CURRENT").is_file()
    assert not mark.exists(), "a killed load is not marked complete"

    again = bd(env, *run, "--table-size", "20000")
    finished_run(again)
    assert "tables exist: skipped" not in again.stdout, again.stdout
    assert re.search(r"^\[run \d+\] prepare$", again.stdout, re.M), again.stdout
    assert mark.read_text() == "20000\n"

    reused = bd(env, *run, "--table-size", "20000")
    finished_run(reused)
    assert "tables exist: skipped" in reused.stdout, "a complete load of that size is reused"

    bigger = bd(env, *run, "--table-size", "30000")
    finished_run(bigger)
    assert "tables exist: skipped" not in bigger.stdout, "another key count loads again"
    assert mark.read_text() == "30000\n"


def test_a_family_against_the_wrong_build_fails_with_one_clear_line(env: dict[str, str]) -> None:
    r = bd(
        env, "run", "--host", "here", "--build", MARIADB, "--workload", "pgbench.select-only", "--time", "2"
    )
    assert r.returncode == 2
    assert r.stderr == f"benchdeck: pgbench needs a PostgreSQL build; {MARIADB} is mariadb\n"
    assert r.stdout == "", "nothing stored or started"


def test_pgbench_with_a_password_checks_its_tables_and_prepares_once(
    env: dict[str, str], postgres_server: PostgresServer
) -> None:
    """An external PostgreSQL that wants a password (scram over TCP): the tables check gets
    PGPASSWORD too, so the second run finds the tables and skips pgbench -i."""
    cfg = Path(env["BENCHDECK_CONFIG"])
    build = f"""
[[hosts.here.builds]]
name = "pg16_secure"
dbms = "postgres"
version = "16"
host = "{postgres_server.host}"
port = {postgres_server.port}
user = "{SECURE_USER}"
password = "{{password}}"
database = "{SECURE_DB}"
"""
    text = cfg.read_text()
    cfg.write_text(text + build.format(password="not-the-password"))
    wrong = bd(env, "run", "--host", "here", "--build", "pg16_secure", "--workload", "pgbench.select-only")
    assert wrong.returncode == 1
    assert "database not reachable" in wrong.stdout, wrong.stdout  # the server does check it
    assert "password authentication failed" in wrong.stdout, wrong.stdout

    cfg.write_text(text + build.format(password=SECURE_PASSWORD))
    args = ("run", "--host", "here", "--build", "pg16_secure", "--workload", "pgbench.select-only")
    args += ("--time", "2")
    first = bd(env, *args)
    finished_run(first)
    assert "prepare: tables exist: skipped" not in first.stdout
    second = bd(env, *args)
    finished_run(second)
    assert "prepare: tables exist: skipped" in second.stdout, second.stdout
    plans = db_rows(env, "SELECT plan FROM remote_runs")
    assert all(SECURE_PASSWORD not in str(plan) for (plan,) in plans)
