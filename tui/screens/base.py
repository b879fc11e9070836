"""What every benchdeck screen shares: the store handle, the comparison selection, worker errors.

Store I/O runs in thread workers (``@work(thread=True, exclusive=True, exit_on_error=False,
group=...)``) that end in ``post_message``; a failed worker becomes one error notification
(:func:`report_worker_error`), never a traceback on screen.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from store.db import Store, StoreError, StoreLocked, StoreNotWritable

if TYPE_CHECKING:
    from tui.app import BenchdeckApp

THEMES = Path(__file__).resolve().parent.parent.parent / "themes"


def tcss(name: str) -> str:
    """Path of a stylesheet in the ``themes`` package (one per screen)."""
    return str(THEMES / name)


class StoreHandle:
    """The app's one open store, opened on first use from whichever worker thread needs it.

    Opens read-write; if another process holds the lock, reads a snapshot instead and
    refuses writes with a message that says why.
    """

    def __init__(self, db: Path | None) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._retired: Store | None = None  # the previous snapshot, still read by a late worker
        self._closed = False
        self._refresh = False

    def refresh(self) -> None:
        """Reload asked for: a snapshot is read again (or the store itself, once its writer is
        gone) at the next :meth:`get`, off the UI thread."""
        with self._lock:
            self._refresh = True

    def get(self) -> Store:
        with self._lock:
            if self._closed:  # the app is quitting: a late worker must not open it again
                raise StoreError("the store is closed")
            if self._refresh and self._store is not None and self._store.snapshot_of is not None:
                if self._retired is not None:
                    self._retired.close()
                self._retired, self._store = self._store, None
            self._refresh = False
            if self._store is None:
                try:
                    self._store = Store.open(self.db)
                except (StoreLocked, StoreNotWritable):
                    self._store = Store.open_for_reading(self.db)
            return self._store

    def open_soon(self) -> Future[int]:
        """Open the store on a thread of its own, so the first screen finds it open.

        The future gives the number of runs stored (the app opens on Launch when there are
        none); an error is left for the first :meth:`get` to raise and the screen to report.
        """
        opened: Future[int] = Future()

        def open_and_count() -> None:
            try:
                cur = self.get().cursor()
                try:
                    row = cur.execute("SELECT count(*) FROM runs").fetchone()
                finally:
                    cur.close()
                opened.set_result(int(row[0]) if row else 0)
            except BaseException as exc:  # handed to whoever waits (get() raises it again)
                opened.set_exception(exc)

        threading.Thread(target=open_and_count, name="benchdeck-open-store", daemon=True).start()
        return opened

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self.get().cursor()

    def writable_cursor(self) -> duckdb.DuckDBPyConnection:
        store = self.get()
        if store.read_only and store.snapshot_of is None:
            raise StoreError(f"store {store.path} is read-only here: changes are not possible")
        if store.read_only:
            raise StoreError(
                f"store {store.snapshot_of or store.path} is in use by another process: "
                "showing a read-only snapshot, changes are not possible"
            )
        return store.cursor()

    @property
    def read_only(self) -> bool:
        """The store is a read-only snapshot (another process holds it): no tags, deletes, runs."""
        store = self._store
        return store is not None and store.read_only

    @property
    def label(self) -> str:
        """Where the store is (relative to the working directory or ``~`` when under them), and
        whether this is a read-only snapshot."""
        store = self._store
        if store is None:
            return ""
        where = show_path(store.snapshot_of or store.path)
        if store.snapshot_of:
            return f"{where} (read-only snapshot)"
        return f"{where} (read-only)" if store.read_only else where

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for store in (self._store, self._retired):
                if store is not None:
                    store.close()
            self._store = self._retired = None


def show_path(path: Path) -> str:
    """``path`` as a user reads it: relative to the working directory, else to ``~``."""
    path = path.resolve()
    for root, prefix in ((Path.cwd(), ""), (Path.home(), "~/")):
        try:
            return prefix + str(path.relative_to(root.resolve()))
        except ValueError:
            continue
    return str(path)


@dataclass(frozen=True, slots=True)
class Selection:
    """The comparison the user is looking at, shared by Runs (set base), Compare and Triage."""

    host: str | None = None
    base: str | None = None
    with_builds: tuple[str, ...] = ()
    config: str | None = None
    dop: int | None = None

    @property
    def complete(self) -> bool:
        return bool(self.host and self.base and self.with_builds)


def _is_compare_error(error: BaseException) -> bool:
    """A :class:`store.compare.CompareError` (one exists only once its module is loaded: the
    module, which brings numpy and scipy, is not imported for the first frame)."""
    module = sys.modules.get("store.compare")
    kind = getattr(module, "CompareError", None)
    return isinstance(kind, type) and isinstance(error, kind)


def user_message(error: BaseException) -> str:
    """One line for the user: our errors as they are, others with their type."""
    if isinstance(error, StoreError | KeyError) or _is_compare_error(error):
        text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    elif isinstance(error, duckdb.Error):
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
        node.app.notify(user_message(error), title=event.worker.name or "benchdeck", severity="error")


def is_current() -> bool:
    """False in a thread worker that was cancelled (a newer request replaced it)."""
    try:
        return not get_current_worker().is_cancelled
    except RuntimeError:  # not in a worker
        return True


class BenchdeckScreen(Screen[None]):
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
    def bd(self) -> BenchdeckApp:
        from tui.app import BenchdeckApp

        app = self.app
        assert isinstance(app, BenchdeckApp)
        return app

    @property
    def store(self) -> StoreHandle:
        return self.bd.store

    def post_if_current(self, message: Message) -> None:
        """From a thread worker: post unless a newer worker of the group replaced this one."""
        if is_current():
            self.post_message(message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)
