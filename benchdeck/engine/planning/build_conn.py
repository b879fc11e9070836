"""How clients reach a build's database: a managed server's spec, or the external build's settings.

The plans (the benchmark's connection options, the SQL client's argv), the post-write step and
the run's provenance reach a build through these; a floor below the families, which use it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.servers import ManagedServer, ServerError, ServerSpec

DEFAULT_PORTS = {"mariadb": 3306, "mysql": 3306, "fbmysql": 3306, "postgres": 5432}
SQL_DBMS = ("mysql", "mariadb", "fbmysql", "postgres")  # reached with an SQL client


def build_password(build: BuildConfig) -> str:
    """The password a build's clients use (a managed server's default is sysbench's)."""
    if build.password is not None:
        return build.password
    return "sbtest" if build.managed else ""


def server_spec(build: BuildConfig, workdir: str) -> ServerSpec:
    """Where benchdeck keeps a managed build's server under ``workdir``, and how it is reached."""
    dbms = build.build.dbms
    if dbms not in ("mariadb", "mysql", "postgres"):
        raise ServerError(f"benchdeck cannot manage a {dbms} server (mariadb, mysql or postgres)")
    name = build.name + (f".{build.config}" if build.config else "")
    return ServerSpec(
        dbms=dbms,  # type: ignore[arg-type]
        datadir=posixpath.join(workdir, "servers", name, "data"),
        port=build.port or DEFAULT_PORTS[dbms],
        basedir=build.basedir,
        host=build.host,
        config_file=build.config_file,
        user=build.user or "sbtest",
        password=build_password(build),
        database=build.database,
        placement=build.placement,
    )


@dataclass(frozen=True, slots=True)
class Conn:
    """Where a client connects: the managed server's spec, or the external build's settings."""

    dbms: str
    host: str
    port: int
    user: str
    password: str
    database: str


def connection(build: BuildConfig, server: ManagedServer | None) -> Conn:
    """Where a plan's client connects to ``build`` (through ``server`` when it is managed)."""
    if server is not None:
        sp = server.spec
        return Conn(sp.dbms, sp.connect_host, sp.port, sp.user, sp.password, sp.database)
    dbms = build.build.dbms
    user = build.user or ("postgres" if dbms == "postgres" else "root")
    port = build.port or DEFAULT_PORTS[dbms]
    return Conn(dbms, build.host, port, user, build.password or "", build.database)


def external_client(build: BuildConfig, dbms: str) -> tuple[str, ...]:
    """The SQL client (mariadb or psql) argv for an external build."""
    port = str(build.port or DEFAULT_PORTS.get(build.build.dbms, 3306))
    if dbms == "postgres":
        return ("psql", "-h", build.host, "-p", port, "-U", build.user or "postgres", "-d", build.database)
    where = [f"--socket={build.socket}"] if build.socket else ["-h", build.host, "-P", port]
    auth = [f"-u{build.user or 'root'}", *([f"-p{build.password}"] if build.password else [])]
    return ("mariadb", "--no-defaults", *where, *auth, build.database)


def sql_client(build: BuildConfig | None) -> tuple[str, ...] | None:
    """The SQL client of an external build (None: not an SQL server)."""
    if build is None or build.build.dbms not in SQL_DBMS:
        return None
    return external_client(build, "postgres" if build.build.dbms == "postgres" else "mysql")
