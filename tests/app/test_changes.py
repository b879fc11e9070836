"""Changes: per workload group, where QPS changed across versions, the chart with the change
marked; reachable from Triage (``c``), its key (``6``) and the palette."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Select, Static

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.commands import BenchdeckCommands
from benchdeck.tui.app.screens.changes import ChangesScreen
from benchdeck.tui.app.screens.triage import TriageScreen
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.change_chart import ChangeChart
from tests.app.helpers import column_texts, on_screen, settle
from tests.app.snapshot import assert_snapshot
from tests.app.storedata import Demo
from tests.changes.post_series import HOST, write_store

SIZE = (120, 36)


@pytest.fixture(scope="module")
def post_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("post") / "post.duckdb"
    write_store(path, repeats=3, noise=0.01)
    return path


@pytest.fixture
def post(post_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the store in the working directory (the header shows it relative to it)."""
    d = tmp_path / "post"
    d.mkdir()
    shutil.copy2(post_template, d / "post.duckdb")
    monkeypatch.chdir(d)
    return d / "post.duckdb"


async def test_changes_per_group_with_the_chart_of_the_highlighted_row(post: Path) -> None:
    app = BenchdeckApp(post)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        screen = on_screen(app, ChangesScreen)
        assert screen.request.host == HOST
        table = screen.query_one("#changes-table", DataTable)
        head = str(screen.query_one("#changes-head", Static).render())
        assert head.startswith("28 of 42 series changed (p <= 0.001, magnitude > 5%)")
        groups = column_texts(table, 0)
        assert groups == sorted(groups, key=groups.index)  # each group's rows together
        workloads = column_texts(table, 1)
        ui = workloads.index("update-index_range=100")
        assert column_texts(table, 2)[ui] == "8.0.28 -> 8.0.30"
        assert column_texts(table, 3)[ui] == "-15.6%"
        assert column_texts(table, 5)[ui] == "cpu/o x1.20  cs/o x1.16  wKB/o x1.42"

        for _ in range(ui):
            await pilot.press("down")
        await settle(pilot)
        chart = screen.query_one("#changes-chart", ChangeChart)
        assert chart.result is not None
        assert chart.result.series.workload == "update-index_range=100"
        assert chart.selected == 1  # the change between point 0 (8.0.28) and 1 (8.0.30)
        assert chart.builds >= 1

        await pilot.press("o")  # over time: every workload's runs are of five builds, one each
        await settle(pilot)
        assert screen.request.over == "time"
        assert screen.query_one("#changes-over", Select).value == "time"
        assert table.row_count == 0  # 3 runs per build: too few points for a time series
        await pilot.press("o")
        await settle(pilot)
        assert screen.request.over == "version"
        assert table.row_count == len(screen.rows) > 0


async def test_reached_from_triage_and_the_palette(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.selection = Selection("beelink", None, ())
        await pilot.press("3")
        await settle(pilot)
        on_screen(app, TriageScreen)
        await pilot.press("c")
        await settle(pilot)
        screen = on_screen(app, ChangesScreen)
        assert screen.request.host == "beelink"  # Triage's host
        # the demo store has two MySQL versions per line: nothing to detect, and it says why
        assert "no series with 3 or more versions" in str(screen.query_one("#changes-head", Static).render())
        await pilot.press("h")  # the other host
        await settle(pilot)
        assert screen.request.host == "dell32"

        names = [name for name, _help, _cb in BenchdeckCommands(app.screen).commands()]
        assert "Changes" in names
        assert "Changes: Versions/time" in names


async def test_snapshot(post: Path, tmp_path: Path) -> None:
    app = BenchdeckApp(post)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        for _ in range(3):
            await pilot.press("down")
        await settle(pilot)
        assert_snapshot(app, "changes-120x36", tmp_path)


async def test_at_60_columns_the_head_is_two_lines_under_the_choices(demo: Demo, tmp_path: Path) -> None:
    """Issue 38 item 14: at 60x20 the head wrapped into a column 15 cells wide (18 lines, the
    builds left out named); under the choices it takes the whole width, in two lines at most."""
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        head = on_screen(app, ChangesScreen).query_one("#changes-head", Static)
        assert head.region.height <= 2
        assert head.region.width >= 58
        assert "3 builds left out" in str(head.content)
        assert_snapshot(app, "changes-60x20", tmp_path)
