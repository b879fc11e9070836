"""textual-plotext charts that follow the app theme: line charts of a run's samples.

Each chart owns its own plotext ``Plot`` (never the global module) and redraws its data with
the theme's colours whenever the theme changes. Charts are drawn through Textual's Line API
from plotext's character matrix (see :class:`ThemedPlot`), not from the ANSI text plotext
prints: the Live screen redraws six of them every second.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from plotext._utility import colors_to_ansi
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.app import RenderResult
from textual.color import Color
from textual.strip import Strip
from textual.style import Style
from textual_plotext import PlotextPlot

RGB = tuple[int, int, int]
CellKey = tuple[Hashable, Hashable, Hashable]
"""plotext's colours of a cell: (foreground, style, background)."""


def theme_palette(plot: PlotextPlot) -> list[RGB]:
    """Line colours from the active theme: primary, accent, success, warning, error, secondary,
    then the same darkened and lightened (so eight lines, two runs' CPU, never share a colour)."""
    theme = plot.app.current_theme
    names = (theme.primary, theme.accent, theme.success, theme.warning, theme.error, theme.secondary)
    base = [Color.parse(c) for c in names if c]
    more = [c.darken(0.25) for c in base] + [c.lighten(0.25) for c in base]
    return list(dict.fromkeys(c.rgb for c in base + more))  # distinct, in order


STEPS = (1.0, 2.0, 2.5, 5.0)


def nice_step(span: float, most: int) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k that cuts ``span`` into at most ``most`` steps."""
    if span <= 0 or most < 1:
        return 1.0
    scale = 10.0 ** math.floor(math.log10(span / most))
    for mult in (*STEPS, 10.0):
        if span / (mult * scale) <= most:
            return mult * scale
    return 10.0 * scale


def fmt_tick(v: float) -> str:
    """``0``, ``2.5``, ``40``, ``12k``, ``1.5M``: short tick labels."""
    for div, unit in ((1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


def round_ticks(lo: float, hi: float, most: int) -> list[float]:
    """Ticks at round numbers from ``lo`` to ``hi`` (both on a tick), at most ``most + 1``."""
    step = nice_step(hi - lo, most)
    first = math.floor(lo / step)
    return [round(i * step, 10) for i in range(first, math.ceil(hi / step - 1e-9) + 1)]


def theme_foreground(plot: PlotextPlot) -> RGB:
    theme = plot.app.current_theme
    return Color.parse(theme.foreground or ("#E0E0E0" if theme.dark else "#1F2328")).rgb


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]


def sgr_style(sgr: str) -> RichStyle:
    """The Rich style of an SGR escape sequence, as ``Text.from_ansi`` decodes it."""
    text = Text.from_ansi(sgr + "x")
    return RichStyle.combine(span.style for span in text.spans if isinstance(span.style, RichStyle))


def build_matrix(plt: Any) -> Any:
    """``plt.build()`` but for its last step (the ANSI text): plotext's character matrix."""
    plt._set_sizes()
    plt._build_matrix()
    return plt.monitor.matrix


def matrix_rows(matrix: Any) -> list[list[tuple[str, CellKey]]]:
    """plotext's character matrix as rows of (text, colours) runs, top row first.

    The matrix holds a row per line (bottom first) of markers, foreground, style and background;
    ``matrix.set_canvas`` turns the same runs into ANSI text.
    """
    rows: list[list[tuple[str, CellKey]]] = []
    for r in reversed(range(matrix.rows)):
        chars = matrix.marker[r]
        cells = list(zip(matrix.fullground[r], matrix.style[r], matrix.background[r], strict=True))
        runs: list[tuple[str, CellKey]] = []
        if cells:
            start, key = 0, cells[0]
            for col in range(1, len(cells)):
                if cells[col] != key:
                    runs.append(("".join(chars[start:col]), key))
                    start, key = col, cells[col]
            runs.append(("".join(chars[start:]), key))
        rows.append(runs)
    return rows


