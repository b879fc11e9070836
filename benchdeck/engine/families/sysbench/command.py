"""sysbench command lines for catalogue workloads, built as argv lists (values stay data).

The mapping follows the post author's run.sh: each workload name picks a Lua script and options.
Stock sysbench (>= 1.0.20) covers point-query, read-only*, read-write, write-only, delete, insert
and the single-row updates; benchdeck's own scripts (package data in ``engine/families/sysbench/lua``, sharing
``bd_common.lua``) cover IN-list selects, covered / not-covered point and range queries, the scan,
read-only-count, the IN-list update and zipfian updates (1.0.20 has no ``--rand-type=zipfian``).
Our scripts are uploaded with :meth:`SysbenchCommand.files` and find ``bd_common.lua`` next to
themselves, so they need no ``LUA_PATH``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

from benchdeck.engine.catalogue import split_workload_name

_KEY = re.compile(r"^[a-z][a-z0-9_-]*$")
COMMON_SCRIPT = "bd_common"
VARIANTS = ("pre", "warm", "warmpre")  # point-query.pre: same step, run at another point of a suite
READ_S, WRITE_S = 300, 600  # docs/domain.md: read-only steps 300 s, writes 600 s
# all_small.sh runs the scan warm-ups for 60 s.
_DURATION_S = {"scan.warm": 60, "scan.warmpre": 60}


class WorkloadError(ValueError):
    """A workload benchdeck cannot run as asked, with the reason."""


@dataclass(frozen=True, slots=True)
class SysbenchStep:
    """The Lua script and options of one workload."""

    script: str  # stock name (oltp_read_only) or one of ours (bd_points)
    options: tuple[tuple[str, str], ...] = ()
    table_size: int | None = None  # run-time id range override (update-one: always row 1)
    writes: bool = False
    points: bool = False  # pass --points=<range>: the IN-list length

    @property
    def ours(self) -> bool:
        """True for benchdeck's own scripts (uploaded with the run), False for stock ones."""
        return self.script.startswith("bd_")


def _ro(*flags: str) -> SysbenchStep:
    """oltp_read_only with exactly one kind of range query enabled."""
    kinds = ("simple", "sum", "order", "distinct")
    return SysbenchStep("oltp_read_only", tuple((f"{k}-ranges", str(int(k in flags))) for k in kinds))


def _idx(script: str, index: str, covered: bool, points: bool) -> SysbenchStep:
    return SysbenchStep(script, (("index", index), ("covered", "on" if covered else "off")), points=points)


_SKIP_TRX = (("skip-trx", "on"),)

# Base test name (without .pre/.warm) -> step, as run.sh maps them.
STEPS: dict[str, SysbenchStep] = {
    "point-query": SysbenchStep("oltp_point_select", _SKIP_TRX),
    "random-points": SysbenchStep("bd_inlist_select", points=True),
    "hot-points": SysbenchStep("bd_inlist_select", (("hot-points", "on"),), points=True),
    "points-covered-pk": _idx("bd_points", "pk", True, points=True),
    "points-covered-si": _idx("bd_points", "si", True, points=True),
    "points-notcovered-pk": _idx("bd_points", "pk", False, points=True),
    "points-notcovered-si": _idx("bd_points", "si", False, points=True),
    "range-covered-pk": _idx("bd_range", "pk", True, points=False),
    "range-covered-si": _idx("bd_range", "si", True, points=False),
    "range-notcovered-pk": _idx("bd_range", "pk", False, points=False),
    "range-notcovered-si": _idx("bd_range", "si", False, points=False),
    "scan": SysbenchStep("bd_scan"),
    "read-only": SysbenchStep("oltp_read_only"),
    "read-only-simple": _ro("simple"),
    "read-only-sum": _ro("sum"),
    "read-only-order": _ro("order"),
    "read-only-distinct": _ro("distinct"),
    "read-only-count": SysbenchStep("bd_range_count"),
    "read-write": SysbenchStep("oltp_read_write", writes=True),
    "write-only": SysbenchStep("oltp_write_only", writes=True),
    "delete": SysbenchStep("oltp_delete", writes=True),
    "insert": SysbenchStep("oltp_insert", writes=True),
    "update-index": SysbenchStep("oltp_update_index", writes=True),
    "update-nonindex": SysbenchStep("oltp_update_non_index", writes=True),
    "update-one": SysbenchStep("oltp_update_non_index", table_size=1, writes=True),
    "update-zipf": SysbenchStep("bd_update", (("id-dist", "zipfian"),), writes=True),
    "update-inlist": SysbenchStep("bd_inlist_update", points=True, writes=True),
}


