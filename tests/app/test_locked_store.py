"""A store locked by another process: the app shows a read-only snapshot and refuses changes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from textual.widgets import DataTable

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from benchdeck.tui.app.widgets.keybar import KeyBar
from tests.app.helpers import settle
from tests.app.storedata import Demo

HOLD = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); sys.stdin.read()"


@pytest.fixture
def locked(demo: Demo) -> Iterator[Demo]:
    """The demo store, held open (locked) by another process until the test ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(demo.path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "ready"  # the other process holds the lock now
    yield demo
    holder.communicate("")
    assert holder.returncode == 0


async def test_locked_store_is_read_as_a_snapshot(locked: Demo) -> None:
    app = BenchdeckApp(locked.path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.sub_title == "demo.duckdb (read-only snapshot)"
        assert app.screen.query_one("#runs-table", DataTable).row_count == 35
        shown = {d for _k, _d, d, _e in app.screen.query_one(KeyBar).keys()[0]}
        assert {"Tag", "Delete", "Re-run"}.isdisjoint(shown), "a snapshot offers no changes"
        assert {"Series", "Set base"} <= shown
        await pilot.press("t", "d", "R")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen), "no tag or delete dialog opened"
        assert not [n for n in app._notifications if n.severity == "error"]
