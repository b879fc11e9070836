"""Before a run on a cluster: its managed nodes brought up and replicating if they are not yet,
then every node checked. What a run (engine.running.session) calls; progress lines are yielded
for the run's log, and a cluster not fit to run on is a :class:`ClusterError` of one line.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from benchdeck.engine.cluster.check import check_nodes, verdict
from benchdeck.engine.cluster.cluster_nodes import Connect, Node
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.setup import cluster_nodes
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.hosts.inventory import Inventory

__all__ = ["ClusterError", "cluster_primary", "prepare_cluster", "run_nodes"]


async def prepare_cluster(
    connect: Connect, inventory: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> AsyncIterator[str]:
    """Managed nodes up and replicating (idempotent), then each node's state as a line;
    ClusterError naming the first node that is unreachable, not replicating or lagging."""
    kind, nodes = await cluster_nodes(connect, inventory, cluster, build, config)
    if kind is not None:
        async for line in kind.replicate(cluster, nodes):
            yield line
    checks = await check_nodes(cluster, nodes)
    for c in checks:
        yield c.line
    verdict(cluster, checks)


async def run_nodes(
    connect: Connect, inventory: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> list[Node]:
    """The nodes a run drives and samples, each with ``.build`` (the node's port applied) and,
    when managed, ``.server``: the node's own server (its datadir and replication options), which
    a run must use rather than the build's usual one (another datadir, without those options)."""
    _, nodes = await cluster_nodes(connect, inventory, cluster, build, config)
    return nodes


async def cluster_primary(
    connect: Connect, inventory: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> Node:
    """The primary of :func:`run_nodes`."""
    nodes = await run_nodes(connect, inventory, cluster, build, config)
    return next(n for n in nodes if n.spec.role == "primary")
