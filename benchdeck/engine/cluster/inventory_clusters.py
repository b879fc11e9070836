"""``[clusters.NAME]`` of the inventory file, checked into :class:`ClusterSpec` (the form is in
:mod:`.spec`'s docstring). Errors are the inventory's own ``FILE:LINE: KEY: message`` lines.

What the file alone can tell is checked here (one primary, replicas, unique node names, known
hosts, distinct ports on a shared host); whether a build can run the cluster (its DBMS replicates
this way, it is on every node's host) is :func:`check_cluster_build`'s, once a run names one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol, get_args

from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.nodes import node_build
from benchdeck.engine.cluster.spec import (
    DEFAULT_LAG_LIMIT_S,
    KINDS_BY_DBMS,
    ClusterKind,
    ClusterNode,
    ClusterSpec,
)
from benchdeck.engine.hosts.inventory import BuildConfig, Inventory
from benchdeck.engine.hosts.inventory_keys import KeyPath
from benchdeck.engine.planning.build_conn import DEFAULT_PORTS

CLUSTER_KEYS = {"kind", "lag_limit_s", "nodes"}
NODE_KEYS = {"name", "host", "role", "port"}
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\Z")
"""A cluster's or a node's name: part of a datadir name (``build@cluster.node``) and of SQL-free
labels, so no '.', '/', quotes or spaces."""
KINDS: tuple[str, ...] = get_args(ClusterKind)
MAX_LAG_LIMIT_S = 366 * 86400.0


class _Loader(Protocol):
    """What the inventory's loader offers for validating a table (errors carry file:line)."""

    def error(self, where: KeyPath, message: str) -> Exception: ...
    def table(self, v: Any, where: KeyPath, allowed: set[str]) -> dict[str, Any]: ...
    def opt(self, t: Mapping[str, Any], key: str, where: KeyPath, kind: type, default: Any = None) -> Any: ...


def parse_clusters(loader: _Loader, raw: Any, hosts: Mapping[str, object]) -> dict[str, ClusterSpec]:
    """The ``clusters`` table: name -> :class:`ClusterSpec` (``hosts``: the inventory's hosts)."""
    if not isinstance(raw, dict):
        raise loader.error(("clusters",), "expected a table of clusters ([clusters.NAME])")
    return {name: parse_cluster(loader, name, c, hosts) for name, c in raw.items()}


def parse_cluster(loader: _Loader, name: str, raw: Any, hosts: Mapping[str, object]) -> ClusterSpec:
    at: KeyPath = ("clusters", name)
    t = loader.table(raw, at, CLUSTER_KEYS)
    if not NAME.match(name):
        raise loader.error(at, "a cluster name is letters, digits, '_' and '-' (no '.')")
    if "kind" not in t:
        raise loader.error(at, f"missing key kind ({' | '.join(KINDS)})")
    kind = loader.opt(t, "kind", at, str)
    if kind not in KINDS:
        expected = ", ".join(KINDS)
        raise loader.error((*at, "kind"), f'unknown kind "{kind}" (expected one of {expected})')
    raw_nodes = t.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise loader.error(
            (*at, "nodes"), f"expected [[clusters.{name}.nodes]] tables (a primary and replicas)"
        )
    lag_limit = _lag_limit(loader, t, at)
    nodes = tuple(_node(loader, n, (*at, "nodes", i), hosts) for i, n in enumerate(raw_nodes))
    _check_nodes(loader, at, nodes)
    return ClusterSpec(name, kind, nodes, lag_limit)


def _lag_limit(loader: _Loader, t: Mapping[str, Any], at: KeyPath) -> float:
    v = t.get("lag_limit_s", DEFAULT_LAG_LIMIT_S)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise loader.error((*at, "lag_limit_s"), f"expected a number of seconds, got {v!r}")
    if not 0 < v <= MAX_LAG_LIMIT_S:
        raise loader.error((*at, "lag_limit_s"), f"out of range: {v} (more than 0, at most a year)")
    return float(v)


