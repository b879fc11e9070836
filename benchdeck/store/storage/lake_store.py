"""The team store on DuckLake as a store: the other implementation of
:class:`store.db.StoreBackend` (the file store is store/storage/file_store.py).

Its cursors carry the session (:class:`store.lake_session.LakeCursor`), so the SQL that differs
from a file's (store/storage/dialect.py) asks the cursor, not a registry. A transaction keeps its
statements and replays them if its COMMIT meets another writer's (store/storage/lake_session.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, cast

import duckdb

from benchdeck.store.storage import lake, lake_session
from benchdeck.store.storage.errors import StoreError


class LakeStore:
    """An open team store (``--db ducklake:postgres:...``)."""

    shared = False
    attach = False
    snapshot_of = None
    lock_wait = 0.0

    def __init__(self, conninfo: str, session: lake_session.LakeSession, *, read_only: bool):
        self.lake: str | None = conninfo
        """The team store's conninfo (``--db ducklake:postgres:...``)."""
        self.team: lake_session.LakeSession | None = session
        self.path = Path(session.url.shown)
        self.read_only = read_only

    @classmethod
    def open(cls, conninfo: str, *, read_only: bool) -> LakeStore:
        """Attach the lake; a writer makes a new one in an empty catalog database (its data path
        from ``$BENCHDECK_LAKE_DATA``, which ``--lake-data`` sets)."""
        url = lake.LakeUrl(conninfo)
        data = os.environ.get(lake.DATA_ENV, "").strip()
        try:
            session = lake_session.open_session(
                url, write=not read_only, data_path=Path(data) if data else None
            )
        except lake.LakeError as exc:
            raise StoreError(str(exc)) from None
        except duckdb.Error as exc:
            raise StoreError(f"team store {url.shown}: {str(exc).splitlines()[0]}") from None
        return cls(conninfo, session, read_only=read_only)

    @property
    def session(self) -> lake_session.LakeSession:
        assert self.team is not None, "the team store is closed"
        return self.team

    @property
    def label(self) -> Path:
        return self.path

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self.session.con

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return cast("duckdb.DuckDBPyConnection", self.session.cursor())

    @contextmanager
    def reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        cur = self.session.cursor()
        try:
            yield cast("duckdb.DuckDBPyConnection", cur)
        finally:
            cur.close()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A transaction whose statements are kept, and replayed if the COMMIT meets another
        writer's; errors are one line."""
        session = self.session
        cur = session.con.cursor()
        try:
            cur.execute(f"USE {lake.LAKE}")
            rec = lake_session.Recorder(cur, session)
            try:
                cur.execute("BEGIN TRANSACTION")
                yield cast("duckdb.DuckDBPyConnection", rec)
            except BaseException as exc:
                with suppress(duckdb.Error):
                    cur.execute("ROLLBACK")
                if isinstance(exc, duckdb.Error):
                    raise StoreError(f"team store: {str(exc).splitlines()[0]}") from None
                raise
            try:
                session.commit(cur, rec)
            except lake.LakeError as exc:
                raise StoreError(str(exc)) from None
            except duckdb.Error as exc:
                raise StoreError(f"team store: {str(exc).splitlines()[0]}") from None
        finally:
            cur.close()

    def applied_versions(self) -> set[int]:
        with self.reading() as cur:
            return {int(v) for (v,) in cur.execute("SELECT version FROM schema_version").fetchall()}

    def schema_version(self) -> int:
        return max(self.applied_versions(), default=0)

    def scalar(self, sql: str, params: list[Any] | None = None) -> Any:
        with self.reading() as cur:
            row = cur.execute(sql, params or []).fetchone()
        return row[0] if row else None

    # A lake is never held: DuckLake's writers share it through the catalog.
    def hold(self) -> None:
        pass

    def let_go(self) -> None:
        pass

    def set_threads(self, threads: int | None) -> None:
        pass

    def set_lock_wait(self, seconds: float) -> None:
        pass

    def close(self) -> None:
        if self.team is not None:
            session, self.team = self.team, None
            session.close()
