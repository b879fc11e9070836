"""The built-in workloads: sysbench's tables, statements and keys on SQLite, and their argv.

Each workload keeps the name and shape of the sysbench microbenchmark it mirrors
(``point-query_range=100`` is one primary-key point select per event). Standard library only:
:mod:`engine.builtin.sqlite_bench` runs these on the benchmarked host.
"""

# ruff: noqa: S608 - table names are sbtest<int>, made here; every value is a bound parameter

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the connections are sqlite_bench's: Launch lists these names without it)
    import sqlite3

MODULE = "benchdeck.engine.families.builtin.sqlite_bench"
# Built-in "builds": the same SQLite with two durability settings, so there is something to compare.
BUILTIN_BUILDS: dict[str, str] = {"sqlite": "normal", "sqlite-sync": "full"}
# Server configs of the built-in builds (``--config``): ``serial`` holds one exclusive lock per
# query, as a server with one global mutex would: a planted scalability limit (issue 28), so a
# thread sweep shows a build that stops scaling.
BUILTIN_CONFIGS: dict[str, str] = {
    "serial": "one exclusive lock held per query (a planted scalability limit)"
}
ZIPF_EXP = 0.8  # sysbench's --rand-zipfian-exp default


class Zipfian:
    """Zipf-distributed integers in ``[1, n]`` (P(k) ~ k^-exp), by rejection-inversion.

    W. Hörmann, G. Derflinger, "Rejection-inversion to generate variates from monotone discrete
    distributions" (1996), the method sysbench uses: O(1) set-up, no table of n weights.
    Immutable after construction, so one instance may be shared by threads.
    """

    def __init__(self, n: int, exp: float = ZIPF_EXP) -> None:
        if n < 1 or exp <= 0:
            raise ValueError("Zipfian needs n >= 1 and exp > 0")
        self.n, self.exp = n, exp
        self._h_x1 = self._hint(1.5) - 1.0
        self._h_n = self._hint(n + 0.5)
        self._s = 2.0 - self._hint_inv(self._hint(2.5) - self._h(2.0))

    def _h(self, x: float) -> float:
        return math.exp(-self.exp * math.log(x))

    def _hint(self, x: float) -> float:  # integral of h: (x^(1-e) - 1) / (1 - e), log x at e = 1
        lx = math.log(x)
        t = (1.0 - self.exp) * lx
        return (math.expm1(t) / t if abs(t) > 1e-8 else 1.0 + t / 2.0) * lx

    def _hint_inv(self, y: float) -> float:
        t = max(y * (1.0 - self.exp), -1.0 + 1e-15)
        return math.exp((math.log1p(t) / t if abs(t) > 1e-8 else 1.0 - t / 2.0) * y)

    def sample(self, rng: random.Random) -> int:
        while True:
            u = self._h_n + rng.random() * (self._h_x1 - self._h_n)
            x = self._hint_inv(u)
            k = min(max(int(x + 0.5), 1), self.n)
            if k - x <= self._s or u >= self._hint(k + 0.5) - self._h(k):
                return k


class KeyGen:
    """Row keys in ``[1, n]``, uniform or zipfian (hot keys are the low ids), from its own RNG.

    Give every thread its own KeyGen (as sqlite_bench does); sharing one is safe too, since
    ``random.Random`` calls are atomic under the GIL and the Zipfian state is read-only.
    """

    def __init__(self, n: int, rand_type: str = "uniform", seed: int | None = None) -> None:
        if rand_type not in ("uniform", "zipfian"):
            raise ValueError(f"unknown --rand-type {rand_type!r}")
        self.n = n
        self.rng = random.Random(seed)  # noqa: S311 - benchmark keys, not secrets
        self._zipf = Zipfian(n) if rand_type == "zipfian" else None

    def key(self) -> int:
        return self._zipf.sample(self.rng) if self._zipf else self.rng.randint(1, self.n)


