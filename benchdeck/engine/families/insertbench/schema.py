"""The Insert Benchmark table, its SQL and the DB drivers (PyMySQL, psycopg 3).

Every statement takes its values through the driver's ``%s`` placeholders; only table and
index names are put into SQL text, and those come from :func:`table_name` (validated) and the
constant :data:`INDEXES`. The drivers are imported when a connection is made, so importing this
module needs neither.
"""

# ruff: noqa: S608 - table/index names come from table_name() and INDEXES; values are bound parameters
from __future__ import annotations

import random
import re
import string
from datetime import datetime
from typing import Any, Literal, get_args

Dbms = Literal["mariadb", "mysql", "postgres"]
DBMS_NAMES: tuple[str, ...] = get_args(Dbms)
DEFAULT_PORTS = {"mariadb": 3306, "mysql": 3306, "postgres": 5432}
_IDENT = re.compile(r"(?a)[a-z][a-z0-9_]{0,39}")
COLUMNS = ("dateandtime", "cashregisterid", "customerid", "productid", "price", "data")
# (name suffix, columns), created by l.x in this order
INDEXES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pdc", ("price", "dateandtime", "customerid")),
    ("registersegment", ("cashregisterid", "price", "customerid")),
    ("marketsegment", ("price", "customerid")),
)
CASHREGISTERS, CUSTOMERS, PRODUCTS, MAX_PRICE = 1000, 100_000, 10_000, 500.0
_LETTERS = string.ascii_letters + string.digits


def is_postgres(dbms: str) -> bool:
    return dbms == "postgres"


def valid_prefix(prefix: str) -> bool:
    """A table-name prefix that is safe to put into SQL text (lower-case identifier)."""
    return _IDENT.fullmatch(prefix) is not None


def table_name(prefix: str, n: int) -> str:
    """The n-th table (1-based): ``pi1``, ``pi2`` ... for the default prefix ``pi``."""
    name = f"{prefix}{int(n)}"
    if not valid_prefix(prefix) or n < 1 or not _IDENT.fullmatch(name):
        raise ValueError(f"invalid table name {name!r}")
    return name


def index_name(table: str, suffix: str) -> str:
    return f"{table}_{suffix}"


def create_table_sql(dbms: str, table: str) -> str:
    if is_postgres(dbms):
        return (
            f"CREATE TABLE {table} (transactionid bigserial PRIMARY KEY, dateandtime timestamp, "
            "cashregisterid int NOT NULL, customerid int NOT NULL, productid int NOT NULL, "
            "price real NOT NULL, data varchar(4000))"
        )
    return (
        f"CREATE TABLE {table} (transactionid bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, "
        "dateandtime datetime, cashregisterid int NOT NULL, customerid int NOT NULL, "
        "productid int NOT NULL, price float NOT NULL, data varchar(4000)) ENGINE=InnoDB"
    )


def drop_table_sql(table: str) -> str:
    return f"DROP TABLE IF EXISTS {table}"


def create_index_sql(dbms: str, table: str, suffix: str, cols: tuple[str, ...]) -> str:
    name = index_name(table, suffix)
    if is_postgres(dbms):
        return f"CREATE INDEX {name} ON {table} ({', '.join(cols)})"
    return f"ALTER TABLE {table} ADD INDEX {name} ({', '.join(cols)})"


def drop_index_sql(dbms: str, table: str, suffix: str) -> str:
    name = index_name(table, suffix)
    return f"DROP INDEX {name}" if is_postgres(dbms) else f"ALTER TABLE {table} DROP INDEX {name}"


def table_exists_sql(dbms: str) -> str:
    """One parameter: the table name. Returns one row with a count (0 or 1)."""
    if is_postgres(dbms):
        return "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = %s"
    return (
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = %s"
    )


def index_names_sql(dbms: str) -> str:
    """One parameter: the table name. Returns the names of its indexes."""
    if is_postgres(dbms):
        return "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s"
    return (
        "SELECT DISTINCT index_name FROM information_schema.statistics "
        "WHERE table_schema = DATABASE() AND table_name = %s"
    )


def count_sql(table: str) -> str:
    return f"SELECT count(*) FROM {table}"


def minmax_sql(table: str) -> str:
    return f"SELECT min(transactionid), max(transactionid) FROM {table}"


def insert_sql(dbms: str, table: str, nrows: int) -> str:
    """A multi-row INSERT of ``nrows`` rows (postgres returns the new ids)."""
    row = "(" + ", ".join(["%s"] * len(COLUMNS)) + ")"
    sql = f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES " + ", ".join([row] * nrows)
    return sql + " RETURNING transactionid" if is_postgres(dbms) else sql


def last_id(dbms: str, cur: Any, nrows: int) -> int:
    """The largest id the INSERT just executed on ``cur`` created."""
    if is_postgres(dbms):
        return max(int(r[0]) for r in cur.fetchall())
    return int(cur.lastrowid) + nrows - 1  # lastrowid is the first id of a multi-row insert


