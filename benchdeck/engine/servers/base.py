"""Managed database servers: the spec, the error, and what every DBMS shares.

Everything runs through a :class:`~engine.transport.Transport`, so the same code manages a
server on this machine or over SSH. Commands are argv lists; the few shell helpers are
CONSTANT scripts that receive values only as positional parameters (``"$@"``).
"""

from __future__ import annotations

import abc
import asyncio
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from benchdeck.engine.transport import CommandResult, CommandTimeout, Transport

Dbms = Literal["mariadb", "mysql", "postgres"]
ProbeState = Literal["ready", "starting", "dead"]

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}\Z")  # database and user names
OS_USER_RE = re.compile(r"[a-z_][a-z0-9_-]{0,31}\Z")
OPTION_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,127}\Z")
HOST_RE = re.compile(r"[A-Za-z0-9_.:*-]{1,253}\Z")
WILDCARD_HOSTS = frozenset({"*", "0.0.0.0", "::", ""})  # noqa: S104 - recognised, not bound
SOCKET_MAX = 107  # sun_path is 108 bytes including the NUL
ERROR_LINE = re.compile(r"\[ERROR\]|\b(FATAL|PANIC|ERROR):")
LEVEL = re.compile(r"\[(ERROR|Warning|Note)\]|\b(FATAL|PANIC|ERROR|LOG|WARNING|DETAIL|HINT):")

# $1 = "path" to search $PATH and the system dirs too, then search dirs, "--", tool names.
# Prints one line per tool: its path, or an empty line. The directory of the first tool found
# (symlinks resolved) is searched first for the others, so one installation's tools go together.
LOCATE = r"""usepath=$1; shift; anchor=; after=
found() { [ -f "$1" ] && [ -x "$1" ] && p=$1; }
for t in "$@"; do
  if [ -z "$after" ]; then [ "$t" = -- ] && after=1; continue; fi
  p=; [ -n "$anchor" ] && found "$anchor/$t"
  if [ -z "$p" ]; then for d in "$@"; do [ "$d" = -- ] && break; found "$d/$t" && break; done; fi
  if [ -z "$p" ] && [ -n "$usepath" ]; then
    c=$(command -v "$t" 2>/dev/null) && case $c in /*) p=$c ;; esac
    [ -n "$p" ] || for d in /usr/sbin /usr/local/sbin /sbin /usr/libexec \
        $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5nr); do found "$d/$t" && break; done
  fi
  if [ -z "$anchor" ] && [ -n "$p" ]; then r=$(readlink -f -- "$p") || r=$p; anchor=${r%/*}; fi
  printf '%s\n' "$p"
done"""
IN_ROOT = 'cd / || exit 97; exec "$@"'  # so an unprivileged os_user never starts in /root
WHOAMI = "id -u; id -un"
NONEMPTY = '[ -d "$1" ] && [ -n "$(ls -A -- "$1")" ]'
MAKE_DIR = 'mkdir -p -- "$1" && chmod "$2" -- "$1" && { [ -z "$3" ] || chown -- "$3" "$1"; }'
ROTATE = 'for f in "$@"; do if [ -e "$f" ]; then mv -f -- "$f" "$f.prev" || exit 1; fi; done'
WRITE_FILE = 'umask 022; cat >"$1.tmp" && mv -f -- "$1.tmp" "$1"'


