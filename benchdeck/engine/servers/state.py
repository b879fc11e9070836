"""Which managed server runs where, kept on the host itself so every benchdeck sees it.

One JSON file per port, ``WORKDIR/servers/ports/<port>.json``: a port holds one server, so two
benchdeck processes (with different stores, even) never rewrite each other's records. A record
names the build, config, pid, port and datadir; enough to stop that server without the
inventory entry that started it. Also: who holds a port when no record explains it.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from benchdeck.engine.running.run_dirs import busy_reason
from benchdeck.engine.servers.base import Dbms, ManagedServer, ServerError, ServerSpec
from benchdeck.engine.transport import Transport

# $1 directory: every record, one JSON document per line.
_READ_ALL = 'for f in "$1"/*.json; do [ -f "$f" ] && tr -d "\\n" <"$f" && echo; done; exit 0'
_WRITE = 'mkdir -p -- "$(dirname -- "$1")" && cat >"$1.tmp" && mv -f -- "$1.tmp" "$1"'
_REMOVE = 'rm -f -- "$1"'
# $1 port: the listening socket's line from ss (with its process), or "held" when only
# /proc/net/tcp* shows it (no ss); nothing when the port is free.
_PORT_HOLDER = r"""if command -v ss >/dev/null 2>&1; then ss -Hltnp "( sport = :$1 )" 2>/dev/null; exit 0; fi
hex=$(printf '%04X' "$1")
awk -v h=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == h { f = 1 } END { exit !f }' \
  /proc/net/tcp /proc/net/tcp6 2>/dev/null && echo held
exit 0"""
_USERS = re.compile(r'\("([^"]+)",pid=(\d+)')


@dataclass(frozen=True, slots=True)
class ServerRecord:
    """A managed server benchdeck started on a host."""

    port: int
    pid: int | None
    build: str
    config: str
    dbms: Dbms
    datadir: str
    basedir: str | None = None
    host: str = "127.0.0.1"
    socket_dir: str | None = None
    os_user: str | None = None
    started_at: str = ""

    @property
    def label(self) -> str:
        return self.build + (f" ({self.config})" if self.config else "")

    def spec(self) -> ServerSpec:
        """Enough of the server's spec to check and stop it (not to connect as the benchmark user)."""
        return ServerSpec(
            dbms=self.dbms,
            datadir=self.datadir,
            port=self.port,
            basedir=self.basedir,
            host=self.host,
            socket_dir=self.socket_dir,
            os_user=self.os_user,
        )

    @classmethod
    def of(cls, spec: ServerSpec, build: str, config: str, pid: int | None) -> ServerRecord:
        return cls(
            port=spec.port,
            pid=pid,
            build=build,
            config=config,
            dbms=spec.dbms,
            datadir=spec.datadir,
            basedir=spec.basedir,
            host=spec.host,
            socket_dir=spec.socket_dir,
            os_user=spec.os_user,
            started_at=datetime.now().replace(microsecond=0).isoformat(),
        )


def ports_dir(workdir: str) -> str:
    return posixpath.join(workdir, "servers", "ports")


def _path(workdir: str, port: int) -> str:
    return posixpath.join(ports_dir(workdir), f"{int(port)}.json")


def _record(text: str) -> ServerRecord | None:
    try:
        raw: dict[str, Any] = json.loads(text)
        names = {f.name for f in fields(ServerRecord)}
        return ServerRecord(**{k: v for k, v in raw.items() if k in names})
    except (ValueError, TypeError):
        return None  # a damaged record is no record


async def read_all(transport: Transport, workdir: str) -> list[ServerRecord]:
    """Every record on the host, by port."""
    res = await transport.run(["sh", "-c", _READ_ALL, "-", ports_dir(workdir)])
    records = [r for line in res.stdout.splitlines() if line.strip() and (r := _record(line))]
    return sorted(records, key=lambda r: r.port)


async def read(transport: Transport, workdir: str, port: int) -> ServerRecord | None:
    return next((r for r in await read_all(transport, workdir) if r.port == port), None)


async def write(transport: Transport, workdir: str, record: ServerRecord) -> None:
    res = await transport.run(
        ["sh", "-c", _WRITE, "-", _path(workdir, record.port)], stdin=json.dumps(asdict(record)) + "\n"
    )
    if not res.ok:
        why = res.stderr.strip()
        raise OSError(f"{transport.spec.name}: cannot record the server on port {record.port}: {why}")


async def remove(transport: Transport, workdir: str, port: int) -> None:
    await transport.run(["sh", "-c", _REMOVE, "-", _path(workdir, port)])


async def port_holder(transport: Transport, port: int) -> str | None:
    """Who listens on ``port`` (``mariadbd (pid 123)``), ``a process`` when it cannot be
    named, or None when the port is free."""
    res = await transport.run(["sh", "-c", _PORT_HOLDER, "-", str(int(port))])
    out = res.stdout.strip()
    if not out:
        return None
    m = _USERS.search(out)
    return f"{m.group(1)} (pid {m.group(2)})" if m else "a process benchdeck cannot name"


async def claim_port(
    transport: Transport, host: str, workdir: str, server: ManagedServer
) -> AsyncIterator[str]:
    """Make ``server``'s port its own before it starts, yielding what is done (for the log).

    Another build's server recorded on the port is stopped (unless a run still uses it); a
    record whose server is gone is dropped; a port held by a process no record explains is a
    ServerError of one line naming the port and, where it can be found, the process.
    """
    from benchdeck.engine.servers import make_server  # the package imports this module's siblings

    spec = server.spec
    rec = await read(transport, workdir, spec.port)
    if rec is not None and rec.datadir != spec.datadir:
        other = make_server(transport, rec.spec())
        if await other.is_running():
            why = await busy_reason(transport, host, posixpath.join(workdir, "runs"))
            if why is not None:
                raise ServerError(f"{why} (it needs {rec.label} on port {spec.port})")
            yield f"stopping {rec.label} (pid {rec.pid}, port {rec.port})"
            await other.stop()
        await remove(transport, workdir, spec.port)
    if not await server.is_running():
        holder = await port_holder(transport, spec.port)
        if holder is not None:
            raise ServerError(
                f"{host}: port {spec.port} is held by {holder}, not by a server benchdeck started: "
                "stop it, or give the build another port"
            )


async def record_started(
    transport: Transport, workdir: str, server: ManagedServer, build: str, config: str
) -> None:
    """Record a running server on its host (after it started, or when found running)."""
    await write(transport, workdir, ServerRecord.of(server.spec, build, config, await server.pid()))
