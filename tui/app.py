"""The benchdeck Textual app: runs history and comparisons over the store.

Store access runs in thread workers; results come back as messages, errors as notifications.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Label, Select, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from engine.catalogue import default_catalogue
from store.compare import Comparison, compare
from store.db import Store
from store.queries import RunRow, list_builds, list_hosts, list_runs
from tui.render_rich import rqps_style


@dataclass
class Loaded(Message):
    """Runs, hosts and builds read from the store."""

    runs: list[RunRow]
    hosts: list[str]
    builds: list[str]
    note: str


@dataclass
class Compared(Message):
    result: Comparison


class BenchdeckApp(App[None]):
    """Pick, watch and compare benchmark runs."""

    TITLE = "benchdeck"
    CSS_PATH = str(Path(__file__).resolve().parent.parent / "themes" / "app.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reload", "Reload", id="reload"),
        Binding("c", "show_tab('compare')", "Compare", id="compare"),
        Binding("u", "show_tab('runs')", "Runs", id="runs"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, db: Path | None = None) -> None:
        super().__init__()
        self.db = db

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="runs"):
            with TabPane("Runs", id="runs"):
                yield Label("", id="store-note")
                yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Compare", id="compare"):
                with Horizontal(id="compare-pickers"):
                    yield Select[str]([], prompt="host", id="pick-host")
                    yield Select[str]([], prompt="base build", id="pick-base")
                    yield Select[str]([], prompt="with build", id="pick-with")
                yield DataTable(id="rqps-table", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        table.add_columns("run", "host", "build", "config", "workload", "dop", "status", "QPS")
        self.action_reload()

    def action_reload(self) -> None:
        self.load_store()

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def load_store(self) -> None:
        with Store.open_for_reading(self.db) if self._db_exists() else Store.open(self.db) as store:
            cur = store.cursor()
            note = f"store: {store.snapshot_of or store.path}"
            if store.snapshot_of:
                note += " (in use elsewhere: showing a read-only snapshot)"
            self.post_message(Loaded(list_runs(cur), list_hosts(cur), list_builds(cur), note))

    def _db_exists(self) -> bool:
        from store.db import default_db_path

        return (self.db or default_db_path()).exists()

    def on_loaded(self, msg: Loaded) -> None:
        self.query_one("#store-note", Label).update(msg.note)
        table = self.query_one("#runs-table", DataTable)
        table.clear()
        for r in msg.runs:
            qps = f"{r.qps:,.1f}" if r.qps is not None else "-"
            table.add_row(
                str(r.run_id),
                r.host,
                r.build,
                r.config,
                r.workload,
                str(r.threads or ""),
                r.status,
                qps,
            )
        self.query_one("#pick-host", Select).set_options((h, h) for h in msg.hosts)
        for sel in ("#pick-base", "#pick-with"):
            self.query_one(sel, Select).set_options((b, b) for b in msg.builds)

    @on(Select.Changed)
    def pickers_changed(self) -> None:
        host = self.query_one("#pick-host", Select).value
        base = self.query_one("#pick-base", Select).value
        other = self.query_one("#pick-with", Select).value
        if all(isinstance(v, str) for v in (host, base, other)) and base != other:
            self.run_compare(str(host), str(base), str(other))

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare")
    def run_compare(self, host: str, base: str, other: str) -> None:
        cat = default_catalogue()
        with Store.open_for_reading(self.db) as store:
            result = compare(
                store.cursor(),
                host=host,
                base=base,
                with_builds=[other],
                group_of=cat.group_of,
                sort_key=cat.sort_key,
            )
        self.post_message(Compared(result))

    def on_compared(self, msg: Compared) -> None:
        from rich.text import Text

        table = self.query_one("#rqps-table", DataTable)
        table.clear(columns=True)
        table.add_columns("col-1", "workload", "group")
        for row in msg.result.rqps:
            v = row.values[0]
            table.add_row(
                Text(f"{v:.2f}" if v is not None else "-", style=rqps_style(v)),
                row.workload,
                row.group,
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.notify(str(event.worker.error), title="benchdeck", severity="error")


def run_app(db: Path | None = None) -> None:
    BenchdeckApp(db=db).run()
