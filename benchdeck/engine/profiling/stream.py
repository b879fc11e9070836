"""The capture loop's output (:mod:`.host_perf`), read as it is followed: windows and gaps.

A window counts only once its ``# end N`` line is read, so a window cut by a dropped link or a
killed loop is never half stored; the loop writes each block at once. Parsing is pure: the
runner feeds lines (:class:`CaptureParser`) and keeps what is new (window numbers above the
store's marks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchdeck.engine.profiling import perfstat_csv
from benchdeck.engine.profiling.records import CounterWindow, ProfileWindow

_WINDOW = re.compile(r"^# window (\d+) start=([\d.]+) seconds=([\d.]+) target=(.*)$")
_END = re.compile(r"^# end (\d+)$")
_GAP = re.compile(r"^# gap (\d+) start=([\d.]+) reason=(.*)$")
_STACK = re.compile(r"^(.*\S)\s+(\d+)$")


@dataclass(frozen=True, slots=True)
class CaptureGap:
    """A window perf did not take (perf killed, the target process gone): kept, never silent."""

    kind: str
    window: int
    start_s: float | None
    reason: str


class CaptureParser:
    """Lines of one kind's output (``counters`` or ``cpu``) -> finished windows and gaps."""

    def __init__(self, kind: str, event: str = "cpu-clock", frequency_hz: float | None = None):
        self.kind = kind
        self.event = event
        self.frequency_hz = frequency_hz
        self._head: tuple[int, float, float, str] | None = None
        self._body: list[str] = []

    def feed(self, line: str) -> CounterWindow | ProfileWindow | CaptureGap | None:
        if m := _WINDOW.match(line):
            self._head = (int(m[1]), float(m[2]), float(m[3]), m[4])
            self._body = []
            return None
        if m := _GAP.match(line):
            self._head = None
            return CaptureGap(self.kind, int(m[1]), float(m[2]), m[3])
        if m := _END.match(line):
            head, self._head = self._head, None
            if head is None or head[0] != int(m[1]):
                return None
            return self._window(head, self._body)
        if self._head is not None:
            self._body.append(line)
        return None

    def _window(self, head: tuple[int, float, float, str], body: list[str]) -> CounterWindow | ProfileWindow:
        n, start, seconds, target = head
        if self.kind == "counters":
            return CounterWindow(n, seconds, perfstat_csv.parse("\n".join(body)), start, target)
        stacks = tuple((m[1], int(m[2])) for ln in body if (m := _STACK.match(ln)))
        return ProfileWindow(n, seconds, self.event, self.frequency_hz, stacks, start, target)
