"""A run on a cluster, before the runner starts: the cluster of the request, its nodes made fit
to run on, and what to sample of each (:mod:`engine.cluster.sampling`).

Bringing the nodes up and checking them is :mod:`engine.cluster.prepare`'s. The session
(:mod:`engine.running.session`) calls these with its own ways to a host: ``connect``
(a host's transport) and ``path_on`` (a path on a host, ``~`` expanded).
"""

from __future__ import annotations

import posixpath
from collections.abc import Awaitable, Callable

from benchdeck.engine.cluster.cluster_nodes import node_server_spec
from benchdeck.engine.cluster.nodes import node_build
from benchdeck.engine.cluster.sampling import ClusterSampling, plan_sampling
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.hosts.inventory import BuildConfig, Inventory
from benchdeck.engine.planning.build_conn import sql_client
from benchdeck.engine.planning.plan import RunPlan, RunRequest
from benchdeck.engine.servers import make_server
from benchdeck.engine.transport import Transport

Connect = Callable[[str], Awaitable[Transport]]
PathOn = Callable[[str, str], Awaitable[str]]  # (host, path) -> the path on that host


def cluster_of(inventory: Inventory, req: RunRequest) -> ClusterSpec:
    """The request's cluster; ``ValueError`` (one line) if unknown or not driven from its primary."""
    assert req.cluster is not None
    cluster = inventory.clusters.get(req.cluster)
    if cluster is None:
        known = ", ".join(sorted(inventory.clusters)) or "none in the inventory"
        raise ValueError(f"unknown cluster {req.cluster} (clusters: {known})")
    if cluster.primary.host != req.host:
        raise ValueError(
            f"cluster {cluster.name}'s primary is on host {cluster.primary.host}, not {req.host}"
        )
    return cluster


def node_config(
    inventory: Inventory, cluster: ClusterSpec, node: ClusterNode, req: RunRequest
) -> BuildConfig:
    """The request's build as ``node``'s host describes it, on the node's port."""
    build = inventory.host(node.host).builds.get(req.build)
    if build is None:
        raise ValueError(
            f"cluster {cluster.name}: host {node.host} (node {node.name}) has no build {req.build!r}"
        )
    return node_build(build.with_config(req.config), cluster, node)


async def node_client(
    connect: Connect,
    inventory: Inventory,
    req: RunRequest,
    cluster: ClusterSpec,
    node: ClusterNode,
    path_on: PathOn,
) -> list[str]:
    """The SQL client argv of ``node``'s server, as run on the node's host."""
    build = node_config(inventory, cluster, node, req)
    if build.managed:
        workdir = await path_on(node.host, inventory.host(node.host).workdir)
        return make_server(
            await connect(node.host), node_server_spec(build, cluster, node, workdir)
        ).client_argv()
    argv = sql_client(build)
    if argv is None:
        raise ValueError(f"cluster {cluster.name}: build {build.name} is not an SQL server")
    return list(argv)


async def sampling_for(
    connect: Connect,
    inventory: Inventory,
    req: RunRequest,
    cluster: ClusterSpec,
    plan: RunPlan,
    path_on: PathOn,
    runs_root: Callable[[str], Awaitable[str]],
) -> ClusterSampling:
    """What to sample of each node for ``plan``: the run's directory on the primary's host, one
    of the same name under ``runs_root(host)/runs`` on the others."""
    dbms = node_config(inventory, cluster, cluster.primary, req).build.dbms
    clients = {n.name: await node_client(connect, inventory, req, cluster, n, path_on) for n in cluster.nodes}
    run_dirs = {plan.host: plan.remote_dir}
    for n in cluster.nodes:
        if n.host not in run_dirs:
            run_dirs[n.host] = posixpath.join(
                await runs_root(n.host), "runs", posixpath.basename(plan.remote_dir)
            )
    return plan_sampling(cluster, dbms, clients, run_dirs, plan.duration_s, plan.monitors)
