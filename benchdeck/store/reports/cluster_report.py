"""The cluster section of a comparison's per-op block (issue 41): per column on a cluster, each
node's max and p95 lag and its per-op metrics per the primary's o/s, the cluster's sum (``all``,
each host once), and a line for a column whose replicas fell behind past the cluster's lag limit
or had faults. In text, Markdown, a CSV table (``--table nodes``) and JSON; Rich and the app
take :func:`grid` and :func:`flag_lines`. A comparison without cluster columns prints none of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from benchdeck.store.analysis.compare_model import NODE_KEYS, ClusterFigures, HwBlock
from benchdeck.store.reports.ratios import fmt_hw, fmt_ratio

if TYPE_CHECKING:
    from benchdeck.store.analysis.compare import Comparison

TITLE = (
    "--- cluster nodes: lag (s) and per-op metrics per the primary's o/s (all = the cluster, each host once)"
)
HEADER = ("lag max", "lag p95", *NODE_KEYS, "node", "role", "dbms")
CSV_HEADER = (
    "workload", "dop", "column", "build", "config", "cluster", "node", "role", "lag_max_s", "lag_p95_s",
    "cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o", "lag_limit_s", "over_limit_runs", "runs", "faults",
)  # fmt: skip


def gain_columns(cmp: Comparison) -> list[tuple[int, str]]:
    """(index, ``col-3 : A@loop3 / B@loop3``) of each column with a base on its cluster."""
    out = []
    for i, other in enumerate(cmp.cluster_bases):
        if other is not None:
            out.append((i, f"col-{i + 1} : {cmp.columns[i]} / {other}"))
    return out


def gain_grid(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """The rQPS of each such column relative to the base on its cluster: header and rows (the
    values, then the workload), a row per workload and dop as the rQPS table."""
    cols = gain_columns(cmp)
    multi = len(cmp.dops) > 1
    rows = []
    for row in cmp.rqps:
        values = [fmt_ratio(cmp.on_cluster_rqps(row.workload, row.dop, i)) for i, _ in cols]
        rows.append([*values, f"{row.workload}@dop{row.dop}" if multi else row.workload])
    return [f"col-{i + 1}" for i, _ in cols], rows


GAIN_TITLE = "On each cluster, relative to the base build there:"


def gain_text_lines(cmp: Comparison) -> Iterator[str]:
    if not (cols := gain_columns(cmp)):
        return
    header, rows = gain_grid(cmp)
    yield ""
    yield GAIN_TITLE
    yield from (legend for _, legend in cols)
    yield "\t".join(header)
    yield from ("\t".join(r) for r in rows)


def gain_md_lines(cmp: Comparison, e: Callable[[str], str]) -> list[str]:
    if not (cols := gain_columns(cmp)):
        return []
    header, rows = gain_grid(cmp)
    out = ["", GAIN_TITLE, "", *(f"- {e(legend)}" for _, legend in cols), ""]
    out += ["| " + " | ".join([*header, "workload"]) + " |", "|" + "---:|" * len(header) + "---|"]
    return out + ["| " + " | ".join([*r[:-1], e(r[-1])]) + " |" for r in rows]


def fmt_lag(v: float | None) -> str:
    """Seconds of lag with one decimal, ``-`` when not measured (the primary's)."""
    return "-" if v is None else f"{v:.1f}"


def has_cluster(block: HwBlock) -> bool:
    return any(r.cluster is not None for r in block.rows)


def grid(block: HwBlock) -> list[list[str]]:
    """The section's rows (cells as :data:`HEADER`), the columns' rows in the block's order."""
    out = []
    for r in block.rows:
        if r.cluster is None:
            continue
        for n in r.cluster.nodes:
            per_op = [fmt_hw(k, n.per_op[k]) for k in NODE_KEYS]
            out.append(
                [fmt_lag(n.lag_max_s), fmt_lag(n.lag_p95_s), *per_op, n.node, n.role, r.label or r.build]
            )
    return out


def flag_lines(block: HwBlock) -> list[str]:
    """A line per column whose replicas fell behind past the limit in some run, or had faults."""
    out = []
    for r in block.rows:
        if (c := r.cluster) is not None and (c.over_limit or c.faults):
            out.append(f"{r.label or r.build}: {flag_text(c)}")
    return out


def flag_text(c: ClusterFigures) -> str:
    parts = []
    if c.over_limit:
        parts.append(f"a replica fell behind past {c.lag_limit_s:g} s in {c.over_limit} of {c.runs} runs")
    if c.faults:
        parts.append(f"{c.faults} node fault(s) (stopped or gone)")
    return "; ".join(parts)


def text_lines(block: HwBlock) -> Iterator[str]:
    if not has_cluster(block):
        return
    yield TITLE
    yield "\t".join(HEADER)
    for row in grid(block):
        yield "\t".join(row)
    for line in flag_lines(block):
        yield f"! {line}"


def md_lines(block: HwBlock, e: Callable[[str], str]) -> list[str]:
    if not has_cluster(block):
        return []
    out = ["", f"*{e(TITLE[4:])}*", "", "| " + " | ".join(HEADER) + " |", "|" + "---:|" * 7 + "---|---|---|"]
    out += ["| " + " | ".join([*row[:-3], *map(e, row[-3:])]) + " |" for row in grid(block)]
    out += [f"- **{e(line)}**" for line in flag_lines(block)]
    return out


def csv_rows(
    cmp: Comparison,
    num: Callable[[Any], str],
    col_name: Callable[[Comparison, str], str],
) -> Iterator[list[str]]:
    """``--table nodes``: one row per workload, dop, column on a cluster and node."""
    for block in cmp.hw:
        for r in block.rows:
            if (c := r.cluster) is None:
                continue
            label = r.label or r.build
            for n in c.nodes:
                head = [block.workload, num(block.dop), col_name(cmp, label), r.build, r.config, c.cluster]
                lag = [n.node, n.role, num(n.lag_max_s), num(n.lag_p95_s)]
                per_op = [num(n.per_op[k]) for k in NODE_KEYS]
                yield [
                    *head,
                    *lag,
                    *per_op,
                    num(c.lag_limit_s),
                    num(c.over_limit),
                    num(c.runs),
                    num(c.faults),
                ]


def json_figures(c: ClusterFigures, jnum: Callable[[Any], Any]) -> dict[str, Any]:
    """A cluster column's figures in a per-op row of the JSON (docs/compare.schema.json)."""
    return {
        "cluster": c.cluster,
        "lag_limit_s": jnum(c.lag_limit_s),
        "lag_max_s": jnum(c.lag_max_s),
        "lag_p95_s": jnum(c.lag_p95_s),
        "over_limit_runs": c.over_limit,
        "runs": c.runs,
        "faults": c.faults,
        "nodes": [
            {
                "node": n.node,
                "role": n.role,
                "lag_max_s": jnum(n.lag_max_s),
                "lag_p95_s": jnum(n.lag_p95_s),
                **{k: jnum(n.per_op[k]) for k in NODE_KEYS},
            }
            for n in c.nodes
        ],
    }
