"""A :class:`Comparison` into the Compare screen's tables: rQPS, groups, per-op metrics, noise."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from store.compare import HW_KEYS, Comparison, HwBlock
from store.noise import LEVEL
from store.report import NOISE_MARK, fmt_ci, fmt_hw, fmt_rel
from tui.widgets.rqps import RqpsColours


def row_label(workload: str, dop: int | None, multi: bool) -> str:
    return f"{workload}@dop{dop}" if multi else workload


def legend(cmp: Comparison, colours: RqpsColours) -> Text:
    """``base: X on host   col-1: Y ...`` and what the colours and ``~`` mean."""
    text = Text.assemble(("base ", "bold"), cmp.base, " on ", cmp.host)
    if cmp.config:
        text.append(f"  config {cmp.config}")
    for i, col in enumerate(cmp.columns, 1):
        text.append(f"   col-{i}: ", style="bold")
        text.append(col)
    text.append("   ")
    text.append("<=0.95", style=colours.bad)
    text.append(" ")
    text.append(">=1.05", style=colours.good)
    text.append(f" {NOISE_MARK} noise", style=colours.neutral)
    return text


def fill_rqps(table: DataTable[object], cmp: Comparison, colours: RqpsColours) -> None:
    multi = len(cmp.dops) > 1
    table.clear(columns=True)
    for i in range(len(cmp.columns)):
        table.add_column(f"col-{i + 1}", key=f"col-{i + 1}")
    table.add_column("workload", key="workload")
    table.add_column("group", key="group")
    for row in cmp.rqps:
        cells = [colours.cell(v, row.within_noise[i]) for i, v in enumerate(row.values)]
        label = row_label(row.workload, row.dop, multi)
        table.add_row(*cells, label, Text(row.group, style=colours.neutral), key=label)


def fill_groups(table: DataTable[object], cmp: Comparison, colours: RqpsColours) -> None:
    multi = len(cmp.dops) > 1
    table.clear(columns=True)
    for name in ("col", "group", "n", "min", "max", "avg", "median", "gmean"):
        table.add_column(name, key=name)
    for g in cmp.groups:
        col = f"col-{cmp.columns.index(g.column) + 1}"
        stats = (g.min, g.max, g.avg, g.median, g.gmean)
        table.add_row(
            col,
            row_label(g.group, g.dop, multi),
            Text(str(g.n), justify="right"),
            *(colours.cell(v) for v in stats),
        )


def hw_tables(cmp: Comparison, colours: RqpsColours) -> Group:
    """One block per workload: absolute per-op metrics, then relative to the base (first row)."""
    if not cmp.hw:
        return Group(Text("No vmstat/iostat samples for these runs: no per-op metrics.", style="italic"))
    return Group(*(_hw_table(b, colours) for b in cmp.hw))


def _hw_table(block: HwBlock, colours: RqpsColours) -> Table:
    title = block.workload if block.dop is None else f"{block.workload} dop {block.dop}"
    t = Table(title=title, title_justify="left", title_style="bold", box=None, padding=(0, 1), expand=False)
    t.add_column("build")
    for k in HW_KEYS:
        t.add_column(k, justify="right")
    base = block.rows[0].values
    for r in block.rows:
        t.add_row(r.build, *(fmt_hw(k, r.values[k]) for k in HW_KEYS))
    t.add_row(Text("relative to base", style="italic"), *([""] * len(HW_KEYS)))
    for r in block.rows[1:]:
        cells: list[Text | str] = [fmt_rel(k, r.values, base) for k in HW_KEYS[:-1]]
        cells.append(colours.cell(r.rel["o/s"]))
        t.add_row(r.build, *cells)
    return t


def fill_noise(table: DataTable[object], cmp: Comparison, colours: RqpsColours) -> None:
    """Per workload and column: repeats, spread ((max - min) / median), rQPS and the confidence
    interval of the ratio with what it was drawn from (repeated runs or per-second samples)."""
    multi = len(cmp.dops) > 1
    table.clear(columns=True)
    ci_name = f"{LEVEL:.0%} CI"
    for name in ("workload", "build", "runs", "median QPS", "min", "max", "spread", "rQPS", ci_name, "from"):
        table.add_column(name, key=name)
    builds = [cmp.base, *cmp.columns]
    for row in cmp.rqps:
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
            table.add_row(
                row_label(row.workload, row.dop, multi) if j == 0 else "",
                build,
                Text(str(cell.n), justify="right"),
                Text(f"{cell.qps:,.1f}", justify="right"),
                Text(f"{cell.qps_min:,.1f}", justify="right"),
                Text(f"{cell.qps_max:,.1f}", justify="right"),
                Text(f"{cell.spread * 100:.1f}%" if cell.n > 1 else "-", justify="right"),
                rq,
                Text(fmt_ci(ci) if j else "", justify="right"),
                Text(ci.method if ci else "", style=colours.neutral),
            )
