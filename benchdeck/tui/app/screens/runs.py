"""Runs: the history of runs in the store, filtered; tag, delete, set as base, time series, re-run."""

from __future__ import annotations

from datetime import date
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.validation import Function
from textual.widgets import DataTable, Input, Select, Static
from textual.worker import Worker, WorkerState

from benchdeck.store.storage.run_lists import HistoryRow, RunFilter
from benchdeck.tui.app.screens.base import VALID_INPUT, tcss
from benchdeck.tui.app.screens.runs_actions import RunActions
from benchdeck.tui.app.screens.runs_pages import NextPage, ReadPage, RunsPages, read_first_pages
from benchdeck.tui.app.screens.runs_table import (
    RunsTable,
    cell_texts,
    cluster_status,
    columns_for,
    flagged_texts,
    run_cells,
    widths,
)
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.choice import Choice
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.app.widgets.warning import warning_colour
from benchdeck.tui.startup.runs_page import RunsPage


def parse_day(text: str) -> date | None:
    """``YYYY-MM-DD`` or empty (None); raises ValueError otherwise."""
    text = text.strip()
    return date.fromisoformat(text) if text else None


def _valid_day(text: str) -> bool:
    try:
        parse_day(text)
    except ValueError:
        return False
    return True


FIRST_ROWS = 50  # rows added before the first frame when the terminal's height is not known
LATER_ROWS = 250  # then per frame