class CellStyles(dict[CellKey, RichStyle]):
    """The Rich style of cells per plotext colours, over a widget style (``base``)."""

    def __init__(self, base: Style, ansi_theme: TerminalTheme) -> None:
        super().__init__()
        self.base = base
        self.ansi_theme = ansi_theme

    def __missing__(self, key: CellKey) -> RichStyle:
        rich = sgr_style(colors_to_ansi(*key))
        style = (self.base + Style.from_rich_style(rich, self.ansi_theme)).rich_style
        self[key] = style
        return style


_CELL_STYLES: dict[tuple[Style, TerminalTheme], CellStyles] = {}


def _cell_styles(base: Style, ansi_theme: TerminalTheme) -> CellStyles:
    """The cell styles over ``base``, shared by all charts (a few themes, a few widget styles)."""
    styles = _CELL_STYLES.get((base, ansi_theme))
    if styles is None:
        if len(_CELL_STYLES) > 64:
            _CELL_STYLES.clear()
        styles = _CELL_STYLES[base, ansi_theme] = CellStyles(base, ansi_theme)
    return styles


class ThemedPlot(PlotextPlot):
    """A plot drawn by ``draw`` through the Line API, redrawn when its data, size or theme change.

    ``render_line`` serves strips cached per (data version, size, theme, widget style), built
    from plotext's character matrix with one Rich style per plotext colour triple (the style
    ``Text.from_ansi`` and Textual's ``Content`` would give the same cell): plotext's ANSI text,
    its decoding and Textual's content rendering are skipped. ``render`` still gives plotext's
    own output (text selection uses it), from the same plot.
    """

    CLEAR_FIGURE: ClassVar[bool] = False
    """Start every draw from a new figure (for ticks, which ``clear_data`` keeps), not only new data."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._version = 0
        self._strips: list[Strip] = []
        self._strips_key: tuple[object, ...] | None = None
        self.builds = 0
        """How many times the plot was built (for tests and benchmarks)."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())

    def redraw(self) -> None:
        """Draw again at the next refresh (new data)."""
        self._version += 1
        if self.is_mounted:
            self.refresh()

    def draw(self) -> None:
        """Draw the data with ``self.plt``; subclasses override."""

    def _set_up(self) -> None:
        """Set the plot up from scratch: data (``draw``), size and plotext theme."""
        plt = self.plt
        if self.CLEAR_FIGURE:
            plt.clear_figure()
        else:
            plt.clear_data()
        self.draw()
        width, height = self.size
        plt.plotsize(width, height)
        plt._set_size(width, height)  # as PlotextPlot.render does (textual-plotext issue 5)
        plt.theme(self._get_plotext_theme_name(self.app.theme))

    def render(self) -> RenderResult:
        self._set_up()
        return Text.from_ansi(self.plt.build())

    def render_line(self, y: int) -> Strip:
        strips = self._rendered()
        if y < len(strips):
            return strips[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)

    def _rendered(self) -> list[Strip]:
        key = (self._version, self.size, self.app.theme, self.visual_style)
        if key != self._strips_key:
            self._strips = self._build_strips() if self.size.area else []
            self._strips_key = key
        return self._strips

    def _build_strips(self) -> list[Strip]:
        """The plot's lines: ``plt.build()`` without its ANSI text, then Segments per run."""
        self.builds += 1
        self._set_up()
        matrix = build_matrix(self.plt)
        base = self.visual_style
        styles = _cell_styles(base, self.app.ansi_theme)
        blank, width = base.rich_style, self.size.width
        return [
            Strip([Segment(text, styles[key]) for text, key in runs]).adjust_cell_length(width, blank)
            for runs in matrix_rows(matrix)
        ]


