"""Rich rendering of a comparison for a terminal: coloured rQPS, group stats, per-op tables."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from benchdeck.store.analysis.compare import HW_KEYS, Comparison, HwBlock, HwRow
from benchdeck.store.reports.compare_report import NOISE_MARK, fmt_hw, fmt_rel
from benchdeck.store.reports.ratios import fmt_ratio, shown_ratio
from benchdeck.tui.reports.rich_fit import column_blocks, fits, plain_table, print_unshrunk

RED_AT = 0.95
GREEN_AT = 1.05


def rqps_style(v: float | None, *, red: str = "red", green: str = "green", grey: str = "grey62") -> str:
    """red <= 0.95, green >= 1.05, grey between (the posts' convention), decided on the value as
    printed (``0.9506`` prints ``0.95``: red)."""
    v = shown_ratio(v)
    if v is None or math.isnan(v):
        return "dim"
    if v <= RED_AT:
        return red
    if v >= GREEN_AT:
        return green
    return grey


def comparison_renderable(cmp: Comparison, console: Console | None = None) -> Group:
    """Legend, rQPS, group summary and per-op tables; on a terminal too narrow for a per-op
    table's 13 columns, its absolute and relative halves one under the other, rows named as
    in the legend (``base``, ``col-1`` ...), so no build or value is cut."""
    multi = len(cmp.dops) > 1
    legend = Text(
        f"Relative to: {cmp.base}\n" + "\n".join(f"col-{i} : {c}" for i, c in enumerate(cmp.columns, 1))
    )
    heads = [*(f"col-{i}" for i in range(1, len(cmp.columns) + 1)), "workload", "group"]
    rows: list[list[Text | str]] = [
        [
            *(
                Text(fmt_ratio(v) + (NOISE_MARK if row.within_noise[i] else ""), style=rqps_style(v))
                for i, v in enumerate(row.values)
            ),
            f"{row.workload}@dop{row.dop}" if multi else row.workload,
            Text(row.group, style="dim"),
        ]
        for row in cmp.rqps
    ]
    names = [len(heads) - 2, len(heads) - 1]
    title = f"rQPS on {cmp.host}"
    rq = (
        column_blocks(console, heads, rows, set(heads[:-2]), names, title, pad_edge=False)
        if console is not None
        else [plain_table(heads, rows, set(heads[:-2]), title, pad_edge=False)]
    )
    gs = Table(title="Summary per group", title_justify="left", box=None)
    for name in ("column", "group", "min", "max", "avg", "median", "gmean"):
        gs.add_column(name, justify="left" if name in ("column", "group") else "right", no_wrap=True)
    for g in cmp.groups:
        col = f"col-{cmp.columns.index(g.column) + 1}"
        label = f"{g.group}@dop{g.dop}" if multi else g.group
        vals = [Text(fmt_ratio(v), style=rqps_style(v)) for v in (g.min, g.max, g.avg, g.median, g.gmean)]
        gs.add_row(col, label, *vals)
    parts: list[Table | Text] = [legend, *rq, *_gain_tables(cmp), gs]
    for block in cmp.hw:
        parts += _hw_tables(cmp, block, console)
        if cmp.on_clusters:
            parts += cluster_tables(block, console)
    parts += counter_tables(cmp, console=console)
    return Group(*parts)


def _hw_tables(cmp: Comparison, block: HwBlock, console: Console | None) -> list[Table]:
    title = f"{block.workload}" + (f" dop {block.dop}" if block.dop else "")
    base = block.rows[0].values
    absolute = [[fmt_hw(k, r.values[k]) for k in HW_KEYS] for r in block.rows]
    relative = [[fmt_rel(k, r.values, base) for k in HW_KEYS] for r in block.rows]
    right = {*HW_KEYS, *(f"r {k}" for k in HW_KEYS)}
    wide = plain_table(
        ["dbms", *HW_KEYS, *(f"r {k}" for k in HW_KEYS)],
        [[_row_name(cmp, r), *a, *rel] for r, a, rel in zip(block.rows, absolute, relative, strict=True)],
        right,
        title,
    )
    if console is None or fits(console, wide):
        return [wide]
    names = [_col_name(cmp, r.label or r.build) for r in block.rows]
    return [
        plain_table(
            ["column", *HW_KEYS], [[n, *a] for n, a in zip(names, absolute, strict=True)], right, title
        ),
        plain_table(
            ["column", *(f"r {k}" for k in HW_KEYS)],
            [[n, *rel] for n, rel in zip(names, relative, strict=True)],
            right,
            f"{title}, relative to the base",
        ),
    ]


def cluster_tables(block: HwBlock, console: Console | None = None) -> list[Table | Text]:
    """The block's cluster nodes (lag, per-op per the primary's o/s) and its columns' flags."""
    from benchdeck.store.reports import cluster_report as cr

    if not cr.has_cluster(block):
        return []
    title = f"{block.workload}" + (f" dop {block.dop}" if block.dop else "") + ", cluster nodes"
    rows: list[list[Text | str]] = [list(r) for r in cr.grid(block)]
    right = set(cr.HEADER[:-3])
    tables: list[Table | Text] = []
    if console is not None:
        tables += column_blocks(
            console, list(cr.HEADER), rows, right, [len(cr.HEADER) - 3, len(cr.HEADER) - 1], title
        )
    else:
        tables.append(plain_table(list(cr.HEADER), rows, right, title))
    return tables + [Text(f"! {line}", style="bold red") for line in cr.flag_lines(block)]


