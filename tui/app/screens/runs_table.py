"""The Runs screen's table: its columns, a run's cells, and a DataTable that never measures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from benchdeck.store.queries import HistoryRow

COLUMNS = ("run", "host", "build", "workload", "QPS", "status", "dop", "config", "date", "tags", "reason")
REASON_WIDTH = 60  # the reason column's first line, cut; the status line shows it whole


def reason(run: HistoryRow) -> str:
    """Why a run failed or was cancelled: the first line of its error, cut to the column."""
    first = run.reason or ""
    return first if len(first) <= REASON_WIDTH else first[: REASON_WIDTH - 1] + "…"


def run_cells(r: HistoryRow, marked: Sequence[int]) -> list[str]:
    """A run's row as text, one string per column of :data:`COLUMNS`."""
    return [
        f"*{r.run_id}" if r.run_id in marked else str(r.run_id),
        r.host,
        r.build,
        r.workload,
        f"{r.qps:,.1f}" if r.qps is not None else "-",
        r.status,
        str(r.threads) if r.threads is not None else "",
        r.config,
        r.when,
        ", ".join(r.tags),
        reason(r),
    ]


def widths(cells: Sequence[Sequence[str]]) -> list[int]:
    """Each column's width for these rows (at least its name's)."""
    columns = list(zip(*cells, strict=True)) if cells else [() for _ in COLUMNS]
    return [max([len(name), *map(len, column)]) for name, column in zip(COLUMNS, columns, strict=True)]


class RunsTable(DataTable[object]):
    """The runs table: every column has its width given and every row is one line, so a new
    row need not be measured. (Textual measures each cell of each new row, ~30 µs apiece: the
    11,000 cells of 1,000 runs held the first frame back ~0.1-0.3 s.)

    End (and ctrl+end, G on the screen) go to the last run that matches, not the last row
    read: the screen reads the pages still missing first.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end,ctrl+end", "screen.last_run", "Last run", show=False),
    ]

    def widen(self, cells: Sequence[Sequence[str]]) -> None:
        """Make the columns wide enough for these rows too (a later page's longer values)."""
        changed = False
        for column, width in zip(self.ordered_columns, widths(cells), strict=True):
            if width > column.width:
                column.width = width
                changed = True
        if changed:
            self._clear_caches()
            self._require_update_dimensions = True
            self.refresh()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        # Textual 8.x's DataTable: this measures new cells into the columns' content widths,
        # which only auto-width columns use, then sizes the virtual area.
        fixed = not any(c.auto_width for c in self.columns.values())
        rows = [self.rows.get(k) for k in new_rows]
        if not fixed or any(r is not None and (r.height != 1 or r.label is not None) for r in rows):
            super()._update_dimensions([r.key for r in rows if r is not None])
            return
        header_height = self.header_height if self.show_header else 0
        width = sum(c.get_render_width(self) for c in self.columns.values()) + self._row_label_column_width
        self.virtual_size = Size(width, self._total_row_height + header_height)
