"""The app's store: one handle, opened on a thread of its own as soon as the app is asked
for (while Textual loads), which also reads what the first screen shows.

The app holds the store only while it reads or writes, as the CLI's writers do (a *shared*
store, store/storage/file_store.py): the file is attached for a read (a cursor of :meth:`StoreHandle.cursor`,
until it is closed) or a write (a transaction, or a run's batches: store/storage/shared_hold.py) and
let go after it, so another process (a DuckDB shell, ``benchdeck import``/``run``/``queue``)
gets it between two of them. Only a store another process keeps for longer than
:data:`OPEN_WAIT_S` at the app's start (a DuckDB shell left open, a benchdeck before this one)
is read from a snapshot copy, which takes no writes.

No Textual here: ``benchdeck`` starts the opening before it imports the app.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from benchdeck.store.storage.lookups import count_all_runs

if TYPE_CHECKING:  # DuckDB loads on the opening thread (the first frame may not need it); the
    # reading of a page too: Launch's first frame (a store with no runs) goes without it
    import duckdb

    from benchdeck.store.storage.db import Store
    from benchdeck.tui.startup.page_peek import PagePeek, Peeked
    from benchdeck.tui.startup.runs_page import RunsPage

OPEN_WAIT_S = 2.0
"""How long the app's start waits for a store another process holds before it reads a snapshot
copy instead: a CLI writer lets go within SHARED_HOLD_S (0.5 s) of holding, a user's DuckDB
shell may never."""
LOCK_WAIT_S = 30.0
"""How long a read or write of the open app waits for another process's hold (a CLI writer's
batch: 0.5 s; an import's transaction: seconds) before it fails in one line."""