def _gain_tables(cmp: Comparison) -> list[Table | Text]:
    """Each column on a cluster relative to the base's build there (the seed's question)."""
    if not cmp.cluster_bases:
        return []
    from benchdeck.store.reports import cluster_report as cr

    if not (cols := cr.gain_columns(cmp)):
        return []
    header, rows = cr.gain_grid(cmp)
    cells: list[list[Text | str]] = []
    for row, shown in zip(cmp.rqps, rows, strict=True):
        values = [cmp.on_cluster_rqps(row.workload, row.dop, i) for i, _ in cols]
        cells.append([*(Text(fmt_ratio(v), style=rqps_style(v)) for v in values), shown[-1]])
    table = plain_table([*header, "workload"], cells, set(header))
    return [Text("\n".join([cr.GAIN_TITLE, *(legend for _, legend in cols)])), table]


def _row_name(cmp: Comparison, r: HwRow) -> str:
    """The build; its label when columns are on clusters (a build alone and on a cluster)."""
    return (r.label or r.build) if cmp.on_clusters else r.build


def _col_name(cmp: Comparison, label: str) -> str:
    return "base" if label == cmp.base else f"col-{cmp.columns.index(label) + 1}"


def counter_tables(
    cmp: Comparison,
    red: str = "red",
    green: str = "green",
    grey: str = "grey62",
    console: Console | None = None,
) -> list[Table | Text]:
    """The Counters table, a block per workload and dop: per operation (ratios as they are),
    each column relative to the base coloured as rQPS is (a counter that rose is not better or
    worse by itself: the colour says how far it moved). With ``console``, a table wider than it
    is split into blocks of columns (a value and its ratio together), the counter and the base
    in each: no number is cut."""
    from benchdeck.store.reports.counters_report import LEGEND, blocks, table

    if not cmp.counters:
        return []
    out: list[Table | Text] = [Text(f"Counters: {LEGEND}", style="italic")]
    for wl, dop, block in blocks(cmp.counters):
        header, grid = table(cmp, block)
        rows: list[list[Text | str]] = []
        for row in grid:
            cells: list[Text | str] = [row[0], row[1]]
            for i in range(2, len(row), 2):
                rel = row[i + 1]
                style = rqps_style(float(rel), red=red, green=green, grey=grey) if _number(rel) else "dim"
                cells += [row[i], Text(rel, style=style)]
            rows.append(cells)
        title = wl + (f" dop {dop}" if dop is not None else "")
        if console is None:
            out.append(_counter_table(title, header, rows))
        else:
            out += column_blocks(console, header, rows, set(header[1:]), [0, 1], title, step=2)
    return out


def _counter_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Text | str]]) -> Table:
    t = Table(title=title, title_justify="left", box=None)
    for i, name in enumerate(header):
        t.add_column(name, justify="left" if i == 0 else "right")
    for cells in rows:
        t.add_row(*cells)
    return t


def _number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def print_comparison(cmp: Comparison, console: Console | None = None) -> None:
    console = console or Console()
    print_unshrunk(console, comparison_renderable(cmp, console))
