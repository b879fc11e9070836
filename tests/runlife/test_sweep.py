"""A concurrency sweep through the real ``benchdeck queue`` (issue 28): the built-in SQLite on
this machine and the test MariaDB over the test sshd, 1, 2 and 4 threads, 2 repeats, 1-second
runs. Every (build, dop, repeat) is stored once, repeats interleave across builds (A B A B),
and ``queue: k/N`` counts them with an ETA that counts down."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import ROOT, bd, db_rows, inventory_env, mariadb_build, sshd_host
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration

DOPS = (1, 2, 4)
QUEUE_LINE = re.compile(
    r"^\[run (\d+)\] queue: (\d+)/(\d+) (\S+) (\S+) dop (\d+) repeat (\d+) ETA (\S+)$", re.M
)


def _seconds(eta: str) -> int:
    parts = {unit: int(n) for n, unit in re.findall(r"(\d+)([hms])", eta)}
    return parts.get("h", 0) * 3600 + parts.get("m", 0) * 60 + parts.get("s", 0)


def _check_sweep(env: dict[str, str], builds: tuple[str, str], workload: str, out: str) -> None:
    n = len(builds) * len(DOPS) * 2
    assert out.splitlines()[0] == f"queue 1: {n} runs"
    order = [(b, d, r) for r in (1, 2) for b in builds for d in DOPS]  # repeat outermost: A B A B
    rows = db_rows(
        env,
        "SELECT i.build, r.dop, i.repeat_no, r.status, r.workload FROM queue_items i "
        "JOIN run_results r USING (run_id) ORDER BY i.position",
    )
    assert [(b, d, rep) for b, d, rep, _, _ in rows] == order
    assert {(s, w) for *_, s, w in rows} == {("finished", workload)}
    stored = db_rows(env, "SELECT build, dop, count(*) FROM run_results GROUP BY ALL ORDER BY ALL")
    assert stored == [(b, d, 2) for b in sorted(builds) for d in DOPS], "every (build, dop) twice, once each"
    lines = QUEUE_LINE.findall(out)
    assert [(int(k), int(total)) for _, k, total, *_ in lines] == [(k, n) for k in range(1, n + 1)]
    assert [(b, int(d), int(r)) for _, _, _, b, _, d, r, _ in lines] == order
    etas = [_seconds(eta) for *_, eta in lines]
    assert etas[-1] < etas[n // 2] < etas[0], f"the ETA counts down: {etas}"


def test_sqlite_sweep_through_queue(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    env.update(BENCHDECK_DB=str(tmp_path / "bd.duckdb"), HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    workload = "point-query_range=10"
    r = bd(env, "queue", "--host", "local", "--build", "sqlite", "--build", "sqlite-sync",
           "--workload", workload, "--threads", "1,2", "--threads", "4", "--repeat", "2",
           "--time", "1", "--table-size", "1000", timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    _check_sweep(env, ("sqlite", "sqlite-sync"), workload, r.stdout)


def test_mariadb_sweep_through_queue(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer
) -> None:
    """Two build names on the one test server: what the queue does with them is the point."""
    host = sshd_host("sshd", sshd_server, tmp_path / "remote", "tables = 1\ntable_size = 2000")
    builds = ("ma101119_rel", "ma101120_rel")
    toml = host + "".join(mariadb_build("sshd", b, mariadb_server) for b in builds)
    env = inventory_env(tmp_path, toml)
    workload = "point-query_range=100"
    r = bd(env, "queue", "--host", "sshd", "--build", builds[0], "--build", builds[1],
           "--workload", workload, "--threads", "1,2,4", "--repeat", "2", "--time", "1",
           timeout=400)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    _check_sweep(env, builds, workload, r.stdout)


def test_bad_threads_is_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    env.update(BENCHDECK_DB=str(tmp_path / "bd.duckdb"), HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    r = bd(env, "run", "--host", "local", "--build", "sqlite", "--workload", "point-query_range=10",
           "--threads", "1,x")  # fmt: skip
    assert r.returncode == 2
    assert "--threads wants positive integers like 1,8,32, got '1,x'" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "bd.duckdb").exists()
