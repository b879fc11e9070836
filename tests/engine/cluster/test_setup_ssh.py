"""A cluster across two inventory hosts: the primary on ``local``, the replica on a host reached
over SSH (the test sshd on loopback, so both are this machine): setup works through either
transport, the replica reaches the primary at its host's address, and rows flow."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path

import pytest

from benchdeck.engine.cluster.check import check_nodes
from benchdeck.engine.cluster.setup import cluster_nodes, setup_cluster
from benchdeck.engine.hosts.inventory_file import parse_inventory
from benchdeck.engine.transport import Transport, make_transport
from tests.engine.cluster.loop_clusters import MARIADB_BUILD, lines_of
from tests.fixtures.cli_helpers import sshd_host
from tests.fixtures.servers import free_port
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration


async def test_a_replica_over_ssh_follows_a_local_primary(sshd_server: SshdServer) -> None:
    local_dir, far_dir = (Path(tempfile.mkdtemp(prefix=f"bd-cl-{n}-")) for n in ("l", "s"))
    ports = {"p": free_port(), "r1": free_port()}
    build = f'[[hosts.{{}}.builds]]\nname = "{MARIADB_BUILD}"\nmanaged = true\n'
    text = f'[hosts.local]\ntransport = "local"\nworkdir = "{local_dir}"\n' + build.format("local")
    text += sshd_host("far", sshd_server, far_dir) + build.format("far")
    text += '[clusters.two]\nkind = "async"\n'
    for name, host, role in (("p", "local", "primary"), ("r1", "far", "replica")):
        text += f'[[clusters.two.nodes]]\nname = "{name}"\nhost = "{host}"\nrole = "{role}"\n'
        text += f"port = {ports[name]}\n"
    inv = parse_inventory(text, local_dir / "benchdeck.toml")
    transports: dict[str, Transport] = {}

    async def connect(host: str) -> Transport:
        if host not in transports:
            transports[host] = make_transport(inv.host(host).spec)
            await transports[host].connect()
        return transports[host]

    cluster = inv.clusters["two"]
    try:
        lines = await lines_of(setup_cluster(connect, inv, cluster, MARIADB_BUILD, None))
        assert f"node r1 (far:{ports['r1']}): copying p's databases" in lines
        _, (p, r1) = await cluster_nodes(connect, inv, cluster, MARIADB_BUILD, None)
        assert type(r1.transport).__name__ == "SSHTransport"
        status = (await r1.rows("SHOW REPLICA STATUS"))[0]
        assert (status["Master_Host"], status["Master_Port"]) == ("127.0.0.1", str(ports["p"]))
        await p.rows(
            "CREATE TABLE sbtest.x (id INT PRIMARY KEY); INSERT INTO sbtest.x VALUES (9); SELECT 1 AS ok"
        )
        pos = (await p.rows("SELECT @@gtid_binlog_pos AS pos"))[0]["pos"]
        assert (await r1.rows(f"SELECT MASTER_GTID_WAIT('{pos}', 20) AS w"))[0]["w"] == "0"
        assert (await r1.rows("SELECT id FROM sbtest.x"))[0]["id"] == "9"
        assert [c.problem for c in await check_nodes(cluster, [p, r1])] == ["", ""]
    finally:
        with contextlib.suppress(Exception):
            _, nodes = await cluster_nodes(connect, inv, cluster, MARIADB_BUILD, None)
            for n in nodes:
                if n.server is not None:
                    await asyncio.wait_for(n.server.stop(), 60)
        for t in transports.values():
            await t.close()
        for d in (local_dir, far_dir):
            shutil.rmtree(d, ignore_errors=True)