class LineChart(ThemedPlot):
    """Lines over time (seconds), y from 0; ticks at round numbers; the legend on the last line,
    below the plot (never over it)."""

    def __init__(
        self, title: str, xlabel: str = "s", *, ymax: float | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.chart_title = title
        self.xlabel = xlabel
        self.ymax = ymax
        """A fixed top of the y axis (100 for CPU %); else the data's maximum, rounded up."""
        self.xmax: float | None = None
        """A fixed end of the x axis (charts side by side share it); else the data's last x."""
        self.lines: list[Line] = []
        self._legend: list[tuple[str, RGB]] = []

    def set_lines(self, lines: Sequence[Line], xmax: float | None = None) -> None:
        """Show ``lines`` (copied: the caller may go on appending); no redraw if they did not change."""
        fresh = [Line(line.label, tuple(line.xs), tuple(line.ys)) for line in lines]
        if fresh != self.lines or xmax != self.xmax:
            self.lines = fresh
            self.xmax = xmax
            self.redraw()

    def draw(self) -> None:
        plt = self.plt
        palette = theme_palette(self)
        legend: list[tuple[str, RGB]] = []
        highest, last = 0.0, 0.0
        for i, line in enumerate(self.lines):
            xs, ys = finite_points(line.xs, line.ys)
            if not ys:
                continue
            highest, last = max(highest, *ys), max(last, xs[-1])
            xs, ys = thin(xs, ys, self.size.width)
            colour = palette[i % len(palette)]
            plt.plot(xs, ys, color=colour, marker="hd")
            legend.append((line.label, colour))
        self._legend = legend
        rows = max(2, (self.size.height - 6) // 2)
        top = self.ymax if self.ymax is not None else highest
        yticks = round_ticks(0.0, top if top > 0 else 1.0, min(5, rows))
        plt.ylim(0, yticks[-1])
        plt.yticks(yticks, [fmt_tick(v) for v in yticks])
        end = self.xmax if self.xmax is not None else last
        xticks = round_ticks(0.0, end if end > 0 else 1.0, max(2, self.size.width // 12))
        plt.xlim(0, xticks[-1])
        plt.xticks(xticks, [fmt_tick(v) for v in xticks])
        plt.title(self.chart_title if legend else f"{self.chart_title}: no samples")
        plt.xlabel(self.xlabel)

    def _set_up(self) -> None:
        super()._set_up()
        if self.lines:  # the last line is the legend's
            width, height = self.size
            self.plt.plotsize(width, max(1, height - 1))
            self.plt._set_size(width, max(1, height - 1))

    def _build_strips(self) -> list[Strip]:
        strips = super()._build_strips()
        if not self.lines:
            return strips
        base = self.visual_style.rich_style
        segments = [Segment(" ", base)]
        for label, (r, g, b) in self._legend:
            segments.append(Segment("━", base + RichStyle(color=f"rgb({r},{g},{b})")))
            segments.append(Segment(f"{label}  ", base))
        return [*strips, Strip(segments).adjust_cell_length(self.size.width, base)]


def finite_points(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[list[float], list[float]]:
    """The points whose y is a finite number (most often all of them: checked in C, at once)."""
    n = min(len(xs), len(ys))
    x, y = list(xs[:n]), list(ys[:n])
    if None not in y and math.isfinite(sum(cast(list[float], y))):
        return x, cast(list[float], y)
    keep = [(px, py) for px, py in zip(x, y, strict=True) if py is not None and math.isfinite(py)]
    return [p[0] for p in keep], [p[1] for p in keep]


def thin(xs: list[float], ys: list[float], buckets: int) -> tuple[list[float], list[float]]:
    """The points cut to the lowest and the highest of each of ``buckets`` equal x ranges.

    Untouched up to ``2 * buckets`` points, or if ``xs`` is not in order. A chart ``buckets``
    cells wide draws much the same lines from these (the first and last points stay, and the
    peaks): plotext's work grows with the points, an hour of 1 s samples cost ~75 ms a chart.
    """
    n = len(xs)
    if buckets < 1 or n <= 2 * buckets or not xs[-1] > xs[0] or xs != sorted(xs):
        return xs, ys
    lo, step = xs[0], (xs[-1] - xs[0]) / buckets
    keep = {0, n - 1}
    start = 0
    for b in range(1, buckets + 1):
        end = bisect_left(xs, lo + b * step, start) if b < buckets else n
        if end > start:
            part = ys[start:end]
            keep.update((start + part.index(min(part)), start + part.index(max(part))))
            start = end
    kept = sorted(keep)
    return [xs[i] for i in kept], [ys[i] for i in kept]
