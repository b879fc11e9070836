"""The plan of a pgbench built-in script (``pgbench.select-only`` ...) on a PostgreSQL build.

How :class:`RunOptions` map: ``threads`` -> clients (and jobs); ``table_size`` -> scale
``max(1, table_size // 100000)``; ``duration_s`` -> ``-T``; warm-up: a run as long; ``extra`` ->
``--KEY=VALUE`` (``--KEY`` for an empty value), given to ``pgbench -i`` for its initialisation
options (fillfactor, partitions ...), else to the run. ``tables`` is ignored.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import replace

from benchdeck.engine.catalogue import PGBENCH_PREFIX
from benchdeck.engine.families.pgbench import command as pgbench_cmd
from benchdeck.engine.families.sysbench.command import WorkloadError
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.build_conn import connection
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.servers import ManagedServer

# pgbench options that belong to the initialisation (pgbench -i), not to a run
PGBENCH_INIT_OPTIONS = frozenset({
    "fillfactor", "partitions", "partition-method", "unlogged-tables", "foreign-keys", "init-steps",
    "tablespace", "index-tablespace",
})  # fmt: skip


def pgbench_plan(ctx: PlanContext, build: BuildConfig, server: ManagedServer | None) -> RunPlan:
    """The plan of pgbench workload ``req.workload``; pgbench_cmd.PgbenchError for a bad one."""
    host, req = ctx.host, ctx.req
    o = req.options
    builtin = req.workload.removeprefix(PGBENCH_PREFIX)
    if builtin not in pgbench_cmd.BUILTINS:
        known = ", ".join(PGBENCH_PREFIX + b for b in pgbench_cmd.BUILTINS)
        raise WorkloadError(f"unknown pgbench workload {req.workload!r} (known: {known})")
    c = connection(build, server)
    conn = pgbench_cmd.PgConn(dbname=c.database, host=c.host, port=c.port, user=c.user)
    if server is not None:  # the managed server's own client tools
        psql = server.client_argv()[0]
        pgbench = posixpath.join(posixpath.dirname(psql), "pgbench") if psql.startswith("/") else "pgbench"
    elif build.basedir:
        psql, pgbench = (posixpath.join(build.basedir, "bin", t) for t in ("psql", "pgbench"))
    else:
        psql, pgbench = "psql", "pgbench"
    threads = o.threads or host.threads
    table_size = o.table_size or host.table_size
    scale = max(1, table_size // 100000)
    duration = o.duration_s or (300 if builtin == "select-only" else 600)
    init_extra, run_extra = _pgbench_extra(o.extra)

    def run(seconds: int) -> tuple[str, ...]:
        argv = pgbench_cmd.run_argv(conn, builtin, clients=threads, duration_s=seconds, pgbench=pgbench)
        return (*argv[:-1], *run_extra, argv[-1])

    prepare = pgbench_cmd.init_argv(conn, scale, pgbench=pgbench)
    # The password goes in PGPASSWORD (the run's environment, the tables check's too), never argv.
    check = tuple(pgbench_cmd.tables_exist_argv(conn, scale, psql=psql))
    return replace(
        ctx.plan(run(duration), duration),
        prepare_argv=(*prepare[:-1], *init_extra, prepare[-1]) if o.prepare else None,
        tables_exist_argv=check if o.prepare else None,
        warmup_argv=run(o.warmup_s) if o.warmup_s else None,
        table_size=table_size,
        family="pgbench",
        env=(("PGPASSWORD", c.password),) if c.password else (),
    )


def _pgbench_extra(extra: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """``--param`` for pgbench as (init options, run options): ``--KEY=VALUE``, ``--KEY`` if empty."""
    init: list[str] = []
    run: list[str] = []
    for key, value in extra.items():
        if not key[:1].isalpha() or not all(ch.isalnum() or ch == "-" for ch in key) or not key.isascii():
            raise WorkloadError(f"bad pgbench option name {key!r}")
        if key in ("scale", "client", "jobs", "time"):
            raise WorkloadError(
                f"--param {key}: set by benchdeck (--table-size gives the scale, table_size // 100000; "
                "--threads the clients and jobs; --time the seconds)"
            )
        (init if key in PGBENCH_INIT_OPTIONS else run).append(f"--{key}={value}" if value else f"--{key}")
    return init, run
