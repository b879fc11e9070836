"""EventSink: batches by time and size, flushes before a run's end, records the outcome."""

from datetime import UTC, datetime
from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import (
    BenchBatch,
    LogLine,
    RunCancelled,
    RunFailed,
    RunFinished,
    Skipped,
    VmstatBatch,
)
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary, VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.runs import NewRun, create_run

NOW = datetime(2026, 11, 21, tzinfo=UTC).replace(tzinfo=None)


class Clock:
    """A settable clock: the sink's time batching is tested without sleeping."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _store_with_run(tmp_path: Path) -> tuple[Store, int]:
    store = Store.open(tmp_path / "s.duckdb")
    with store.transaction() as cur:
        rid = create_run(cur, NewRun("h", parse_build_name("my8028_rel"), "insert_range=100", "run"))
    return store, rid


def _count(store: Store, table: str) -> int:
    return int(store.scalar(f"SELECT count(*) FROM {table}"))


def test_samples_are_batched_by_time(tmp_path: Path) -> None:
    store, rid = _store_with_run(tmp_path)
    clock = Clock()
    sink = EventSink(store, batch_time=0.25, batch_rows=1000, clock=clock)
    sink.handle(BenchBatch(rid, (BenchInterval(t=1.0, threads=1, tps=1.0, qps=10.0),)))
    clock.t = 0.1
    sink.handle(BenchBatch(rid, (BenchInterval(t=2.0, threads=1, tps=1.0, qps=11.0),)))
    assert _count(store, "bench_samples") == 0, "not due yet"
    clock.t = 0.3
    sink.handle(LogLine(rid, "stderr", "hello"))
    assert _count(store, "bench_samples") == 2, "a later event flushes what is due"
    assert sink.rows_written == 2


def test_size_threshold_flushes_at_once(tmp_path: Path) -> None:
    store, rid = _store_with_run(tmp_path)
    sink = EventSink(store, batch_time=3600, batch_rows=10, clock=Clock())
    rows = tuple(BenchInterval(t=float(i), threads=1, tps=1.0) for i in range(10))
    sink.handle(BenchBatch(rid, rows))
    assert _count(store, "bench_samples") == 10


def test_finish_flushes_then_records_summary_and_counts(tmp_path: Path) -> None:
    store, rid = _store_with_run(tmp_path)
    sink = EventSink(store, batch_time=3600, batch_rows=10_000, clock=Clock())
    vm = VmstatSample(0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 100, 200, 20, 10, 70, 0, 0)
    sink.handle(VmstatBatch(rid, (vm, vm)))
    sink.handle(Skipped(rid, "vmstat", (SkippedLine(9, "x y z", "too few fields"),)))
    sink.handle(
        RunFinished(rid, SysbenchSummary(qps=1000.0, tps=50.0), 1000.0, PerOp(ops=1000.0, cpu_o=0.03), NOW)
    )
    row = store.con.execute(
        "SELECT r.status, s.qps, s.cpu_o, s.vm_samples FROM runs r JOIN run_summary s USING (run_id)"
    ).fetchone()
    assert row == ("finished", 1000.0, 0.03, 2)
    assert _count(store, "skipped_lines") == 1


def test_failed_and_cancelled_runs_keep_their_samples(tmp_path: Path) -> None:
    store, rid = _store_with_run(tmp_path)
    with store.transaction() as cur:
        rid2 = create_run(cur, NewRun("h", parse_build_name("my8028_rel"), "scan_range=100", "run"))
    sink = EventSink(store, batch_time=3600, clock=Clock())
    sink.handle(BenchBatch(rid, (BenchInterval(t=1.0, threads=1, tps=1.0),)))
    sink.handle(RunFailed(rid, "sysbench exited 1: table sbtest1 does not exist", NOW))
    sink.handle(BenchBatch(rid2, (BenchInterval(t=1.0, threads=1, tps=1.0),)))
    sink.handle(RunCancelled(rid2, NOW))
    assert store.con.execute("SELECT run_id, status, error FROM runs ORDER BY run_id").fetchall() == [
        (rid, "failed", "sysbench exited 1: table sbtest1 does not exist"),
        (rid2, "cancelled", None),
    ]
    assert _count(store, "bench_samples") == 2


async def test_pump_tells_of_a_run_end_once_it_is_written(tmp_path: Path) -> None:
    """``on_event`` sees the end as it arrives (not yet stored); ``on_stored`` once the store
    holds its status, with the writes on a writer thread as the app does them."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from benchdeck.engine.events import RunEvent
    from benchdeck.store.storage.ingest import pump

    store, rid = _store_with_run(tmp_path)
    seen: list[tuple[str, str]] = []

    def status() -> str:
        return str(store.cursor().execute("SELECT status FROM runs WHERE run_id = ?", [rid]).fetchone()[0])

    def arrived(ev: RunEvent) -> None:
        if isinstance(ev, RunFailed):
            seen.append(("arrived", status()))

    def stored(ev: RunEvent) -> None:
        seen.append(("stored", status()))

    queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()
    for ev in (
        BenchBatch(rid, (BenchInterval(t=1.0, threads=1, tps=1.0),)),
        RunFailed(rid, "boom", NOW),
        None,
    ):
        queue.put_nowait(ev)
    with ThreadPoolExecutor(max_workers=1) as writer:
        await pump(queue, EventSink(store, batch_time=3600, clock=Clock()), arrived, writer, stored)
    assert seen == [("arrived", "running"), ("stored", "failed")]


def test_one_flush_stores_every_runs_rows_under_its_own_run(tmp_path: Path) -> None:
    """Many live runs in one flush (one INSERT per table for all of them): each row and
    skipped line lands under its own run."""
    store, first = _store_with_run(tmp_path)
    with store.transaction() as cur:
        others = [
            create_run(cur, NewRun(f"h{i}", parse_build_name("my8028_rel"), "insert_range=100", "run"))
            for i in range(3)
        ]
    runs = [first, *others]
    sink = EventSink(store, batch_time=3600, batch_rows=10**6, clock=Clock())
    for k, rid in enumerate(runs):
        sink.handle(
            BenchBatch(rid, tuple(BenchInterval(t=float(j), threads=k + 1, tps=1.0) for j in range(k + 1)))
        )
        sink.handle(Skipped(rid, "sysbench", (SkippedLine(k, f"junk {k}", "not a line"),)))
    sink.handle(
        VmstatBatch(runs[1], (VmstatSample(0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 100, 200, 20, 10, 70, 0, 0),))
    )
    sink.handle(BenchBatch(runs[2], (BenchInterval(t=9.0, threads=2**31, tps=1.0),)))  # does not fit

    assert sink.flush() == 1 + 2 + 3 + 4 + 1 + 4 + 1
    cur = store.cursor()
    got = cur.execute("SELECT run_id, count(*), max(threads) FROM bench_samples GROUP BY 1 ORDER BY 1")
    assert got.fetchall() == [(rid, k + 1, k + 1) for k, rid in enumerate(runs)]
    assert cur.execute("SELECT run_id FROM vmstat_samples").fetchall() == [(runs[1],)]
    skipped = cur.execute("SELECT run_id, text FROM skipped_lines ORDER BY run_id, lineno").fetchall()
    assert [(r, t) for r, t in skipped if t.startswith("junk")] == [
        (rid, f"junk {k}") for k, rid in enumerate(runs)
    ]
    assert [r for r, t in skipped if not t.startswith("junk")] == [runs[2]], "the 2^31 row, skipped"
