"""Values no store column can hold: skipped rows with the reason, never a DuckDB error."""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import BenchBatch, VmstatBatch
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.limits import feed_checked, path_problem, record_problem
from benchdeck.store.storage.runs import NewRun, create_run


def vm(seq: int, free: int = 5, us: int = 1) -> VmstatSample:
    return VmstatSample(seq, 1, 0, 0, free, 0, 0, 0, 0, 0, 0, 0, 0, us, 1, 98, 0, 0)


def test_record_problems_name_the_field_and_the_range() -> None:
    assert record_problem(vm(0)) is None
    assert record_problem(vm(0, free=2**63)) == (
        "free 9223372036854775808 is out of range (the store holds 0..9223372036854775807)"
    )
    assert record_problem(vm(0, us=2**31)) == "us 2147483648 is out of range (the store holds 0..2147483647)"
    assert record_problem(vm(0, free=10**400)) == (
        "free a 1329-bit number is out of range (the store holds 0..9223372036854775807)"
    )
    assert record_problem(IostatSample(0, "sda", 1.0, float("inf"), 0.0, 0.0)) == "w_s is not a finite number"
    assert record_problem(BenchInterval(1.0, 4, 1.0)) is None


def test_feed_checked_keeps_the_line_of_a_record_that_does_not_fit() -> None:
    from benchdeck.engine.parsers import VmstatParser

    lines = [
        "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st",
        " 1  0      0   1000      0      0    0    0     0     0    0    0  1  1 98  0  0",
        " 1  0      0   1000      0      0    0    0     0     0    0    0 2147483648  1 98  0  0",
        " 1  0      0   1000      0      0    0    0     0     0    0    0  2  1 97  0  0",
    ]
    kept, bad = feed_checked(VmstatParser().feed, lines)
    assert [s.us for s in kept] == [2]  # the first data row is the since-boot one
    assert [(b.lineno, b.text) for b in bad] == [(4, lines[3])]


def test_path_problem_shows_the_bytes() -> None:
    assert path_problem("/tmp/x.pk1") is None
    why = path_problem(b"/tmp/x\xff.pk1".decode("utf-8", "surrogateescape"))
    assert why == "/tmp/x\\xff.pk1: name is not valid UTF-8; rename it to import it"


def test_live_rows_that_do_not_fit_become_skipped_rows(tmp_path: Path) -> None:
    """A live vmstat row with a counter past 2^63 and an interval with 2^31 threads: the flush
    stores the rest and keeps those two as skipped rows with the reason."""
    with Store.open(tmp_path / "s.duckdb") as store:
        with store.transaction() as cur:
            run_id = create_run(cur, NewRun("h", parse_build_name("my8028_rel"), "scan_range=100", "t"))
        sink = EventSink(store, batch_rows=10**6)
        sink.handle(VmstatBatch(run_id, (vm(0), vm(1, free=2**63), vm(2))))
        sink.handle(BenchBatch(run_id, (BenchInterval(1.0, 2**31, 5.0), BenchInterval(2.0, 8, 5.0))))
        sink.flush()
        cur = store.cursor()
        assert cur.execute("SELECT seq FROM vmstat_samples ORDER BY seq").fetchall() == [(0,), (2,)]
        assert cur.execute("SELECT threads FROM bench_samples").fetchall() == [(8,)]
        rows = cur.execute("SELECT source, lineno, reason FROM skipped_lines ORDER BY source").fetchall()
        assert rows == [
            ("sysbench", 0, "threads 2147483648 is out of range (the store holds 0..2147483647)"),
            (
                "vmstat",
                0,
                "free 9223372036854775808 is out of range (the store holds 0..9223372036854775807)",
            ),
        ]
