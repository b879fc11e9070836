"""Throughput against concurrency (issue 28): one workload's QPS per dop on a log2 x axis, a
line per column (build, config), the base drawn first and named as the base in the legend
under the plot (plotext's own legend, in the plot's corner, covered the lines: issue 38)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from benchdeck.store.analysis.scaling import ScalePoint
from benchdeck.tui.app.widgets.charts import RGB, ThemedPlot, theme_palette


@dataclass(frozen=True, slots=True)
class CurveSet:
    """What the chart shows: ``curves`` as (label, points by dop), the base first."""

    workload: str
    curves: tuple[tuple[str, tuple[ScalePoint, ...]], ...]


class ScalingChart(ThemedPlot):
    """QPS per dop, x = log2(dop) with the dops as ticks (1, 2, 4 ... 64 evenly spaced, as the
    posts' curves are read); the base's line is labelled ``base <name>``."""

    CLEAR_FIGURE = True  # x ticks are the dops of the curves shown

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.curves: CurveSet | None = None
        self.legend: list[tuple[str, RGB]] = []
        """Each line's name and colour, drawn under the plot."""

    def show(self, curves: CurveSet | None) -> None:
        if curves != self.curves:
            self.curves = curves
            self.redraw()

    def draw(self) -> None:
        plt = self.plt
        cs = self.curves
        self.legend = []
        if cs is None or not any(pts for _, pts in cs.curves):
            plt.title("no runs at two or more dops: sweep with --threads 1,2,4 ...")
            return
        palette = theme_palette(self)
        dops = sorted({p.dop for _, pts in cs.curves for p in pts})
        for i, (label, pts) in enumerate(cs.curves):
            if not pts:
                continue
            name = f"base {label}" if i == 0 else label
            xs = [math.log2(p.dop) for p in pts]
            colour = palette[i % len(palette)]
            plt.plot(xs, [p.qps for p in pts], color=colour, marker="braille")
            self.legend.append((name, colour))
            if i == 0:  # the base's measured points marked on its line
                plt.scatter(xs, [p.qps for p in pts], color=palette[0], marker="●")
        plt.xticks([math.log2(d) for d in dops], [str(d) for d in dops])
        top = max(p.qps for _, pts in cs.curves for p in pts)
        ticks = [top * k / 4 for k in range(5)]
        plt.yticks(ticks, [_si(t) for t in ticks])
        plt.ylim(0, top * 1.08)
        plt.title(f"{cs.workload}: QPS by threads (log2)")

    def _set_up(self) -> None:
        super()._set_up()
        width, height = self.size
        rows = len(legend_rows(self.legend, width))
        if rows:
            self.plt.plotsize(width, max(1, height - rows))
            self.plt._set_size(width, max(1, height - rows))

    def _build_strips(self) -> list[Strip]:
        strips = super()._build_strips()
        base = self.visual_style.rich_style
        width = self.size.width
        for row in legend_rows(self.legend, width):
            segments = [Segment(" ", base)]
            for label, (r, g, b) in row:
                segments.append(Segment("━ ", base + Style(color=f"rgb({r},{g},{b})")))
                segments.append(Segment(f"{label}  ", base))
            strips.append(Strip(segments).adjust_cell_length(width, base))
        return strips


def legend_rows(legend: list[tuple[str, RGB]], width: int) -> list[list[tuple[str, RGB]]]:
    """The legend's entries (`` ━ name  ━ name``) packed into lines of ``width``, in order; a
    name longer than a line gets one of its own (cut at the edge)."""
    rows: list[list[tuple[str, RGB]]] = []
    used = 0  # the cells of the last line, up to the end of its last name
    for label, colour in legend:
        if rows and used + 4 + len(label) <= width:
            rows[-1].append((label, colour))
            used += 4 + len(label)
        else:
            rows.append([(label, colour)])
            used = 3 + len(label)
    return rows


def _si(v: float) -> str:
    """``1.6M``, ``420k``, ``950``: a tick label a narrow chart can afford."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:.3g}{suffix}"
    return f"{v:.0f}"