def _node(loader: _Loader, raw: Any, at: KeyPath, hosts: Mapping[str, object]) -> ClusterNode:
    t = loader.table(raw, at, NODE_KEYS)
    for key in ("name", "host"):
        if key not in t:
            raise loader.error(at, f"missing key {key}")
    name, host = loader.opt(t, "name", at, str), loader.opt(t, "host", at, str)
    if not NAME.match(name):
        raise loader.error((*at, "name"), "a node name is letters, digits, '_' and '-' (no '.')")
    if host not in hosts:
        known = ", ".join(sorted(hosts)) or "none"
        raise loader.error((*at, "host"), f"unknown host {host} (hosts: {known})")
    role = loader.opt(t, "role", at, str, "replica")
    if role not in ("primary", "replica"):
        raise loader.error((*at, "role"), f'expected "primary" or "replica", got "{role}"')
    return ClusterNode(name, host, role, loader.opt(t, "port", at, int))


def _check_nodes(loader: _Loader, at: KeyPath, nodes: tuple[ClusterNode, ...]) -> None:
    """One primary, at least one replica, unique names, one port per node on a shared host."""
    seen: dict[str, int] = {}
    ports: dict[tuple[str, int | None], str] = {}
    for i, n in enumerate(nodes):
        if n.name in seen:
            raise loader.error((*at, "nodes", i, "name"), f"duplicate node {n.name}")
        seen[n.name] = i
        other = ports.get((n.host, n.port))
        if other is not None:
            port = f"port {n.port}" if n.port else "the build's port (give each node its own port)"
            raise loader.error((*at, "nodes", i, "port"), f"node {other} on host {n.host} has {port} too")
        ports[(n.host, n.port)] = n.name
    primaries = [n.name for n in nodes if n.role == "primary"]
    if len(primaries) != 1:
        found = ", ".join(primaries) or "none"
        raise loader.error((*at, "nodes"), f'needs exactly one node with role = "primary" (found: {found})')
    if len(nodes) < 2:
        raise loader.error((*at, "nodes"), 'needs at least one node with role = "replica"')


def cluster_named(inventory: Inventory, name: str) -> ClusterSpec:
    """The inventory's cluster ``name``, or :class:`ClusterError` naming the known ones."""
    try:
        return inventory.clusters[name]
    except KeyError:
        known = ", ".join(sorted(inventory.clusters)) or f"none in {inventory.path}"
        raise ClusterError(f"unknown cluster {name} (clusters: {known})") from None


def check_cluster_build(inventory: Inventory, cluster: ClusterSpec, build: str) -> dict[str, BuildConfig]:
    """Per node, ``build`` as its host describes it (the node's port applied); ClusterError when
    a node's host lacks the build, its DBMS cannot replicate as ``cluster.kind`` says, or two
    nodes on one host end on the same port."""
    out: dict[str, BuildConfig] = {}
    used: dict[tuple[str, int | None], str] = {}
    for n in cluster.nodes:
        cfg = inventory.hosts[n.host].builds.get(build)
        if cfg is None:
            raise ClusterError(f"cluster {cluster.name}: node {n.name}: host {n.host} has no build {build}")
        kinds = KINDS_BY_DBMS.get(cfg.build.dbms, ())
        if cluster.kind not in kinds:
            can = ", ".join(kinds) or "none"
            raise ClusterError(
                f"cluster {cluster.name}: kind {cluster.kind} is not for {cfg.build.dbms} "
                f"(build {build}; {cfg.build.dbms} clusters: {can})"
            )
        nb = node_build(cfg, cluster, n)
        port = nb.port or DEFAULT_PORTS.get(cfg.build.dbms)
        if (n.host, port) in used:
            both = f"nodes {used[(n.host, port)]} and {n.name}"
            raise ClusterError(f"cluster {cluster.name}: {both} both use port {port} on {n.host}")
        used[(n.host, port)] = n.name
        out[n.name] = nb
    return out
