"""The Runs screen's table: its columns, a run's cells, and a DataTable that never measures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from benchdeck.engine.config_names import config_label
from benchdeck.store.storage.run_lists import HistoryRow

COLUMNS = ("run", "host", "build", "workload", "QPS", "status", "date", "dop", "config", "tags", "reason")
CLUSTER_COLUMNS = ("cluster", "flag")
"""After ``status`` when the store has runs on a cluster (issue 41): the cluster, and ``lag > 10 s;
1 fault(s)`` for a run whose replicas fell behind past its limit or whose nodes failed."""
REASON_WIDTH = 60  # the reason column's first line, cut; the status line shows it whole
SHRINK = (("build", 14), ("workload", 16))  # cut first (down to these widths) to keep QPS and status in view
NARROW = (("build", 10), ("workload", 12))  # the floors where SHRINK's leave QPS past the edge (60 columns)
PADDING = 2  # a DataTable cell's padding, one each side
SCROLLBAR = 2  # the vertical scrollbar's width


def reason(run: HistoryRow) -> str:
    """Why a run failed or was cancelled: the first line of its error, cut to the column."""
    first = run.reason or ""
    return first if len(first) <= REASON_WIDTH else first[: REASON_WIDTH - 1] + "…"


def short_when(r: HistoryRow, year: int) -> str:
    """A run's date as the table shows it: ``11-29 08:12`` in ``year`` (this year), else with
    its year (``2025-11-21 04:38``). Five cells fewer keep it whole at 100 columns."""
    return r.when[5:] if r.created_at.year == year else r.when


def columns_for(clusters: bool) -> tuple[str, ...]:
    """The table's columns: :data:`COLUMNS`, with :data:`CLUSTER_COLUMNS` after ``status`` when
    the store has runs on a cluster."""
    if not clusters:
        return COLUMNS
    at = COLUMNS.index("status") + 1
    return (*COLUMNS[:at], *CLUSTER_COLUMNS, *COLUMNS[at:])


def run_cells(
    r: HistoryRow, marked: Sequence[int], year: int | None = None, clusters: bool = False
) -> list[str]:
    """A run's row as text, one string per column of :func:`columns_for` (dates of ``year``,
    this year by default, without their year)."""
    cells = _cells(r, marked, year)
    if clusters:
        at = COLUMNS.index("status") + 1
        cells[at:at] = [r.cluster or "", r.flag]
    return cells


def _cells(r: HistoryRow, marked: Sequence[int], year: int | None) -> list[str]:
    return [
        f"*{r.run_id}" if r.run_id in marked else str(r.run_id),
        r.host,
        r.build,
        r.workload,
        f"{r.qps:,.1f}" if r.qps is not None else "-",
        r.status,
        short_when(r, datetime.now().year if year is None else year),
        str(r.threads) if r.threads is not None else "",
        config_label(r.config),
        ", ".join(r.tags),
        reason(r),
    ]


def cluster_status(r: HistoryRow) -> str:
    """The status line's words on a selected run on a cluster: ``run 4 on loop3: lag max 15.2 s,
    lag > 10 s; 1 fault(s)``."""
    lag = f"lag max {r.lag_max_s:.1f} s" if r.lag_max_s is not None else "no lag measured"
    return f"run {r.run_id} on {r.cluster}: {lag}" + (f", {r.flag}" if r.flag else "")


def widths(cells: Sequence[Sequence[str]], names: Sequence[str] = COLUMNS) -> list[int]:
    """Each column's width for these rows (at least its name's)."""
    columns = list(zip(*cells, strict=True)) if cells else [() for _ in names]
    return [max([len(name), *map(len, column)]) for name, column in zip(names, columns, strict=True)]


FIT_TARGETS = (
    ("date", SHRINK),
    ("flag", SHRINK),
    ("cluster", SHRINK),
    ("status", SHRINK),
    ("status", NARROW),
    ("QPS", NARROW),
)
"""The last column :func:`fitted` tries to keep in view, and the floors of the names it cuts, in
turn (``flag`` and ``cluster``: only when the table has them)."""


def fitted(natural: Sequence[int], room: int, names: Sequence[str] = COLUMNS) -> list[int]:
    """Widths that keep the columns up to ``status`` within ``room`` cells: the build, then the
    workload column is narrowed (its names cut in the middle, down to a floor); the columns after
    ``status`` stay as they are (scrolled to). At 80 columns the author's names
    (``ma100244_rel_withdbg``, ``update-index_range=100``) pushed QPS past the edge. Where even
    that is too wide (60 columns), the names go down to :data:`NARROW` and the columns up to QPS
    are kept in view (its decimals were cut at the edge). Where the date (after ``status``) fits
    by the same cuts (100 columns), it is kept whole: it was cut to ``2026-11-29 08``. A cluster's
    columns (after ``status``) are kept in view where they fit."""
    out = list(natural)
    for last, floors in FIT_TARGETS:
        if last not in names:
            continue
        out = list(natural)
        over = sum(w + PADDING for w in out[: names.index(last) + 1]) + SCROLLBAR - room
        for name, floor in floors:
            i = names.index(name)
            cut = max(0, min(over, out[i] - floor))
            out[i] -= cut
            over -= cut
        if over <= 0:
            break
    return out


class MiddleCut(Text):
    """A name cut in its middle when its column is narrower (``my8040…o2nofp``): a build's
    version and variant, a workload's name and range stay readable. ``plain`` stays whole."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        width = options.max_width
        if self.cell_len <= width or width < 3:
            yield from super().__rich_console__(console, options)
            return
        plain = self.plain
        head = self.head(width)
        tail = width - 1 - head
        cut = Text(plain[:head] + "…" + plain[len(plain) - tail :], style=self.style, no_wrap=True, end="")
        yield from cut.__rich_console__(console, options)

    def head(self, width: int) -> int:
        """How many characters to keep before the "…"."""
        return (width - 1) // 2

    def cut(self, width: int) -> str:
        """The text shown in ``width`` cells (as :meth:`__rich_console__` draws it, unpadded)."""
        plain = self.plain
        if self.cell_len <= width or width < 3:
            return plain
        head = self.head(width)
        return plain[:head] + "…" + plain[len(plain) - (width - 1 - head) :]


