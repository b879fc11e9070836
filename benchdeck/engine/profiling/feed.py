"""A run's capture streams (``counters.out``, ``cpu.out``) parsed as they are followed.

Windows and gaps numbered at or below the store's marks (a reattached run read again from the
start) are not sent again: each is stored once. No I/O: the runner's OutputFeed hands lines in.
"""

from __future__ import annotations

from collections.abc import Callable

from benchdeck.engine.events import CaptureBatch, RunEvent
from benchdeck.engine.planning.plan import Marks, RunPlan
from benchdeck.engine.profiling.records import CounterWindow, ProfileWindow
from benchdeck.engine.profiling.stream import CaptureGap, CaptureParser

STREAMS = ("counters", "cpu")


class CaptureFeed:
    def __init__(self, plan: RunPlan, marks: Marks, emit: Callable[[RunEvent], None]):
        c = plan.capture
        event, hz = (c.options.event, float(c.options.frequency_hz)) if c is not None else ("cpu-clock", None)
        self.run_id = plan.run_id
        self._emit = emit
        self._parsers = {k: CaptureParser(k, event, hz) for k in STREAMS}
        self._stored = dict(marks.capture_window)  # kind -> highest window number stored
        self.gaps: list[CaptureGap] = []

    def feed(self, kind: str, lines: list[str]) -> None:
        parser, seen = self._parsers[kind], self._stored.get(kind, -1)
        counters: list[CounterWindow] = []
        profiles: list[ProfileWindow] = []
        gaps: list[CaptureGap] = []
        for line in lines:
            got = parser.feed(line)
            if got is None or got.window <= seen:
                continue
            seen = got.window
            if isinstance(got, CaptureGap):
                gaps.append(got)
            elif isinstance(got, CounterWindow):
                counters.append(got)
            else:
                profiles.append(got)
        self._stored[kind] = seen
        self.gaps += gaps
        if counters or profiles or gaps:
            self._emit(CaptureBatch(self.run_id, tuple(counters), tuple(profiles), tuple(gaps)))
