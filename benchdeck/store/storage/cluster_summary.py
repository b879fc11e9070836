"""A cluster run's summary, computed from its stored rows when the run ends (and again, the same,
if it is asked again: each figure is a query over what is stored, never a running count).

Per replica: the max and the p95 (interpolated) of its lag over the measured phase (``t >= 0``).
Per run: the worst replica's max and p95, and ``over_limit`` when a replica fell behind past the
cluster's ``lag_limit_s`` (NULL when no lag was measured: nothing to flag).
Per node: its vmstat/iostat averages over the measured window divided by the PRIMARY's QPS (what
each committed query costs that node), and the cluster's sum, each host counted once (nodes that
share a host share its vmstat and iostat). A node's iostat rows are the run's device when the node
has rows of it, else all its rows (as the run's own per-op figures without a device).
"""

from __future__ import annotations

import math
from collections import defaultdict

import duckdb

NODE_METRICS = ("cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o")

_LAG_SQL = """
UPDATE cluster_nodes AS n SET lag_max_s = l.mx, lag_p95_s = l.p95, lag_samples = l.cnt
FROM (SELECT node, max(lag_s) AS mx, quantile_cont(lag_s, 0.95) AS p95, count(lag_s) AS cnt
      FROM replica_lag WHERE run_id = $run AND t >= 0 GROUP BY node) AS l
WHERE n.run_id = $run AND n.node = l.node
"""

_RUN_SQL = """
UPDATE run_clusters AS c SET lag_max_s = n.mx, lag_p95_s = n.p95,
       over_limit = CASE WHEN n.mx IS NULL THEN NULL ELSE n.mx > c.lag_limit_s END,
       faults = (SELECT count(*) FROM node_faults WHERE run_id = $run AND kind <> 'back')
FROM (SELECT max(lag_max_s) AS mx, max(lag_p95_s) AS p95 FROM cluster_nodes WHERE run_id = $run) AS n
WHERE c.run_id = $run
"""

# per node: mean CPU (us+sy) and cs of its vmstat samples in the window; the primary without
# samples of its own as a node: the run's own (they are the same host's)
_VM_SQL = """
WITH own AS (SELECT node, seq, us, sy, cs FROM node_vmstat_samples WHERE run_id = $run),
primary_rows AS (
    SELECT n.node, v.seq, v.us, v.sy, v.cs FROM vmstat_samples v, cluster_nodes n
    WHERE v.run_id = $run AND n.run_id = $run AND n.role = 'primary'
      AND n.node NOT IN (SELECT node FROM own))
SELECT node, avg(us + sy), avg(cs) FROM (SELECT * FROM own UNION ALL SELECT * FROM primary_rows)
WHERE $window IS NULL OR seq < $window GROUP BY node
"""

_IO_SQL = """
WITH own AS (SELECT node, seq, device, r_s, rkb_s, wkb_s FROM node_iostat_samples WHERE run_id = $run),
primary_rows AS (
    SELECT n.node, i.seq, i.device, i.r_s, i.rkb_s, i.wkb_s FROM iostat_samples i, cluster_nodes n
    WHERE i.run_id = $run AND n.run_id = $run AND n.role = 'primary'
      AND n.node NOT IN (SELECT node FROM own)),
rows AS (SELECT * FROM own UNION ALL SELECT * FROM primary_rows),
dev AS (SELECT device FROM runs WHERE run_id = $run),
has_dev AS (SELECT DISTINCT node FROM rows WHERE device = (SELECT device FROM dev))
SELECT node, avg(r_s), avg(rkb_s), avg(wkb_s) FROM rows
WHERE ($window IS NULL OR seq < $window)
  AND (node NOT IN (SELECT node FROM has_dev) OR device = (SELECT device FROM dev))
GROUP BY node
"""


def summarize_cluster(
    cur: duckdb.DuckDBPyConnection, run_id: int, qps: float | None, window: int | None = None
) -> None:
    """Fill the run's cluster summary (a run without a cluster: nothing to do). ``qps``: the
    primary's (None: no per-op figures); ``window``: the measured seconds (None: every sample)."""
    if cur.execute("SELECT 1 FROM run_clusters WHERE run_id = ?", [run_id]).fetchone() is None:
        return
    params = {"run": run_id}
    cur.execute(_LAG_SQL, params)
    cur.execute(_RUN_SQL, params)
    if qps is not None:
        _per_op(cur, run_id, qps, window)


def _per_op(cur: duckdb.DuckDBPyConnection, run_id: int, qps: float, window: int | None) -> None:
    params = {"run": run_id, "window": window}
    means: dict[str, dict[str, float | None]] = defaultdict(dict)
    for node, cpu, cs in cur.execute(_VM_SQL, params).fetchall():
        means[node].update(cpu_o=cpu, cs_o=cs)
    for node, r, rkb, wkb in cur.execute(_IO_SQL, params).fetchall():
        means[node].update(r_o=r, rkb_o=rkb, wkb_o=wkb)
    hosts = dict(cur.execute("SELECT node, host FROM cluster_nodes WHERE run_id = ?", [run_id]).fetchall())
    per_host: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for node, vals in means.items():
        figures = [_div(vals.get(m), qps) for m in NODE_METRICS]
        cur.execute(
            "UPDATE cluster_nodes SET cpu_o = ?, cs_o = ?, r_o = ?, rkb_o = ?, wkb_o = ? "
            "WHERE run_id = ? AND node = ?",
            [*figures, run_id, node],
        )
        for m, v in zip(NODE_METRICS, figures, strict=True):
            if v is not None and node in hosts:
                per_host[hosts[node]][m].append(v)
    totals = [_host_sum(per_host, m) for m in NODE_METRICS]
    cur.execute(
        "UPDATE run_clusters SET cpu_o = ?, cs_o = ?, r_o = ?, rkb_o = ?, wkb_o = ? WHERE run_id = ?",
        [*totals, run_id],
    )


def _div(num: float | None, den: float) -> float | None:
    """As engine/metrics.py divides: None stays None, x/0 is inf (0/0 is 0)."""
    if num is None:
        return None
    if den == 0:
        return 0.0 if num == 0 else math.inf
    return float(num) / den


def _host_sum(per_host: dict[str, dict[str, list[float]]], metric: str) -> float | None:
    """The sum over hosts of each host's figure (the mean of its nodes': one host's samples)."""
    vals = [math.fsum(v) / len(v) for h in per_host.values() if (v := h.get(metric))]
    return math.fsum(vals) if vals else None
