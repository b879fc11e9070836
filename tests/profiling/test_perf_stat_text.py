"""perf stat's human output (hand-written files in its exact layout: this VM counts no hardware
events) into counter windows: several windows per file, not supported / not counted kept as
missing, multiplexed counters with their running share, perf's comments not read as counts."""

from __future__ import annotations

from datetime import datetime

from benchdeck.engine.profiling.perf_stat_text import parse_perf_stat_text
from tests.fixtures.cli_helpers import ROOT

DATA = ROOT / "tests" / "data" / "perf_stat"


def test_windows_of_one_file_with_every_kind_of_line() -> None:
    got = parse_perf_stat_text((DATA / "sb.perf.hw.point-query.range100.pk1.1").read_text(), first_window=8)
    assert [w.window for w in got.windows] == [8, 9, 10]
    assert got.started[0] == datetime(2025, 1, 8, 10, 0, 40)
    assert got.skipped == ()
    assert got.incomplete == 0
    w1 = {r.event: r for r in got.windows[0].readings}
    assert got.windows[0].seconds == 10.001234567
    assert got.windows[0].target == "pid 4242"
    assert w1["cpu-clock"].value == 5120.5
    assert w1["cpu-clock"].unit == "msec"
    assert w1["cycles"].value == 12e9
    assert w1["cycles"].running_pct == 50.0
    assert w1["branches"].running_pct is None  # ran the whole window
    assert (w1["bus-cycles"].value, w1["bus-cycles"].status) == (None, "not supported")
    assert "stalled" not in " ".join(w1)  # the comment line is perf's derived metric, not an event
    w2 = {r.event: r for r in got.windows[1].readings}
    assert (w2["stalled-cycles-backend"].value, w2["stalled-cycles-backend"].status) == (None, "not counted")
    assert w2["stalled-cycles-backend"].running_pct == 0.0
    assert w2["cache-misses"].value == 75e6
    assert {r.event for r in got.windows[2].readings} >= {"L1-icache-loads-misses", "major-faults"}
    assert {r.event: r.value for r in got.windows[2].readings}["major-faults"] == 0.0  # counted zero


def test_a_window_cut_off_by_a_killed_perf_is_dropped_and_counted() -> None:
    got = parse_perf_stat_text((DATA / "sb.perf.hw.point-query.range100.pk1.2").read_text())
    assert len(got.windows) == 2
    assert got.incomplete == 1


def test_other_targets_locales_and_unknown_lines() -> None:
    text = (
        " Performance counter stats for 'system wide':\n\n"
        "           1234      context-switches:u\n"
        "          oops what\n"
        "       1.5 seconds time elapsed\n"
        "stray line\n"
    )
    got = parse_perf_stat_text(text)
    (w,) = got.windows
    assert w.target == "all"
    assert w.readings[0].value == 1234.0
    assert w.readings[0].event == "context-switches:u"
    assert [n for n, _ in got.skipped] == [4, 6]
