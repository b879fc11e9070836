"""From a user's request (host, build, workload, options) to a ready server and a run's events.

A :class:`Session` holds one transport per host, reused across runs. :func:`execute` brings a
managed server up when needed, builds the :class:`RunPlan`, and yields the runner's events.

:func:`make_plan` dispatches on the workload's family (:func:`engine.catalogue.family_of`);
how :class:`RunOptions` map per family:

- ``sysbench``: threads, tables, table_size, duration, warm-up; ``extra`` -> ``--KEY=VALUE``.
- ``insertbench`` (``l.i0`` ... ``qp1000``; MySQL, MariaDB or PostgreSQL builds): ``tables`` ->
  ``--table-count``; ``threads`` -> ``--query-threads`` (per table, query steps); an explicit
  ``table_size`` -> ``--rows`` of ``l.i0`` (the host's default table_size is a sysbench value
  and is not used); ``duration_s`` -> ``--seconds`` of the query steps (the load steps run until
  their rows are in); ``extra`` -> client options (``rows=3000`` -> ``--rows=3000`` for every
  step, an empty value or ``true``/``false`` for ``delete-per-insert``), checked against the
  client's options. No prepare (``l.i0`` creates the tables), no warm-up.
- ``pgbench`` (``pgbench.select-only`` ...; PostgreSQL builds): ``threads`` -> clients (and
  jobs); ``table_size`` -> scale ``max(1, table_size // 100000)``; ``duration_s`` -> ``-T``;
  warm-up: a run as long; ``extra`` -> ``--KEY=VALUE`` (``--KEY`` for an empty value), given to
  ``pgbench -i`` for its initialisation options (fillfactor, partitions ...), else to the run.
- ``dbbench`` (``readww.byrx`` ...; RocksDB builds, no server): ``table_size`` -> ``--num``,
  ``threads`` -> ``--threads``, ``duration_s`` -> ``--duration``; warm-up: the step as long;
  ``extra`` -> ``--KEY=VALUE`` db_bench flags after the generated ones (fillseq too).

Options a family has no use for (``tables`` for pgbench and db_bench, a warm-up for the Insert
Benchmark and fillseq) are ignored, so that one queue can mix families.
"""

from __future__ import annotations

import contextlib
import math
import os
import posixpath
import secrets
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from benchdeck.engine import dbbench_cmd, pgbench_cmd, provenance, table_check
from benchdeck.engine.builtin.catalogue import BUILTIN_BUILDS
from benchdeck.engine.builtin.plan import SqliteBuildError, check_sqlite_build, sqlite_build_plan
from benchdeck.engine.catalogue import PGBENCH_PREFIX, family_of
from benchdeck.engine.client_files import import_root, package_files
from benchdeck.engine.events import LogLine, Phase, Recorded, RunEvent, RunFailed
from benchdeck.engine.insertbench import steps as ib_steps
from benchdeck.engine.inventory import BuildConfig, HostConfig, Inventory
from benchdeck.engine.plan import RunPlan, RunRequest
from benchdeck.engine.runner import Runner
from benchdeck.engine.servers import ManagedServer, ServerError, ServerSpec, make_server
from benchdeck.engine.servers import state as server_state
from benchdeck.engine.sysbench_cmd import (
    SysbenchCommand,
    WorkloadError,
    default_duration,
    mysql_db_args,
    pgsql_db_args,
    post_write_sql,
    step_for,
)
from benchdeck.engine.transport import Transport, TransportError, make_transport

