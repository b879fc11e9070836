"""The run directories on a host (``WORKDIR/runs/run<id>-<hex>``): which still have processes.

Every detached process of a run records its process group in ``<name>.pgid`` and, when it ends,
its exit code in ``<name>.rc``. A group without an exit code that is still alive belongs to a
run that is not over (a prepare left by a killed benchdeck, a benchmark another benchdeck
follows): nothing else may be measured on that host meanwhile.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchdeck.engine.transport import CommandResult, Transport

# $1 runs directory, $2 our own run directory (skipped). Prints "DIR NAME PGID PID" for each
# live process group of another run; a constant script, the paths passed as data.
_LIVE_GROUPS = r"""own=$2
for f in "$1"/run[0-9]*/*.pgid; do
  [ -f "$f" ] || continue
  d=${f%/*}; [ "$d" = "$own" ] && continue
  n=${f##*/}; n=${n%.pgid}
  [ -f "$d/$n.rc" ] && continue
  g=$(cat -- "$f" 2>/dev/null) || continue
  case $g in ''|*[!0-9]*) continue;; esac
  kill -s 0 -- "-$g" 2>/dev/null || continue
  p=$(cat -- "$d/$n.pid" 2>/dev/null)
  printf '%s %s %s %s\n' "${d##*/}" "$n" "$g" "${p:-?}"
done"""
_RUN_DIR = re.compile(r"run(\d+)-")
# Writes stdin to "$1", creating its directory; a constant script, the path passed as data.
_WRITE_FILE = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'


@dataclass(frozen=True, slots=True)
class LiveProcess:
    """A live process group of a run directory."""

    run_dir: str  # the directory's name, e.g. run12-a1b2c3
    name: str  # prepare, bench, vmstat ...
    pgid: int
    pid: str

    @property
    def run_id(self) -> int | None:
        m = _RUN_DIR.match(self.run_dir)
        return int(m.group(1)) if m else None


def runs_dir(remote_dir: str) -> str:
    """The directory holding a run's directory (``WORKDIR/runs``)."""
    return posixpath.dirname(remote_dir.rstrip("/"))


async def live_processes(transport: Transport, runs: str, own: str = "") -> list[LiveProcess]:
    """Live process groups of the run directories under ``runs``, except ``own``."""
    res = await transport.run(["sh", "-c", _LIVE_GROUPS, "-", runs, own.rstrip("/")])
    out = []
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2].isdigit():
            out.append(LiveProcess(parts[0], parts[1], int(parts[2]), parts[3]))
    return out


async def busy_reason(
    transport: Transport,
    host: str,
    runs: str,
    own: str = "",
    followed: Callable[[int], bool] | None = None,
) -> str | None:
    """One line naming the run and process in the way, or None when no other run is alive.

    ``followed(run_id)``: whether a live benchdeck follows that run (the app, or a ``run`` or
    ``queue`` in another terminal), which decides the hint: ``benchdeck resume`` reattaches only
    to a run nobody follows, and answered "nothing to resume" to one the app ran."""
    procs = await live_processes(transport, runs, own)
    if not procs:
        return None
    p = procs[0]
    rid = p.run_id
    what = f"run {rid}" if rid is not None else p.run_dir
    more = f" (and {len(procs) - 1} more process group(s))" if len(procs) > 1 else ""
    return (
        f"{host}: {what} still has its {p.name} running (pid {p.pid}, process group {p.pgid}, "
        f"in {runs}/{p.run_dir}){more}: not measuring beside it; {_busy_hint(rid, followed)}"
    )


def _busy_hint(rid: int | None, followed: Callable[[int], bool] | None) -> str:
    if rid is None:
        return "wait for it"
    if followed is None:
        return f"wait for it or `benchdeck cancel {rid}` (`benchdeck resume` it if no benchdeck follows it)"
    if followed(rid):
        return f"a benchdeck follows it (the app, a run or queue): wait for it or `benchdeck cancel {rid}`"
    return f"no benchdeck follows it: `benchdeck resume` it or `benchdeck cancel {rid}`"


async def write_file(transport: Transport, path: str, content: str) -> CommandResult:
    """Write ``content`` to ``path`` on the host, creating its directory."""
    return await transport.run(["sh", "-c", _WRITE_FILE, "-", path], stdin=content)
