"""What every benchdeck screen shares: the store handle, the comparison selection, worker errors.

Store I/O runs in thread workers (``@work(thread=True, exclusive=True, exit_on_error=False,
group=...)``) that end in ``post_message``; a failed worker becomes one error notification
(:func:`report_worker_error`), never a traceback on screen.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual import events
from textual._context import NoActiveAppError  # (Textual exports it from no public module)
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from benchdeck.tui.app.context import AppServices, services
from benchdeck.tui.services.errors import is_a, is_compare_error, is_store_error
from benchdeck.tui.startup.store_handle import StoreHandle

THEMES = Path(__file__).resolve().parents[3] / "themes"
VALID_INPUT = "-valid"
"""Textual's class of an Input whose value passes its checks. Each Input sets it as it mounts (a
restyle each, before the first frame); an Input that starts with a valid value gets it at compose
(``classes=VALID_INPUT``) and that restyle costs nothing."""


def tcss(name: str) -> str:
    """Path of a stylesheet in the ``themes`` package (one per screen)."""
    return str(THEMES / name)


def user_message(error: BaseException) -> str:
    """One line for the user: our errors as they are, others with their type."""
    ours = is_store_error(error) or is_compare_error(error)
    if ours or isinstance(error, KeyError):
        text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    elif is_a(error, "duckdb", "Error"):
        text = f"store: {error}"
    elif isinstance(error, OSError):
        text = f"{error.filename + ': ' if error.filename else ''}{error.strerror or error}"
    else:
        text = f"{type(error).__name__}: {error}"
    lines = text.strip().splitlines()
    return lines[0] if lines else type(error).__name__


def report_worker_error(node: DOMNode, event: Worker.StateChanged) -> None:
    """The one handler for failed workers: a notification (and the traceback in the log)."""
    error = event.worker.error
    if event.state is WorkerState.ERROR and error is not None:
        node.log.error(f"worker {event.worker.name!r} failed", error)
        node.app.notify(user_message(error), title=toast_title(node), severity="error")


def toast_title(node: DOMNode) -> str:
    """What a failure's toast is titled: the screen it happened on as the user knows it
    (``Launch``, ``Run diff``), never the worker's method (``_start``, ``load``)."""
    name = type(node).__name__
    if not name.endswith("Screen") or name == "Screen":
        return "benchdeck"
    words = re.findall(r"[A-Z][a-z]*", name.removesuffix("Screen"))
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else "benchdeck"


def is_current() -> bool:
    """False in a thread worker that was cancelled (a newer request replaced it)."""
    try:
        return not get_current_worker().is_cancelled
    except RuntimeError:  # not in a worker
        return True


class StyledOnce(Screen[None]):
    """A screen whose first resume does not style its widgets a second time.

    Textual (8.2) sends a new mode's screen ScreenResume(refresh_styles=True) as it makes it;
    the screen handles it once its widgets have mounted, each styled as it mounted, and styles
    them all again (~15% of Launch's first frame, cProfile). A later resume (back from another
    screen, maybe after a theme change) restyles as Textual does. (A handler of its own class:
    Textual calls the ``_on_`` handler of each class in the MRO, ours first.)
    """

    _resumed = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False  # (Screen's handler, next, reads it)


class BenchdeckScreen(StyledOnce):
    """Base of the app's screens: store access, the worker error handler, reload on new runs.

    When a run started from the app ends, the screen showing the store reloads (``r``); the
    others reload when they are shown next.
    """

    _stale = False

    def on_mount(self) -> None:
        self.bd.runs_changed_signal.subscribe(self, self._runs_changed)

    def _runs_changed(self, _: None) -> None:
        if self.is_current:
            self.action_reload()
        else:
            self._stale = True

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self.action_reload()

    def action_reload(self) -> None:
        """Read what the screen shows from the store again."""

    @property
    def bd(self) -> AppServices:
        return services(self)

    @property
    def store(self) -> StoreHandle:
        return self.bd.store

    def post_if_current(self, message: Message) -> None:
        """From a thread worker: post unless a newer worker of the group replaced this one."""
        if is_current():
            self.post_message(message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)

    def _compositor_refresh(self) -> None:
        if whole_first_frame(self):
            super()._compositor_refresh()


def preset_breakpoints(screen: Screen[Any]) -> None:
    """Give ``screen`` its breakpoint classes (HORIZONTAL_/VERTICAL_BREAKPOINTS) for the app's
    size now, as it is made: Textual sets them at the screen's first Resize, after its widgets
    are styled, and styles every widget of the screen again for the new class (a second
    styling of the whole screen before the first frame, cProfile shows). Textual's own Resize
    then finds them set."""
    try:
        width, height = screen.app.size
    except NoActiveAppError:  # made outside an app (a test): the first Resize sets them
        return
    app = screen.app
    classes: dict[str, bool] = {}
    horizontal, vertical = screen.HORIZONTAL_BREAKPOINTS, screen.VERTICAL_BREAKPOINTS
    for dimension, breakpoints in (  # (as Screen._on_resize chooses them)
        (width, (app.HORIZONTAL_BREAKPOINTS if horizontal is None else horizontal) or []),
        (height, (app.VERTICAL_BREAKPOINTS if vertical is None else vertical) or []),
    ):
        classes |= {name: False for _, name in breakpoints}
        reached = [(at, name) for at, name in breakpoints if dimension >= at]
        if reached:
            classes[max(reached)[1]] = True
    screen.update_classes(classes, update=False)


def whole_first_frame(screen: Screen[Any]) -> bool:
    """Whether ``screen`` may render now (call from its ``_compositor_refresh``).

    Textual 8.x renders the first screen while the app still batches its start, drops that
    frame, and then draws only what changed since. Not rendering while it batches saves a
    frame's work, and the first frame that reaches the terminal is whole. (Only before that
    frame: later batches are Textual's business, as they were.) Once it may, the frame it
    renders outside a batch marks the app's first frame out (``first_frame_out``).
    """
    app = services(screen)
    if screen.app._batch_count:
        return app.first_frame_out
    app.first_frame_out = True  # (set as it renders: its caller draws it next)
    return True
