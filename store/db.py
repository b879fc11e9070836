"""Opening the DuckDB store: path resolution, migrations, a clear answer when it is locked or
damaged, and a write mode that holds the file only while it writes (the file attached to a
database of the writer's own, which outlives the holds)."""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import duckdb

from benchdeck.store import dialect, faults
from benchdeck.store.location import DB_ENV, default_db_path
from benchdeck.store.schema import LATEST_VERSION, MIGRATIONS

if TYPE_CHECKING:
    from benchdeck.store.lake_session import LakeSession

CLOSE_LOCK_WAIT_S = 2.0
"""How long a shared store's close waits for the file to checkpoint it (else the WAL keeps it)."""
READ_LOCK_WAIT_S = 0.5
"""How long a reader waits for a writer's batch before it reads a snapshot copy instead."""
WAL_CHECKPOINT_BYTES = 256 << 10
"""A shared store checkpoints before it lets go of the file once its WAL is this big: every
opener, the writer's own next attach included, replays the WAL (~0.25 ms of CPU per batch
committed, ~12 KB each at 128 runs; 16 MB, DuckDB's own threshold, was ~0.6 s), and a checkpoint
costs 10-22 ms of CPU whatever the WAL's size (a 182 MB store)."""
_LOCK_PID = re.compile(r"\(PID (\d+)\)")
_LOCKED = re.compile(r"(?i)\block\b")
_ATTACHED = itertools.count(1)


class StoreError(Exception):
    """A store problem with a one-line message meant for the user."""


class StoreLocked(StoreError):
    """Another process holds the store's write lock."""

    def __init__(self, path: Path, pid: int | None):
        self.path = path
        self.pid = pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(
            f"store {path} is in use by {holder} (another benchdeck?); "
            f"close it, or pick another store with --db or ${DB_ENV}"
        )


class StoreTooNew(StoreError):
    """The file was written by a newer benchdeck."""


class StoreNotWritable(StoreError):
    """The store (or its directory) cannot be written; it can still be read."""