def _base(workload: str) -> tuple[str, str, int | None]:
    """``point-query.pre_range=100`` -> ("point-query.pre", "point-query", 100)."""
    test, range_size = split_workload_name(workload)
    base, dot, variant = test.partition(".")
    if dot and variant not in VARIANTS:
        known = ", ".join(VARIANTS)
        raise WorkloadError(f"workload {workload!r}: unknown variant {variant!r} (known: {known})")
    return test, base, range_size


def step_for(workload: str) -> SysbenchStep:
    """The script and options of a workload; WorkloadError naming it if benchdeck cannot run it."""
    _, base, range_size = _base(workload)
    step = STEPS.get(base)
    if step is None:
        known = ", ".join(sorted(STEPS))
        raise WorkloadError(f"unknown sysbench workload {workload!r} (known tests: {known})")
    if step.points and not range_size:
        raise WorkloadError(f"workload {workload!r} needs _range=N (the IN-list length)")
    return step


def default_duration(workload: str) -> int:
    """Seconds a step runs by default: 600 for writes, 300 for reads, 60 for the scan warm-ups."""
    test, _, _ = _base(workload)
    return _DURATION_S.get(test) or (WRITE_S if step_for(workload).writes else READ_S)


def lua_source(script: str) -> str:
    """The text of one of benchdeck's Lua scripts (package data), e.g. ``lua_source("bd_points")``."""
    res = resources.files("benchdeck.engine.families.sysbench") / "lua" / f"{script}.lua"
    if not res.is_file():
        raise WorkloadError(f"benchdeck Lua script {script!r} is missing from the package")
    return res.read_text(encoding="utf-8")


def our_scripts() -> list[str]:
    """Every benchdeck script a workload can use, and the common helper."""
    return sorted({COMMON_SCRIPT, *(s.script for s in STEPS.values() if s.ours)})


@dataclass(frozen=True, slots=True)
class SysbenchCommand:
    """Everything that shapes a sysbench invocation."""

    workload: str
    db_args: tuple[str, ...]  # e.g. ("--db-driver=mysql", "--mysql-host=127.0.0.1", ...)
    threads: int = 1
    tables: int = 1
    table_size: int = 10000
    duration_s: int | None = None  # None: default_duration(workload)
    report_interval: int = 1
    prepared_statements: bool = True
    sysbench: str = "sysbench"
    extra: Mapping[str, str] = field(default_factory=dict)
    script_dir: str | None = None  # remote directory holding files() (the run dir); needed by ours

    @property
    def step(self) -> SysbenchStep:
        return step_for(self.workload)

    def script_arg(self) -> str:
        """What sysbench is given: a path for our scripts, a bare name for stock ones."""
        step = self.step
        if not step.ours:
            return step.script
        if not self.script_dir:  # detached runs do not cd into the run dir: no relative default
            raise WorkloadError(f"workload {self.workload!r} needs script_dir, where files() are placed")
        return f"{self.script_dir}/{step.script}.lua"

    def files(self) -> dict[str, str]:
        """File name -> Lua source to place in ``script_dir`` before running (empty for stock)."""
        step = self.step
        if not step.ours:
            return {}
        return {f"{name}.lua": lua_source(name) for name in (COMMON_SCRIPT, step.script)}

    def env(self) -> dict[str, str]:
        """Environment for the sysbench process: nothing needed (our scripts locate their helper)."""
        return {}

    def _common(self, *, run: bool) -> list[str]:
        step = self.step
        _, range_size = split_workload_name(self.workload)
        size = step.table_size if run and step.table_size else self.table_size
        args = [
            self.sysbench,
            *self.db_args,
            f"--tables={self.tables}",
            f"--table-size={size}",
            f"--threads={self.threads}",
            "--rand-type=uniform",
            f"--db-ps-mode={'auto' if self.prepared_statements else 'disable'}",
        ]
        if range_size is not None:
            args.append(f"--range-size={range_size}")
            if step.points:
                args.append(f"--points={range_size}")
        args += [f"--{k}={v}" for k, v in step.options]
        for key, value in self.extra.items():
            if not _KEY.match(key):
                raise WorkloadError(f"bad sysbench option name {key!r}")
            args.append(f"--{key}={value}")
        return args

    def run_argv(self, duration_s: int | None = None, events: int | None = None) -> list[str]:
        """The measured run; ``events`` stops after that many events (smoke tests), time permitting."""
        if duration_s is None:
            duration_s = self.duration_s if self.duration_s is not None else default_duration(self.workload)
        return [
            *self._common(run=True),
            f"--time={duration_s}",
            f"--events={events or 0}",
            f"--report-interval={self.report_interval}",
            self.script_arg(),
            "run",
        ]

    def prepare_argv(self) -> list[str]:
        """Create and load the tables (always ``table_size`` rows, also for update-one)."""
        return [*self._common(run=False), self.script_arg(), "prepare"]

    def cleanup_argv(self) -> list[str]:
        return [*self._common(run=False), self.script_arg(), "cleanup"]

    def sql_argv(self) -> list[str]:
        """Print the statement our script issues (no database needed): a ``BD-SQL-TEMPLATE``
        line with ``?`` marks and a ``BD-SQL`` line with literal values, ready for EXPLAIN."""
        if not self.step.ours:
            raise WorkloadError(f"workload {self.workload!r} runs stock {self.step.script}: no sql command")
        return [*self._common(run=True), self.script_arg(), "sql"]


