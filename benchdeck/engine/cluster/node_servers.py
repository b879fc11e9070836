"""A managed node's server brought up (its port claimed, created, started with the node's
options, recorded on its host as any managed server is), and the replication user's password,
generated once and kept beside the primary's datadir (mode 0600), as a managed build's own
password lives in benchdeck's hands rather than the inventory."""

from __future__ import annotations

import posixpath
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

from benchdeck.engine.cluster.cluster_nodes import Node
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.servers import ManagedServer, ServerError
from benchdeck.engine.servers import state as server_state
from benchdeck.engine.servers.base import WILDCARD_HOSTS
from benchdeck.engine.transport import TransportError

REPL_USER = "benchdeck_repl"
SECRET_NAME = "replication.secret"  # noqa: S105 - a file name
_SECRET = re.compile(r"[0-9a-f]{32}\Z")
_WRITE_SECRET = 'umask 077; cat >"$1.tmp" && mv -f -- "$1.tmp" "$1"'  # noqa: S105 - a script

Fits = Callable[[Node], Awaitable[bool]]
Create = Callable[[Node], Awaitable[None]]


def managed(node: Node) -> ManagedServer:
    if node.server is None:
        raise ClusterError(
            f"{node.label}: not a managed server (build {node.build.name} on {node.spec.host})"
        )
    return node.server


async def bring_up(
    node: Node, *, fits: Fits | None = None, create: Create | None = None, setup_db: bool = True
) -> AsyncIterator[str]:
    """``node``'s server running and ready, yielding what is done. A running server that does
    not ``fits`` (started without the node's options) is restarted; ``create`` replaces
    ``server.create()`` (a standby is copied, not initialised)."""
    server = managed(node)
    try:
        async for done in server_state.claim_port(node.transport, node.spec.host, node.workdir, server):
            yield f"{node.label}: {done}"
        if await server.is_running() and fits is not None and not await fits(node):
            yield f"{node.label}: restarting with the cluster's options"
            await server.stop()
        if not await server.exists():
            yield f"{node.label}: creating {server.spec.datadir}"
            await (create(node) if create is not None else server.create())
        if not await server.is_running():
            yield f"{node.label}: starting"
            await server.start()
        await server.wait_ready()
        if setup_db:
            await server.setup_database()
        # recorded as the build under "c1@loop3.r1" (its config, cluster and node)
        config = posixpath.basename(server.spec.parent).removeprefix(node.build.name).lstrip(".")
        await server_state.record_started(node.transport, node.workdir, server, node.build.name, config)
    except (ServerError, TransportError, OSError) as exc:
        raise ClusterError(f"{node.label}: {getattr(exc, 'message', exc)}") from None


async def repl_password(primary: Node) -> str:
    """The replication user's password: read from beside the primary's datadir, or made now."""
    server = managed(primary)
    path = posixpath.join(server.spec.parent, SECRET_NAME)
    try:
        kept = (await primary.transport.read_from(path, 0, 256)).decode(errors="replace").strip()
    except FileNotFoundError:
        kept = ""
    if _SECRET.match(kept):
        return kept
    made = secrets.token_hex(16)
    res = await primary.transport.run(["sh", "-c", _WRITE_SECRET, "-", path], stdin=made + "\n")
    if not res.ok:
        raise ClusterError(
            f"{primary.label}: cannot keep the replication password in {path}: {res.stderr.strip()}"
        )
    return made


def primary_address(primary: Node, replica: Node) -> str:
    """Where ``replica`` reaches the primary: its bind address on the same host or when it binds
    one; else its host's address (the build must then listen there, e.g. ``host = "0.0.0.0"``)."""
    spec = managed(primary).spec
    if primary.spec.host == replica.spec.host or not (spec.host in WILDCARD_HOSTS or _loopback(spec.host)):
        return spec.connect_host
    name = primary.transport.spec.hostname
    return "127.0.0.1" if _loopback(name) else name


def _loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")