BUILTIN_BUILD = "sqlite"
_DEFAULT_PORTS = {"mariadb": 3306, "mysql": 3306, "fbmysql": 3306, "postgres": 5432}
# Monitor window of steps that run until their work is done (loads, fillseq): vmstat and
# iostat are stopped when the step ends, so this only has to be long enough.
OPEN_ENDED_S = 4 * 3600
# family -> the DBMS of the builds it runs against, and how a message names them
_SQL_DBMS = ("mysql", "mariadb", "postgres")
_FAMILY_DBMS: dict[str, tuple[tuple[str, ...], str]] = {
    "insertbench": (_SQL_DBMS, "a MySQL, MariaDB or PostgreSQL build"),
    "pgbench": (("postgres",), "a PostgreSQL build"),
    "dbbench": (("rocksdb",), "a RocksDB build"),
}
# Insert Benchmark client options a run may set with RunOptions.extra (--param KEY=VALUE);
# the connection, step, table count and report interval are benchdeck's.
IB_OPTIONS = frozenset({
    "rows", "seconds", "rate", "query-threads", "insert-threads", "delete-per-insert",
    "rows-per-commit", "rows-per-query", "data-length-min", "data-length-max", "seed", "table-prefix",
})  # fmt: skip
_IB_FLAGS = {"delete-per-insert"}
_IB_FLOATS = {"seconds", "rate"}
# Creates directory "$1", then runs the rest; a constant script, values passed as data.
_TRUE, _FALSE = frozenset({"", "1", "true", "on", "yes"}), frozenset({"0", "false", "off", "no"})
# pgbench options that belong to the initialisation (pgbench -i), not to a run
PGBENCH_INIT_OPTIONS = frozenset({
    "fillfactor", "partitions", "partition-method", "unlogged-tables", "foreign-keys", "init-steps",
    "tablespace", "index-tablespace",
})  # fmt: skip


class Session:
    """Hosts of an inventory, each reached through one transport reused across runs."""

    def __init__(self, inventory: Inventory):
        self.inventory = inventory
        self._transports: dict[str, Transport] = {}
        self._homes: dict[str, str] = {}

    async def transport(self, host: str) -> Transport:
        if host not in self._transports:
            t = make_transport(self.inventory.host(host).spec)
            await t.connect()
            self._transports[host] = t
        return self._transports[host]

    async def remote_path(self, host: str, path: str) -> str:
        """Expand a leading ``~`` on the host (argv is never run through a shell)."""
        if not path.startswith("~"):
            return path
        if host not in self._homes:
            res = await (await self.transport(host)).run(["sh", "-c", 'printf %s "$HOME"'])
            home = res.stdout.strip()
            if not home:
                raise TransportError(f"{host}: cannot find the remote home directory for {path!r}")
            self._homes[host] = home
        return self._homes[host] + path[1:]

    async def close(self) -> None:
        for t in self._transports.values():
            with contextlib.suppress(TransportError):
                await t.close()
        self._transports.clear()


async def execute(session: Session, req: RunRequest, run_id: int) -> AsyncIterator[RunEvent]:
    """Run one request as ``run_id``: server up if managed, then the runner's events."""
    try:
        host = session.inventory.host(req.host)
        transport = await session.transport(req.host)
        workdir = await session.remote_path(req.host, host.workdir)
        remote_dir = posixpath.join(workdir, "runs", f"run{run_id}-{secrets.token_hex(3)}")
        build = host.builds.get(req.build)
        if build is None and req.build not in BUILTIN_BUILDS:
            known = ", ".join(sorted(host.builds)) or "none configured"
            raise WorkloadError(f"host {req.host} has no build {req.build!r} (builds: {known})")
        if build is not None:
            build = build.with_config(req.config)
        elif req.config:
            raise WorkloadError(f"the built-in build {req.build} has no configs (asked for {req.config!r})")
        check_build(req.workload, req.build, build)  # before a server is started for nothing
        server: ManagedServer | None = None
        if build is not None and build.managed:
            spec = _server_spec(build, workdir)
            server = make_server(transport, spec)
            label = build.name + (f" ({build.config})" if build.config else "")
            # one server per port, whichever benchdeck started it: recorded on the host
            async for done in server_state.claim_port(transport, req.host, workdir, server):
                yield Phase(run_id, "server", done)
            yield Phase(run_id, "server", f"starting {label}")
            await _ensure_running(server)
            await server_state.record_started(transport, workdir, server, build.name, build.config)
        elif build is not None and build.start:
            yield Phase(run_id, "server", f"starting {build.name}: {build.start[0]}")
            await _run_script(transport, build.start, "start")
        plan = make_plan(run_id, host, build, req, remote_dir, server)
        db = provenance.db_access(build, server, _sql_client(build) if server is None else None)
    except (WorkloadError, ServerError, TransportError, ValueError) as exc:
        yield RunFailed(run_id, str(exc), datetime.now().replace(microsecond=0))
        return
    yield Recorded(run_id, await provenance.capture(transport, plan, db))
    async for ev in provenance.with_outputs(transport, plan, Runner(transport, plan).events()):
        yield ev
    if req.options.stop_server and (server is not None or (build is not None and build.stop)):
        try:
            if server is not None:
                await server.stop()
                await server_state.remove(transport, workdir, server.spec.port)
            elif build is not None and build.stop:
                await _run_script(transport, build.stop, "stop")
        except (ServerError, TransportError) as exc:
            yield LogLine(run_id, "benchdeck", f"stopping the server failed: {exc}")


