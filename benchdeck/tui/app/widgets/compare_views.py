"""A :class:`Comparison` into the Compare screen's tables: rQPS, groups, per-op metrics, noise."""

from __future__ import annotations

from rich.columns import Columns
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from benchdeck.store.analysis.compare import HW_KEYS, Comparison, GroupStat, HwBlock, HwRow
from benchdeck.store.analysis.noise import LEVEL, MIN_SAMPLES
from benchdeck.store.reports.compare_report import NOISE_MARK, fmt_ci, fmt_hw, fmt_rel, interval_source
from benchdeck.tui.app.widgets.compare_cluster_views import FLAG_MARK, flagged, node_tables
from benchdeck.tui.app.widgets.rqps import RqpsColours


def row_label(workload: str, dop: int | None, multi: bool) -> str:
    return f"{workload}@dop{dop}" if multi else workload


def legend(cmp: Comparison, colours: RqpsColours, warning: str = "") -> Group:
    """``base X on host`` and what the colours and ``~`` mean, then ``col-1: Y`` ... laid out in
    columns: an entry is never split across lines. A column on a cluster whose replicas fell
    behind past the limit or had faults ends in ``!`` (in ``warning``, said on the first line)."""
    text = Text.assemble(("base ", "bold"), cmp.base, " on ", cmp.host, no_wrap=True, overflow="ellipsis")
    if cmp.config:
        text.append(f"  config {cmp.config}")
    if len(cmp.dops) == 1 and cmp.dops[0] is not None:
        text.append(f"  dop {cmp.dops[0]}")
    text.append("   ")
    text.append("<=0.95", style=colours.bad)
    text.append(" ")
    text.append(">=1.05", style=colours.good)
    text.append(f" {NOISE_MARK} noise", style=colours.neutral)
    marked = flagged(cmp) if cmp.on_clusters else set()
    if marked:
        text.append(f"  {FLAG_MARK} lag/faults", style=warning)
    entries = [
        Text.assemble(
            (f"col-{i}: ", "bold"),
            col,
            (f" {FLAG_MARK}" if col in marked else "", f"bold {warning}"),
            no_wrap=True,
            overflow="ellipsis",
        )
        for i, col in enumerate(cmp.columns, 1)
    ]
    return Group(text, Columns(entries, padding=(0, 3), column_first=True))


def _width(header: str, cells: list[str]) -> int:
    return max([len(header), *(len(c) for c in cells)])


MIN_NAME = 12
"""The narrowest the workload column gets when the table has to fit (cells: its room, at least)."""


def fill_rqps(
    table: DataTable[object], cmp: Comparison, colours: RqpsColours, room: int | None = None
) -> None:
    """One row per workload, one column per build; widths from the data, given explicitly (a
    table left to measure itself could show cells cut to the header width after a redraw).

    ``room``: the cells the table can show without scrolling sideways. The view's edge would
    cut a name into another valid one (``..._range=10`` for ``=100``), so names that do not fit
    end in an ellipsis instead, the group column going first; numbers are never cut."""
    multi = len(cmp.dops) > 1
    table.clear(columns=True)
    rows = [
        ([colours.cell(v, row.within_noise[i]) for i, v in enumerate(row.values)], row) for row in cmp.rqps
    ]
    pad = 2 * table.cell_padding
    widths = [_width(f"col-{i + 1}", [cells[i].plain for cells, _ in rows]) for i in range(len(cmp.columns))]
    labels = [row_label(row.workload, row.dop, multi) for row in cmp.rqps]
    name_w = _width("workload", labels)
    group_w: int | None = _width("group", [r.group for r in cmp.rqps])
    if room is not None:
        left = room - sum(w + pad for w in widths)
        if group_w is not None and left < name_w + pad + group_w + pad:
            group_w = None
        if left < name_w + pad:
            name_w = max(MIN_NAME, left - pad)
    for i, w in enumerate(widths):
        table.add_column(f"col-{i + 1}", key=f"col-{i + 1}", width=w)
    table.add_column("workload", key="workload", width=name_w)
    if group_w is not None:
        table.add_column("group", key="group", width=group_w)
    for (cells, row), label in zip(rows, labels, strict=True):
        name = Text(label, no_wrap=True, overflow="ellipsis")
        if len(label) > name_w:
            name = Text(label[: name_w - 1] + "…")
        group = [Text(row.group, style=colours.neutral)] if group_w is not None else []
        table.add_row(*cells, name, *group, key=label)


GROUP_STATS = ("median", "avg", "min", "max", "gmean")
"""The statistic the Groups tab shows, in the order ``m`` cycles through (the posts read the median)."""


