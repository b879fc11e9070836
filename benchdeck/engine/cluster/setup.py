"""Setting a small cluster of MANAGED servers up: every node's server created and started with
its replication options, the replication user on the primary, each replica's first copy and
channel. Idempotent: a cluster already up is only checked and its stopped servers started.

The replication kinds live beside this module: :mod:`.mariadb_setup` (async, semisync),
:mod:`.postgres_setup` (streaming), :mod:`.galera_setup` (MariaDB Galera). Servers benchdeck
does not manage are never touched: a cluster of running servers is described in the inventory
and checked (:mod:`.check`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Protocol

from benchdeck.engine.cluster import galera_setup, mariadb_setup, postgres_setup
from benchdeck.engine.cluster.cluster_nodes import Connect, Node, Options, resolve_nodes
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.inventory_clusters import check_cluster_build
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.hosts.inventory import Inventory


class KindSetup(Protocol):
    """What a replication kind's module offers (see :mod:`.mariadb_setup`)."""

    options: Callable[[ClusterSpec, int], Options]

    def replicate(self, cluster: ClusterSpec, nodes: list[Node]) -> AsyncIterator[str]: ...


KIND_SETUP: dict[str, object] = {
    "async": mariadb_setup,
    "semisync": mariadb_setup,
    "streaming": postgres_setup,
    "galera": galera_setup,
}


def kind_setup(cluster: ClusterSpec, dbms: str) -> KindSetup:
    """The module that sets ``cluster.kind`` up for ``dbms``; ClusterError when there is none."""
    module = KIND_SETUP.get(cluster.kind)
    if module is None or dbms == "mysql":
        raise ClusterError(
            f"cluster {cluster.name}: benchdeck cannot set up {cluster.kind} replication of {dbms} yet"
        )
    return module  # type: ignore[return-value]


async def cluster_nodes(
    connect: Connect, inventory: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> tuple[KindSetup | None, list[Node]]:
    """The cluster's nodes for ``build`` (managed ones with their replication options), and the
    module that sets them up (None when no node is managed: nothing to set up)."""
    dbms = check_cluster_build(inventory, cluster, build)[cluster.primary.name].build.dbms
    managed = [n.name for n in cluster.nodes if inventory.hosts[n.host].builds[build].managed]
    if not managed:
        return None, await resolve_nodes(connect, inventory, cluster, build, config)
    if len(managed) != len(cluster.nodes):
        other = next(n for n in cluster.nodes if n.name not in managed)
        raise ClusterError(
            f"cluster {cluster.name}: node {other.name} is not managed (build {build} on {other.host})"
            f" but node {managed[0]} is: a cluster's nodes are all managed or all external"
        )
    kind = kind_setup(cluster, dbms)
    os_user = getattr(kind, "OS_USER_UNDER_ROOT", None)
    return kind, await resolve_nodes(connect, inventory, cluster, build, config, kind.options, os_user)


async def setup_cluster(
    connect: Connect, inventory: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> AsyncIterator[str]:
    """Bring the managed ``cluster`` up and replicating for ``build``, yielding progress lines."""
    kind, nodes = await cluster_nodes(connect, inventory, cluster, build, config)
    if kind is None:
        raise ClusterError(
            f"cluster {cluster.name}: its nodes are not managed (build {build}): benchdeck sets up"
            " managed servers only; check a running cluster with `benchdeck cluster check`"
        )
    async for line in kind.replicate(cluster, nodes):
        yield line
