"""The cluster figures of a comparison's cells on a cluster (issue 41): lag and per-node per-op
metrics, read from the runs' stored cluster summary (store/storage/cluster_summary.py) and put
together over a cell's repeats as its QPS is (the median)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import duckdb

from benchdeck.store.analysis.compare_model import NODE_KEYS, Cell, ClusterFigures, NodeFigures
from benchdeck.store.analysis.compare_rows import median

_IDS = "SELECT CAST(unnest(string_split($ids, ',')) AS BIGINT)"
_RUNS_SQL = (
    "SELECT run_id, cluster, lag_limit_s, lag_max_s, lag_p95_s, over_limit, faults, "  # noqa: S608 (constants)
    f"cpu_o, cs_o, r_o, rkb_o, wkb_o FROM run_clusters WHERE run_id IN ({_IDS})"
)
_NODES_SQL = (
    "SELECT run_id, node, role, lag_max_s, lag_p95_s, cpu_o, cs_o, r_o, rkb_o, wkb_o "  # noqa: S608 (constants)
    f"FROM cluster_nodes WHERE run_id IN ({_IDS}) ORDER BY role, node"
)
ALL = "all"
"""The node name of the cluster's sum."""


def with_cluster_figures(
    cur: duckdb.DuckDBPyConnection, cells: dict[tuple[str, int | None, str], Cell], labels: Sequence[str]
) -> None:
    """Give the cells of ``labels`` (columns on a cluster) their :class:`ClusterFigures`."""
    keys = [k for k in cells if k[2] in labels]
    ids = sorted({i for k in keys for i in cells[k].run_ids})
    if not ids:
        return
    params = {"ids": ",".join(map(str, ids))}  # one string: a list parameter costs per element
    runs = {int(r[0]): r[1:] for r in cur.execute(_RUNS_SQL, params).fetchall()}
    nodes: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for r in cur.execute(_NODES_SQL, params).fetchall():
        nodes[int(r[0])].append(r[1:])
    for k in keys:
        cell = cells[k]
        if any(i in runs for i in cell.run_ids):
            cells[k] = replace(cell, cluster=_figures(cell.run_ids, runs, nodes))


def _figures(
    run_ids: Sequence[int], runs: Mapping[int, tuple[Any, ...]], nodes: Mapping[int, list[tuple[Any, ...]]]
) -> ClusterFigures:
    mine = [runs[i] for i in run_ids if i in runs]
    per_node: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for i in run_ids:
        for node, role, *figures in nodes.get(i, ()):
            per_node.setdefault((node, role), []).append(tuple(figures))
    rows = [_node(node, role, figs) for (node, role), figs in per_node.items()]
    rows.sort(key=lambda n: (n.role != "primary", n.node))
    total = _node(ALL, ALL, [(r[2], r[3], *r[6:11]) for r in mine])
    return ClusterFigures(
        cluster=str(mine[0][0]),
        lag_limit_s=float(mine[0][1]),
        lag_max_s=_median([r[2] for r in mine]),
        lag_p95_s=_median([r[3] for r in mine]),
        over_limit=sum(1 for r in mine if r[4]),
        runs=len(mine),
        faults=sum(int(r[5]) for r in mine),
        nodes=(*rows, total),
    )


def _node(node: str, role: str, figures: Sequence[tuple[Any, ...]]) -> NodeFigures:
    """A node's figures over runs: (lag max, lag p95, *per-op) each the median of its runs'."""
    cols = list(zip(*figures, strict=True)) if figures else [()] * (2 + len(NODE_KEYS))
    return NodeFigures(
        node=node,
        role=role,
        lag_max_s=_median(cols[0]),
        lag_p95_s=_median(cols[1]),
        per_op={k: _median(v) for k, v in zip(NODE_KEYS, cols[2:], strict=True)},
    )


def _median(values: Sequence[Any]) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return median(vals) if vals else None
