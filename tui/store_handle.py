"""The app's store: one handle, opened on a thread of its own as soon as the app is asked
for (while Textual loads), which also reads what the first screen shows.

No Textual here: ``benchdeck`` starts the opening before it imports the app.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import duckdb

from store.db import Store, StoreError, StoreLocked, StoreNotWritable
from store.queries import HistoryRow, RunFilter, count_runs, list_builds, list_hosts, run_history


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

    def open_soon(
        self, then: Callable[[duckdb.DuckDBPyConnection, int], object] | None = None
    ) -> Future[int]:
        """Open the store on a thread of its own, so the first screen finds it open.

        The future gives the number of runs stored (the app opens on Launch when there are
        none); an error is left for the first :meth:`get` to raise and the screen to report.
        ``then(cursor, runs)`` runs on that thread before the future is done: the first
        screen's reads (if it fails, the screen reads again itself and reports the error).
        """
        opened: Future[int] = Future()

        def open_and_count() -> None:
            try:
                cur = self.get().cursor()
                try:
                    row = cur.execute("SELECT count(*) FROM runs").fetchone()
                    runs = int(row[0]) if row else 0
                    if then is not None:
                        with suppress(Exception):
                            then(cur, runs)
                finally:
                    cur.close()
                opened.set_result(runs)
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
class RunsPage:
    """What the Runs screen shows for one filter: the newest runs, the hosts and builds to
    filter by, and how many runs match in all (``RunFilter.limit`` caps the rows)."""

    runs: list[HistoryRow]
    hosts: list[str]
    builds: list[str]
    total: int


def read_runs_page(cur: duckdb.DuckDBPyConnection, f: RunFilter) -> RunsPage:
    runs = run_history(cur, f)
    total = count_runs(cur, f) if len(runs) >= f.limit else len(runs)
    return RunsPage(runs, list_hosts(cur), list_builds(cur), total)


class Opening:
    """The app's store handle, opening from the moment this is made: the number of runs
    stored (:attr:`opened`) and, if there are any, the first page of Runs."""

    def __init__(self, db: Path | None) -> None:
        self.store = StoreHandle(db)
        self._first_runs: RunsPage | None = None
        self.opened = self.store.open_soon(then=self._read_first_runs)

    def _read_first_runs(self, cur: duckdb.DuckDBPyConnection, runs: int) -> None:
        if runs:
            self._first_runs = read_runs_page(cur, RunFilter())

    def take_first_runs(self) -> RunsPage | None:
        """The first page of Runs (unfiltered), once: None if the store has not opened yet,
        holds no runs, or it was taken already."""
        if not self.opened.done():
            return None
        first, self._first_runs = self._first_runs, None
        return first