def delete_sql(table: str) -> str:
    """Two parameters: delete ids in [lo, hi) -- the oldest rows, the table is a queue."""
    return f"DELETE FROM {table} WHERE transactionid >= %s AND transactionid < %s"


def point_query_sql(table: str) -> str:
    return f"SELECT {', '.join(('transactionid', *COLUMNS))} FROM {table} WHERE transactionid = %s"


def range_query_sql(dbms: str, table: str, k: int) -> str:
    """Range query ``k`` (0..2) on the covering secondary index ``INDEXES[k]``; params (lo, limit)."""
    suffix, cols = INDEXES[k]
    force = "" if is_postgres(dbms) else f" FORCE INDEX ({index_name(table, suffix)})"
    op = ">" if cols[0] == "cashregisterid" else ">="
    return (
        f"SELECT {', '.join(cols)} FROM {table}{force} WHERE {cols[0]} {op} %s "
        f"ORDER BY {', '.join(cols)} LIMIT %s"
    )


def range_query_params(k: int, rng: random.Random, limit: int) -> tuple[float | int, int]:
    if INDEXES[k][1][0] == "cashregisterid":
        return rng.randrange(CASHREGISTERS), limit
    return round(rng.uniform(0.0, MAX_PRICE), 2), limit


def gen_rows(rng: random.Random, n: int, data_min: int, data_max: int) -> list[Any]:
    """Values for ``n`` rows, flattened in :data:`COLUMNS` order (half of ``data`` is random)."""
    now = datetime.now().replace(microsecond=0)
    out: list[Any] = []
    for _ in range(n):
        length = rng.randint(data_min, data_max)
        rand = length // 2
        data = "".join(rng.choices(_LETTERS, k=rand)) + "a" * (length - rand)
        customer = rng.randrange(CUSTOMERS)
        price = round(rng.uniform(0.0, MAX_PRICE), 2)
        out += (now, rng.randrange(CASHREGISTERS), customer, rng.randrange(PRODUCTS), price, data)
    return out


def connect(
    dbms: str, host: str, port: int, user: str, password: str, database: str, *, autocommit: bool
) -> Any:
    """A DB-API connection: PyMySQL for mariadb/mysql, psycopg 3 for postgres."""
    if is_postgres(dbms):
        import psycopg

        return psycopg.connect(
            host=host, port=port, user=user, password=password or None, dbname=database,
            autocommit=autocommit, connect_timeout=30,
        )  # fmt: skip
    import pymysql

    return pymysql.connect(
        host=host, port=port, user=user, password=password, database=database,
        autocommit=autocommit, connect_timeout=30, charset="utf8mb4",
    )  # fmt: skip


def driver_errors(dbms: str) -> tuple[type[Exception], ...]:
    """The exception classes a database error raises with this DBMS's driver."""
    if is_postgres(dbms):
        import psycopg

        return (psycopg.Error,)
    import pymysql

    return (pymysql.err.Error,)


def is_transient(exc: BaseException) -> bool:
    """A deadlock, lock wait timeout or serialization failure: roll back and retry."""
    sqlstate = getattr(exc, "sqlstate", None)
    if sqlstate in ("40001", "40P01", "55P03"):
        return True
    args: tuple[Any, ...] = exc.args
    return len(args) > 0 and args[0] in (1205, 1213)


def prepare(conn: Any, dbms: str, kind: str, tables: list[str]) -> tuple[str, list[int], list[int]]:
    """Set up the tables for a step; returns (server version, row counts for l.x, [lo, hi] ids).

    l.i0 (re)creates the tables; l.x drops the secondary indexes if a previous l.x left them;
    the other steps need the tables to exist (ValueError otherwise).
    """
    cur = conn.cursor()
    cur.execute("SELECT version()")
    version = str(cur.fetchone()[0])
    counts: list[int] = []
    ids: list[int] = []
    for t in tables:
        if kind == "load":
            cur.execute(drop_table_sql(t))
            cur.execute(create_table_sql(dbms, t))
        else:
            cur.execute(table_exists_sql(dbms), (t,))
            if not int(cur.fetchone()[0]):
                raise ValueError(f"table {t} does not exist: run step l.i0 first")
        if kind == "index":
            cur.execute(index_names_sql(dbms), (t,))
            existing = {str(r[0]).lower() for r in cur.fetchall()}
            for suffix, _ in INDEXES:
                if index_name(t, suffix) in existing:
                    cur.execute(drop_index_sql(dbms, t, suffix))
            cur.execute(count_sql(t))
            counts.append(int(cur.fetchone()[0]))
        cur.execute(minmax_sql(t))
        lo, hi = cur.fetchone()
        ids += [int(lo) if lo is not None else int(hi or 0) + 1, int(hi or 0)]
    return version, counts, ids
