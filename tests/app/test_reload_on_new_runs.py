"""Screens that read the store follow runs started from the app: no `r` needed.

A real built-in run (SQLite, 2 s) on the ``local`` host of a private inventory: the Runs screen
that is showing reloads when the run is stored; one that is not showing reloads when shown next.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from tests.app.helpers import column_texts, on_screen
from tests.app.test_launch_live import (
    RUN_WAIT_S,
    SIZE,
    UI_WAIT_S,
    inventory,
    outcome,
    start_one_run,
    wait_for,
)

__all__ = ["inventory"]  # the fixture: only the ``local`` host, in the test's tmp dir


def run_ids(app: BenchdeckApp) -> list[str]:
    return column_texts(app.screen.query_one("#runs-table", DataTable), 0)


async def test_runs_screen_follows_runs_started_from_the_app(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await start_one_run(pilot, seconds=2)  # Runs exists (the first screen) but is hidden
        first = await outcome(pilot, app, within=RUN_WAIT_S)
        await pilot.press("1")
        on_screen(app, RunsScreen)
        await wait_for(
            pilot, lambda: run_ids(app) == [str(first.run_id)], "the run on the Runs screen", UI_WAIT_S
        )

        await pilot.press("4")  # Launch: the same one-run matrix again
        await start_one_run(pilot, seconds=2)
        await pilot.press("1")  # watch Runs while the second run goes on: it appears by itself
        runs = on_screen(app, RunsScreen)
        await wait_for(pilot, lambda: len(app.hub.outcomes) == 2, "the second run's outcome", RUN_WAIT_S)
        second = app.hub.outcomes[1]
        await wait_for(pilot, lambda: len(run_ids(app)) == 2, "the second run on the Runs screen", UI_WAIT_S)
        assert run_ids(app) == [str(second.run_id), str(first.run_id)]
        assert app.screen is runs