def _sql_client(build: BuildConfig | None) -> tuple[str, ...] | None:
    """The SQL client of an external build (None: not an SQL server)."""
    if build is None or build.build.dbms not in ("mysql", "mariadb", "fbmysql", "postgres"):
        return None
    return _external_client(build, "postgres" if build.build.dbms == "postgres" else "mysql")


async def _run_script(transport: Transport, argv: tuple[str, ...], what: str) -> None:
    """The user's own start/stop command (an argv list from the inventory)."""
    res = await transport.run(list(argv), timeout=600)
    if not res.ok:
        lines = (res.stderr or res.stdout).strip().splitlines()
        raise ServerError(f"{what} command {argv[0]} exited {res.exit_status}: {lines[-1] if lines else ''}")


def build_password(build: BuildConfig) -> str:
    """The password a build's clients use (a managed server's default is sysbench's)."""
    if build.password is not None:
        return build.password
    return "sbtest" if build.managed else ""


def _server_spec(build: BuildConfig, workdir: str) -> ServerSpec:
    dbms = build.build.dbms
    if dbms not in ("mariadb", "mysql", "postgres"):
        raise ServerError(f"benchdeck cannot manage a {dbms} server (mariadb, mysql or postgres)")
    name = build.name + (f".{build.config}" if build.config else "")
    return ServerSpec(
        dbms=dbms,  # type: ignore[arg-type]
        datadir=posixpath.join(workdir, "servers", name, "data"),
        port=build.port or _DEFAULT_PORTS[dbms],
        basedir=build.basedir,
        host=build.host,
        config_file=build.config_file,
        user=build.user or "sbtest",
        password=build_password(build),
        database=build.database,
    )


async def _ensure_running(server: ManagedServer) -> None:
    if not await server.exists():
        await server.create()
    if not await server.is_running():
        await server.start()
    await server.wait_ready()
    await server.setup_database()


def make_plan(
    run_id: int,
    host: HostConfig,
    build: BuildConfig | None,
    req: RunRequest,
    remote_dir: str,
    server: ManagedServer | None,
) -> RunPlan:
    """The plan of one run; the workload's family (:func:`family_of`) picks the tool.

    The Insert Benchmark client runs with the host's Python: this interpreter
    (``sys.executable``, importing this benchdeck) on a local host, ``python3`` over SSH, so
    that host needs benchdeck (and PyMySQL / psycopg) installed to run that family.
    """
    o = req.options
    threads = o.threads or host.threads
    tables = o.tables or host.tables
    table_size = o.table_size or host.table_size
    family = check_build(req.workload, req.build, build)
    if build is None:
        duration = o.duration_s or 60
        if host.transport != "local":
            raise WorkloadError(f"the built-in {req.build} workload runs on a local host, not {host.name}")
        return _builtin_plan(run_id, host, req, remote_dir, threads, tables, table_size, duration)
    if build.build.dbms == "sqlite":  # a compiled SQLite (benchdeck build): the built-in workloads
        return sqlite_build_plan(run_id, host, build, req, remote_dir)
    try:
        if family == "insertbench":
            return _insertbench_plan(run_id, host, build, req, remote_dir, server)
        if family == "pgbench":
            return _pgbench_plan(run_id, host, build, req, remote_dir, server)
        if family == "dbbench":
            return _dbbench_plan(run_id, host, build, req, remote_dir)
    except (pgbench_cmd.PgbenchError, dbbench_cmd.DbBenchError) as exc:
        raise WorkloadError(f"{req.workload}: {exc}") from None
    writes = step_for(req.workload).writes
    duration = o.duration_s or (o.write_s if writes else o.read_s) or default_duration(req.workload)
    dbms = "postgres" if build.build.dbms == "postgres" else "mysql"
    db_args = tuple(server.sysbench_args()) if server else _external_db_args(build, dbms)
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
    client = server.client_argv() if server else _external_client(build, dbms)
    if dbms == "mysql":
        rows_argv = (*client, "-N", "-e", table_check.mysql_sql(names))
    else:
        rows_argv = (*client, "-X", "-At", "-c", table_check.postgres_sql(names))
    secondary = str(o.extra.get("create_secondary", "on")).lower() not in ("off", "false", "0", "no")
    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=req.workload,
        remote_dir=remote_dir,
        bench_argv=tuple(cmd.run_argv()),
        duration_s=duration,
        prepare_argv=tuple(cmd.prepare_argv()) if o.prepare else None,
        warmup_argv=tuple(cmd.run_argv(o.warmup_s)) if o.warmup_s else None,
        device=host.device,
        table_size=table_size,
        build=req.build,
        env=tuple(cmd.env().items()),
        files=tuple(cmd.files().items()),
        table_rows_argv=rows_argv if o.prepare else None,
        expected_tables=names,
        cleanup_argv=tuple(cmd.cleanup_argv()) if o.prepare else None,
        secondary_index=secondary,
    )