class ServerError(Exception):
    """A managed-server failure, for users: ``message`` is one line; ``log_tail`` holds the
    last lines of the server's log when they explain it (``str()`` shows both)."""

    def __init__(self, message: str, log_tail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.log_tail = log_tail or None

    def __str__(self) -> str:
        return f"{self.message}\n{self.log_tail}" if self.log_tail else self.message


def _check_path(value: str | None, what: str, *, forbid: str = "") -> None:
    if value is None:
        return
    bad = set("\0\n\r" + forbid) & set(value)
    if not value.startswith("/") or bad or value != value.strip():
        raise ServerError(
            f"{what} must be an absolute path without {sorted(bad) or 'odd spacing'}: {value!r}"
        )


def check_name(value: str, what: str) -> str:
    """A database/user name safe to put in SQL as an identifier (they cannot be bound)."""
    if not NAME_RE.match(value):
        raise ServerError(f"invalid {what} name {value!r}: use letters, digits and _ (max 63)")
    return value


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """A server to manage on one host. ``basedir`` None means the system's packaged binaries.

    ``os_user``: the OS account owning the datadir and running the server. For PostgreSQL
    under a root login it defaults to ``postgres`` (initdb and pg_ctl refuse root).
    """

    dbms: Dbms
    datadir: str
    port: int
    basedir: str | None = None
    host: str = "127.0.0.1"
    socket_dir: str | None = None
    config_file: str | None = None
    extra: tuple[tuple[str, str], ...] = ()
    user: str = "sbtest"
    password: str = "sbtest"  # noqa: S105 - the sysbench convention for a private server
    database: str = "sbtest"
    os_user: str | None = None
    placement: tuple[str, ...] = ()  # e.g. ("numactl", "--cpunodebind=0", "--membind=0"): the start's prefix

    def placed(self, argv: Sequence[str]) -> list[str]:
        """``argv`` behind the NUMA placement (numactl's binding is inherited by what it starts)."""
        return [*self.placement, *argv]

    def __post_init__(self) -> None:
        if self.dbms not in ("mariadb", "mysql", "postgres"):
            raise ServerError(f"unsupported DBMS {self.dbms!r} (mariadb, mysql or postgres)")
        if not 1 <= self.port <= 65535:
            raise ServerError(f"invalid port {self.port}")
        # pg_ctl puts -D and -l inside "..." of a shell command: keep shell syntax out.
        pg = '"$`\\' if self.dbms == "postgres" else ""
        _check_path(self.datadir, "datadir", forbid=pg)
        if posixpath.dirname(self.datadir.rstrip("/")) in ("", "/"):
            raise ServerError(f"datadir {self.datadir!r} needs a parent directory other than /")
        _check_path(self.basedir, "basedir")
        _check_path(self.socket_dir, "socket_dir", forbid="," if pg else "")
        _check_path(self.config_file, "config_file", forbid="'" if pg else "")
        if not HOST_RE.match(self.host):
            raise ServerError(f"invalid bind address {self.host!r}")
        for key, value in self.extra:
            if not OPTION_RE.match(key) or set("\0\n\r") & set(value):
                raise ServerError(f"invalid server option {key!r}={value!r}")
        check_name(self.user, "user")
        check_name(self.database, "database")
        if "\0" in self.password:
            raise ServerError("the password must not contain NUL characters")
        if self.os_user is not None and not OS_USER_RE.match(self.os_user):
            raise ServerError(f"invalid OS user name {self.os_user!r}")
        sock = self.socket_path
        if len(sock.encode()) > SOCKET_MAX:
            raise ServerError(f"socket path too long ({len(sock.encode())} > {SOCKET_MAX} bytes): {sock}")

    @property
    def parent(self) -> str:
        return posixpath.dirname(posixpath.normpath(self.datadir))

    @property
    def sockets(self) -> str:
        return posixpath.normpath(self.socket_dir or self.datadir)

    @property
    def socket_path(self) -> str:
        name = f".s.PGSQL.{self.port}" if self.dbms == "postgres" else "mysqld.sock"
        return posixpath.join(self.sockets, name)

    @property
    def connect_host(self) -> str:
        """Where clients connect: the bind address, or loopback for a wildcard."""
        return "127.0.0.1" if self.host in WILDCARD_HOSTS else self.host


class ManagedServer(abc.ABC):
    """One database server on one host, driven entirely through a Transport."""

    wanted: dict[str, tuple[str, ...]]  # tool role -> candidate names; the first role anchors
    SERVER_NAME = "server"

    def __init__(self, transport: Transport, spec: ServerSpec) -> None:
        self.transport = transport
        self.spec = spec
        self.tools: dict[str, str] = {}
        self._login: tuple[int, str] | None = None

    @property
    def label(self) -> str:
        return f"{self.spec.dbms} port {self.spec.port} on {self.transport.spec.name}"

    # --- lifecycle (per DBMS) ------------------------------------------------------------------

    @abc.abstractmethod
    async def exists(self) -> bool:
        """True if the datadir is initialised."""

    @abc.abstractmethod
    async def create(self) -> None:
        """Initialise the datadir; ServerError if it already holds anything."""

    @abc.abstractmethod
    async def start(self) -> None:
        """Start the server detached (it outlives the SSH connection); see :meth:`wait_ready`."""

    @abc.abstractmethod
    async def setup_database(self) -> None:
        """Create the benchmark database and user (idempotent)."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Shut the server down and wait until it is gone (no-op if not running)."""

    @abc.abstractmethod
    async def is_running(self) -> bool: ...

    async def pid(self) -> int | None:
        """The server's pid, if it is known (not necessarily alive)."""
        return None

    @abc.abstractmethod
    def client_argv(self) -> list[str]:
        """argv of the SQL client connected to the benchmark database as the benchmark user."""

    @abc.abstractmethod
    def sysbench_args(self) -> list[str]: ...

    @abc.abstractmethod
    async def _probe(self) -> ProbeState:
        """One readiness check."""

    @abc.abstractmethod
    def _log_paths(self) -> list[str]:
        """The server's log files, most useful first."""

    async def wait_ready(self, timeout: float = 60.0) -> None:  # noqa: ASYNC109 - a deadline
        """Poll until the server accepts connections; ServerError with the log tail if it died
        or the deadline passed."""
        loop = asyncio.get_running_loop()
        deadline, delay = loop.time() + timeout, 0.02
        while True:
            state = await self._probe()
            if state == "ready":
                return
            if state == "dead":
                raise await self.failure("exited during startup")
            left = deadline - loop.time()
            if left <= 0:
                raise await self.failure(f"not ready after {timeout:g} s")
            await asyncio.sleep(min(delay, left))
            delay = min(delay * 1.5, 0.25)

    # --- shared helpers ----------------------------------------------------------------------

    async def run(
        self,
        argv: Sequence[str],
        what: str,
        *,
        timeout: float = 60,  # noqa: ASYNC109 - handed to the transport
        stdin: str | None = None,
        check: bool = True,
    ) -> CommandResult:
        """Run argv from ``/``; with ``check`` a failure is a ServerError naming ``what``."""
        argv = ["sh", "-c", IN_ROOT, "benchdeck", *argv]
        result = await self.transport.run(argv, timeout=timeout, stdin=stdin)
        if check and not result.ok:
            lines = (result.stderr.strip() or result.stdout.strip()).splitlines()
            detail = lines[-1] if lines else "no output"
            raise ServerError(f"{self.label}: {what} failed (exit {result.exit_status}): {detail}")
        return result

    async def sh(self, script: str, *args: str, what: str, check: bool = True) -> CommandResult:
        return await self.run(["sh", "-c", script, "benchdeck", *args], what, check=check)

    async def login(self) -> tuple[int, str]:
        """(uid, name) of the account the transport logs in as."""
        if self._login is None:
            out = (await self.sh(WHOAMI, what="id")).stdout.split()
            if len(out) != 2 or not out[0].isdigit():
                raise ServerError(f"{self.label}: cannot tell which user we are: {out!r}")
            self._login = (int(out[0]), out[1])
        return self._login

    async def locate(self) -> dict[str, str]:
        """Find every tool in ``wanted`` (under basedir, or the system's); cached."""
        if self.tools:
            return self.tools
        names = [n for cands in self.wanted.values() for n in cands]
        base = self.spec.basedir
        dirs = [posixpath.join(base, d) for d in ("bin", "sbin", "scripts", "libexec")] if base else []
        out = await self.sh(LOCATE, "" if base else "path", *dirs, "--", *names, what="locating binaries")
        found = dict(zip(names, out.stdout.split("\n"), strict=False))
        tools: dict[str, str] = {}
        for role, cands in self.wanted.items():
            path = next((found[n] for n in cands if found.get(n)), None)
            if path is None:
                where = f"under {base}" if base else "on PATH or in the usual directories"
                raise ServerError(f"{self.label}: no {' / '.join(cands)} {where}")
            tools[role] = path
        self.tools = tools
        return tools

    async def is_dir(self, path: str) -> bool:
        return (await self.sh('[ -d "$1" ]', path, what="test -d", check=False)).ok

    async def refuse_clobber(self) -> None:
        if await self.exists():
            raise ServerError(f"{self.label}: {self.spec.datadir} is already initialised")
        if (await self.sh(NONEMPTY, self.spec.datadir, what="ls", check=False)).ok:
            raise ServerError(
                f"{self.label}: {self.spec.datadir} exists and is not empty; refusing to touch it"
            )

    async def make_dir(self, path: str, mode: str = "0700", owner: str | None = None) -> None:
        await self.sh(MAKE_DIR, path, mode, owner or "", what=f"creating {path}")

    async def write_file(self, path: str, text: str) -> None:
        await self.run(["sh", "-c", WRITE_FILE, "benchdeck", path], f"writing {path}", stdin=text)

    async def read_pid(self, path: str) -> int | None:
        try:
            head = (await self.transport.read_from(path, 0, 64)).split(b"\n", 1)[0].strip()
        except FileNotFoundError:
            return None
        return int(head) if head.isdigit() and int(head) > 0 else None

    async def rotate_logs(self) -> None:
        """Move the logs aside (``*.prev``), so they hold only what the next start writes."""
        await self.sh(ROTATE, *self._log_paths(), what="rotating the logs")

    async def log_tail(self, lines: int = 20) -> str:
        """The last lines of the server's logs (read through the transport)."""
        parts = []
        for path in self._log_paths():
            size = await self.transport.file_size(path)
            if not size:
                continue
            start = max(0, size - 16384)
            data = await self.transport.read_from(path, start, size - start)
            text = data.decode(errors="replace").splitlines()[-lines:]
            if any(t.strip() for t in text):
                parts.append(f"--- {path} ---\n" + "\n".join(text))
        return "\n".join(parts)

    async def failure(self, what: str) -> ServerError:
        """A ServerError naming the first error line of the log tail, with the tail attached."""
        tail = await self.log_tail()
        key = self.key_line([ln for ln in tail.splitlines() if ln.strip() and not ln.startswith("--- ")])
        level = LEVEL.search(key)
        key = key[level.start() :] if level else key.strip()  # drop the timestamp
        reason = f": {key[:300]}" if key else " (its log is empty)"
        return ServerError(f"{self.label}: {self.SERVER_NAME} {what}{reason}", tail)

    def key_line(self, lines: list[str]) -> str:
        """The log line that best explains a failure: the first error, else the last line."""
        return next((ln for ln in lines if ERROR_LINE.search(ln)), lines[-1] if lines else "")

    async def wait_gone(self, pid: int, timeout: float) -> bool:  # noqa: ASYNC109
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while await self.transport.is_alive(pid):
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def probe_command(self, argv: Sequence[str]) -> bool:
        """True if a short readiness command succeeds (a hung one counts as not ready)."""
        try:
            return (await self.run(argv, "probe", timeout=10, check=False)).ok
        except CommandTimeout:
            return False
