"""Bisect: a bisect session, running or done, as a commit line.

One row per commit from good (top) to bad: its verdict, and each of its runs as a dot placed by
the run's QPS over the good endpoint's median (``|`` marks 1.0) and coloured by the decision (the
theme's rQPS colours: good, bad; unclear and skipped neutral). Above: the step and what the
bisect waits for; below, at the end, the culprit and the functions whose CPU per query grew from
its parent. The sessions are the ones beside the store (``benchdeck bisect`` writes them, from
the CLI or another process): ``n`` shows the next, and a running one is read again every few
seconds.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from benchdeck.tui.app.screens.base import BenchdeckScreen, tcss
from benchdeck.tui.app.state.bisect_view import CommitRow, View, session_view
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.app.widgets.rqps import RqpsColours, rqps_colours
from benchdeck.tui.services.bisect_state import all_sessions, sessions_dir
from benchdeck.tui.services.eta import format_s

STRIP = 32  # columns of the dots' strip
REFRESH_S = 5.0


def strip_range(view: View) -> tuple[float, float]:
    """The ratios the strip spans: every run's, and 1.0, with a little room."""
    values = [r for row in view.rows for r in row.ratios] + [1.0]
    low, high = min(values), max(values)
    pad = max((high - low) * 0.05, 0.01)
    return low - pad, high + pad


def strip(row: CommitRow, span: tuple[float, float], colour: str) -> Text:
    """The row's runs as dots on the strip, ``|`` at 1.0."""
    low, high = span

    def col(v: float) -> int:
        return min(STRIP - 1, max(0, round((v - low) / (high - low) * (STRIP - 1))))

    cells: list[tuple[str, str]] = [(" ", "")] * STRIP
    cells[col(1.0)] = ("|", "dim")
    for v in row.ratios:
        cells[col(v)] = ("●", colour)
    return Text.assemble(*cells)


def colour_of(mark: str, c: RqpsColours) -> str:
    return {"good": c.good, "bad": c.bad, "testing": "bold"}.get(mark, c.neutral)


def commit_line(view: View, c: RqpsColours) -> Text:
    span = strip_range(view)
    out = Text()
    for row in view.rows:
        colour = colour_of(row.mark, c)
        r = row.to_good
        shown = f"x{r.value:.3f}" if r else ""
        out.append(f"{row.position:>3} {row.short} ")
        out.append(f"{row.mark or '·':<8}", style=colour)
        out.append_text(strip(row, span, colour))
        out.append(f" {shown:<7} {row.subject[:40]}\n")
    return out


class BisectScreen(BenchdeckScreen):
    """A bisect session's commit line, its step and, at the end, its culprit."""

    CSS_PATH = tcss("bisect.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="bisect.close", tooltip="Back to the previous screen"),
        Binding("n", "next", "Next session", id="bisect.next", tooltip="The next bisect beside the store"),
        Binding("r", "reload", "Reload", id="bisect.reload", tooltip="Read the session again"),
    ]

    class Loaded(Message, bubble=False):
        def __init__(self, view: View | None, index: int, count: int) -> None:
            super().__init__()
            self.view, self.index, self.count = view, index, count

    def __init__(self) -> None:
        super().__init__()
        self.index = 0
        self.view: View | None = None

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield Static("loading ...", id="bisect-title")
        with VerticalScroll(id="bisect-scroll"):
            yield Static("", id="bisect-line")
        yield Static("", id="bisect-end")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()
        self.set_interval(REFRESH_S, self._refresh_running)

    def _refresh_running(self) -> None:
        if self.view is not None and self.view.result is None:
            self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="bisect.load")
    def load(self) -> None:
        store = self.store.get()
        sessions = all_sessions(sessions_dir(store.label))
        if not sessions:
            self.post_if_current(self.Loaded(None, 0, 0))
            return
        i = self.index % len(sessions)
        cur = store.cursor()
        try:
            view = session_view(cur, sessions[i])
        finally:
            cur.close()
        self.post_if_current(self.Loaded(view, i, len(sessions)))

    def on_bisect_screen_loaded(self, msg: Loaded) -> None:
        self.view = msg.view
        title = self.query_one("#bisect-title", Static)
        if msg.view is None:
            title.update(
                "No bisect beside this store: benchdeck bisect --host H --recipe R --good G --bad B ..."
            )
            return
        v = msg.view
        state = (
            "done" if v.result is not None else "running" + (f", ETA {format_s(v.eta_s)}" if v.eta_s else "")
        )
        title.update(f"{v.title}  (session {msg.index + 1} of {msg.count}, step {v.steps}, {state})")
        self.query_one("#bisect-line", Static).update(commit_line(v, rqps_colours(self.app)))
        end = v.headline + (f"\nCPU per query grew: {v.grown}" if v.grown else "")
        self.query_one("#bisect-end", Static).update(end)

    def action_next(self) -> None:
        self.index += 1
        self.load()

    def action_reload(self) -> None:
        self.load()

    def action_close(self) -> None:
        self.dismiss()