def _external_db_args(build: BuildConfig, dbms: str) -> tuple[str, ...]:
    port = build.port or _DEFAULT_PORTS.get(build.build.dbms, 3306)
    if dbms == "postgres":
        return pgsql_db_args(build.host, port, build.user or "postgres", build.password or "", build.database)
    args = mysql_db_args(build.host, port, build.user or "root", build.password or "", build.database)
    return (*args, f"--mysql-socket={build.socket}") if build.socket else args


def _external_client(build: BuildConfig, dbms: str) -> tuple[str, ...]:
    port = str(build.port or _DEFAULT_PORTS.get(build.build.dbms, 3306))
    if dbms == "postgres":
        return ("psql", "-h", build.host, "-p", port, "-U", build.user or "postgres", "-d", build.database)
    conn = [f"--socket={build.socket}"] if build.socket else ["-h", build.host, "-P", port]
    auth = [f"-u{build.user or 'root'}", *([f"-p{build.password}"] if build.password else [])]
    return ("mariadb", "--no-defaults", *conn, *auth, build.database)


def _builtin_plan(
    run_id: int,
    host: HostConfig,
    req: RunRequest,
    remote_dir: str,
    threads: int,
    tables: int,
    table_size: int,
    duration: int,
) -> RunPlan:
    from benchdeck.engine.builtin.catalogue import builtin_argv  # the built-in SQLite workload

    db_path = posixpath.join(posixpath.dirname(posixpath.dirname(remote_dir)), f"builtin-{req.build}.sqlite")
    run, prepare = (
        builtin_argv(
            req.workload,
            db_path=db_path,
            time_s=duration,
            threads=threads,
            tables=tables,
            table_size=table_size,
            command=command,
            durability=BUILTIN_BUILDS[req.build],
        )
        for command in ("run", "prepare")
    )
    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=req.workload,
        remote_dir=remote_dir,
        bench_argv=tuple(run),
        duration_s=duration,
        prepare_argv=tuple(prepare) if req.options.prepare else None,
        device=host.device,
        table_size=table_size,
        build=req.build,
    )


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


@dataclass(frozen=True, slots=True)
class _Conn:
    """Where a client connects: the managed server's spec, or the external build's settings."""

    dbms: str
    host: str
    port: int
    user: str
    password: str
    database: str


def _conn(build: BuildConfig, server: ManagedServer | None) -> _Conn:
    if server is not None:
        sp = server.spec
        return _Conn(sp.dbms, sp.connect_host, sp.port, sp.user, sp.password, sp.database)
    dbms = build.build.dbms
    user = build.user or ("postgres" if dbms == "postgres" else "root")
    port = build.port or _DEFAULT_PORTS[dbms]
    return _Conn(dbms, build.host, port, user, build.password or "", build.database)


