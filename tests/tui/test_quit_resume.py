"""Quitting while runs go asks first, the runs go on detached, and the next start reattaches to
them by itself; a whole queue can be cancelled from Live. The built-in SQLite workload really
runs on this machine (private inventory and store per test)."""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.plan import RunOptions
from benchdeck.store.db import Store
from benchdeck.tui.app import BenchdeckApp
from benchdeck.tui.screens.dialogs import ConfirmDialog
from benchdeck.tui.screens.live import LiveScreen
from tests.tui.test_launch_live import SIZE, WORKLOAD, inventory, wait_for

__all__ = ["inventory"]  # the autouse fixture: only the local host, in the test's tmp dir


def stored(db: Path, sql: str) -> list[tuple[object, ...]]:
    with Store.open(db) as store:
        return store.cursor().execute(sql).fetchall()


async def test_quit_asks_runs_go_on_and_the_next_start_reattaches(tmp_path: Path) -> None:
    db = tmp_path / "bd.duckdb"
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await app.hub.start_queue(["local"], ["sqlite"], [WORKLOAD] * 2, RunOptions(duration_s=5))
        app.switch_mode("live")
        await wait_for(pilot, lambda: app.hub.model.active() and app.hub.model.active()[0].t, "a sample", 20)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the quit question", 5)
        assert "1 run(s) are going" in app.screen.question  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen), "Live again", 5)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the quit question", 5)
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, "the app to quit", 10)
    [(run_id, status)] = stored(db, "SELECT run_id, status FROM runs")
    assert status == "running", "quitting left the run going on its host"
    assert stored(db, "SELECT status FROM queue_items ORDER BY position") == [("running",), ("pending",)]

    again = BenchdeckApp(db)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(again.hub.outcomes) == 2, "the reattached run and the next", 40)
        first, second = again.hub.outcomes
        assert (first.run_id, first.status) == (run_id, "finished")
        assert second.status == "finished"
        view = again.hub.model.runs[run_id]
        assert view.t[0] == 1.0, "Live shows the samples stored before reattaching too"
        assert view.t == sorted(set(view.t))
    [(n, distinct)] = stored(
        db, f"SELECT count(*), count(DISTINCT t) FROM bench_samples WHERE run_id = {run_id}"
    )
    assert n == distinct == len(view.t)


async def test_cancel_a_whole_queue_from_live(tmp_path: Path) -> None:
    db = tmp_path / "bd.duckdb"
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await app.hub.start_queue(["local"], ["sqlite"], [WORKLOAD] * 3, RunOptions(duration_s=30))
        app.switch_mode("live")
        await wait_for(pilot, lambda: app.hub.model.active() and app.hub.model.active()[0].t, "a sample", 20)
        await pilot.press("X")
        await wait_for(pilot, lambda: app.hub.outcomes, "the queue's end", 15)
        assert [o.status for o in app.hub.outcomes] == ["cancelled"]
    assert stored(db, "SELECT status FROM queue_items ORDER BY position") == [("cancelled",)] * 3
