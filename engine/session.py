"""From a user's request (host, build, workload, options) to a ready server and a run's events.

A :class:`Session` holds one transport per host, reused across runs. :func:`execute` brings a
managed server up when needed, builds the :class:`RunPlan`, and yields the runner's events.
"""

from __future__ import annotations

import contextlib
import posixpath
import secrets
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from engine.events import LogLine, Phase, RunEvent, RunFailed
from engine.inventory import BuildConfig, HostConfig, Inventory
from engine.plan import RunPlan
from engine.runner import Runner
from engine.servers import ManagedServer, ServerError, ServerSpec, make_server
from engine.sysbench_cmd import (
    SysbenchCommand,
    WorkloadError,
    default_duration,
    mysql_db_args,
    pgsql_db_args,
)
from engine.transport import Transport, TransportError, make_transport

BUILTIN_BUILD = "sqlite"
_DEFAULT_PORTS = {"mariadb": 3306, "mysql": 3306, "fbmysql": 3306, "postgres": 5432}
_TABLES_SQL = {
    "mysql": "SELECT count(*) FROM information_schema.tables "
    "WHERE table_schema = DATABASE() AND table_name = 'sbtest{n}'",
    "postgres": "SELECT count(*) FROM information_schema.tables WHERE table_name = 'sbtest{n}'",
}


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What the user may set per run; ``None`` takes the host's or the workload's default."""

    threads: int | None = None
    tables: int | None = None
    table_size: int | None = None
    duration_s: int | None = None
    warmup_s: int = 0
    prepare: bool = True
    stop_server: bool = False
    extra: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunRequest:
    host: str
    build: str
    workload: str
    options: RunOptions = RunOptions()


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
        if build is None and req.build != BUILTIN_BUILD:
            known = ", ".join(sorted(host.builds)) or "none configured"
            raise WorkloadError(f"host {req.host} has no build {req.build!r} (builds: {known})")
        server: ManagedServer | None = None
        if build is not None and build.managed:
            server = make_server(transport, _server_spec(build, workdir))
            yield Phase(run_id, "server", f"starting {build.name}")
            await _ensure_running(server)
        elif build is not None and build.start:
            yield Phase(run_id, "server", f"starting {build.name}: {build.start[0]}")
            await _run_script(transport, build.start, "start")
        plan = make_plan(run_id, host, build, req, remote_dir, server)
    except (WorkloadError, ServerError, TransportError, ValueError) as exc:
        yield RunFailed(run_id, str(exc), datetime.now().replace(microsecond=0))
        return
    async for ev in Runner(transport, plan).events():
        yield ev
    if req.options.stop_server and (server is not None or (build is not None and build.stop)):
        try:
            if server is not None:
                await server.stop()
            elif build is not None and build.stop:
                await _run_script(transport, build.stop, "stop")
        except (ServerError, TransportError) as exc:
            yield LogLine(run_id, "benchdeck", f"stopping the server failed: {exc}")


async def _run_script(transport: Transport, argv: tuple[str, ...], what: str) -> None:
    """The user's own start/stop command (an argv list from the inventory)."""
    res = await transport.run(list(argv), timeout=600)
    if not res.ok:
        lines = (res.stderr or res.stdout).strip().splitlines()
        raise ServerError(f"{what} command {argv[0]} exited {res.exit_status}: {lines[-1] if lines else ''}")


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
        password=build.password if build.password is not None else "sbtest",
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
    o = req.options
    threads = o.threads or host.threads
    tables = o.tables or host.tables
    table_size = o.table_size or host.table_size
    if build is None:
        duration = o.duration_s or 60
        if host.transport != "local":
            raise WorkloadError(
                f"the built-in {BUILTIN_BUILD} workload runs on a local host, not {host.name}"
            )
        return _builtin_plan(run_id, host, req, remote_dir, threads, tables, table_size, duration)
    duration = o.duration_s or default_duration(req.workload)
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
    check = _TABLES_SQL[dbms].format(n=tables)
    client = server.client_argv() if server else _external_client(build, dbms)
    check_argv = (*client, "-N", "-e", check) if dbms == "mysql" else (*client, "-At", "-c", check)
    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=req.workload,
        remote_dir=remote_dir,
        bench_argv=tuple(cmd.run_argv()),
        duration_s=duration,
        prepare_argv=tuple(cmd.prepare_argv()) if o.prepare else None,
        tables_exist_argv=check_argv if o.prepare else None,
        warmup_argv=tuple(cmd.run_argv(o.warmup_s)) if o.warmup_s else None,
        device=host.device,
        table_size=table_size,
        build=req.build,
        env=tuple(cmd.env().items()),
        files=tuple(cmd.files().items()),
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
    from engine.builtin.catalogue import builtin_argv  # the built-in SQLite workload

    db_path = posixpath.join(posixpath.dirname(posixpath.dirname(remote_dir)), "builtin.sqlite")
    run, prepare = (
        builtin_argv(
            req.workload,
            db_path=db_path,
            time_s=duration,
            threads=threads,
            tables=tables,
            table_size=table_size,
            command=command,
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