def _insertbench_plan(
    run_id: int,
    host: HostConfig,
    build: BuildConfig,
    req: RunRequest,
    remote_dir: str,
    server: ManagedServer | None,
) -> RunPlan:
    o, step = req.options, req.workload
    try:
        defaults = ib_steps.get_step(step)
    except ValueError as exc:
        raise WorkloadError(str(exc)) from None
    overrides: dict[str, str | int | float | bool] = {}
    if o.table_size and step == "l.i0":
        overrides["rows"] = o.table_size
    if defaults.kind == "query":
        overrides["query-threads"] = o.threads or host.threads
        if o.duration_s:
            overrides["seconds"] = o.duration_s
    for key, value in o.extra.items():
        overrides[key] = _insertbench_value(key, value)
    seconds = float(overrides.get("seconds", defaults.seconds))
    if defaults.kind == "query":
        duration = max(1, math.ceil(seconds))
    else:  # a load step runs until its rows are in (``seconds`` caps it)
        duration = max(1, math.ceil(seconds)) if "seconds" in overrides else OPEN_ENDED_S
    c = _conn(build, server)
    env: dict[str, str] = {}
    files: tuple[tuple[str, str], ...] = ()
    if host.transport == "local":
        python = sys.executable
        path = os.pathsep.join(p for p in (import_root(IB_PACKAGE), os.environ.get("PYTHONPATH")) if p)
        if path:  # import this benchdeck's client
            env["PYTHONPATH"] = path
    else:  # the client's sources go into the run directory: nothing of benchdeck to install
        python = "python3"
        files = insertbench_client_files()
        env["PYTHONPATH"] = posixpath.join(remote_dir, IB_CLIENT_DIR)
    argv = ib_steps.step_argv(
        step,
        dbms=c.dbms,
        host=c.host,
        port=c.port,
        user=c.user,
        password=c.password,
        database=c.database,
        python=python,
        table_count=o.tables or host.tables,
        overrides=overrides,
    )
    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=step,
        remote_dir=remote_dir,
        bench_argv=tuple(argv),
        duration_s=duration,
        device=host.device,
        table_size=o.table_size or host.table_size,
        build=req.build,
        family="insertbench",
        env=tuple(env.items()),
        files=files,
        open_ended=defaults.kind != "query",
    )


def _insertbench_value(key: str, value: str) -> str | bool:
    """A ``--param`` value for the Insert Benchmark client (flags take true/false)."""
    if key not in IB_OPTIONS:
        raise WorkloadError(
            f"--param {key}: not an Insert Benchmark client option (known: {', '.join(sorted(IB_OPTIONS))})"
        )
    if key in _IB_FLAGS:
        v = value.strip().lower()
        if v not in _TRUE | _FALSE:
            raise WorkloadError(f"--param {key}={value}: expected true or false")
        return v in _TRUE
    if key == "table-prefix":
        if not value.isascii() or not value[:1].isalpha() or not value.replace("_", "").isalnum():
            raise WorkloadError(f"--param {key}={value}: expected letters, digits and _")
        return value.lower()
    try:
        number = float(value) if key in _IB_FLOATS else int(value)
    except ValueError:
        raise WorkloadError(f"--param {key}={value}: expected a number") from None
    if not number >= 0 or math.isinf(number):
        raise WorkloadError(f"--param {key}={value}: expected a number >= 0")
    return value


def _pgbench_plan(
    run_id: int,
    host: HostConfig,
    build: BuildConfig,
    req: RunRequest,
    remote_dir: str,
    server: ManagedServer | None,
) -> RunPlan:
    o = req.options
    builtin = req.workload.removeprefix(PGBENCH_PREFIX)
    if builtin not in pgbench_cmd.BUILTINS:
        known = ", ".join(PGBENCH_PREFIX + b for b in pgbench_cmd.BUILTINS)
        raise WorkloadError(f"unknown pgbench workload {req.workload!r} (known: {known})")
    c = _conn(build, server)
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
    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=req.workload,
        remote_dir=remote_dir,
        bench_argv=run(duration),
        duration_s=duration,
        prepare_argv=(*prepare[:-1], *init_extra, prepare[-1]) if o.prepare else None,
        tables_exist_argv=check if o.prepare else None,
        warmup_argv=run(o.warmup_s) if o.warmup_s else None,
        device=host.device,
        table_size=table_size,
        build=req.build,
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


IB_CLIENT_DIR = "ib"  # in the run directory: engine/insertbench/*.py, importable from here
IB_PACKAGE = "benchdeck.engine.insertbench"


def insertbench_client_files() -> tuple[tuple[str, str], ...]:
    """The Insert Benchmark client as (path in the run directory, source) pairs: standard
    library plus the DB driver (PyMySQL or psycopg) the host must have."""
    return package_files(IB_PACKAGE, ("__init__", "client", "schema", "steps", "workers"), IB_CLIENT_DIR)


