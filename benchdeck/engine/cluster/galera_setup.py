"""MariaDB Galera clusters of managed servers (``kind = "galera"``, the galera-4 provider).

Every node is a full member; the cluster's primary is the one the benchmark's clients drive.
A node uses four ports: its SQL ``port``, then ``port + 1`` (group communication), ``port + 2``
(incremental state transfer) and ``port + 3`` (full state transfer, rsync), so nodes on one
host need ports at least 4 apart. The primary bootstraps the cluster when no member runs
(``wsrep_new_cluster``, once); the others join it and get their copy by state transfer.
"""

from __future__ import annotations

import asyncio
import itertools
import posixpath
from collections.abc import AsyncIterator
from dataclasses import replace

from benchdeck.engine.cluster.cluster_nodes import Node, Options
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.node_servers import bring_up, managed
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.servers import make_server

PROVIDER = "/usr/lib/galera/libgalera_smm.so"
OS_USER_UNDER_ROOT = "mysql"
"""Who runs a node's server under a root login: the rsync daemon of a state transfer, started
by the server, drops root for ``nobody``, who may not write the datadir; the packages' ``mysql``
user may (the workdir must then be reachable by it: not under /root)."""
PORTS_PER_NODE = 4
SYNC_TIMEOUT_S = 120.0
# $1 grastate.dat: a cluster that went down uncleanly is bootstrapped from the primary anyway.
SAFE_TO_BOOTSTRAP = '[ ! -f "$1" ] || sed -i "s/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/" "$1"'
STATUS = (
    "SHOW STATUS WHERE Variable_name IN"
    " ('wsrep_ready', 'wsrep_cluster_status', 'wsrep_cluster_size', 'wsrep_local_state_comment')"
)


def node_address(cluster: ClusterSpec, index: int) -> str:
    """Where the other members reach node ``index``: loopback (every node on one host)."""
    hosts = sorted({n.host for n in cluster.nodes})
    if len(hosts) > 1:
        raise ClusterError(
            f"cluster {cluster.name}: benchdeck sets up Galera on one host only (nodes on"
            f" {', '.join(hosts)}); set a cluster across hosts up yourself and `benchdeck cluster check` it"
        )
    return "127.0.0.1"


def options(cluster: ClusterSpec, index: int) -> Options:
    """The ``[mysqld]`` options of a Galera member (its ports derived from its SQL port)."""
    node = cluster.nodes[index]
    if node.port is None:
        raise ClusterError(f"cluster {cluster.name}: node {node.name}: a Galera node needs a port of its own")
    members = ",".join(
        f"{node_address(cluster, i)}:{n.port + 1}" for i, n in enumerate(cluster.nodes) if n.port
    )
    addr, port = node_address(cluster, index), node.port
    if port + PORTS_PER_NODE - 1 > 65535:
        raise ClusterError(f"cluster {cluster.name}: node {node.name}: cannot use {addr}:{port}..{port + 3}")
    provider = f"gmcast.listen_addr=tcp://{addr}:{port + 1};ist.recv_addr={addr}:{port + 2}"
    return (
        ("wsrep_on", "ON"),
        ("wsrep_provider", PROVIDER),
        ("wsrep_cluster_name", cluster.name),
        ("wsrep_cluster_address", f"gcomm://{members}"),
        ("wsrep_node_name", node.name),
        ("wsrep_node_address", addr),
        ("wsrep_provider_options", provider),
        ("wsrep_sst_method", "rsync"),
        ("wsrep_sst_receive_address", f"{addr}:{port + 3}"),
        ("binlog_format", "ROW"),
        ("innodb_autoinc_lock_mode", "2"),
        ("default_storage_engine", "InnoDB"),
    )


async def replicate(cluster: ClusterSpec, nodes: list[Node]) -> AsyncIterator[str]:
    """Every member up and synced (the primary bootstraps when none runs), yielding progress."""
    check_galera(cluster)
    primary = next(n for n in nodes if n.spec.role == "primary")
    others = [n for n in nodes if n is not primary]
    running = [n for n in nodes if await managed(n).is_running()]
    if not running:
        async for line in _bootstrap(primary):
            yield line
    async for line in bring_up(primary):
        yield line
    for node in others:
        async for line in bring_up(node, setup_db=False):
            yield line
    for node in nodes:
        await wait_synced(node, len(nodes))
    yield f"{primary.label}: a Galera cluster of {len(nodes)} synced nodes"


def check_galera(cluster: ClusterSpec) -> None:
    """ClusterError unless benchdeck can set ``cluster`` up: one host, ports 4 apart."""
    _check_ports(cluster)
    for i in range(len(cluster.nodes)):
        options(cluster, i)


def _check_ports(cluster: ClusterSpec) -> None:
    by_host: dict[str, list[tuple[int, str]]] = {}
    for n in cluster.nodes:
        by_host.setdefault(n.host, []).append((n.port or 0, n.name))
    for host, ports in by_host.items():
        ports.sort()
        for (a, na), (b, nb) in itertools.pairwise(ports):
            if b - a < PORTS_PER_NODE:
                raise ClusterError(
                    f"cluster {cluster.name}: nodes {na} and {nb} on {host}: a Galera node uses its port"
                    f" and the 3 above it, so ports on one host must be at least {PORTS_PER_NODE} apart"
                )


async def _bootstrap(primary: Node) -> AsyncIterator[str]:
    """Start the primary as a new cluster of one (others then join it)."""
    server = managed(primary)
    spec = replace(server.spec, extra=(*server.spec.extra, ("wsrep_new_cluster", "")))
    starter = replace(primary, server=make_server(primary.transport, spec))
    grastate = posixpath.join(server.spec.datadir, "grastate.dat")
    await primary.transport.run(["sh", "-c", SAFE_TO_BOOTSTRAP, "-", grastate])
    yield f"{primary.label}: bootstrapping the Galera cluster"
    async for line in bring_up(starter):
        yield line


async def wait_synced(node: Node, size: int, timeout: float = SYNC_TIMEOUT_S) -> None:  # noqa: ASYNC109
    """Poll until ``node`` is Synced in a Primary component of ``size`` members."""
    loop = asyncio.get_running_loop()
    deadline, delay = loop.time() + timeout, 0.1
    while (why := await member_problem(node, size)) and loop.time() < deadline:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)
    if why:
        raise ClusterError(f"{node.label}: {why}")


async def member_problem(node: Node, size: int) -> str:
    """Why ``node`` is not a synced member of a cluster of ``size`` ("" when it is)."""
    st = {r["Variable_name"]: r["Value"] for r in await node.rows(STATUS)}
    if st.get("wsrep_ready") != "ON":
        return f"not a ready Galera member (wsrep_ready {st.get('wsrep_ready', 'unset')})"
    if st.get("wsrep_cluster_status") != "Primary":
        return f"not in the primary component (wsrep_cluster_status {st.get('wsrep_cluster_status')})"
    if st.get("wsrep_local_state_comment") != "Synced":
        return f"not synced ({st.get('wsrep_local_state_comment')})"
    if st.get("wsrep_cluster_size") != str(size):
        return f"in a cluster of {st.get('wsrep_cluster_size')} nodes, not {size}"
    return ""