class RunsScreen(RunActions):
    """The run history: filter by host, build, workload and date; act on the selected run."""

    CSS_PATH = tcss("runs.tcss")
    AUTO_FOCUS = "#runs-table"  # (Textual's "*" focused the host picker first, then on_mount the
    # table: two focus changes, each restyling a widget and all below it, before the first frame)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reload", "Reload", id="runs.reload", tooltip="Read the run history again"),
        Binding("slash", "focus_filter", "Filter", id="runs.filter", tooltip="Filter by workload"),
        Binding("s", "series", "Series", id="runs.series", tooltip="QPS, vmstat and iostat over time"),
        Binding("b", "set_base", "Set base", id="runs.set_base", tooltip="Compare against this run's build"),
        Binding("t", "tag", "Tag", id="runs.tag", tooltip="Edit the run's tags"),
        Binding("d,delete", "delete", "Delete", id="runs.delete", tooltip="Delete the run and its samples"),
        Binding("R", "rerun", "Re-run", id="runs.rerun", tooltip="Queue the same run again"),
        Binding("escape", "unfocus_filter", "Table", id="runs.unfocus", show=False),
        Binding(
            "G",
            "last_run",
            "Last run",
            id="runs.last",
            tooltip="The oldest matching run (End too): reads the pages not read yet",
            show=False,
        ),
        # not in the key bar (full at 80 columns): the command palette lists them
        Binding("m", "mark", "Mark", id="runs.mark", tooltip="Mark the run (two: D diffs them)", show=False),
        Binding(
            "D",
            "diff",
            "Diff marked",
            id="runs.diff",
            tooltip="What differs between two marked runs",
            show=False,
        ),
    ]

    class Loaded(Message, bubble=False):
        def __init__(
            self,
            runs: list[HistoryRow],
            hosts: list[str],
            builds: list[str],
            total: int | None = None,
            f: RunFilter | None = None,
            clusters: bool = False,
        ) -> None:
            super().__init__()
            self.runs = runs
            self.clusters = clusters
            """The store has runs on a cluster: the table shows each run's cluster and flag."""
            self.hosts = hosts
            self.builds = builds
            self.total = len(runs) if total is None else total
            """Runs matching the filter, beyond the rows read (RunFilter.limit)."""
            self.filter = RunFilter() if f is None else f
            """The filter the rows were read with."""

        @classmethod
        def of(cls, page: RunsPage, f: RunFilter | None = None) -> RunsScreen.Loaded:
            """A page read with ``f`` (None: unfiltered, as the app's start reads it)."""
            return cls(page.runs, page.hosts, page.builds, page.total, f, page.clusters)

    class More(Message, bubble=False):
        """The page after the rows read (for the rows it was asked for: they may be gone)."""

        def __init__(self, page: ReadPage) -> None:
            super().__init__()
            self.page = page

    def __init__(self) -> None:
        super().__init__()
        self.pages = RunsPages()
        """The runs read, and which to read next (``pages.filter``: what they were read with)."""
        self.filter = RunFilter()  # what the filter boxes ask for
        self.marked: list[int] = []  # at most two, oldest first
        self._kept = -1  # the generation that shows the first page the last start kept
        self._more: Worker[None] | None = None  # the next page being read (pages.reading)
        self.clusters = False
        """The store has runs on a cluster (the rows shown have runs_table.CLUSTER_COLUMNS)."""

    @property
    def rows(self) -> dict[int, HistoryRow]:
        """The runs read, by run id, newest first (not all in the table yet, maybe)."""
        return self.pages.rows

    @property
    def total(self) -> int:
        """Runs matching the filter, read or not."""
        return self.pages.total

    @property
    def page_times(self) -> list[tuple[float, float]]:
        """Per page read after the first: seconds in the store, seconds until its rows were in."""
        return self.pages.page_times

    @property
    def _to_end(self) -> bool:  # (for tests and bench: End is still reading on)
        return self.pages.to_end

    def compose(self) -> ComposeResult:
        yield AppHeader()
        with Horizontal(id="runs-filters"):
            yield Choice[str]([], prompt="all hosts", id="runs-host", compact=True)
            yield Choice[str]([], prompt="all builds", id="runs-build", compact=True)
            yield Input(placeholder="workload", id="runs-workload", compact=True, classes=VALID_INPUT)
            yield Input(
                placeholder="since YYYY-MM-DD",
                id="runs-since",
                compact=True,
                validators=[Function(_valid_day, "date as YYYY-MM-DD")],
            )
        yield Static("", id="runs-since-error")
        yield Static("", id="runs-status")
        yield RunsTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(RunsTable)
        table.focus()
        self.watch(table, "scroll_y", self._scrolled, init=False)  # (the wheel moves no cursor)
        first = self.bd.take_first_runs()  # kept, or read as the store opened: in the first frame
        if first is not None:
            self._show(self.Loaded.of(first), started=False)
            if self.bd.first_runs_kept:
                self._kept = self.pages.generation
                self.bd.store_opened_signal.subscribe(self, self._store_opened)
        else:
            self.load()

    def _store_opened(self, _: None) -> None:
        """After a kept first page: the store is open. Its label in the header; its page
        instead of the kept one if they differ (read here again if the store's failed)."""
        self.bd.store_opened_signal.unsubscribe(self)
        self.app.sub_title = self.store.label
        differs, page = self.bd.take_store_update()
        if not differs or self.pages.generation != self._kept:  # (reloaded since: already the store's)
            return
        if page is not None and self.filter == RunFilter():
            self._show(self.Loaded.of(page))
        else:
            self.load()

    # --- loading ---

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs.load")
    def load(self, down_to: int | None = None) -> None:
        """Read the first page for :attr:`filter`; with ``down_to``, also every later run down
        to that one (a reload keeps the pages read so far, and the cursor's run among them)."""
        f = self.filter
        cur = self.store.cursor()
        try:
            self.post_if_current(self.Loaded.of(read_first_pages(cur, f, down_to), f))
        finally:
            cur.close()

    def _reload(self) -> None:
        """Read the rows again, as many pages as are read now (for the same filter)."""
        self.load(self.pages.reload_down_to(self.filter))

    def on_runs_screen_loaded(self, msg: Loaded) -> None:
        self._show(msg)

    def _show(self, msg: Loaded, started: bool = True) -> None:
        """Fill the table; ``started`` False: the app's first frame is not out yet."""
        self.app.sub_title = self.store.label
        self._set_options("#runs-host", msg.hosts)
        self._set_options("#runs-build", msg.builds)
        self._forget_foreign_base(msg.hosts, msg.builds)
        table = self.query_one(RunsTable)
        selected = self.selected
        was_at, same_filter = table.cursor_row, msg.filter == self.pages.filter
        self.pages.replace(msg.runs, msg.total, msg.filter)
        if self._more is not None:  # a page of the rows replaced: not wanted
            self._more.cancel()
            self._more = None
        table.clear(columns=True)
        self.clusters = msg.clusters
        names = columns_for(msg.clusters)
        cells = [run_cells(r, self.marked, clusters=msg.clusters) for r in msg.runs]
        # Widths from the data, given explicitly: the table never has to re-measure (which
        # raced with drawing and could leave cells cut to the header widths).
        for name, width in zip(names, table.fit(widths(cells, names), names), strict=True):
            table.add_column(Text(name), key=name, width=width)  # (a str is parsed as markup:
            # plain names as Text skip the parse and rich's emoji table before the first frame)
        # The rows a screen shows first, the rest once that frame is out: adding 1,000 rows
        # (each measured and styled by Textual) would hold the first frame back (the selected
        # run among them: the cursor stays on it; if it is gone, the cursor stays where it was).
        keep = [i for i, r in enumerate(msg.runs) if selected is not None and r.run_id == selected.run_id]
        if not keep and selected is not None and msg.runs and same_filter:
            keep = [min(was_at, len(msg.runs) - 1)]
        screenful = self.size.height or self.app.size.height or FIRST_ROWS  # (the terminal's
        # height before the screen's own is known: no row added for the first frame is hidden)
        first = max([screenful, *(i + 1 for i in keep)])
        self._add_rows(table, list(zip(msg.runs, cells, strict=True)), first, started)
        if keep:
            table.move_cursor(row=keep[0])
        self._show_status()

    def _add_rows(
        self,
        table: DataTable[object],
        rows: list[tuple[HistoryRow, list[str]]],
        first: int,
        started: bool = True,
        appended: bool = False,
    ) -> None:
        """Add the ``first`` rows now, the rest ``LATER_ROWS`` at a time: after each frame (the
        rows a screen shows first), or ``appended`` (a page below the view) as soon as the
        keys and messages waiting have been handled."""
        texts = partial(flagged_texts, warning=warning_colour(self.app)) if self.clusters else cell_texts
        for r, row in rows[:first]:
            table.add_row(*texts(row), key=str(r.run_id))
        if len(rows) > first:
            later = (self._add_later, table, rows[first:], self.pages.generation, appended)
            if appended:
                self.call_later(*later)
            elif started:
                self.call_after_refresh(*later)
            else:  # while the app starts, a screen's "after refresh" comes before any frame is
                # out; the app's own queue runs once it is (then: after the next refresh)
                self.app.call_later(self.call_after_refresh, *later)
        elif started:
            self._rows_in()

    def _add_later(
        self,
        table: DataTable[object],
        rows: list[tuple[HistoryRow, list[str]]],
        generation: int,
        appended: bool = False,
    ) -> None:
        if generation == self.pages.generation:  # not replaced by a newer load meanwhile
            self._add_rows(table, rows, first=LATER_ROWS, appended=appended)

    def _rows_in(self) -> None:
        """Every row read is in the table: the next page if wanted, or End's last run."""
        if self.pages.rows_in():
            table = self.query_one(RunsTable)
            table.move_cursor(row=table.row_count - 1)
        self._show_status()
        self._near_end()

    # --- the pages after the first ---

    def _near_end(self) -> None:
        """Read the next page if the cursor or the view is near the last row read (or End
        asked for the last run), unless a page is being read or rows are still going in."""
        table = self.query_one(RunsTable)
        bottom = max(table.cursor_row, round(table.scroll_y) + table.size.height)
        asked = self.pages.next_page(shown=table.row_count, bottom=bottom)
        if asked is not None:
            self._more = self.load_more(asked)
            self._show_status()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs.more")
    def load_more(self, asked: NextPage) -> None:
        """The page after the rows read (keyset: the rows read stay as they are)."""
        cur = self.store.cursor()
        try:
            page = asked.read(cur)
        finally:
            cur.close()
        self.post_if_current(self.More(page))

    def on_runs_screen_more(self, msg: More) -> None:
        new = self.pages.add(msg.page)
        if new is None:  # the rows it continues were replaced
            return
        self._more = None
        cells = [run_cells(r, self.marked, clusters=self.clusters) for r in new]
        table = self.query_one(RunsTable)
        table.widen(cells)
        self._add_rows(table, list(zip(new, cells, strict=True)), first=LATER_ROWS, appended=True)
        self._show_status()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # (Textual calls the base's handler too: it tells the user what failed)
        failed = event.state in (WorkerState.ERROR, WorkerState.CANCELLED)
        if failed and event.worker is self._more:  # scrolling on reads it again
            self._more = None
            self.pages.stopped()
            self._show_status()

    def action_last_run(self) -> None:
        """End / G: the last run that matches, reading the pages not read yet first."""
        table = self.query_one(RunsTable)
        if self.pages.all_read and table.row_count >= len(self.rows):
            if table.row_count:
                table.move_cursor(row=table.row_count - 1)
            return
        self.pages.go_to_end()
        self._show_status()
        self._near_end()

    def _forget_foreign_base(self, hosts: list[str], builds: list[str]) -> None:
        """The comparison restored from the settings may be another store's (they are not kept
        per store): a host or base this store does not have is not shown as the base."""
        sel = self.bd.selection
        if sel.base is not None and (sel.host not in hosts or sel.base not in builds):
            self.bd.selection = Selection()

    def _set_options(self, selector: str, names: list[str]) -> None:
        select: Select[str] = self.query_one(selector, Select)
        current = select.value
        with self.prevent(Select.Changed):
            select.set_options((n, n) for n in names)
            if isinstance(current, str) and current in names:
                select.value = current

    def _show_status(self) -> None:
        sel = self.bd.selection
        base = f"   base: {sel.base} on {sel.host}" if sel.base else "   no base yet (b sets one)"
        run = self.selected
        if run is not None and run.error:
            base = f"   run {run.run_id} {run.status}: {run.error.strip().splitlines()[0]}"
        elif run is not None and run.cluster is not None:
            base = f"   {cluster_status(run)}"
        line = Text(self.pages.count_text() + base)
        if run is not None and run.cluster is not None and run.flag and not run.error:
            line.highlight_words([run.flag], f"bold {warning_colour(self.app)}")
        self.query_one("#runs-status", Static).update(line)

    def _scrolled(self) -> None:
        self._near_end()

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_status()
        self._near_end()

    @on(Select.Changed)
    @on(Input.Changed)
    def filters_changed(self) -> None:
        since = self.query_one("#runs-since", Input)
        valid = _valid_day(since.value)
        error = self.query_one("#runs-since-error", Static)
        error.display = not valid  # one line says the format; the other filters go on working
        if not valid:
            error.update(
                f"since: {since.value.strip()!r} is not a date: give it as YYYY-MM-DD (ignored meanwhile)"
            )
        host = self.query_one("#runs-host", Select).value
        build = self.query_one("#runs-build", Select).value
        wanted = RunFilter(
            host=host if isinstance(host, str) else None,
            build=build if isinstance(build, str) else None,
            workload=self.query_one("#runs-workload", Input).value.strip() or None,
            since=parse_day(since.value) if valid else None,
        )
        if wanted != self.filter:
            self.filter = wanted
            self.load()

    # --- the selected run ---

    def action_reload(self) -> None:
        self.store.refresh()
        self._reload()

    def action_focus_filter(self) -> None:
        self.query_one("#runs-workload", Input).focus()

    @on(Input.Submitted)
    def action_unfocus_filter(self) -> None:
        """Enter or Esc in a filter box: back to the table (the filter stays)."""
        self.query_one("#runs-table", DataTable).focus()

    def on_screen_resume(self) -> None:
        self._show_status()
