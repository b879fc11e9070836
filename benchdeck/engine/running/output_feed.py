"""The measured part's output, parsed as it is followed: batches of new rows, and the outcome.

:class:`OutputFeed` holds a run's parsers (the family's, vmstat's, iostat's) and the rows read
so far. Rows at or below the store's high-water marks (:class:`Marks`, a reattached run read
again from its start) are replayed to viewers, never emitted as new: each row is stored once.
No I/O here: the runner feeds lines and emits what comes back.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from benchdeck.engine.events import (
    BenchBatch,
    IostatBatch,
    LogLine,
    Replayed,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunFinished,
    Skipped,
    VmstatBatch,
)
from benchdeck.engine.metrics import per_op, run_qps
from benchdeck.engine.parsers import IostatParser, VmstatParser
from benchdeck.engine.parsers.families import parser_for
from benchdeck.engine.planning.plan import Marks, RunPlan
from benchdeck.engine.profiling.feed import STREAMS as CAPTURE_STREAMS
from benchdeck.engine.profiling.feed import CaptureFeed
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample

# sysbench's last summary line: the run is over, look for its exit code now.
LAST_LINE = "execution time (avg/stddev):"


def now() -> datetime:
    """The time events carry: local, whole seconds."""
    return datetime.now().replace(microsecond=0)


class OutputFeed:
    """Parses the ``bench``, ``vmstat`` and ``iostat`` output of one run; ``emit`` gets the events."""

    def __init__(self, plan: RunPlan, marks: Marks, emit: Callable[[RunEvent], None]):
        self.plan = plan
        self.marks = marks
        self._emit = emit
        self._sb = parser_for(plan.family, plan.bench_argv)
        self._vm = VmstatParser()
        self._io = IostatParser(device=plan.device)
        self.bench: list[BenchInterval] = []
        self.vm: list[VmstatSample] = []
        self.io: list[IostatSample] = []
        self._n_msgs = 0
        self.capture = CaptureFeed(plan, marks, emit)
        self.ended = False  # the benchmark printed its last line

    def feed(self, name: str, lines: list[str]) -> None:
        """Parse new ``lines`` of source ``name`` and emit what they hold."""
        rid, m = self.plan.run_id, self.marks
        if name in CAPTURE_STREAMS:
            self.capture.feed(name, lines)
        elif name == "bench":
            n_skip = len(self._sb.skipped)
            rows = [iv for ln in lines if (iv := self._sb.feed(ln)) is not None]
            ended = getattr(self._sb, "ended", False) or getattr(self._sb, "finished", False)
            if ended or any(LAST_LINE in ln for ln in lines):
                self.ended = True
            self.bench += rows
            new = tuple(r for r in rows if m.bench_t is None or r.t > m.bench_t)
            if len(new) < len(rows):  # reattached: the store has these, a viewer may not
                self._emit(
                    Replayed(rid, bench=tuple(r for r in rows if m.bench_t is not None and r.t <= m.bench_t))
                )
            if new:
                self._emit(BenchBatch(rid, new))
            for msg in self._sb.messages[self._n_msgs :]:
                self._emit(LogLine(rid, self.plan.family, msg.text))
            self._n_msgs = len(self._sb.messages)
            self._skipped("sysbench", self._sb.skipped[n_skip:])
        elif name == "vmstat":
            n_skip = len(self._vm.skipped)
            vrows = [s for ln in lines if (s := self._vm.feed(ln)) is not None]
            self.vm += vrows
            vnew = tuple(s for s in vrows if m.vm_seq is None or s.seq > m.vm_seq)
            if len(vnew) < len(vrows):
                self._emit(
                    Replayed(rid, vm=tuple(s for s in vrows if m.vm_seq is not None and s.seq <= m.vm_seq))
                )
            if vnew:
                self._emit(VmstatBatch(rid, vnew))
            self._skipped("vmstat", self._vm.skipped[n_skip:])
        else:
            n_skip = len(self._io.skipped)
            irows = [s for ln in lines for s in self._io.feed(ln)]
            self.io += irows
            inew = tuple(s for s in irows if _io_is_new(s, m))
            if len(inew) < len(irows):
                self._emit(Replayed(rid, io=tuple(s for s in irows if not _io_is_new(s, m))))
            if inew:
                self._emit(IostatBatch(rid, inew))
            self._skipped("iostat", self._io.skipped[n_skip:])

    def _skipped(self, source: str, rows: Sequence[Any]) -> None:
        if rows:
            self._emit(Skipped(self.plan.run_id, source, tuple(rows)))

    def outcome(self, rc: int | None, cancelled: bool) -> RunFinished | RunFailed | RunCancelled:
        """How the run ended, from the bench's exit code and what was parsed."""
        p = self.plan
        if cancelled:
            return RunCancelled(p.run_id, now())
        summary = self._sb.summary()
        qps = run_qps(summary, p.workload, p.table_size)
        if rc != 0 or qps is None:
            why = "; ".join(m.text for m in self._sb.messages[-3:]) or "no final sysbench summary"
            tool = posixpath.basename(p.bench_argv[0])
            return RunFailed(p.run_id, f"{tool} exited {rc}: {why}", now())
        window = p.duration_s
        dev_rows = [s for s in self.io if p.device is None or s.device == p.device]
        metrics = per_op(qps, self.vm[:window], [s for s in dev_rows if s.seq < window], p.ncpu)
        return RunFinished(p.run_id, summary, qps, metrics, now())


def _io_is_new(s: IostatSample, m: Marks) -> bool:
    if m.io_seq is None or s.seq > m.io_seq:
        return True
    return s.seq == m.io_seq and s.device not in m.io_devices_at_seq
