"""A run's cluster (issue 41) in the store: its nodes, and what was sampled of them (replica lag,
node vmstat/iostat, faults), appended in one insert per table for all the runs of a flush.

Each row is stored once: :class:`ClusterMarks` are what the store already holds of a run (read
once per run by the sink), and rows at or below them are dropped, so a reattached run that reads
its nodes' files again from the start stores nothing twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from benchdeck.engine.cluster.records import LagSample, NodeFault, NodeIostat, NodeVmstat
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.records import SkippedLine
from benchdeck.store.storage import bulk
from benchdeck.store.storage.dialect import insert_or_replace
from benchdeck.store.storage.limits import INT64_MAX, int_problem, record_problem
from benchdeck.store.storage.samples import IO_COLUMNS, VM_COLUMNS


@dataclass
class ClusterRows:
    """A run's cluster rows waiting for a flush."""

    lag: list[LagSample] = field(default_factory=list)
    vm: list[NodeVmstat] = field(default_factory=list)
    io: list[NodeIostat] = field(default_factory=list)
    faults: list[NodeFault] = field(default_factory=list)

    def size(self) -> int:
        return len(self.lag) + len(self.vm) + len(self.io) + len(self.faults)


@dataclass
class ClusterMarks:
    """What the store holds of a run's cluster rows, per node: the last lag ``t``, the last
    vmstat ``seq``, the last iostat ``seq`` and its devices, and every fault."""

    lag_t: dict[str, float] = field(default_factory=dict)
    vm_seq: dict[str, int] = field(default_factory=dict)
    io_seq: dict[str, tuple[int, set[str]]] = field(default_factory=dict)
    faults: set[tuple[str, float, str]] = field(default_factory=set)

    def keep(self, rows: ClusterRows) -> ClusterRows:
        """The rows not yet stored; the marks move past them (rows come in order per node)."""
        out = ClusterRows()
        for lag in rows.lag:
            if lag.t > self.lag_t.get(lag.node, float("-inf")):
                self.lag_t[lag.node] = lag.t
                out.lag.append(lag)
        for v in rows.vm:
            if v.sample.seq > self.vm_seq.get(v.node, -1):
                self.vm_seq[v.node] = v.sample.seq
                out.vm.append(v)
        for i in rows.io:
            seq, devices = self.io_seq.get(i.node, (-1, set()))
            if i.sample.seq > seq:
                self.io_seq[i.node] = (i.sample.seq, {i.sample.device})
                out.io.append(i)
            elif i.sample.seq == seq and i.sample.device not in devices:
                devices.add(i.sample.device)
                out.io.append(i)
        for f in rows.faults:
            if (key := (f.node, f.t, f.kind)) not in self.faults:
                self.faults.add(key)
                out.faults.append(f)
        return out


def fit_cluster(rows: ClusterRows) -> tuple[ClusterRows, dict[str, list[SkippedLine]]]:
    """The rows whose values their columns can hold, and the others as skipped lines by source
    (``vmstat r1``, ``lag r1`` ...): a value past a column's range is a skipped row, never a
    failed flush (store/storage/limits.py)."""
    out = ClusterRows(faults=list(rows.faults))
    bad: dict[str, list[SkippedLine]] = {}
    for source, kept, items in (
        ("lag", out.lag, rows.lag),
        ("vmstat", out.vm, rows.vm),
        ("iostat", out.io, rows.io),
    ):
        for item in items:
            record = item.sample if isinstance(item, NodeVmstat | NodeIostat) else item
            if why := record_problem(record) or _lag_problem(item):
                bad.setdefault(f"{source} {item.node}", []).append(SkippedLine(0, str(record), why))
            else:
                kept.append(item)  # type: ignore[arg-type]  # (each list gets its own kind)
    return out, bad


def _lag_problem(item: object) -> str | None:
    if not isinstance(item, LagSample):
        return None
    return int_problem("behind_bytes", item.behind_bytes, INT64_MAX) or int_problem(
        "behind_trx", item.behind_trx, INT64_MAX
    )


def save_cluster(cur: duckdb.DuckDBPyConnection, run_id: int, cluster: ClusterSpec) -> None:
    """The run's cluster and its nodes (again: replaced, so a second ClusterPlanned adds none)."""
    insert_or_replace(
        cur,
        "INSERT OR REPLACE INTO run_clusters (run_id, cluster, kind, lag_limit_s) VALUES (?, ?, ?, ?)",
        [run_id, cluster.name, cluster.kind, cluster.lag_limit_s],
        "run_clusters",
        {"run_id": run_id},
    )
    if cur.execute("SELECT 1 FROM cluster_nodes WHERE run_id = ? LIMIT 1", [run_id]).fetchone():
        cur.execute("DELETE FROM cluster_nodes WHERE run_id = ?", [run_id])  # (a lake: only if any)
    nodes = cluster.nodes
    bulk.insert_columns(
        cur,
        "cluster_nodes",
        {
            "run_id": ("BIGINT", [run_id] * len(nodes)),
            "node": ("VARCHAR", [n.name for n in nodes]),
            "host": ("VARCHAR", [n.host for n in nodes]),
            "role": ("VARCHAR", [n.role for n in nodes]),
            "port": ("INTEGER", [n.port for n in nodes]),
        },
    )


