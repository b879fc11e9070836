"""The one table of workload families: the planner, the request checks, the session and its
post-write step reach a family through this module only, so each family module is named once
above the families, and a new family is a new row.

A row says how a family plans a run, which builds it runs against, and how it checks a
workload's name. The built-in SQLite workloads are not a family of names (they are sysbench-named
workloads run by a built-in build): their catalogue and plans are re-exported below beside
sysbench's steps, which the session's post-write step and the checks read.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from benchdeck.engine.catalogue import PGBENCH_PREFIX, SUITES, split_workload_name
from benchdeck.engine.families.builtin.catalogue import (
    BUILTIN_BUILDS,
    BUILTIN_CONFIGS,
    BUILTIN_WORKLOADS,
    is_builtin,
)
from benchdeck.engine.families.builtin.catalogue import WORKLOADS as BUILTIN_TESTS
from benchdeck.engine.families.builtin.plan import (
    SqliteBuildError,
    builtin_plan,
    check_sqlite_build,
    sqlite_build_plan,
)
from benchdeck.engine.families.dbbench import command as dbbench_cmd
from benchdeck.engine.families.dbbench.plan import dbbench_plan
from benchdeck.engine.families.insertbench.plan import insertbench_plan
from benchdeck.engine.families.pgbench import command as pgbench_cmd
from benchdeck.engine.families.pgbench.plan import pgbench_plan
from benchdeck.engine.families.sysbench.command import STEPS, WorkloadError, post_write_sql, step_for
from benchdeck.engine.families.sysbench.plan import sysbench_plan
from benchdeck.engine.families.tpcc.plan import tpcc_plan
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.planning.unknown import RequestError, names_list, unknown_message
from benchdeck.engine.servers import ManagedServer

__all__ = [
    "BUILTIN_BUILDS",
    "BUILTIN_CONFIGS",
    "BUILTIN_TESTS",
    "BUILTIN_WORKLOADS",
    "FAMILIES",
    "STEPS",
    "Family",
    "SqliteBuildError",
    "WorkloadError",
    "builtin_plan",
    "check_sqlite_build",
    "is_builtin",
    "known_workloads",
    "post_write_sql",
    "sqlite_build_plan",
    "step_for",
]

PlanFn = Callable[[PlanContext, BuildConfig, ManagedServer | None], RunPlan]
SQL_BUILDS = "a MySQL, MariaDB or PostgreSQL build"


@dataclass(frozen=True, slots=True)
class Family:
    """What the dispatch needs of one workload family."""

    plan: PlanFn
    check_name: Callable[[str], None]
    """RequestError unless the family knows the workload's name (with the closest known one)."""
    dbms: tuple[str, ...]
    """The DBMS of the builds it runs against; empty: any build but RocksDB."""
    needs: str
    """How a message names those builds."""
    plan_errors: tuple[type[Exception], ...] = ()
    """What its planning raises for a bad workload, reported as a WorkloadError naming it."""


def known_workloads() -> list[str]:
    """Every workload of the shipped suites (for messages; other ``_range=N`` forms are valid)."""
    return sorted({name for suite in SUITES.values() for name, _ in suite})


def _check_sysbench(workload: str) -> None:
    try:
        step_for(workload)
    except WorkloadError as exc:
        if split_workload_name(workload)[0].partition(".")[0] in STEPS:  # known test, bad form
            raise RequestError(str(exc)) from None
        close = difflib.get_close_matches(workload, known_workloads(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise RequestError(
            f"unknown workload {workload!r} (sysbench tests: {names_list(STEPS)}, as TEST_range=N; "
            f"suites: {names_list(SUITES)}){hint}"
        ) from None


def _check_pgbench(workload: str) -> None:
    if workload.removeprefix(PGBENCH_PREFIX) not in pgbench_cmd.BUILTINS:
        known = (PGBENCH_PREFIX + b for b in pgbench_cmd.BUILTINS)
        raise RequestError(unknown_message("workload", workload, known))


def _check_dbbench(workload: str) -> None:
    _, _, setup = workload.partition(".")
    if setup not in dbbench_cmd.SETUPS:
        raise RequestError(
            f"unknown workload {workload!r}: db_bench workloads are STEP.SETUP "
            f"(steps: {names_list(dbbench_cmd.STEPS)}; setups: {names_list(dbbench_cmd.SETUPS)})"
        )


def _any_name(workload: str) -> None:
    """The Insert Benchmark's and TPC-C's names are told by their form (engine.catalogue)."""


def _dbbench_plan(ctx: PlanContext, build: BuildConfig, server: ManagedServer | None) -> RunPlan:
    return dbbench_plan(ctx, build)  # RocksDB is a library db_bench links: no server to reach


_SQL_DBMS = ("mysql", "mariadb", "postgres")

FAMILIES: dict[str, Family] = {
    "sysbench": Family(sysbench_plan, _check_sysbench, (), SQL_BUILDS),
    "insertbench": Family(insertbench_plan, _any_name, _SQL_DBMS, SQL_BUILDS),
    "tpcc": Family(tpcc_plan, _any_name, _SQL_DBMS, SQL_BUILDS),
    "pgbench": Family(
        pgbench_plan, _check_pgbench, ("postgres",), "a PostgreSQL build", (pgbench_cmd.PgbenchError,)
    ),
    "dbbench": Family(
        _dbbench_plan, _check_dbbench, ("rocksdb",), "a RocksDB build", (dbbench_cmd.DbBenchError,)
    ),
}
"""Every family :func:`engine.catalogue.family_of` names, by that name."""
