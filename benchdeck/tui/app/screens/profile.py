"""Profile: where the CPU went per query in one workload, base vs column (or one side).

Opened with ``p`` on a workload's row in Triage and Changes (and on Compare, for its first
workload with profiles). The icicle flame graph of the column (differential: coloured by how
each frame's own CPU per query changed from the base, in the theme's rQPS colours; ``d``
switches to the plain view, ``b`` shows the base's), the frame under the cursor, and the top
functions by the change of their self CPU per query. The store is read and the trees built in a
worker: the UI thread only lays out what fits on the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from benchdeck.engine.config_names import config_label
from benchdeck.engine.profiling.cpu import ProfileError, diff_functions
from benchdeck.engine.profiling.tree import Frame, attach_other, build_tree, self_us
from benchdeck.store.storage.profiles import profiled_workloads
from benchdeck.tui.app.screens.base import BenchdeckScreen, tcss
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.flame import FlameGraph
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.app.widgets.rqps import rqps_colours
from benchdeck.tui.services.profiles import (
    RATIOS_NOTE,
    ProfileRequest,
    Profiles,
    load_profiles,
    per_q,
    table_rows,
)

TOP_ROWS = 50


ZOOM_TAIL = "  (Esc: out)"


def _keep_end(path: str, width: int) -> str:
    """``path`` cut to ``width`` at its start (its end is the frame the graph starts at)."""
    return path if len(path) <= width else "…" + path[len(path) - width + 1 :]


if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, slots=True)
class Loaded:
    """What the worker read and built."""

    profiles: Profiles
    column_tree: Frame | None  # with the base's values attached (differential)
    base_tree: Frame
    scale: float  # the largest change of a frame's self CPU per query
    head: list[str]
    rows: list[list[str]]
    workloads: list[str]  # with profiles on every side (``w`` goes to the next)
    request: ProfileRequest


def load(cur: duckdb.DuckDBPyConnection, req: ProfileRequest) -> Loaded:
    """Read the side(s) and build their trees (in the screen's worker)."""
    workloads: list[str] = []
    if req.host and req.base:
        builds = [req.base] + ([req.column] if req.column else [])
        base_config = req.base_config if req.base_config is not None else req.config
        configs = [base_config] + ([req.config] if req.column else [])
        workloads = profiled_workloads(cur, req.host, builds, configs)
        if req.workload is None:
            if not workloads:
                sides = " and ".join(
                    f"{b}:{config_label(c)}" if c is not None else b
                    for b, c in zip(builds, configs, strict=True)
                )
                raise ProfileError(f"no workload on {req.host} has profiles of {sides}")
            req = replace(req, workload=workloads[0])
    p = load_profiles(cur, req)
    base_tree = build_tree(p.base.stacks)
    column_tree = None
    scale = 0.0
    if p.column is not None:
        column_tree = build_tree(p.column.stacks)
        attach_other(column_tree, base_tree)
        scale = max((abs(d.diff()) for d in diff_functions(p.base, p.column, None)), default=0.0)
    head, rows = table_rows(p, TOP_ROWS, "self")
    return Loaded(p, column_tree, base_tree, scale, head, rows, workloads, req)


class ProfileScreen(BenchdeckScreen):
    """The flame graph and top functions of one workload's profiles."""

    CSS_PATH = tcss("profile.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="profile.back", tooltip="Zoom out, else back"),
        Binding("slash", "search", "Search", id="profile.search", tooltip="Highlight frames by name"),
        Binding("d", "toggle_diff", "Diff/plain", id="profile.diff", tooltip="Differential or plain colours"),
        Binding(
            "b", "toggle_side", "Base/column", id="profile.side", tooltip="The base's or the column's graph"
        ),
        Binding(
            "w", "next_workload", "Workload", id="profile.workload", tooltip="The next profiled workload"
        ),
        Binding("q", "close", "Close", id="profile.close", show=False),
    ]

    class Ready(Message, bubble=False):
        def __init__(self, loaded: Loaded | None, error: str | None = None) -> None:
            super().__init__()
            self.loaded = loaded
            self.error = error

    def __init__(self, request: ProfileRequest) -> None:
        super().__init__()
        self.request = request
        self.loaded: Loaded | None = None
        self.differential = True
        self.base_side = False

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield Static("reading the profiles ...", id="profile-head")
        yield Static("", id="profile-view")
        yield FlameGraph(id="profile-flame")
        yield Static("", id="profile-info")
        yield DataTable[object](id="profile-top", cursor_type="row", zebra_stripes=True)
        yield Input(placeholder="search frames (Enter: keep, Esc: clear)", id="profile-search")
        yield KeyBar()

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_graph())
        self.read()

    @work(thread=True, exclusive=True, exit_on_error=False, group="profile.load")
    def read(self) -> None:
        cur = self.store.cursor()
        try:
            msg = self.Ready(load(cur, self.request))
        except ProfileError as exc:
            msg = self.Ready(None, str(exc))
        finally:
            cur.close()
        self.post_if_current(msg)

    def on_profile_screen_ready(self, msg: Ready) -> None:
        head = self.query_one("#profile-head", Static)
        if msg.loaded is None:
            head.update(f"No profile to show: {msg.error}")
            return
        self.loaded = msg.loaded
        self.request = msg.loaded.request
        p = msg.loaded.profiles
        unit = per_q(p.base.unit)
        lines = []
        for name, side in (("base ", p.base), ("col-1", p.column)):
            if side is not None:
                figure = f"{side.cpu_per_query:,.1f} {unit} profiled" if side.per_query else RATIOS_NOTE
                lines.append(f"{name} {side.label}: {figure}")
        head.update("\n".join(lines))
        table = self.query_one("#profile-top", DataTable)
        table.clear(columns=True)
        # widths from the data, given explicitly (a table left to measure itself can show
        # cells cut to the header's width after a redraw: see the Changes screen)
        for j, name in enumerate(msg.loaded.head):
            width = max([len(name), *(len(r[j]) for r in msg.loaded.rows)])
            table.add_column(name, key=name, width=width)
        for i, row in enumerate(msg.loaded.rows):
            table.add_row(Text(row[0]), *(Text(c, justify="right") for c in row[1:]), key=str(i))
        self.show_graph()
        self.refresh_bindings()
        self.query_one(FlameGraph).focus()

    def show_graph(self) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        flame = self.query_one(FlameGraph)
        column = loaded.column_tree
        if column is None or self.base_side:
            flame.show(loaded.base_tree, None, rqps_colours(self.app))
        else:
            flame.show(column, loaded.scale if self.differential else None, rqps_colours(self.app))

    @on(FlameGraph.Zoomed)
    def show_view(self, msg: FlameGraph.Zoomed) -> None:
        """Which graph this is (the column's, differential or plain, or the base's) and, zoomed,
        the path from the root to the frame it starts at (its start kept when cut)."""
        loaded = self.loaded
        if loaded is None:
            return
        if loaded.column_tree is None:
            what = "the base's graph"
        elif self.base_side:
            what = "the base's graph  (b: col-1's)"
        elif self.differential:
            what = "col-1's graph: colour = change of self CPU vs the base  (b: base's)"
        else:
            what = "col-1's graph, plain colours  (b: base's)"
        line = Text(what, style="bold", no_wrap=True, overflow="ellipsis")
        frame, path = msg.frame, []
        while frame is not None and frame.parent is not None:
            path.append(frame.name)
            frame = frame.parent
        if path:
            view = self.query_one("#profile-view", Static)
            room = max(20, view.size.width - 2) - len("zoomed: ") - len(ZOOM_TAIL)
            line.append("\nzoomed: ")
            line.append(_keep_end(" > ".join(["all", *reversed(path)]), room))
            line.append(ZOOM_TAIL, style="dim")
        self.query_one("#profile-view", Static).update(line)

    @on(FlameGraph.Selected)
    def show_frame(self, msg: FlameGraph.Selected) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        f = msg.frame
        flame = self.query_one(FlameGraph)
        root = flame.root
        total = root.samples if root is not None and root.samples else 1
        unit = per_q(loaded.profiles.base.unit)
        text = f"{f.name}: {f.samples:,} samples ({100 * f.samples / total:.1f}%), "
        text += f"total {f.us:,.2f} self {self_us(f):,.2f} {unit}"
        if flame.differential:
            text += f"  (base total {f.other_us:,.2f} self {f.other_self_us:,.2f})"
        self.query_one("#profile-info", Static).update(Text(text, no_wrap=True, overflow="ellipsis"))

    def action_back(self) -> None:
        search = self.query_one("#profile-search", Input)
        if search.has_class("shown"):
            search.remove_class("shown")
            search.value = ""
            self.query_one(FlameGraph).set_search("")
            self.query_one(FlameGraph).focus()
            return
        if not self.query_one(FlameGraph).zoom_out():
            self.dismiss()

    def action_close(self) -> None:
        self.dismiss()

    def action_search(self) -> None:
        search = self.query_one("#profile-search", Input)
        search.add_class("shown")
        search.focus()

    @on(Input.Changed, "#profile-search")
    def search_changed(self, event: Input.Changed) -> None:
        self.query_one(FlameGraph).set_search(event.value)

    @on(Input.Submitted, "#profile-search")
    def search_kept(self) -> None:
        self.query_one(FlameGraph).focus()

    def action_toggle_diff(self) -> None:
        self.differential = not self.differential
        self.base_side = False
        self.show_graph()

    def action_toggle_side(self) -> None:
        self.base_side = not self.base_side
        self.show_graph()

    def action_next_workload(self) -> None:
        loaded = self.loaded
        if loaded is None or len(loaded.workloads) < 2:
            return
        names = loaded.workloads
        i = names.index(self.request.workload) + 1 if self.request.workload in names else 0
        self.request = replace(self.request, workload=names[i % len(names)])
        self.read()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_workload":
            return self.loaded is not None and len(self.loaded.workloads) > 1
        if action in ("toggle_diff", "toggle_side"):
            return self.loaded is not None and self.loaded.column_tree is not None
        return True
