"""A DuckDB file store's schema on opening: one cheap query for a store as it should be, else
the full check (another program's tables, a newer benchdeck's, missing tables) and the pending
migrations, applied by set in one transaction and checkpointed at once."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import duckdb

from benchdeck.store.storage import faults
from benchdeck.store.storage.errors import StoreError, StoreTooNew
from benchdeck.store.storage.schema import LATEST_VERSION, MIGRATIONS

Writing = Callable[[], AbstractContextManager[duckdb.DuckDBPyConnection]]


def applied_versions(con: duckdb.DuckDBPyConnection) -> set[int]:
    """The migrations recorded in the store (none for a new file)."""
    row = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchone()
    if not row or not row[0]:
        return set()
    return {int(v) for (v,) in con.execute("SELECT version FROM schema_version").fetchall()}


def check(
    con: duckdb.DuckDBPyConnection, path: Path, label: Path, writing: Writing, *, read_only: bool
) -> None:
    """Raise a one-line StoreError for a store this benchdeck cannot use; migrate one that
    needs it (``writing``: a transaction of the store)."""
    if faults.complete_store_versions(con) == {v for v, _ in MIGRATIONS}:
        return
    if why := faults.check_tables(label, con):
        raise StoreError(why)
    applied = applied_versions(con)
    if unknown := applied - {v for v, _ in MIGRATIONS}:
        raise StoreTooNew(
            f"store {path} has schema version {max(unknown)}, which this benchdeck does "
            f"not know (it knows up to {LATEST_VERSION}); upgrade benchdeck"
        )
    # By set, not by the highest number: a migration merged with a lower number than one a
    # store already has (7 after 13) is still applied to it.
    pending = [v for v, _ in MIGRATIONS if v not in applied]
    if not pending:
        if why := faults.missing_tables(label, con):
            raise StoreError(why)
        return
    if read_only:
        raise StoreError(
            f"store {path} needs a schema upgrade (v{max(applied, default=0)} -> "
            f"v{LATEST_VERSION}); open it once without another benchdeck running"
        )
    migrate(con, label, writing, set(pending))


def migrate(con: duckdb.DuckDBPyConnection, label: Path, writing: Writing, pending: set[int]) -> None:
    from benchdeck.store.storage import views  # (only when the schema changes)

    try:
        with writing() as cur:
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)"
            )
            for version, ddl in MIGRATIONS:
                if version in pending:
                    try:
                        cur.execute(ddl)
                    except (duckdb.CatalogException, duckdb.BinderException) as exc:
                        raise StoreError(faults.migration_failed(label, version, exc)) from None
                    cur.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
            views.apply(cur)
        # Write the new schema into the file now: DDL replayed from a WAL has failed offline
        # after a crash (DuckDB 2.0 wanted an extension; 1.5 cannot bind a view there).
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise StoreError(faults.describe(label, exc)) from None
