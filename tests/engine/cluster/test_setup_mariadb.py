"""MariaDB replication set up by benchdeck on managed servers on loopback: rows written on the
primary appear on each replica; a second setup changes nothing; a replica added later gets a
first copy holding what the primary already had; a stopped replica is named, with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.engine.cluster.check import check_nodes, verdict
from benchdeck.engine.cluster.cluster_nodes import Node
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.mariadb_setup import wait_replicating
from benchdeck.engine.cluster.prepare import cluster_primary
from tests.engine.cluster.loop_clusters import (
    MARIADB_BUILD,
    LoopCluster,
    connect,
    loop_cluster,
)

pytestmark = pytest.mark.integration


async def value(node: Node, sql: str) -> str:
    rows = await node.rows(sql)
    return next(iter(rows[0].values()))


async def caught_up(primary: Node, replica: Node) -> None:
    """Wait (MASTER_GTID_WAIT, 20 s) until ``replica`` has applied all ``primary`` wrote."""
    pos = await value(primary, "SELECT @@gtid_binlog_pos AS pos")
    assert pos.replace("-", "").replace(",", "").isdigit()
    assert await value(replica, f"SELECT MASTER_GTID_WAIT('{pos}', 20) AS w") == "0", replica.label


async def test_async_replicas_get_the_primarys_rows_and_a_late_one_its_first_copy() -> None:
    async with loop_cluster("async", MARIADB_BUILD, replicas=2) as c:
        await _late_replica_scenario(c)


async def _late_replica_scenario(c: LoopCluster) -> None:
    first = c.inventory("r1")
    lines = await c.setup(first)
    assert any("node r1" in ln and "replicating from p" in ln for ln in lines), lines
    p, r1 = await c.nodes(first)
    await p.rows("CREATE TABLE sbtest.t (id INT PRIMARY KEY, v VARCHAR(8)); SELECT 1 AS ok")
    await p.rows("INSERT INTO sbtest.t VALUES (1,'a'),(2,'b'); SELECT 1 AS ok")
    await caught_up(p, r1)
    assert await value(r1, "SELECT GROUP_CONCAT(v ORDER BY id) AS v FROM sbtest.t") == "a,b"
    assert await value(r1, "SELECT @@server_id AS id") == "2"
    assert await value(r1, "SELECT @@read_only AS ro") == "1"

    assert p.server is not None
    kept = (Path(p.server.spec.parent) / "replication.secret").read_text()
    # r2 joins later: its first copy must hold rows 1, 2 (no binlog replay could give them: the
    # copy's GTID position is after them), then it follows as r1 does.
    full = c.inventory()
    again = await c.setup(full)
    assert any("node r1" in ln and "follows p already" in ln for ln in again), again
    assert any("node r2" in ln and "copying p's databases" in ln for ln in again), again
    assert not any("node r1" in ln and "copying" in ln for ln in again), again
    p, r1, r2 = await c.nodes(full)
    assert p.server is not None
    secret = Path(p.server.spec.parent) / "replication.secret"
    assert (secret.stat().st_mode & 0o777, secret.read_text()) == (0o600, kept)  # one password, kept
    await r1.rows("STOP REPLICA; START REPLICA; SELECT 1 AS ok")  # r1 logs in again with it
    await wait_replicating(r1)
    await p.rows("INSERT INTO sbtest.t VALUES (3,'c'); SELECT 1 AS ok")
    for r in (r1, r2):
        await caught_up(p, r)
        assert await value(r, "SELECT GROUP_CONCAT(v ORDER BY id) AS v FROM sbtest.t") == "a,b,c"

    checks = await check_nodes(full.clusters["loop"], [p, r1, r2])
    assert [c.problem for c in checks] == ["", "", ""]
    assert checks[1].line == f"node r1 (local:{c.ports['r1']}): replicating, 0 s behind"


async def test_a_stopped_replica_is_named_with_its_reason_and_prepare_brings_it_back() -> None:
    async with loop_cluster("async", MARIADB_BUILD, replicas=2) as c:
        await _stopped_replica_scenario(c)


async def _stopped_replica_scenario(c: LoopCluster) -> None:
    inv = c.inventory()
    cluster = inv.clusters["loop"]
    await c.setup()
    p, r1, r2 = await c.nodes()
    await r1.rows("STOP REPLICA SQL_THREAD; SELECT 1 AS ok")
    assert r2.server is not None
    await r2.server.stop()
    checks = await check_nodes(cluster, [p, r1, r2])
    assert checks[1].problem == "not replicating (IO thread Yes, SQL thread No)"
    assert "Can't connect" in checks[2].problem or "2002" in checks[2].problem, checks[2].problem
    with pytest.raises(ClusterError) as exc:
        verdict(cluster, checks)
    assert str(exc.value) == (
        f"cluster loop: node r1 (local:{c.ports['r1']}): not replicating (IO thread Yes, SQL thread No)"
        " (and 1 more node)"
    )

    # prepare starts r2 again and restarts r1's threads: both hold what p wrote meanwhile
    await p.rows(
        "CREATE TABLE sbtest.u (id INT PRIMARY KEY); INSERT INTO sbtest.u VALUES (7); SELECT 1 AS ok"
    )
    lines = await c.prepare()
    assert f"node r2 (local:{c.ports['r2']}): starting" in lines
    primary = await cluster_primary(connect, inv, cluster, MARIADB_BUILD, None)
    assert primary.server is not None
    assert (primary.name, primary.server.spec.port) == ("p", c.ports["p"])
    assert primary.server.spec.datadir.endswith(f"/servers/{MARIADB_BUILD}@loop.p/data")
    assert await primary.server.is_running()
    assert lines[-3:] == [f"node p (local:{c.ports['p']}): primary, answering"] + [
        f"node {r} (local:{c.ports[r]}): replicating, {lag}"
        for r, lag in zip(("r1", "r2"), _lags(lines[-2:]), strict=True)
    ]
    for r in (r1, r2):
        await caught_up(p, r)
        assert await value(r, "SELECT id FROM sbtest.u") == "7"

    # r2 made to follow r1 instead: named so; setup gives it p back (a first copy again)
    await r2.rows(
        f"STOP REPLICA; CHANGE MASTER TO MASTER_PORT = {c.ports['r1']}; START REPLICA; SELECT 1 AS ok"
    )
    await wait_replicating(r2)
    checks = await check_nodes(cluster, [p, r1, r2])
    assert checks[2].problem == f"replicates from port {c.ports['r1']}, not from p (port {c.ports['p']})"
    lines = await c.setup()
    assert f"node r2 (local:{c.ports['r2']}): copying p's databases" in lines
    await p.rows("INSERT INTO sbtest.u VALUES (8); SELECT 1 AS ok")
    await caught_up(p, r2)
    assert await value(r2, "SELECT GROUP_CONCAT(id ORDER BY id) AS ids FROM sbtest.u") == "7,8"
    assert [ch.problem for ch in await check_nodes(cluster, [p, r1, r2])] == ["", "", ""]


def _lags(lines: list[str]) -> list[str]:
    return [ln.rsplit("replicating, ", 1)[-1] for ln in lines]


async def test_semisync_replica_acknowledges_the_primarys_commits() -> None:
    async with loop_cluster("semisync", MARIADB_BUILD, replicas=1) as c:
        await _semisync_scenario(c)


async def _semisync_scenario(c: LoopCluster) -> None:
    inv = c.inventory()
    cluster = inv.clusters["loop"]
    lines = await c.setup()
    assert f"node p (local:{c.ports['p']}): semi-synchronous, 1 replica(s) acknowledging" in lines
    p, r1 = await c.nodes()
    await p.rows(
        "CREATE TABLE sbtest.s (id INT PRIMARY KEY); INSERT INTO sbtest.s VALUES (1); SELECT 1 AS ok"
    )
    status = {
        r["Variable_name"]: r["Value"] for r in await p.rows("SHOW STATUS LIKE 'Rpl_semi_sync_master_%'")
    }
    assert status["Rpl_semi_sync_master_status"] == "ON"
    assert int(status["Rpl_semi_sync_master_yes_tx"]) >= 2  # both commits waited for r1's ack
    assert status["Rpl_semi_sync_master_no_tx"] == "0"
    await caught_up(p, r1)
    assert await value(r1, "SELECT id FROM sbtest.s") == "1"

    await p.rows("SET GLOBAL rpl_semi_sync_master_enabled = OFF; SELECT 1 AS ok")
    with pytest.raises(
        ClusterError, match=r"^cluster loop: node p \(local:\d+\): semi-synchronous replication is off"
    ):
        verdict(cluster, await check_nodes(cluster, [p, r1]))
    lines = await c.prepare()
    assert lines[-2] == f"node p (local:{c.ports['p']}): primary, answering"


async def test_galera_members_share_the_primarys_rows() -> None:
    async with loop_cluster("galera", MARIADB_BUILD, replicas=1) as c:
        await _galera_scenario(c)


async def _galera_scenario(c: LoopCluster) -> None:
    inv = c.inventory()
    cluster = inv.clusters["loop"]
    lines = await c.setup()
    assert f"node p (local:{c.ports['p']}): a Galera cluster of 2 synced nodes" in lines, lines
    p, r1 = await c.nodes()
    await p.rows(
        "CREATE TABLE sbtest.g (id INT PRIMARY KEY); INSERT INTO sbtest.g VALUES (5); SELECT 1 AS ok"
    )
    # wsrep_sync_wait: the read waits until the member applied what came before
    assert await value(r1, "SET SESSION wsrep_sync_wait = 1; SELECT id FROM sbtest.g") == "5"
    checks = await check_nodes(cluster, [p, r1])
    assert [ch.line for ch in checks] == [
        f"node p (local:{c.ports['p']}): primary, answering",
        f"node r1 (local:{c.ports['r1']}): a synced Galera member",
    ]

    assert r1.server is not None
    await r1.server.stop()
    with pytest.raises(ClusterError) as exc:
        verdict(cluster, await check_nodes(cluster, [p, r1]))
    assert (
        str(exc.value)
        == f"cluster loop: node p (local:{c.ports['p']}): in a cluster of 1 nodes, not 2 (and 1 more node)"
    )
    await p.rows("INSERT INTO sbtest.g VALUES (6); SELECT 1 AS ok")  # r1 gets it when it rejoins
    lines = await c.prepare()
    assert f"node r1 (local:{c.ports['r1']}): starting" in lines
    assert lines[-1] == f"node r1 (local:{c.ports['r1']}): a synced Galera member"
    assert await value(r1, "SET SESSION wsrep_sync_wait = 1; SELECT GROUP_CONCAT(id) FROM sbtest.g") == "5,6"
