"""The real ``benchdeck run | queue | resume`` over a real sshd against a real MariaDB.

benchdeck is run as a separate process; one test kills it with SIGKILL mid-run and checks
that ``benchdeck resume`` reattaches and stores every interval line exactly once.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchdeck.engine.families.insertbench.plan import IB_PACKAGE, insertbench_client_files
from benchdeck.engine.families.tpcc.plan import tpcc_client_files
from tests.fixtures.cli_helpers import (
    CLI,
    ROOT,
    bd,
    db_rows,
    inventory_env,
    mariadb_build,
    remote_output,
    sshd_host,
)
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration  # real sshd and MariaDB

BUILD = "ma101119_rel"
WORKLOAD = "point-query_range=100"


PYTHON = f'python = "{sys.executable}"'
"""The host's Python as the inventory names it: this interpreter, whose packages are benchdeck's
(PyMySQL, psycopg), whatever ``python3`` an SSH session's login shell finds (a pyenv shim ...)."""


@pytest.fixture
def env(tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer) -> dict[str, str]:
    keys = f"threads = 1\ntables = 1\ntable_size = 10000\n{PYTHON}"
    host = sshd_host("sshd", sshd_server, tmp_path / "remote", keys)
    return inventory_env(tmp_path, host + mariadb_build("sshd", BUILD, mariadb_server))