class Leased:
    """A cursor that holds the app's shared store until :meth:`close` (then others may open
    the file); everything else is the DuckDB cursor's."""

    __slots__ = ("_cur", "_lease")

    def __init__(self, lease: AbstractContextManager[duckdb.DuckDBPyConnection]) -> None:
        self._lease: AbstractContextManager[duckdb.DuckDBPyConnection] | None = lease
        self._cur = lease.__enter__()

    def close(self) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            lease.__exit__(None, None, None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


class StoreHandle:
    """The app's one open store, opened on first use from whichever worker thread needs it.

    Opens shared (held only while it reads or writes); if another process keeps the lock for
    longer than :data:`OPEN_WAIT_S`, reads a snapshot instead and refuses writes with a message
    that says why.
    """

    def __init__(self, db: Path | None) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._retired: Store | None = None  # the previous snapshot, still read by a late worker
        self._closed = False
        self._refresh = False
        self._opener: threading.Thread | None = None
        self.path_hint: Path | None = None
        """The store's file, for :attr:`label` before it is open (a kept first page shown)."""

    def refresh(self) -> None:
        """Reload asked for: a snapshot is read again (or the store itself, once its writer is
        gone) at the next :meth:`get`, off the UI thread."""
        with self._lock:
            self._refresh = True

    def get(self) -> Store:
        from benchdeck.store.storage.db import Store, StoreError, StoreLocked, StoreNotWritable

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
                    self._store = Store.open(self.db, shared=True, lock_wait=OPEN_WAIT_S)
                    self._store.set_lock_wait(LOCK_WAIT_S)
                except (StoreLocked, StoreNotWritable):
                    self._store = Store.open_for_reading(self.db)
            return self._store

    def open_soon(
        self,
        then: Callable[[duckdb.DuckDBPyConnection, int], object] | None = None,
        first: Callable[[], object] | None = None,
    ) -> Future[int]:
        """Open the store on a thread of its own, so the first screen finds it open.

        The future gives the number of runs stored (the app opens on Launch when there are
        none); an error is left for the first :meth:`get` to raise and the screen to report.
        ``then(cursor, runs)`` runs on that thread before the future is done: the first
        screen's reads (if it fails, the screen reads again itself and reports the error);
        ``first()`` runs on that thread before the store is opened.
        """
        opened: Future[int] = Future()

        def open_and_count() -> None:
            try:
                if first is not None:
                    first()
                cur = self.cursor()
                try:
                    runs = count_all_runs(cur)
                    if then is not None:
                        with suppress(Exception):
                            then(cur, runs)
                finally:
                    cur.close()
                opened.set_result(runs)
            except BaseException as exc:  # handed to whoever waits (get() raises it again)
                opened.set_exception(exc)

        self._opener = threading.Thread(target=open_and_count, name="benchdeck-open-store", daemon=True)
        self._opener.start()
        return opened

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor that holds the store until it is closed (close it: others wait meanwhile)."""
        return cast("duckdb.DuckDBPyConnection", Leased(self.get().reading()))

    def writable_cursor(self) -> duckdb.DuckDBPyConnection:
        """:meth:`cursor`, refused in one line when the store takes no writes here."""
        self.check_writable()
        return self.cursor()

    def why_not_writable(self) -> str:
        """Why the open store takes no writes here (one line), or ``""``."""
        from benchdeck.store.storage.errors import StoreNotWritable  # (no DuckDB)

        store = self._store
        if store is None:
            return ""
        try:
            store.check_writable()
        except StoreNotWritable as exc:
            return str(exc)
        return ""

    def check_writable(self) -> None:
        """Raise StoreNotWritable (one line, with the reason) on a store that takes no writes:
        a snapshot (another process holds the store) or a read-only file."""
        self.get().check_writable()

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
            return show_path(self.path_hint) if self.path_hint is not None else ""
        where = show_path(store.snapshot_of or store.path)
        if store.snapshot_of:
            return f"{where} (read-only snapshot)"
        return f"{where} (read-only)" if store.read_only else where

    def close(self, wait: float = 10.0) -> None:
        """Close the store, after the opening thread has ended (up to ``wait`` seconds): a
        process that exits while a thread is still inside DuckDB aborts."""
        opener = self._opener
        if opener is not None and opener is not threading.current_thread():
            opener.join(wait)
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


class Opening:
    """The app's store handle and the first page of Runs, from before Textual is imported.

    If the page the last start kept (tui.first_page) is still the store's, it is shown at
    once and the store opens after the first frame (:meth:`start`, without DuckDB on the way
    to that frame). Else, with ``peek`` (``benchdeck`` at its start), a child process reads
    the page (tui.page_peek) while this one loads Textual, and the store opens after the
    first frame just the same; without ``peek``, or if the child cannot read the store, the
    store opens now on a thread of its own, which also reads the page. A store known to hold
    no runs (no file yet, a kept "none", or the child's answer) opens after the first frame too:
    :attr:`empty`, the app opens on Launch. :attr:`opened` gives the number of runs stored;
    :attr:`decided` is done once it is known which way it goes.
    """

    def __init__(self, db: Path | None, *, peek: bool = False) -> None:
        from benchdeck.tui.startup import first_page

        self.store = StoreHandle(db)
        self.opened: Future[int] = Future()
        self.decided: Future[None] = Future()
        self._path = first_page.store_file(db)
        self._first_runs: RunsPage | None = None
        self._started = False
        self._update: tuple[bool, RunsPage | None] | None = None
        self._lock = threading.Lock()
        self._peek: PagePeek | None = None
        self.peeked = False
        """The first page was read by a child process (not kept by the last start)."""
        kept = first_page.load(self._path) if self._path is not None else None
        self.kept = kept[1] if kept is not None else None
        """The page shown before the store opens: kept by the last start (the store being as
        it was then) or read by the child; None: the store opens first."""
        self.empty = kept is not None and kept[1] is None
        """Known before the store opens that it holds no runs: the first screen is Launch,
        drawn without DuckDB (opening the store first made Launch's first frame wait for DuckDB's
        import: bench/bench_tui.py)."""
        self.keep_later = False
        """The page read as the store opened could not be kept (the store had no file yet, or
        had been written within first_page.QUIET_S): :meth:`keep_again` may, later."""
        self._made = False  # a first start: the store file is made by this start
        if self._path is not None and not self._path.exists():
            self.empty = self._made = True  # a first start: the store is made once Launch is shown
        if self.kept is not None or self.empty:
            self._first_runs = self.kept
            self.store.path_hint = self._path
            self.decided.set_result(None)
            return
        if peek and self._path is not None and self._path.is_file():
            from benchdeck.tui.startup import page_peek

            if page_peek.can_fork():
                with suppress(OSError):  # no process or pipe to spare (EAGAIN, EMFILE): read here
                    self._peek = page_peek.PagePeek(self._path, self._peeked)
                    return
        self.start()
        self.decided.set_result(None)

    def _peeked(self, result: Peeked | None) -> None:
        """The child's answer (on its thread): its page is shown first, the store opening
        after that frame; no runs or no page: the store opens now (the child is gone)."""
        with self._lock:
            if self.decided.done():  # the first frame could wait no longer (:meth:`settle`)
                return
            if result is not None and result[1] is not None:
                self.kept = self._first_runs = result[1]
                self.peeked = True
                self.store.path_hint = self._path
            elif result is not None and result[0] == 0:  # no runs: Launch, then the store opens
                self.empty = self.peeked = True
                self.store.path_hint = self._path
            else:
                self.start()
            self.decided.set_result(None)

    def settle(self) -> None:
        """The first frame is due: a child that has not answered yet is stopped and the store
        opens now (on its thread, once the child and its hold on the store are gone)."""
        with self._lock:
            if self.decided.done():
                return
            self.decided.set_result(None)
            self._start(first=self._peek.stop if self._peek is not None else None)

    def stop_peek(self) -> None:
        """The app ends: a child still reading goes too."""
        if self._peek is not None:
            self._peek.stop()

    @property
    def started(self) -> bool:
        return self._started

    def start(self) -> None:
        """Open the store on a thread of its own (once), read the first page and keep it."""
        self._start()

    def _start(self, first: Callable[[], object] | None = None) -> None:
        if self._started:
            return
        self._started = True
        from benchdeck.tui.startup import first_page

        path = self._path
        before = first_page.identity(path) if path is not None else None

        def read(cur: duckdb.DuckDBPyConnection, runs: int) -> None:
            if self.kept is not None:
                self._update = (True, None)  # until the store's page is read and compared
            if self.empty and not self.peeked and runs == 0:
                self.keep_later = self._made  # (else "none" is kept already)
                return
            page = _first_page(cur) if runs else None
            if self.kept is not None:
                self._update = (page != self.kept, page)
                if page == self.kept and not self.peeked:
                    return  # kept already
            else:
                self._first_runs = page
            if path is not None and self._mine(path) and not first_page.save(path, before, runs, page):
                self.keep_later = True  # (no runs: kept too, as "none")

        def done(f: Future[int]) -> None:
            exc = f.exception()
            if exc is not None:
                if self.kept is not None:
                    self._update = (True, None)  # the screen reads again, and says what failed
                self.opened.set_exception(exc)
            else:
                self.opened.set_result(f.result())

        self.store.open_soon(then=read, first=first).add_done_callback(done)

    def _mine(self, path: Path) -> bool:
        """The open store is the file ``path`` itself (not a snapshot copy, not a team store):
        a page read from it may be kept for it."""
        store = self.store.get()
        mine = store.snapshot_of is None and store.lake is None
        return mine and store.path.resolve() == path.resolve()

    def keep_again(self) -> bool:
        """Keep the store's first page now, as the opening does (the same checks: the store
        unchanged while it is read and quiet before), when the opening could not
        (:attr:`keep_later`): the next start then shows it, or Launch at once for "no runs",
        instead of waiting for the peek child. Blocking (DuckDB): call it on a worker thread,
        once the store has opened. False if it could not keep it this time either."""
        from benchdeck.tui.startup import first_page

        path = self._path
        before = first_page.identity(path) if path is not None else None
        if path is None or before is None or not first_page.quiet(before) or not self._mine(path):
            return False  # (written within QUIET_S: the app itself may be writing)
        cur = self.store.cursor()
        try:
            runs = count_all_runs(cur)
            page = _first_page(cur) if runs else None
        finally:
            cur.close()
        self.keep_later = not first_page.save(path, before, runs, page)
        return not self.keep_later

    def take_first_runs(self) -> RunsPage | None:
        """The first page of Runs (unfiltered), once: the kept one, else the one read as the
        store opened; None if it has not opened yet, holds no runs, or it was taken."""
        if self.kept is None and not self.opened.done():
            return None
        first, self._first_runs = self._first_runs, None
        return first

    def take_update(self) -> tuple[bool, RunsPage | None]:
        """Once the store opened after a kept page was shown: whether the store's page differs
        (or could not be read), and the store's page. (False, None) otherwise or once taken."""
        update, self._update = self._update, None
        return update if update is not None else (False, None)


def _first_page(cur: duckdb.DuckDBPyConnection) -> RunsPage:
    """runs_page.read_first_page, imported here when a page is read (tests slow it here)."""
    from benchdeck.tui.startup.runs_page import read_first_page

    return read_first_page(cur)
