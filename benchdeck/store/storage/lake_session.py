"""An open team store: the attached lake, its catalog database, and writing into it safely.

- :func:`open_session` makes a new lake in an empty catalog database (schema, ids) or attaches
  an existing one, and says in one line what is wrong with the catalog otherwise.
- Ids come from the catalog's sequences; host, build and workload names are claimed there, so
  one writer adds each row (:meth:`LakeSession.ensure_name`): the claim commits only after
  its row, so a writer killed at any step leaves no claim that hides runs.
- Its cursors carry the session (``cur.lake``, :class:`LakeCursor`, :class:`Recorder`): where
  the SQL differs from a file's (store/storage/dialect.py) the cursor says which store it is of.
- A transaction whose COMMIT meets another writer's commit on the same table fails with a
  conflict (DuckLake retries only appends): :meth:`LakeSession.commit` runs its statements again
  on the newer snapshot, if every read among them still gives what it gave the first time (then
  the block's decisions are the same), with a pause doubling from 10 ms to 0.5 s.
"""

# ruff: noqa: S608 - table and column names are the schema's constants, not user values

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import duckdb
import psycopg

from benchdeck.store.storage import lake
from benchdeck.store.storage.errors import StoreError
from benchdeck.store.storage.faults import expected_tables
from benchdeck.store.storage.schema import LATEST_VERSION

STATS_ENV: Final = "BENCHDECK_LAKE_STATS"
"""Set: a process prints its team-store commits and conflict replays at close (stderr)."""
ATTEMPTS: Final = 20
_CREATE_LOCK: Final = 0x62646C6B  # pg_advisory_lock key: one process makes a new lake
_SEQ_OF: Final = {"hosts": "host_id_seq", "builds": "build_id_seq", "workloads": "workload_id_seq"}


class Conflict(lake.LakeError, StoreError):
    """Another writer changed what this transaction read: it cannot be replayed. A store error
    too: the CLI and the app say it in one line as they say the store's others."""


