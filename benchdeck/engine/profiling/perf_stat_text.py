"""perf stat's human output (what ``perf stat -o FILE`` writes without ``-x``), several windows
per file, into :class:`~.records.CounterWindow` records.

The seed author's run script (mdcallag/mytools, bench/sysbench.lua/run.sh, ``doperf1``) runs
``perf stat -o sb.perf.hw.<step>.<n> --append -e <group> -p <pid> -- sleep 10`` seven times
in a row, each with another group of events, so one file holds seven windows::

    # started on Tue Mar  4 17:25:08 2025

     Performance counter stats for process id '1155026':

              6,432.32 msec cpu-clock          #    0.643 CPUs utilized
        16,152,631,508      cycles             #    2.511 GHz                      (50.00%)
       <not supported>      bus-cycles
         <not counted>      instructions                                           (0.00%)
                                               #    0.16  stalled cycles per insn

          10.001554513 seconds time elapsed

A window runs from its header to its ``seconds time elapsed`` line. ``<not supported>`` (the
CPU or VM has no such counter) and ``<not counted>`` (it never got a turn on the PMU) are kept
as None with that status, never 0; a multiplexed counter's ``(50.00%)`` is the share of the
window it ran, its value already scaled by perf (perf-stat(1), "multiplexing"). ``# ...``
comments are perf's derived metrics (IPC, GHz, miss %): recomputed from the counts, not read.
The ``-x,`` machine-readable output is another parser's (the live capture's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from benchdeck.engine.profiling.records import CounterReading, CounterStatus, CounterWindow

_STARTED = re.compile(r"^#\s*started on\s+(.+?)\s*$")
_HEADER = re.compile(r"^\s*Performance counter stats for (.+?):?\s*$")
_ELAPSED = re.compile(r"^\s*([\d.,]+)\s+seconds time elapsed\s*$")
_USER_SYS = re.compile(r"^\s*[\d.,]+\s+seconds (?:user|sys)\s*$")
_RUNNING = re.compile(r"\(\s*(\d+(?:[.,]\d+)?)%\s*\)\s*$")
_VARIANCE = re.compile(r"\(\s*\+-\s*[\d.,]+%\s*\)\s*$")  # perf stat -r N: ( +-  1.23% )
_COUNT = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
_KNOWN_NOISE = ("Some events weren't counted", "Try disabling the NMI watchdog", "echo 0 > ")


@dataclass(frozen=True, slots=True)
class PerfStatText:
    """The complete windows of a file, each window's ``# started on`` time (None without one),
    and the lines no rule recognised (line number, text). ``incomplete`` counts windows cut
    off before their ``seconds time elapsed`` line (perf killed): dropped, not guessed."""

    windows: tuple[CounterWindow, ...]
    started: tuple[datetime | None, ...]
    skipped: tuple[tuple[int, str], ...] = ()
    incomplete: int = 0


def parse_perf_stat_text(text: str, first_window: int = 1) -> PerfStatText:
    """Every complete window in ``text``, numbered from ``first_window``."""
    windows: list[CounterWindow] = []
    started: list[datetime | None] = []
    skipped: list[tuple[int, str]] = []
    incomplete = 0
    stamp: datetime | None = None
    target: str | None = None  # inside a window: what it counted
    readings: list[CounterReading] = []
    for no, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if m := _STARTED.match(stripped):
            if target is not None:
                incomplete += 1
                target, readings = None, []
            stamp = _ctime(m.group(1))
            continue
        if m := _HEADER.match(line):
            if target is not None:
                incomplete += 1
            target, readings = _target(m.group(1)), []
            continue
        if _USER_SYS.match(line):
            continue  # perf's user/sys time, printed after the elapsed line
        if target is None:
            skipped.append((no, line))
            continue
        if m := _ELAPSED.match(line):
            secs = _number(m.group(1))
            windows.append(
                CounterWindow(
                    window=first_window + len(windows),
                    seconds=secs if secs is not None else 0.0,
                    readings=tuple(readings),
                    target=target,
                )
            )
            started.append(stamp)
            target, stamp, readings = None, None, []
            continue
        if stripped.startswith("#") or stripped.startswith(_KNOWN_NOISE):
            continue  # a derived metric on a line of its own; perf's hints
        if (reading := _reading(stripped)) is not None:
            readings.append(reading)
        else:
            skipped.append((no, line))
    if target is not None:
        incomplete += 1
    return PerfStatText(tuple(windows), tuple(started), tuple(skipped), incomplete)


def _reading(line: str) -> CounterReading | None:
    """``16,152,631,508  cycles  # 2.511 GHz  (50.00%)`` -> a reading; None if not one."""
    running: float | None = None
    line = _VARIANCE.sub("", line).rstrip()
    if m := _RUNNING.search(line):
        running = _number(m.group(1))
        line = line[: m.start()].rstrip()
    counted = line.partition("#")[0].strip()
    status: CounterStatus = "counted"
    value: float | None = None
    if counted.startswith("<not supported>"):
        status, words = "not supported", counted.removeprefix("<not supported>").split()
    elif counted.startswith("<not counted>"):
        status, words = "not counted", counted.removeprefix("<not counted>").split()
    else:
        first, *words = counted.split() or [""]
        if not _COUNT.match(first):
            return None
        value = _number(first)
    if len(words) == 1:
        unit, event = "", words[0]
    elif len(words) == 2:
        unit, event = words
    else:
        return None
    return CounterReading(event=event, value=value, unit=unit, running_pct=running, status=status)


def _number(text: str) -> float | None:
    """``16,152,631,508`` / ``6,432.32`` / ``10.001554513`` (perf's C-locale grouping)."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _target(what: str) -> str:
    """``process id '1155026'`` -> ``pid 1155026``; ``'system wide'`` -> ``all``."""
    quoted = what.split("'")[1] if what.count("'") >= 2 else what
    if what.startswith("process id"):
        return f"pids {quoted}" if "," in quoted else f"pid {quoted}"
    if what.startswith("thread id"):
        return f"tid {quoted}"
    if quoted == "system wide":
        return "all"
    return quoted


def _ctime(text: str) -> datetime | None:
    """``Tue Mar  4 17:25:08 2025`` (ctime(3), wall clock as printed) -> a datetime."""
    try:
        return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")
    except ValueError:
        return None
