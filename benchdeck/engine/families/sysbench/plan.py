"""The plan of a sysbench workload (``point-query`` ...) on an SQL build: MySQL, MariaDB,
PostgreSQL (and whatever else the inventory names that speaks their protocol).

How :class:`RunOptions` map: threads, tables, table_size, duration (else the write or read
default, else the workload's), warm-up; ``extra`` -> ``--KEY=VALUE``. With prepare, the tables
are checked by rows (and index) before measuring and made again when short.
"""

from __future__ import annotations

from dataclasses import replace

from benchdeck.engine.families.sysbench.command import (
    SysbenchCommand,
    default_duration,
    mysql_db_args,
    pgsql_db_args,
    step_for,
)
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.build_conn import DEFAULT_PORTS, external_client
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running import table_check
from benchdeck.engine.servers import ManagedServer


def sysbench_plan(ctx: PlanContext, build: BuildConfig, server: ManagedServer | None) -> RunPlan:
    """The plan of sysbench workload ``req.workload``; WorkloadError for an unknown one."""
    host, req, remote_dir = ctx.host, ctx.req, ctx.remote_dir
    o = req.options
    threads = o.threads or host.threads
    tables = o.tables or host.tables
    table_size = o.table_size or host.table_size
    writes = step_for(req.workload).writes
    duration = o.duration_s or (o.write_s if writes else o.read_s) or default_duration(req.workload)
    dbms = "postgres" if build.build.dbms == "postgres" else "mysql"
    db_args = tuple(server.sysbench_args()) if server else external_db_args(build, dbms)
    cmd = SysbenchCommand(
        req.workload,
        db_args,
        threads=threads,
        tables=tables,
        table_size=table_size,
        duration_s=duration,
        extra=dict(o.extra),
        script_dir=remote_dir,
    )
    names = table_check.table_names(tables)
    client = server.client_argv() if server else external_client(build, dbms)
    if dbms == "mysql":
        rows_argv = (*client, "-N", "-e", table_check.mysql_sql(names))
    else:
        rows_argv = (*client, "-X", "-At", "-c", table_check.postgres_sql(names))
    secondary = str(o.extra.get("create_secondary", "on")).lower() not in ("off", "false", "0", "no")
    return replace(
        ctx.plan(tuple(cmd.run_argv()), duration),
        prepare_argv=tuple(cmd.prepare_argv()) if o.prepare else None,
        warmup_argv=tuple(cmd.run_argv(o.warmup_s)) if o.warmup_s else None,
        table_size=table_size,
        env=tuple(cmd.env().items()),
        files=tuple(cmd.files().items()),
        table_rows_argv=rows_argv if o.prepare else None,
        expected_tables=names,
        cleanup_argv=tuple(cmd.cleanup_argv()) if o.prepare else None,
        secondary_index=secondary,
    )


def external_db_args(build: BuildConfig, dbms: str) -> tuple[str, ...]:
    """sysbench's connection options for an external build."""
    port = build.port or DEFAULT_PORTS.get(build.build.dbms, 3306)
    if dbms == "postgres":
        return pgsql_db_args(build.host, port, build.user or "postgres", build.password or "", build.database)
    args = mysql_db_args(build.host, port, build.user or "root", build.password or "", build.database)
    return (*args, f"--mysql-socket={build.socket}") if build.socket else args
