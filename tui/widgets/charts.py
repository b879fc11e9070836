"""textual-plotext charts that follow the app theme: line charts of a run's samples, rQPS bars.

Each chart owns its own plotext ``Plot`` (never the global module) and redraws its data with
the theme's colours whenever the theme changes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from textual.color import Color
from textual_plotext import PlotextPlot

from store.compare import Comparison
from tui.widgets.rqps import rqps_colours

RGB = tuple[int, int, int]


def theme_palette(plot: PlotextPlot) -> list[RGB]:
    """Line colours from the active theme: primary, accent, success, warning, error, secondary."""
    theme = plot.app.current_theme
    names = (theme.primary, theme.accent, theme.success, theme.warning, theme.error, theme.secondary)
    return list(dict.fromkeys(Color.parse(c).rgb for c in names if c))  # distinct, in order


def theme_foreground(plot: PlotextPlot) -> RGB:
    theme = plot.app.current_theme
    return Color.parse(theme.foreground or ("#E0E0E0" if theme.dark else "#1F2328")).rgb


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]


class ThemedPlot(PlotextPlot):
    """A plot that redraws itself (``draw``) on mount and on every theme change."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())
        self.redraw()

    def redraw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        self.draw()
        self.refresh()

    def draw(self) -> None:
        """Draw the data with ``self.plt``; subclasses override."""


class LineChart(ThemedPlot):
    """Lines over time (seconds or sample number)."""

    def __init__(
        self, title: str, xlabel: str = "s", *, ymax: float | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.chart_title = title
        self.xlabel = xlabel
        self.ymax = ymax
        """A fixed top of the y axis (100 for CPU %); else the data's maximum plus 10%."""
        self.lines: list[Line] = []

    def set_lines(self, lines: Sequence[Line]) -> None:
        self.lines = list(lines)
        if self.is_mounted:
            self.redraw()

    def draw(self) -> None:
        plt = self.plt
        palette = theme_palette(self)
        drawn = 0
        highest = 0.0
        for i, line in enumerate(self.lines):
            pts = [
                (x, y) for x, y in zip(line.xs, line.ys, strict=False) if y is not None and math.isfinite(y)
            ]
            if not pts:
                continue
            plt.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                label=line.label,
                color=palette[i % len(palette)],
                marker="hd",
            )
            drawn += 1
            highest = max(highest, *(p[1] for p in pts))
        # from 0, with headroom: plotext draws a flat line badly on its own degenerate range
        top = self.ymax if self.ymax is not None else max(highest, 0.0) * 1.1
        plt.ylim(0, top if top > 0 else 1.0)
        plt.title(self.chart_title if drawn else f"{self.chart_title}: no samples")
        plt.xlabel(self.xlabel)


class RqpsBars(ThemedPlot):
    """Horizontal bars of one comparison column's rQPS per workload, a line at 1.0 (the base)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cmp: Comparison | None = None
        self.column = 0

    def set_comparison(self, cmp: Comparison | None, column: int) -> None:
        self.cmp = cmp
        self.column = column
        n = len(cmp.rqps) if cmp else 0
        self.styles.height = max(10, 2 * n + 5)
        if self.is_mounted:
            self.redraw()

    def draw(self) -> None:
        plt = self.plt
        cmp = self.cmp
        if cmp is None or not cmp.columns or not cmp.rqps:
            plt.title("rQPS: nothing to compare")
            return
        colours = rqps_colours(self.app)
        col = min(self.column, len(cmp.columns) - 1)
        multi = len(cmp.dops) > 1
        n = len(cmp.rqps)
        labels = [f"{r.workload}@dop{r.dop}" if multi else r.workload for r in cmp.rqps]
        values = [r.values[col] for r in cmp.rqps]
        pos = [float(n - i) for i in range(n)]  # first workload on top
        for style in (colours.bad, colours.neutral, colours.good):
            # every series spans all positions (0 elsewhere): plotext sizes bars by their spacing
            ys = [
                v if v is not None and math.isfinite(v) and colours.style(v) == style else 0.0 for v in values
            ]
            if any(ys):
                rgb = Color.parse(style).rgb
                plt.bar(pos, ys, orientation="horizontal", color=rgb, width=0.6, reset_ticks=False)
        plt.yticks(pos, labels)
        plt.vline(1.0, theme_foreground(self))
        plt.xlim(0, max([1.1, *(v * 1.05 for v in values if v is not None and math.isfinite(v))]))
        plt.title(f"rQPS col-{col + 1}: {cmp.columns[col]} / {cmp.base}")