@dataclass
class Ctx:
    """What a workload's event needs: keys, the table count, sizes."""

    keys: KeyGen
    tables: int
    table_size: int
    range_size: int

    def table(self) -> str:
        return f"sbtest{self.keys.rng.randint(1, self.tables)}"

    def text(self, groups: int) -> str:
        """sysbench's c/pad values: groups of 11 random digits joined by '-'."""
        return "-".join(f"{self.keys.rng.randrange(10**11):011d}" for _ in range(groups))


Counts = tuple[int, int, int]  # reads, writes, other statements of one event


def _q(conn: sqlite3.Connection, sql: str, args: tuple[object, ...] = ()) -> None:
    conn.execute(sql, args).fetchall()


def point_query(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    _q(conn, f"SELECT c FROM {cx.table()} WHERE id=?", (cx.keys.key(),))
    return 1, 0, 0


def range_covered_pk(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    lo = cx.keys.key()
    _q(conn, f"SELECT id FROM {cx.table()} WHERE id BETWEEN ? AND ?", (lo, lo + cx.range_size - 1))
    return 1, 0, 0


def random_points(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    marks = ", ".join("?" * cx.range_size)
    points = tuple(cx.keys.key() for _ in range(cx.range_size))
    _q(conn, f"SELECT id, k, c, pad FROM {cx.table()} WHERE k IN ({marks})", points)
    return 1, 0, 0


def update_index(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    conn.execute(f"UPDATE {cx.table()} SET k=k+1 WHERE id=?", (cx.keys.key(),))
    return 0, 1, 0


def update_nonindex(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    conn.execute(f"UPDATE {cx.table()} SET c=? WHERE id=?", (cx.text(10), cx.keys.key()))
    return 0, 1, 0


def insert(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    row = (cx.keys.rng.randint(1, cx.table_size), cx.text(10), cx.text(5))
    conn.execute(f"INSERT INTO {cx.table()} (k, c, pad) VALUES (?, ?, ?)", row)
    return 0, 1, 0


def _reads(conn: sqlite3.Connection, cx: Ctx, t: str) -> int:
    """oltp_read_only's body: 10 point selects and 4 ranges (simple, sum, order, distinct)."""
    for _ in range(10):
        _q(conn, f"SELECT c FROM {t} WHERE id=?", (cx.keys.key(),))
    for sql in (
        f"SELECT c FROM {t} WHERE id BETWEEN ? AND ?",
        f"SELECT SUM(k) FROM {t} WHERE id BETWEEN ? AND ?",
        f"SELECT c FROM {t} WHERE id BETWEEN ? AND ? ORDER BY c",
        f"SELECT DISTINCT c FROM {t} WHERE id BETWEEN ? AND ? ORDER BY c",
    ):
        lo = cx.keys.key()
        _q(conn, sql, (lo, lo + cx.range_size - 1))
    return 14


def read_only(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    conn.execute("BEGIN")
    reads = _reads(conn, cx, cx.table())
    conn.execute("COMMIT")
    return reads, 0, 2


def read_write(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    t = cx.table()
    conn.execute("BEGIN IMMEDIATE")  # take the write lock first: no read-to-write upgrade deadlock
    reads = _reads(conn, cx, t)
    conn.execute(f"UPDATE {t} SET k=k+1 WHERE id=?", (cx.keys.key(),))
    conn.execute(f"UPDATE {t} SET c=? WHERE id=?", (cx.text(10), cx.keys.key()))
    row_id = cx.keys.key()
    conn.execute(f"DELETE FROM {t} WHERE id=?", (row_id,))
    row = (row_id, cx.keys.rng.randint(1, cx.table_size), cx.text(10), cx.text(5))
    conn.execute(f"INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)", row)
    conn.execute("COMMIT")
    return reads, 4, 2


def scan(conn: sqlite3.Connection, cx: Ctx) -> Counts:
    _q(conn, f"SELECT * FROM {cx.table()} WHERE LENGTH(c) < 0")  # reads every row, returns none
    return 1, 0, 0


def create_table(conn: sqlite3.Connection, n: int, cx: Ctx, out: Callable[[str], None]) -> None:
    """sysbench's ``sbtest<n>`` with ``table_size`` rows, then its secondary index on ``k``."""
    t = f"sbtest{n}"
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (t,)).fetchone():
        out(f"Dropping table '{t}'...")
        conn.execute(f"DROP TABLE {t}")
    out(f"Creating table '{t}'...")
    conn.execute(
        f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, "
        "c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '')"
    )
    out(f"Inserting {cx.table_size} records into '{t}'")
    rng = cx.keys.rng
    rows = ((i, rng.randint(1, cx.table_size), cx.text(10), cx.text(5)) for i in range(1, cx.table_size + 1))
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)", rows)
    conn.execute("COMMIT")
    out(f"Creating a secondary index on '{t}'...")
    conn.execute(f"CREATE INDEX k_{n} ON {t} (k)")


def drop_tables(conn: sqlite3.Connection, tables: int, out: Callable[[str], None]) -> int:
    """Drop ``sbtest1..tables``; the number of tables left in the database."""
    for n in range(1, tables + 1):
        out(f"Dropping table 'sbtest{n}'...")
        conn.execute(f"DROP TABLE IF EXISTS sbtest{n}")
    return int(conn.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0])


def missing_tables(conn: sqlite3.Connection, tables: int) -> list[str]:
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return [f"sbtest{n}" for n in range(1, tables + 1) if f"sbtest{n}" not in have]


@dataclass(frozen=True, slots=True)
class Workload:
    event: Callable[[sqlite3.Connection, Ctx], Counts]
    writes: bool = False
    default_range: int = 100


WORKLOADS: dict[str, Workload] = {
    "point-query": Workload(point_query),
    "range-covered-pk": Workload(range_covered_pk),
    "random-points": Workload(random_points),
    "update-index": Workload(update_index, writes=True),
    "update-nonindex": Workload(update_nonindex, writes=True),
    "insert": Workload(insert, writes=True),
    "read-write": Workload(read_write, writes=True, default_range=10),
    "read-only": Workload(read_only),
    "scan": Workload(scan),
}

# The built-in suite, in the posts' group order (point, range, writes).
BUILTIN_WORKLOADS: tuple[str, ...] = (
    "point-query_range=100",
    "random-points_range=100",
    "range-covered-pk_range=100",
    "scan_range=100",
    "read-only_range=100",
    "insert_range=100",
    "read-write_range=10",
    "update-index_range=100",
    "update-nonindex_range=100",
)


def is_builtin(workload: str) -> bool:
    test, _, size = workload.partition("_range=")
    return test in WORKLOADS and (not size or size.isdigit())


def builtin_argv(
    workload: str,
    *,
    db_path: str,
    time_s: int = 60,
    threads: int = 1,
    tables: int = 1,
    table_size: int = 10000,
    command: str = "run",
    report_interval: int = 1,
    rand_type: str = "uniform",
    durability: str = "normal",
    serial: bool = False,
) -> list[str]:
    """``python -m benchdeck.engine.families.builtin.sqlite_bench ... WORKLOAD COMMAND`` (prepare, run
    or cleanup)."""
    if not is_builtin(workload):
        raise ValueError(f"{workload!r} is not a built-in workload ({', '.join(BUILTIN_WORKLOADS)})")
    if command not in ("prepare", "run", "cleanup"):
        raise ValueError(f"unknown command {command!r}")
    argv = [sys.executable, "-m", MODULE, f"--db={db_path}", f"--tables={tables}"]
    argv += [f"--table-size={table_size}", f"--threads={threads}", f"--rand-type={rand_type}"]
    argv.append(f"--durability={durability}")
    if serial:
        argv.append("--serial")
    if command == "run":
        argv += [f"--time={time_s}", f"--report-interval={report_interval}"]
    return [*argv, workload, command]
