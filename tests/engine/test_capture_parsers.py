"""The capture's parsers on hand-written files in perf's exact output formats (this VM counts
only software events: hardware readings, multiplexing and ``<not counted>`` are written by
hand, from perf-stat.txt's CSV FORMAT and perf 6.1's own output)."""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.profiling import perfstat_csv
from benchdeck.engine.profiling.fold import fold
from benchdeck.engine.profiling.records import CounterReading, CounterWindow, ProfileWindow
from benchdeck.engine.profiling.stream import CaptureGap, CaptureParser

DATA = Path(__file__).parent.parent / "data" / "perf"


def test_x_comma_keeps_missing_as_none_and_multiplexed_scaled_with_running_pct() -> None:
    got = {r.event: r for r in perfstat_csv.parse((DATA / "stat_x.csv").read_text())}
    assert got["task-clock"] == CounterReading("task-clock", 10008.42, "msec", None, "counted")
    assert got["context-switches"].value == 41237
    # perf already scaled a multiplexed count (x enabled/running): kept as printed, with its share
    assert got["cycles"] == CounterReading("cycles", 30518477431.0, "", 50.0, "counted")
    assert got["iTLB-load-misses"].running_pct == 25.0
    assert got["branches"] == CounterReading("branches", None, "", None, "not counted")
    assert got["L1-icache-load-misses"] == CounterReading(
        "L1-icache-load-misses", None, "", None, "not supported"
    )
    assert len(got) == 9


def test_x_comma_interval_lines_drop_the_timestamp() -> None:
    got = perfstat_csv.parse((DATA / "stat_interval_x.csv").read_text())
    assert got == (
        CounterReading("task-clock", 1001.20, "msec"),
        CounterReading("cycles", None, "", None, "not supported"),
    )


def test_fold_as_stackcollapse_root_first_without_offsets() -> None:
    stacks = fold((DATA / "script.txt").read_text().splitlines())
    idx = "ha_innobase::index_read"  # the argument list dropped, as stackcollapse-perf.pl drops it
    assert stacks == {
        f"mariadbd;[libc.so.6];{idx};row_search_mvcc;btr_cur_search_to_nth_level": 2,
        "mariadbd;[unknown];link_path_walk": 1,
    }


def test_stream_emits_a_window_only_at_its_end_line_and_keeps_gaps() -> None:
    p = CaptureParser("counters")
    lines = [
        "# window 0 start=0.000 seconds=10.004 target=pids 812,901",
        *(DATA / "stat_x.csv").read_text().splitlines(),
    ]
    assert [p.feed(ln) for ln in lines] == [None] * len(lines), "no window before its end line"
    w = p.feed("# end 0")
    assert isinstance(w, CounterWindow)
    assert (w.window, w.start_s, w.seconds, w.target, len(w.readings)) == (0, 0.0, 10.004, "pids 812,901", 9)
    gap = p.feed("# gap 1 start=10.100 reason=perf killed by signal 9")
    assert gap == CaptureGap("counters", 1, 10.1, "perf killed by signal 9")
    # a window cut by a killed loop (no end line) is never emitted half
    assert p.feed("# window 2 start=20.000 seconds=10.000 target=pids 1") is None
    assert p.feed("# window 3 start=30.000 seconds=10.000 target=pids 1") is None
    assert p.feed("# end 2") is None


def test_stream_cpu_windows_hold_folded_stacks() -> None:
    p = CaptureParser("cpu", "cpu-clock", 99.0)
    for ln in ("# window 4 start=40.000 seconds=10.000 target=pids 7", "a;b;c d 12", "a;b 3"):
        assert p.feed(ln) is None
    w = p.feed("# end 4")
    assert w == ProfileWindow(4, 10.0, "cpu-clock", 99.0, (("a;b;c d", 12), ("a;b", 3)), 40.0, "pids 7")
