"""Prepare is a resumable phase, tables are checked by rows, and nothing is measured beside a
process of another run: the real ``benchdeck`` over a real sshd against a real MariaDB.

The first test kills benchdeck with SIGKILL during ``prepare`` (the remote sysbench prepare
goes on inserting), then checks that a second run refuses to measure beside it and that
``benchdeck resume`` waits for it, finds every row, and measures a normal QPS.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import bd, db_rows, sql, ssh_env, start_in_prepare
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration  # real sshd and MariaDB

BUILD = "ma101119_rel"
WORKLOAD = "point-query_range=100"


@pytest.fixture
def database(mariadb_server: MariaDBServer) -> Iterator[str]:
    """A database of its own (the tables here are bigger than other tests want)."""
    name = f"prep_{secrets.token_hex(3)}"
    sql(mariadb_server, f"CREATE DATABASE {name}")
    yield name
    sql(mariadb_server, f"DROP DATABASE IF EXISTS {name}")


def rows(db: MariaDBServer, database: str, table: str = "sbtest1") -> int | None:
    """Rows of a table, None while it does not exist."""
    r = subprocess.run(
        db.client_argv("-N", "-e", f"SELECT count(*) FROM {database}.{table}"), capture_output=True, text=True
    )
    return int(r.stdout) if r.returncode == 0 else None


def qps_of(stdout: str, run_id: int | None = None) -> tuple[int, float]:
    rid = str(run_id) if run_id is not None else r"\d+"
    m = re.search(rf"^run ({rid}) finished qps ([\d.]+)", stdout, re.M)
    assert m, stdout
    return int(m.group(1)), float(m.group(2))


def start_inserting(
    env: dict[str, str], db: MariaDBServer, database: str
) -> tuple[subprocess.Popen[str], int]:
    """Start ``benchdeck run``; return it and its run id once the remote prepare inserted rows."""
    proc, run_id = start_in_prepare(
        env, "run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "5"
    )
    deadline = time.monotonic() + 60
    while not (rows(db, database) or 0) > 0:  # the remote prepare is inserting
        assert time.monotonic() < deadline, "prepare never inserted a row"
        time.sleep(0.05)
    return proc, run_id


def kill_benchdeck_in_prepare(env: dict[str, str], db: MariaDBServer, database: str) -> int:
    """Start ``benchdeck run``, SIGKILL it once the remote prepare inserted rows; the run id."""
    proc, run_id = start_inserting(env, db, database)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    return run_id


def test_killed_during_prepare_then_resume_measures_full_tables(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer, database: str
) -> None:
    table_size = 500_000  # ~12 s of prepare here: long enough for what is tried inside it
    env = ssh_env(
        tmp_path, sshd_server, mariadb_server, BUILD, database=database,
        host_keys=f"threads = 1\ntables = 1\ntable_size = {table_size}",
    )  # fmt: skip
    run_id = kill_benchdeck_in_prepare(env, mariadb_server, database)
    partial = rows(mariadb_server, database)
    assert partial is not None
    assert partial < table_size, "killed inside the prepare"

    other = bd(env, "run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "2")
    assert other.returncode == 1, other.stdout + other.stderr
    assert other.stdout == "", "nothing was stored or measured beside the leftover prepare"
    refusal = rf"^benchdeck: sshd: run {run_id} still has its prepare running \(pid \d+, process group \d+, "
    assert re.match(refusal, other.stderr), other.stderr
    assert len(other.stderr.splitlines()) == 1, other.stderr
    assert other.stderr.rstrip().endswith(
        f"no benchdeck follows it: `benchdeck resume` it or `benchdeck cancel {run_id}`"
    )
    queued = bd(env, "queue", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "2")
    assert queued.returncode == 1, queued.stdout + queued.stderr
    assert re.search(refusal, queued.stderr, re.M), queued.stderr
    assert "the queue's runs there wait (benchdeck resume)" in queued.stderr
    assert db_rows(env, "SELECT status, run_id FROM queue_items") == [("pending", None)]
    assert db_rows(env, "SELECT run_id FROM runs") == [(run_id,)], "only the interrupted run is stored"

    resumed = bd(env, "resume", timeout=180)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"[run {run_id}] reattach: prepare in " in resumed.stdout, resumed.stdout
    assert f"[run {run_id}] prepare: 1 table x {table_size:,} rows present: skipped" in resumed.stdout
    _, qps_resumed = qps_of(resumed.stdout, run_id)
    assert rows(mariadb_server, database) == table_size, "every row of the interrupted prepare is in"
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    run_dir = Path(str(remote_dir))
    assert (run_dir / "prepare.rc").read_text().strip() == "0", "the leftover prepare ran to its end"
    ended, measured = (run_dir / "prepare.rc").stat().st_mtime, (run_dir / "bench.pgid").stat().st_mtime
    assert ended <= measured, "measuring started only after the prepare had ended"

    normal = bd(env, "run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "5")
    assert normal.returncode == 0, normal.stdout + normal.stderr
    _, qps_normal = qps_of(normal.stdout)
    print(f"QPS after resume {qps_resumed:.0f}, normal run {qps_normal:.0f}")
    # Measured beside a running prepare the QPS was 1/4-1/8 of normal (here 3576 vs 13-16k; the
    # issue: 3485 vs 25-45k). On a shared 2-core VM two normal 5 s runs in a row differed up to
    # 4x (5767 vs 23453), so only a fall below 1/3 fails here; the checks above tell the cause.
    assert qps_resumed / qps_normal > 1 / 3, (qps_resumed, qps_normal)
    statuses = db_rows(env, "SELECT run_id, status FROM runs ORDER BY run_id")
    assert statuses[0] == (run_id, "finished")
    assert [s for _, s in statuses] == ["finished"] * 3, "resume ran the queued run after it"
    assert db_rows(env, "SELECT status FROM queue_items") == [("finished",)]


def test_short_tables_and_a_missing_index_are_prepared_again(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer, database: str
) -> None:
    env = ssh_env(
        tmp_path, sshd_server, mariadb_server, BUILD, database=database,
        host_keys="threads = 1\ntables = 2\ntable_size = 2000",
    )  # fmt: skip
    args = ("run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "1")
    first = bd(env, *args)
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.search(r"^\[run \d+\] prepare$", first.stdout, re.M), first.stdout

    sql(mariadb_server, f"DELETE FROM {database}.sbtest2 WHERE id <= 10")
    short = bd(env, *args)
    assert short.returncode == 0, short.stdout + short.stderr
    again = "prepare: sbtest2 has 1,990 of 2,000 rows: dropping the tables and preparing them again"
    assert again in short.stdout, short.stdout
    assert [rows(mariadb_server, database, t) for t in ("sbtest1", "sbtest2")] == [2000, 2000]

    sql(mariadb_server, f"DROP INDEX k_1 ON {database}.sbtest1")
    no_index = bd(env, *args)
    assert no_index.returncode == 0, no_index.stdout + no_index.stderr
    assert "prepare: sbtest1 has no index k_1: dropping the tables" in no_index.stdout
    assert sql(mariadb_server, f"SHOW INDEX FROM {database}.sbtest1 WHERE Key_name = 'k_1'").strip()

    whole = bd(env, *args)
    assert "prepare: 2 tables x 2,000 rows present: skipped" in whole.stdout, whole.stdout


def test_a_prepare_killed_with_benchdeck_is_made_again_on_resume(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer, database: str
) -> None:
    """The remote prepare itself is killed too (its whole process group, no exit code left):
    resume finds the tables short, drops them, prepares them whole, then measures."""
    env = ssh_env(
        tmp_path, sshd_server, mariadb_server, BUILD, database=database,
        host_keys="threads = 1\ntables = 1\ntable_size = 200000",
    )  # fmt: skip
    run_id = kill_benchdeck_in_prepare(env, mariadb_server, database)
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    pgid = int(Path(str(remote_dir), "prepare.pgid").read_text())
    os.killpg(pgid, signal.SIGKILL)
    partial = rows(mariadb_server, database)
    assert partial is not None
    assert partial < 200_000

    resumed = bd(env, "resume", timeout=180)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"[run {run_id}] benchdeck: prepare ended without an exit code (killed?)" in resumed.stdout
    again = rf"^\[run {run_id}\] prepare: sbtest1 has [\d,]+ of 200,000 rows: dropping the tables"
    assert re.search(again, resumed.stdout, re.M), resumed.stdout
    qps_of(resumed.stdout, run_id)
    assert rows(mariadb_server, database) == 200_000


def test_cancel_during_prepare_stops_it_and_records_a_cancelled_run(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer, database: str
) -> None:
    """``benchdeck cancel N`` (the app's cancel does the same) while the benchdeck following run
    N is in its prepare: the remote prepare stops and that benchdeck records the run cancelled,
    not failed, and measures nothing."""
    env = ssh_env(
        tmp_path, sshd_server, mariadb_server, BUILD, database=database,
        host_keys="threads = 1\ntables = 1\ntable_size = 400000",
    )  # fmt: skip
    proc, run_id = start_inserting(env, mariadb_server, database)
    r = bd(env, "cancel", str(run_id))
    assert r.returncode == 0, r.stdout + r.stderr
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1, rest  # a run that did not finish
    assert re.search(rf"^run {run_id} cancelled", rest, re.M), rest
    assert "measuring" not in rest, "nothing measured after the cancel"
    ((status, error),) = db_rows(env, "SELECT status, error FROM runs WHERE run_id = ?", [run_id])
    assert (status, error) == ("cancelled", None)
    partial = rows(mariadb_server, database)
    assert partial is not None
    assert partial < 400_000, "the prepare was stopped"
