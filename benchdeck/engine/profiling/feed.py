"""A run's capture streams (``counters.out``, ``cpu.out``) parsed as they are followed.

Windows and gaps numbered at or below the store's marks (a reattached run read again from the
start) are not sent again: each is stored once. No I/O: the runner's OutputFeed hands lines in.
At the run's end :meth:`CaptureFeed.close` gives a kind with neither window nor gap one (why it
has none) and the closing line that says what each kind got.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

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
        self._seconds: dict[str, list[float]] = {k: [] for k in STREAMS}  # each new window's length

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
            if not isinstance(got, CaptureGap):
                self._seconds[kind].append(got.seconds)
        self._stored[kind] = seen
        self.gaps += gaps
        if counters or profiles or gaps:
            self._emit(CaptureBatch(self.run_id, tuple(counters), tuple(profiles), tuple(gaps)))

    def has(self, kind: str) -> bool:
        """A window or gap of ``kind`` is stored (or sent to be)."""
        return self._stored.get(kind, -1) >= 0

    def close(self, kinds: tuple[str, ...], why_none: Mapping[str, str]) -> str:
        """The closing line of a run that captured ``kinds``; a kind with nothing stored, not even
        a gap, gets one now with ``why_none[kind]`` (the schedule's or its loop's reason)."""
        new = [
            CaptureGap(k, 0, None, why_none.get(k, "its capture loop wrote nothing"))
            for k in kinds
            if not self.has(k)
        ]
        for gap in new:
            self._stored[gap.kind] = 0
        self.gaps += new
        if new:
            self._emit(CaptureBatch(self.run_id, (), (), tuple(new)))
        reasons = {g.reason for g in self.gaps}
        if not any(self._seconds[k] for k in kinds) and len(reasons) == 1:
            return f"perf: no {' or '.join(kinds)} window: {reasons.pop()}"
        return "perf: " + "; ".join(self._said(k) for k in kinds)

    def _said(self, kind: str) -> str:
        secs = self._seconds[kind]
        if not secs:
            got = "no window"
        elif len(secs) == 1:
            got = f"1 window of {secs[0]:.1f} s"
        else:
            got = f"{len(secs)} windows, {sum(secs):.1f} s in all"
        gaps = [g for g in self.gaps if g.kind == kind]
        if gaps:
            got += f" ({gaps[-1].reason})" if not secs else f", {len(gaps)} not taken ({gaps[-1].reason})"
        return f"{kind} {got}"
