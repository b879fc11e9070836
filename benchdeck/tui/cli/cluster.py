"""``benchdeck cluster list | setup | check``: the inventory's clusters, setting a managed one up
(servers, replication user, first copies, channels), and checking one before runs (every node
answers, replicates, and does not lag past the cluster's limit).

A cluster that is not fit is one line on stderr naming the node and why, exit 1.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import click

from benchdeck.engine.cluster.check import check_nodes, verdict
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.inventory_clusters import cluster_named
from benchdeck.engine.cluster.setup import cluster_nodes, setup_cluster
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.running.session import Session
from benchdeck.engine.transport import TransportError

BUILD = click.option(
    "--build", required=True, help="The build every node runs (as its host's inventory describes it)."
)
CONFIG = click.option("--config", default=None, help="The build's server configuration (default: its own).")


@click.group("cluster")
def cluster_group() -> None:
    """Clusters of the inventory: a primary and its replicas ([clusters.NAME])."""


@cluster_group.command("list")
def list_cmd() -> None:
    """One line per cluster: name, kind, lag limit, and its nodes (host:port, role)."""
    inv = load_inventory(None)
    if not inv.clusters:
        click.echo(f"no clusters in {inv.path}")
    for c in inv.clusters.values():
        nodes = ", ".join(
            f"{n.name}={n.host}{f':{n.port}' if n.port else ''}{' (primary)' if n.role == 'primary' else ''}"
            for n in c.nodes
        )
        click.echo(f"{c.name}  {c.kind}  lag limit {c.lag_limit_s:g} s  {nodes}")


@cluster_group.command("setup")
@click.argument("name")
@BUILD
@CONFIG
def setup_cmd(name: str, build: str, config: str | None) -> None:
    """Set the managed cluster NAME up for BUILD (idempotent), then check it."""
    _drive(name, lambda s, inv, c: _setup_then_check(s, inv, c, build, config))


@cluster_group.command("check")
@click.argument("name")
@BUILD
@CONFIG
def check_cmd(name: str, build: str, config: str | None) -> None:
    """Check the cluster NAME running BUILD: nodes answer, replicate, and do not lag."""
    _drive(name, lambda s, inv, c: _check(s, inv, c, build, config))


Steps = Callable[[Session, Inventory, ClusterSpec], AsyncIterator[str]]


def _drive(name: str, steps: Steps) -> None:
    """Print each line ``steps`` yields; a ClusterError is one line and exit 1."""
    inv = load_inventory(None)
    try:
        cluster = cluster_named(inv, name)
    except ClusterError as exc:
        raise click.UsageError(str(exc)) from None

    async def go() -> None:
        session = Session(inv)
        try:
            async for line in steps(session, inv, cluster):
                click.echo(line)
        finally:
            await session.close()

    try:
        asyncio.run(go())
    except (ClusterError, TransportError) as exc:
        raise click.ClickException(str(exc)) from None


async def _setup_then_check(
    session: Session, inv: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> AsyncIterator[str]:
    async for line in setup_cluster(session.transport, inv, cluster, build, config):
        yield line
    async for line in _check(session, inv, cluster, build, config):
        yield line


async def _check(
    session: Session, inv: Inventory, cluster: ClusterSpec, build: str, config: str | None
) -> AsyncIterator[str]:
    _, nodes = await cluster_nodes(session.transport, inv, cluster, build, config)
    checks = await check_nodes(cluster, nodes)
    for c in checks:
        yield c.line
    verdict(cluster, checks)
    yield f"cluster {cluster.name}: fit to run on"
