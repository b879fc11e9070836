"""The transport interface, its value types, and the shell helpers every transport shares.

Every command is an argv list. A transport may turn it into a command string only with
``shlex.join`` (SSH) or not at all (local ``exec``). The helper scripts below are CONSTANT
strings run as ``sh -c SCRIPT NAME ARG...``: values reach them only as positional parameters,
never by splicing text into a script.
"""

from __future__ import annotations

import abc
import contextlib
import re
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal, Protocol, Self

from benchdeck.engine.transport.errors import TransportError


@dataclass(frozen=True, slots=True)
class HostSpec:
    """Where and how to reach a host.

    ``known_hosts`` defaults to ``~/.ssh/known_hosts``. With ``use_ssh_config`` the user's
    ``~/.ssh/config`` fills in what is not given here (User, IdentityFile, ProxyJump...,
    and Port when ``port`` is left at 22).
    """

    name: str
    hostname: str
    port: int = 22
    user: str | None = None
    key_files: tuple[str, ...] = ()
    known_hosts: str | None = None
    use_ssh_config: bool = True
    transport: Literal["ssh", "local"] = "ssh"


@dataclass(frozen=True, slots=True)
class CommandResult:
    """Outcome of a foreground command; ``exit_status`` is ``-N`` if killed by signal N."""

    exit_status: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


@dataclass(frozen=True, slots=True)
class DetachedProcess:
    """A process started with :meth:`Transport.start_detached`.

    ``pid`` is the command itself, ``pgid`` its process group (= session) to signal.
    In ``run_dir``, ``<name>.pid`` and ``<name>.pgid`` hold them (so a restarted client can
    reattach) and ``<name>.rc`` the exit code once it ends (absent if the wrapper was killed).
    """

    pid: int
    pgid: int
    run_dir: str
    name: str = "run"
    stdout_name: str = "run.out"
    stderr_name: str | None = None

    def path(self, filename: str) -> str:
        return str(PurePosixPath(self.run_dir) / filename)

    @property
    def stdout_path(self) -> str:
        return self.path(self.stdout_name)

    @property
    def stderr_path(self) -> str | None:
        return self.path(self.stderr_name) if self.stderr_name else None

    @property
    def pid_path(self) -> str:
        return self.path(f"{self.name}.pid")

    @property
    def pgid_path(self) -> str:
        return self.path(f"{self.name}.pgid")

    @property
    def rc_path(self) -> str:
        return self.path(f"{self.name}.rc")


