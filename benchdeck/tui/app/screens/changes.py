"""Changes: where did QPS change across versions (or over time), per workload group.

One row per change point: the workload, between which two versions, by how much, its p-value,
and the per-op metrics that moved at the same point; the chart below shows the highlighted
row's series with the change marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Select, Static

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.changepoints import Options
from benchdeck.store.analysis.change_series import load_series
from benchdeck.store.analysis.changes import OVER, Change, LeftOut, Over, SeriesChanges, analyse
from benchdeck.store.reports.changes_report import (
    between,
    by_group,
    fmt_change,
    fmt_moves,
    fmt_pvalue,
    left_out_count,
    left_out_note,
    series_title,
)
from benchdeck.store.storage.lookups import hosts_by_runs
from benchdeck.tui.app.screens.base import BenchdeckScreen, tcss
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.change_chart import ChangeChart
from benchdeck.tui.app.widgets.choice import Choice
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.app.widgets.rqps import rqps_colours

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, slots=True)
class Request:
    host: str | None
    over: Over
    options: Options
    left_out: tuple[LeftOut, ...] = ()
    """Builds in no series (store/analysis/change_series.py), said in the head."""


@dataclass(frozen=True, slots=True)
class Row:
    result: SeriesChanges
    change: Change


def changes_grown(cur: duckdb.DuckDBPyConnection, results: list[SeriesChanges]) -> dict[tuple[int, int], str]:
    """For each drop in QPS with profiles on both sides of it: the functions whose CPU per query
    grew most, by (id of the result, change index). In the screen's worker."""
    from benchdeck.tui.services.profiles import ProfileRequest, grown_text

    out: dict[tuple[int, int], str] = {}
    for r in results:
        s = r.series
        for c in r.changes:
            if c.test.ratio >= 1.0 or c.before.build == c.after.build:
                continue
            req = ProfileRequest(
                host=s.host, base=c.before.build, column=c.after.build, workload=s.workload,
                config=s.config, dop=s.dop,
            )  # fmt: skip
            if text := grown_text(cur, req):
                out[(id(r), c.index)] = text
    return out


