"""Managed servers across benchdeck processes: what runs where is recorded on the host, so a
second process (with another store) stops or reuses the first one's server; ``server list`` /
``server stop``; a port held by something else is one line before anything starts.

Real MariaDB servers created and started by benchdeck on a local host; nothing is faked.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import CLI, ROOT, bd, db_rows
from tests.fixtures.servers import free_port

pytestmark = pytest.mark.integration  # real runs

A, B = "ma101119_rel", "ma101119_rel_o2nofp"
WORKLOAD = "point-query_range=100"


@pytest.fixture
def work() -> Iterator[Path]:
    """The host's workdir (short: a socket path has 107 bytes); servers left are killed."""
    path = Path(tempfile.mkdtemp(prefix="bd", dir="/tmp"))
    yield path
    for pid_file in path.glob("servers/*/benchdeck-run/mysqld.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def two_builds_env(tmp_path: Path, work: Path, port: int, store: str) -> dict[str, str]:
    """Host ``here`` (local) with two managed MariaDB builds on one port."""
    cfg = tmp_path / "managed.toml"
    build = '\n[[hosts.here.builds]]\nname = "{}"\nmanaged = true\nport = {}\n'
    builds = "".join(build.format(b, port) for b in (A, B))
    cfg.write_text(f'[hosts.here]\ntransport = "local"\nworkdir = "{work}"\ntable_size = 2000\n{builds}')
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(tmp_path / store), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    return e


def run(env: dict[str, str], build: str) -> str:
    r = bd(env, "run", "--host", "here", "--build", build, "--workload", WORKLOAD, "--time", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^run \d+ finished qps [\d.]+", r.stdout, re.M), r.stdout
    return r.stdout


def port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_two_processes_with_managed_builds_on_one_port(tmp_path: Path, work: Path) -> None:
    port = free_port()
    first, second = (two_builds_env(tmp_path, work, port, name) for name in ("one.duckdb", "two.duckdb"))
    run(first, A)  # leaves A's server running on the port
    out = run(second, B)  # another process, another store: it finds A's server recorded on the host
    m = re.search(rf"server: stopping {A} \(pid (\d+), port {port}\)", out)
    assert m, out
    assert "Bind on TCP/IP port" not in out
    listed = bd(second, "server", "list")
    assert listed.returncode == 0, listed.stderr
    (line,) = listed.stdout.splitlines()
    assert re.fullmatch(rf"here  {B}  mariadb  port {port}  pid \d+  running  {work}/servers/{B}/data", line)
    assert bd(first, "server", "list").stdout == listed.stdout, "every process sees the same record"

    again = run(first, B)
    assert "stopping" not in again, "B's server is up already: reused"

    stopped = bd(first, "server", "stop", "here", A)
    assert stopped.returncode == 2
    assert f"no managed server of build {A} on here (servers: {B})" in stopped.stderr
    stopped = bd(first, "server", "stop", "here")
    assert stopped.returncode == 0, stopped.stderr
    assert re.fullmatch(rf"stopped {B} on here \(port {port}, pid \d+\)\n", stopped.stdout)
    assert not port_open(port)
    assert bd(first, "server", "list").stdout == "no managed servers\n"
    assert db_rows(first, "SELECT count(*) FROM runs WHERE status = 'finished'") == [(2,)]


def test_a_port_held_by_something_else_is_one_line_before_anything_starts(tmp_path: Path, work: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = two_builds_env(tmp_path, work, port, "bd.duckdb")
        r = bd(env, "run", "--host", "here", "--build", A, "--workload", WORKLOAD, "--time", "1")
    assert r.returncode == 1
    failed = [ln for ln in r.stdout.splitlines() if "failed" in ln]
    assert failed, r.stdout
    assert f"here: port {port} is held by python" in failed[0]
    assert f"(pid {os.getpid()}), not by a server benchdeck started" in failed[0]
    assert "server: starting" not in r.stdout, "nothing was started"
    assert len(r.stdout.splitlines()) == 2, r.stdout  # the failure line, then the run's end line
    assert not (work / "servers" / A / "data").exists(), "no datadir created"


def test_a_server_a_run_measures_on_is_not_stopped(tmp_path: Path, work: Path) -> None:
    port = free_port()
    env = two_builds_env(tmp_path, work, port, "bd.duckdb")
    argv = [*CLI, "run", "--host", "here", "--build", A, "--workload", WORKLOAD, "--time", "60"]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if re.match(r"\[run 1\] \d+s qps", line):
                break  # measuring
        refused = bd(env, "server", "stop", "here")
        assert refused.returncode == 1
        busy = (
            r"benchdeck: here: run 1 still has its (bench|vmstat|iostat) running \(pid \d+, "
            r".*cancel 1`[^\n]*\n"
        )
        assert re.fullmatch(busy, refused.stderr), refused.stderr
        second = two_builds_env(tmp_path, work, port, "two.duckdb")  # another process, another store
        other = bd(second, "run", "--host", "here", "--build", B, "--workload", WORKLOAD, "--time", "1")
        assert other.returncode == 1
        assert "here: run 1 still has its" in other.stderr, "B is not started on A's port meanwhile"
        assert port_open(port), "A's server still serves the run"
    finally:
        assert bd(env, "cancel", "1").returncode == 0
        proc.wait(timeout=60)
    stopped = bd(env, "server", "stop", "here", A)
    assert re.fullmatch(rf"stopped {A} on here \(port {port}, pid \d+\)\n", stopped.stdout), stopped.stderr
