"""Runs beyond the first page (RunFilter.limit): read on a worker as the cursor or the view
nears the last row read, End / G reads them all and goes to the last run, and filters, marks,
tags, delete and reload work with more than one page read (real DuckDB store of 2,520 runs)."""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input
from textual.widgets.data_table import ColumnKey

from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import RunFilter, run_history, run_history_after
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from benchdeck.tui.app.screens.runs_pages import NEAR_END
from benchdeck.tui.app.screens.runs_table import RunsTable
from tests.app.helpers import column_texts, on_screen, settle
from tests.fixtures.big_store import build_store

SIZE = (100, 30)
RUNS = 2_520  # 4 hosts x 15 builds x 42 workloads: three pages of 1,000
POINT = 1_020  # runs of the 17 workloads named "...point...": two pages


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pages") / "runs.duckdb"
    assert build_store(path, n_hosts=4, n_builds=15) == RUNS
    return path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "runs.duckdb"
    shutil.copy2(template, path)
    return path


async def until(pilot: Pilot[object], done: Callable[[], bool], rounds: int = 400) -> None:
    """Let the app work (workers, later rows) until ``done()``; fails after ``rounds`` rounds."""
    for _ in range(rounds):
        if done():
            return
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    assert done(), "the app did not get there"


def ids(screen: RunsScreen) -> list[int]:
    return [int(x.lstrip("*")) for x in column_texts(screen.query_one(RunsTable), 0)]


def selected(screen: RunsScreen) -> int | None:
    run = screen.selected
    return run.run_id if run is not None else None


def status(screen: RunsScreen) -> str:
    return str(screen.query_one("#runs-status").render())


def all_in(screen: RunsScreen) -> bool:
    """Every run read is in the table, and no page is being read."""
    return screen._more is None and screen.query_one(RunsTable).row_count == len(screen.rows)


def test_the_pages_after_the_first_are_the_history_in_order(store: Path) -> None:
    with Store.open(store) as s:
        cur = s.cursor()
        for f in (RunFilter(), RunFilter(workload="point"), RunFilter(host="host1", limit=100)):
            whole = run_history(cur, RunFilter(**{**_fields(f), "limit": 100_000}))
            pages = run_history(cur, f)
            while len(pages) < len(whole):
                page = run_history_after(cur, f, pages[-1].run_id)
                assert 0 < len(page) <= f.limit
                pages += page
            assert pages == whole, f
            assert run_history_after(cur, f, pages[-1].run_id) == []
        # down_to: every run after one down to another, however many pages that is
        rows = run_history_after(cur, RunFilter(), 2_000, down_to=500)
        assert [r.run_id for r in rows] == list(range(1_999, 499, -1))
        # a filter's value goes in as a parameter, never into the SQL
        assert run_history_after(cur, RunFilter(workload="'; DROP TABLE runs; --"), 3_000) == []
        assert s.scalar("SELECT count(*) FROM runs") == RUNS


def _fields(f: RunFilter) -> dict[str, object]:
    return {name: getattr(f, name) for name in f.__slots__}


async def test_scrolling_down_reads_the_next_page_on_a_worker(store: Path) -> None:
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one(RunsTable)
        assert table.row_count == 1_000 == len(screen.rows), "the first page only, at start"
        assert screen.page_times == []
        assert status(screen).startswith("1,000 of 2,520 shown — more load as you scroll"), status(screen)

        # Page Down, as a user would, until the cursor nears row 1,000: the next page comes
        table.move_cursor(row=1_000 - NEAR_END - 2 * SIZE[1])  # (from nearer than the top)
        await pilot.pause()
        assert table.row_count == 1_000, "not yet near the end"
        start = time.perf_counter()
        presses = 0
        while table.row_count == 1_000:
            assert presses < 10, "page down never read the next page"
            await pilot.press("pagedown")
            presses += 1
            await pilot.pause()
        assert table.cursor_row + table.size.height >= 1_000 - NEAR_END, "not before it is near"
        await until(pilot, lambda: all_in(screen))
        took = time.perf_counter() - start
        assert ids(screen) == list(range(RUNS, RUNS - 2_000, -1)), "in order, each run once"
        assert status(screen).startswith("2,000 of 2,520 shown — more load as you scroll")
        read_s, in_s = screen.page_times[0]
        print(
            f"\npage 2 of 3: read {read_s * 1000:.0f} ms, rows in {in_s * 1000:.0f} ms; {presses} page downs"
        )
        print(f"  (wall from the first page down: {took:.2f} s)")

        # the wheel (a scroll with the cursor left behind) reads the next one too
        table.move_cursor(row=0)
        await pilot.pause()
        table.scroll_to(y=table.max_scroll_y, animate=False)
        await until(pilot, lambda: len(screen.rows) == RUNS and all_in(screen))
        assert table.cursor_row == 0
        assert ids(screen) == list(range(RUNS, 0, -1))
        assert status(screen).startswith("2,520 runs   "), status(screen)


