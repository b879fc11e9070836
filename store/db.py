"""Opening the DuckDB store: path resolution, migrations, and a clear answer when it is locked."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import platformdirs

from store import views
from store.schema import LATEST_VERSION, MIGRATIONS

DB_ENV = "BENCHDECK_DB"
_LOCK_PID = re.compile(r"\(PID (\d+)\)")


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
        p.parent.mkdir(parents=True, exist_ok=True)
        try:
            con = duckdb.connect(str(p), read_only=read_only)
        except duckdb.IOException as exc:
            raise _translate_open_error(p, exc) from None
        except duckdb.Error as exc:
            raise StoreError(f"cannot open store {p}: {_first_line(exc)}") from None
        store = cls(path=p, con=con, read_only=read_only)
        store._check_schema()
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
    def _open_snapshot(cls, p: Path) -> Store:
        tmp = Path(tempfile.mkdtemp(prefix="benchdeck-snapshot-"))
        copy = tmp / p.name
        shutil.copy2(p, copy)
        wal = p.with_name(p.name + ".wal")
        if wal.exists():
            shutil.copy2(wal, copy.with_name(copy.name + ".wal"))
        store = cls.open(copy, read_only=False)
        store.read_only = True
        store.snapshot_of = p
        return store

    def close(self) -> None:
        self.con.close()
        if self.snapshot_of is not None:
            shutil.rmtree(self.path.parent, ignore_errors=True)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for one thread or one operation."""
        return self.con.cursor()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        cur = self.con.cursor()
        cur.execute("BEGIN TRANSACTION")
        try:
            yield cur
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        else:
            cur.execute("COMMIT")
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
        current = self.schema_version()
        if current > LATEST_VERSION:
            self.con.close()
            raise StoreTooNew(
                f"store {self.path} has schema version {current}, newer than this benchdeck "
                f"understands ({LATEST_VERSION}); upgrade benchdeck"
            )
        if current == LATEST_VERSION:
            return
        if self.read_only:
            self.con.close()
            raise StoreError(
                f"store {self.path} needs a schema upgrade (v{current} -> v{LATEST_VERSION}); "
                "open it once without another benchdeck running"
            )
        self._migrate(current)

    def _migrate(self, current: int) -> None:
        with self.transaction() as cur:
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)"
            )
            for version, ddl in MIGRATIONS:
                if version > current:
                    cur.execute(ddl)
                    cur.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
            views.apply(cur)
        # Write the new schema into the file now: DuckDB 2.0 cannot replay some DDL from its WAL
        # without downloading an extension, which fails offline after a crash.
        self.con.execute("CHECKPOINT")

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        row = self.con.execute(sql, params or []).fetchone()
        return row[0] if row else None


def _translate_open_error(path: Path, exc: duckdb.IOException) -> StoreError:
    msg = str(exc)
    if "lock" in msg.lower():
        m = _LOCK_PID.search(msg)
        return StoreLocked(path, int(m.group(1)) if m else None)
    return StoreError(f"cannot open store {path}: {_first_line(exc)}")


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
