"""From a request to a :class:`RunPlan`: the build must be able to run the workload, then the
workload's family (:func:`engine.catalogue.family_of`) picks the module that plans it.

Each family plans in a module of its own, found through the table of families
(engine/dispatch/table.py; the built-in SQLite workloads in ``builtin.plan``), which says how
:class:`RunOptions` map to its tool. Options a family has no use for (``tables`` for
pgbench and db_bench, a warm-up for the Insert Benchmark and fillseq) are ignored, so that one
queue can mix families.
"""

from __future__ import annotations

from benchdeck.engine.catalogue import family_of
from benchdeck.engine.dispatch.table import (
    FAMILIES,
    SqliteBuildError,
    WorkloadError,
    builtin_plan,
    check_sqlite_build,
    sqlite_build_plan,
)
from benchdeck.engine.hosts.inventory import BuildConfig, HostConfig
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan, RunRequest
from benchdeck.engine.profiling.targets import with_capture
from benchdeck.engine.servers import ManagedServer


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
    plan_family = FAMILIES[family]
    try:
        return plan_family.plan(ctx, build, server)
    except plan_family.plan_errors as exc:
        raise WorkloadError(f"{req.workload}: {exc}") from None


def check_build(workload: str, build_name: str, build: BuildConfig | None) -> str:
    """The workload's family, if ``build`` can run it; WorkloadError naming both otherwise.

    ``build`` None is the built-in SQLite build (sysbench-named workloads only).
    """
    family = family_of(workload)
    if build is None:
        if family != "sysbench":
            needs = FAMILIES[family].needs
            raise WorkloadError(f"{family} needs {needs}; {build_name} is the built-in SQLite build")
        return family
    dbms = build.build.dbms
    if dbms == "sqlite":
        try:
            return check_sqlite_build(workload, build)
        except SqliteBuildError as exc:
            raise WorkloadError(str(exc)) from None
    # sysbench: any SQL build (also fbmysql and whatever else the inventory names), not RocksDB
    wanted = FAMILIES[family].dbms
    runs_on = dbms in wanted if wanted else dbms != "rocksdb"
    if not runs_on:
        raise WorkloadError(f"{family} needs {FAMILIES[family].needs}; {build_name} is {dbms}")
    if dbms == "rocksdb" and build.managed:
        raise WorkloadError(f"RocksDB build {build_name} has no server to manage: remove managed = true")
    return family