def fill_groups(
    table: DataTable[object], cmp: Comparison, colours: RqpsColours, stat: str = "median"
) -> None:
    """The posts' compact table: one row per group, one column per build, the cells one
    statistic of the group's rQPS (``n`` = workloads in the group)."""
    multi = len(cmp.dops) > 1
    table.clear(columns=True)
    by_key: dict[tuple[str, int | None], dict[str, GroupStat]] = {}
    for g in cmp.groups:
        by_key.setdefault((g.group, g.dop), {})[g.column] = g
    labels = [row_label(group, dop, multi) for group, dop in by_key]
    table.add_column(stat, key="group", width=_width(stat, labels))
    table.add_column(
        "n", key="n", width=_width("n", [str(max(g.n for g in v.values())) for v in by_key.values()])
    )
    for i in range(len(cmp.columns)):
        name = f"col-{i + 1}"
        table.add_column(name, key=name, width=max(len(name), 5))
    for label, stats in zip(labels, by_key.values(), strict=True):
        n = max(g.n for g in stats.values())
        cells = [colours.cell(getattr(stats[c], stat)) if c in stats else Text("") for c in cmp.columns]
        table.add_row(label, Text(str(n), justify="right"), *cells, key=label)


def hw_tables(cmp: Comparison, colours: RqpsColours, warning: str = "") -> Group:
    """One block per workload: absolute per-op metrics, then relative to the base (first row);
    with columns on a cluster, their nodes under it (lag, per-op) and their flags in ``warning``."""
    if not cmp.hw:
        return Group(Text("No vmstat/iostat samples for these runs: no per-op metrics.", style="italic"))
    if not cmp.on_clusters:
        return Group(*(_hw_table(b, colours) for b in cmp.hw))
    return Group(*(p for b in cmp.hw for p in (_hw_table(b, colours, True), *node_tables(b, warning))))


def _hw_table(block: HwBlock, colours: RqpsColours, labels: bool = False) -> Table:
    title = block.workload if block.dop is None else f"{block.workload} dop {block.dop}"
    t = Table(title=title, title_justify="left", title_style="bold", box=None, padding=(0, 1), expand=False)
    t.add_column("build")
    for k in HW_KEYS:
        t.add_column(k, justify="right")
    base = block.rows[0].values

    def name(r: HwRow) -> str:  # a build alone and on a cluster: the columns' labels
        return (r.label or r.build) if labels else r.build

    for r in block.rows:
        t.add_row(name(r), *(fmt_hw(k, r.values[k]) for k in HW_KEYS))
    t.add_row(Text("relative to base", style="italic"), *([""] * len(HW_KEYS)))
    for r in block.rows[1:]:
        cells: list[Text | str] = [fmt_rel(k, r.values, base) for k in HW_KEYS[:-1]]
        cells.append(colours.cell(r.rel["o/s"]))
        t.add_row(name(r), *cells)
    return t


def counter_view(cmp: Comparison, colours: RqpsColours) -> Group:
    """The Counters tab: perf stat counters per operation, a block per workload and dop."""
    from benchdeck.store.reports.counters_report import NO_COUNTERS
    from benchdeck.tui.reports.render_rich import counter_tables

    if not cmp.counters:
        return Group(Text(NO_COUNTERS, style="italic"))
    return Group(*counter_tables(cmp, red=colours.bad, green=colours.good, grey=colours.neutral))


NOISE_NOTE = f"A CI needs 2+ runs of a side or {MIN_SAMPLES}+ per-second samples per run.  ← → scroll"
"""The line under the Noise tab's table: what ``none`` means, and the keys that scroll it."""


def fill_noise(table: DataTable[object], cmp: Comparison, colours: RqpsColours) -> None:
    """Per workload and column (named as in the legend: ``base``, ``col-1`` ...): rQPS and the
    confidence interval of the ratio with what it was drawn from (repeated runs, per-second
    samples, or why none) first, so they show at 80 columns; then repeats, spread ((max - min)
    / median) and the QPS."""
    multi = len(cmp.dops) > 1
    table.clear(columns=True)
    ci_name = f"{LEVEL:.0%} CI"
    for name in ("workload", "column", "rQPS", ci_name, "from", "runs", "spread", "median QPS", "min", "max"):
        table.add_column(name, key=name)
    builds = [cmp.base, *cmp.columns]
    for row in cmp.rqps:
        base_n = cmp.cells[(row.workload, row.dop, cmp.base)].n
        for j, build in enumerate(builds):
            cell = cmp.cells.get((row.workload, row.dop, build))
            if cell is None:
                continue
            ci = row.ci[j - 1] if j and row.ci else None
            rq = (
                colours.cell(row.values[j - 1], row.within_noise[j - 1])
                if j
                else Text("base", justify="right")
            )
            source = interval_source(ci, cell.n, base_n) if j else ""
            table.add_row(
                row_label(row.workload, row.dop, multi) if j == 0 else "",
                f"col-{j}" if j else "base",
                rq,
                Text(fmt_ci(ci) if j else "", justify="right"),
                Text(source, style=colours.neutral),
                Text(str(cell.n), justify="right"),
                Text(f"{cell.spread * 100:.1f}%" if cell.n > 1 else "-", justify="right"),
                Text(f"{cell.qps:,.1f}", justify="right"),
                Text(f"{cell.qps_min:,.1f}", justify="right"),
                Text(f"{cell.qps_max:,.1f}", justify="right"),
            )
