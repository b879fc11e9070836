"""The team store on DuckLake: a PostgreSQL catalog, Parquet data files on a shared path.

:class:`store.db.Store` opens one through :mod:`store.lake_session`; this module holds the parts
it is made of:

- ``ducklake:postgres:<libpq conninfo>`` names a lake (``--db`` / ``$BENCHDECK_DB``); the data
  path is given once, when the lake is made (DuckLake keeps it in its catalog).
- The extensions load offline from the PyPI packages ``duckdb-extension-ducklake`` and
  ``duckdb-extension-postgres-scanner`` (their version is DuckDB's).
- The schema is the DuckDB store's, read from a migrated in-memory DuckDB: the same tables,
  columns, types, NOT NULL and plain defaults; no sequences, keys or list defaults, which
  DuckLake lacks. Views and comments are store/storage/views.py's.
- Ids come from PostgreSQL sequences in the catalog database (psycopg, parameterised): unique
  across writers, and the same small integers as the file store's. Host, build and workload
  names are claimed in a PostgreSQL table with a primary key, so one writer adds each.
- An UPDATE that meets another writer's commit on the same table fails with a transaction
  conflict and is not retried by DuckLake: :func:`retry_conflicts` retries the transaction.
"""

# ruff: noqa: S608 - table, column and sequence names are the schema's constants, not user values

from __future__ import annotations

import importlib.util
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import duckdb
import psycopg
from psycopg.conninfo import conninfo_to_dict

from benchdeck.store.storage import views
from benchdeck.store.storage.schema import LATEST_VERSION, MIGRATIONS

PREFIX: Final = "ducklake:postgres:"
DATA_ENV: Final = "BENCHDECK_LAKE_DATA"
"""Where a new team store's Parquet files go (``--lake-data``); an existing lake knows it."""
LAKE: Final = "lake"  # the attached lake's name in a connection
OFFLINE: Final[dict[str, str | bool | int | float | list[str]]] = {
    "autoinstall_known_extensions": "false",
    "autoload_known_extensions": "false",
}
_EXTENSIONS: Final = (
    ("duckdb_extension_postgres_scanner", "postgres_scanner"),
    ("duckdb_extension_ducklake", "ducklake"),
)
_SEQ_DEFAULT = re.compile(r"nextval\('(\w+)'\)")
T = TypeVar("T")


class LakeError(Exception):
    """A lake problem with a one-line message meant for the user."""


@dataclass(frozen=True, slots=True)
class LakeUrl:
    """``ducklake:postgres:dbname=lake host=db1 port=5432 user=bench``."""

    conninfo: str

    @classmethod
    def parse(cls, text: str) -> LakeUrl | None:
        """The lake ``text`` names, or None for a DuckDB file path."""
        if not text.startswith(PREFIX):
            return None
        conninfo = text[len(PREFIX) :].strip()
        if "dbname=" not in conninfo:
            raise LakeError(f"{text!r}: the catalog needs a database: ducklake:postgres:dbname=NAME host=...")
        return cls(conninfo)

    @property
    def shown(self) -> str:
        """The name to print: ``ducklake:postgres:...`` with any password masked."""
        return PREFIX + re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", self.conninfo)

    def part(self, key: str, default: str = "") -> str:
        """One conninfo field (``dbname``, ``host``, ``port``, ``user``), or ``default``."""
        try:
            return str(conninfo_to_dict(self.conninfo).get(key) or default)
        except psycopg.Error:
            return default


def extension_path(package: str, name: str) -> Path:
    """The extension file a PyPI extension package ships for this DuckDB."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise LakeError(f"the team store needs the Python package {package.replace('_', '-')}")
    path = Path(spec.origin).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.exists():
        raise LakeError(f"{package.replace('_', '-')} has no extension for DuckDB {duckdb.__version__}")
    return path


def connect(url: LakeUrl, data_path: Path | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the lake attached (and used).

    ``data_path`` is needed only the first time (DuckLake stores it in the catalog)."""
    con = duckdb.connect(config=OFFLINE)
    try:
        con.execute("SET enable_progress_bar = false")
        for package, name in _EXTENSIONS:
            con.execute(f"LOAD '{extension_path(package, name)}'")
        opts = f" (DATA_PATH '{_quote(str(data_path))}')" if data_path is not None else ""
        con.execute(f"ATTACH '{_quote('ducklake:postgres:' + url.conninfo)}' AS {LAKE}{opts}")
        con.execute(f"USE {LAKE}")
    except duckdb.Error as exc:
        con.close()
        raise LakeError(f"cannot open the team store {url.shown}: {str(exc).splitlines()[0]}") from None
    return con


