"""Runs' filters: a "since" that is not a date says the format in one line and the other
filters go on working (it froze them, with a red field and no word)."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select, Static

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from tests.app.helpers import column_texts, on_screen, settle, static_text
from tests.app.storedata import OTHER_HOST, Demo


async def test_a_bad_since_says_the_format_and_freezes_nothing(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one("#runs-table", DataTable)
        error = screen.query_one("#runs-since-error", Static)
        assert not error.display
        screen.query_one("#runs-since", Input).value = "yesterday"
        await settle(pilot)
        assert error.display
        assert static_text(error).startswith("since: 'yesterday' is not a date: give it as YYYY-MM-DD")

        screen.query_one("#runs-host", Select).value = OTHER_HOST  # still filters
        await settle(pilot)
        assert set(column_texts(table, 1)) == {OTHER_HOST}
        assert table.row_count == 4

        screen.query_one("#runs-since", Input).value = ""
        await settle(pilot)
        assert not error.display
        assert table.row_count == 4


async def test_a_base_remembered_for_another_store_is_not_shown(demo: Demo) -> None:
    """ui.toml is one for every store: its last comparison (here the built-in builds on
    ``local``) was shown as the base on a store that has no such host."""
    from benchdeck.tui.app.state.settings import SavedComparison, UiSettings, save_ui_settings

    save_ui_settings(UiSettings(comparisons=(SavedComparison("local", None, "sqlite-sync", ("sqlite",)),)))
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        status = static_text(on_screen(app, RunsScreen).query_one("#runs-status", Static))
        assert "sqlite-sync" not in status, status
        assert "no base yet" in status
        assert app.selection.base is None
