"""Compare: rQPS of builds against a base on one host, group summaries, per-op metrics, noise."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Select, Static, TabbedContent, TabPane

from benchdeck.engine.config_names import config_label
from benchdeck.store.analysis.column_choices import ColumnChoice
from benchdeck.store.analysis.compare import CompareError, Comparison
from benchdeck.store.analysis.scaling import Scaling
from benchdeck.store.reports.compare_report import render
from benchdeck.tui.app.screens.base import tcss
from benchdeck.tui.app.screens.compare_pickers import PICKERS, ComparePickers
from benchdeck.tui.app.screens.dialogs import ExportDialog, ExportRequest, export_stem
from benchdeck.tui.app.state.choices import Choices, load_choices, run_comparison, run_scaling
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.choice import Choice
from benchdeck.tui.app.widgets.compare_cluster_views import (
    fill_gain,
    gain_title,
    has_gain,
)
from benchdeck.tui.app.widgets.compare_views import (
    GROUP_STATS,
    NOISE_NOTE,
    counter_view,
    fill_groups,
    fill_noise,
    fill_rqps,
    hw_tables,
    legend,
)
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.app.widgets.rqps import RqpsColours, rqps_colours
from benchdeck.tui.app.widgets.rqps_bars import RqpsBars
from benchdeck.tui.app.widgets.scaling_chart import ScalingChart
from benchdeck.tui.app.widgets.scaling_views import curves, fill_scaling
from benchdeck.tui.app.widgets.warning import warning_colour
from benchdeck.tui.app.widgets.wide_table import WideTable

TABS = ("tab-rqps", "tab-groups", "tab-hw", "tab-chart", "tab-noise", "tab-counters", "tab-scaling")


def swapped(columns: tuple[str, ...], new_base: str, old_base: str | None) -> tuple[str, ...]:
    """The columns once ``new_base`` is the base: a column that becomes the base hands its
    place to the old base (``b`` on a column swaps the two), else it is only left out."""
    if new_base not in columns or old_base is None:
        return tuple(c for c in columns if c != new_base)
    return tuple(old_base if c == new_base else c for c in columns)


class CompareScreen(ComparePickers):
    """Pick host, base and builds; read rQPS, group stats, per-op metrics, a chart and noise."""

    CSS_PATH = tcss("compare.tcss")
    AUTO_FOCUS = ""  # on_screen_resume focuses the active tab's table, not the first picker
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "pick('base')", "Base", id="compare.base", tooltip="Change the base build"),
        Binding(
            "a",
            "pick_columns",
            "Columns",
            id="compare.add",
            tooltip="Tick the builds to compare (several at once)",
        ),
        Binding("x", "remove_column", "Drop column", id="compare.remove", tooltip="Remove the last column"),
        Binding(
            "e", "export", "Export", id="compare.export", tooltip="Write md, csv, text or json to a file"
        ),
        Binding("o", "pick('dop')", "Dop", id="compare.dop", tooltip="Pick the concurrency (dop)"),
        Binding("c", "pick('config')", "Config", id="compare.config", tooltip="Pick the server config"),
        Binding("h", "pick('host')", "Host", id="compare.host", tooltip="Pick the host"),
        Binding(
            "right_square_bracket",
            "tab(1)",
            "Tab",
            id="compare.next_tab",
            key_display="[ ]",
            tooltip="Next tab ([ goes back)",
        ),
        Binding("left_square_bracket", "tab(-1)", "Previous tab", id="compare.prev_tab", show=False),
        Binding(
            "m", "next_stat", "Group stat", id="compare.group_stat", tooltip="Median, avg, min, max, gmean"
        ),
        Binding("n", "next_chart_column", "Chart column", id="compare.chart_column", show=False),
        Binding(
            "p",
            "profile",
            "Profile",
            id="compare.profile",
            tooltip="Where the CPU went per query",
            show=False,
        ),
        Binding("r", "reload", "Reload", id="compare.reload", show=False),
    ]

    class Loaded(Message, bubble=False):
        """What the pickers offer, and the selection resolved against it."""

        def __init__(self, choices: Choices) -> None:
            super().__init__()
            self.choices = choices

    class Compared(Message, bubble=False):
        """A comparison, or None with the reason (``error``) when it cannot be made."""

        def __init__(
            self,
            cmp: Comparison | None,
            sel: Selection,
            error: str | None = None,
            scaling: Scaling | None = None,
        ) -> None:
            super().__init__()
            self.cmp = cmp
            self.sel = sel
            self.error = error
            self.scaling = scaling

    class Exported(Message, bubble=False):
        def __init__(self, path: Path, fmt: str) -> None:
            super().__init__()
            self.path = path
            self.fmt = fmt

    def __init__(self) -> None:
        super().__init__()
        self.cmp: Comparison | None = None
        self.scaling: Scaling | None = None
        self.scaling_rows: list[str] = []
        """The workload of each row of the Scaling tab's table."""
        self.error: str | None = None
        self.chart_column = 0
        self.group_stat = GROUP_STATS[0]
        self.builds: list[str] = []
        self.columns: tuple[ColumnChoice, ...] = ()
        """The (build, config) pairs with runs on the host at the dop: what the columns dialog offers."""
        self.configs: tuple[str, ...] = ()
        self.choices: dict[str, list[str]] = {}
        """What each picker offers (host, base, add, config, dop), for the pick dialogs."""
        self._loaded_for: Selection | None = None
        self.loading_choices = True
        """Choices or a comparison are being read: pickers say so rather than offer nothing."""

    def compose(self) -> ComposeResult:
        yield AppHeader()
        with Horizontal(id="compare-pickers"):
            yield Choice[str]([], prompt="host", id="compare-host", compact=True)
            yield Choice[str]([], prompt="base build", id="compare-base", compact=True)
            yield Choice[str]([], prompt="+ add build", id="compare-add", compact=True)
            yield Choice[str]([], prompt="config", id="compare-config", compact=True)
            yield Choice[int]([], prompt="all dops", id="compare-dop", compact=True)
        yield Static("", id="compare-legend")
        with TabbedContent(id="compare-tabs"):
            with TabPane("rQPS", id="tab-rqps"):
                yield DataTable[object](id="compare-rqps", zebra_stripes=True, cursor_type="none")
                yield Static("", id="compare-gain-title")  # columns on a cluster: the gain there
                yield DataTable[object](id="compare-gain", zebra_stripes=True, cursor_type="none")
            with TabPane("Groups", id="tab-groups"):
                yield DataTable[object](id="compare-groups", zebra_stripes=True, cursor_type="none")
            with TabPane("Per-op", id="tab-hw"), VerticalScroll():
                yield Static("", id="compare-hw")
            with TabPane("Chart", id="tab-chart"), VerticalScroll():
                yield RqpsBars(id="compare-chart")
            with TabPane("Noise", id="tab-noise"):
                yield WideTable(id="compare-noise")
                yield Static(NOISE_NOTE, id="compare-noise-note")
            with TabPane("Counters", id="tab-counters"), VerticalScroll():
                yield Static("", id="compare-counters")
            with TabPane("Scaling", id="tab-scaling"), Horizontal(id="scaling-box"):
                yield ScalingChart(id="scaling-chart")
                yield WideTable(id="compare-scaling", cursor_type="row")
        yield KeyBar()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_comparison())

    def on_screen_resume(self) -> None:
        if self.bd.selection != self._loaded_for:
            self.load(self.bd.selection)
        if self.focused is None:  # a dialog or the palette closing gives focus back by itself
            self.focus_active_tab()

    def focus_active_tab(self) -> None:
        """Focus what the active tab shows (focusing another tab's widget would switch to it)."""
        tabs = self.query_one("#compare-tabs", TabbedContent)
        pane = tabs.active_pane
        if pane is not None:
            target = pane.query(DataTable).first(DataTable) if pane.query(DataTable) else None
            (target or pane.query_one(VerticalScroll)).focus()

    def load(self, sel: Selection) -> None:
        """Read the choices for ``sel`` and compare; a loading sign shows meanwhile."""
        self.loading_choices = True
        self._show_loading(True)
        self.reload_choices(sel)

    def _show_loading(self, loading: bool) -> None:
        """The sign: in the header (what is shown stays meanwhile) and, before the first
        comparison, in the legend. (Not the tabs' ``loading``: that takes the focus away.)"""
        label = self.store.label
        self.app.sub_title = f"{label}  ⟳ reading the store ..." if loading and label else label
        if loading and self.cmp is None:
            self.query_one("#compare-legend", Static).update("Reading the store ...")

    # --- choices: hosts, builds, configs and dops of the chosen host ---

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare.choices")
    def reload_choices(self, sel: Selection) -> None:
        cur = self.store.cursor()
        try:
            msg = self.Loaded(load_choices(cur, sel, self.bd.saved))
        finally:
            cur.close()
        self.post_if_current(msg)

    def on_compare_screen_loaded(self, msg: Loaded) -> None:
        self.app.sub_title = self.store.label
        choices = msg.choices
        sel = choices.sel
        self.builds = list(choices.builds)
        self.columns = choices.columns
        self.configs = choices.configs
        configs = sorted(choices.configs)
        dops = sorted(d for d in choices.dops if d is not None)
        with self.prevent(Select.Changed):
            self._options("host", list(choices.hosts), sel.host)
            self._options("base", self.builds, sel.base)
            self._options("config", configs, sel.config)
            self.choices["dop"] = [str(d) for d in dops]
            self.query_one("#compare-dop", Select).set_options((f"dop {d}", d) for d in dops)
            self.query_one("#compare-dop", Select).value = sel.dop if sel.dop is not None else Select.NULL
        self.query_one("#compare-config").display = len(configs) > 1
        self.query_one("#compare-dop").display = len(dops) > 1
        self.loading_choices = False
        self.select(sel)

    def _options(self, which: str, names: list[str], value: str | None) -> None:
        self.choices[which] = names
        select: Select[str] = self.query_one(PICKERS[which], Select)
        shown = config_label if which == "config" else str
        select.set_options((shown(n), n) for n in names)
        select.value = value if value is not None and value in names else Select.NULL

    def select(self, sel: Selection) -> None:
        """Make ``sel`` the app's selection and compare it."""
        self.bd.selection = sel
        with self.prevent(Select.Changed):  # offer only builds not shown yet
            self._options("add", self.addable(self.builds, sel), None)
        self._loaded_for = sel
        self._show_loading(True)
        self.run_compare(sel)

    @on(Select.Changed)
    def picker_changed(self, event: Select.Changed) -> None:
        sel, value = self.bd.selection, event.value
        if event.select.id == "compare-host" and isinstance(value, str) and value != sel.host:
            self.load(Selection(host=value))
            return
        if event.select.id == "compare-config" and isinstance(value, str) and value != sel.config:
            self.load(Selection(host=sel.host, config=value))  # its own remembered columns
            return
        if event.select.id == "compare-base" and isinstance(value, str) and value != sel.base:
            sel = replace(sel, base=value, with_builds=swapped(sel.with_builds, value, sel.base))
        elif event.select.id == "compare-add" and isinstance(value, str):
            if value != sel.base and value not in sel.with_builds:
                sel = replace(sel, with_builds=(*sel.with_builds, value))
            with self.prevent(Select.Changed):
                event.select.clear()
        elif event.select.id == "compare-dop":  # the columns offered depend on the dop: read again
            self.load(replace(sel, dop=value if isinstance(value, int) else None))
            return
        if sel != self.bd.selection:
            self.select(sel)

    # --- comparing ---

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare.run")
    def run_compare(self, sel: Selection) -> None:
        if not sel.complete:
            self.post_if_current(self.Compared(None, sel))
            return
        cur = self.store.cursor()
        try:
            cmp = run_comparison(cur, sel)
            scaling = run_scaling(cur, cmp)
        except CompareError as exc:  # e.g. no base runs with this config and dop: say so, show nothing
            self.post_if_current(self.Compared(None, sel, str(exc)))
            return
        finally:
            cur.close()
        self.post_if_current(self.Compared(cmp, sel, scaling=scaling))

    def on_compare_screen_compared(self, msg: Compared) -> None:
        self._show_loading(False)
        self.cmp = msg.cmp
        self.scaling = msg.scaling
        self.error = msg.error
        self.chart_column = min(self.chart_column, max(0, len(msg.sel.with_builds) - 1))
        self.show_comparison()
        if msg.error:
            self.notify(msg.error, title="Compare", severity="error")
        self.refresh_bindings()

    def show_comparison(self) -> None:
        cmp = self.cmp
        colours = rqps_colours(self.app)
        tables = [self.query_one(f"#compare-{n}", DataTable) for n in ("rqps", "groups", "noise")]
        if cmp is None:
            hint = "Pick a base (b) and the builds to compare with it (a)."
            if self.error:
                hint = f"Cannot compare: {self.error}."
            elif not self.builds:
                hint = "No finished runs in the store yet: import or run some, then reload (r)."
            self.query_one("#compare-legend", Static).update(hint)
            for t in tables:
                t.clear(columns=True)
            self.query_one("#compare-hw", Static).update("")
            self.query_one("#compare-counters", Static).update("")
        else:
            warning = warning_colour(self.app)
            self.query_one("#compare-legend", Static).update(legend(cmp, colours, warning))
            fill_rqps(tables[0], cmp, colours, self._rqps_room(tables[0]))
            fill_groups(tables[1], cmp, colours, self.group_stat)
            fill_noise(tables[2], cmp, colours)
            self.query_one("#compare-hw", Static).update(hw_tables(cmp, colours, warning))
            self.query_one("#compare-counters", Static).update(counter_view(cmp, colours))
        self.show_gain(cmp, colours)
        self.query_one("#compare-chart", RqpsBars).set_comparison(cmp, self.chart_column)
        self.show_scaling()

    def show_gain(self, cmp: Comparison | None, colours: RqpsColours) -> None:
        """Under rQPS: each column on a cluster relative to the base's build there (shown only
        when a column has it)."""
        table = self.query_one("#compare-gain", DataTable)
        title = self.query_one("#compare-gain-title", Static)
        shown = cmp is not None and cmp.on_clusters and has_gain(cmp)
        table.display = title.display = shown  # (before it is filled: a hidden table drew no rows)
        self.query_one("#tab-rqps", TabPane).set_class(shown, "-gain")
        title.update(gain_title(cmp) if shown and cmp is not None else "")
        table.clear(columns=True)
        if shown and cmp is not None:
            fill_gain(table, cmp, colours)

    def show_scaling(self) -> None:
        """The Scaling tab: the table, and the curves of the workload of its highlighted row."""
        table = self.query_one("#compare-scaling", DataTable)
        self.scaling_rows = fill_scaling(table, self.scaling, self.cmp)
        self.scaling_row_highlighted()

    @on(DataTable.RowHighlighted, "#compare-scaling")
    def scaling_row_highlighted(self) -> None:
        chart = self.query_one("#scaling-chart", ScalingChart)
        table = self.query_one("#compare-scaling", DataTable)
        if self.scaling is None or self.cmp is None or not self.scaling_rows:
            chart.show(None)
            return
        row = min(max(table.cursor_row, 0), len(self.scaling_rows) - 1)
        chart.show(curves(self.scaling, self.cmp, self.scaling_rows[row]))

    def _rqps_room(self, table: DataTable[object]) -> int:
        """The cells the rQPS table shows across, its vertical scrollbar's width kept free (it
        comes with the rows); before the table is laid out, the screen's width."""
        width = table.size.width or self.size.width or self.app.size.width
        return width - table.styles.scrollbar_size_vertical

    def on_resize(self) -> None:
        """The names fit the new width (after the layout that gives the table its size)."""
        if self.cmp is not None:
            self.call_after_refresh(self._refit_rqps)

    def _refit_rqps(self) -> None:
        if self.cmp is not None:
            table = self.query_one("#compare-rqps", DataTable)
            fill_rqps(table, self.cmp, rqps_colours(self.app), self._rqps_room(table))

    # --- actions ---

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "export" or action == "remove_column":
            return True if self.cmp is not None else None
        if action == "next_stat":
            return True if self.cmp is not None else None
        if action == "next_chart_column":
            return self.cmp is not None and len(self.cmp.columns) > 1
        if action == "pick" and parameters and parameters[0] in ("config", "dop"):
            return bool(self.query_one(PICKERS[str(parameters[0])]).display)  # else on_key says why
        return True

    def on_key(self, event: events.Key) -> None:
        """``o`` or ``c`` with one dop or config: their keys are off (and out of the footer);
        say why rather than nothing."""
        which = {"o": "dop", "c": "config"}.get(event.key)
        if which is not None and not self.query_one(PICKERS[which]).display:
            only = self._only_one(which)
            if only:
                event.stop()
                self.notify(only, severity="warning")

    def action_next_stat(self) -> None:
        """The Groups tab shows the next statistic (median, avg, min, max, gmean)."""
        self.group_stat = GROUP_STATS[(GROUP_STATS.index(self.group_stat) + 1) % len(GROUP_STATS)]
        if self.cmp is not None:
            fill_groups(
                self.query_one("#compare-groups", DataTable),
                self.cmp,
                rqps_colours(self.app),
                self.group_stat,
            )
        self.query_one("#compare-tabs", TabbedContent).active = "tab-groups"

    def action_next_chart_column(self) -> None:
        if self.cmp is not None and self.cmp.columns:
            self.chart_column = (self.chart_column + 1) % len(self.cmp.columns)
            self.query_one("#compare-chart", RqpsBars).set_comparison(self.cmp, self.chart_column)

    def action_tab(self, step: int) -> None:
        tabs = self.query_one("#compare-tabs", TabbedContent)
        tabs.active = TABS[(TABS.index(tabs.active) + step) % len(TABS)]
        self.call_after_refresh(self.focus_active_tab)  # the last tab's widget lost the focus

    @on(TabbedContent.TabActivated, "#compare-tabs")
    def _tab_shown(self) -> None:
        """A tab clicked: its table takes the keys (← → scroll the Noise tab's)."""
        self.call_after_refresh(self.focus_active_tab)

    def action_profile(self) -> None:
        """Profiles of the base and the chart's column (else the first column with some), first
        workload that has them (w: next)."""
        if self.cmp is None or not self.cmp.columns:
            return
        from benchdeck.tui.app.screens.profile import ProfileScreen
        from benchdeck.tui.services.profile_pick import profiled_column
        from benchdeck.tui.services.profiles import column_request

        cur = self.store.cursor()
        try:  # a query per column at most: the profiled workloads of the base and it
            column = profiled_column(cur, self.cmp, min(self.chart_column, len(self.cmp.columns) - 1))
        finally:
            cur.close()
        self.app.push_screen(ProfileScreen(column_request(self.cmp, column, None)))

    def action_reload(self) -> None:
        self.store.refresh()
        self.load(self.bd.selection)

    def action_export(self) -> None:
        cmp = self.cmp
        if cmp is None:
            return

        def done(req: ExportRequest | None) -> None:
            if req is not None:
                self.export(cmp, req)

        self.app.push_screen(ExportDialog(export_stem(cmp)), done)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare.export")
    def export(self, cmp: Comparison, req: ExportRequest) -> None:
        path = req.path  # absolute: the dialog takes a relative one from the export directory
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(cmp, req.fmt), encoding="utf-8")
        except OSError as exc:  # a read-only directory, a full disk: one line, nothing else lost
            self.app.call_from_thread(
                self.notify,
                f"cannot export to {path}: {exc.strerror or exc}",
                title="Export",
                severity="error",
            )
            return
        self.post_message(self.Exported(path, req.fmt))

    def on_compare_screen_exported(self, msg: Exported) -> None:
        self.notify(f"exported ({msg.fmt}) to {msg.path}", title="Export")
