"""Throughput against concurrency (issue 28): one workload's QPS per dop on a log2 x axis, a
line per column (build, config), the base drawn first and named as the base."""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchdeck.store.analysis.scaling import ScalePoint
from benchdeck.tui.app.widgets.charts import ThemedPlot, theme_palette


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

    def show(self, curves: CurveSet | None) -> None:
        if curves != self.curves:
            self.curves = curves
            self.redraw()

    def draw(self) -> None:
        plt = self.plt
        cs = self.curves
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
            plt.plot(xs, [p.qps for p in pts], label=name, color=palette[i % len(palette)], marker="braille")
            if i == 0:  # the base's measured points marked on its line
                plt.scatter(xs, [p.qps for p in pts], color=palette[0], marker="●")
        plt.xticks([math.log2(d) for d in dops], [str(d) for d in dops])
        top = max(p.qps for _, pts in cs.curves for p in pts)
        ticks = [top * k / 4 for k in range(5)]
        plt.yticks(ticks, [_si(t) for t in ticks])
        plt.ylim(0, top * 1.08)
        plt.title(f"{cs.workload}: QPS by threads (log2)")


def _si(v: float) -> str:
    """``1.6M``, ``420k``, ``950``: a tick label a narrow chart can afford."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:.3g}{suffix}"
    return f"{v:.0f}"
