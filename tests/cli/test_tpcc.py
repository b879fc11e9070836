"""The real ``benchdeck run | queue`` of the TPC-C-like family (``tpcc.w1``) on MariaDB and PostgreSQL.

benchdeck runs as a separate process on a ``local`` host against the private servers of
tests/servers; one warehouse with the client's scaled-down defaults loads in a few seconds.
"""

from __future__ import annotations

import json
import re
import subprocess
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
)
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer

pytestmark = pytest.mark.integration  # real MariaDB and PostgreSQL

MARIADB, POSTGRES = "ma101119_rel", "pg15_rel"
NAMES = ("new_order", "payment", "order_status", "delivery", "stock_level")
MIX = {"new_order": 0.45, "payment": 0.43, "order_status": 0.04, "delivery": 0.04, "stock_level": 0.04}


FRESH = "bd_tpcc"  # a database of this module's own: the servers are the session's, and other
# modules' TPC-C runs (tests/cli/test_run.py over SSH) leave a complete load in theirs


def _fresh_databases(db: MariaDBServer, pg: PostgresServer) -> None:
    """An empty ``FRESH`` database on each server, so the first run here has to load."""
    subprocess.run(
        db.client_argv("-e", f"DROP DATABASE IF EXISTS {FRESH}; CREATE DATABASE {FRESH}"),
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    for statement in (f"DROP DATABASE IF EXISTS {FRESH}", f"CREATE DATABASE {FRESH} OWNER {pg.bench_user}"):
        argv = [str(pg.bin_dir / "psql"), "-X", "-v", "ON_ERROR_STOP=1", "-c", statement]
        argv += ["-h", pg.host, "-p", str(pg.port), "-U", pg.user, "-d", "postgres"]
        subprocess.run(argv, check=True, capture_output=True, timeout=60)


@pytest.fixture
def env(tmp_path: Path, mariadb_server: MariaDBServer, postgres_server: PostgresServer) -> dict[str, str]:
    _fresh_databases(mariadb_server, postgres_server)
    host = local_host("here", tmp_path / "remote", "threads = 1\ntables = 1\ntable_size = 10000")
    builds = mariadb_build("here", MARIADB, mariadb_server, database=FRESH) + postgres_build(
        "here", POSTGRES, postgres_server, database=FRESH
    )
    return inventory_env(tmp_path, host + builds)


def check_run(env: dict[str, str], run_id: int, threads: int) -> None:
    """Stored tpmC is the client's; each transaction type with count and latency; the mix holds."""
    text = remote_output(env, run_id)
    m = re.search(r"^tpmC: ([\d.]+)$", text, re.M)
    assert m, text[-2000:]
    ((qps, tps, lat, dop, params),) = db_rows(
        env,
        "SELECT s.qps, s.tps, s.lat_pct_ms, r.threads, r.params "
        "FROM run_summary s JOIN runs r USING (run_id) WHERE run_id = ?",
        [run_id],
    )
    assert qps == float(m.group(1))
    assert isinstance(qps, float)
    assert qps > 0
    assert isinstance(tps, float)
    assert tps > 0
    assert isinstance(lat, float)
    assert lat > 0
    assert dop == threads
    txns = json.loads(str(params))["transactions"]
    assert list(txns) == list(NAMES)
    total = sum(t["count"] for t in txns.values())
    for name, t in txns.items():
        assert t["count"] > 0, (name, t)
        assert t["avg_ms"] > 0, (name, t)
        assert t["p95_ms"] > 0, (name, t)
        assert abs(t["count"] / total - MIX[name]) < (0.12 if name in ("new_order", "payment") else 0.06), (
            txns
        )
    assert db_rows(env, "SELECT count(*) FROM bench_samples WHERE run_id = ? AND qps > 0", [run_id])[0][0]


def tpcc(build: str) -> tuple[str, ...]:
    return ("--host", "here", "--build", build, "--workload", "tpcc.w1")


@pytest.mark.parametrize("build", [MARIADB, POSTGRES])
def test_tpcc_runs_and_queues_a_thread_sweep(env: dict[str, str], build: str) -> None:
    r = bd(env, "run", *tpcc(build), "--threads", "2", "--time", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^run (\d+) finished qps ([\d.]+)", r.stdout, re.M)
    assert m, r.stdout
    check_run(env, int(m.group(1)), 2)
    r = bd(env, "queue", *tpcc(build), "--threads", "1,2", "--time", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = db_rows(
        env, "SELECT i.run_id, r.threads FROM queue_items i JOIN runs r USING (run_id) ORDER BY i.position"
    )
    assert sorted(t for _, t in rows) == [1, 2]
    for run_id, threads in rows:
        check_run(env, int(str(run_id)), int(str(threads)))
    scaling = bd(env, "scaling", "--host", "here", "--build", build, "--format", "csv")
    assert scaling.returncode == 0, scaling.stderr
    curve = [row.split(",")[:6] for row in scaling.stdout.splitlines() if row.startswith("tpcc.w1,")]
    assert [(w, g, b, dop) for w, g, b, _, dop, _ in curve] == [
        ("tpcc.w1", "tpcc", build, "1"),
        ("tpcc.w1", "tpcc", build, "2"),
    ], scaling.stdout
    assert all(float(qps) > 0 for *_, qps in curve)  # tpmC at each dop: the chapter's curve
    loads = [prepared(env, int(m.group(1)))] + [prepared(env, int(str(run_id))) for run_id, _ in rows]
    assert loads == [True, False, False], "the queue found the first run's load complete and kept it"


def prepared(env: dict[str, str], run_id: int) -> bool:
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    return Path(str(remote_dir), "prepare.out").exists()


def test_a_bad_param_fails_the_run_with_one_line(env: dict[str, str]) -> None:
    """Checked when the run is planned, as the Insert Benchmark's --param: the run is stored as
    failed with the reason; no client started, no traceback."""
    r = bd(env, "run", "--host", "here", "--build", MARIADB, "--workload", "tpcc.w1", "--param", "items=ten")
    assert r.returncode == 1, r.stdout + r.stderr
    why = "--param items=ten: expected a whole number >= 100"
    assert f"[run 1] failed: {why}\n" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr
    assert db_rows(env, "SELECT status, error FROM runs") == [("failed", why)]
