"""Triage: workloads ranked by regression, each with the per-op metrics and the perf stat
counters (per operation, and their ratios) that moved most."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Select, Static

from benchdeck.store.analysis.compare import HW_KEYS, Comparison
from benchdeck.store.analysis.counters_per_op import SOFTWARE
from benchdeck.store.analysis.movers import mover_ratio
from benchdeck.store.reports.compare_report import NOISE_MARK
from benchdeck.store.reports.ratios import fmt_ratio
from benchdeck.store.storage.run_lists import latest_run
from benchdeck.tui.app.screens.base import BenchdeckScreen, tcss
from benchdeck.tui.app.state.choices import load_choices, run_comparison, scaling_flags
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.choice import Choice
from benchdeck.tui.app.widgets.compare_views import row_label
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.app.widgets.rqps import rqps_colours
from benchdeck.tui.app.widgets.wide_table import WideTable

TOP_METRICS = 3
TOP_COUNTERS = 3
METRICS = tuple(k for k in HW_KEYS if k != "o/s")  # o/s is the rQPS itself

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, slots=True)
class Moved:
    metric: str
    rel: float

    def __str__(self) -> str:
        return f"{self.metric} x{fmt_ratio(self.rel)}"

    @property
    def score(self) -> float:
        """|log(rel)|: how far from 1 in either direction."""
        return abs(math.log(self.rel)) if self.rel > 0 else 0.0


@dataclass(frozen=True, slots=True)
class TriageItem:
    workload: str
    dop: int | None
    group: str
    rqps: float | None
    moved: tuple[Moved, ...]
    noise: bool = False
    """The confidence interval of the ratio contains 1 (store/analysis/noise.py)."""
    counters: tuple[Moved, ...] = ()
    """perf stat counters per operation (or ratios such as ipc) that moved most vs the base."""
    scaling: str = ""
    """Its scale-up fell against the base's at the top dop (``scale-up @4 1.05 vs base 2.10``)."""
    grown: str = ""
    """The functions whose CPU per query grew most, when both sides have profiles."""

    def label(self, multi_dop: bool = False) -> str:
        return row_label(self.workload, self.dop, multi_dop)

    def metrics_text(self) -> str:
        return "  ".join([*map(str, self.moved), *([self.grown] if self.grown else [])])

    def counters_text(self) -> str:
        return "  ".join(str(m) for m in self.counters)

    def line(self, multi_dop: bool = False) -> str:
        """``update-index_range=100 0.56  cpu/o x1.50  wKB/o x2.32  cs/o x1.41``."""
        mark = NOISE_MARK if self.noise else ""
        head = f"{self.label(multi_dop)} {fmt_ratio(self.rqps)}{mark}"
        grown = [self.grown] if self.grown else []
        scaling = [self.scaling] if self.scaling else []
        return "  ".join([head, *map(str, self.moved), *map(str, self.counters), *grown, *scaling])


def rank(
    cmp: Comparison,
    column: int = 0,
    scaling: dict[tuple[str, str], str] | None = None,
    grown: dict[tuple[int, str, int | None], str] | None = None,
) -> list[TriageItem]:
    """Workloads of ``cmp.columns[column]``, lowest rQPS first (missing last), with top movers;
    from ``scaling`` (by column label and workload) a scale-up that fell against the base, and from
    ``grown`` the functions that grew most (by column, workload, dop)."""
    build = cmp.columns[column]
    blocks = {(b.workload, b.dop): b for b in cmp.hw}
    counters: dict[tuple[str, int | None], list[Moved]] = {}
    for c in cmp.counters:
        if c.column == build and c.rel and math.isfinite(c.rel) and c.counter not in SOFTWARE:
            counters.setdefault((c.workload, c.dop), []).append(Moved(c.counter, c.rel))
    items = []
    for row in cmp.rqps:
        vals: dict[str, float | None] = {}
        base: dict[str, float | None] = {}
        block = blocks.get((row.workload, row.dop))
        if block is not None:
            base = block.rows[0].values
            vals = next((r.values for r in block.rows if (r.label or r.build) == build), {})
        # the floors of store/analysis/movers.py: two near-zero values are no move, and never inf
        ratios = {k: mover_ratio(k, vals.get(k), base.get(k)) for k in METRICS}
        moved = [Moved(k, v) for k, v in ratios.items() if v is not None]
        moved = sorted((m for m in moved if m.score > 0), key=lambda m: -m.score)[:TOP_METRICS]
        of_row = counters.get((row.workload, row.dop), [])
        top = sorted((m for m in of_row if m.score > 0), key=lambda m: -m.score)[:TOP_COUNTERS]
        items.append(
            TriageItem(
                row.workload,
                row.dop,
                row.group,
                row.values[column],
                tuple(moved),
                bool(row.within_noise[column]),
                tuple(top),
                (scaling or {}).get((build, row.workload), ""),
                (grown or {}).get((column, row.workload, row.dop), ""),
            )
        )
    order = {(r.workload, r.dop): i for i, r in enumerate(cmp.rqps)}
    return sorted(
        items,
        key=lambda it: (
            it.rqps is None,
            it.rqps if it.rqps is not None else 0.0,
            order[(it.workload, it.dop)],
        ),
    )