def load_cluster(cur: duckdb.DuckDBPyConnection, run_id: int) -> ClusterSpec | None:
    """The cluster a run was planned on, as :func:`save_cluster` stored it (None: a server alone)."""
    head = cur.execute(
        "SELECT cluster, kind, lag_limit_s FROM run_clusters WHERE run_id = ?", [run_id]
    ).fetchone()
    if head is None:
        return None
    rows = cur.execute(
        "SELECT node, host, role, port FROM cluster_nodes WHERE run_id = ? ORDER BY role <> 'primary', node",
        [run_id],
    ).fetchall()
    nodes = tuple(ClusterNode(str(n), str(h), r, int(p) if p is not None else None) for n, h, r, p in rows)
    return ClusterSpec(str(head[0]), head[1], nodes, float(head[2]))


def cluster_marks(cur: duckdb.DuckDBPyConnection, run_id: int) -> ClusterMarks:
    """What the store holds of ``run_id``'s cluster rows (empty marks for a new run)."""
    marks = ClusterMarks()
    q = cur.execute
    marks.lag_t = {n: float(t) for n, t in q(_MAX_SQL.format("t", "replica_lag"), [run_id]).fetchall()}
    marks.vm_seq = {
        n: int(s) for n, s in q(_MAX_SQL.format("seq", "node_vmstat_samples"), [run_id]).fetchall()
    }
    for node, seq, device in q(_IO_MARK_SQL, [run_id]).fetchall():
        marks.io_seq.setdefault(node, (int(seq), set()))[1].add(device)
    marks.faults = {(n, float(t), k) for n, t, k in q(_FAULTS_SQL, [run_id]).fetchall()}
    return marks


_MAX_SQL = "SELECT node, max({0}) FROM {1} WHERE run_id = ? GROUP BY node"  # our constants only
_IO_MARK_SQL = (
    "SELECT node, seq, device FROM node_iostat_samples WHERE run_id = $1 AND (node, seq) IN "
    "(SELECT (node, max(seq)) FROM node_iostat_samples WHERE run_id = $1 GROUP BY node)"
)
_FAULTS_SQL = "SELECT node, t, kind FROM node_faults WHERE run_id = ?"


def append_cluster(cur: duckdb.DuckDBPyConnection, runs: Sequence[tuple[int, ClusterRows]]) -> int:
    """The cluster rows of several runs, one insert per table."""
    lag = [(rid, r) for rid, rows in runs for r in rows.lag]
    vm = [(rid, r.node, r.sample) for rid, rows in runs for r in rows.vm]
    io = [(rid, r.node, r.sample) for rid, rows in runs for r in rows.io]
    faults = [(rid, f) for rid, rows in runs for f in rows.faults]
    n = _insert(cur, "replica_lag", lag, _LAG)
    n += _insert_samples(cur, "node_vmstat_samples", vm, VM_COLUMNS)
    n += _insert_samples(cur, "node_iostat_samples", io, IO_COLUMNS)
    return n + _insert(cur, "node_faults", faults, _FAULT)


_LAG = {
    "node": "VARCHAR",
    "t": "DOUBLE",
    "lag_s": "DOUBLE",
    "behind_bytes": "BIGINT",
    "behind_trx": "BIGINT",
    "paused_s": "DOUBLE",
    "state": "VARCHAR",
}
_FAULT = {"node": "VARCHAR", "t": "DOUBLE", "kind": "VARCHAR", "reason": "VARCHAR"}


def _insert(
    cur: duckdb.DuckDBPyConnection, table: str, rows: list[tuple[int, Any]], attrs: dict[str, str]
) -> int:
    if not rows:
        return 0
    columns: dict[str, tuple[str, Sequence[Any]]] = {"run_id": ("BIGINT", [rid for rid, _ in rows])}
    for attr, sql_type in attrs.items():
        columns[attr] = (sql_type, [getattr(r, attr) for _, r in rows])
    return bulk.insert_columns(cur, table, columns)


def _insert_samples(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    rows: list[tuple[int, str, Any]],
    attrs: dict[str, tuple[str, str]],
) -> int:
    """vmstat or iostat samples of nodes: the run's own sample columns, without the time text."""
    if not rows:
        return 0
    columns: dict[str, tuple[str, Sequence[Any]]] = {
        "run_id": ("BIGINT", [r[0] for r in rows]),
        "node": ("VARCHAR", [r[1] for r in rows]),
    }
    for attr, (column, sql_type) in attrs.items():
        if column != "ts":
            columns[column] = (sql_type, [getattr(r[2], attr) for r in rows])
    return bulk.insert_columns(cur, table, columns)
