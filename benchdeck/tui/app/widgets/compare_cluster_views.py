"""A comparison's cluster figures in the Compare screen (issue 41): each column on a cluster
relative to the base's build there (under the rQPS table), its nodes' lag and per-op metrics
(under each workload's per-op block) and the flag of a column whose replicas fell behind past
the lag limit or had faults, in the theme's warning colour. The figures and their text come
from store/reports/cluster_report.py, as the CLI prints them; a comparison without a column on
a cluster shows none of it.
"""

from __future__ import annotations

from dataclasses import replace

from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from benchdeck.store.analysis.compare import Comparison, HwBlock
from benchdeck.store.reports import cluster_report as cr
from benchdeck.tui.app.widgets.rqps import RqpsColours

FLAG_MARK = "!"
"""After a legend entry and before a flag line: a column whose replicas fell behind or had faults."""
NODE_HEADER = ("node", "role", *cr.HEADER[:-3])
"""The nodes table's columns: the names first (at 80 columns every number shows whole)."""


def flagged(cmp: Comparison) -> set[str]:
    """The labels of the columns a replica fell behind past the limit in, or a node faulted, in
    some workload's runs."""
    return {
        r.label or r.build
        for b in cmp.hw
        for r in b.rows
        if r.cluster is not None and (r.cluster.over_limit or r.cluster.faults)
    }


def gain_title(cmp: Comparison) -> str:
    """What the table under rQPS shows: the title and a line per column (``col-3 : A@c / B@c``)."""
    return "\n".join([cr.GAIN_TITLE, *(legend for _, legend in cr.gain_columns(cmp))])


def has_gain(cmp: Comparison) -> bool:
    """Some column on a cluster has the base's build on its cluster as a column too."""
    return bool(cr.gain_columns(cmp))


def fill_gain(table: DataTable[object], cmp: Comparison, colours: RqpsColours) -> None:
    """Each column on a cluster relative to the base's build on it (:func:`has_gain`), a row
    per workload (and dop) as rQPS."""
    cols = cr.gain_columns(cmp)
    header, rows = cr.gain_grid(cmp)
    for name in header:
        table.add_column(name, key=name, width=max(len(name), 5))
    table.add_column("workload", key="workload", width=max(len(r[-1]) for r in [["workload"], *rows]))
    for row, shown in zip(cmp.rqps, rows, strict=True):
        values = [colours.cell(cmp.on_cluster_rqps(row.workload, row.dop, i)) for i, _ in cols]
        table.add_row(*values, shown[-1], key=shown[-1])


def node_tables(block: HwBlock, warning: str) -> list[Table | Text]:
    """Under a workload's per-op block: per column on a cluster, its nodes (max and p95 lag, per-op
    metrics per the primary's o/s, ``all`` = the cluster, each host once); then its flag line."""
    out: list[Table | Text] = []
    for r in block.rows:
        if r.cluster is None:
            continue
        title = f"{r.label or r.build}: nodes on {r.cluster.cluster} (lag s, per the primary's o/s)"
        t = Table(title=title, title_justify="left", title_style="bold", box=None, padding=(0, 1))
        for name in NODE_HEADER:
            t.add_column(name, justify="left" if name in ("node", "role") else "right", no_wrap=True)
        for cells in cr.grid(replace(block, rows=(r,))):
            t.add_row(*cells[-3:-1], *cells[:-3])
        out.append(t)
    out += [Text(f"{FLAG_MARK} {line}", style=f"bold {warning}") for line in cr.flag_lines(block)]
    return out
