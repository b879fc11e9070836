"""Managed clusters on loopback for the setup tests: ``async with loop_cluster(kind, build)``
gives an inventory of one local host whose workdir is a fresh short temp dir (sockets live in
it), nodes on free ports; every server the test's setup started is stopped and its files
removed on the way out."""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from benchdeck.engine.cluster.cluster_nodes import Node, resolve_nodes
from benchdeck.engine.cluster.prepare import prepare_cluster
from benchdeck.engine.cluster.setup import cluster_nodes, setup_cluster
from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.hosts.inventory_file import parse_inventory
from benchdeck.engine.transport import LocalTransport, Transport
from tests.fixtures.servers import free_port, kill_and_wait, pid_alive

MARIADB_BUILD = "ma1011_rel"
POSTGRES_BUILD = "pg15_rel"


@dataclass
class LoopCluster:
    """An inventory with one cluster ``loop`` of managed nodes on this machine."""

    workdir: Path
    ports: dict[str, int]
    kind: str
    build: str

    def inventory(self, *replicas: str) -> Inventory:
        """The inventory with the primary ``p`` and ``replicas`` (default: every port but p's)."""
        names = replicas or tuple(n for n in self.ports if n != "p")
        text = f'[hosts.local]\ntransport = "local"\nworkdir = "{self.workdir}"\n'
        text += f'[[hosts.local.builds]]\nname = "{self.build}"\nmanaged = true\n'
        text += f'[clusters.loop]\nkind = "{self.kind}"\n'
        for name in ("p", *names):
            role = "primary" if name == "p" else "replica"
            text += f'[[clusters.loop.nodes]]\nname = "{name}"\nhost = "local"\nrole = "{role}"\n'
            text += f"port = {self.ports[name]}\n"
        return parse_inventory(text, self.workdir / "benchdeck.toml")

    async def setup(self, inventory: Inventory | None = None) -> list[str]:
        """``setup_cluster`` of ``loop`` (in ``inventory``, default: every node): its lines."""
        inv = inventory or self.inventory()
        return await lines_of(setup_cluster(connect, inv, inv.clusters["loop"], self.build, None))

    async def prepare(self) -> list[str]:
        """``prepare_cluster`` of ``loop`` with every node: its lines."""
        inv = self.inventory()
        return await lines_of(prepare_cluster(connect, inv, inv.clusters["loop"], self.build, None))

    async def nodes(self, inventory: Inventory | None = None) -> list[Node]:
        """The cluster's nodes as setup resolves them (with their replication options)."""
        inv = inventory or self.inventory()
        _, nodes = await cluster_nodes(connect, inv, inv.clusters["loop"], self.build, None)
        return nodes


async def connect(host: str) -> Transport:
    return LocalTransport()


@contextlib.asynccontextmanager
async def loop_cluster(kind: str, build: str, replicas: int = 2) -> AsyncIterator[LoopCluster]:
    """A :class:`LoopCluster` (``p``, ``r1``..); every node's server stopped on the way out."""
    workdir = Path(tempfile.mkdtemp(prefix="bd-cl-"))
    workdir.chmod(0o755)  # postgres traverses it
    names = ["p", *(f"r{i}" for i in range(1, replicas + 1))]
    if kind == "galera":  # a node uses its port and the 3 above it
        base = free_block(4 * len(names))
        ports = {n: base + 4 * i for i, n in enumerate(names)}
    else:
        ports = {n: free_port() for n in names}
    c = LoopCluster(workdir, ports, kind, build)
    try:
        yield c
    finally:
        await _stop_all(c)
        shutil.rmtree(workdir, ignore_errors=True)


async def _stop_all(c: LoopCluster) -> None:
    inv = c.inventory()
    for node in await resolve_nodes(connect, inv, inv.clusters["loop"], c.build, None):
        if node.server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(node.server.stop(), 60)
            for pid in _pids(Path(node.server.spec.parent), Path(node.server.spec.datadir)):
                if pid_alive(pid):
                    kill_and_wait(pid, timeout=2)


def free_block(size: int) -> int:
    """The first of ``size`` consecutive free ports on 127.0.0.1 (below the ephemeral range)."""
    for _ in range(200):
        base = random.randrange(20000, 32000 - size)
        with contextlib.ExitStack() as held:
            try:
                for port in range(base, base + size):
                    s = held.enter_context(socket.socket())
                    s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return base
    raise RuntimeError(f"no {size} consecutive free ports")


def _pids(parent: Path, datadir: Path) -> list[int]:
    files = [parent / "benchdeck-run" / n for n in ("server.pid", "mysqld.pid")] + [
        datadir / "postmaster.pid"
    ]
    pids = []
    for f in files:
        with contextlib.suppress(OSError, ValueError, IndexError):
            pids.append(int(f.read_text().split()[0]))
    return [p for p in pids if p > 1]


async def lines_of(gen: AsyncIterator[str]) -> list[str]:
    return [line async for line in gen]
