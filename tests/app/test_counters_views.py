"""The app's Counters tab (Compare) and Triage's counters that moved most, on a store whose two
runs have perf stat windows (written through the store's own writer)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static, TabbedContent

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.profiling.records import CounterReading, CounterWindow
from benchdeck.store.analysis.counters_per_op import CounterRow
from benchdeck.store.importers.perf_files import save_counter_windows
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.compare import CompareScreen
from benchdeck.tui.app.screens.triage import TriageScreen, rank
from benchdeck.tui.app.state.selection import Selection
from tests.app.helpers import column_texts, settle, static_text
from tests.app.test_triage import _cmp

BASE, NEW = "my8028_rel_o2nofp", "my8040_rel_o2nofp"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Two runs of one workload: NEW is 20% slower and runs 1.5x the instructions per query."""
    path = tmp_path / "s.duckdb"
    with Store.open(path) as s:
        for build, qps, instructions in ((BASE, 1000.0, 1e8), (NEW, 800.0, 1.2e8)):
            with s.transaction() as cur:
                rid = create_run(cur, NewRun("h", parse_build_name(build), "point-query_range=100", "test"))
                save_summary(cur, rid, RunSummary(qps=qps))
                readings = (
                    CounterReading("cycles", 1e8),
                    CounterReading("instructions", instructions),
                    CounterReading("bus-cycles", None, status="not supported"),
                )
                save_counter_windows(cur, rid, [CounterWindow(1, 10.0, readings)], "test")
                set_status(cur, rid, "finished")
    return path


async def counters_tab(app: BenchdeckApp, pilot: Pilot[None]) -> str:
    """Compare's Counters tab of BASE vs NEW on host h: its text."""
    await settle(pilot)
    app.selection = Selection("h", BASE, (NEW,))
    await pilot.press("2")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    screen.query_one("#compare-tabs", TabbedContent).active = "tab-counters"
    await settle(pilot)
    return static_text(screen.query_one("#compare-counters", Static))


async def test_counters_tab_and_triage(store_path: Path) -> None:
    app = BenchdeckApp(store_path)
    async with app.run_test(size=(110, 36)) as pilot:
        text = await counters_tab(app, pilot)
        assert "instructions" in text
        assert "1.50" in text  # 1.2e8 / 8,000 queries vs 1e8 / 10,000
        assert "n/s" in text  # bus-cycles: <not supported>, not 0 and not "not counted"
        assert "n/c" not in text.replace("n/c = not counted", "")

        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, TriageScreen)
        table = app.screen.query_one("#triage-table", DataTable)
        assert column_texts(table, 4) == ["instructions x1.50  cycles x1.25  ipc x1.20"]


async def test_counters_tab_without_counters_names_both_ways_to_get_them(tmp_path: Path) -> None:
    """It named only the imports (``--perf-stat``), not ``run --profile counters``."""
    path = tmp_path / "plain.duckdb"
    with Store.open(path) as s:
        for build, qps in ((BASE, 1000.0), (NEW, 800.0)):
            with s.transaction() as cur:
                rid = create_run(cur, NewRun("h", parse_build_name(build), "point-query_range=100", "test"))
                save_summary(cur, rid, RunSummary(qps=qps))
                set_status(cur, rid, "finished")
    app = BenchdeckApp(path)
    async with app.run_test(size=(110, 36)) as pilot:
        text = " ".join((await counters_tab(app, pilot)).split())
        assert "capture them with run or queue --profile counters" in text, text
        assert "--perf-stat FILE" in text, text


def test_rank_lists_the_counters_that_moved_most() -> None:
    rows = tuple(
        CounterRow("w", None, "b", name, 1.0, rel, 1)
        for name, rel in (
            ("ipc", 0.8),
            ("instructions", 1.1),
            ("cycles", 1.0),
            ("bus-cycles", None),
            ("l1i-mpki", 2.0),
        )
    )
    cmp = dataclasses.replace(_cmp({"cpu/o": 1.5}), counters=rows)
    (item,) = rank(cmp)
    assert item.counters_text() == "l1i-mpki x2.00  ipc x0.80  instructions x1.10"  # no software events
    assert item.line().endswith("cpu/o x1.50  l1i-mpki x2.00  ipc x0.80  instructions x1.10")