@dataclass
class LakeSession:
    """The attached lake (``con``, an in-memory DuckDB) and its catalog (``pg``, psycopg)."""

    url: lake.LakeUrl
    con: duckdb.DuckDBPyConnection
    pg: psycopg.Connection[tuple[Any, ...]] | None = None
    commits: int = 0
    replays: int = 0
    _present: dict[tuple[str, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _naming: threading.Lock = field(default_factory=threading.Lock)

    def _pg(self) -> psycopg.Connection[tuple[Any, ...]]:
        with self._lock:
            if self.pg is None:
                self.pg = lake.pg_connect(self.url)
            return self.pg

    def cursor(self) -> LakeCursor:
        """A cursor in the lake, which says it is of this team store (``cur.lake``)."""
        cur = self.con.cursor()
        cur.execute(f"USE {lake.LAKE}")
        return LakeCursor(cur, self)

    def next_ids(self, seq: str, n: int = 1) -> list[int]:
        return lake.next_ids(self._pg(), seq, n)

    def ensure_name(self, table: str, name: str, row: Mapping[str, Any]) -> tuple[int, bool]:
        """The id of host/build/workload ``name``, and whether this call added its row.

        Claim and row in one catalog transaction: the claim (a primary key in the catalog) is
        committed only after the lake's row (an append of its own, committed at once: it never
        conflicts, and a rolled-back or replayed caller still finds it). Another writer's
        claim waits on the first's transaction, so it finds the row. A writer killed
        - after its claim: the catalog rolls the claim back; the next writer claims the name;
        - after the row, before the claim's commit: the next writer claims the name, finds the
          row and takes its id;
        and a claim left without a row (a benchdeck before this one) gets its row from the
        next writer, the claim locked meanwhile."""
        key = (table, name)
        if key in self._present:
            return self._present[key], False
        pg = self._pg()
        with self._naming, pg.transaction():
            ident, _ = lake.claim_name(pg, table, name, _SEQ_OF[table])
            have = self.row_id(table, name)
            if have is None:
                self.add_row(table, ident, name, row)
            elif have != ident:  # the row of a claim rolled back when its writer died
                lake.move_claim(pg, table, name, have)
                ident = have
        self._present[key] = ident
        return ident, have is None

    def row_id(self, table: str, name: str) -> int | None:
        """The id of ``name``'s row in the lake (the lowest, should a name have two)."""
        cur = self.cursor()
        try:
            got = cur.execute(f"SELECT min({table[:-1]}_id) FROM {table} WHERE name = ?", [name]).fetchone()
            return None if got is None or got[0] is None else int(got[0])
        finally:
            cur.close()

    def add_row(self, table: str, ident: int, name: str, row: Mapping[str, Any]) -> None:
        """Add ``name``'s row, committed at once."""
        cols = {f"{table[:-1]}_id": ident, "name": name, **row}
        cur = self.cursor()
        try:
            cur.execute(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                list(cols.values()),
            )
        finally:
            cur.close()

    def commit(self, cur: duckdb.DuckDBPyConnection, rec: Recorder) -> None:
        """COMMIT; on a conflict with another writer, replay ``rec`` and commit again."""
        pause = 0.01
        for attempt in range(ATTEMPTS):
            try:
                cur.execute("COMMIT")
                self.commits += 1
                return
            except duckdb.Error as exc:
                if not lake.is_conflict(exc) or attempt == ATTEMPTS - 1:
                    raise
                with suppress(duckdb.Error):  # (a failed COMMIT has ended it already)
                    cur.execute("ROLLBACK")
                if not rec.replayable:
                    raise Conflict(conflict_line(exc)) from None
            self.replays += 1
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
            cur.execute("BEGIN TRANSACTION")
            try:
                rec.replay(cur)
            except BaseException:
                with suppress(duckdb.Error):
                    cur.execute("ROLLBACK")
                raise

    def close(self) -> None:
        if os.environ.get(STATS_ENV):
            print(
                f"benchdeck: team store: {self.commits} commit(s), {self.replays} replayed after a conflict",
                file=sys.stderr,
            )
        with suppress(duckdb.Error):
            self.con.close()
        if self.pg is not None:
            with suppress(psycopg.Error):
                self.pg.close()
            self.pg = None


def conflict_line(exc: BaseException) -> str:
    return (
        "another benchdeck changed the team store at the same time and this write read what it "
        f"changed; try again ({str(exc).splitlines()[-1].strip()[:160]})"
    )


class LakeCursor:
    """A DuckDB cursor of a team store: everything is the cursor's, and ``lake`` is its store."""

    __slots__ = ("_cur", "lake")

    def __init__(self, cur: duckdb.DuckDBPyConnection, session: LakeSession):
        self._cur = cur
        self.lake = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


class Recorder:
    """A transaction's cursor that keeps what the block did, to do it again after a conflict.

    ``execute``/``executemany``/``register``/``unregister`` and the fetches are kept (a fetch's
    result too: a replay whose reads differ is refused). Anything else makes the transaction
    not replayable (a conflict then fails it, in one line)."""

    __slots__ = ("_cur", "_log", "lake", "replayable")
    _PASSIVE: Final = frozenset({"description", "rowcount", "close"})

    def __init__(self, cur: duckdb.DuckDBPyConnection, session: LakeSession):
        self._cur = cur
        self.lake = session
        self._log: list[tuple[str, tuple[Any, ...], list[tuple[str, tuple[Any, ...], Any]]]] = []
        self.replayable = True

    def _call(self, what: str, *args: Any) -> Recorder:
        getattr(self._cur, what)(*args)
        self._log.append((what, args, []))
        return self

    def execute(self, query: str, parameters: object = None) -> Recorder:
        return self._call("execute", query, parameters)

    def executemany(self, query: str, parameters: object = None) -> Recorder:
        return self._call("executemany", query, parameters)

    def register(self, view_name: str, python_object: object) -> Recorder:
        return self._call("register", view_name, python_object)

    def unregister(self, view_name: str) -> Recorder:
        return self._call("unregister", view_name)

    def _fetch(self, what: str, *args: Any) -> Any:
        got = getattr(self._cur, what)(*args)
        if self._log:
            self._log[-1][2].append((what, args, got))
        else:
            self.replayable = False
        return got

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._fetch("fetchone")  # type: ignore[no-any-return]

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._fetch("fetchall")  # type: ignore[no-any-return]

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        return self._fetch("fetchmany", size)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._cur, name)
        if name not in self._PASSIVE and callable(attr):
            self.replayable = False
        return attr

    def replay(self, cur: duckdb.DuckDBPyConnection) -> None:
        for what, args, fetches in self._log:
            getattr(cur, what)(*args)
            for fetch, fargs, was in fetches:
                now = getattr(cur, fetch)(*fargs)
                if now != was and repr(now) != repr(was):
                    raise Conflict(
                        "another benchdeck changed what this write read, at the same time; try again"
                    )


def open_session(url: lake.LakeUrl, *, write: bool, data_path: Path | None) -> LakeSession:
    """Attach the lake; a writer makes a new one in an empty catalog database (``data_path``:
    where its Parquet files go). Raises LakeError with one line naming what is wrong."""
    pg = lake.pg_connect(url)
    try:
        state = lake.catalog_state(pg, url)
        if state == "empty":
            if not write:
                raise lake.LakeError(f"team store {url.shown} is empty (nothing stored there yet)")
            if data_path is None:
                raise lake.LakeError(
                    f"team store {url.shown} is new: say where its data files go with --lake-data DIR "
                    f"or ${lake.DATA_ENV} (a path every writer can reach)"
                )
            return _make(url, pg, data_path)
        if other := lake.foreign_tables(pg, expected_tables()):
            shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
            raise lake.LakeError(
                f"team store {url.shown} is a DuckLake holding tables benchdeck did not make "
                f"({shown}); benchdeck leaves it as it is: name an empty database for a team store"
            )
        session = LakeSession(url, lake.connect(url), pg)
        try:
            _check_version(session, write=write)
            if write:
                lake.setup_ids(pg, only_if_missing=True)
        except BaseException:
            session.con.close()
            raise
        return session
    except BaseException:
        with suppress(psycopg.Error):
            pg.close()
        raise


def _make(url: lake.LakeUrl, pg: psycopg.Connection[tuple[Any, ...]], data_path: Path) -> LakeSession:
    """A new lake: one process at a time (an advisory lock in the catalog database)."""
    data_path = data_path.expanduser().absolute()
    try:
        data_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise lake.LakeError(f"cannot create the team store data path {data_path}: {exc.strerror}") from None
    pg.execute("SELECT pg_advisory_lock(%s)", [_CREATE_LOCK])
    try:
        again = lake.catalog_state(pg, url)
        con = lake.connect(url, data_path if again == "empty" else None)
        try:
            lake.create_schema(con)
            lake.setup_ids(pg)
        except BaseException:
            con.close()
            raise
    finally:
        pg.execute("SELECT pg_advisory_unlock(%s)", [_CREATE_LOCK])
    session = LakeSession(url, con, pg)
    _check_version(session, write=True)
    return session


def _check_version(session: LakeSession, *, write: bool) -> None:
    con = session.con
    try:  # (not duckdb_tables(): that lists the whole catalog, slow on a lake)
        got = con.execute("SELECT max(version) FROM schema_version").fetchone()
    except duckdb.CatalogException:
        if not write:
            raise lake.LakeError(f"team store {session.url.shown} holds no benchdeck store yet") from None
        lake.create_schema(con)  # a lake made by hand, not by benchdeck: make it one
        return
    version = got[0] if got else None
    if version != LATEST_VERSION:
        raise lake.LakeError(
            f"team store {session.url.shown} has schema version {version}; this benchdeck uses "
            f"{LATEST_VERSION} and cannot migrate a team store yet"
        )


@dataclass(frozen=True, slots=True)
class Maintained:
    """What :func:`maintain` did."""

    flushed_rows: int
    merged_files: int
    expired_snapshots: int
    removed_files: int


def maintain(session: LakeSession, older_than_days: int) -> Maintained:
    """Compact a lake: small commits' rows inlined in the catalog go to Parquet files, small
    adjacent files are merged, snapshots older than ``older_than_days`` are expired and the
    files only they used are deleted (time travel before then is given up)."""
    cur = session.cursor()
    try:
        age = [f"{int(older_than_days)} days"]
        flushed = cur.execute(f"CALL ducklake_flush_inlined_data('{lake.LAKE}')").fetchall()
        merged = cur.execute(f"CALL ducklake_merge_adjacent_files('{lake.LAKE}')").fetchall()
        expired = cur.execute(
            f"CALL ducklake_expire_snapshots('{lake.LAKE}', older_than => now() - CAST(? AS INTERVAL))", age
        ).fetchall()
        removed = cur.execute(
            f"CALL ducklake_cleanup_old_files('{lake.LAKE}', older_than => now() - CAST(? AS INTERVAL))", age
        ).fetchall()
    finally:
        cur.close()
    return Maintained(sum(int(r[-1]) for r in flushed), len(merged), len(expired), len(removed))
