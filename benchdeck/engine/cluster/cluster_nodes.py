"""A cluster's nodes resolved for one build: each node's host (reached through its transport),
its build as that host describes it, and, for a managed build, the node's own server (a datadir
of its own, the node's port, the options its replication needs).

SQL on a node goes through the SQL client on the node's host: as the superuser over the unix
socket for a managed server, as the build's user over TCP for an external one. Statements are
constant text; values reach them only as parameters (psql ``-v``) or as checked words.
"""

from __future__ import annotations

import csv
import io
import posixpath
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace

from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.inventory_clusters import check_cluster_build
from benchdeck.engine.cluster.nodes import node_datadir_name
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.hosts.inventory import BuildConfig, Inventory
from benchdeck.engine.planning.build_conn import DEFAULT_PORTS, external_client, server_spec
from benchdeck.engine.servers import ManagedServer, ServerError, make_server
from benchdeck.engine.servers.base import ServerSpec
from benchdeck.engine.servers.mysql import MySQLServer
from benchdeck.engine.servers.postgres import PostgresServer
from benchdeck.engine.transport import Transport, TransportError

Connect = Callable[[str], Awaitable[Transport]]
Options = tuple[tuple[str, str], ...]
SQL_TIMEOUT_S = 30.0


def node_server_spec(
    build: BuildConfig, cluster: ClusterSpec, node: ClusterNode, workdir: str, options: Options = ()
) -> ServerSpec:
    """The managed server of ``build`` (node_build applied) on ``node``: under ``workdir``'s
    ``servers/`` in :func:`node_datadir_name`, started with ``options`` (its replication's)."""
    spec = server_spec(build, workdir)
    datadir = posixpath.join(workdir, "servers", node_datadir_name(build, cluster, node), "data")
    return replace(spec, datadir=datadir, extra=(*spec.extra, *options))


@dataclass(frozen=True, slots=True)
class Node:
    """One node of a cluster, ready to be managed or asked: ``server`` None for an external one."""

    spec: ClusterNode
    index: int
    build: BuildConfig
    transport: Transport
    workdir: str
    server: ManagedServer | None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def dbms(self) -> str:
        return self.build.build.dbms

    @property
    def port(self) -> int:
        return self.server.spec.port if self.server is not None else connection_port(self.build)

    @property
    def label(self) -> str:
        """``node r1 (local:3407)``: how errors and progress lines name a node."""
        return f"node {self.name} ({self.spec.host}:{self.port})"

    async def rows(self, sql: str, params: Mapping[str, str] | None = None) -> list[dict[str, str]]:
        """The rows of one query (column -> text); ClusterError naming the node when it fails."""
        argv, env = await self._client(params or {})
        try:
            res = await self.transport.run(argv, stdin=sql, env=env, timeout=SQL_TIMEOUT_S)
        except TransportError as exc:
            raise ClusterError(f"{self.label}: not reachable: {exc}") from None
        if not res.ok:
            lines = (res.stderr.strip() or res.stdout.strip()).splitlines()
            raise ClusterError(f"{self.label}: {lines[-1] if lines else f'exit {res.exit_status}'}")
        return parse_csv(res.stdout) if self.dbms == "postgres" else parse_batch(res.stdout)

    async def _client(self, params: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        env: dict[str, str] = {}
        if self.dbms == "postgres":
            if isinstance(self.server, PostgresServer):
                await self.server.locate()
                argv = self.server.admin_psql("--csv")
            else:
                argv = [
                    *external_client(self.build, "postgres"),
                    "-X",
                    "-q",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "--csv",
                ]
                env = {"PGPASSWORD": self.build.password} if self.build.password else {}
            for key, value in params.items():
                argv += ["-v", f"{key}={value}"]
            return argv, env
        if params:
            raise ServerError("a MariaDB/MySQL statement takes no parameters here")
        if isinstance(self.server, MySQLServer):
            await self.server.locate()
            return self.server.admin_argv("client", "--batch"), env
        return [*external_client(self.build, "mysql"), "--batch"], env


def connection_port(build: BuildConfig) -> int:
    return build.port or DEFAULT_PORTS.get(build.build.dbms, 3306)


def parse_batch(text: str) -> list[dict[str, str]]:
    """``mariadb --batch`` output (a header line, tab-separated rows) as dicts."""
    lines = text.splitlines()
    if not lines:
        return []
    head = lines[0].split("\t")
    return [dict(zip(head, map(_unescape_batch, line.split("\t")), strict=False)) for line in lines[1:]]


def _unescape_batch(cell: str) -> str:
    if "\\" not in cell:
        return cell
    out, i = [], 0
    while i < len(cell):
        if cell[i] == "\\" and i + 1 < len(cell):
            out.append({"n": "\n", "t": "\t", "0": "\0", "\\": "\\"}.get(cell[i + 1], cell[i + 1]))
            i += 2
        else:
            out.append(cell[i])
            i += 1
    return "".join(out)


def parse_csv(text: str) -> list[dict[str, str]]:
    """``psql --csv`` output of one query as dicts."""
    return list(csv.DictReader(io.StringIO(text)))


async def home_path(transport: Transport, path: str) -> str:
    """``path`` with a leading ``~`` expanded on the transport's host."""
    if not path.startswith("~"):
        return path
    res = await transport.run(["sh", "-c", 'printf %s "$HOME"'])
    if not res.stdout.strip():
        raise ClusterError(f"{transport.spec.name}: cannot find the home directory for {path}")
    return res.stdout.strip() + path[1:]


async def resolve_nodes(
    connect: Connect,
    inventory: Inventory,
    cluster: ClusterSpec,
    build: str,
    config: str | None,
    options: Callable[[ClusterSpec, int], Options] = lambda c, i: (),
    os_user_under_root: str | None = None,
) -> list[Node]:
    """Every node of ``cluster`` running ``build`` (under ``config``); a managed node's server
    gets ``options(cluster, index)``, and runs as ``os_user_under_root`` where benchdeck logs in
    as root. ClusterError when the build does not fit the cluster."""
    builds = check_cluster_build(inventory, cluster, build)
    out = []
    for i, n in enumerate(cluster.nodes):
        try:
            b = builds[n.name].with_config(config)
        except ValueError as exc:
            raise ClusterError(f"cluster {cluster.name}: node {n.name}: {exc}") from None
        try:
            transport = await connect(n.host)
        except (TransportError, OSError) as exc:
            raise ClusterError(
                f"cluster {cluster.name}: node {n.name}: host {n.host} not reachable: {exc}"
            ) from None
        workdir = await home_path(transport, inventory.hosts[n.host].workdir)
        server = None
        if b.managed:
            try:
                spec = node_server_spec(b, cluster, n, workdir, options(cluster, i))
            except ServerError as exc:
                raise ClusterError(f"cluster {cluster.name}: node {n.name}: {exc.message}") from None
            server = make_server(transport, spec)
            if os_user_under_root and (await server.login())[0] == 0:
                server = make_server(transport, replace(spec, os_user=os_user_under_root))
        out.append(Node(n, i, b, transport, workdir, server))
    return out