def post_write_sql(dbms: str, tables: int = 1, wait_s: int = 60) -> list[str]:
    """SQL for the post-write step: settle the database after writes, before the next reads.

    Run the statements in order in ONE client session (MySQL keeps values in session variables),
    one statement at a time (``mariadb`` / ``psql -f -`` reading them from stdin; not ``psql -c
    "a; b"``, which wraps them in one transaction where VACUUM is refused).
    MySQL/MariaDB (InnoDB): ANALYZE the tables, then drop the dirty-page targets to 0 so the
    page cleaner flushes the buffer pool, sleep ``wait_s`` seconds while it does, and restore
    the previous targets. PostgreSQL: ``VACUUM (ANALYZE)`` each table (stats, visibility map
    for index-only scans, dead rows of the updates gone).
    """
    names = [f"sbtest{t}" for t in range(1, tables + 1)]
    if dbms in ("mysql", "mariadb", "fbmysql"):
        return [
            f"ANALYZE TABLE {', '.join(names)}",
            "SET @bd_pct = @@GLOBAL.innodb_max_dirty_pages_pct, "
            "@bd_lwm = @@GLOBAL.innodb_max_dirty_pages_pct_lwm",
            "SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0",
            "SET GLOBAL innodb_max_dirty_pages_pct = 0",
            f"DO SLEEP({int(wait_s)})",
            "SET GLOBAL innodb_max_dirty_pages_pct = @bd_pct",
            "SET GLOBAL innodb_max_dirty_pages_pct_lwm = @bd_lwm",
        ]
    if dbms in ("postgres", "pgsql"):
        return [f"VACUUM (ANALYZE) {name}" for name in names]
    raise WorkloadError(f"no post-write step for DBMS {dbms!r} (known: mysql, mariadb, fbmysql, postgres)")


def mysql_db_args(host: str, port: int, user: str, password: str, database: str) -> tuple[str, ...]:
    return (
        "--db-driver=mysql",
        f"--mysql-host={host}",
        f"--mysql-port={port}",
        f"--mysql-user={user}",
        f"--mysql-password={password}",
        f"--mysql-db={database}",
    )


def pgsql_db_args(host: str, port: int, user: str, password: str, database: str) -> tuple[str, ...]:
    return (
        "--db-driver=pgsql",
        f"--pgsql-host={host}",
        f"--pgsql-port={port}",
        f"--pgsql-user={user}",
        f"--pgsql-password={password}",
        f"--pgsql-db={database}",
    )
