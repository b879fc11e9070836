"""Real private servers for tests (sshd, MariaDB, PostgreSQL) on loopback, in temp dirs.

Each ``start_*()`` returns a dataclass with what clients need and a ``stop()``. A missing
binary raises :class:`MissingBinary` naming the Debian package to install.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path


class MissingBinary(RuntimeError):
    """A server binary is not installed; the message names the Debian package."""


class ServerStartError(RuntimeError):
    """A server did not come up; the message includes the tail of its log."""


def require(binary: str, package: str) -> str:
    """Absolute path of ``binary`` (a name on PATH or an absolute path) or MissingBinary."""
    found = binary if os.path.isabs(binary) and os.access(binary, os.X_OK) else None
    found = found or shutil.which(binary)
    if not found:
        raise MissingBinary(f"{binary} not found: install it with `apt-get install -y {package}`")
    return found


def die_with_parent() -> list[str]:
    """argv prefix so a server gets SIGTERM if the test process dies without cleaning up."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv else []


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check: Callable[[], bool], *, timeout: float, what: str, log: Path | None = None) -> None:
    """Poll ``check`` until it is true; ServerStartError (with the log tail) at the deadline."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while not check():
        if time.monotonic() > deadline:
            raise ServerStartError(f"{what} not ready after {timeout:g} s{log_tail(log)}")
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def log_tail(log: Path | None, lines: int = 15) -> str:
    if log is None or not log.exists():
        return ""
    tail = log.read_text(errors="replace").splitlines()[-lines:]
    return f"\n--- {log} ---\n" + "\n".join(tail)


def run_checked(
    argv: Sequence[str], what: str, *, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run a setup command; ServerStartError with its stderr if it fails."""
    proc = subprocess.run(list(argv), capture_output=True, text=True, check=False, cwd=cwd, timeout=timeout)
    if proc.returncode != 0:
        detail = (proc.stderr.strip() or proc.stdout.strip())[-2000:]
        raise ServerStartError(f"{what} failed (exit {proc.returncode}): {detail}")
    return proc


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def kill_and_wait(pid: int, timeout: float = 5.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout``; returns when the pid is gone (or a zombie)."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not pid_alive(pid):
            return


def children_map() -> dict[int, list[int]]:
    """ppid -> [pid] for every process (from /proc)."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[-1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def descendants(pid: int) -> list[int]:
    tree, out, todo = children_map(), [], [pid]
    while todo:
        kids = tree.get(todo.pop(), [])
        out.extend(kids)
        todo.extend(kids)
    return out


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