class BuildCut(MiddleCut):
    """A build name cut after its version (``my8040…_o2nofp``): the version whole, then as
    much of the variant's end as fits."""

    def head(self, width: int) -> int:
        plain = self.plain
        return min(plain.index("_"), width - 6) if "_" in plain else super().head(width)


def cell_line(cell: object, width: int) -> str | None:
    """A one-line cell of :func:`cell_texts` as the ``width`` cells Rich draws it (unpadded),
    or None for anything else (Rich draws it)."""
    if type(cell) not in (Text, MiddleCut, BuildCut):
        return None
    assert isinstance(cell, Text)
    if not cell.plain and not cell.spans and not cell.style:  # an empty cell (DataTable's own
        return " " * max(width, 0)  # empty Text: no tags, no reason): blank, as Rich draws it
    if cell.spans or cell.style or not cell.no_wrap or "\n" in cell.plain:
        return None
    if isinstance(cell, MiddleCut):
        text = cell.cut(width) if width >= 3 else cell.plain
        return set_cell_size(text, width)
    if cell.overflow != "ellipsis" or cell.justify not in ("left", "right"):
        return None
    text = cell.plain
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…" if width > 0 else ""
    pad = " " * (width - cell_len(text))
    return pad + text if cell.justify == "right" else text + pad


def cell_texts(row: Sequence[str]) -> list[Text]:
    """A row's cells as Text: QPS right-aligned, build and workload cut in the middle."""
    return [
        (BuildCut if i == _BUILD else MiddleCut)(c, no_wrap=True, end="")
        if i in _MIDDLE
        else Text(c, justify="right" if i == _QPS else "left", overflow="ellipsis", no_wrap=True)
        for i, c in enumerate(row)
    ]


def flagged_texts(row: Sequence[str], warning: str) -> list[Text]:
    """:func:`cell_texts` of a row with :data:`CLUSTER_COLUMNS`, its flag in ``warning``."""
    texts = cell_texts(row)
    texts[_FLAG].stylize(f"bold {warning}")
    return texts


_FLAG = columns_for(True).index("flag")
_QPS = COLUMNS.index("QPS")
_BUILD = COLUMNS.index("build")
_MIDDLE = {COLUMNS.index(name) for name, _ in SHRINK}


class RunsTable(DataTable[object]):
    """The runs table: every column has its width given and every row is one line, so a new
    row need not be measured. (Textual measures each cell of each new row: for a page of runs,
    enough to hold the first frame back.)

    End (and ctrl+end, G on the screen) go to the last run that matches, not the last row
    read: the screen reads the pages still missing first.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end,ctrl+end", "screen.last_run", "Last run", show=False),
    ]

    natural: tuple[int, ...] = ()
    """The widths the rows read so far need (before :func:`fitted`)."""
    names: tuple[str, ...] = COLUMNS
    """The columns shown (:func:`columns_for`)."""

    def fit(self, natural: Sequence[int], names: Sequence[str] = COLUMNS) -> list[int]:
        """Remember the rows' widths; the widths to give the columns at the table's width."""
        self.natural, self.names = tuple(natural), tuple(names)
        return fitted(self.natural, self._room(), self.names)

    def _room(self) -> int:
        return self.size.width or self.app.size.width

    def widen(self, cells: Sequence[Sequence[str]]) -> None:
        """Make the columns wide enough for these rows too (a later page's longer values)."""
        self.natural = tuple(max(a, b) for a, b in zip(self.natural, widths(cells, self.names), strict=True))
        self._apply()

    def on_resize(self) -> None:
        if self.natural:
            self._apply()

    def _apply(self) -> None:
        changed = False
        fits = fitted(self.natural, self._room(), self.names)
        for column, width in zip(self.ordered_columns, fits, strict=True):
            if width != column.width:
                column.width = width
                changed = True
        if changed:
            self._clear_caches()
            self._require_update_dimensions = True
            self.refresh()

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        # Textual 8.x's DataTable draws each cell through Rich (Styled(Padding(Text))), a cost
        # paid for every cell of the first screen. A row's plain one-line
        # Text is drawn here as Rich would (tests/app/test_runs_table_render.py compares them);
        # anything else (the header, a cell with spans or markup) goes to Textual.
        row_key = self._row_locations.get_key(row_index) if row_index >= 0 else None
        column_key = self._column_locations.get_key(column_index) if column_index >= 0 else None
        row = self.rows.get(row_key) if row_key is not None else None
        if row_key is None or column_key is None or row is None or row.height != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        lines = self._cell_render_cache.get(key)
        if lines is not None:
            return lines
        pad = self.cell_padding
        text = cell_line(self._get_row_renderables(row_index).cells[column_index], width - 2 * pad)
        if text is None or width < 2 * pad or pad < 0:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            row_index < self.fixed_rows or column_index < self.fixed_columns,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        style = style + post_style if post_style else style
        lines = [[Segment(" " * pad + text + " " * pad, style)]]
        self._cell_render_cache[key] = lines
        return lines

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
