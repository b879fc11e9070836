"""A table wider than its view that the keys scroll sideways a column at a time.

A ``DataTable`` without a cursor scrolls one cell per ← →, and only when focused: the Noise tab's
rQPS, interval and reason sat past the edge at 80 and 100 columns with no key that reached them,
as did Triage's counters and scaling columns at 100 (its row cursor moves up and down only).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class WideTable(DataTable[object]):
    """A table (cursorless, or with a row cursor); ← → bring the next or previous column to its
    left edge."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "side(1)", "Scroll", key_display="← →", tooltip="Scroll the table sideways"),
        Binding("left", "side(-1)", "Scroll left", show=False),
    ]

    def __init__(self, *, id: str | None = None, cursor_type: Literal["none", "row"] = "none") -> None:
        super().__init__(id=id, zebra_stripes=True, cursor_type=cursor_type)
        self._wide = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """← → are offered (and shown) only while the table is wider than its view."""
        return self._wide if action == "side" else True

    def watch_virtual_size(self) -> None:
        self.call_after_refresh(self._check_wide)

    def on_resize(self) -> None:
        self.call_after_refresh(self._check_wide)

    def _check_wide(self) -> None:
        wide = self.max_scroll_x > 0
        if wide != self._wide:
            self._wide = wide
            self.refresh_bindings()

    def column_starts(self) -> list[int]:
        """Where each column begins, in cells from the table's left edge."""
        starts, x = [], 0
        for column in self.columns.values():
            starts.append(x)
            x += column.get_render_width(self)
        return starts

    def action_side(self, step: int) -> None:
        x = round(self.scroll_x)
        starts = [s for s in self.column_starts() if s <= self.max_scroll_x] or [0]
        if step > 0:
            target = next((s for s in starts if s > x), self.max_scroll_x)
        else:
            target = next((s for s in reversed(starts) if s < x), 0)
        self.scroll_to(x=target, animate=False)
