"""Is a cluster fit to run on? Every node answers, every replica replicates from the primary,
and none lags at the start past the cluster's ``lag_limit_s``. Each node's state is one line;
the verdict is a :class:`ClusterError` naming the first node that is not fit and why.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchdeck.engine.cluster import galera_setup, mariadb_setup, postgres_setup
from benchdeck.engine.cluster.cluster_nodes import Node
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.spec import ClusterSpec


@dataclass(frozen=True, slots=True)
class NodeCheck:
    """One node's state: ``problem`` empty when it is fit; ``lag_s`` for a replica, if known."""

    node: Node
    problem: str = ""
    lag_s: float | None = None
    behind_bytes: int | None = None
    note: str = ""
    """What a fit replica's line says instead of its lag (a Galera member has none)."""

    @property
    def line(self) -> str:
        """``node r1 (local:3407): replicating, 0 s behind`` or ``... : <the problem>``."""
        if self.problem:
            return f"{self.node.label}: {self.problem}"
        if self.node.spec.role == "primary":
            return f"{self.node.label}: primary, answering"
        if self.note:
            return f"{self.node.label}: {self.note}"
        lag = "lag unknown" if self.lag_s is None else f"{self.lag_s:g} s behind"
        nbytes = f", {self.behind_bytes} bytes of WAL" if self.behind_bytes is not None else ""
        return f"{self.node.label}: replicating, {lag}{nbytes}"


async def check_nodes(cluster: ClusterSpec, nodes: list[Node]) -> list[NodeCheck]:
    """Every node's state, the primary's first (a node that does not answer is a problem, not
    an exception)."""
    primary = next(n for n in nodes if n.spec.role == "primary")
    try:
        await primary.rows("SELECT 1 AS one")
    except ClusterError as exc:
        return [NodeCheck(primary, _problem(primary, exc))] + [
            NodeCheck(r, "not checked: the primary does not answer") for r in nodes if r is not primary
        ]
    try:
        out = [NodeCheck(primary, await _primary_problem(cluster, primary, len(nodes)))]
    except ClusterError as exc:
        out = [NodeCheck(primary, _problem(primary, exc))]
    for r in (n for n in nodes if n is not primary):
        try:
            out.append(await _check_replica(cluster, primary, r, len(nodes)))
        except ClusterError as exc:
            out.append(NodeCheck(r, _problem(r, exc)))
    return out


async def _primary_problem(cluster: ClusterSpec, primary: Node, size: int) -> str:
    """A semi-synchronous primary that fell back to asynchronous commits is not fit, nor a
    Galera primary out of a synced cluster of every node."""
    if cluster.kind == "galera":
        return await galera_setup.member_problem(primary, size)
    if cluster.kind != "semisync":
        return ""
    rows = await primary.rows("SHOW STATUS LIKE 'Rpl_semi_sync_master_status'")
    if rows and rows[0]["Value"] == "ON":
        return ""
    return (
        "semi-synchronous replication is off (Rpl_semi_sync_master_status OFF: run `benchdeck cluster setup`)"
    )


def _problem(node: Node, exc: ClusterError) -> str:
    """The error without the node's label (the line puts it in front)."""
    text = str(exc)
    return text.removeprefix(f"{node.label}: ") or "no answer"


async def _check_replica(cluster: ClusterSpec, primary: Node, replica: Node, size: int) -> NodeCheck:
    if cluster.kind == "streaming":
        st = await postgres_setup.standby_state(primary, replica)
        check = NodeCheck(replica, st.reason, st.lag_s, st.behind_bytes)
    elif cluster.kind in ("async", "semisync"):
        rs = await mariadb_setup.replica_state(replica)
        check = NodeCheck(replica, rs.reason or _elsewhere(rs.source_port, primary), rs.lag_s)
    elif cluster.kind == "galera":
        check = NodeCheck(
            replica, await galera_setup.member_problem(replica, size), note="a synced Galera member"
        )
    else:
        return NodeCheck(replica, f"benchdeck cannot check {cluster.kind} clusters yet")
    if not check.problem and check.lag_s is not None and check.lag_s > cluster.lag_limit_s:
        return NodeCheck(
            replica, f"{check.lag_s:g} s behind at the start (lag_limit_s = {cluster.lag_limit_s:g})"
        )
    return check


def _elsewhere(port: str, primary: Node) -> str:
    """A replica of another server than the cluster's primary (told by the port it reads)."""
    if port and port != str(primary.port):
        return f"replicates from port {port}, not from {primary.name} (port {primary.port})"
    return ""


def verdict(cluster: ClusterSpec, checks: list[NodeCheck]) -> None:
    """ClusterError (one line) naming the first node that is not fit, and how many more."""
    bad = [c for c in checks if c.problem]
    if bad:
        more = f" (and {len(bad) - 1} more node{'s' if len(bad) > 2 else ''})" if len(bad) > 1 else ""
        raise ClusterError(f"cluster {cluster.name}: {bad[0].line}{more}")
