"""An icicle flame graph in the terminal: a row per stack depth (callers above callees), a
frame's width by its samples; the cursor on a frame, Enter zooms into it, Esc zooms out, a
search highlights the frames whose name holds the text.

Colours: frames in the theme's surface shades by a hash of the name; in the differential view
the theme's rQPS colours by how the frame's own CPU per query changed (rqps-bad: grew, i.e.
slower; rqps-good: shrank; neutral within ``SAME``). The layout is tui/app/state/icicle.py.
"""

from __future__ import annotations

import zlib
from typing import ClassVar, Self

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from benchdeck.engine.profiling.tree import Frame
from benchdeck.tui.app.state.icicle import Cell, delta_self, layout, move
from benchdeck.tui.app.widgets.rqps import RqpsColours

SAME = 0.02  # |change| under 2% of the largest change (us/q) draws neutral


class FlameGraph(Widget, can_focus=True):
    """The icicle of a frame tree (set with :meth:`show`)."""

    DEFAULT_CSS = """
    FlameGraph { height: 1fr; min-height: 4; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move('up')", "Caller", show=False),
        Binding("down", "move('down')", "Callee", show=False),
        Binding("left", "move('left')", "Left", show=False),
        Binding("right", "move('right')", "Right", show=False),
        Binding("enter", "zoom", "Zoom", id="flame.zoom", tooltip="Zoom into the frame"),
    ]

    class Selected(Message):
        """The cursor moved to ``frame``."""

        def __init__(self, frame: Frame) -> None:
            super().__init__()
            self.frame = frame

    class Zoomed(Message):
        """The graph now starts at ``frame`` (the root: not zoomed)."""

        def __init__(self, frame: Frame | None) -> None:
            super().__init__()
            self.frame = frame

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root: Frame | None = None
        self.zoom_stack: list[Frame] = []
        self.cursor: Frame | None = None
        self.differential = False
        self.search = ""
        self.colours = RqpsColours("#E5534B", "#57AB5A", "#8B949E")
        self._scale = 0.0
        self._rows: list[list[Cell]] = []
        self._strips: list[Strip] | None = None
        self._strips_key: tuple[Size, Style] | None = None

    @property
    def zoomed(self) -> Frame | None:
        return self.zoom_stack[-1] if self.zoom_stack else self.root

    def show(self, root: Frame | None, differential: float | None, colours: RqpsColours) -> None:
        """Draw ``root``; ``differential``: the change of self CPU per query drawn in full colour
        (the largest of a function's, worked out in a worker), None for the plain view."""
        self.root = root
        self.zoom_stack = []
        self.cursor = root
        self.differential = differential is not None
        self.colours = colours
        self._scale = differential or 0.0
        self.refresh()
        self.post_message(self.Zoomed(root))
        if root is not None:
            self.post_message(self.Selected(root))

    def set_search(self, text: str) -> None:
        self.search = text.lower()
        self.refresh()

    def zoom_out(self) -> bool:
        """One zoom level back; False when not zoomed."""
        if not self.zoom_stack:
            return False
        self.cursor = self.zoom_stack.pop()
        self.refresh()
        self.post_message(self.Zoomed(self.zoomed))
        return True

    def action_zoom(self) -> None:
        if self.cursor is not None and self.cursor is not self.zoomed and self.cursor.samples > 0:
            self.zoom_stack.append(self.cursor)
            self.refresh()
            self.post_message(self.Zoomed(self.cursor))

    def action_move(self, direction: str) -> None:
        if self.cursor is None:
            return
        target = move(self._rows, self.cursor, direction)
        zoomed = self.zoomed
        if direction == "up" and target is not self.cursor and self.cursor is zoomed and self.zoom_stack:
            self.zoom_out()  # up from the zoomed frame: zoom out to its caller
            target = self.cursor
        if target is not self.cursor:
            self.cursor = target
            self.refresh()
        self.post_message(self.Selected(self.cursor))

    def refresh(self, *regions: Region, **kwargs: bool) -> Self:
        self._strips = None  # every change of what is drawn goes through here (and resizes)
        return super().refresh(*regions, **kwargs)

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the icicle, as segments (Textual's line API): a frame's cells are
        already laid out, so going through a Rich ``Text`` (Textual re-parses it into its
        ``Content`` and wraps it) took twice the layout's time (bench/bench_profile.py)."""
        key = (self.size, self.visual_style.rich_style)  # a resize or a theme change redraws
        if self._strips is None or self._strips_key != key:
            self._strips, self._strips_key = self._make_strips(), key
        if y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)

    def _make_strips(self) -> list[Strip]:
        zoomed = self.zoomed
        width, height = self.size.width, self.size.height
        base = self.visual_style.rich_style
        if zoomed is None:
            self._rows = []
            return [Strip([Segment("no profile"[:width].ljust(width), base + Style(dim=True))], width)]
        self._rows = layout(zoomed, width, height)
        return [Strip(self._line(row, width, base), width) for row in self._rows]

    def _line(self, row: list[Cell], width: int, base: Style) -> list[Segment]:
        out: list[Segment] = []
        x = 0
        for cell in row:
            if cell.x0 > x:
                out.append(Segment(" " * (cell.x0 - x), base))
            w = cell.x1 - cell.x0
            name = cell.frame.name
            label = name if len(name) <= w else (name[: w - 1] + "…" if w > 1 else "")
            out.append(Segment(label.ljust(w), base + self._style(cell.frame)))
            x = cell.x1
        if x < width:
            out.append(Segment(" " * (width - x), base))
        return out

    def _style(self, f: Frame) -> Style:
        bg = self._diff_colour(f) if self.differential else _warm(f.name)
        fg = Color.parse(bg).get_contrast_text().hex6
        hit = bool(self.search) and self.search in f.name.lower()
        return Style(
            color=fg,
            bgcolor=bg if not hit else "#D33682",
            bold=f is self.cursor or hit,
            reverse=f is self.cursor,
            underline=hit,
        )

    def _diff_colour(self, f: Frame) -> str:
        d = delta_self(f)
        if self._scale <= 0 or abs(d) < SAME * self._scale:
            return Color.parse(self.colours.neutral).blend(Color(40, 40, 40), 0.5).hex6
        strength = min(1.0, abs(d) / self._scale)
        target = Color.parse(self.colours.bad if d > 0 else self.colours.good)
        return Color(60, 60, 60).blend(target, 0.35 + 0.65 * strength).hex6


def _warm(name: str) -> str:
    """A warm colour by a hash of the name, as flamegraph.pl's palette, dimmed for a terminal."""
    v = zlib.crc32(name.encode()) & 0xFFFF
    r = 180 + (v % 60)
    g = 70 + (v >> 8) % 120
    return f"#{r:02x}{g:02x}{40 + (v % 30):02x}"