def regressions_grown(
    cur: duckdb.DuckDBPyConnection, cmp: Comparison
) -> dict[tuple[int, str, int | None], str]:
    """For each regression (rQPS < 1) with profiles of the base and the column: the functions
    whose CPU per query grew most, by (column, workload, dop). In the screen's worker."""
    from benchdeck.store.storage.profiles import profiled_workloads
    from benchdeck.tui.services.profiles import column_request, grown_text

    out: dict[tuple[int, str, int | None], str] = {}
    base = cmp.base_column
    for i, label in enumerate(cmp.columns):
        spec = cmp.spec(label)
        profiled = set(
            profiled_workloads(cur, cmp.host, [base.build, spec.build], [base.config, spec.config])
        )
        for row in cmp.rqps:
            v = row.values[i]
            if row.workload in profiled and v is not None and v < 1.0:
                req = replace(column_request(cmp, i, row.workload), dop=row.dop)
                if text := grown_text(cur, req):
                    out[(i, row.workload, row.dop)] = text
    return out


class TriageScreen(BenchdeckScreen):
    """Regressions first for the chosen base and build; enter opens both runs' time series."""

    CSS_PATH = tcss("triage.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "s", "series", "Series", id="triage.series", tooltip="Time series of the base and build runs"
        ),
        Binding("w", "next_build", "Next build", id="triage.next_build", tooltip="Triage the next column"),
        Binding(
            "c",
            "changes",
            "Change points",
            id="triage.changes",
            tooltip="Where did it change: change points across versions",
        ),
        Binding(
            "p", "profile", "Profile", id="triage.profile", tooltip="CPU per query by function", show=False
        ),
        Binding("r", "reload", "Reload", id="triage.reload", show=False),
    ]

    class Ranked(Message, bubble=False):
        def __init__(
            self,
            cmp: Comparison | None,
            sel: Selection,
            scaling: dict[tuple[str, str], str] | None = None,
            grown: dict[tuple[int, str, int | None], str] | None = None,
        ) -> None:
            super().__init__()
            self.cmp = cmp
            self.sel = sel
            self.scaling = scaling or {}
            self.grown = grown or {}

    class RunsFound(Message, bubble=False):
        def __init__(self, run_ids: list[int]) -> None:
            super().__init__()
            self.run_ids = run_ids

    def __init__(self) -> None:
        super().__init__()
        self.cmp: Comparison | None = None
        self.grown: dict[tuple[int, str, int | None], str] = {}
        self.column = 0
        self.items: list[TriageItem] = []
        self.scaling: dict[tuple[str, str], str] = {}
        self._loaded_for: Selection | None = None

    def compose(self) -> ComposeResult:
        yield AppHeader()
        with Horizontal(id="triage-top"):
            yield Choice[int]([], prompt="build", id="triage-build", compact=True)
            yield Static("", id="triage-head")
        yield WideTable(id="triage-table", cursor_type="row")
        yield KeyBar()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_items())

    def on_screen_resume(self) -> None:
        if self.bd.selection != self._loaded_for:
            self.load(self.bd.selection)
        self.query_one("#triage-table", DataTable).focus()

    @work(thread=True, exclusive=True, exit_on_error=False, group="triage.load")
    def load(self, sel: Selection) -> None:
        """Rank ``sel``, first resolved against the store as Compare would: a cold start takes
        what was remembered for the host, else the defaults; builds gone since are dropped."""
        cur = self.store.cursor()
        try:
            sel = load_choices(cur, sel, self.bd.saved).sel
            cmp = run_comparison(cur, sel) if sel.complete else None
            flags = scaling_flags(cur, cmp) if cmp is not None and cmp.columns else {}
            grown = regressions_grown(cur, cmp) if cmp is not None else {}
        finally:
            cur.close()
        self.post_if_current(self.Ranked(cmp, sel, flags, grown))

    def on_triage_screen_ranked(self, msg: Ranked) -> None:
        if msg.sel != self.bd.selection and msg.sel.complete:
            self.bd.selection = msg.sel  # what Compare shows next too
        self._loaded_for = msg.sel
        self.cmp = msg.cmp
        self.scaling = msg.scaling
        self.grown = msg.grown
        self.column = min(self.column, max(0, len(msg.sel.with_builds) - 1))
        select: Select[int] = self.query_one("#triage-build", Select)
        with self.prevent(Select.Changed):
            select.set_options((f"col-{i + 1} {b}", i) for i, b in enumerate(msg.sel.with_builds))
            if msg.sel.with_builds:
                select.value = self.column
        select.display = len(msg.sel.with_builds) > 1
        self.show_items()
        self.refresh_bindings()

    def show_items(self) -> None:
        cmp = self.cmp
        table = self.query_one("#triage-table", DataTable)
        table.clear(columns=True)
        head = self.query_one("#triage-head", Static)
        if cmp is None or not cmp.columns:
            self.items = []
            head.update(
                "Nothing to triage: the store needs finished runs of two builds on one host "
                "(pick them in Compare, 2, or set a base in Runs, 1)."
            )
            return
        colours = rqps_colours(self.app)
        multi = len(cmp.dops) > 1
        self.items = rank(cmp, self.column, self.scaling, self.grown)
        flagged = any(it.scaling for it in self.items)
        head.update(
            f"{cmp.columns[self.column]} vs base {cmp.base} on {cmp.host}: lowest rQPS first, "
            "with the per-op metrics that moved most" + (" and the perf counters" if cmp.counters else "")
        )
        names = ["rQPS", "workload", "group", "moved most (per op, vs base)"]
        if cmp.counters:
            names.append("counters moved most (per op, vs base)")
        if flagged:
            names.append("scaling (vs base)")
        for name in names:
            table.add_column(name, key=name)
        for it in self.items:
            cells = [colours.cell(it.rqps, it.noise), it.label(multi), it.group, it.metrics_text()]
            if cmp.counters:
                cells.append(it.counters_text())
            if flagged:
                cells.append(it.scaling)
            table.add_row(*cells, key=it.label(multi))

    @on(Select.Changed, "#triage-build")
    def build_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and event.value != self.column:
            self.column = event.value
            self.show_items()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("series", "profile"):
            return True if self.items else None
        if action == "next_build":
            return self.cmp is not None and len(self.cmp.columns) > 1
        return True

    def action_next_build(self) -> None:
        if self.cmp is not None and self.cmp.columns:
            self.column = (self.column + 1) % len(self.cmp.columns)
            with self.prevent(Select.Changed):
                self.query_one("#triage-build", Select).value = self.column
            self.show_items()

    def action_reload(self) -> None:
        self.store.refresh()
        self.load(self.bd.selection)

    def action_changes(self) -> None:
        self.app.switch_mode("changes")

    @on(DataTable.RowSelected)
    def action_series(self) -> None:
        table = self.query_one("#triage-table", DataTable)
        if self.cmp is None or not self.items or not table.row_count:
            return
        self.find_runs(self.cmp, self.items[table.cursor_row], self.column)

    def action_profile(self) -> None:
        table = self.query_one("#triage-table", DataTable)
        if self.cmp is None or not self.items or not table.row_count:
            return
        from benchdeck.tui.app.screens.profile import ProfileScreen
        from benchdeck.tui.services.profiles import column_request

        item = self.items[min(table.cursor_row, len(self.items) - 1)]
        self.app.push_screen(ProfileScreen(column_request(self.cmp, self.column, item.workload)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="triage.series")
    def find_runs(self, cmp: Comparison, item: TriageItem, column: int) -> None:
        cur = self.store.cursor()
        try:
            found = [
                latest_run(
                    cur,
                    host=cmp.host,
                    build=spec.build or label,
                    workload=item.workload,
                    dop=item.dop,
                    config=spec.config if spec.build else cmp.config,
                )
                for label in (cmp.base, cmp.columns[column])
                for spec in (cmp.spec(label),)
            ]
        finally:
            cur.close()
        run_ids = [r for r in found if r is not None]
        if not run_ids:
            raise KeyError(f"no finished runs of {item.workload} left in the store")
        self.post_message(self.RunsFound(run_ids))

    def on_triage_screen_runs_found(self, msg: RunsFound) -> None:
        from benchdeck.tui.app.screens.series import SeriesScreen

        self.app.push_screen(SeriesScreen(msg.run_ids))
