"""textual-plotext charts that follow the app theme: line charts of a run's samples.

Each chart owns its own plotext ``Plot`` (never the global module) and redraws its data with
the theme's colours whenever the theme changes. Charts are drawn through Textual's Line API
from plotext's character matrix (see :class:`ThemedPlot`), not from the ANSI text plotext
prints: the Live screen redraws six of them every second.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from plotext._utility import no_color
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import RenderResult
from textual.color import Color
from textual.geometry import Region
from textual.strip import Strip
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from benchdeck.tui.app.widgets.chart_cells import Frame, build_matrix, cell_runs, cell_styles, matrix_rows
from benchdeck.tui.app.widgets.chart_raster import Envelope, same_prefix, seq_key

RGB = tuple[int, int, int]


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


def fit_title(title: str, note: str | None, width: int) -> str:
    """The title (and ``note``) in ``width`` cells: plotext drops a title that does not fit, so
    the note goes first, then the title's end (an ellipsis says so)."""
    full = f"{title}: {note}" if note else title
    if len(full) <= width:
        return full
    if len(title) <= width:
        return title
    return title[: max(0, width - 1)] + "…"


def theme_foreground(plot: PlotextPlot) -> RGB:
    theme = plot.app.current_theme
    return Color.parse(theme.foreground or ("#E0E0E0" if theme.dark else "#1F2328")).rgb


@dataclass(frozen=True, slots=True)
class Line:
    """A line: ``ys[i] * scale`` at ``xs[i]`` (a missing or non-finite y is left out)."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    scale: float = 1.0


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
        self._checked = False  # in render_lines: _strips are current
        self.builds = 0
        """How many times the plot was built (for tests and benchmarks)."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def _theme_changed(self) -> None:
        """Draw again at the next refresh, once textual-plotext knows the theme's colours."""
        self._version += 1
        self.refresh()

    def redraw(self) -> None:
        """Draw again (new data): at once if the plot shows already, then repaint only the
        lines that changed (a second more of an hour moves a few cells); else at its refresh."""
        self._version += 1
        if not self.is_mounted:
            return
        size, old = self.size, self._strips
        if self._strips_key is None or self._strips_key[1] != size or not size.area:
            self.refresh()
            return
        new = self._rendered()
        if len(new) != len(old):
            self.refresh()
            return
        changed = [
            Region(0, y, size.width, 1) for y, (a, b) in enumerate(zip(old, new, strict=True)) if a != b
        ]
        if changed:
            self.refresh(*changed)

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

    def render_lines(self, crop: Region) -> list[Strip]:
        """The strips are checked (and built) once per render, not once per line."""
        self._rendered()
        self._checked = True
        try:
            return super().render_lines(crop)
        finally:
            self._checked = False

    def render_line(self, y: int) -> Strip:
        strips = self._strips if self._checked else self._rendered()
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
        styles = cell_styles(base, self.app.ansi_theme)
        blank, width = base.rich_style, self.size.width
        return [
            Strip([Segment(text, styles[key]) for text, key in runs]).adjust_cell_length(width, blank)
            for runs in matrix_rows(matrix)
        ]


