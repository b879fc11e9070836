"""A run on a cluster, before the runner starts: the cluster of the request, its nodes made fit
to run on, and what to sample of each (:mod:`engine.cluster.sampling`).

Bringing the nodes up, checking them and resolving each one (its build, its server) is
:mod:`engine.cluster.prepare`'s; the session (:mod:`engine.running.session`) hands the nodes here.
"""

from __future__ import annotations

import posixpath
from collections.abc import Awaitable, Callable, Sequence

from benchdeck.engine.cluster.cluster_nodes import Node
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.inventory_clusters import cluster_named
from benchdeck.engine.cluster.sampling import ClusterSampling, plan_sampling
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.planning.build_conn import sql_client
from benchdeck.engine.planning.plan import RunPlan


def cluster_of(inventory: Inventory, name: str, host: str) -> ClusterSpec:
    """The cluster ``name`` run from ``host``; ClusterError (one line) if unknown or if ``host``
    is not its primary's."""
    cluster = cluster_named(inventory, name)
    if cluster.primary.host != host:
        raise ClusterError(f"cluster {cluster.name}'s primary is on host {cluster.primary.host}, not {host}")
    return cluster


def node_client(node: Node) -> list[str]:
    """The SQL client argv of ``node``'s server, as run on the node's host."""
    if node.server is not None:
        return node.server.client_argv()
    argv = sql_client(node.build)
    if argv is None:
        raise ClusterError(f"{node.label}: build {node.build.name} is not an SQL server")
    return list(argv)


async def sampling_for(
    cluster: ClusterSpec,
    nodes: Sequence[Node],
    plan: RunPlan,
    runs_root: Callable[[str], Awaitable[str]],
) -> ClusterSampling:
    """What to sample of each node for ``plan``: the run's directory on the primary's host, one
    of the same name under ``runs_root(host)/runs`` on the others."""
    dbms = next(n for n in nodes if n.spec.role == "primary").dbms
    clients = {n.name: node_client(n) for n in nodes}
    run_dirs = {plan.host: plan.remote_dir}
    for n in cluster.nodes:
        if n.host not in run_dirs:
            run_dirs[n.host] = posixpath.join(
                await runs_root(n.host), "runs", posixpath.basename(plan.remote_dir)
            )
    return plan_sampling(cluster, dbms, clients, run_dirs, plan.duration_s, plan.monitors)
