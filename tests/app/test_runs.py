"""Runs screen: history, filters, tag, delete, set base, re-run, time series (real DuckDB store)."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.widgets import DataTable, Input, Select

from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import RunFilter, list_builds, list_hosts, run_history
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.dialogs import ConfirmDialog, TextDialog
from benchdeck.tui.app.screens.runs import RunsScreen
from benchdeck.tui.app.screens.runs_actions import RerunRequested
from benchdeck.tui.app.screens.series import SeriesScreen
from tests.app.helpers import column_texts, on_screen, settle
from tests.app.storedata import BASE, HOST, NEW, OTHER_HOST, Demo

SIZE = (100, 30)


def runs_table(app: BenchdeckApp) -> DataTable[object]:
    return app.screen.query_one("#runs-table", DataTable)


def move_to_run(app: BenchdeckApp, run_id: int) -> None:
    table = runs_table(app)
    table.move_cursor(row=table.get_row_index(str(run_id)))


async def test_history_newest_first_and_filters(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        ids = [int(x) for x in column_texts(runs_table(app), 0)]
        assert len(ids) == 35
        assert ids == sorted(ids, reverse=True)
        assert app.sub_title == "demo.duckdb"

        app.screen.query_one("#runs-host", Select).value = OTHER_HOST
        await settle(pilot)
        assert set(column_texts(runs_table(app), 1)) == {OTHER_HOST}
        assert runs_table(app).row_count == 4

        app.screen.query_one("#runs-host", Select).clear()
        app.screen.query_one("#runs-build", Select).value = NEW
        await pilot.press("slash", *"update-index")
        await settle(pilot)
        assert column_texts(runs_table(app), 3) == ["update-index_range=100"]
        assert column_texts(runs_table(app), 2) == [NEW]

        since = app.screen.query_one("#runs-since", Input)
        since.value = "2024-13"  # not a date: the filter stays as it was
        await settle(pilot)
        assert runs_table(app).row_count == 1
        since.value = "2024-11-02"  # every demo run is from 2024-11-01
        await settle(pilot)
        assert runs_table(app).row_count == 0


async def test_tag_persists_in_the_store(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        move_to_run(app, demo.base_update_index)
        await pilot.press("t")
        assert isinstance(app.screen, TextDialog)
        await pilot.press(*"baseline, noisy,  baseline", "enter")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        row = runs_table(app).get_row(str(demo.base_update_index))
        assert str(row[-2]) == "baseline, noisy"
    with Store.open(demo.path) as store:
        (hist,) = [r for r in run_history(store.cursor()) if r.run_id == demo.base_update_index]
        assert hist.tags == ("baseline", "noisy")
        assert hist.qps == 10000.0, "tagging keeps the run's summary"

    app = BenchdeckApp(demo.path)  # and it is there after a restart
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert str(runs_table(app).get_row(str(demo.base_update_index))[-2]) == "baseline, noisy"


async def test_delete_asks_first_and_removes_everything(demo: Demo) -> None:
    rid = demo.base_update_index
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        move_to_run(app, rid)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert runs_table(app).row_count == 35

        move_to_run(app, rid)
        await pilot.press("d", "y")
        await settle(pilot)
        assert runs_table(app).row_count == 34
        assert str(rid) not in column_texts(runs_table(app), 0)
    with Store.open(demo.path) as store:
        for table in (
            "runs",
            "run_summary",
            "bench_samples",
            "vmstat_samples",
            "iostat_samples",
            "raw_files",
        ):
            assert store.scalar(f"SELECT count(*) FROM {table} WHERE run_id = ?", [rid]) == 0, table
        assert store.scalar("SELECT count(*) FROM bench_samples") == 30, "the other run keeps its samples"


async def test_set_base_is_remembered_for_compare(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        move_to_run(app, demo.new_update_index)
        await pilot.press("b")
        assert app.selection.host == HOST
        assert app.selection.base == NEW
        await pilot.press("2")
        await settle(pilot)
        assert app.selection.base == NEW
        assert BASE in app.selection.with_builds or app.selection.with_builds
        assert app.screen.query_one("#compare-base", Select).value == NEW


async def test_rerun_posts_a_message_and_series_open(demo: Demo) -> None:
    seen: list[Message] = []
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        move_to_run(app, demo.new_update_index)
        await pilot.press("R")
        await settle(pilot)
        assert [m.run_id for m in seen if isinstance(m, RerunRequested)] == [demo.new_update_index]
        assert any("not in the inventory" in n.message for n in app._notifications), "no host to re-run on"

        await pilot.press("enter")
        await settle(pilot)
        series = on_screen(app, SeriesScreen)
        assert [s.run.run_id for s in series.series] == [demo.new_update_index]
        assert len(series.series[0].qps) == 30
        await pilot.press("escape")
        on_screen(app, RunsScreen)


async def test_missing_store_dir_is_created_and_errors_notify(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "new" / "s.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.current_mode == "launch", "an empty store opens on Launch"
        await pilot.press("1")
        await settle(pilot)
        assert runs_table(app).row_count == 0
        on_screen(app, RunsScreen).remove_run(
            424242
        )  # a run that does not exist: a notification, no traceback
        await settle(pilot)
        assert [n.message for n in app._notifications] == ["run 424242 no longer exists"]
        assert isinstance(app.screen, RunsScreen)


async def test_a_long_history_arrives_whole_and_keeps_the_cursor(tmp_path: Path) -> None:
    """504 runs: a screenful first, the rest after that frame; all of them, in order, once each.

    The cursor stays on a run far down the list across a reload, and a filter changed while
    rows are still arriving leaves only the filtered rows (no mix of the two loads).
    """
    from benchdeck.tui.app.screens.runs import FIRST_ROWS
    from tests.fixtures.big_store import build_store

    path = tmp_path / "long.duckdb"
    n = build_store(path, n_hosts=4, n_builds=3)
    assert n == 504 > 3 * FIRST_ROWS
    app = BenchdeckApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ids = [int(x) for x in column_texts(runs_table(app), 0)]
        assert ids == list(range(n, 0, -1))

        move_to_run(app, 7)  # row 497: far beyond the first rows
        await pilot.press("r")
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        assert screen.selected is not None
        assert screen.selected.run_id == 7
        assert runs_table(app).row_count == n

        # A newer load replaces one whose later rows are not in yet: none of them arrive after.
        cur = app.store.cursor()
        every, host2 = run_history(cur), run_history(cur, RunFilter(host="host2"))
        hosts, builds = list_hosts(cur), list_builds(cur)
        screen.on_runs_screen_loaded(RunsScreen.Loaded(every, hosts, builds))
        screen.on_runs_screen_loaded(RunsScreen.Loaded(host2, hosts, builds))
        await settle(pilot)
        assert set(column_texts(runs_table(app), 1)) == {"host2"}
        assert [int(x) for x in column_texts(runs_table(app), 0)] == [r.run_id for r in host2]
        assert len(host2) == n // 4


async def test_the_count_is_true_beyond_the_rows_shown(demo: Demo, monkeypatch: object) -> None:
    from dataclasses import replace

    from benchdeck.tui.app.screens import runs_table as runs_module
    from tests.app.storedata import add_many_runs

    add_many_runs(demo.path, 1_300)  # 1,335 runs in all
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        assert len(screen.rows) == RunFilter().limit
        status = str(screen.query_one("#runs-status").render())
        assert status.startswith("1,000 of 1,335 shown — more load as you scroll"), status
        screen.filter = replace(screen.filter, limit=2_000)  # a limit above the count: all shown
        screen.load()
        await settle(pilot)
        assert str(screen.query_one("#runs-status").render()).startswith("1,335 runs   ")
    assert runs_module.COLUMNS[-1] == "reason"


async def test_enter_and_escape_leave_the_filter_box(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"update")
        box = app.screen.query_one("#runs-workload", Input)
        assert app.focused is box
        await pilot.press("enter")
        assert app.focused is runs_table(app), "enter keeps the filter and goes back to the table"
        await settle(pilot)
        assert set(column_texts(runs_table(app), 3)) == {"update-index_range=100"}
        await pilot.press("slash", "escape")
        assert app.focused is runs_table(app)
        await pilot.press("t")  # the table has focus: t tags, it is not typed into the box
        assert isinstance(app.screen, TextDialog)
        assert box.value == "update"


async def test_a_failed_run_shows_its_reason(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        move_to_run(app, demo.failed)
        await pilot.pause()
        row = runs_table(app).get_row_index(str(demo.failed))
        assert column_texts(runs_table(app), 10)[row] == "sysbench exited with status 1"
        status = str(app.screen.query_one("#runs-status").render())
        assert f"run {demo.failed} failed: sysbench exited with status 1" in status


async def test_series_of_a_failed_run_says_why(demo: Demo) -> None:
    from textual.widgets import Static

    from tests.app.helpers import static_text

    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        move_to_run(app, demo.failed)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, SeriesScreen)
        title = static_text(app.screen.query_one("#series-title", Static))
        assert "failed: sysbench exited with status 1" in title
