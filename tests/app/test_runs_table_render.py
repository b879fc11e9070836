"""RunsTable draws a row's plain one-line cells itself (the first frame's 352 cells took 18-25
ms through Rich): every cell, cut or not, under the cursor or the mouse, in a fixed column or
not, must come out as Textual's DataTable draws it, segment style for segment style."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from benchdeck.tui.app.screens.runs_table import COLUMNS, RunsTable, cell_line, cell_texts

ROWS = [
    ["*7", "dell32", "my8040_rel_o2nofp", "update-index_range=100", "51,234.5", "ok", "24", "c32r128",
     "2026-11-01 10:00", "a, b", "cancelled: the user pressed x while it ran and much more"],
    ["8", "h", "ma100244_rel_withdbg", "point-query", "-", "failed", "", "", "", "", "é漢字 wide"],
    ["123456", "hetz", "noversion", "scan.warm", "1.0", "running", "1", "cfg", "d", "x" * 30, ""],
]  # fmt: skip


class Table(App[None]):
    def compose(self) -> ComposeResult:
        yield RunsTable(cursor_type="row")


def drawn(lines: list[list[Segment]]) -> list[list[tuple[str, Style | None]]]:
    """Each character with its style (however the segments are cut)."""
    return [[(ch, seg.style) for seg in line for ch in seg.text] for line in lines]


async def test_cells_drawn_here_are_what_textual_draws() -> None:
    app = Table()
    async with app.run_test(size=(100, 10)) as pilot:
        table = app.query_one(RunsTable)
        for name, width in zip(COLUMNS, (3, 4, 7, 22, 8, 2, 3, 7, 16, 1, 12), strict=True):
            table.add_column(name, width=width, key=name)
        for i, row in enumerate(ROWS):
            table.add_row(*cell_texts(row), key=str(i))
        table.fixed_columns = 1
        await pilot.pause()
        base = Style(color="white", bgcolor="black")
        compared = 0
        for width_extra in (0, -5, 3):  # the column's width, cut further, wider
            for r in range(len(ROWS)):
                for c, column in enumerate(table.ordered_columns):
                    width = max(0, column.get_render_width(table) + width_extra)
                    for cursor, hover in ((False, False), (True, False), (False, True), (True, True)):
                        table._cell_render_cache.clear()
                        mine = table._render_cell(r, c, base, width, cursor, hover)
                        table._cell_render_cache.clear()
                        textual = DataTable._render_cell(table, r, c, base, width, cursor, hover)
                        assert drawn(mine) == drawn(textual), (ROWS[r][c], width, cursor, hover)
                        compared += 1
        assert compared == 3 * len(ROWS) * len(COLUMNS) * 4
        natural = [column.get_render_width(table) - 2 for column in table.ordered_columns]
        direct = [
            cell_line(cell, w) for row in ROWS for cell, w in zip(cell_texts(row), natural, strict=True)
        ]
        assert None not in direct, "every cell of a run is drawn here, none by Rich"
        # ... the empty ones too, as the table holds them (its own empty Text, not ours)
        held = [table._get_row_renderables(r).cells for r in range(len(ROWS))]
        assert None not in [cell_line(cell, w) for row in held for cell, w in zip(row, natural, strict=True)]
