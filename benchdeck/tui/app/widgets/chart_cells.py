"""plotext's character matrix as Textual strips: one Rich style per plotext colour triple.

The style of a cell is what ``Text.from_ansi`` and Textual's ``Content`` give plotext's ANSI
text for it; the charts skip that text (see :class:`tui.widgets.charts.ThemedPlot`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from plotext._utility import colors_to_ansi
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.strip import Strip
from textual.style import Style

CellKey = tuple[Hashable, Hashable, Hashable]
"""plotext's colours of a cell: (foreground, style, background)."""


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
    return [
        cell_runs(
            matrix.marker[r],
            list(zip(matrix.fullground[r], matrix.style[r], matrix.background[r], strict=True)),
        )
        for r in reversed(range(matrix.rows))
    ]


def cell_runs(chars: Sequence[str], keys: Sequence[CellKey]) -> list[tuple[str, CellKey]]:
    """One row of cells as (text, colours) runs of cells with the same colours."""
    runs: list[tuple[str, CellKey]] = []
    if keys:
        start, key = 0, keys[0]
        for col in range(1, len(keys)):
            if keys[col] != key:
                runs.append(("".join(chars[start:col]), key))
                start, key = col, keys[col]
        runs.append(("".join(chars[start:]), key))
    return runs


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


def cell_styles(base: Style, ansi_theme: TerminalTheme) -> CellStyles:
    """The cell styles over ``base``, shared by all charts (a few themes, a few widget styles)."""
    styles = _CELL_STYLES.get((base, ansi_theme))
    if styles is None:
        if len(_CELL_STYLES) > 64:
            _CELL_STYLES.clear()
        styles = _CELL_STYLES[base, ansi_theme] = CellStyles(base, ansi_theme)
    return styles


class Frame:
    """plotext's chart without lines: its cells, its canvas (in cells) and its strips."""

    def __init__(self, matrix: Any) -> None:
        self.markers: list[list[str]] = [list(row) for row in matrix.marker]
        self.keys: list[list[CellKey]] = [
            list(zip(fg, st, bg, strict=True))
            for fg, st, bg in zip(matrix.fullground, matrix.style, matrix.background, strict=True)
        ]
        self.col0, self.row0 = matrix.Cols_canvas.start, matrix.Rows_canvas.start
        self.width, self.height = len(matrix.Cols_canvas), len(matrix.Rows_canvas)
        self._strips: tuple[CellStyles, RichStyle, int, list[Strip]] | None = None

    def strips(self, styles: CellStyles, blank: RichStyle, width: int) -> list[Strip]:
        """The frame's lines, top first (kept for the same styles and width)."""
        done = self._strips
        if done is None or done[0] is not styles or done[1:3] != (blank, width):
            strips = [
                Strip([Segment(text, styles[k]) for text, k in cell_runs(chars, keys)]).adjust_cell_length(
                    width, blank
                )
                for chars, keys in zip(reversed(self.markers), reversed(self.keys), strict=True)
            ]
            done = self._strips = (styles, blank, width, strips)
        return done[3]
