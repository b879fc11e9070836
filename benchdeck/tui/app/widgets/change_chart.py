"""A series' QPS per version (or per run over time) with its change points marked."""

from __future__ import annotations

import itertools

from benchdeck.store.analysis.changes import SeriesChanges
from benchdeck.tui.app.widgets.charts import (
    ThemedPlot,
    fmt_tick,
    round_ticks,
    theme_foreground,
    theme_palette,
)
from benchdeck.tui.app.widgets.rqps import rqps_colours

MAX_TICKS = 12
Y_TICKS = 4
KEY = "dots: runs, line: their mean, flat: segment means, |: change points"
"""What the chart draws, said under it (a legend box covered the first segment's mean)."""


class ChangeChart(ThemedPlot):
    """QPS of each point (each run as a dot), the mean of each segment
    between change points, and a vertical line where each change happened (between the two
    points) in the rQPS colour of its ratio; the highlighted change's line in colour, others plain."""

    CLEAR_FIGURE = True  # x ticks are the series' own labels

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result: SeriesChanges | None = None
        self.selected: int | None = None

    def show(self, result: SeriesChanges | None, selected: int | None = None) -> None:
        """Chart ``result``; ``selected`` is the point index of the change to emphasise."""
        if result is not self.result or selected != self.selected:
            self.result = result
            self.selected = selected
            self.redraw()

    def draw(self) -> None:
        plt = self.plt
        result = self.result
        if result is None:
            plt.title("no series selected")
            return
        s = result.series
        xs = [float(i) for i in range(len(s.labels))]
        palette = theme_palette(self)
        bounds = [0, *(c.index for c in result.changes), len(s.labels)]
        for lo, hi in itertools.pairwise(bounds):  # no legend box: it covered the first mean
            seg = s.qps[lo:hi]
            mean = sum(seg) / len(seg)
            plt.plot([lo - 0.4, hi - 0.6], [mean, mean], color=palette[1 % len(palette)], marker="braille")
        plt.plot(xs, list(s.qps), color=palette[0], marker="braille")
        # every run as a dot (over the mean line: one dot per point without repeats)
        plt.scatter(
            [float(g) for g in s.groups], list(s.values), color=palette[2 % len(palette)], marker="dot"
        )
        colours = rqps_colours(self.app)
        for c in result.changes:
            rgb = colours.rgb(c.test.ratio)
            emphasis = self.selected is None or c.index == self.selected
            plt.vline(c.index - 0.5, rgb if emphasis else theme_foreground(self))
        step = max(1, -(-len(xs) // MAX_TICKS))
        ticks = xs[::step]
        plt.xticks(ticks, [s.labels[int(t)] for t in ticks])
        # as in the posts' charts, the y axis does not start at 0: a 5% step must be visible
        low, high = min(s.values), max(s.values)
        pad = (high - low) * 0.1 or abs(high) * 0.05 or 1.0
        yticks = round_ticks(low - pad, high + pad, Y_TICKS)
        plt.ylim(yticks[0], yticks[-1])
        plt.yticks(yticks, [fmt_tick(v) for v in yticks])  # 6.75M, not 6761272.1
        plt.xlim(-0.5, len(xs) - 0.5)
        what = "version" if s.over == "version" else "run"
        plt.title(f"{s.workload}: QPS per {what} ({s.line})")
        plt.xlabel(KEY)
