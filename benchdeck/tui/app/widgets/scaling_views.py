"""The Scaling tab's table and curves, from a comparison's columns and their scale-up."""

from __future__ import annotations

from textual.widgets import DataTable

from benchdeck.store.analysis.compare import Comparison
from benchdeck.store.analysis.scaling import ScalePoint, Scaling, series_points
from benchdeck.tui.app.widgets.scaling_chart import CurveSet


def curves(s: Scaling, cmp: Comparison, workload: str) -> CurveSet:
    """One line per column of ``cmp`` (the base first) for ``workload``."""
    out = []
    for label in (cmp.base, *cmp.columns):
        spec = cmp.spec(label)
        out.append((label.partition("@")[0], tuple(series_points(s, workload, spec.build, spec.config))))
    return CurveSet(workload, tuple(out))


def fill_scaling(table: DataTable[object], s: Scaling | None, cmp: Comparison | None) -> list[str]:
    """The table beside the curves: per workload a heading row, then a row per dop with each
    column's scale-up and efficiency (``53.31x .83``; QPS is on the chart and in ``benchdeck
    scaling``). Returns each row's workload (what the chart shows for the highlighted row)."""
    table.clear(columns=True)
    if s is None or cmp is None:
        return []
    labels = (cmp.base, *cmp.columns)
    table.add_column("workload / dop", key="wl")
    for i in range(len(labels)):
        table.add_column("base" if i == 0 else f"col-{i}", key=f"c{i}")
    rows: list[str] = []
    for wl in s.workloads():
        by_col = []
        for label in labels:
            spec = cmp.spec(label)
            by_col.append({p.dop: p for p in series_points(s, wl, spec.build, spec.config)})
        table.add_row(wl, *([""] * len(labels)))
        rows.append(wl)
        for dop in sorted({d for pts in by_col for d in pts}):
            cells = [_cell(p) if (p := pts.get(dop)) else "-" for pts in by_col]
            table.add_row(f"  {dop}", *cells)
            rows.append(wl)
    return rows


def _cell(p: ScalePoint) -> str:
    """``53.31x .83``: scale-up, then efficiency without its leading zero (80 columns)."""
    eff = f"{p.efficiency:.2f}"
    return f"{p.scaleup:.2f}x {eff.removeprefix('0')}"
