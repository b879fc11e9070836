"""perf stat counters of imported runs: the mytools ``sb.perf.hw.*`` files stored with their
step's run (not counted = NULL, never 0), per operation and as ratios in compare, from the
queries of each window's own seconds when the run has per-second samples."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.profiling.records import CounterReading, CounterWindow
from benchdeck.engine.records import BenchInterval
from benchdeck.store.analysis.compare import Comparison, compare
from benchdeck.store.analysis.counters_per_op import CounterRow, CounterValue, ratios
from benchdeck.store.importers import import_mytools_tree
from benchdeck.store.importers.perf_files import read_perf_stat, save_counter_windows
from benchdeck.store.reports.compare_report import render_text
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.samples import append_bench
from tests.fixtures.cli_helpers import ROOT
from tests.store import mytools_tree as t

HOST = "dell16"
PERF = ROOT / "tests" / "data" / "perf_stat"
STEP = "point-query.range100.pk1"
SECS1, SECS2, SECS3 = 10.001234567, 10.0011, 10.0009  # the fixture's windows' lengths


def _add_perf(tree: Path) -> None:
    """Folder A: both rounds and the author's derived copies (.raw/.sorted, not read); folder
    B: round 1 only, with 11.4e9 instructions instead of 9.6e9."""
    a, b = t.folder(tree, t.A), t.folder(tree, t.B)
    for n in (1, 2):
        shutil.copy(PERF / f"sb.perf.hw.{STEP}.{n}", a)
    (a / f"sb.perf.hw.{STEP}.1.raw").write_text("instructions\t1\n")
    (a / f"sb.perf.hw.{STEP}.1.sorted").write_text("instructions\t1\n")
    text = (PERF / f"sb.perf.hw.{STEP}.1").read_text()
    (b / f"sb.perf.hw.{STEP}.1").write_text(text.replace("9,600,000,000", "11,400,000,000"))


def _compare(store: Store) -> Comparison:
    cat = default_catalogue()
    return compare(
        store.cursor(), host=HOST, base=t.A, with_builds=[t.B], group_of=cat.group_of,
        sort_key=cat.sort_key, intervals=False,
    )  # fmt: skip


def _rows(cmp: Comparison, column: str) -> dict[str, CounterRow]:
    return {
        r.counter: r for r in cmp.counters if r.column == column and r.workload == "point-query_range=100"
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The tree imported once without perf files, then again with them: the second import
    finds every run already stored and still attaches the files (as for a tree imported
    before this feature, or an import stopped after its runs)."""
    root = tmp_path_factory.mktemp("counters")
    tree = t.write_tree(root / "tree")
    s = Store.open(root / "s.duckdb")
    first = import_mytools_tree(s, tree, HOST)
    assert first.perf_windows == 0
    _add_perf(tree)
    again = import_mytools_tree(s, tree, HOST)
    assert again.already == len(first.run_ids)
    assert (again.perf_runs, again.perf_windows) == (2, 5 + 3)  # A: 3 + 2 (one cut off), B: 3
    assert any("cut off" in w for w in again.warnings)
    assert import_mytools_tree(s, tree, HOST).perf_windows == 0  # nothing stored twice
    return s


def test_not_counted_is_stored_as_null_with_its_reason(store: Store) -> None:
    with store.reading() as cur:
        rows = cur.execute(
            "SELECT event, value, status, running_pct FROM counter_values "
            "WHERE event IN ('bus-cycles', 'stalled-cycles-backend', 'major-faults', 'cycles') "
            "AND run_id = (SELECT min(run_id) FROM counter_values) AND window_no <= 3 ORDER BY event"
        ).fetchall()
        raw = cur.execute("SELECT name FROM raw_files WHERE kind = 'perf_stat' ORDER BY name").fetchall()
        view = cur.execute(
            "SELECT build, workload, dop, count(*), count(value), any_value(status) FROM counter_series "
            "WHERE event = 'bus-cycles' GROUP BY ALL ORDER BY build"
        ).fetchall()
    assert rows == [
        ("bus-cycles", None, "not supported", None),
        ("cycles", 12e9, "counted", 50.0),
        ("major-faults", 0.0, "counted", None),
        ("stalled-cycles-backend", None, "not counted", 0.0),
    ]
    assert view == [  # the view a DuckDB CLI user reads: A has 2 such windows, B 1, none counted
        (t.A, "point-query_range=100", t.DOP, 2, 0, "not supported"),
        (t.B, "point-query_range=100", t.DOP, 1, 0, "not supported"),
    ]
    assert [r[0] for r in raw] == [f"sb.perf.hw.{STEP}.1", f"sb.perf.hw.{STEP}.1", f"sb.perf.hw.{STEP}.2"]


