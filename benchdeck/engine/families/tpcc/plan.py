"""The plan of a TPC-C-like run (``tpcc.wN``: N warehouses) on a MySQL, MariaDB or PostgreSQL build.

How :class:`RunOptions` map: ``threads`` -> ``--threads`` (terminals); ``duration_s`` ->
``--seconds`` (default 60); ``prepare`` -> a ``--step load`` unless ``--step check`` finds a
complete load of this scale (the run's orders grow the tables: ``--no-prepare`` keeps them);
``extra`` -> ``items``, ``customers`` (per district) and ``seed``. Tables, table size and
warm-up are not used. The client ships like the Insert Benchmark's (engine/families/insertbench/plan.py).
"""

from __future__ import annotations

from dataclasses import replace

from benchdeck.engine.families.insertbench.plan import IB_PACKAGE
from benchdeck.engine.families.sysbench.command import WorkloadError
from benchdeck.engine.families.tpcc.names import DEFAULT_SECONDS, warehouses_of
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.build_conn import connection
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.client_files import client_launch, package_files
from benchdeck.engine.servers import ManagedServer

TPCC_PACKAGE = "benchdeck.engine.families.tpcc"
CLIENT_MODULE = TPCC_PACKAGE + ".client"
CLIENT_DIR = "tpcc"  # in the run directory
OPTIONS = {"items": 100, "customers": 30, "seed": 0}  # --param KEY=VALUE, with its least value


def tpcc_plan(ctx: PlanContext, build: BuildConfig, server: ManagedServer | None) -> RunPlan:
    host, req, remote_dir = ctx.host, ctx.req, ctx.remote_dir
    o = req.options
    warehouses = warehouses_of(req.workload)
    if warehouses is None:
        raise WorkloadError(f"unknown TPC-C-like workload {req.workload!r} (expected tpcc.wN, N warehouses)")
    extra = []
    for key, value in o.extra.items():
        if key not in OPTIONS:
            raise WorkloadError(
                f"--param {key}: not a TPC-C-like client option (known: {', '.join(OPTIONS)})"
            )
        if not value.isascii() or not value.isdigit() or int(value) < OPTIONS[key]:
            raise WorkloadError(f"--param {key}={value}: expected a whole number >= {OPTIONS[key]}")
        extra.append(f"--{key}={int(value)}")
    c = connection(build, server)
    launch = client_launch(
        host.transport, host.python, TPCC_PACKAGE, remote_dir, CLIENT_DIR, tpcc_client_files
    )
    seconds = o.duration_s or DEFAULT_SECONDS
    base = [
        launch.python,
        "-m",
        CLIENT_MODULE,
        f"--dbms={c.dbms}",
        f"--host={c.host}",
        f"--port={c.port}",
        f"--user={c.user}",
        f"--password={c.password}",
        f"--database={c.database}",
        f"--warehouses={warehouses}",
        *extra,
    ]
    bench = (*base, "--step=run", f"--threads={o.threads or host.threads}", f"--seconds={seconds}")
    return replace(
        ctx.plan(bench, seconds),
        family="tpcc",
        env=tuple(launch.env.items()),
        files=launch.files,
        prepare_argv=(*base, "--step=load") if o.prepare else None,
        tables_exist_argv=(*base, "--step=check") if o.prepare else None,
    )


def tpcc_client_files() -> tuple[tuple[str, str], ...]:
    """The client's sources and the Insert Benchmark modules it reuses (drivers, counters)."""
    own = package_files(TPCC_PACKAGE, ("__init__", "client", "schema", "txns"), CLIENT_DIR)
    ib = package_files(IB_PACKAGE, ("__init__", "client", "schema", "steps", "workers"), CLIENT_DIR)
    seen = {path for path, _ in own}
    return own + tuple(f for f in ib if f[0] not in seen)
