"""Horizontal bars of one comparison column's rQPS, drawn as text: one row per workload, every
bar from the same zero column, a labelled 1.0 line (the base), ticks at round numbers, and each
bar's value at the right."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import App, RenderResult
from textual.widget import Widget

from benchdeck.store.analysis.compare import Comparison
from benchdeck.store.reports.compare_report import NOISE_MARK
from benchdeck.store.reports.ratios import fmt_ratio
from benchdeck.tui.app.widgets.compare_views import row_label
from benchdeck.tui.app.widgets.rqps import rqps_colours

EIGHTHS = " ▏▎▍▌▋▊▉█"
STEPS = (0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0)
MIN_TICK_GAP = 8  # columns between two tick labels, at least
VALUE_W = 7  # the value column at the right: " 0.98~"


def tick_step(top: float, cells: int) -> float:
    """The smallest round step that keeps tick labels ``MIN_TICK_GAP`` columns apart."""
    for step in STEPS:
        if cells * step / top >= MIN_TICK_GAP:
            return step
    return STEPS[-1]


def bar(value: float, per_cell: float, cells: int) -> str:
    """A bar ``value`` long at ``per_cell`` units per column, in eighths of a column."""
    eighths = max(0, min(cells * 8, round(value / per_cell * 8)))
    full, part = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[part] if part else "")


class RqpsBars(Widget):
    """The Chart tab: rQPS of one column (``n`` switches) per workload against the base."""

    DEFAULT_CSS = """
    RqpsBars {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cmp: Comparison | None = None
        self.column = 0

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.refresh())

    def set_comparison(self, cmp: Comparison | None, column: int) -> None:
        self.cmp = cmp
        self.column = column
        self.styles.height = (len(cmp.rqps) if cmp else 0) + 4
        self.refresh(layout=True)

    def render(self) -> RenderResult:
        cmp = self.cmp
        if cmp is None or not cmp.columns or not cmp.rqps:
            return Text("rQPS: nothing to compare")
        return chart_text(cmp, self.column, max(40, self.size.width), self.app)


def chart_text(cmp: Comparison, column: int, width: int, app: App[Any]) -> Text:
    """The chart, ``width`` columns wide."""
    colours = rqps_colours(app)
    col = min(column, len(cmp.columns) - 1)
    multi = len(cmp.dops) > 1
    labels = [row_label(r.workload, r.dop, multi) for r in cmp.rqps]
    values: Sequence[float | None] = [r.values[col] for r in cmp.rqps]
    label_w = min(max(map(len, labels)), max(12, width // 3))
    cells = max(10, width - label_w - 2 - VALUE_W)
    finite = [v for v in values if v is not None and math.isfinite(v)]
    step = tick_step(max([1.1, *finite]) * 1.05, cells)
    top = step * math.ceil(max([1.1, *finite]) * 1.05 / step)
    per_cell = top / cells
    one = min(cells - 1, round(1.0 / per_cell))  # the base's column
    line_style = colours.neutral

    out = Text(no_wrap=True, overflow="crop")
    out.append(f"rQPS col-{col + 1}: {cmp.columns[col]} / base {cmp.base}", style="bold")
    out.append("   (n: next column)\n" if len(cmp.columns) > 1 else "\n", style="dim")
    head = [" "] * cells
    mark = "▼ 1.0 = base"
    if one + len(mark) <= cells:
        head[one : one + len(mark)] = mark
    else:
        flipped = "base = 1.0 ▼"
        head[one - len(flipped) + 1 : one + 1] = flipped
    out.append(" " * (label_w + 1))
    out.append("".join(head).rstrip() + "\n", style=line_style)
    for label, value, row in zip(labels, values, cmp.rqps, strict=True):
        out.append(label[:label_w].rjust(label_w) + " ")
        shown = bar(value, per_cell, cells) if value is not None and math.isfinite(value) else ""
        style = colours.style(value)
        for x in range(cells):
            ch = shown[x] if x < len(shown) else " "
            if x == one:
                out.append("█" if ch == "█" else "│", style=line_style)
            else:
                out.append(ch, style=style)
        noise = NOISE_MARK if row.within_noise[col] else ""
        out.append((" " + fmt_ratio(value) + noise).ljust(VALUE_W)[:VALUE_W] + "\n", style=style)
    out.append(" " * label_w + " ")
    axis = ["─"] * cells
    ticks = [round(i * step / per_cell) for i in range(round(top / step) + 1)]
    for t in ticks:
        if t < cells:
            axis[t] = "┼" if t == one else "┬"
    out.append("".join(axis) + "\n", style=line_style)
    under = [" "] * (cells + VALUE_W)
    for i, t in enumerate(ticks):
        text = f"{i * step:g}"
        at = max(0, t - len(text) // 2)
        if all(c == " " for c in under[max(0, at - 1) : at + len(text) + 1]):
            under[at : at + len(text)] = text
    out.append(" " * (label_w + 1))
    out.append("".join(under).rstrip(), style=line_style)
    return out