class Transport(Protocol):
    """What the engine needs from a host: run, start detached, read files, signal."""

    spec: HostSpec

    async def connect(self) -> None: ...
    async def close(self) -> None: ...
    async def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - part of the Transport API
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult: ...
    async def start_detached(
        self,
        argv: Sequence[str],
        *,
        run_dir: str,
        stdout_name: str,
        stderr_name: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> DetachedProcess: ...
    async def read_from(self, path: str, offset: int, max_bytes: int = 1 << 20) -> bytes: ...
    async def file_size(self, path: str) -> int | None: ...
    async def kill_group(self, pgid: int, sig: str = "TERM") -> bool: ...
    async def is_alive(self, pid: int) -> bool: ...
    def stream(self, argv: Sequence[str]) -> AsyncIterator[str]: ...
    def stream_bytes(self, argv: Sequence[str]) -> AsyncGenerator[bytes, None]: ...
    def follow(self, path: str, offset: int = 0) -> AsyncGenerator[bytes, None]: ...


# --- constant helper scripts (positional parameters only) -----------------------------------

# $1 runner script, $2 run_dir, $3 name, $4 stdout file, $5 stderr file or "", $6 env count,
# then env NAME=VALUE words, then argv. Prints "PGID PID".
LAUNCH = r"""runner=$1 dir=$2 name=$3 out=$4 err=$5; shift 1
mkdir -p -- "$dir" || exit 96
touch -- "$dir/$out" || exit 96
if [ -n "$err" ]; then touch -- "$dir/$err" || exit 96; fi
rm -f -- "$dir/$name.pid" "$dir/$name.pgid" "$dir/$name.rc"
setsid sh -c "$runner" benchdeck-run "$@" </dev/null >/dev/null 2>&1 &
i=0
while [ ! -s "$dir/$name.pid" ]; do
  i=$((i+1)); if [ "$i" -gt 1000 ]; then exit 98; fi
  sleep 0.01 2>/dev/null || sleep 1
done
printf '%s %s\n' "$(cat -- "$dir/$name.pgid")" "$(cat -- "$dir/$name.pid")"
"""

# Session leader (pid = pgid = sid): runs "$@" as its child, records its own pid (the group),
# the child's pid and, when it ends, its exit code; forwards TERM/INT to the child.
RUNNER = r"""dir=$1 name=$2 out=$3 err=$4 n=$5; shift 5
while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n-1)); done
trap '' HUP
if [ -n "$err" ]; then exec >"$dir/$out" 3>"$dir/$err"; else exec >"$dir/$out" 3>&1; fi
exec 2>/dev/null  # the shell's own job notices ("Terminated") are not the command's output
printf '%s\n' "$$" >"$dir/$name.pgid"
pid=
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT
"$@" </dev/null 2>&3 3>&- &
pid=$!
exec 3>&-
printf '%s\n' "$pid" >"$dir/$name.pid.tmp" && mv -f -- "$dir/$name.pid.tmp" "$dir/$name.pid"
while :; do
  wait "$pid"; rc=$?
  kill -0 "$pid" 2>/dev/null || break
done
printf '%s\n' "$rc" >"$dir/$name.rc.tmp" && mv -f -- "$dir/$name.rc.tmp" "$dir/$name.rc"
"""

READ_FROM = 'test -f "$1" || exit 3; tail -c "+$2" -- "$1" | head -c "$3"'
FILE_SIZE = 'test -f "$1" || exit 3; wc -c <"$1"'
IS_ALIVE = r"""kill -0 "$1" 2>/dev/null || exit 1
if [ -r "/proc/$1/stat" ]; then
  case "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)" in Z*|X*) exit 1;; esac
fi
exit 0"""
KILL_GROUP = 'kill -s "$1" -- "-$2"'

MISSING = 3
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
SIGNALS = frozenset({"TERM", "KILL", "INT", "HUP", "QUIT", "USR1", "USR2", "STOP", "CONT"})


def sh(script: str, *args: str) -> list[str]:
    """argv running a constant ``script`` with ``args`` as ``$1``, ``$2``..."""
    return ["sh", "-c", script, "benchdeck", *args]


def _plain_filename(value: str, what: str) -> str:
    if not value or "/" in value or value in (".", "..") or "\0" in value:
        raise ValueError(f"{what} must be a plain file name, got {value!r}")
    return value


class ShellTransport(abc.ABC):
    """Implements the file/process helpers on top of one primitive, :meth:`_exec`."""

    spec: HostSpec

    @abc.abstractmethod
    async def connect(self) -> None: ...

    @abc.abstractmethod
    async def close(self) -> None: ...

    async def stream(self, argv: Sequence[str]) -> AsyncIterator[str]:
        """Lines (without the newline) of a short-lived foreground command's stdout; built on
        :meth:`stream_bytes`, so stopping early kills the command the same way."""
        buf = b""
        async with contextlib.aclosing(self.stream_bytes(argv)) as chunks:
            async for chunk in chunks:
                *lines, buf = (buf + chunk).split(b"\n")
                for line in lines:
                    yield line.decode(errors="replace").rstrip("\r")
        if buf:
            yield buf.decode(errors="replace").rstrip("\r")

    @abc.abstractmethod
    def stream_bytes(self, argv: Sequence[str]) -> AsyncGenerator[bytes, None]:
        """Raw stdout chunks of a command, as they arrive."""

    def follow(self, path: str, offset: int = 0) -> AsyncGenerator[bytes, None]:
        """The bytes of ``path`` from ``offset`` on, then whatever is appended (``tail -F``).

        Never ends by itself: the caller stops iterating (which kills the remote ``tail``).
        """
        if offset < 0:
            raise ValueError("offset must be >= 0")
        return self.stream_bytes(["tail", "-c", f"+{offset + 1}", "-F", "--", path])

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @abc.abstractmethod
    async def _exec(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
        idempotent: bool = False,
    ) -> tuple[int, bytes, bytes]:
        """Run argv to completion; ``idempotent`` allows a retry after a dropped connection."""

    async def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - part of the Transport API
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run argv and wait; ``env`` is added to its environment (as start_detached does:
        NAME=VALUE words before the command, through ``env``)."""
        if not argv:
            raise ValueError("argv is empty")
        data = stdin.encode() if stdin is not None else None
        words = _env_words(env)
        cmd = ["env", *words, *argv] if words else list(argv)
        status, out, err = await self._exec(cmd, stdin=data, timeout=timeout)
        return CommandResult(status, out.decode(errors="replace"), err.decode(errors="replace"))

    async def start_detached(
        self,
        argv: Sequence[str],
        *,
        run_dir: str,
        stdout_name: str,
        stderr_name: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> DetachedProcess:
        if not argv:
            raise ValueError("argv is empty")
        _plain_filename(stdout_name, "stdout_name")
        if stderr_name is not None:
            _plain_filename(stderr_name, "stderr_name")
        name = PurePosixPath(stdout_name).stem or stdout_name
        if {stdout_name, stderr_name} & {f"{name}.pid", f"{name}.pgid", f"{name}.rc"}:
            raise ValueError(f"output file names clash with {name}.pid / .pgid / .rc")
        words = _env_words(env)
        args = [RUNNER, run_dir, name, stdout_name, stderr_name or "", str(len(words))]
        status, out, err = await self._exec(sh(LAUNCH, *args, *words, *argv))
        fields = out.decode(errors="replace").split()
        if status != 0 or len(fields) != 2 or not all(f.isdigit() for f in fields):
            detail = err.decode(errors="replace").strip() or f"exit status {status}"
            raise TransportError(
                f"{self.spec.name}: could not start {argv[0]} detached in {run_dir}: {detail}"
            )
        pgid, pid = (int(f) for f in fields)
        return DetachedProcess(pid, pgid, run_dir, name, stdout_name, stderr_name)

    async def read_from(self, path: str, offset: int, max_bytes: int = 1 << 20) -> bytes:
        """Up to ``max_bytes`` of ``path`` from byte ``offset``; FileNotFoundError if absent."""
        if offset < 0 or max_bytes <= 0:
            raise ValueError("offset must be >= 0 and max_bytes > 0")
        argv = sh(READ_FROM, path, str(offset + 1), str(max_bytes))
        status, out, err = await self._exec(argv, idempotent=True)
        if status == MISSING:
            raise FileNotFoundError(f"{self.spec.name}:{path}")
        if status != 0:
            raise TransportError(f"{self.spec.name}: reading {path} failed: {err.decode().strip()}")
        return out

    async def file_size(self, path: str) -> int | None:
        status, out, err = await self._exec(sh(FILE_SIZE, path), idempotent=True)
        if status == MISSING:
            return None
        if status != 0 or not out.strip().isdigit():
            raise TransportError(f"{self.spec.name}: stat {path} failed: {err.decode().strip()}")
        return int(out)

    async def kill_group(self, pgid: int, sig: str = "TERM") -> bool:
        """Signal a whole process group; False if no such group is left."""
        sig = sig.upper().removeprefix("SIG")
        if sig not in SIGNALS:
            raise ValueError(f"unsupported signal {sig!r}")
        if pgid <= 1:
            raise ValueError(f"refusing to signal process group {pgid}")
        status, _, _ = await self._exec(sh(KILL_GROUP, sig, str(pgid)), idempotent=True)
        return status == 0

    async def is_alive(self, pid: int) -> bool:
        if pid <= 0:
            raise ValueError(f"invalid pid {pid}")
        status, _, _ = await self._exec(sh(IS_ALIVE, str(pid)), idempotent=True)
        return status == 0


def _env_words(env: Mapping[str, str] | None) -> list[str]:
    """``NAME=VALUE`` words; a name that is not a plain variable name is refused."""
    for key in env or {}:
        if not _ENV_NAME.match(key):
            raise ValueError(f"invalid environment variable name {key!r}")
    return [f"{k}={v}" for k, v in (env or {}).items()]
