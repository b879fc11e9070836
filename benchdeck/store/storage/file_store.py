"""The store in a DuckDB file: path checks, migrations, a clear answer when it is locked or
damaged, a snapshot copy for a reader a writer keeps out, and a *shared* write mode that holds
the file only while it writes (the file attached to a database of the writer's own, which
outlives the holds). One of the two implementations of :class:`store.db.StoreBackend`."""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import duckdb

from benchdeck.store.storage import faults, file_schema
from benchdeck.store.storage.errors import StoreError, StoreLocked, StoreNotWritable
from benchdeck.store.storage.location import default_db_path

CLOSE_LOCK_WAIT_S = 2.0
"""How long a shared store's close waits for the file to checkpoint it (else the WAL keeps it)."""
LOCK_NOTICE_S = 1.5
"""How long a wait for another process's hold lasts before ``on_lock_wait`` is told: a writer
meets the app's reads and other writers' batches (tens to hundreds of ms) all the time, and a
line for each broke the CLI's progress table (issue 38: 27 lines in a 12-run queue)."""
READ_LOCK_WAIT_S = 0.5
"""How long a reader waits for a writer's batch before it reads a snapshot copy instead."""
WAL_CHECKPOINT_BYTES = 256 << 10
"""A shared store checkpoints before it lets go of the file once its WAL is this big: every
opener, the writer's own next attach included, replays the WAL (its cost grows with it; at
DuckDB's own threshold an attach was slow), and a checkpoint costs about the same whatever the
WAL's size."""
_LOCK_PID = r"\(PID (\d+)\)"  # (compiled by re's cache when an open fails)
_LOCKED = r"(?i)\block\b"
_ATTACHED = itertools.count(1)


