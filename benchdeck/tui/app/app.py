"""The benchdeck Textual app: Runs, Compare and Triage over the store.

Screens are modes listed in :data:`NAV`: adding a screen is one line there (its key, its
footer entry and its command come with it). Store access runs in thread workers; results come
back as messages, errors as notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import platformdirs
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.signal import Signal
from textual.worker import Worker

from benchdeck.themes.loader import DEFAULT_THEME, RQPS_VARIABLES, bundled_themes, rqps_defaults, user_themes
from benchdeck.tui.app.commands import BenchdeckCommands
from benchdeck.tui.app.context import AppServices
from benchdeck.tui.app.nav import NAV
from benchdeck.tui.app.screens.base import report_worker_error, tcss
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.state.settings import (
    SettingsError,
    UiSettings,
    load_ui_settings,
    remembered,
    save_ui_settings,
    user_themes_dir,
)
from benchdeck.tui.app.stylesheet import KeptParseStylesheet, write_kept
from benchdeck.tui.startup.first_page import cache_dir
from benchdeck.tui.startup.store_handle import Opening

if TYPE_CHECKING:
    from benchdeck.tui.app.screens.runs_actions import RerunRequested  # (Runs' module: not for Launch)
    from benchdeck.tui.app.state.live_hub import LiveHub
    from benchdeck.tui.startup.runs_page import RunsPage  # (with the store's queries: not for Launch)


OPEN_WAIT_S = 0.5  # at most this long before the first frame for the store to open
CLOSE_WAIT_S = 10.0  # at most this long, quitting, for a store still opening to have opened
FREEZE_AFTER_S = 2.0  # startup is over: its objects are frozen (gc.freeze) then
LEFTOVERS_WAIT_S = 60.0  # at most this long, starting a queue, for the start's look at leftovers
KEEP_MARGIN_S = 0.25  # a first page the opening could not keep: kept this long after it can be


class BenchdeckApp(App[None]):
    """Run, watch and compare benchmark sessions."""

    TITLE = "benchdeck"
    CSS_PATH = tcss("app.tcss")
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {n.mode: n.screen for n in NAV}
    DEFAULT_MODE: ClassVar[str] = NAV[0].mode
    COMMANDS = App.COMMANDS | {BenchdeckCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            Binding(
                n.key, f"switch_mode('{n.mode}')", n.title, id=f"app.mode.{n.mode}", tooltip=n.description
            )
            for n in NAV
        ),
        Binding("ctrl+t", "next_theme", "Theme", id="app.next_theme", tooltip="Next benchdeck theme"),
        Binding(
            "question_mark,f1",
            "toggle_keys",
            "Keys",
            id="app.keys",
            tooltip="Show or hide every key of this screen",
        ),
        Binding("escape", "hide_keys", "Hide keys", id="app.hide_keys", show=False),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit benchdeck"),
    ]

    def __init__(
        self, db: Path | None = None, opening: Opening | None = None, *, gc_paused: bool = False
    ) -> None:
        """``opening``: the store, already opening (``benchdeck`` starts it before it imports
        Textual); else it starts opening now. ``gc_paused``: the entry turned the cycle
        collector off for the start (tui/entry.py): it runs again once startup is over."""
        super().__init__()
        self.stylesheet = KeptParseStylesheet(  # (Textual's, made just now, had parsed nothing)
            variables=self.stylesheet._variables, cache=cache_dir()
        )
        self.db = db
        self._opening = opening if opening is not None else Opening(db)
        self.store = self._opening.store
        self._opened = self._opening.opened
        self._selection = Selection()
        self._hub: LiveHub | None = None
        self._leftovers_checked = asyncio.Event()
        """Set once the start has looked for runs and queues a closed benchdeck left (and resumed
        them): a queue started before that would be taken for one of them and run twice."""
        self.runs_changed_signal: Signal[None] = Signal(self, "runs-changed")
        """Published when a run started from the app has ended and is stored."""
        self.store_opened_signal: Signal[None] = Signal(self, "store-opened")
        """Published once the store has opened (or failed to)."""
        self.startup_errors: list[str] = []
        self._remember_theme = False
        self._gc_paused = gc_paused  # the collector was paused for startup (on_load) and runs again
        self.first_frame_out = False
        """A screen has drawn a frame outside the batch of the app's start (BenchdeckScreen)."""
        for theme in bundled_themes():
            self.register_theme(theme)
        themes, errors = user_themes(user_themes_dir())
        self.startup_errors += errors
        for theme in themes:
            self.register_theme(theme)
        try:
            self.saved = load_ui_settings()
        except SettingsError as exc:
            self.startup_errors.append(str(exc))
            self.saved = UiSettings()
        wanted = self.saved.theme
        if wanted and wanted not in self.available_themes:
            self.startup_errors.append(
                f"theme {wanted!r} (from the settings) is not known: using {DEFAULT_THEME}"
            )
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        last = self.saved.latest()
        if last is not None:  # where the user left off (Compare checks it against the store)
            self._selection = Selection(last.host, last.base, last.columns, last.config, last.dop)

    def take_first_runs(self) -> RunsPage | None:
        """The Runs screen's first page: kept by the last start (the store being as it was),
        else read as the store opened (once; None if not read yet)."""
        return self._opening.take_first_runs()

    @property
    def first_runs_kept(self) -> bool:
        """The first page shown was the one the last start kept (the store opens after it)."""
        return self._opening.kept is not None

    def take_store_update(self) -> tuple[bool, RunsPage | None]:
        """Once the store has opened after a kept first page: whether its own page differs
        (or could not be read), and that page."""
        return self._opening.take_update()

    @property
    def selection(self) -> Selection:
        """The comparison being looked at (host, base, with builds ...), shared by the screens;
        remembered per host and config in the UI settings file."""
        return self._selection

    @selection.setter
    def selection(self, sel: Selection) -> None:
        self._selection = sel
        saved = remembered(sel)
        if saved is not None and self.saved.comparisons[:1] != (saved,):
            self.saved = self.saved.remember(saved)
            self.save_settings(self.saved)

    @property
    def hub(self) -> LiveHub:
        """Runs started from the app: the Launch screen queues, the Live screen watches.

        Made on first use (it loads the engine's run side, which the first frame does not need).
        """
        if self._hub is None:
            from benchdeck.tui.app.state.live_hub import LiveHub

            self._hub = LiveHub(self.store.get, base_build=lambda: self.selection.base)
            self._hub.on_error = lambda message: self.notify(message, title="Live", severity="error")
            self._hub.on_fault = lambda message, severity: self.notify(
                message, title="Cluster", severity=severity
            )
            self._hub.on_run_stored = lambda: self.runs_changed_signal.publish(None)
            self._hub.before_start = self._leftovers_known
        return self._hub

    async def _leftovers_known(self) -> None:
        """A queue started from the app waits for the start's look at what a closed benchdeck
        left (:meth:`_auto_resume`): that look reads the store, and would otherwise find this
        queue's runs and items and run them a second time beside it (seen as a queue's second
        run failing at once: "run 1 still has its prepare running")."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._leftovers_checked.wait(), timeout=LEFTOVERS_WAIT_S)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return rqps_defaults(self.current_theme)

    async def on_load(self) -> None:
        """Give the store a moment to open (it opens on its own thread): knowing whether it
        holds runs before the first screen is drawn saves drawing Runs to leave it at once.

        The cycle collector pauses until startup is over: what startup makes lives as long as
        the app, so collecting it on the way only delays the first frame."""
        self._gc_paused = self._gc_paused or gc.isenabled()
        gc.disable()
        # asyncio.wait, not wait_for: a timeout must not cancel the opening (it goes on)
        if not self._opening.decided.done():  # a child reads the first page (tui.page_peek)
            await asyncio.wait([asyncio.wrap_future(self._opening.decided)], timeout=OPEN_WAIT_S)
            self._opening.settle()
        if self._opening.started:  # (else a first page kept or read by the child is shown)
            await asyncio.wait([asyncio.wrap_future(self._opened)], timeout=OPEN_WAIT_S)
        elif self._opening.empty and self.current_mode == NAV[0].mode:
            # No runs: the first screen composed is Launch, not Runs left at once. Textual
            # (8.2) composes the current mode's screen after Load and has no public way to
            # choose it; switch_mode needs a screen on the stack (tests/startup/test_startup.py)
            stacks = self._screen_stacks
            stacks["launch"] = stacks.pop(self._current_mode)
            self._current_mode = "launch"

    def on_mount(self) -> None:
        self.set_timer(FREEZE_AFTER_S, self._freeze_startup_objects)
        self._remember_theme = True  # from now on a theme change is the user's choice
        for error in self.startup_errors:
            self.notify(error, title="settings", severity="error")
        if self._opened.done():
            self._first_screen()
        else:
            self._opened.add_done_callback(lambda _f: self.call_later(self._first_screen))
        if not self._opening.started:  # a kept first page: the store opens once it is shown
            # (the app's queue runs once it has mounted; the screen's refresh is the frame)
            self.call_later(lambda: self.screen.call_after_refresh(self._opening.start))

    def _freeze_startup_objects(self) -> None:
        """What startup made (modules, classes, styles, screens) lives as long as the app: once
        collected, it is frozen out of the collector's way, so every later collection is cheaper
        (Live's CPU shows it); then the collector runs again."""
        gc.collect()
        gc.freeze()
        self._resume_gc()
        self._keep_css(wait=False)

    def _keep_css(self, wait: bool) -> None:
        """The CSS parsed so far, kept for the next start (tui/app/stylesheet.py): on a thread,
        or now (``wait``: the app ends)."""
        sheet = self.stylesheet
        kept = sheet.to_keep() if isinstance(sheet, KeptParseStylesheet) else None
        if kept is None:
            return
        if wait:
            write_kept(*kept)
        else:
            self.run_worker(partial(write_kept, *kept), thread=True, group="startup.css", exit_on_error=False)

    def _resume_gc(self) -> None:
        if self._gc_paused:
            self._gc_paused = False
            gc.enable()

    def _first_screen(self) -> None:
        """A store with no runs yet opens on Launch (the built-in workload is one key away)."""
        opened = self._opened
        empty = not opened.cancelled() and opened.exception() is None and opened.result() == 0
        if empty and self.current_mode == NAV[0].mode:
            self.switch_mode("launch")
        self.store_opened_signal.publish(None)
        if opened.cancelled() or opened.exception() is not None:
            self._leftovers_checked.set()  # (no store: nothing to resume, nothing to wait for)
        else:
            self.run_worker(self._auto_resume(), group="resume", exit_on_error=False)
            self._watch_others()
            if self._opening.keep_later:  # (a first start's store, or one written just before)
                from benchdeck.tui.startup import first_page

                self.set_timer(first_page.QUIET_S + KEEP_MARGIN_S, self._keep_again)

    def _keep_again(self) -> None:
        """Keep the first page (or "no runs") the opening could not, once the store has been
        quiet for first_page.QUIET_S: the next start shows it without waiting for the peek
        child (tui/startup/page_peek.py), whose answer the first frame would wait for."""
        if self._opening.keep_later:
            self.run_worker(self._opening.keep_again, thread=True, group="startup.keep", exit_on_error=False)

    def _watch_others(self) -> None:
        """What other processes store beside the app (imports, CLI runs) shows as the app's own
        runs do: the screens reload (tui/app/state/store_watch.py)."""
        from benchdeck.tui.app.state.store_watch import WATCH_S, StoreWatch

        watch = StoreWatch(self.store.get)
        polling = [False]

        def poll() -> None:
            try:
                if watch.changed():
                    self.call_from_thread(self.runs_changed_signal.publish, None)
            except Exception as exc:
                self.log.warning(f"store watch: {exc}")
            finally:
                polling[0] = False

        def tick() -> None:
            if not polling[0]:  # one poll at a time: a store held by another process is waited for
                polling[0] = True
                self.run_worker(poll, thread=True, group="store.watch", exit_on_error=False)

        tick()  # the first poll takes the state
        self.set_interval(WATCH_S, tick)

    async def _auto_resume(self) -> None:
        """What ``benchdeck resume`` does, at start: reattach to runs a closed benchdeck left
        running (backfilling them) and go on with waiting queues."""
        try:
            running, waiting = await self.hub.pending_work()
            if running or waiting:
                self.hub.start_resume(running, waiting)
        finally:
            self._leftovers_checked.set()
        if running or waiting:
            self.notify(
                f"reattached to {running} run(s) left running; {waiting} queued run(s) go on "
                "(Live shows them)",
                title="Resume",
            )

    async def action_quit(self) -> None:
        """Quit; while runs are going, ask first: they go on detached on their hosts, and the
        next start reattaches to them."""
        if self._hub is None or not self._hub.busy:
            self.exit()
            return
        from benchdeck.tui.app.screens.dialogs import ConfirmDialog

        n = len(self._hub.model.active())
        going = f"{n} run(s) are going" if n else "A queue is going"
        question = (
            f"{going}. Quit anyway? They go on on their hosts (queued runs wait); "
            "the next benchdeck start reattaches to them (or: benchdeck resume)."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmDialog(question, yes="Quit"), answered)

    async def on_unmount(self) -> None:
        if self._hub is not None:
            await self._hub.close()
        self._opening.stop_peek()
        if self._opening.started:  # a quit at once: the opening thread must not be inside
            # DuckDB (its import or open) as the process exits (that aborts it)
            await asyncio.wait([asyncio.wrap_future(self._opened)], timeout=CLOSE_WAIT_S)
        self.store.close()
        self._keep_css(wait=True)  # (what later screens parsed too)
        gc.unfreeze()  # the collector sees everything again: nothing outlives the app unfreed
        self._resume_gc()

    # --- keys, palette, screenshot ---

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "hide_keys":  # Esc closes the keys panel; otherwise it is the screen's
            return bool(self.screen.query("HelpPanel"))
        return True

    def action_toggle_keys(self) -> None:
        """The keys panel (every binding of the screen, the focused widget and the app, the
        screen's first), shown or hidden."""
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            from benchdeck.tui.app.widgets.keys_help import KeysHelp  # (not at start-up)

            self.screen.mount(KeysHelp())

    def action_hide_keys(self) -> None:
        self.action_hide_help_panel()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's commands, less its theme picker (the palette's "Theme" is ours: the
        benchdeck themes, with rQPS colours) and with a screenshot that says where it went."""
        for command in super().get_system_commands(screen):
            if command.title == "Theme":
                continue
            if command.title == "Screenshot":
                command = SystemCommand(
                    "Screenshot", "Save an SVG screenshot (to ~/Downloads, else here)", self.action_screenshot
                )
            yield command

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """Save the screen as SVG in ``path``, else the downloads directory (the working
        directory if there is none), and say where, or where it tried and why it failed."""
        svg = self.export_screenshot()
        name = filename or f"benchdeck-{datetime.now():%Y-%m-%dT%H-%M-%S}.svg"
        self.write_screenshot(svg, name, Path(path) if path else None)

    @work(thread=True, exclusive=False, exit_on_error=False, group="screenshot")
    def write_screenshot(self, svg: str, name: str, folder: Path | None = None) -> None:
        downloads = folder or Path(platformdirs.user_downloads_dir())
        folder = downloads if downloads.is_dir() else Path.cwd()
        path = folder / name
        try:
            path.write_text(svg, encoding="utf-8")
        except OSError as exc:
            self.call_from_thread(
                self.notify,
                f"could not save {path}: {exc.strerror or exc}",
                title="Screenshot",
                severity="error",
            )
            return
        where = "" if folder == downloads else f" ({downloads} does not exist)"
        self.call_from_thread(self.notify, f"saved {path}{where}", title="Screenshot")

    # --- themes ---

    @property
    def benchdeck_themes(self) -> list[str]:
        """Themes that define rQPS colours (the bundled ones and the user's), in name order."""
        return sorted(
            n for n, t in self.available_themes.items() if any(v in t.variables for v in RQPS_VARIABLES)
        )

    def action_next_theme(self) -> None:
        names = self.benchdeck_themes
        self.theme = names[(names.index(self.theme) + 1) % len(names)] if self.theme in names else names[0]
        self.notify(f"theme: {self.theme}", timeout=2)

    def watch_theme(self, name: str) -> None:
        if self._remember_theme and name != self.saved.theme:
            self.saved = replace(self.saved, theme=name)
            self.save_settings(self.saved)

    @work(thread=True, exclusive=True, exit_on_error=False, group="settings")
    def save_settings(self, settings: UiSettings) -> None:
        save_ui_settings(settings)

    # --- messages from the screens ---

    @work(exclusive=False, group="rerun", exit_on_error=False)
    async def on_rerun_requested(self, msg: RerunRequested) -> None:
        """Queue the same host, build and workload again, with the same concurrency, duration
        and queue options (tables, warm-up ...)."""
        from benchdeck.tui.app.state.rerun import queue_again

        queue_id, message = await queue_again(self.hub, msg.run_id)
        if queue_id is None:
            self.notify(message, severity="error")
            return
        self.notify(message, title="Re-run")
        self.switch_mode("live")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)


def run_app(db: Path | None = None, opening: Opening | None = None, gc_paused: bool = False) -> None:
    BenchdeckApp(db=db, opening=opening, gc_paused=gc_paused).run()


def _provides(app: BenchdeckApp) -> AppServices:
    """(For mypy: the app offers what its screens use.)"""
    return app