def _quote(text: str) -> str:
    return text.replace("'", "''")


def file_schema() -> dict[str, list[tuple[str, str, bool, str | None]]]:
    """The latest DuckDB store's tables: name -> [(column, type, nullable, default)]."""
    con = duckdb.connect()
    try:
        con.execute(
            "CREATE TABLE schema_version (version INTEGER, applied_at TIMESTAMP DEFAULT current_timestamp)"
        )
        for _, ddl in MIGRATIONS:
            con.execute(ddl)
        rows = con.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default "
            "FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' "
            "AND NOT internal ORDER BY table_name, column_index"
        ).fetchall()
    finally:
        con.close()
    tables: dict[str, list[tuple[str, str, bool, str | None]]] = {}
    for table, column, dtype, nullable, default in rows:
        tables.setdefault(table, []).append((column, dtype, bool(nullable), default))
    return tables


def sequences() -> dict[tuple[str, str], str]:
    """(table, id column) -> the file store's sequence that numbers it."""
    out: dict[tuple[str, str], str] = {}
    for table, cols in file_schema().items():
        for column, _, _, default in cols:
            if default and (m := _SEQ_DEFAULT.search(default)):
                out[(table, column)] = m.group(1)
    return out


def lake_ddl() -> list[str]:
    """CREATE TABLE statements for the lake: the file store's columns without what DuckLake
    lacks (sequence and list defaults; keys were never columns)."""
    out = []
    for table, cols in file_schema().items():
        defs = []
        for column, dtype, nullable, default in cols:
            # A list default (runs.tags) cannot be kept, so neither can its NOT NULL: an insert
            # that leaves it out stores NULL. Ids keep NOT NULL: the writer must take one.
            keeps_default = default is not None and "nextval" not in default and not dtype.endswith("[]")
            not_null = not nullable and (keeps_default or default is None or "nextval" in default)
            d = f'"{column}" {dtype}' + (" NOT NULL" if not_null else "")
            if keeps_default:
                d += f" DEFAULT {default}"
            defs.append(d)
        out.append(f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(defs)})")
    return out


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Make an empty lake a benchdeck store at the latest schema (no other writer attached:
    DuckLake's catalog changes clash with concurrent writers)."""
    have = {
        r[0]
        for r in con.execute(
            f"SELECT table_name FROM duckdb_tables() WHERE database_name = '{LAKE}'"
        ).fetchall()
    }
    if "schema_version" in have:
        got = con.execute("SELECT max(version) FROM schema_version").fetchone()
        if got and got[0] == LATEST_VERSION:
            return
        raise LakeError(
            f"the lake has schema version {got[0] if got else None}; this benchdeck makes {LATEST_VERSION}"
        )
    con.execute("BEGIN TRANSACTION")
    for stmt in lake_ddl():
        con.execute(stmt)
    con.execute(
        "INSERT INTO schema_version (version) SELECT v FROM unnest(?) t(v)", [[v for v, _ in MIGRATIONS]]
    )
    views.apply(con)
    con.execute("COMMIT")


def pg_connect(url: LakeUrl) -> psycopg.Connection[tuple[Any, ...]]:
    """The catalog database itself (autocommit), for ids and names, with parameterised SQL."""
    try:
        return psycopg.connect(url.conninfo, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise LakeError(catalog_error(url, exc)) from None


def catalog_error(url: LakeUrl, exc: psycopg.Error) -> str:
    """One line for a catalog database that cannot be used: down, refused, missing."""
    text = " ".join(str(exc).split())
    reason = text.split("FATAL:", 1)[-1].strip() if "FATAL:" in text else text
    reason = re.sub(r"^connection failed: (connection to server at .*? failed: )?", "", reason)
    where = f"PostgreSQL at {url.part('host', 'localhost')}:{url.part('port', '5432')}"
    db = url.part("dbname")
    if "Connection refused" in reason or "could not connect" in reason or "timeout expired" in reason:
        why = reason.split(". ")[0].rstrip(".")
        return f"team store {url.shown}: cannot reach {where} (is it running? {why})"
    if f'database "{db}" does not exist' in reason:
        return f"team store {url.shown}: {where} has no database {db!r}; create it first (createdb {db})"
    if "authentication failed" in reason or "no pg_hba.conf entry" in reason or "password" in reason:
        return f"team store {url.shown}: {where} refused user {url.part('user', '?')!r}: {reason}"
    return f"team store {url.shown}: its catalog cannot be used: {reason}"


def catalog_state(pg: psycopg.Connection[tuple[Any, ...]], url: LakeUrl) -> str:
    """``'lake'`` (a DuckLake catalog), ``'empty'`` (a new lake may be made there); anything
    else (a database holding other tables) is a LakeError, never written into."""
    row = pg.execute("SELECT to_regclass('ducklake_metadata') IS NOT NULL").fetchone()
    if row and row[0]:
        return "lake"
    other = pg.execute(
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
    ).fetchone()
    if other and other[0]:
        raise LakeError(
            f"team store {url.shown}: database {url.part('dbname')!r} is not a DuckLake catalog "
            f"(it holds {other[0]} other table(s)); name an empty database for a new team store"
        )
    return "empty"


def setup_ids(pg: psycopg.Connection[tuple[Any, ...]], *, only_if_missing: bool = False) -> None:
    """The catalog's sequences (one per file-store sequence) and its name registry."""
    if only_if_missing:
        row = pg.execute("SELECT to_regclass('benchdeck_names') IS NOT NULL").fetchone()
        if row and row[0]:
            return
    for seq in sorted(set(sequences().values())):
        pg.execute(f"CREATE SEQUENCE IF NOT EXISTS benchdeck_{seq}")
    pg.execute(
        "CREATE TABLE IF NOT EXISTS benchdeck_names (kind TEXT NOT NULL, name TEXT NOT NULL, "
        "id BIGINT NOT NULL, made_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (kind, name))"
    )


def next_ids(pg: psycopg.Connection[tuple[Any, ...]], seq: str, n: int = 1) -> list[int]:
    """``n`` new ids from the catalog's sequence (the file store's ``nextval(seq)``)."""
    rows = pg.execute("SELECT nextval(%s) FROM generate_series(1, %s)", [f"benchdeck_{seq}", n]).fetchall()
    return [int(r[0]) for r in rows]


def claim_name(pg: psycopg.Connection[tuple[Any, ...]], kind: str, name: str, seq: str) -> tuple[int, bool]:
    """The id of host/build/workload ``name`` and whether this call made it (then the caller
    adds the lake's row: DuckLake has no UNIQUE, two writers would both add it).

    Meant inside a catalog transaction that ends after the row is added: a new claim is seen
    by others only with its row; another writer's open claim of the name is waited for (the
    primary key's insert waits on it), and an existing claim is locked until the end."""
    row = pg.execute(
        "INSERT INTO benchdeck_names (kind, name, id) VALUES (%s, %s, nextval(%s)) "
        "ON CONFLICT (kind, name) DO NOTHING RETURNING id",
        [kind, name, f"benchdeck_{seq}"],
    ).fetchone()
    if row is not None:
        return int(row[0]), True
    got = pg.execute(
        "SELECT id FROM benchdeck_names WHERE kind = %s AND name = %s FOR UPDATE", [kind, name]
    ).fetchone()
    assert got is not None
    return int(got[0]), False


def move_claim(pg: psycopg.Connection[tuple[Any, ...]], kind: str, name: str, ident: int) -> None:
    """Point ``name``'s claim at ``ident``, the id of the row the lake already has."""
    pg.execute("UPDATE benchdeck_names SET id = %s WHERE kind = %s AND name = %s", [ident, kind, name])


def foreign_tables(pg: psycopg.Connection[tuple[Any, ...]], ours: frozenset[str]) -> list[str]:
    """The lake's live tables that are not among ``ours`` (another program's), read from the
    DuckLake catalog itself (attaching it reads nothing of the kind)."""
    rows = pg.execute("SELECT DISTINCT table_name FROM ducklake_table WHERE end_snapshot IS NULL").fetchall()
    return sorted(str(r[0]) for r in rows if str(r[0]) not in ours)


def is_conflict(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.Error) and "Transaction conflict" in str(exc)


def retry_conflicts(fn: Callable[[], T], attempts: int = 20, pause: float = 0.01) -> T:
    """Run ``fn`` (one whole transaction) again when DuckLake reports a conflict with another
    writer's commit; the pause doubles up to 0.5 s."""
    for attempt in range(attempts):
        try:
            return fn()
        except duckdb.Error as exc:
            if not is_conflict(exc) or attempt == attempts - 1:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
    raise AssertionError("unreachable")
