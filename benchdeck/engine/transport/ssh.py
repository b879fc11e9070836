"""SSHTransport: one reused asyncssh connection per host, reconnecting after a drop.

Commands are argv lists turned into a command string only by ``shlex.join``. Each one runs
under a constant ``sh -c`` wrapper that first prints its pid, so a command that times out or
is cancelled can be killed over a second channel (sshd ignores signal requests for root, and
closing a channel leaves the remote process running).

File polling (``read_from``, ``file_size``, ``is_alive``) goes over one SFTP channel: no
login shell per poll, so watching a run costs the benchmark host next to nothing. Without
an SFTP subsystem the shell helpers of :class:`ShellTransport` are used instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os
import shlex
import socket
import stat
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import asyncssh
from asyncssh.config import SSHClientConfig

from benchdeck.engine.transport import hostkeys
from benchdeck.engine.transport.base import HostSpec, ShellTransport, sh
from benchdeck.engine.transport.errors import (
    AuthFailed,
    CommandTimeout,
    ConnectionLost,
    HostUnreachable,
    TransportError,
)

PIDWRAP = 'printf "%s\\n" "$$"; exec "$@"'
T = TypeVar("T")
_LINK_ERRORS = (asyncssh.Error, OSError)


def resolve_address(spec: HostSpec) -> tuple[str, int, str | None]:
    """(host, port, user) of a spec, through ``~/.ssh/config`` when the spec uses it."""
    if not spec.use_ssh_config or spec.transport != "ssh":
        return spec.hostname, spec.port, spec.user
    config = Path("~", ".ssh", "config").expanduser()
    try:
        local = getpass.getuser()
        paths = [config] if os.access(config, os.R_OK) else []
        port: Any = spec.port if spec.port != hostkeys.DEFAULT_PORT else ()
        cfg = SSHClientConfig.load(
            None, paths, False, False, False, local, spec.user or (), spec.hostname, port
        )
        host = str(cfg.get("Hostname", spec.hostname))
        port_n = spec.port if spec.port != hostkeys.DEFAULT_PORT else int(str(cfg.get("Port", spec.port)))
        user = spec.user or cfg.get("User") or None
    except (OSError, KeyError, ValueError, TypeError, asyncssh.ConfigParseError):
        return spec.hostname, spec.port, spec.user  # asyncssh reports a broken config itself
    return host, port_n, str(user) if user else None


class _NoSFTP(Exception):
    """Internal: the host has no SFTP subsystem; use the shell helpers."""


async def _read(sftp: asyncssh.SFTPClient, path: str, size: int, offset: int = 0) -> bytes:
    async with sftp.open(path, "rb") as f:
        data = await f.read(size, offset)
    return data.encode() if isinstance(data, str) else data


class SSHTransport(ShellTransport):
    """Transport over SSH (asyncssh), honouring ``~/.ssh/config`` and the ssh-agent."""

    def __init__(
        self,
        spec: HostSpec,
        keepalive_interval: float = 15,
        connect_timeout: float = 15,
        *,
        use_sftp: bool = True,
    ) -> None:
        self.spec = spec
        self.keepalive_interval = keepalive_interval
        self.connect_timeout = connect_timeout
        self.connections_made = 0  # > 1 means we reconnected
        self._conn: asyncssh.SSHClientConnection | None = None
        self._sftp: asyncssh.SFTPClient | None = None
        self._sftp_missing = not use_sftp  # then file polling runs shell helpers
        self._lock = asyncio.Lock()
        self._bg: set[asyncio.Task[None]] = set()
        self._address: tuple[str, int, str | None] | None = None

    @property
    def known_hosts_path(self) -> str:
        return os.path.expanduser(self.spec.known_hosts or hostkeys.default_known_hosts())

    @property
    def address(self) -> tuple[str, int, str | None]:
        """(host, port, user) the connection goes to: for an ``ssh = "alias"`` host, the
        HostName, Port and User that ``~/.ssh/config`` gives the alias (as OpenSSH reads it)."""
        if self._address is None:
            self._address = resolve_address(self.spec)
        return self._address

    @property
    def target(self) -> str:
        host, port, user = self.address
        via = f"{self.spec.hostname} = " if self.spec.use_ssh_config and host != self.spec.hostname else ""
        return f"{self.spec.name!r} ({via}{user + '@' if user else ''}{host} port {port})"

    async def connect(self) -> None:
        await self.ensure_connected()

    async def close(self) -> None:
        conn, self._conn, self._sftp = self._conn, None, None
        if conn is not None:
            conn.close()
            with contextlib.suppress(Exception):
                await conn.wait_closed()

    async def ensure_connected(self) -> asyncssh.SSHClientConnection:
        """The live connection, (re)connecting if there is none or it was dropped."""
        async with self._lock:
            if self._conn is None or self._conn.is_closed():
                self._conn, self._sftp = await self._open(), None
                self.connections_made += 1
            return self._conn

    def _connect_options(self, known: asyncssh.SSHKnownHosts) -> dict[str, Any]:
        spec = self.spec
        kw: dict[str, Any] = {
            "known_hosts": known,  # a parsed object: never None (= no checking)
            "keepalive_interval": self.keepalive_interval,
            "connect_timeout": self.connect_timeout,
        }
        if spec.user:
            kw["username"] = spec.user
        if spec.key_files:
            kw["client_keys"] = [os.path.expanduser(k) for k in spec.key_files]
            if os.environ.get("SSH_AUTH_SOCK"):  # as OpenSSH: a passphrase-protected key is
                kw["ignore_encrypted"] = True  # not loaded here; the agent holding it signs
        if not spec.use_ssh_config:
            kw["config"] = None
        if spec.port != hostkeys.DEFAULT_PORT or not spec.use_ssh_config:
            kw["port"] = spec.port
        return kw

    async def _open(self) -> asyncssh.SSHClientConnection:
        spec, known_path = self.spec, self.known_hosts_path
        known = hostkeys.load_known_hosts(known_path)
        recorder = hostkeys.KeyRecorder()
        try:
            return await asyncssh.connect(
                spec.hostname, client_factory=lambda: recorder, **self._connect_options(known)
            )
        except asyncssh.HostKeyNotVerifiable as exc:
            if recorder.offered is None:
                raise TransportError(f"{self.target}: {exc.reason}") from None
            raise hostkeys.host_key_error(spec.name, known, known_path, *recorder.offered) from None
        except (asyncssh.KeyExchangeFailed, asyncssh.ConnectionLost, ConnectionResetError) as exc:
            # A reset / lost link is how sshd answers when known_hosts pins key types it lacks.
            host, port, _ = self.address
            pinned = await hostkeys.pinned_key_mismatch(spec.name, known, known_path, host, port)
            if pinned is not None:
                raise pinned from None
            if isinstance(exc, asyncssh.KeyExchangeFailed):
                raise TransportError(f"{self.target}: key exchange failed: {exc.reason}") from None
            raise HostUnreachable(f"{self.target}: connection closed during login") from None
        except asyncssh.PermissionDenied:
            tried = ", ".join(spec.key_files) if spec.key_files else "default keys"
            agent = " and the ssh-agent" if os.environ.get("SSH_AUTH_SOCK") else ""
            raise AuthFailed(f"authentication failed for {self.target}: tried {tried}{agent}") from None
        except asyncssh.DisconnectError as exc:
            raise TransportError(f"{self.target}: {exc.reason}") from None
        except (asyncssh.KeyImportError, asyncssh.ConfigParseError) as exc:
            if "passphrase" in str(exc).lower():
                keys = ", ".join(spec.key_files)
                raise AuthFailed(
                    f"{self.target}: {keys} is passphrase-protected and no ssh-agent is running "
                    f"(SSH_AUTH_SOCK is not set): add the key to an agent with ssh-add"
                ) from None
            raise TransportError(f"{self.target}: cannot load ssh key/config: {exc}") from None
        except TimeoutError:
            raise HostUnreachable(f"cannot reach {self.target}: timed out") from None
        except socket.gaierror as exc:
            host = self.address[0]
            raise HostUnreachable(
                f"cannot reach {self.target}: cannot resolve host name {host!r} ({exc.strerror})"
            ) from None
        except OSError as exc:
            if exc.filename:  # a key or config file, not the network
                raise TransportError(f"{self.target}: {exc.filename}: {exc.strerror}") from None
            reason = os.strerror(exc.errno) if exc.errno else str(exc) or type(exc).__name__
            raise HostUnreachable(f"cannot reach {self.target}: {reason}") from None

    # --- commands --------------------------------------------------------------------------

    async def _start(
        self, argv: Sequence[str], **kw: Any
    ) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientProcess[Any]]:
        """Open a channel running argv; one transparent reconnect if the link was dropped."""
        command = shlex.join(sh(PIDWRAP, *argv))
        for attempt in (1, 2):
            conn = await self.ensure_connected()
            try:
                return conn, await conn.create_process(command, **kw)
            except _LINK_ERRORS as exc:
                if not conn.is_closed():
                    reason = getattr(exc, "reason", None) or str(exc)
                    raise TransportError(f"{self.target}: cannot open a session: {reason}") from None
                if attempt == 2:
                    raise ConnectionLost(f"connection to {self.target} lost") from None
        raise AssertionError("unreachable")

    def _abandon(self, proc: asyncssh.SSHClientProcess[Any], pid: int | None) -> None:
        """Kill a remote command we stop waiting for (timeout, cancel), in the background:
        read its pid line first if it has not arrived, kill it over another channel, close."""
        conn = self._conn

        async def kill(pid: int | None) -> None:
            with contextlib.suppress(Exception):
                if pid is None:
                    first = await asyncio.wait_for(proc.stdout.readline(), 5)
                    pid = int(first) if first.strip().isdigit() else None
                if pid is not None and conn is not None and not conn.is_closed():
                    await asyncio.wait_for(conn.run(shlex.join(["kill", "-TERM", str(pid)])), 10)
            proc.close()

        task = asyncio.get_running_loop().create_task(kill(pid))
        self._bg.add(task)
        task.add_done_callback(self._bg.discard)

    async def _exec(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
        idempotent: bool = False,
    ) -> tuple[int, bytes, bytes]:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            deadline = None if timeout is None else loop.time() + timeout
            source = asyncssh.PIPE if stdin else asyncssh.DEVNULL
            conn, proc = await self._start(argv, encoding=None, input=stdin, stdin=source)
            pid: int | None = None
            try:
                first = await asyncio.wait_for(proc.stdout.readline(), timeout)
                if first.strip().isdigit():
                    pid, first = int(first), b""  # else: a chatty login shell; keep it
                left = None if deadline is None else max(0.0, deadline - loop.time())
                out, err = await asyncio.wait_for(proc.communicate(), left)
                if proc.returncode is None:
                    raise ConnectionResetError
                return proc.returncode, first + out, err
            except TimeoutError:
                self._abandon(proc, pid)
                raise CommandTimeout(
                    f"{self.spec.name}: {argv[0]} did not finish within {timeout:g} s (killed)"
                ) from None
            except _LINK_ERRORS:
                proc.close()
                if not (idempotent and attempt == 1 and conn.is_closed()):
                    raise ConnectionLost(
                        f"connection to {self.target} lost while running {argv[0]}"
                    ) from None
            except BaseException:
                self._abandon(proc, pid)
                raise
        raise AssertionError("unreachable")

    async def stream_bytes(self, argv: Sequence[str]) -> AsyncGenerator[bytes, None]:
        """Yield raw stdout chunks of a command as they arrive; it is killed if we stop early."""
        _, proc = await self._start(argv, encoding=None, stdin=asyncssh.DEVNULL, stderr=asyncssh.DEVNULL)
        pid: int | None = None
        try:
            first = await proc.stdout.readline()
            if first.strip().isdigit():
                pid = int(first)
            elif first:
                yield first
            while chunk := await proc.stdout.read(1 << 16):
                yield chunk
            await proc.wait()
        except _LINK_ERRORS:
            raise ConnectionLost(f"connection to {self.target} lost during {argv[0]}") from None
        finally:
            if proc.returncode is None:
                self._abandon(proc, pid)
            else:
                proc.close()

    # --- file polling over SFTP --------------------------------------------------------------

    async def _sftp_call(self, op: Callable[[asyncssh.SFTPClient], Awaitable[T]], path: str) -> T:
        """Run an idempotent SFTP operation, reconnecting once if the link was dropped."""
        for attempt in (1, 2):
            conn = await self.ensure_connected()
            try:
                if self._sftp is None:
                    self._sftp = await conn.start_sftp_client()
                return await op(self._sftp)
            except (asyncssh.SFTPNoSuchFile, asyncssh.SFTPEOFError):
                raise
            except _LINK_ERRORS as exc:
                self._sftp = None
                if conn.is_closed():
                    if attempt == 2:
                        raise ConnectionLost(f"connection to {self.target} lost") from None
                    continue
                if isinstance(exc, asyncssh.ChannelOpenError | asyncssh.SFTPOpUnsupported):
                    self._sftp_missing = True
                    raise _NoSFTP from None
                reason = getattr(exc, "reason", None) or str(exc)
                raise TransportError(f"{self.target}: {path}: {reason}") from None
        raise AssertionError("unreachable")

    async def read_from(self, path: str, offset: int, max_bytes: int = 1 << 20) -> bytes:
        if offset < 0 or max_bytes <= 0:
            raise ValueError("offset must be >= 0 and max_bytes > 0")

        async def op(sftp: asyncssh.SFTPClient) -> bytes:
            return await _read(sftp, path, max_bytes, offset)

        if not self._sftp_missing:
            with contextlib.suppress(_NoSFTP):
                try:
                    return await self._sftp_call(op, path)
                except asyncssh.SFTPNoSuchFile:
                    raise FileNotFoundError(f"{self.spec.name}:{path}") from None
        return await super().read_from(path, offset, max_bytes)

    async def file_size(self, path: str) -> int | None:
        async def op(sftp: asyncssh.SFTPClient) -> int | None:
            try:
                attrs = await sftp.stat(path)
            except asyncssh.SFTPNoSuchFile:
                return None
            if attrs.permissions is not None and not stat.S_ISREG(attrs.permissions):
                return None
            return attrs.size

        if not self._sftp_missing:
            with contextlib.suppress(_NoSFTP):
                return await self._sftp_call(op, path)
        return await super().file_size(path)

    async def is_alive(self, pid: int) -> bool:
        """From ``/proc/PID/stat`` over SFTP (zombies count as dead); else ``kill -0``."""
        if pid <= 0:
            raise ValueError(f"invalid pid {pid}")

        async def op(sftp: asyncssh.SFTPClient) -> bool | None:
            try:
                stat_line = await _read(sftp, f"/proc/{pid}/stat", 4096)
                return stat_line.rsplit(b")", 1)[-1].split()[:1] not in ([b"Z"], [b"X"])
            except asyncssh.SFTPNoSuchFile:
                return False if await sftp.exists("/proc/self/stat") else None

        if not self._sftp_missing:
            with contextlib.suppress(_NoSFTP):
                alive = await self._sftp_call(op, f"/proc/{pid}/stat")
                if alive is not None:
                    return alive
        return await super().is_alive(pid)