@pytest.mark.parametrize("key", ["end", "G"])
async def test_end_goes_to_the_last_run_reading_every_page(store: Path, key: str) -> None:
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one(RunsTable)
        said: list[str] = []
        show_status = screen._show_status

        def spy() -> None:
            show_status()
            said.append(status(screen))

        screen._show_status = spy  # type: ignore[method-assign]
        await pilot.press(key)
        await until(pilot, lambda: not screen._to_end and all_in(screen))
        assert table.row_count == RUNS
        assert selected(screen) == 1, "the oldest run"
        await pilot.pause()
        top = round(table.scroll_y)
        assert top <= table.cursor_row < top + table.size.height, "and it is in view"
        assert status(screen).startswith("2,520 runs   ")
        assert len(screen.page_times) == 2
        progress = [s.split("   ")[0] for s in said if "reading up to the last run" in s]
        assert progress[0] == "1,000 of 2,520 shown — reading up to the last run…", said
        assert "2,000 of 2,520 shown — reading up to the last run…" in progress, "progress shown"
        for n, (read_s, in_s) in enumerate(screen.page_times, 2):
            print(f"\n{key}: page {n}: read {read_s * 1000:.0f} ms, rows in {in_s * 1000:.0f} ms")
        await pilot.press("up", key)  # all read: at once
        assert selected(screen) == 1


async def test_a_filter_with_two_pages(store: Path) -> None:
    with Store.open(store) as s:
        expected = [r.run_id for r in run_history(s.cursor(), RunFilter(workload="point", limit=5_000))]
    assert len(expected) == POINT
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        await pilot.press("slash", *"point", "enter")
        await settle(pilot)
        assert ids(screen) == expected[:1_000]
        assert status(screen).startswith("1,000 of 1,020 shown"), status(screen)
        await pilot.press("end")
        await until(pilot, lambda: not screen._to_end and all_in(screen))
        assert ids(screen) == expected
        assert selected(screen) == expected[-1]
        assert all("point" in w for w in column_texts(screen.query_one(RunsTable), 3))
        assert status(screen).startswith("1,020 runs   ")

        # another filter: its first page only, none of the last one's pages
        box = screen.query_one("#runs-workload", Input)
        box.value = "range"
        await settle(pilot)
        assert ids(screen) == list(range(RUNS, RUNS - 1_000, -1))
        assert status(screen).startswith("1,000 of 2,520 shown")


async def test_reload_tag_and_delete_keep_the_pages_and_the_cursor(store: Path) -> None:
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one(RunsTable)
        await pilot.press("end")
        await until(pilot, lambda: not screen._to_end and all_in(screen))

        table.move_cursor(row=table.get_row_index("700"))  # on the third page
        await pilot.press("r")
        await settle(pilot)
        await until(pilot, lambda: all_in(screen))
        assert selected(screen) == 700, "the same run"
        assert table.row_count == RUNS, "the pages read stay read"

        await pilot.press("m")  # a mark on the third page
        assert table.get_row("700")[0].plain == "*700"

        await pilot.press("t", *"old", "enter")
        await settle(pilot)
        await until(pilot, lambda: all_in(screen) and screen.rows[700].tags == ("old",))
        assert str(table.get_row("700")[-2]) == "old"
        assert table.get_row("700")[0].plain == "*700", "the mark stays across the reload"
        assert selected(screen) == 700

        await pilot.press("d", "y")
        await settle(pilot)
        await until(pilot, lambda: all_in(screen) and 700 not in screen.rows)
        assert table.row_count == RUNS - 1
        assert selected(screen) == 699, "the cursor stays in place"
        assert status(screen).startswith("2,519 runs   ")
    with Store.open(store) as s:
        assert s.scalar("SELECT count(*) FROM runs WHERE run_id = 700") == 0


async def test_a_reload_with_a_new_run_keeps_the_cursors_run(store: Path) -> None:
    """A run stored meanwhile: the rows shift by one, the cursor stays on its run (page 2)."""
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one(RunsTable)
        table.move_cursor(row=999)
        await until(pilot, lambda: len(screen.rows) == 2_000 and all_in(screen))
        table.move_cursor(row=table.get_row_index("1000"))
        with closing(app.store.writable_cursor()) as cur:  # (the app holds the store)
            cur.execute(
                "INSERT INTO runs (run_id, host_id, build_id, workload_id, config, threads, status, source) "
                "VALUES (?, 1, 1, 1, 'c32r128', 24, 'finished', 'bench')",
                [RUNS + 1],
            )
        await pilot.press("r")
        await settle(pilot)
        await until(pilot, lambda: all_in(screen))
        assert ids(screen)[:2] == [RUNS + 1, RUNS]
        assert ids(screen)[-1] == RUNS - 1_999, "down to the last run read before"
        assert selected(screen) == 1_000
        medians = statistics.median(t for _, t in screen.page_times) if screen.page_times else 0.0
        print(f"\nrows in per page (median): {medians * 1000:.0f} ms")


async def test_a_later_pages_longer_values_widen_their_columns(store: Path) -> None:
    tag = "a tag longer than any value of the first page"
    with Store.open(store) as s:
        s.cursor().execute("UPDATE runs SET tags = [?] WHERE run_id = 100", [tag])
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one(RunsTable)
        assert table.columns[ColumnKey("tags")].width == len("tags")
        await pilot.press("end")
        await until(pilot, lambda: not screen._to_end and all_in(screen))
        assert table.columns[ColumnKey("tags")].width == len(tag)
        table.move_cursor(row=table.get_row_index("100"))
        table.scroll_to(x=table.max_scroll_x, animate=False)  # the tags column in view, whole
        await pilot.pause()
        line = table.render_line(table.cursor_row - round(table.scroll_y) + 1).text  # (+ the header)
        assert tag in line, line
