"""PostgreSQL streaming replication set up by benchdeck on managed servers on loopback: the
standby is a pg_basebackup of the primary, replays what the primary writes, and is named by the
primary's pg_stat_replication; a stopped standby is named with the reason, and brought back."""

from __future__ import annotations

import asyncio

import pytest

from benchdeck.engine.cluster.check import check_nodes, verdict
from benchdeck.engine.cluster.cluster_nodes import Node
from benchdeck.engine.cluster.errors import ClusterError
from tests.engine.cluster.loop_clusters import POSTGRES_BUILD, LoopCluster, loop_cluster

pytestmark = pytest.mark.integration


async def value(node: Node, sql: str) -> str:
    return next(iter((await node.rows(sql))[0].values()))


async def replayed(primary: Node, standby: Node) -> None:
    """Wait (at most 20 s) until ``standby`` has replayed all ``primary`` wrote so far."""
    lsn = await value(primary, "SELECT pg_current_wal_lsn() AS lsn")
    for _ in range(200):
        if await value(standby, f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn AS done") == "t":
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{standby.label} did not replay up to {lsn}")


async def test_a_standby_streams_the_primarys_rows() -> None:
    async with loop_cluster("streaming", POSTGRES_BUILD, replicas=1) as c:
        await _standby_scenario(c)


async def _standby_scenario(c: LoopCluster) -> None:
    inv = c.inventory()
    cluster = inv.clusters["loop"]
    lines = await c.setup()
    assert f"node r1 (local:{c.ports['r1']}): streaming from p" in lines, lines
    p, r1 = await c.nodes()
    await p.rows("CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2); SELECT 1 AS ok")
    await replayed(p, r1)
    assert await value(r1, "SELECT sum(id) AS s FROM t") == "3"
    assert await value(r1, "SELECT pg_is_in_recovery() AS r") == "t"
    rows = await p.rows("SELECT application_name, state FROM pg_stat_replication")
    assert rows == [{"application_name": "r1", "state": "streaming"}]

    again = await c.setup()
    assert not any("creating" in ln or "starting" in ln for ln in again), again

    assert r1.server is not None
    await r1.server.stop()
    await p.rows("INSERT INTO t VALUES (3); SELECT 1 AS ok")
    with pytest.raises(
        ClusterError, match=rf"^cluster loop: node r1 \(local:{c.ports['r1']}\): .*(connect|No such file)"
    ):
        verdict(cluster, await check_nodes(cluster, [p, r1]))
    lines = await c.prepare()
    assert f"node r1 (local:{c.ports['r1']}): starting" in lines
    assert lines[-1].startswith(f"node r1 (local:{c.ports['r1']}): replicating, ")
    await replayed(p, r1)
    assert await value(r1, "SELECT sum(id) AS s FROM t") == "6"
