"""Opening a store: a DuckDB file (store/storage/file_store.py) or a DuckLake team store
(store/storage/lake_store.py), two implementations of one interface, :class:`StoreBackend`.

Callers hold a :class:`Store`, which picks the implementation from the name
(``ducklake:postgres:...`` or a path) and hands every call to it: no mode flags in one class.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import duckdb

from benchdeck.store.storage import faults
from benchdeck.store.storage.errors import StoreError, StoreLocked, StoreNotWritable, StoreTooNew
from benchdeck.store.storage.file_store import FileStore
from benchdeck.store.storage.location import DB_ENV, default_db_path

if TYPE_CHECKING:
    from benchdeck.store.storage.lake_session import LakeSession

__all__ = [
    "DB_ENV",
    "Store",
    "StoreBackend",
    "StoreError",
    "StoreLocked",
    "StoreNotWritable",
    "StoreTooNew",
    "default_db_path",
]


class StoreBackend(Protocol):
    """What a store implementation gives (the file store's and the team store's)."""

    path: Path
    read_only: bool

    @property
    def label(self) -> Path: ...
    @property
    def snapshot_of(self) -> Path | None: ...
    @property
    def shared(self) -> bool: ...
    @property
    def attach(self) -> bool: ...
    @property
    def lock_wait(self) -> float: ...
    @property
    def lake(self) -> str | None: ...
    @property
    def team(self) -> LakeSession | None: ...
    @property
    def con(self) -> duckdb.DuckDBPyConnection: ...
    def cursor(self) -> duckdb.DuckDBPyConnection: ...
    def reading(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]: ...
    def transaction(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]: ...
    def applied_versions(self) -> set[int]: ...
    def schema_version(self) -> int: ...
    def scalar(self, sql: str, params: list[Any] | None = None) -> Any: ...
    def hold(self) -> None: ...
    def let_go(self) -> None: ...
    def set_threads(self, threads: int | None) -> None: ...
    def set_lock_wait(self, seconds: float) -> None: ...
    def close(self) -> None: ...


class Store:
    """An open store. One instance per process; use :meth:`cursor` per thread (on a shared
    file store, prefer :meth:`reading` and :meth:`transaction`, which let go of the file).

    A *shared* file store (``Store.open(..., shared=True)``, what the CLI's writers use) holds
    the file only while it reads or writes (store/storage/file_store.py). A snapshot copy (a reader a
    writer keeps out, :meth:`open_for_reading`) takes no writes: :meth:`transaction` raises
    :class:`StoreNotWritable`.
    """

    __slots__ = ("backend",)

    def __init__(self, backend: StoreBackend):
        self.backend = backend

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
        opened = FileStore.open(
            path,
            read_only=read_only,
            shared=shared,
            lock_wait=lock_wait,
            on_lock_wait=on_lock_wait,
            attach=attach,
        )
        return cls(opened)

    @classmethod
    def open_for_reading(cls, path: Path | str | None = None, *, attach: bool = False) -> Store:
        """Open read-only; if a writer holds a file store for longer than a shared writer's
        batch, read a snapshot copy instead (see FileStore.open_for_reading)."""
        if (lake_db := _lake_url(path)) is not None:
            return cls._open_lake(lake_db, read_only=True)
        return cls(FileStore.open_for_reading(path, attach=attach))

    @classmethod
    def _open_lake(cls, conninfo: str, *, read_only: bool) -> Store:
        from benchdeck.store.storage.lake_store import (
            LakeStore,  # (psycopg and the extensions: a team store only)
        )

        return cls(LakeStore.open(conninfo, read_only=read_only))

    # ---- what the store is
    @property
    def path(self) -> Path:
        return self.backend.path

    @property
    def label(self) -> Path:
        """The file the user named (a snapshot's original)."""
        return self.backend.label

    @property
    def read_only(self) -> bool:
        return self.backend.read_only

    @property
    def snapshot_of(self) -> Path | None:
        """The store this is a read-only snapshot copy of, or None."""
        return self.backend.snapshot_of

    @property
    def shared(self) -> bool:
        return self.backend.shared

    @property
    def attach(self) -> bool:
        return self.backend.attach

    @property
    def lock_wait(self) -> float:
        return self.backend.lock_wait

    @property
    def lake(self) -> str | None:
        """A DuckLake team store's conninfo (``--db ducklake:postgres:...``); None for a file."""
        return self.backend.lake

    @property
    def team(self) -> LakeSession | None:
        """The team store's session (ids, names, maintenance); None for a DuckDB file."""
        return self.backend.team

    # ---- using it
    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection; on a shared store, using it directly keeps the file held."""
        return self.backend.con

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for one thread or one operation (on a shared store, prefer :meth:`reading`)."""
        return self.backend.cursor()

    def reading(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
        """A cursor for a few reads; a shared store lets go of the file after the last one."""
        return self.backend.reading()

    def transaction(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
        """A cursor in a transaction: committed at the end of the block, rolled back if it
        raises. A DuckDB error (disk full, damaged file) becomes a one-line StoreError; a
        snapshot raises StoreNotWritable."""
        return self.backend.transaction()

    def check_writable(self) -> None:
        """Raise StoreNotWritable (one line, with the reason) if this store takes no writes: a
        snapshot copy (another process holds the store) or a store opened read-only."""
        if self.snapshot_of is not None:
            raise StoreNotWritable(
                f"store {self.snapshot_of} is in use by another process: showing a read-only "
                "snapshot, changes are not possible (Reload when it is free)"
            )
        if self.read_only:
            raise StoreNotWritable(f"store {self.label} is read-only here: changes are not possible")

    def schema_version(self) -> int:
        return self.backend.schema_version()

    def applied_versions(self) -> set[int]:
        """The migrations recorded in the store (none for a new file)."""
        return self.backend.applied_versions()

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        return self.backend.scalar(sql, params)

    def hold(self) -> None:
        """Keep a shared store's file open between uses until :meth:`let_go`."""
        self.backend.hold()

    def let_go(self) -> None:
        """End :meth:`hold`: the file closes once nothing uses it, and others may open it."""
        self.backend.let_go()

    def set_threads(self, threads: int | None) -> None:
        """Run a shared writer's own database on ``threads`` threads (None: DuckDB's default)."""
        self.backend.set_threads(threads)

    def set_lock_wait(self, seconds: float) -> None:
        """From now on, wait up to ``seconds`` for a file another process holds (the open may
        have waited less: the app then reads a snapshot instead)."""
        self.backend.set_lock_wait(seconds)

    def close(self) -> None:
        self.backend.close()

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


def _lake_url(path: Path | str | None) -> str | None:
    """The conninfo of a ``ducklake:postgres:...`` store name (argument or $BENCHDECK_DB)."""
    text = str(path) if path is not None else os.environ.get(DB_ENV, "")
    if not text.startswith("ducklake:"):
        return None
    from benchdeck.store.storage import lake

    try:
        url = lake.LakeUrl.parse(text)
    except lake.LakeError as exc:
        raise StoreError(str(exc)) from None
    if url is None:
        raise StoreError(f"{text!r}: a team store is named ducklake:postgres:dbname=NAME host=...")
    return url.conninfo
