"""What differs between two runs (DBMS version, variables, config files, host facts, command
lines), opened from Runs with two runs marked: the first question of triage."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Static

from benchdeck.store.analysis.run_diff import Difference, NoRecord, diff_runs
from benchdeck.tui.app.screens.base import BenchdeckScreen, tcss
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.keybar import KeyBar

COLUMNS = ("section", "what", "run A", "run B")
MAX_CELL = 60  # a long value (a config block) is cut in the table; the CLI shows it whole


CONTEXT = 20  # characters kept before where two long values first differ


def cell(value: str | None, start: int = 0) -> Text:
    """``value`` on one line, at most MAX_CELL wide, from ``start`` (an ellipsis at a cut end)."""
    if value is None:
        return Text("(none)", style="dim")
    one = " | ".join(value.splitlines())
    head = "…" if start > 0 else ""
    body = one[start:]
    if len(head) + len(body) > MAX_CELL:
        body = body[: MAX_CELL - len(head) - 1] + "…"
    return Text(head + body)


def cells(a: str | None, b: str | None) -> tuple[Text, Text]:
    """Both values cut alike around where they first differ: two long command lines that
    differ at the end (``--durability=full`` / ``normal``) showed the same first 60 characters."""
    if a is None or b is None:
        return cell(a), cell(b)
    one_a, one_b = " | ".join(a.splitlines()), " | ".join(b.splitlines())
    if max(len(one_a), len(one_b)) <= MAX_CELL:
        return cell(a), cell(b)
    first = next(
        (i for i, (x, y) in enumerate(zip(one_a, one_b, strict=False)) if x != y), min(len(one_a), len(one_b))
    )
    start = max(0, first - CONTEXT) if first > MAX_CELL - CONTEXT else 0
    return cell(a, start), cell(b, start)


class RunDiffScreen(BenchdeckScreen):
    """The differences between run A and run B, section by section."""

    CSS_PATH = tcss("run_diff.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="diff.close", tooltip="Back to the previous screen"),
        Binding(
            "v",
            "volatile",
            "All variables",
            id="diff.volatile",
            tooltip="Also variables that move on their own",
        ),
    ]

    class Loaded(Message, bubble=False):
        def __init__(self, diffs: list[Difference] | None, error: str | None = None) -> None:
            super().__init__()
            self.diffs = diffs
            self.error = error

    def __init__(self, run_a: int, run_b: int) -> None:
        super().__init__()
        self.run_a, self.run_b = run_a, run_b
        self.volatile = False
        self.diffs: list[Difference] = []

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield Static("loading ...", id="diff-title")
        yield DataTable[object](id="diff-table", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="diff.load")
    def load(self) -> None:
        cur = self.store.cursor()
        try:
            msg = self.Loaded(diff_runs(cur, self.run_a, self.run_b, volatile=self.volatile))
        except NoRecord as exc:
            msg = self.Loaded(None, str(exc))
        finally:
            cur.close()
        self.post_if_current(msg)

    def on_run_diff_screen_loaded(self, msg: Loaded) -> None:
        title = self.query_one("#diff-title", Static)
        table = self.query_one("#diff-table", DataTable)
        table.clear(columns=True)
        if msg.diffs is None:
            title.update(f"run A = {self.run_a}, run B = {self.run_b}: {msg.error}")
            return
        self.diffs = msg.diffs
        n = len(msg.diffs)
        title.update(
            f"run A = {self.run_a}, run B = {self.run_b}: "
            + (f"{n} difference(s)" if n else "same DBMS, variables, config files, host facts and commands")
        )
        for name in COLUMNS:
            table.add_column(name, key=name)
        for i, d in enumerate(msg.diffs):
            table.add_row(Text(d.section), Text(d.key), *cells(d.a, d.b), key=str(i))

    def action_volatile(self) -> None:
        self.volatile = not self.volatile
        self.load()

    def action_close(self) -> None:
        self.dismiss()