class ChangesScreen(BenchdeckScreen):
    """Change points per workload group; ``o`` switches versions/time, ``h`` the host."""

    CSS_PATH = tcss("changes.tcss")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - typed by Screen
    """Below 100 columns the head goes under the choices, in two lines at most (at 60 it
    wrapped into a column 15 cells wide), the builds left out counted, not named."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "o",
            "toggle_over",
            "Versions/time",
            id="changes.over",
            tooltip="Series over versions or over time",
        ),
        Binding("h", "next_host", "Next host", id="changes.host", tooltip="Change points of the next host"),
        Binding(
            "p",
            "profile",
            "Profile",
            id="changes.profile",
            tooltip="Where the CPU went per query",
            show=False,
        ),
        Binding("r", "reload", "Reload", id="changes.reload", show=False),
    ]

    class Loaded(Message, bubble=False):
        def __init__(
            self,
            request: Request,
            hosts: list[str],
            results: list[SeriesChanges],
            grown: dict[tuple[int, int], str] | None = None,
        ) -> None:
            super().__init__()
            self.request = request
            self.hosts = hosts
            self.results = results
            self.grown = grown or {}

    def __init__(self) -> None:
        super().__init__()
        self.request = Request(None, "version", Options())
        self.hosts: list[str] = []
        self.results: list[SeriesChanges] = []
        self.rows: list[Row] = []
        self.grown: dict[tuple[int, int], str] = {}  # (result, change) -> functions that grew most
        self._loaded = False

    def compose(self) -> ComposeResult:
        yield AppHeader()
        with Horizontal(id="changes-top"):
            yield Choice[str]([], prompt="host", id="changes-host", compact=True)
            yield Choice[str](
                [(f"over {o}", o) for o in OVER],
                value="version",
                id="changes-over",
                compact=True,
                allow_blank=False,
            )
            yield Static("", id="changes-head")
        yield DataTable[object](id="changes-table", cursor_type="row", zebra_stripes=True)
        yield ChangeChart(id="changes-chart")
        yield KeyBar()

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_rows())

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        wanted = self.bd.selection.host
        if not self._loaded or (wanted and wanted != self.request.host):
            self.load(Request(wanted or self.request.host, self.request.over, self.request.options))
        self.query_one("#changes-table", DataTable).focus()

    def action_reload(self) -> None:
        self.load(self.request)

    @work(thread=True, exclusive=True, exit_on_error=False, group="changes.load")
    def load(self, request: Request) -> None:
        cur = self.store.cursor()
        try:
            hosts = hosts_by_runs(cur)
            host = request.host if request.host in hosts else (hosts[0] if hosts else None)
            request = Request(host, request.over, request.options)
            results: list[SeriesChanges] = []
            if host is not None:
                cat = default_catalogue()
                left_out: list[LeftOut] = []
                series = load_series(
                    cur,
                    host=host,
                    group_of=cat.group_of,
                    sort_key=cat.sort_key,
                    over=request.over,
                    left_out=left_out,
                )
                results = analyse(series, request.options)
                request = Request(host, request.over, request.options, tuple(left_out))
            grown = changes_grown(cur, results)
        finally:
            cur.close()
        self.post_if_current(self.Loaded(request, hosts, results, grown))

    def on_changes_screen_loaded(self, msg: Loaded) -> None:
        self._loaded = True
        self.request = msg.request
        self.hosts = msg.hosts
        self.results = msg.results
        self.grown = msg.grown
        host: Select[str] = self.query_one("#changes-host", Select)
        over: Select[str] = self.query_one("#changes-over", Select)
        with self.prevent(Select.Changed):
            host.set_options((h, h) for h in msg.hosts)
            if msg.request.host is not None:
                host.value = msg.request.host
            over.value = msg.request.over
        self.show_rows()
        self.refresh_bindings()

    def show_head(self) -> None:
        """What the screen shows and why (narrow: the builds left out counted, not named)."""
        head = self.query_one("#changes-head", Static)
        req = self.request
        note = (left_out_count if self.has_class("-narrow") else left_out_note)(req.left_out)
        if req.host is None:
            head.update("No runs in the store yet: run or import some (Launch, 4).")
        elif not self.results:
            need = "versions of a DBMS" if req.over == "version" else "runs of one build"
            head.update(f"{req.host}: no series with 3 or more {need}.{note}")
        else:
            o = req.options
            changed = sum(1 for r in self.results if r.changes)
            head.update(
                f"{changed} of {len(self.results)} series changed (p <= {o.max_pvalue:g}, "
                f"magnitude > {o.min_magnitude:.0%}){note}"
            )

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_head)

    def show_rows(self) -> None:
        table = self.query_one("#changes-table", DataTable)
        table.clear(columns=True)
        self.show_head()
        lines = {(r.series.config, r.series.dop, r.series.line) for r in self.results}
        self.rows = [Row(r, c) for r in by_group(self.results) for c in r.changes]
        columns = ["group", "workload", "between", "change", "p-value", "per-op moved at the same point"]
        if len(lines) > 1:
            columns.insert(2, "series")
        colours = rqps_colours(self.app)
        body: list[list[object]] = []
        for row in self.rows:
            c = row.change
            cells: list[object] = [
                row.result.series.group,
                row.result.series.workload,
                between(c),
                Text(fmt_change(c), style=colours.style(c.test.ratio), justify="right"),
                Text(fmt_pvalue(c.test.pvalue), justify="right"),
                "  ".join(filter(None, [fmt_moves(c.moved), self.grown.get((id(row.result), c.index), "")])),
            ]
            if len(lines) > 1:
                cells.insert(2, series_title(row.result.series))
            body.append(cells)
        # widths from the data, given explicitly (as compare's tables: a table left to measure
        # itself could show cells cut to the header width after a redraw)
        for j, name in enumerate(columns):
            width = max([cell_len(name), *(cell_len(str(cells[j])) for cells in body)])
            table.add_column(name, key=name, width=width)
        for i, cells in enumerate(body):
            table.add_row(*cells, key=str(i))
        self.show_chart()

    @on(DataTable.RowHighlighted, "#changes-table")
    def show_chart(self) -> None:
        table = self.query_one("#changes-table", DataTable)
        chart = self.query_one("#changes-chart", ChangeChart)
        if not self.rows or not table.row_count:
            first = next(iter(self.results), None)
            chart.show(first)
            return
        row = self.rows[min(table.cursor_row, len(self.rows) - 1)]
        chart.show(row.result, row.change.index)

    @on(Select.Changed, "#changes-host")
    def host_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.request.host:
            self.load(Request(event.value, self.request.over, self.request.options))

    @on(Select.Changed, "#changes-over")
    def over_changed(self, event: Select.Changed) -> None:
        if event.value in OVER and event.value != self.request.over:
            self.load(
                Request(
                    self.request.host, "time" if event.value == "time" else "version", self.request.options
                )
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_host":
            return len(self.hosts) > 1
        return True

    def action_profile(self) -> None:
        """The profiles on either side of the highlighted change point."""
        table = self.query_one("#changes-table", DataTable)
        if not self.rows or not table.row_count:
            return
        from benchdeck.tui.app.screens.profile import ProfileScreen
        from benchdeck.tui.services.profiles import ProfileRequest

        row = self.rows[min(table.cursor_row, len(self.rows) - 1)]
        s, c = row.result.series, row.change
        req = ProfileRequest(
            host=s.host, base=c.before.build, column=c.after.build, workload=s.workload, config=s.config
        )
        self.app.push_screen(ProfileScreen(req))

    def action_toggle_over(self) -> None:
        over: Over = "time" if self.request.over == "version" else "version"
        self.load(Request(self.request.host, over, self.request.options))

    def action_next_host(self) -> None:
        if self.hosts:
            i = self.hosts.index(self.request.host) + 1 if self.request.host in self.hosts else 0
            self.load(Request(self.hosts[i % len(self.hosts)], self.request.over, self.request.options))