class LineChart(ThemedPlot):
    """Lines over time (seconds), y from 0; ticks at round numbers; the legend on the last line,
    below the plot (never over it).

    Drawn as plotext draws it, cell for cell, at a cost bounded by the chart's size: plotext
    draws the frame (axes, ticks, title), kept while they stay; the lines are reduced to what
    shows of them per canvas column and lit by :mod:`tui.widgets.chart_raster`, taking in only
    the points appended since the last draw.
    """

    ENVELOPES = 128
    """Lines whose reduction a chart keeps (the hosts' runs a user switches between)."""

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
        self._counts: list[int] = []  # the points of each line shown: its length when set
        self._legend: list[tuple[str, RGB]] = []
        self._envelopes: OrderedDict[Hashable, Envelope] = OrderedDict()
        self._frames: OrderedDict[tuple[object, ...], Frame] = OrderedDict()
        self._frame_plt: Plot | None = None

    def set_lines(self, lines: Sequence[Line], xmax: float | None = None) -> None:
        """Show ``lines``, each as long as it is now; no redraw if they did not change.

        A line's sequences may go on growing by appending (a live run's samples) and be set
        again: the chart takes in the new points only. Any other change needs new sequences.
        """
        counts = [min(len(line.xs), len(line.ys)) for line in lines]
        if xmax != self.xmax or not _same_lines(self.lines, self._counts, lines, counts):
            self.lines, self._counts, self.xmax = list(lines), counts, xmax
            self.redraw()

    def _envelope(self, line: Line, n: int) -> Envelope:
        """The line's reduction, up to date with its first ``n`` points."""
        key = (seq_key(line.xs), id(line.ys), line.scale)
        env = self._envelopes.pop(key, None)
        if env is None or n < env.n or env.ys is not line.ys:
            env = Envelope(line.xs, line.ys, line.scale)
        env.sync(line.xs, line.ys, n)
        if not (isinstance(line.xs, tuple) and isinstance(line.ys, tuple)):  # may grow: keep
            self._envelopes[key] = env
            while len(self._envelopes) > self.ENVELOPES:
                self._envelopes.popitem(last=False)
        return env

    def _layout(self) -> Layout:
        """Which lines show (their envelopes and colours), the ticks, the title."""
        palette = theme_palette(self)
        drawn: list[tuple[Envelope, RGB]] = []
        legend: list[tuple[str, RGB]] = []
        highest, last = 0.0, 0.0
        for i, (line, n) in enumerate(zip(self.lines, self._counts, strict=True)):
            env = self._envelope(line, n)
            if not env.count:
                continue
            highest, last = max(highest, env.highest), max(last, env.last_x)
            colour = palette[i % len(palette)]
            drawn.append((env, colour))
            legend.append((line.label, colour))
        self._legend = legend
        rows = max(2, (self.size.height - 6) // 2)
        top = self.ymax if self.ymax is not None else highest
        yticks = round_ticks(0.0, top if top > 0 else 1.0, min(5, rows))
        end = self.xmax if self.xmax is not None else last
        xticks = round_ticks(0.0, end if end > 0 else 1.0, max(2, self.size.width // 12))
        title = fit_title(self.chart_title, None if legend else "no samples", self.size.width - 2)
        return Layout(drawn, tuple(yticks), tuple(xticks), title)

    def _axes(self, plt: Any, layout: Layout) -> None:
        plt.ylim(0, layout.yticks[-1])
        plt.yticks(list(layout.yticks), [fmt_tick(v) for v in layout.yticks])
        plt.xlim(0, layout.xticks[-1])
        plt.xticks(list(layout.xticks), [fmt_tick(v) for v in layout.xticks])
        plt.title(layout.title)
        plt.xlabel(self.xlabel)

    def _plot_size(self) -> tuple[int, int]:
        width, height = self.size
        return width, max(1, height - 1) if self.lines else height  # the last line is the legend's

    def draw(self) -> None:
        """plotext's own drawing (``render``, text selection): the reduced lines, the same chart."""
        plt = self.plt
        layout = self._layout()
        frame = self._frame(layout) if layout.drawn else None
        for env, colour in layout.drawn:
            assert frame is not None
            xs, ys = env.points(0.0, layout.xticks[-1], 2 * frame.width)
            plt.plot(xs, ys, color=colour, marker="hd")
        self._axes(plt, layout)

    def _set_up(self) -> None:
        super()._set_up()
        width, height = self._plot_size()
        self.plt.plotsize(width, height)
        self.plt._set_size(width, height)

    def _frame(self, layout: Layout) -> Frame:
        """plotext's chart without the lines (cached): an empty line keeps the axes drawn."""
        width, height = self._plot_size()
        theme = self._get_plotext_theme_name(self.app.theme)
        key = (width, height, theme, layout.yticks, layout.xticks, layout.title, self.xlabel)
        frame = self._frames.pop(key, None)
        if frame is None:
            if self._frame_plt is None:
                self._frame_plt = Plot()
            plt = self._frame_plt
            plt.clear_data()
            plt.plot([], [], marker="hd")
            self._axes(plt, layout)
            plt.plotsize(width, height)
            plt._set_size(width, height)
            plt.theme(theme)
            frame = Frame(build_matrix(plt))
        self._frames[key] = frame
        while len(self._frames) > 8:
            self._frames.popitem(last=False)
        return frame

    def _build_strips(self) -> list[Strip]:
        layout = self._layout()
        if not layout.drawn:  # nothing to draw: plotext's chart as it is
            strips = super()._build_strips()
        else:
            self.builds += 1
            strips = self._draw_lines(layout)
        if not self.lines:
            return strips
        base = self.visual_style.rich_style
        segments = [Segment(" ", base)]
        for label, (r, g, b) in self._legend:
            segments.append(Segment("━", base + RichStyle(color=f"rgb({r},{g},{b})")))
            segments.append(Segment(f"{label}  ", base))
        return [*strips, Strip(segments).adjust_cell_length(self.size.width, base)]

    def _draw_lines(self, layout: Layout) -> list[Strip]:
        """The frame's strips, the rows the lines cross drawn again with their cells."""
        frame = self._frame(layout)
        xend, yend = layout.xticks[-1], layout.yticks[-1]
        cells: dict[tuple[int, int], tuple[str, RGB]] = {}
        if frame.width > 0 and frame.height > 0:
            for env, colour in layout.drawn:  # a later line over an earlier one, as in plotext
                raster = env.raster((0.0, xend, 2 * frame.width), (0.0, yend, 2 * frame.height))
                for cell, char in raster.cells().items():
                    cells[cell] = (char, colour)
        base = self.visual_style
        styles = cell_styles(base, self.app.ansi_theme)
        blank, width = base.rich_style, self.size.width
        strips = frame.strips(styles, blank, width)
        if not cells:
            return strips
        by_row: dict[int, list[tuple[int, str, RGB]]] = {}
        for (x, y), (char, colour) in cells.items():
            by_row.setdefault(y, []).append((x, char, colour))
        strips = list(strips)
        top = len(frame.markers) - 1
        for y, row_cells in by_row.items():
            row = frame.row0 + y  # plotext's rows count from the bottom
            chars, keys = list(frame.markers[row]), list(frame.keys[row])
            for x, char, colour in row_cells:
                col = frame.col0 + x
                chars[col] = char
                keys[col] = (colour, no_color, keys[col][2])
            strips[top - row] = Strip(
                [Segment(text, styles[key]) for text, key in cell_runs(chars, keys)]
            ).adjust_cell_length(width, blank)
        return strips


@dataclass(frozen=True, slots=True)
class Layout:
    """What a chart draws this time: its lines with data (and their colours), ticks, title."""

    drawn: list[tuple[Envelope, RGB]]
    yticks: tuple[float, ...]
    xticks: tuple[float, ...]
    title: str


def _same_lines(old: list[Line], old_n: list[int], new: Sequence[Line], new_n: list[int]) -> bool:
    return old_n == new_n and all(
        a.label == b.label
        and a.scale == b.scale
        and same_prefix(a.xs, b.xs, n)
        and same_prefix(a.ys, b.ys, n)
        for a, b, n in zip(old, new, new_n, strict=True)
    )
