"""Ingest engine events into the store in batches (by time and size), never row by row."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass, field

import duckdb

from benchdeck.engine.events import (
    BenchBatch,
    CaptureBatch,
    ClusterBatch,
    ClusterPlanned,
    EndEvent,
    IostatBatch,
    LogLine,
    Phase,
    Planned,
    RawOutputs,
    Recorded,
    Replayed,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
    Skipped,
    StepStarted,
    VmstatBatch,
)
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.profiling.records import CounterWindow, ProfileWindow
from benchdeck.engine.profiling.stream import CaptureGap
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, VmstatSample
from benchdeck.store.storage.captures import append_counters, append_gaps, append_profiles
from benchdeck.store.storage.cluster_rows import (
    ClusterMarks,
    ClusterRows,
    append_cluster,
    cluster_marks,
    fit_cluster,
    save_cluster,
)
from benchdeck.store.storage.cluster_summary import summarize_cluster
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.limits import fit_records
from benchdeck.store.storage.live import save_started, save_step
from benchdeck.store.storage.run_records import save_outputs, save_record
from benchdeck.store.storage.runs import RunSummary, save_per_type, save_summary, set_status
from benchdeck.store.storage.samples import append_many, append_skipped_many
from benchdeck.store.storage.shared_hold import SHARED_HOLD_S, SharedHold


@dataclass
class _Pending:
    bench: list[BenchInterval] = field(default_factory=list)
    vm: list[VmstatSample] = field(default_factory=list)
    io: list[IostatSample] = field(default_factory=list)
    skipped: dict[str, list[SkippedLine]] = field(default_factory=dict)
    counters: list[CounterWindow] = field(default_factory=list)
    profiles: list[ProfileWindow] = field(default_factory=list)
    gaps: list[CaptureGap] = field(default_factory=list)
    cluster: ClusterRows = field(default_factory=ClusterRows)

    def size(self) -> int:
        capture = len(self.counters) + len(self.profiles) + len(self.gaps) + self.cluster.size()
        return len(self.bench) + len(self.vm) + len(self.io) + sum(map(len, self.skipped.values())) + capture


BATCH_TIME_S = 0.1
"""Rows wait at most this long for their flush (the fan-out target: a row stored 250 ms, p99,
after its line was written)."""


class EventSink:
    """Buffers sample events per run; flushes every ``batch_time`` seconds or ``batch_rows`` rows,
    and always before a run's end is recorded. Flushes are one transaction each.

    A shared store (``Store.open(shared=True)``) is held open while flushes come quickly and let
    go for others at times (store/storage/shared_hold.py); it is let go after a ``batch_time`` without
    rows."""

    def __init__(
        self,
        store: Store,
        batch_time: float = BATCH_TIME_S,
        batch_rows: int = 5000,
        clock: Callable[[], float] = time.monotonic,
        plans: dict[int, RunPlan] | None = None,
        hold_s: float = SHARED_HOLD_S,
    ):
        self.store = store
        self.plans = plans if plans is not None else {}
        self.batch_time = batch_time
        self.batch_rows = batch_rows
        self.clock = clock
        self.hold = SharedHold(store, clock, idle_s=batch_time, hold_s=hold_s)
        self._pending: dict[int, _Pending] = {}
        self._cluster_marks: dict[int, ClusterMarks] = {}  # per run: read from the store once
        self._last_flush = clock()
        self.rows_written = 0

    def handle(self, event: RunEvent) -> None:
        self.handle_many((event,))

    def handle_many(self, events: Sequence[RunEvent]) -> None:
        """Events in order; their samples are flushed together when due (the events that queued
        up during a slow flush make one batch, not one flush each)."""
        for event in events:
            self._take(event)
        if self._due():
            self.flush()

    def _take(self, event: RunEvent) -> None:
        match event:
            case BenchBatch(run_id, rows):
                self._buf(run_id).bench.extend(rows)
            case VmstatBatch(run_id, rows):
                self._buf(run_id).vm.extend(rows)
            case IostatBatch(run_id, rows):
                self._buf(run_id).io.extend(rows)
            case CaptureBatch(run_id, counters, profiles, gaps):
                buf = self._buf(run_id)
                buf.counters.extend(counters)
                buf.profiles.extend(profiles)
                buf.gaps.extend(gaps)
            case ClusterBatch(run_id, lag, vm, io, faults):
                rows_of = self._buf(run_id).cluster
                rows_of.lag.extend(lag)
                rows_of.vm.extend(vm)
                rows_of.io.extend(io)
                rows_of.faults.extend(faults)
            case ClusterPlanned(run_id, cluster):
                with self._transaction() as cur:
                    save_cluster(cur, run_id, cluster)
            case Skipped(run_id, source, rows):
                self._buf(run_id).skipped.setdefault(source, []).extend(rows)
            case Planned(run_id, plan):
                self.plans[run_id] = plan
            case RunStarted():
                if self.plans and event.run_id in self.plans:
                    with self._transaction() as cur:
                        save_started(cur, event, self.plans[event.run_id])
            case Recorded(run_id, record):
                with self._transaction() as cur:
                    save_record(cur, run_id, record)
            case RawOutputs(run_id, files):
                with self._transaction() as cur:
                    save_outputs(cur, run_id, files)
            case StepStarted():
                if event.run_id in self.plans:
                    with self._transaction() as cur:
                        save_step(cur, event, self.plans[event.run_id])
            case LogLine() | Phase() | Replayed():
                pass
            case RunFinished() | RunFailed() | RunCancelled():
                self.flush()
                self._end(event)

    @contextmanager
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A transaction of the sink: a shared store stays held across a burst of them (128
        runs starting at once were 128 opens of the file)."""
        self.hold.before_write()
        with self.store.transaction() as cur:
            yield cur
        self.hold.after_write()

    def _buf(self, run_id: int) -> _Pending:
        return self._pending.setdefault(run_id, _Pending())

    def _due(self) -> bool:
        size = sum(p.size() for p in self._pending.values())
        return size >= self.batch_rows or (size > 0 and self.clock() - self._last_flush >= self.batch_time)

    def time_to_due(self) -> float | None:
        """Seconds until buffered rows are due for a flush or the shared store's hold changes;
        ``None`` when there is neither."""
        now = self.clock()
        hold = self.hold.next_wakeup()
        if any(p.size() for p in self._pending.values()):
            due = max(0.0, self.batch_time - (now - self._last_flush))
            return due if hold is None else min(due, hold)
        return hold

    def flush_if_due(self) -> int:
        """Flush when the oldest buffered row has waited ``batch_time``, else let go of or take
        up the shared store's hold as it is due; call it on a timer."""
        if self._due():
            return self.flush()
        self.hold.tick(idle=not any(p.size() for p in self._pending.values()))
        return 0

    def flush(self) -> int:
        """Write everything buffered; returns the number of rows written."""
        pending = self._pending
        self._last_flush = self.clock()
        if not pending:
            return 0
        # One append per table for all runs: a statement costs about the same whatever its
        # size, so one per run and table made a flush grow with the number of live runs.
        bench: list[tuple[int, list[BenchInterval]]] = []
        vm: list[tuple[int, list[VmstatSample]]] = []
        io: list[tuple[int, list[IostatSample]]] = []
        skipped: list[tuple[int, str, list[SkippedLine]]] = []
        cluster_rows: dict[int, ClusterRows] = {}  # (the bad rows are not kept: a retry refits them)
        for run_id, p in pending.items():
            # a value no column can hold is a skipped row, not a failed flush
            good_bench, bad_bench = fit_records(p.bench)
            good_vm, bad_vm = fit_records(p.vm)
            good_io, bad_io = fit_records(p.io)
            bench.append((run_id, good_bench))
            vm.append((run_id, good_vm))
            io.append((run_id, good_io))
            bad = {"sysbench": bad_bench, "vmstat": bad_vm, "iostat": bad_io}
            if p.cluster.size():
                fitted, bad_cluster = fit_cluster(p.cluster)
                cluster_rows[run_id] = fitted
                bad.update(bad_cluster)
            sources = {*p.skipped, *(source for source, rows in bad.items() if rows)}
            for source in sorted(sources):  # the bad rows are not kept in p: a retry refits them
                skipped.append((run_id, source, [*p.skipped.get(source, ()), *bad.get(source, ())]))
        with self._transaction() as cur:
            n = append_many(cur, "bench", bench)
            n += append_many(cur, "vmstat", vm)
            n += append_many(cur, "iostat", io)
            n += append_skipped_many(cur, skipped)
            n += append_counters(cur, [(rid, p.counters) for rid, p in pending.items()])
            n += append_profiles(cur, [(rid, p.profiles) for rid, p in pending.items()])
            n += append_gaps(cur, [(rid, p.gaps) for rid, p in pending.items()])
            cluster, marks = self._new_cluster_rows(cur, cluster_rows)
            n += append_cluster(cur, cluster)
        # Only once committed: a failed write (a store held too long by another process) keeps
        # the rows for the next flush.
        self._pending = {}
        self._cluster_marks.update(marks)
        self.rows_written += n
        return n

    def _new_cluster_rows(
        self, cur: duckdb.DuckDBPyConnection, pending: dict[int, ClusterRows]
    ) -> tuple[list[tuple[int, ClusterRows]], dict[int, ClusterMarks]]:
        """The pending cluster rows the store does not hold yet (a reattached run's nodes are read
        again from their start), and the marks past them: kept once the flush commits."""
        out: list[tuple[int, ClusterRows]] = []
        after: dict[int, ClusterMarks] = {}
        for run_id, rows in pending.items():
            known = self._cluster_marks.get(run_id)
            marks = copy.deepcopy(known) if known is not None else cluster_marks(cur, run_id)
            out.append((run_id, marks.keep(rows)))
            after[run_id] = marks
        return out, after

    def close(self) -> int:
        """Write everything buffered and let go of a held store (the end of the events)."""
        n = self.flush()
        self.hold.close()
        return n

    def _end(self, event: RunFinished | RunFailed | RunCancelled) -> None:
        with self._transaction() as cur:
            if isinstance(event, RunFinished):
                s = event.summary
                counts = cur.execute(
                    "SELECT (SELECT count(*) FROM bench_samples WHERE run_id = $r), "
                    "(SELECT count(*) FROM vmstat_samples WHERE run_id = $r), "
                    "(SELECT count(*) FROM iostat_samples WHERE run_id = $r)",
                    {"r": event.run_id},
                ).fetchone()
                nb, nv, ni = counts if counts else (0, 0, 0)
                save_summary(cur, event.run_id, RunSummary.of(s, event.qps, event.per_op, (nb, nv, ni)))
                if s.per_type:
                    save_per_type(cur, event.run_id, s.per_type)
                set_status(cur, event.run_id, "finished", finished_at=event.finished_at)
            elif isinstance(event, RunFailed):
                set_status(cur, event.run_id, "failed", error=event.error, finished_at=event.finished_at)
            else:
                set_status(cur, event.run_id, "cancelled", finished_at=event.finished_at)
            plan = self.plans.get(event.run_id)
            qps = event.qps if isinstance(event, RunFinished) else None
            summarize_cluster(cur, event.run_id, qps, plan.duration_s if plan is not None else None)