@dataclass
class Store:
    """An open store. One instance per process; use :meth:`cursor` per thread.

    A *shared* store (``Store.open(..., shared=True)``, what the CLI's writers use) holds the
    file only while it reads or writes: the file is attached at :meth:`transaction` or
    :meth:`reading` and detached when the last of them ends, so other processes (a user's DuckDB
    CLI, ``benchdeck compare``, a second writer) get the file between two batches. Waiting for
    the file lock is bounded by ``lock_wait`` seconds. It is attached to an in-memory database
    the store keeps until :meth:`close`: opening a database of the file each time is a DuckDB
    instance start (36-42 ms quiet, 126-250 ms under load), an ATTACH reads only the file.
    """

    path: Path
    _con: duckdb.DuckDBPyConnection | None
    read_only: bool = False
    snapshot_of: Path | None = None
    shared: bool = False
    lock_wait: float = 0.0
    on_lock_wait: Callable[[StoreLocked], None] | None = None
    _users: int = 0
    _pinned: bool = False
    _held: bool = False
    _guard: threading.RLock = field(default_factory=threading.RLock)
    lake: str | None = None
    """A DuckLake team store's conninfo (``--db ducklake:postgres:...``)."""
    _session: LakeSession | None = None
    attach: bool = False
    """Read the file attached to the database ``import duckdb`` made (see :meth:`open_for_reading`)."""
    _alias: str | None = None
    _instance: duckdb.DuckDBPyConnection | None = None
    """A shared writer's own in-memory database, which the file is attached to per hold."""
    _threads: int | None = None

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
    ) -> Store:
        """Open (creating and migrating if needed) the store at ``path``.

        Raises :class:`StoreLocked` if another process holds it for longer than ``lock_wait``.
        """
        if (lake_db := _lake_url(path)) is not None:
            return cls._open_lake(lake_db, read_only=read_only)
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
    def _open_lake(cls, conninfo: str, *, read_only: bool) -> Store:
        """A DuckLake team store (store/lake_session.py): made in an empty catalog database by
        a writer (its data path from ``$BENCHDECK_LAKE_DATA``, which ``--lake-data`` sets)."""
        from benchdeck.store import lake, lake_session  # (psycopg and the extensions: a team store only)

        url = lake.LakeUrl(conninfo)
        data = os.environ.get(lake.DATA_ENV, "").strip()
        data_path = Path(data) if data else None
        try:
            session = lake_session.open_session(url, write=not read_only, data_path=data_path)
        except lake.LakeError as exc:
            raise StoreError(str(exc)) from None
        except duckdb.Error as exc:
            raise StoreError(f"team store {url.shown}: {str(exc).splitlines()[0]}") from None
        return cls(
            path=Path(url.shown), _con=session.con, read_only=read_only, lake=conninfo, _session=session
        )

    @classmethod
    def open_for_reading(cls, path: Path | str | None = None, *, attach: bool = False) -> Store:
        """Open read-only; if a writer holds the lock for longer than a shared writer's batch,
        read a snapshot copy instead.

        ``attach``: for a process that opens no other connection to this store while it reads
        (a CLI command that only reads): the file is attached to the in-memory database that
        ``import duckdb`` made instead of opening a database of its own (~9 ms of a ~150 ms
        ``compare``). DuckDB refuses a second database of one process on a file it has open;
        an attached file escapes that check, hence the promise.
        """
        if (lake_db := _lake_url(path)) is not None:
            return cls._open_lake(lake_db, read_only=True)
        p = Path(path).expanduser() if path is not None else default_db_path()
        try:
            return cls.open(p, read_only=True, lock_wait=READ_LOCK_WAIT_S, attach=attach)
        except StoreLocked:
            return cls._open_snapshot(p)

    @classmethod
    def _open_snapshot(cls, p: Path, attempts: int = 5) -> Store:
        """Open a consistent copy; the writer may finish meanwhile (then read ``p`` itself)."""
        from benchdeck.store import snapshot  # (only when a writer holds the store)

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
    def team(self) -> LakeSession | None:
        """The team store's session (ids, names, maintenance); None for a DuckDB file."""
        return self._session

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
        deadline = time.monotonic() + wait
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
                if not told and self.on_lock_wait is not None:
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
        batches come quickly; an attach costs 3-12 ms, more under load, and replays the WAL)."""
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
        if self._session is not None:
            self._session.close()
            self._con = None
            return
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
                from benchdeck.store import snapshot

                snapshot.discard(self.path)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        try:
            self.close()
        except StoreError:
            if exc is None:
                raise
        if isinstance(exc, duckdb.Error):  # a query of the block failed: say so in one line
            raise StoreError(faults.describe(self.label, exc, writing=not self.read_only)) from None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for one thread or one operation (on a shared store, prefer :meth:`reading`)."""
        return self._on_lake(self.con.cursor())

    def _on_lake(self, cur: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """A cursor starts in the in-memory database; a team store's tables are in the lake."""
        if self._session is not None:
            cur.execute("USE lake")
            dialect.bind(cur, self._session)
        elif self._alias is not None:  # an attached file
            cur.execute(f"USE {self._alias}")
        return cur

    @contextmanager
    def _use(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._guard:
            self._users += 1
            try:
                cur = self._on_lake(self._connect().cursor())
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
        if self._session is not None:
            with self._lake_transaction(self._session) as rec:
                yield rec
            return
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

    @contextmanager
    def _lake_transaction(self, session: LakeSession) -> Iterator[duckdb.DuckDBPyConnection]:
        """A team store's transaction: its statements are kept, and replayed if the COMMIT
        meets another writer's (store/lake_session.py); errors are one line."""
        from benchdeck.store.lake import LakeError
        from benchdeck.store.lake_session import Recorder

        with self._use() as cur:
            rec = Recorder(cur)
            dialect.bind(rec, session)
            try:
                cur.execute("BEGIN TRANSACTION")
                yield cast(duckdb.DuckDBPyConnection, rec)
            except BaseException as exc:
                with suppress(duckdb.Error):
                    cur.execute("ROLLBACK")
                if isinstance(exc, duckdb.Error):
                    raise StoreError(f"team store: {str(exc).splitlines()[0]}") from None
                raise
            try:
                session.commit(cur, rec)
            except LakeError as exc:
                raise StoreError(str(exc)) from None
            except duckdb.Error as exc:
                raise StoreError(f"team store: {str(exc).splitlines()[0]}") from None

    def schema_version(self) -> int:
        return max(self.applied_versions(), default=0)

    def applied_versions(self) -> set[int]:
        """The migrations recorded in the store (none for a new file)."""
        con = self._connect()
        row = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
        ).fetchone()
        if not row or not row[0]:
            return set()
        return {int(v) for (v,) in con.execute("SELECT version FROM schema_version").fetchall()}

    def _check_schema(self) -> None:
        con = self._connect()
        if faults.complete_store_versions(con) == {v for v, _ in MIGRATIONS}:
            return  # one cheap query for a store as it should be; anything else: the full check
        if why := faults.check_tables(self.label, con):
            self._drop()
            raise StoreError(why)
        applied = self.applied_versions()
        if unknown := applied - {v for v, _ in MIGRATIONS}:
            self._drop()
            raise StoreTooNew(
                f"store {self.path} has schema version {max(unknown)}, which this benchdeck does "
                f"not know (it knows up to {LATEST_VERSION}); upgrade benchdeck"
            )
        # By set, not by the highest number: a migration merged with a lower number than one a
        # store already has (7 after 13) is still applied to it.
        pending = [v for v, _ in MIGRATIONS if v not in applied]
        if not pending:
            if why := faults.missing_tables(self.label, con):
                self._drop()
                raise StoreError(why)
            return
        if self.read_only:
            self._drop()
            raise StoreError(
                f"store {self.path} needs a schema upgrade (v{max(applied, default=0)} -> "
                f"v{LATEST_VERSION}); open it once without another benchdeck running"
            )
        self._migrate(set(pending))

    def _migrate(self, pending: set[int]) -> None:
        from benchdeck.store import views  # (only when the schema changes)

        try:
            with self.transaction() as cur:
                cur.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version "
                    "(version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)"
                )
                for version, ddl in MIGRATIONS:
                    if version in pending:
                        try:
                            cur.execute(ddl)
                        except (duckdb.CatalogException, duckdb.BinderException) as exc:
                            raise StoreError(faults.migration_failed(self.label, version, exc)) from None
                        cur.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
                views.apply(cur)
            # Write the new schema into the file now: DDL replayed from a WAL has failed offline
            # after a crash (DuckDB 2.0 wanted an extension; 1.5 cannot bind a view there).
            self._connect().execute("CHECKPOINT")
        except StoreError:
            self._drop()
            raise
        except duckdb.Error as exc:
            self._drop()
            raise StoreError(faults.describe(self.label, exc)) from None

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


def _lake_url(path: Path | str | None) -> str | None:
    """The conninfo of a ``ducklake:postgres:...`` store name (argument or $BENCHDECK_DB)."""
    text = str(path) if path is not None else os.environ.get(DB_ENV, "")
    if not text.startswith("ducklake:"):
        return None
    from benchdeck.store import lake

    try:
        url = lake.LakeUrl.parse(text)
    except lake.LakeError as exc:
        raise StoreError(str(exc)) from None
    if url is None:
        raise StoreError(f"{text!r}: a team store is named ducklake:postgres:dbname=NAME host=...")
    return url.conninfo


def _translate_open_error(path: Path, exc: duckdb.IOException) -> StoreError:
    msg = str(exc)
    if _LOCKED.search(msg):  # not "block": a damaged file's errors name blocks
        m = _LOCK_PID.search(msg)
        return StoreLocked(path, int(m.group(1)) if m else None)
    return StoreError(faults.describe(path, exc, writing=False))
