"""The diff screen shows where two long command lines differ, and names the two builds."""

from __future__ import annotations

from textual.widgets import DataTable

from benchdeck.engine.records import RunRecord
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_records import save_record
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.run_diff import MAX_CELL, RunDiffScreen
from tests.app.helpers import on_screen, settle
from tests.app.storedata import BASE, NEW, Demo

COMMAND = (
    "python3 -m benchdeck_builtin --db /home/me/benchdeck-runs/runs/run12-ab/sqlite.db --tables 1 "
    "--table-size 100000 --threads 1 --time 5 --durability={}"
)


async def test_long_commands_show_where_they_differ_and_the_builds(demo: Demo) -> None:
    with Store.open(demo.path) as store, store.transaction() as cur:
        for rid, durability in ((demo.base_update_index, "full"), (demo.new_update_index, "normal")):
            save_record(cur, rid, RunRecord(commands=(("bench", COMMAND.format(durability)),)))
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.push_screen(RunDiffScreen(demo.base_update_index, demo.new_update_index))
        await settle(pilot)
        screen = on_screen(app, RunDiffScreen)
        table = screen.query_one("#diff-table", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert ["dbms", "build", BASE, NEW] in rows, rows
        [command] = [r for r in rows if r[0] == "command"]
        assert command[2].endswith("--durability=full"), command
        assert command[3].endswith("--durability=normal"), command
        assert command[2].startswith("…")
        assert all(len(c) <= MAX_CELL for c in command[2:])