class FileStore:
    """An open DuckDB file store. One instance per process; use :meth:`cursor` per thread.

    A *shared* store (``Store.open(..., shared=True)``, what the CLI's writers use) holds the
    file only while it reads or writes: the file is attached at :meth:`transaction` or
    :meth:`reading` and detached when the last of them ends, so other processes (a user's DuckDB
    CLI, ``benchdeck compare``, a second writer) get the file between two batches. Waiting for
    the file lock is bounded by ``lock_wait`` seconds. It is attached to an in-memory database
    the store keeps until :meth:`close`: opening a database of the file each time is a DuckDB
    instance start, an ATTACH reads only the file.

    A plain class, not a dataclass: creating a dataclass is a cost of every command's start.
    """

    def __init__(
        self,
        path: Path,
        _con: duckdb.DuckDBPyConnection | None = None,
        *,
        read_only: bool = False,
        shared: bool = False,
        lock_wait: float = 0.0,
        on_lock_wait: Callable[[StoreLocked], None] | None = None,
        attach: bool = False,
    ) -> None:
        self.path = path
        self._con = _con
        self.read_only = read_only
        self.snapshot_of: Path | None = None
        self.shared = shared
        self.lock_wait = lock_wait
        self.on_lock_wait = on_lock_wait
        self._users = 0
        self._pinned = False
        self._held = False
        self._guard = threading.RLock()
        self.attach = attach
        """Read the file attached to the database ``import duckdb`` made (see :meth:`open_for_reading`)."""
        self._alias: str | None = None
        self._instance: duckdb.DuckDBPyConnection | None = None
        """A shared writer's own in-memory database, which the file is attached to per hold."""
        self._threads: int | None = None

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        read_only: bool = False,
        shared: bool = False,
        lock_wait: float = 0.0,
        on_lock_wait: Callable[[StoreLocked], None] | None = None,
        attach: bool = False,
    ) -> FileStore:
        """Open (creating and migrating if needed) the store at ``path``.

        Raises :class:`StoreLocked` if another process holds it for longer than ``lock_wait``.
        """
        p = Path(path).expanduser() if path is not None else default_db_path()
        if read_only and not p.exists():
            raise StoreError(f"store {p} does not exist yet (nothing imported or run)")
        if why := faults.sniff(p):
            raise StoreError(why)
        if not read_only:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the directory of store {p}: {exc.strerror}") from None
            if why := faults.check_writable(p):
                raise StoreNotWritable(why)
        store = cls(
            path=p, _con=None, read_only=read_only, shared=shared, lock_wait=lock_wait,
            on_lock_wait=on_lock_wait, attach=attach and read_only and not shared,
        )  # fmt: skip
        try:
            with store._use():  # one connection through the migration and its checkpoint
                store._check_schema()
        except duckdb.Error as exc:
            store._drop()
            raise StoreError(faults.describe(p, exc, writing=False)) from None
        except BaseException:
            store._drop()
            raise
        return store

    @classmethod
    def open_for_reading(cls, path: Path | str | None = None, *, attach: bool = False) -> FileStore:
        """Open read-only; if a writer holds the lock for longer than a shared writer's batch,
        read a snapshot copy instead.

        ``attach``: for a process that opens no other connection to this store while it reads
        (a CLI command that only reads): the file is attached to the in-memory database that
        ``import duckdb`` made instead of opening a database of its own (an instance start
        saved). DuckDB refuses a second database of one process on a file it has open;
        an attached file escapes that check, hence the promise.
        """
        p = Path(path).expanduser() if path is not None else default_db_path()
        try:
            return cls.open(p, read_only=True, lock_wait=READ_LOCK_WAIT_S, attach=attach)
        except StoreLocked:
            return cls._open_snapshot(p)

    @classmethod
    def _open_snapshot(cls, p: Path, attempts: int = 5) -> FileStore:
        """Open a consistent copy; the writer may finish meanwhile (then read ``p`` itself)."""
        from benchdeck.store.storage import snapshot  # (only when a writer holds the store)

        why = ""
        for _ in range(attempts):
            try:
                copy = snapshot.copy_store(p)
            except snapshot.SnapshotChanged:
                why = "it was checkpointed while being copied"
            except OSError as exc:
                why = f"{exc.strerror}: {exc.filename}"
            else:
                try:
                    store = cls.open(copy, read_only=False)
                except BaseException:
                    snapshot.discard(copy)
                    raise
                store.read_only = True
                store.snapshot_of = p
                return store
            with suppress(StoreLocked):
                return cls.open(p, read_only=True)
        raise StoreError(
            f"store {p} is being written by another process and no consistent copy could be "
            f"read ({why}); try again in a moment"
        )

    @property
    def lake(self) -> None:
        """No team store: a DuckDB file."""
        return None

    @property
    def team(self) -> None:
        return None

    @property
    def label(self) -> Path:
        """The file the user named (a snapshot's original)."""
        return self.snapshot_of or self.path

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection; on a shared store, using it directly keeps the file held."""
        with self._guard:
            self._pinned = True
            return self._connect()

    def _connect(self, wait: float | None = None) -> duckdb.DuckDBPyConnection:
        with self._guard:
            if self._con is None:
                self._con = self._connect_waiting(self.lock_wait if wait is None else wait)
            return self._con

    def _connect_waiting(self, wait: float) -> duckdb.DuckDBPyConnection:
        start = time.monotonic()
        deadline = start + wait
        pause, told = 0.01, False
        while True:
            try:
                if self.attach:
                    con = self._attached(_default_instance(), read_only=True)
                elif self.shared and not self.read_only:
                    con = self._attached(self._own_instance(), read_only=False)
                else:
                    con = duckdb.connect(str(self.path), read_only=self.read_only, config=faults.OFFLINE)
            except duckdb.IOException as exc:
                err = _translate_open_error(self.path, exc)
                if not isinstance(err, StoreLocked) or time.monotonic() >= deadline:
                    raise err from None
                if not told and self.on_lock_wait is not None and time.monotonic() - start >= LOCK_NOTICE_S:
                    self.on_lock_wait(err)
                    told = True
                time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                pause = min(pause * 2, 0.2)
                continue
            except duckdb.Error as exc:
                raise StoreError(faults.describe(self.path, exc, writing=False)) from None
            return con

    def _own_instance(self) -> duckdb.DuckDBPyConnection:
        """The shared writer's in-memory database, started at its first use."""
        if self._instance is None:
            threads = {"threads": self._threads} if self._threads else {}
            self._instance = duckdb.connect(":memory:", config={**faults.OFFLINE, **threads})
            # A DETACH closes the file as a database's shutdown does: without a checkpoint, the
            # WAL is left for the next opener to replay (:meth:`_release` checkpoints a long one).
            self._instance.execute("PRAGMA disable_checkpoint_on_shutdown")
        return self._instance

    def set_threads(self, threads: int | None) -> None:
        """Run a shared writer's own database on ``threads`` threads (None: DuckDB's default,
        one per core); other stores' databases are left as they are."""
        with self._guard:
            self._threads = threads
            if self._instance is not None:
                self._instance.execute(f"SET threads = {int(threads)}" if threads else "RESET threads")

    def set_lock_wait(self, seconds: float) -> None:
        with self._guard:
            self.lock_wait = seconds

    def _attached(self, base: duckdb.DuckDBPyConnection, *, read_only: bool) -> duckdb.DuckDBPyConnection:
        """A connection of the in-memory database ``base`` with the file attached under an
        alias of its own, in use."""
        alias = f"benchdeck_store_{next(_ATTACHED)}"
        con = base.cursor()
        try:
            path = str(self.path).replace("'", "''")  # ATTACH takes no parameters
            con.execute(f"ATTACH '{path}' AS {alias}{' (READ_ONLY)' if read_only else ''}")
            self._alias = alias
            con.execute(f"USE {alias}")
        except BaseException:
            self._close_con(con)
            raise
        return con

    def _close_con(self, con: duckdb.DuckDBPyConnection) -> None:
        """Close ``con``; an attached file is detached (the in-memory database stays)."""
        detached = True
        if self._alias is not None:
            alias, self._alias = self._alias, None
            try:
                con.execute("USE memory")
                con.execute(f"DETACH {alias}")
            except duckdb.Error:
                detached = False
        con.close()
        if not detached:  # the file may still be attached: a writer's own database goes with it
            self._close_instance()

    def hold(self) -> None:
        """Keep a shared store's file open between uses until :meth:`let_go` (a writer whose
        batches come quickly; an attach costs CPU, more under load, and replays the WAL)."""
        with self._guard:
            self._held = True

    def let_go(self) -> None:
        """End :meth:`hold`: the file closes once nothing uses it, and others may open it."""
        with self._guard:
            self._held = False
        self._release()

    def _release(self) -> None:
        """Close a shared store's connection when nothing uses it (others may open the file)."""
        with self._guard:
            unused = self._users == 0 and not (self._pinned or self._held)
            if self.shared and unused and self._con is not None:
                con, self._con = self._con, None
                # a failed checkpoint loses nothing: the WAL stays for the next opener
                with suppress(duckdb.Error):
                    if not self.read_only and _wal_size(self.path) > WAL_CHECKPOINT_BYTES:
                        con.execute("CHECKPOINT")
                self._close_con(con)

    def _drop(self) -> None:
        """Close the connection, whatever state it is in (after a failed open)."""
        with self._guard:
            if self._con is not None:
                with suppress(duckdb.Error):
                    self._close_con(self._con)
                self._con = None
            self._close_instance()

    def _close_instance(self) -> None:
        if self._instance is not None:
            instance, self._instance = self._instance, None
            with suppress(duckdb.Error):
                instance.close()

    def close(self) -> None:
        try:
            with self._guard:
                if self.shared and not self.read_only:
                    # Leave one self-contained file behind (a copy of the .duckdb alone, a backup,
                    # holds everything): batches were closed without a checkpoint. If another
                    # process holds the file now, the WAL keeps the data safe until it is.
                    with suppress(StoreLocked):
                        self._connect(wait=min(self.lock_wait, CLOSE_LOCK_WAIT_S)).execute("CHECKPOINT")
                if self._con is not None:
                    con, self._con = self._con, None
                    self._close_con(con)
        except duckdb.Error as exc:  # the last checkpoint failed (disk full ...)
            raise StoreError(faults.describe(self.label, exc)) from None
        finally:
            self._drop()  # (after a failed checkpoint: the file detached, the WAL kept)
            if self.snapshot_of is not None:
                from benchdeck.store.storage import snapshot

                snapshot.discard(self.path)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for one thread or one operation (on a shared store, prefer :meth:`reading`)."""
        return self._in_store(self.con.cursor())

    def _in_store(self, cur: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """A cursor of an attached file starts in the in-memory database: move it to the file."""
        if self._alias is not None:
            cur.execute(f"USE {self._alias}")
        return cur

    @contextmanager
    def _use(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._guard:
            self._users += 1
            try:
                cur = self._in_store(self._connect().cursor())
            except duckdb.Error as exc:
                self._users -= 1
                raise StoreError(faults.describe(self.label, exc)) from None
            except BaseException:
                self._users -= 1
                raise
        try:
            yield cur
        finally:
            cur.close()
            with self._guard:
                self._users -= 1
            self._release()

    @contextmanager
    def reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor for a few reads; a shared store lets go of the file after the last one."""
        with self._use() as cur:
            yield cur

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor in a transaction: committed at the end of the block, rolled back if it
        raises. A DuckDB error (disk full, damaged file) becomes a one-line StoreError."""
        if self.snapshot_of is not None:
            raise StoreNotWritable(
                f"store {self.snapshot_of} is held by another process: this is a read-only "
                "snapshot of it, and what it took would be lost with the copy; try again when it is free"
            )
        with self._writing() as cur:
            yield cur

    @contextmanager
    def _writing(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._use() as cur:
            try:
                cur.execute("BEGIN TRANSACTION")
            except duckdb.Error as exc:
                raise StoreError(faults.describe(self.label, exc)) from None
            try:
                yield cur
            except BaseException as exc:
                with suppress(duckdb.Error):
                    cur.execute("ROLLBACK")
                if isinstance(exc, duckdb.Error):
                    raise StoreError(faults.describe(self.label, exc)) from None
                raise
            else:
                try:
                    cur.execute("COMMIT")
                except duckdb.Error as exc:
                    raise StoreError(faults.describe(self.label, exc)) from None

    def schema_version(self) -> int:
        return max(self.applied_versions(), default=0)

    def applied_versions(self) -> set[int]:
        """The migrations recorded in the store (none for a new file)."""
        return file_schema.applied_versions(self._connect())

    def _check_schema(self) -> None:
        """Migrate a store that needs it (a one-line error for anything else: storage/file_schema.py)."""
        file_schema.check(self._connect(), self.path, self.label, self._writing, read_only=self.read_only)

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        with self.reading() as cur:
            row = cur.execute(sql, params or []).fetchone()
        return row[0] if row else None


def _default_instance() -> duckdb.DuckDBPyConnection:
    """The database ``import duckdb`` made, offline as a store's own are."""
    con = duckdb.default_connection()
    for key, value in faults.OFFLINE.items():
        con.execute(f"SET {key} = {value}")
    return con


def _wal_size(path: Path) -> int:
    try:
        return path.with_name(path.name + ".wal").stat().st_size
    except OSError:
        return 0


def _translate_open_error(path: Path, exc: duckdb.IOException) -> StoreError:
    msg = str(exc)
    if re.search(_LOCKED, msg):  # not "block": a damaged file's errors name blocks
        m = re.search(_LOCK_PID, msg)
        return StoreLocked(path, int(m.group(1)) if m else None)
    return StoreError(faults.describe(path, exc, writing=False))
