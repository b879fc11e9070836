"""The store's errors: each a one-line message meant for the user (a leaf: the file store, the
team store and the opener all raise them)."""

from __future__ import annotations

from pathlib import Path

from benchdeck.store.storage.location import DB_ENV


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
    """The store (or its directory) cannot be written; it can still be read. Also what a
    snapshot copy raises on a write: what it took would be deleted with the copy."""
