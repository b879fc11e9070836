"""MariaDB asynchronous and semi-synchronous replication of managed servers.

Every node: ``server_id`` (its place in the cluster, from 1), a binlog in its datadir, ROW
format, ``log_slave_updates``; replicas are ``read_only``; semisync adds the plugin-free
``rpl_semi_sync_*_enabled`` of MariaDB. The primary gets the replication user; a replica that
does not follow the primary yet gets its first copy (``mariadb-dump --gtid`` of the primary's
databases, loaded over its socket), its GTID position, and the channel
(``CHANGE MASTER TO ... MASTER_USE_GTID = slave_pos``). A replica already following the primary
is only (re)started. SQL is constant text; the few values in it are checked words (the
primary's address, a GTID list, a generated hex password).
"""

from __future__ import annotations

import asyncio
import posixpath
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from benchdeck.engine.cluster.cluster_nodes import Node, Options
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.node_servers import REPL_USER, bring_up, managed, primary_address, repl_password
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.servers.base import HOST_RE, NAME_RE
from benchdeck.engine.servers.mysql import USER_HOSTS, MySQLServer
from benchdeck.engine.transport import TransportError

SYSTEM_DBS = frozenset({"information_schema", "mysql", "performance_schema", "sys"})
GTID_LIST = re.compile(r"(\d+-\d+-\d+(,\d+-\d+-\d+)*)?\Z")
_DUMPED_POS = re.compile(r"gtid_slave_pos='([0-9,-]*)'")
LOAD = 'f=$1; shift; exec "$@" <"$f"'
REPLICATING_TIMEOUT_S = 30.0

PRIMARY_USER = "".join(
    f"CREATE USER IF NOT EXISTS '{REPL_USER}'@'{h}' IDENTIFIED BY '{{password}}';\n"
    f"ALTER USER '{REPL_USER}'@'{h}' IDENTIFIED BY '{{password}}';\n"
    f"GRANT REPLICATION SLAVE, REPLICATION SLAVE ADMIN ON *.* TO '{REPL_USER}'@'{h}';\n"
    for h in USER_HOSTS
)
CHANNEL = """\
STOP REPLICA;
RESET REPLICA ALL;
RESET MASTER;
SET GLOBAL gtid_slave_pos = '{pos}';
CHANGE MASTER TO MASTER_HOST = '{host}', MASTER_PORT = {port}, MASTER_USER = '{user}',
  MASTER_PASSWORD = '{password}', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1;
START REPLICA;
"""


def options(cluster: ClusterSpec, index: int) -> Options:
    """The ``[mysqld]`` options of the cluster's node number ``index``."""
    primary = cluster.nodes[index].role == "primary"
    opts = [
        ("server_id", str(index + 1)),
        ("log_bin", "binlog"),
        ("relay_log", "relay"),
        ("binlog_format", "ROW"),
        ("log_slave_updates", "ON"),
    ]
    if not primary:
        opts.append(("read_only", "ON"))
    if cluster.kind == "semisync" and not primary:  # the primary's: once its replicas are up
        opts.append((SEMISYNC[primary], "ON"))
    return tuple(opts)


SEMISYNC = {True: "rpl_semi_sync_master_enabled", False: "rpl_semi_sync_slave_enabled"}


async def fits(node: Node) -> bool:
    """Is the running server started with the node's options (server_id, binlog, semisync)?"""
    want = dict(managed(node).spec.extra)
    row = (await node.rows("SELECT @@server_id AS server_id, @@log_bin AS log_bin"))[0]
    return row["server_id"] == want.get("server_id") and row["log_bin"] == "1"


async def replicate(cluster: ClusterSpec, nodes: list[Node]) -> AsyncIterator[str]:
    """Set ``cluster`` up on its managed ``nodes`` (idempotent), yielding progress lines."""
    primary = next(n for n in nodes if n.spec.role == "primary")
    async for line in bring_up(primary, fits=fits):
        yield line
    password = await repl_password(primary)
    await primary.rows(PRIMARY_USER.format(password=password) + "SELECT 1 AS done")
    replicas = [n for n in nodes if n.spec.role == "replica"]
    for replica in replicas:
        async for line in bring_up(replica, fits=fits):
            yield line
        async for line in follow(replica, primary, password):
            yield line
    if cluster.kind == "semisync":
        async for line in semisync_on(primary, replicas):
            yield line


async def semisync_on(primary: Node, replicas: list[Node]) -> AsyncIterator[str]:
    """Commits on the primary wait for a replica's acknowledgement from now on. Enabled once the
    replicas follow (before, each commit would wait ``rpl_semi_sync_master_timeout`` for none);
    each replica's IO thread reconnects so that the primary counts it as semi-synchronous."""
    await primary.rows(f"SET GLOBAL {SEMISYNC[True]} = ON; SELECT 1 AS done")
    for replica in replicas:
        await replica.rows("STOP REPLICA IO_THREAD; START REPLICA IO_THREAD; SELECT 1 AS done")
        await wait_replicating(replica)
    clients = await primary.rows("SHOW STATUS LIKE 'Rpl_semi_sync_master_clients'")
    count = clients[0]["Value"] if clients else "?"
    yield f"{primary.label}: semi-synchronous, {count} replica(s) acknowledging"


