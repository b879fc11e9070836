"""Compare's Scaling tab (issue 28): QPS against threads on a log2 axis, a line per column with
the base named, the table beside it; SVG snapshots at 80x24 and 160x48, and Triage's flag on
the build whose scale-up fell at the top dop (tests/app/scaling_store.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.triage import TriageScreen
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.scaling_chart import ScalingChart, legend_rows
from benchdeck.tui.app.widgets.wide_table import WideTable
from tests.app.helpers import settle
from tests.app.scaling_store import BASE, DOPS, HOST, PGO, build_scaling_store
from tests.app.snapshot import assert_snapshot


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "store"
    d.mkdir()
    monkeypatch.chdir(d)  # the header shows the store's path relative to here: the same every run
    return build_scaling_store(d / "scaling.duckdb")


SCALING_TAB = ("2", "left_square_bracket")  # Compare, then back from the first tab to the last


async def open_on(app: BenchdeckApp, pilot: Pilot[None], keys: tuple[str, ...] = SCALING_TAB) -> None:
    """The store's two builds selected, then ``keys`` pressed (by default: to the Scaling tab)."""
    await settle(pilot)
    app.selection = Selection(HOST, BASE, (PGO,))
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_scaling_tab(store: Path, tmp_path: Path, size: tuple[int, int]) -> None:
    app = BenchdeckApp(store)
    async with app.run_test(size=size) as pilot:
        await open_on(app, pilot)
        table = app.screen.query_one("#compare-scaling", DataTable)
        assert table.row_count == 2 * (1 + len(DOPS)), "per workload a heading row and a row per dop"
        chart = app.screen.query_one("#scaling-chart", ScalingChart)
        assert chart.curves is not None
        assert [label for label, _ in chart.curves.curves] == [BASE, PGO]
        assert [p.dop for p in chart.curves.curves[0][1]] == list(DOPS)
        assert_snapshot(app, f"compare-scaling-{size[0]}x{size[1]}", tmp_path)


async def test_triage_flags_the_build_that_stops_scaling(store: Path) -> None:
    app = BenchdeckApp(store)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_on(app, pilot, ("3",))
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        flagged = {it.workload: it.scaling for it in screen.items}
        # update-one: 29,000 x 64 x 0.62^6 vs 26,000 x 64 x 0.80^6 -> scale-up 3.64 vs 16.78 at 64
        assert flagged["update-one_range=100"] == "scale-up @64 3.64 vs base 16.78"
        assert flagged["point-query_range=100"] == "scale-up @64 34.01 vs base 53.31"
        table = screen.query_one("#triage-table", DataTable)
        assert "scaling (vs base)" in [str(c.label) for c in table.columns.values()]


async def test_triage_scrolls_to_its_scaling_column_at_100_columns(store: Path, tmp_path: Path) -> None:
    """Issue 38 item 14: at 100 columns the scaling column was cut at the edge and no key showed
    how to reach it; ← → (in the key bar) scroll a column at a time, up to the flags whole."""
    app = BenchdeckApp(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_on(app, pilot, ("3",))
        table = app.screen.query_one("#triage-table", DataTable)
        assert isinstance(table, WideTable)
        assert table.max_scroll_x > 0, "the table is wider than 100 columns"
        await pilot.press("right")
        await pilot.pause()
        assert table.scroll_x == table.column_starts()[1], "→ brings the next column to the left edge"
        await pilot.press("right")
        await pilot.pause()
        assert table.scroll_x == table.max_scroll_x, "a second → shows the scaling column whole"
        assert table.cursor_row == 0, "the row cursor stays"
        assert_snapshot(app, "triage-scaling-scrolled-100x30", tmp_path)


def _strip_texts(chart: ScalingChart) -> list[str]:
    return [strip.text for strip in chart._rendered()]


async def test_the_legend_is_under_the_plot_not_over_its_lines(store: Path) -> None:
    """Issue 38 item 14: plotext's legend sat in the plot's top-left corner, over the lines."""
    app = BenchdeckApp(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_on(app, pilot)
        lines = _strip_texts(app.screen.query_one("#scaling-chart", ScalingChart))
        axis = next(i for i, line in enumerate(lines) if "└" in line)
        named = [i for i, line in enumerate(lines) if BASE in line or PGO in line]
        assert named, lines
        assert all(i > axis for i in named), "a name inside the plot"
        assert any(f"base {BASE}" in line and PGO in line for line in lines[axis + 1 :]), "one line at 100"


async def test_the_scaling_table_scrolls_when_cut(store: Path) -> None:
    """Issue 38 item 14: the table beside the chart was cut at its edge with no key to reach the
    rest; ← → (in the key bar) scroll it a column at a time."""
    app = BenchdeckApp(store)
    async with app.run_test(size=(60, 20)) as pilot:
        await open_on(app, pilot)
        table = app.screen.query_one("#compare-scaling", DataTable)
        assert isinstance(table, WideTable)
        assert table.has_focus
        assert table.max_scroll_x > 0, "the table is wider than its view"
        assert "side(1)" in {b.action for _, b, enabled, _ in app.screen.active_bindings.values() if enabled}
        await pilot.press("right")
        await pilot.pause()
        assert table.scroll_x == min(table.column_starts()[1], table.max_scroll_x) > 0


def test_legend_rows_pack_names_in_order() -> None:
    red, blue = (255, 0, 0), (0, 0, 255)
    assert legend_rows([("base a", red), ("b", blue)], 40) == [[("base a", red), ("b", blue)]]
    assert legend_rows([("base a", red), ("b", blue)], 10) == [[("base a", red)], [("b", blue)]]
    assert legend_rows([], 40) == []
