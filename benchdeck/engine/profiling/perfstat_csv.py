"""``perf stat -x,`` output (one event per line) as :class:`CounterReading` records.

The fields (perf 5.x-6.x, ``Documentation/perf-stat.txt``, "CSV FORMAT"): value, unit, event,
counter run time (ns), percentage of the window the counter ran, then an optional metric and
its unit. With ``-I`` an interval timestamp comes first; with ``-A``/``--per-*`` an aggregation
column too (not used here: benchdeck counts per target process). perf has already scaled a
multiplexed counter's value (value x enabled / running): it is kept as perf prints it, with the
running share. ``<not supported>`` / ``<not counted>`` are readings without a value, never 0.
"""

from __future__ import annotations

import re

from benchdeck.engine.profiling.records import CounterReading, CounterStatus

_MISSING = ("<not supported>", "<not counted>")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def parse_line(line: str) -> CounterReading | None:
    """One ``-x,`` line as a reading; None for a comment, a blank or a line that is not one."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    fields = text.split(",")
    if len(fields) >= 4 and _NUMBER.match(fields[0]) and "." in fields[0] and _value(fields[1]):
        fields = fields[1:]  # -I: the interval's timestamp first
    if len(fields) < 3 or not fields[2]:
        return None
    raw, unit, event = fields[0], fields[1], fields[2]
    pct = _float(fields[4]) if len(fields) > 4 else None
    if raw in _MISSING:
        status: CounterStatus = "not supported" if raw == "<not supported>" else "not counted"
        return CounterReading(event, None, unit, None, status)
    value = _float(raw)
    if value is None:
        return None
    running = pct if pct is not None and pct < 100.0 else None
    return CounterReading(event, value, unit, running)


def parse(text: str) -> tuple[CounterReading, ...]:
    """Every reading of one window's ``-x,`` output, in perf's order."""
    return tuple(r for ln in text.splitlines() if (r := parse_line(ln)) is not None)


def _value(field: str) -> bool:
    return field in _MISSING or _NUMBER.match(field) is not None


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