async def pump(
    queue: asyncio.Queue[RunEvent | None],
    sink: EventSink,
    on_event: Callable[[RunEvent], None] | None = None,
    writer: Executor | None = None,
    on_stored: Callable[[RunEvent], None] | None = None,
) -> None:
    """Feed events from ``queue`` into ``sink`` until a ``None`` arrives; flush on time.

    Sleeps until the next event or the next due flush, never on a fixed poll. With ``writer``
    (a one-thread executor) the DuckDB writes happen there, off the event loop's thread.
    ``on_event`` sees each event as it arrives; ``on_stored`` sees a run's end once it is
    written (its summary and status can be read back).
    """
    loop = asyncio.get_running_loop()

    async def call(fn: Callable[..., object], *args: object) -> None:
        if writer is None:
            fn(*args)
        else:
            await loop.run_in_executor(writer, fn, *args)

    while True:
        wait = sink.time_to_due()
        try:
            ev = await (queue.get() if wait is None else asyncio.wait_for(queue.get(), wait))
        except TimeoutError:
            await call(sink.flush_if_due)
            continue
        # What queued up meanwhile (the writer was flushing) is handed over at once: one flush
        # takes it all, so batches grow when writes are slow instead of falling behind.
        events: list[RunEvent | None] = [ev]
        while events[-1] is not None and not queue.empty():
            events.append(queue.get_nowait())
        batch = [e for e in events if e is not None]
        if on_event is not None:
            for e in batch:
                on_event(e)
        if batch:
            await call(sink.handle_many, batch)
        if on_stored is not None:
            for e in batch:
                if isinstance(e, EndEvent):
                    on_stored(e)
        if events[-1] is None:
            await call(sink.close)
            return
