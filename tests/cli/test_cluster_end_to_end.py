"""Issue 41 end to end, as a user types it: a managed MariaDB primary and replica on this machine
(no setup step: the run brings them up and replicating), ``benchdeck run --cluster`` with sysbench
writes through the primary, then what the store holds and what ``runs`` and ``compare`` show.
The summary's max lag is checked against the stored lag rows, the per-node samples against the
run's length (the lag against the servers' own views second by second: tests/engine/cluster)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from tests.cli.test_cluster_cli import BUILD, env_for, managed_inventory
from tests.fixtures.cli_helpers import bd
from tests.fixtures.servers import free_port

pytestmark = pytest.mark.integration


@pytest.fixture
def work() -> Iterator[Path]:
    """The host's workdir (short: sockets live under it); the cluster's servers are killed after."""
    path = Path(tempfile.mkdtemp(prefix="bd-e2e-"))
    yield path
    for pid_file in path.glob("servers/*/benchdeck-run/mysqld.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_run_on_a_managed_cluster_is_stored_and_compared(tmp_path: Path, work: Path) -> None:
    ports = {"p": free_port(), "r1": free_port()}
    env = env_for(tmp_path, managed_inventory(work, ports) + "")
    env["COLUMNS"] = "200"
    run = bd(
        env,
        "run", "--cluster", "loop", "--build", BUILD, "--workload", "write-only",
        "--time", "8", "--threads", "2", "--tables", "1", "--table-size", "2000",
        timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr + run.stdout
    db = tmp_path / "s.duckdb"
    ((rid, cluster, kind, lag_max, over, faults),) = rows(
        db, "SELECT run_id, cluster, kind, lag_max_s, over_limit, faults FROM run_clusters"
    )
    assert (cluster, kind, over, faults) == ("loop", "async", False, 0)
    assert [tuple(r) for r in rows(db, "SELECT node, role FROM cluster_nodes ORDER BY node")] == [
        ("p", "primary"),
        ("r1", "replica"),
    ]
    lag = rows(db, f"SELECT t, lag_s, behind_trx, state FROM replica_lag WHERE run_id = {rid} ORDER BY t")
    measured = [r for r in lag if float(str(r[0])) >= 0]
    assert len(measured) >= 6, lag  # about one a second over the 8 s run
    assert all(r[3] == "ok" for r in lag)
    assert lag_max is not None
    assert float(str(lag_max)) == max(float(str(r[1])) for r in measured if r[1] is not None)
    nodes_vm = dict(
        rows(db, f"SELECT node, count(*) FROM node_vmstat_samples WHERE run_id = {rid} GROUP BY 1")
    )
    assert set(nodes_vm) == {"p", "r1"}
    assert all(int(str(n)) >= 6 for n in nodes_vm.values())
    (qps,) = rows(db, f"SELECT qps FROM run_summary WHERE run_id = {rid}")[0]
    assert float(str(qps)) > 0

    listed = bd(env, "runs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    (one,) = json.loads(listed.stdout)
    assert one["cluster"] == "loop"

    again = bd(  # the same cluster at one client: compare's columns BUILD@CLUSTER@DOP
        env,
        "run", "--cluster", "loop", "--build", BUILD, "--workload", "write-only",
        "--time", "8", "--threads", "1", "--tables", "1", "--table-size", "2000",
        timeout=600,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr + again.stdout
    cmp = bd(
        env, "compare", "--host", "local", "--base", f"{BUILD}@loop@1", "--with", f"{BUILD}@loop@2",
        "--format", "json",
    )  # fmt: skip
    assert cmp.returncode == 0, cmp.stderr
    out = json.loads(cmp.stdout)
    assert [c["cluster"] for c in (out["base"], *out["columns"])] == ["loop", "loop"]
    (cell,) = out["rqps"][0]["cells"]
    assert cell["rqps"] == pytest.approx(cell["qps"] / out["rqps"][0]["base_qps"])
    text = bd(env, "compare", "--host", "local", "--base", f"{BUILD}@loop@1", "--with", f"{BUILD}@loop@2")
    assert text.returncode == 0, text.stderr
    assert "lag" in text.stdout
    assert "r1" in text.stdout