def interval_ts(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


def sysbench_qps(text: str) -> float:
    m = re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    assert m, text[-1500:]
    return float(m.group(1))


def test_run_over_ssh_ends_with_run_id_and_qps(env: dict[str, str]) -> None:
    r = bd(env, "run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "4")
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^run (\d+) finished qps ([\d.]+)", r.stdout, re.M)
    assert m, r.stdout
    run_id, qps = int(m.group(1)), float(m.group(2))
    assert "measuring on sshd" in r.stdout, "plain progress lines when not a tty"
    text = remote_output(env, run_id)
    assert qps == pytest.approx(sysbench_qps(text), abs=0.005)
    ((stored, nb),) = db_rows(env, "SELECT qps, bench_samples FROM run_summary WHERE run_id = ?", [run_id])
    assert stored == sysbench_qps(text)
    assert nb == len(interval_ts(text))


def start_run(env: dict[str, str], seconds: int, samples: int) -> tuple[subprocess.Popen[str], int]:
    """Start ``benchdeck run`` (plain progress lines) and read until it printed ``samples``."""
    proc = subprocess.Popen(
        [*CLI, "run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", str(seconds)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    seen = 0
    for line in proc.stdout:
        m = re.match(r"\[run (\d+)\] \d+s qps", line)
        if m:
            seen += 1
            if seen == samples:
                return proc, int(m.group(1))
    raise AssertionError(f"benchdeck ended before printing {samples} samples (exit {proc.wait()})")


def test_killed_benchdeck_is_resumed_and_backfilled(env: dict[str, str]) -> None:
    proc, run_id = start_run(env, 8, samples=3)  # benchdeck is killed after 3 samples
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    ((plan,),) = db_rows(env, "SELECT plan FROM remote_runs WHERE run_id = ?", [run_id])
    password = re.search(r'^password = "(.+)"$', Path(env["BENCHDECK_CONFIG"]).read_text(), re.M)
    assert password is not None
    assert password.group(1) not in plan, "the stored plan masks the database password"
    assert "--mysql-password=********" in plan

    r = bd(env, "resume")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(rf"^run {run_id} finished qps", r.stdout, re.M), r.stdout
    text = remote_output(env, run_id)
    stored = [
        row[0] for row in db_rows(env, "SELECT t FROM bench_samples WHERE run_id = ? ORDER BY t", [run_id])
    ]
    assert stored == interval_ts(text), "every interval line stored exactly once"
    ((qps,),) = db_rows(env, "SELECT qps FROM run_summary WHERE run_id = ?", [run_id])
    assert qps == sysbench_qps(text)
    assert bd(env, "resume").stdout.strip() == "nothing to resume"


def test_queue_runs_the_matrix_in_order(env: dict[str, str]) -> None:
    r = bd(
        env,
        "queue",
        "--host",
        "sshd",
        "--build",
        BUILD,
        "--workload",
        WORKLOAD,
        "--workload",
        "points-covered-si_range=100",
        "--time",
        "2",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0] == "queue 1: 2 runs"
    rows = db_rows(
        env,
        "SELECT i.workload, i.status, r.status FROM queue_items i JOIN runs r USING (run_id) "
        "ORDER BY i.position",
    )
    assert rows == [
        (WORKLOAD, "finished", "finished"),
        ("points-covered-si_range=100", "finished", "finished"),
    ]


def test_typos_are_usage_errors_and_store_nothing(env: dict[str, str]) -> None:
    """A misspelt host, build, config or workload (also inside a suite) is one line naming the
    known names, exit 2, before anything is stored or started."""
    cfg = Path(env["BENCHDECK_CONFIG"])
    suite = 'workloads = ["point-query_range=100", "updat-index_range=100"]'
    cfg.write_text(cfg.read_text() + f"\n[suites.mine]\n{suite}\n")
    cases = [
        (["run", "--host", "sshd", "--build", "nosuch", "--workload", WORKLOAD],
         f"unknown build 'nosuch' on host sshd (known: {BUILD}, sqlite, sqlite-sync)"),
        (["run", "--host", "shd", "--build", BUILD, "--workload", WORKLOAD],
         "unknown host 'shd' (known: sshd); did you mean 'sshd'?"),
        (["run", "--host", "sshd", "--build", BUILD, "--config", "big", "--workload", WORKLOAD],
         f"unknown config 'big' of build(s) {BUILD} (known: none)"),
        (["run", "--host", "sshd", "--build", BUILD, "--workload", "point-qury_range=100"],
         "did you mean 'point-query_range=100'?"),
        (["queue", "--host", "sshd", "--build", BUILD, "--suite", "mine"],
         "unknown workload 'updat-index_range=100' (sysbench tests: delete, hot-points,"),
        (["queue", "--host", "sshd", "--build", BUILD, "--suite", "clasic"],
         "unknown suite 'clasic' (one of classic, dbbench,"),
        (["run", "--host", "sshd", "--build", BUILD, "--workload", "pgbench.select-only"],
         f"pgbench needs a PostgreSQL build; {BUILD} is mariadb"),
    ]  # fmt: skip
    for args, expected in cases:
        r = bd(env, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert expected in r.stderr, (args, r.stderr)
        assert len(r.stderr.splitlines()) == 1, r.stderr
        assert r.stdout == "", "nothing started"
    assert not Path(env["BENCHDECK_DB"]).exists(), "no run, build or queue was stored"


def test_cancel_from_another_benchdeck_keeps_samples(env: dict[str, str]) -> None:
    proc, run_id = start_run(env, 60, samples=2)
    r = bd(env, "cancel", str(run_id))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"run {run_id} cancelled" in r.stdout
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 1, "a cancelled run is not a success"
    assert re.search(rf"^run {run_id} cancelled", rest, re.M), rest
    ((status, n),) = db_rows(
        env,
        "SELECT r.status, count(b.t) FROM runs r LEFT JOIN bench_samples b "
        "USING (run_id) WHERE r.run_id = ? GROUP BY r.status",
        [run_id],
    )
    assert status == "cancelled"
    assert n >= 2, "samples taken before the cancel are kept"
    assert "General statistics" not in remote_output(env, run_id), "sysbench was stopped early"


def managed_env(tmp_path: Path, build_keys: str, table_size: int) -> tuple[dict[str, str], Path, int]:
    """A ``local`` host with one managed MariaDB build (``build_keys`` added to it) on a free
    port: the environment for ``bd``, the host's workdir and the port."""
    port = _free_port()
    work = Path(tempfile.mkdtemp(prefix="bd", dir="/tmp"))  # short: a socket path has 107 bytes
    cfg = tmp_path / "managed.toml"
    cfg.write_text(
        f"""
[hosts.here]
transport = "local"
workdir = "{work}"
table_size = {table_size}

[[hosts.here.builds]]
name = "{BUILD}"
managed = true
port = {port}
{build_keys}
"""
    )
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(tmp_path / "m.duckdb"), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    return e, work, port


def test_managed_server_is_created_started_and_stopped(tmp_path: Path) -> None:
    import socket

    e, work, port = managed_env(tmp_path, 'config = "small"', table_size=5000)
    r = bd(
        e, "run", "--host", "here", "--build", BUILD, "--workload", WORKLOAD, "--time", "2", "--stop-server"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "server: starting" in r.stdout
    assert re.search(r"^run \d+ finished qps [\d.]+", r.stdout, re.M), r.stdout
    datadir = work / "servers" / f"{BUILD}.small" / "data"
    assert (datadir / "mysql").is_dir(), "the datadir was created"
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "the server was stopped after the run"
    ((config,),) = db_rows(e, "SELECT config FROM runs")
    assert config == "small"


def test_an_inventory_suite_sets_its_runs_and_gets_a_post_write_step(env: dict[str, str]) -> None:
    cfg = Path(env["BENCHDECK_CONFIG"])
    cfg.write_text(
        cfg.read_text()
        + """
[suites.mine]
workloads = ["update-index_range=100", "point-query_range=100"]
threads = 2
read_s = 2
write_s = 3
post_write_s = 1
"""
    )
    r = bd(env, "queue", "--host", "sshd", "--build", BUILD, "--suite", "mine")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "post-write: 7 statements (ANALYZE ...) done" in r.stdout, r.stdout
    rows = db_rows(
        env,
        "SELECT w.name, r.threads, r.status, rr.plan->>'duration_s' FROM runs r "
        "JOIN workloads w USING (workload_id) JOIN remote_runs rr USING (run_id) ORDER BY r.run_id",
    )
    assert rows == [
        ("update-index_range=100", 2, "finished", "3"),
        ("point-query_range=100", 2, "finished", "2"),
    ]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _kill_servers(work: Path) -> None:
    """Test clean-up: stop every managed server left under ``work`` (after a failure)."""
    for pid_file in work.glob("servers/*/benchdeck-run/mysqld.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def test_a_queue_runs_each_picked_server_config_one_server_at_a_time(tmp_path: Path) -> None:
    """Two configs of one managed build share a port: the queue stops the first server before
    starting the second, each run records its config, and the server runs with that config."""
    import pymysql

    for name, conns in (("small", 77), ("big", 99)):
        (tmp_path / f"{name}.cnf").write_text(f"[mysqld]\nmax_connections = {conns}\n")
    e, work, port = managed_env(
        tmp_path,
        f'config = "small"\nconfig_file = "{tmp_path / "small.cnf"}"\n'
        f'configs = {{ big = "{tmp_path / "big.cnf"}" }}',
        table_size=2000,
    )
    try:
        r = bd(e, "queue", "--host", "here", "--build", BUILD, "--config", "small", "--config", "big",
               "--workload", WORKLOAD, "--time", "2")  # fmt: skip
        assert r.returncode == 0, r.stdout + r.stderr
        assert "queue 1: 2 runs" in r.stdout
        assert f"stopping {BUILD} (small)" in r.stdout, r.stdout
        assert db_rows(e, "SELECT config, status FROM runs ORDER BY run_id") == [
            ("small", "finished"),
            ("big", "finished"),
        ]
        assert db_rows(e, "SELECT config FROM queue_items ORDER BY position") == [("small",), ("big",)]
        con = pymysql.connect(host="127.0.0.1", port=port, user="sbtest", password="sbtest")
        with con, con.cursor() as cur:
            cur.execute("SELECT @@max_connections")
            assert cur.fetchone() == (99,), "the second run's server uses the big config"

        bad = bd(e, "run", "--host", "here", "--build", BUILD, "--config", "nope", "--workload", WORKLOAD)
        assert bad.returncode != 0
        assert bad.returncode == 2
        assert f"unknown config 'nope' of build(s) {BUILD} (known: big, small)" in bad.stderr

        r = bd(e, "run", "--host", "here", "--build", BUILD, "--config", "big", "--workload", WORKLOAD,
               "--time", "1", "--stop-server")  # fmt: skip
        assert r.returncode == 0, r.stdout + r.stderr
        assert "stopping" not in r.stdout, "the big server was up already: reused"
        assert db_rows(e, "SELECT config FROM runs ORDER BY run_id DESC LIMIT 1") == [("big",)]
    finally:
        _kill_servers(work)


def test_tpcc_runs_over_ssh_from_the_run_directory(env: dict[str, str]) -> None:
    """The TPC-C-like client ships as the Insert Benchmark's does (with the modules it reuses);
    the stored QPS is the tpmC the remote client printed."""
    r = bd(env, "run", "--host", "sshd", "--build", BUILD, "--workload", "tpcc.w1", "--time", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^run (\d+) finished qps ([\d.]+)", r.stdout, re.M)
    assert m, r.stdout
    text = remote_output(env, int(m.group(1)))
    assert text.splitlines()[0].startswith("python3 -m benchdeck.engine.families.tpcc.client "), text[:300]
    printed = re.search(r"^tpmC: ([\d.]+)$", text, re.M)
    assert printed, text[-1000:]
    ((qps,),) = db_rows(env, "SELECT qps FROM run_summary WHERE run_id = ?", [int(m.group(1))])
    assert qps == float(printed.group(1)) > 0
    shipped = [path for path, _ in tpcc_client_files()]
    assert "tpcc/benchdeck/engine/families/insertbench/workers.py" in shipped
    ((plan,),) = db_rows(env, "SELECT plan FROM remote_runs WHERE run_id = ?", [int(m.group(1))])
    assert json.dumps(sys.executable) in plan, "the client ran with the host's python from the inventory"


def test_a_host_python_without_the_driver_is_named(env: dict[str, str], tmp_path: Path) -> None:
    """The host's ``python`` in the inventory is the one the client runs with: one without PyMySQL
    fails the run with a line naming that interpreter and the two ways out."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    cfg = Path(env["BENCHDECK_CONFIG"])
    cfg.write_text(cfg.read_text().replace(PYTHON, f'python = "{bare}/bin/python"'))
    r = bd(env, "run", "--host", "sshd", "--build", BUILD, "--workload", "tpcc.w1", "--time", "2")
    assert r.returncode != 0, r.stdout
    out = r.stdout + r.stderr
    assert f"No module named 'pymysql' in {bare}/bin/python: install python3-pymysql" in out, out
    assert 'python = "..." in the inventory' in out, out


def test_insert_benchmark_runs_over_ssh_from_the_run_directory(env: dict[str, str]) -> None:
    """The client's sources travel in the run directory: the host needs python3 and PyMySQL,
    not benchdeck. The figure stored is the one the remote client printed."""
    r = bd(env, "run", "--host", "sshd", "--build", BUILD, "--workload", "l.i0", "--param", "rows=2000")
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^run (\d+) finished qps ([\d.]+)", r.stdout, re.M)
    assert m, r.stdout
    run_id = int(m.group(1))
    text = remote_output(env, run_id)
    assert text.splitlines()[0].startswith("python3 -m benchdeck.engine.families.insertbench.client"), text[
        :300
    ]
    printed = re.search(r"^inserts: 2000 \(([\d.]+) per sec\.\)", text, re.M)
    assert printed, text[-1000:]
    ((qps,),) = db_rows(env, "SELECT qps FROM run_summary WHERE run_id = ?", [run_id])
    assert qps == float(printed.group(1))
    ((plan,),) = db_rows(env, "SELECT plan FROM remote_runs WHERE run_id = ?", [run_id])
    shipped = [path for path, _ in insertbench_client_files()]
    assert f"ib/{IB_PACKAGE.replace('.', '/')}/client.py" in shipped
    assert all(f'"{path}"' in plan for path in shipped), plan