def test_per_operation_values_and_ratios_from_the_run_qps(store: Store) -> None:
    cmp = _compare(store)
    a, b = _rows(cmp, t.A), _rows(cmp, t.B)
    qa = t.MET["point-query"][t.A][0]  # imported runs without per-second samples: their QPS
    qb = t.MET["point-query"][t.B][0]
    instr_a = (9.6e9 + 9.66e9) / (qa * 2 * SECS1)
    assert a["instructions"].value == pytest.approx(instr_a)
    assert a["instructions"].windows == 2
    assert a["ipc"].value == pytest.approx((9.6e9 + 9.66e9) / (12e9 + 12.6e9))
    assert a["cache-miss-pct"].value == pytest.approx(100 * (75e6 + 90e6) / 3e9)
    assert a["branch-miss-pct"].value == pytest.approx(100 * 120e6 / 4e9)
    assert a["l1i-mpki"].value == pytest.approx(1000 * 48e6 / (qa * SECS3) / instr_a)
    instr_b = 11.4e9 / (qb * SECS1)
    assert b["instructions"].rel == pytest.approx(instr_b / instr_a)
    assert (a["bus-cycles"].value, a["bus-cycles"].windows, b["bus-cycles"].rel) == (None, 0, None)
    assert (a["stalled-cycles-backend"].value, a["stalled-cycles-backend"].windows) == (None, 0)
    assert a["cpu-clock"].unit == "msec"
    assert [r.counter for r in cmp.counters[:4]] == ["ipc", "branch-miss-pct", "l1i-mpki", "cache-miss-pct"]
    text = render_text(cmp)
    assert "\nCounters: per operation" in text
    # never 0, and why: <not supported> (no such counter on this CPU or VM) is not <not counted>
    assert "\nbus-cycles\tn/s\tn/s\t-" in text
    assert "\nstalled-cycles-backend\tn/c\t" in text
    assert "n/s = not supported (the CPU or VM has no such counter), n/c = not counted" in text
    assert (a["bus-cycles"].missing, a["stalled-cycles-backend"].missing) == ("not supported", "not counted")


def test_csv_and_json_say_why_a_counter_has_no_value(store: Store) -> None:
    from benchdeck.store.reports.counters_report import CSV_HEADER, json_rows, status

    cmp = _compare(store)
    a = _rows(cmp, t.A)
    assert CSV_HEADER[-1] == "status"
    got = {n: status(a[n]) for n in ("instructions", "bus-cycles", "stalled-cycles-backend")}
    assert got == {
        "instructions": "counted",
        "bus-cycles": "not supported",
        "stalled-cycles-backend": "not counted",
    }
    rows = json_rows(cmp, lambda v: v, lambda _c, lab: {"column": lab})
    bus = next(r for r in rows if r["counter"] == "bus-cycles" and r["column"] == t.A)
    assert (bus["value"], bus["status"]) == (None, "not supported")


def test_windows_take_the_queries_of_their_own_seconds(tmp_path: Path) -> None:
    """Per-second samples of 100 QPS for 10 s, then 300: a 10 s window from second 10 made
    3,000 queries (the run's QPS, 200, would say 2,000); a window the samples do not cover
    falls back to the run's QPS."""
    cat = default_catalogue()
    with Store.open(tmp_path / "s.duckdb") as s:
        for build in ("b1_rel", "b2_rel"):
            with s.transaction() as cur:
                rid = create_run(
                    cur,
                    NewRun(
                        "h",
                        parse_build_name(build, dbms="mysql", version="8.0.1"),
                        "point-query_range=100",
                        "test",
                    ),
                )
                save_summary(cur, rid, RunSummary(qps=200.0))
                append_bench(
                    cur,
                    rid,
                    [
                        BenchInterval(t=float(i), threads=1, tps=1.0, qps=100.0 if i <= 10 else 300.0)
                        for i in range(1, 21)
                    ],
                )
                reading = (CounterReading("instructions", 6e6),)
                save_counter_windows(cur, rid, [CounterWindow(1, 10.0, reading, start_s=10.0)], "test")
                save_counter_windows(cur, rid, [CounterWindow(2, 10.0, reading, start_s=None)], "test")
                set_status(cur, rid, "finished")
        cmp = compare(
            s.cursor(),
            host="h",
            base="b1_rel",
            with_builds=["b2_rel"],
            group_of=cat.group_of,
            sort_key=cat.sort_key,
            intervals=False,
        )
    instr = next(r for r in cmp.counters if r.counter == "instructions" and r.column == "b1_rel")
    assert instr.value == pytest.approx(12e6 / (3000 + 2000))
    assert instr.windows == 2


def test_windows_are_placed_on_the_run_clock_only_inside_the_run() -> None:
    """A window whose ``# started on`` falls inside the run gets its start (its queries then
    come from the samples of those seconds); one outside (another clock) keeps None."""
    files = [PERF / f"sb.perf.hw.{STEP}.1"]
    inside = read_perf_stat(files, datetime(2025, 1, 8, 10, 0, 0), elapsed_s=300.0)
    assert [w.start_s for w in inside.windows] == [40.0, 52.0, 64.0]
    outside = read_perf_stat(files, datetime(2025, 1, 8, 11, 0, 0), elapsed_s=300.0)
    assert [w.start_s for w in outside.windows] == [None, None, None]
    assert read_perf_stat(files, datetime(2025, 1, 8, 10, 0, 0), elapsed_s=50.0).windows[2].start_s is None


def test_ratios_of_qualified_event_names() -> None:
    """perf prints ``cycles:u`` for ``-e cycles:u`` and ``cpu_core/cycles/`` on a hybrid CPU."""
    vals = {"cpu_core/instructions/": CounterValue(300.0, 2), "cycles:u": CounterValue(200.0, 3)}
    assert ratios(vals) == {"ipc": CounterValue(1.5, 2)}
