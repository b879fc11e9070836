"""Helpers of bench_streams.py: the remote line generator, percentiles, machine load, loop lag.

The generator is one perl process per stream (no fork per line): it writes one sysbench-format
interval line per second whose ``t`` is the wall clock (microseconds) of the write itself, then
a sysbench summary once its stop file exists. Streams start at a random phase within the
second, as hosts started at different times would.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from dataclasses import dataclass, field

GENERATOR = r"""use strict; use Time::HiRes qw(time sleep);
$| = 1; my $stop = shift;
sleep(rand());
my $next = time;
until (-e $stop) {
    printf "[ %.6fs ] thds: 1 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) "
        . "lat (ms,95%%): 1.00 err/s: 0.00 reconn/s: 0.00\n", time;
    $next += 1; my $d = $next - time; sleep($d) if $d > 0;
}
print "SQL statistics:\n    queries:    200    (200.00 per sec.)\n"
    . "Threads fairness:\n    execution time (avg/stddev):   0.0100/0.00\n";
"""

# The baseline's remote command: the same generator into a file, followed by `tail -F` as
# benchdeck follows it ($1 generator, $2 stop file, $3 output file); tail ends with the writer.
BARE_FOLLOW = (
    ': >"$3" || exit 1\n'  # the file exists before tail starts (else tail -F polls for it)
    'perl -e "$1" "$2" >>"$3" & w=$!\n'
    'tail -c +1 -F -- "$3" 2>/dev/null & t=$!\n'
    'wait "$w"; sleep 0.5; kill "$t"; wait "$t"'
)

# Sessions of the bench's sshd skip root's ~/.bashrc: bash reads it for an ssh command only as
# a top-level shell (SHLVL < 2), and here it runs `pyenv init`, whose rehash lock serialised
# every remote command's start (32 concurrent commands: 3.6 s; without it 0.05 s).
NO_RC_FILES = "SetEnv SHLVL=1\n"


def stats_ms(values: list[float]) -> tuple[float, float, float, float]:
    """(p50, p95, p99, max) in ms of values in seconds (nearest rank); NaNs when empty."""
    if not values:
        nan = float("nan")
        return nan, nan, nan, nan
    s = sorted(values)

    def at(p: float) -> float:
        return 1000 * s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))]

    return at(50), at(95), at(99), 1000 * s[-1]


def fmt(st: tuple[float, float, float, float]) -> str:
    return "{:.0f}/{:.0f}/{:.0f}/{:.0f}".format(*st)


def _cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]  # idle + iowait
    return sum(v) - idle, sum(v)


@dataclass
class Load:
    """The machine's load over a window: 1-min load average at its end, busy cores in it."""

    start: tuple[int, int] = field(default_factory=_cpu_ticks)
    busy_cores: float = 0.0
    loadavg: float = 0.0

    def stop(self) -> Load:
        busy, total = _cpu_ticks()
        db, dt = busy - self.start[0], total - self.start[1]
        self.busy_cores = (os.cpu_count() or 1) * db / dt if dt else 0.0
        self.loadavg = os.getloadavg()[0]
        return self

    def __str__(self) -> str:
        return f"load {self.loadavg:4.1f}, {self.busy_cores:3.1f}/{os.cpu_count()} cores busy"


class LoopLag:
    """How late the event loop wakes a 10 ms timer: a blocking call on the loop shows here."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _probe(self) -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append(time.perf_counter() - t0 - 0.01)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._probe())

    def stop(self) -> tuple[float, float, float, float]:
        if self._task is not None:
            self._task.cancel()
        return stats_ms(self.lags)


def line_times(chunks: list[tuple[float, bytes]]) -> dict[float, float]:
    """{t of an interval line: when the chunk completing it arrived} for one followed file."""
    out: dict[float, float] = {}
    buf = b""
    for at, chunk in chunks:
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for ln in lines:
            if ln.startswith(b"[ "):
                out[float(ln[2:].split(b"s", 1)[0])] = at
    return out