async def follow(replica: Node, primary: Node, password: str) -> AsyncIterator[str]:
    """``replica`` replicating from ``primary``: its first copy and channel unless it already
    follows the primary; then wait until both of its threads run."""
    host, port = primary_address(primary, replica), primary.port
    if not HOST_RE.match(host):
        raise ClusterError(f"{primary.label}: cannot put its address {host!r} in CHANGE MASTER")
    status = await replica.rows("SHOW REPLICA STATUS")
    if status and (status[0].get("Master_Host"), status[0].get("Master_Port")) == (host, str(port)):
        await replica.rows("START REPLICA; SELECT 1 AS done")
        yield f"{replica.label}: follows {primary.name} already"
    else:
        yield f"{replica.label}: copying {primary.name}'s databases"
        await replica.rows("STOP REPLICA; SELECT 1 AS done")  # nothing applied beside the copy
        pos = await first_copy(replica, primary, host)
        sql = CHANNEL.format(pos=pos, host=host, port=int(port), user=REPL_USER, password=password)
        await replica.rows(sql + "SELECT 1 AS done")
        yield f"{replica.label}: replicating from {primary.name} at GTID {pos or 'start'}"
    await wait_replicating(replica)


async def first_copy(replica: Node, primary: Node, host: str) -> str:
    """Dump the primary's databases from the replica's host and load them into the replica;
    the GTID position the dump was taken at."""
    server, source = managed(replica), managed(primary)
    if not isinstance(server, MySQLServer):
        raise ClusterError(f"{replica.label}: not a MariaDB/MySQL server")
    dbs = [r["Database"] for r in await primary.rows("SHOW DATABASES")]
    dbs = [d for d in dbs if d not in SYSTEM_DBS and NAME_RE.match(d)]
    file = posixpath.join(server.spec.parent, "first-copy.sql")
    client = server.tools["client"]
    dump_tool = posixpath.join(
        posixpath.dirname(client), "mariadb-dump" if "mariadb" in client else "mysqldump"
    )
    dump = [
        dump_tool, "--no-defaults", f"--host={host}", f"--port={primary.port}", f"--user={source.spec.user}",
        "--single-transaction", "--gtid", "--master-data=2", "--routines", "--events", "--triggers",
        f"--result-file={file}", "--databases", *dbs,
    ]  # fmt: skip
    try:
        await _checked(replica, dump, "mariadb-dump of the primary", env={"MYSQL_PWD": source.spec.password})
        found = await replica.transport.run(["grep", "-m1", "-o", "gtid_slave_pos='[0-9,-]*'", file])
        m = _DUMPED_POS.search(found.stdout)
        if m is None or not GTID_LIST.match(m.group(1)):
            raise ClusterError(f"{replica.label}: the dump of {primary.name} names no GTID position")
        await _checked(
            replica, ["sh", "-c", LOAD, "-", file, *server.admin_argv("client")], "loading the copy"
        )
        return m.group(1)
    finally:
        await replica.transport.run(["rm", "-f", "--", file])


async def _checked(node: Node, argv: list[str], what: str, env: dict[str, str] | None = None) -> None:
    try:
        res = await node.transport.run(argv, env=env, timeout=3600)
    except TransportError as exc:
        raise ClusterError(f"{node.label}: {what}: {exc}") from None
    if not res.ok:
        lines = (res.stderr.strip() or res.stdout.strip()).splitlines()
        raise ClusterError(f"{node.label}: {what} failed: {lines[-1] if lines else res.exit_status}")


@dataclass(frozen=True, slots=True)
class ReplicaState:
    """What ``SHOW REPLICA STATUS`` says of a replica (its threads: ``Yes``, ``No``, ``Connecting``)."""

    io: str
    sql: str
    error: str = ""
    lag_s: float | None = None
    source_port: str = ""
    """The port it replicates from (``Master_Port``)."""

    @property
    def running(self) -> bool:
        return self.io == "Yes" and self.sql == "Yes"

    @property
    def reason(self) -> str:
        """Why it does not replicate ("" when it does)."""
        if self.running:
            return ""
        if not self.io and not self.sql:
            return "replicates from nowhere (no CHANGE MASTER)"
        why = f"not replicating (IO thread {self.io}, SQL thread {self.sql})"
        return f"{why}: {self.error}" if self.error else why


async def replica_state(node: Node) -> ReplicaState:
    """Is ``node`` replicating (both threads running), and how far behind?"""
    rows = await node.rows("SHOW REPLICA STATUS")
    if not rows:
        return ReplicaState("", "")
    st = rows[0]

    def field(mariadb: str, mysql: str) -> str:  # MySQL 8.0.22+ renamed the columns
        return st.get(mariadb) or st.get(mysql) or ""

    lag = field("Seconds_Behind_Master", "Seconds_Behind_Source")
    error = st.get("Last_SQL_Error") or st.get("Last_IO_Error") or ""
    io, sql = (
        field("Slave_IO_Running", "Replica_IO_Running"),
        field("Slave_SQL_Running", "Replica_SQL_Running"),
    )
    lag_s = float(lag) if lag.isdigit() else None
    return ReplicaState(io or "?", sql or "?", error, lag_s, field("Master_Port", "Source_Port"))


async def wait_replicating(node: Node, timeout: float = REPLICATING_TIMEOUT_S) -> None:  # noqa: ASYNC109
    """Poll until both replication threads run; ClusterError with the server's reason as soon
    as a thread has stopped (an IO thread still connecting gets until the deadline)."""
    loop = asyncio.get_running_loop()
    deadline, delay = loop.time() + timeout, 0.05
    while True:
        state = await replica_state(node)
        if state.running:
            return
        if "No" in (state.io, state.sql) or not state.io or loop.time() > deadline:
            raise ClusterError(f"{node.label}: {state.reason}")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.5)
