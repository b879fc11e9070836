"""Opening the DuckDB store: path resolution, migrations, and a clear answer when it is locked."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import platformdirs

from store import faults, snapshot
from store.schema import LATEST_VERSION, MIGRATIONS

DB_ENV = "BENCHDECK_DB"
_LOCK_PID = re.compile(r"\(PID (\d+)\)")
_LOCKED = re.compile(r"(?i)\block\b")


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


def default_db_path() -> Path:
    """``$BENCHDECK_DB`` if set, else ``benchdeck.duckdb`` in the user data dir."""
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("benchdeck", appauthor=False)) / "benchdeck.duckdb"


@dataclass
class Store:
    """An open store. One instance per process; use :meth:`cursor` per thread."""

    path: Path
    con: duckdb.DuckDBPyConnection
    read_only: bool = False
    snapshot_of: Path | None = None

    @classmethod
    def open(cls, path: Path | str | None = None, *, read_only: bool = False) -> Store:
        """Open (creating and migrating if needed) the store at ``path``.

        Raises :class:`StoreLocked` if another process holds it.
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
        try:
            con = duckdb.connect(str(p), read_only=read_only, config=faults.OFFLINE)
        except duckdb.IOException as exc:
            raise _translate_open_error(p, exc) from None
        except duckdb.Error as exc:
            raise StoreError(faults.describe(p, exc, writing=False)) from None
        store = cls(path=p, con=con, read_only=read_only)
        try:
            store._check_schema()
        except duckdb.Error as exc:
            con.close()
            raise StoreError(faults.describe(p, exc, writing=False)) from None
        return store

    @classmethod
    def open_for_reading(cls, path: Path | str | None = None) -> Store:
        """Open read-only; if a writer holds the lock, read a snapshot copy instead."""
        p = Path(path).expanduser() if path is not None else default_db_path()
        try:
            return cls.open(p, read_only=True)
        except StoreLocked:
            return cls._open_snapshot(p)

    @classmethod
    def _open_snapshot(cls, p: Path, attempts: int = 5) -> Store:
        """Open a consistent copy; the writer may finish meanwhile (then read ``p`` itself)."""
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
    def label(self) -> Path:
        """The file the user named (a snapshot's original)."""
        return self.snapshot_of or self.path

    def close(self) -> None:
        try:
            self.con.close()
        except duckdb.Error as exc:  # the last checkpoint failed (disk full ...)
            raise StoreError(faults.describe(self.label, exc)) from None
        finally:
            if self.snapshot_of is not None:
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
        """A cursor for one thread or one operation."""
        return self.con.cursor()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor in a transaction: committed at the end of the block, rolled back if it
        raises. A DuckDB error (disk full, damaged file) becomes a one-line StoreError."""
        try:
            cur = self.con.cursor()
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
        finally:
            cur.close()

    def schema_version(self) -> int:
        row = self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
        ).fetchone()
        if not row or not row[0]:
            return 0
        ver = self.con.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(ver[0]) if ver and ver[0] is not None else 0

    def _check_schema(self) -> None:
        if why := faults.check_tables(self.label, self.con):
            self.con.close()
            raise StoreError(why)
        current = self.schema_version()
        if current > LATEST_VERSION:
            self.con.close()
            raise StoreTooNew(
                f"store {self.path} has schema version {current}, newer than this benchdeck "
                f"understands ({LATEST_VERSION}); upgrade benchdeck"
            )
        if current == LATEST_VERSION:
            if why := faults.missing_tables(self.label, self.con):
                self.con.close()
                raise StoreError(why)
            return
        if self.read_only:
            self.con.close()
            raise StoreError(
                f"store {self.path} needs a schema upgrade (v{current} -> v{LATEST_VERSION}); "
                "open it once without another benchdeck running"
            )
        self._migrate(current)

    def _migrate(self, current: int) -> None:
        try:
            with self.transaction() as cur:
                cur.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version "
                    "(version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)"
                )
                for version, ddl in MIGRATIONS:
                    if version > current:
                        try:
                            cur.execute(ddl)
                        except (duckdb.CatalogException, duckdb.BinderException) as exc:
                            raise StoreError(faults.migration_failed(self.label, version, exc)) from None
                        cur.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
            # Write the new schema into the file now: DuckDB 2.0 cannot replay some DDL from its
            # WAL without downloading an extension, which fails offline after a crash.
            self.con.execute("CHECKPOINT")
        except StoreError:
            self.con.close()
            raise
        except duckdb.Error as exc:
            self.con.close()
            raise StoreError(faults.describe(self.label, exc)) from None

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        row = self.con.execute(sql, params or []).fetchone()
        return row[0] if row else None


def _translate_open_error(path: Path, exc: duckdb.IOException) -> StoreError:
    msg = str(exc)
    if _LOCKED.search(msg):  # not "block": a damaged file's errors name blocks
        m = _LOCK_PID.search(msg)
        return StoreLocked(path, int(m.group(1)) if m else None)
    return StoreError(faults.describe(path, exc, writing=False))
