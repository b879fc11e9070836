"""PostgreSQL streaming replication of managed servers.

The primary gets the replication role (its password a psql parameter, never spliced into SQL)
and a ``pg_hba.conf`` line letting it replicate from other hosts with that password (initdb's
``trust`` lines already cover loopback). A standby is a ``pg_basebackup -R -X stream`` of the
primary into the node's datadir (its ``primary_conninfo`` names the node as
``application_name``, so the primary's ``pg_stat_replication`` says which standby is which),
started on the node's port; it has no database set up of its own (it is read-only).
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import AsyncIterator
from dataclasses import dataclass

from benchdeck.engine.cluster.cluster_nodes import Node, Options
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.node_servers import REPL_USER, bring_up, managed, primary_address, repl_password
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.servers.postgres import PostgresServer
from benchdeck.engine.transport import TransportError

# The role is REPL_USER; its password a psql variable.
ROLE_SQL = """\
SELECT 'CREATE ROLE benchdeck_repl'
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'benchdeck_repl')\\gexec
ALTER ROLE benchdeck_repl WITH REPLICATION LOGIN PASSWORD :'password';
SELECT 1 AS done;
"""
HBA_LINE = f"host replication {REPL_USER} all scram-sha-256"
# $1 pg_hba.conf, $2 the line: appended unless there already.
ADD_LINE = 'grep -qxF -- "$2" "$1" || printf "%s\\n" "$2" >>"$1"'
STREAMING = """\
SELECT application_name, state, COALESCE(EXTRACT(epoch FROM replay_lag), 0) AS lag_s,
       pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) AS behind_bytes
FROM pg_stat_replication
"""
STREAMING_TIMEOUT_S = 30.0
OWN_STATE = """\
SELECT pg_is_in_recovery() AS recovery, r.status AS receiver, r.sender_port
FROM (SELECT 1) one LEFT JOIN pg_stat_wal_receiver r ON true
"""


def options(cluster: ClusterSpec, index: int) -> Options:
    """No options of its own: PostgreSQL's defaults (wal_level replica, 10 WAL senders, hot
    standby) stream already; a user's config file keeps its say."""
    return ()


async def replicate(cluster: ClusterSpec, nodes: list[Node]) -> AsyncIterator[str]:
    """Set ``cluster`` up on its managed ``nodes`` (idempotent), yielding progress lines."""
    primary = next(n for n in nodes if n.spec.role == "primary")
    async for line in bring_up(primary):
        yield line
    password = await repl_password(primary)
    await primary.rows(ROLE_SQL, {"password": password})
    await _allow_replication(primary)
    for standby in (n for n in nodes if n.spec.role == "replica"):
        copy = _BaseBackup(primary, password)
        async for line in bring_up(standby, create=copy, setup_db=False):
            yield line
        await _require_standby(standby)
        await wait_streaming(primary, standby)
        yield f"{standby.label}: streaming from {primary.name}"


async def _allow_replication(primary: Node) -> None:
    server = managed(primary)
    hba = posixpath.join(server.spec.datadir, "pg_hba.conf")
    res = await primary.transport.run(["sh", "-c", ADD_LINE, "-", hba, HBA_LINE])
    if not res.ok:
        raise ClusterError(f"{primary.label}: cannot allow replication in {hba}: {res.stderr.strip()}")
    await primary.rows("SELECT pg_reload_conf() AS reloaded")


@dataclass(frozen=True, slots=True)
class _BaseBackup:
    """Creates a standby's datadir: ``pg_basebackup -R`` of ``primary`` (as the OS user)."""

    primary: Node
    password: str

    async def __call__(self, standby: Node) -> None:
        server = managed(standby)
        if not isinstance(server, PostgresServer):
            raise ClusterError(f"{standby.label}: not a PostgreSQL server")
        if "pg_basebackup" not in server.wanted:  # found beside pg_ctl, as the server's other tools
            server.wanted = {**server.wanted, "pg_basebackup": ("pg_basebackup",)}
            server.tools = {}
        backup = (await server.locate())["pg_basebackup"]
        await server.refuse_clobber()
        await server.make_dir(server.spec.datadir, "0700", await server.os_user())
        conninfo = f"application_name={standby.name} password={self.password}"  # checked words only
        argv = [
            backup, "-h", primary_address(self.primary, standby), "-p", str(self.primary.port),
            "-U", REPL_USER, "-d", conninfo, "-D", server.spec.datadir,
            "-R", "-X", "stream", "--checkpoint=fast", "--no-password",
        ]  # fmt: skip
        try:
            res = await standby.transport.run(await server.as_os_user(*argv), timeout=3600)
        except TransportError as exc:
            raise ClusterError(f"{standby.label}: pg_basebackup: {exc}") from None
        if not res.ok:
            lines = (res.stderr.strip() or res.stdout.strip()).splitlines()
            raise ClusterError(
                f"{standby.label}: pg_basebackup of {self.primary.name} failed: {lines[-1] if lines else ''}"
            )


async def _require_standby(standby: Node) -> None:
    """A datadir that is not a standby's (no ``standby.signal``) is not copied over."""
    server = managed(standby)
    signal = posixpath.join(server.spec.datadir, "standby.signal")
    if await standby.transport.file_size(signal) is None:
        raise ClusterError(
            f"{standby.label}: {server.spec.datadir} holds a server that is not a standby"
            " (no standby.signal): stop it and remove the datadir to copy the primary again"
        )


@dataclass(frozen=True, slots=True)
class StandbyState:
    """A standby as its primary's ``pg_stat_replication`` and the standby itself see it."""

    reason: str
    lag_s: float | None = None
    behind_bytes: int | None = None


async def standby_state(primary: Node, standby: Node) -> StandbyState:
    """Is ``standby`` in recovery and streaming from ``primary``, and how far behind?"""
    own = (await standby.rows(OWN_STATE))[0]
    if own["recovery"] != "t":
        return StandbyState("not a standby (pg_is_in_recovery() is false: promoted, or a primary)")
    if own["receiver"] != "streaming":
        return StandbyState(f"not streaming (WAL receiver: {own['receiver'] or 'none'})")
    if own["sender_port"] != str(primary.port):
        return StandbyState(
            f"streams from port {own['sender_port']}, not from {primary.name} (port {primary.port})"
        )
    rows = {r["application_name"]: r for r in await primary.rows(STREAMING)}
    row = rows.get(standby.name)
    if row is None:
        return StandbyState("")  # streams, under another application_name: its lag is unknown here
    if row["state"] != "streaming":
        return StandbyState(f"not streaming (the primary sees it {row['state']})")
    behind = row["behind_bytes"]
    return StandbyState("", float(row["lag_s"]), int(float(behind)) if behind else None)


async def wait_streaming(primary: Node, standby: Node, timeout: float = STREAMING_TIMEOUT_S) -> None:  # noqa: ASYNC109
    """Poll until ``standby`` streams; ClusterError with the last reason at the deadline."""
    loop = asyncio.get_running_loop()
    deadline, delay = loop.time() + timeout, 0.05
    while (state := await standby_state(primary, standby)).reason:
        if loop.time() > deadline:
            raise ClusterError(f"{standby.label}: {state.reason}")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.5)
