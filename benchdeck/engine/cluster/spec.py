"""A cluster from the inventory: its nodes (one primary, replicas) and how they replicate.

In ``benchdeck.toml``::

    [clusters.loop3]
    kind = "async"          # async | semisync | galera | group | streaming
    lag_limit_s = 10        # a run whose replicas fell further behind is flagged
    [[clusters.loop3.nodes]]
    name = "p"
    host = "local"
    role = "primary"
    [[clusters.loop3.nodes]]
    name = "r1"
    host = "local"
    port = 3407             # several nodes on one host: each its own port (and datadir)

A run names the cluster (``--cluster loop3``) and a build; each node runs that build as its
host's inventory describes it (managed: benchdeck starts it, with the node's port and a datadir
of its own; external: the running server the build points at, the node's port winning).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ClusterKind = Literal["async", "semisync", "galera", "group", "streaming"]
NodeRole = Literal["primary", "replica"]

KINDS_BY_DBMS: dict[str, tuple[ClusterKind, ...]] = {
    "mariadb": ("async", "semisync", "galera"),
    "mysql": ("async", "semisync", "group"),
    "postgres": ("streaming",),
}
DEFAULT_LAG_LIMIT_S = 10.0


@dataclass(frozen=True, slots=True)
class ClusterNode:
    """One server of a cluster: ``name`` is unique in the cluster and names its stored samples."""

    name: str
    host: str
    role: NodeRole = "replica"
    port: int | None = None
    """Overrides the build's port on this node (needed when nodes share a host)."""


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """A named cluster: exactly one primary, one or more replicas, one replication kind."""

    name: str
    kind: ClusterKind
    nodes: tuple[ClusterNode, ...]
    lag_limit_s: float = DEFAULT_LAG_LIMIT_S

    @property
    def primary(self) -> ClusterNode:
        return next(n for n in self.nodes if n.role == "primary")

    @property
    def replicas(self) -> tuple[ClusterNode, ...]:
        return tuple(n for n in self.nodes if n.role == "replica")

    def node(self, name: str) -> ClusterNode:
        for n in self.nodes:
            if n.name == name:
                return n
        known = ", ".join(n.name for n in self.nodes)
        raise KeyError(f"cluster {self.name} has no node {name!r} (nodes: {known})")
