"""From a request to a :class:`RunPlan`: the build must be able to run the workload, then the
workload's family (:func:`engine.catalogue.family_of`) picks the module that plans it.

Each family plans in a module of its own (``sysbench_plan``, ``insertbench_plan``,
``pgbench_plan``, ``dbbench_plan``, ``tpcc_plan``; the built-in SQLite workloads in ``builtin.plan``), which
says how :class:`RunOptions` map to its tool. Options a family has no use for (``tables`` for
pgbench and db_bench, a warm-up for the Insert Benchmark and fillseq) are ignored, so that one
queue can mix families.
"""

from __future__ import annotations

from benchdeck.engine.catalogue import family_of
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
from benchdeck.engine.families.sysbench.command import WorkloadError
from benchdeck.engine.families.sysbench.plan import sysbench_plan
from benchdeck.engine.families.tpcc.plan import tpcc_plan
from benchdeck.engine.hosts.inventory import BuildConfig, HostConfig
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan, RunRequest
from benchdeck.engine.profiling.targets import with_capture
from benchdeck.engine.servers import ManagedServer

# family -> the DBMS of the builds it runs against, and how a message names them
_SQL_DBMS = ("mysql", "mariadb", "postgres")
_FAMILY_DBMS: dict[str, tuple[tuple[str, ...], str]] = {
    "insertbench": (_SQL_DBMS, "a MySQL, MariaDB or PostgreSQL build"),
    "pgbench": (("postgres",), "a PostgreSQL build"),
    "tpcc": (_SQL_DBMS, "a MySQL, MariaDB or PostgreSQL build"),
    "dbbench": (("rocksdb",), "a RocksDB build"),
}


def make_plan(
    run_id: int,
    host: HostConfig,
    build: BuildConfig | None,
    req: RunRequest,
    remote_dir: str,
    server: ManagedServer | None,
) -> RunPlan:
    """The plan of one run; the workload's family (:func:`family_of`) picks the tool, and what
    it captures with perf is added (engine/profiling/targets.py)."""
    plan = _family_plan(run_id, host, build, req, remote_dir, server)
    return with_capture(plan, host, build, req, server)


def _family_plan(
    run_id: int,
    host: HostConfig,
    build: BuildConfig | None,
    req: RunRequest,
    remote_dir: str,
    server: ManagedServer | None,
) -> RunPlan:
    family = check_build(req.workload, req.build, build)
    ctx = PlanContext(run_id, host, req, remote_dir)
    if build is None:
        if host.transport != "local":
            raise WorkloadError(f"the built-in {req.build} workload runs on a local host, not {host.name}")
        return builtin_plan(ctx)
    if build.build.dbms == "sqlite":  # a compiled SQLite (benchdeck build): the built-in workloads
        return sqlite_build_plan(ctx, build)
    try:
        if family == "insertbench":
            return insertbench_plan(ctx, build, server)
        if family == "tpcc":
            return tpcc_plan(ctx, build, server)
        if family == "pgbench":
            return pgbench_plan(ctx, build, server)
        if family == "dbbench":
            return dbbench_plan(ctx, build)
    except (pgbench_cmd.PgbenchError, dbbench_cmd.DbBenchError) as exc:
        raise WorkloadError(f"{req.workload}: {exc}") from None
    return sysbench_plan(ctx, build, server)


def check_build(workload: str, build_name: str, build: BuildConfig | None) -> str:
    """The workload's family, if ``build`` can run it; WorkloadError naming both otherwise.

    ``build`` None is the built-in SQLite build (sysbench-named workloads only).
    """
    family = family_of(workload)
    if build is None:
        if family != "sysbench":
            _, what = _FAMILY_DBMS[family]
            raise WorkloadError(f"{family} needs {what}; {build_name} is the built-in SQLite build")
        return family
    dbms = build.build.dbms
    if dbms == "sqlite":
        try:
            return check_sqlite_build(workload, build)
        except SqliteBuildError as exc:
            raise WorkloadError(str(exc)) from None
    # sysbench: any SQL build (also fbmysql and whatever else the inventory names), not RocksDB
    wanted, what = _FAMILY_DBMS.get(family, ((), "a MySQL, MariaDB or PostgreSQL build"))
    runs_on = dbms in wanted if wanted else dbms != "rocksdb"
    if not runs_on:
        raise WorkloadError(f"{family} needs {what}; {build_name} is {dbms}")
    if dbms == "rocksdb" and build.managed:
        raise WorkloadError(f"RocksDB build {build_name} has no server to manage: remove managed = true")
    return family