def _dbbench_plan(
    run_id: int, host: HostConfig, build: BuildConfig, req: RunRequest, remote_dir: str
) -> RunPlan:
    o = req.options
    step, _, setup = req.workload.partition(".")
    if not setup:
        raise WorkloadError(
            f"db_bench workloads are named STEP.SETUP, e.g. readww.byrx, not {req.workload!r} "
            f"(setups: {', '.join(dbbench_cmd.SETUPS)})"
        )
    step = dbbench_cmd.step_name(step)
    table_size = o.table_size or host.table_size
    duration = o.duration_s or (600 if step == "overwrite" else 300)
    workdir = posixpath.dirname(posixpath.dirname(remote_dir))  # remote_dir is WORKDIR/runs/runN-x
    cfg = dbbench_cmd.DbBenchConfig(
        db_dir=posixpath.join(workdir, "rocksdb", f"{req.build}.{setup}"),
        setup=setup,
        num_keys=table_size,
        threads=o.threads or host.threads,
        duration_s=duration,
        db_bench=posixpath.join(build.basedir, "db_bench") if build.basedir else "db_bench",
        extra=tuple(o.extra.items()),
    )
    loads = step == "fillseq"  # writes --num keys, whatever --duration says
    # db_bench creates the database directory but not its parent (WORKDIR/rocksdb); a load
    # counts once it exited 0 (dbbench_cmd.LOADED_MARK), never from CURRENT alone.
    if loads:
        prepare: tuple[str, ...] | None = tuple(dbbench_cmd.unmark_argv(cfg))
    elif o.prepare:
        prepare = tuple(dbbench_cmd.load_argv(cfg))
    else:
        prepare = None
    warmup = None
    if o.warmup_s and not loads:
        warmup = tuple(dbbench_cmd.step_argv(step, replace(cfg, duration_s=o.warmup_s)))
    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=req.workload,
        remote_dir=remote_dir,
        bench_argv=tuple(dbbench_cmd.step_argv(step, cfg)),
        duration_s=OPEN_ENDED_S if loads else duration,
        prepare_argv=prepare,
        tables_exist_argv=tuple(dbbench_cmd.db_exists_argv(cfg)) if prepare and not loads else None,
        warmup_argv=warmup,
        device=host.device,
        table_size=table_size,
        build=req.build,
        family="dbbench",
        open_ended=loads,
        done_argv=tuple(dbbench_cmd.mark_argv(cfg)) if loads else None,
    )


def needs_post_write(done: str, following: str | None) -> bool:
    """The posts' post-write step: after a sysbench write step, before read steps follow."""
    if following is None or family_of(done) != "sysbench" or family_of(following) != "sysbench":
        return False
    try:
        return step_for(done).writes and not step_for(following).writes
    except WorkloadError:
        return False


async def post_write(
    session: Session,
    host_name: str,
    build_name: str,
    tables: int,
    wait_s: int = 60,
    config: str | None = None,
) -> str:
    """Settle the database after writes (InnoDB: flush dirty pages, analyze; PostgreSQL:
    VACUUM ANALYZE) through the build's SQL client; returns what was done, for the log."""
    host = session.inventory.host(host_name)
    build = host.builds.get(build_name)
    if build is not None:
        build = build.with_config(config)
    if build is None or build.build.dbms not in ("mysql", "mariadb", "fbmysql", "postgres"):
        return "post-write: nothing to do for this build"
    transport = await session.transport(host_name)
    dbms = "postgres" if build.build.dbms == "postgres" else "mysql"
    if build.managed:
        server = make_server(
            transport, _server_spec(build, await session.remote_path(host_name, host.workdir))
        )
        await server.locate()
        client = tuple(server.client_argv())
    else:
        client = _external_client(build, dbms)
    statements = post_write_sql(build.build.dbms, tables, wait_s)
    argv = [*client, "-v", "ON_ERROR_STOP=1", "-f", "-"] if dbms == "postgres" else list(client)
    res = await transport.run(argv, stdin="".join(f"{s};\n" for s in statements), timeout=wait_s + 900)
    if not res.ok:
        lines = (res.stderr or res.stdout).strip().splitlines()
        raise ServerError(f"post-write step failed: {lines[-1] if lines else res.exit_status}")
    return f"post-write: {len(statements)} statements ({statements[0].split()[0]} ...) done"
