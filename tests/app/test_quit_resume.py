"""Quitting while runs go asks first, the runs go on detached, and the next start reattaches to
them by itself; a whole queue can be cancelled from Live. The built-in SQLite workload really
runs on this machine (private inventory and store per test)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.dialogs import ConfirmDialog
from benchdeck.tui.app.screens.live import LiveScreen
from tests.app.test_launch_live import RUN_WAIT_S, SIZE, UI_WAIT_S, WORKLOAD, inventory, wait_for

pytestmark = pytest.mark.integration  # real built-in runs

__all__ = ["inventory"]  # the autouse fixture: only the local host, in the test's tmp dir


def stored(db: Path, sql: str) -> list[tuple[object, ...]]:
    with Store.open(db) as store:
        return store.cursor().execute(sql).fetchall()


def run_dir(tmp_path: Path) -> Path | None:
    """The first run's directory on the local host (under the test's workdir), once made."""
    return next((tmp_path / "work" / "runs").glob("run*"), None)


def interval_written(tmp_path: Path) -> bool:
    d = run_dir(tmp_path)
    out = d / "bench.out" if d is not None else None
    return out is not None and out.exists() and "[ 1s ] thds:" in out.read_text()


@contextmanager
def benchmark_held(tmp_path: Path) -> Iterator[None]:
    """The running benchmark's process group stopped (SIGSTOP) until the block ends (SIGCONT).

    The app must quit while the run goes. Unheld, the quit (two questions in the pilot) raced
    the 5 s run's end: at load 27 the benchmark had ended 0.9 s before the app had quit (the
    store still said running only because the app had not read the exit code yet). Held from
    its first interval on, it can neither end nor write its exit code before the app has quit;
    continued, it ends by its own clock for the next start to follow. Real processes, really
    stopped.
    """
    d = run_dir(tmp_path)
    assert d is not None
    pgid = int((d / "bench.pgid").read_text())
    os.killpg(pgid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(pgid, signal.SIGCONT)


def sampled(app: BenchdeckApp) -> bool:
    """Live shows a sample of the running run."""
    active = app.hub.model.active()
    return bool(active and active[0].t)


async def quit_leaving_the_run(pilot: Pilot[Any], app: BenchdeckApp) -> None:
    """q asks while a run goes; n stays; q then y quits, leaving it running."""
    await pilot.press("q")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the quit question", UI_WAIT_S)
    assert "1 run(s) are going" in app.screen.question  # type: ignore[attr-defined]
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen), "Live again", UI_WAIT_S)
    await pilot.press("q")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the quit question", UI_WAIT_S)
    await pilot.press("y")
    await wait_for(pilot, lambda: not app.is_running, "the app to quit", UI_WAIT_S)


async def test_quit_asks_runs_go_on_and_the_next_start_reattaches(tmp_path: Path) -> None:
    db = tmp_path / "bd.duckdb"
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await app.hub.start_queue(["local"], ["sqlite"], [WORKLOAD] * 2, RunOptions(duration_s=5))
        app.switch_mode("live")
        # The first interval was written 22-23 s after the start at load ~25 (the old wait for
        # a sample in Live: 20 s).
        await wait_for(
            pilot, lambda: interval_written(tmp_path), "the benchmark's first interval", RUN_WAIT_S
        )
        with benchmark_held(tmp_path):
            await wait_for(pilot, lambda: sampled(app), "a sample", RUN_WAIT_S)
            await quit_leaving_the_run(pilot, app)
    [(run_id, status)] = stored(db, "SELECT run_id, status FROM runs")
    assert status == "running", "quitting left the run going on its host"
    assert stored(db, "SELECT status FROM queue_items ORDER BY position") == [("running",), ("pending",)]

    again = BenchdeckApp(db)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: len(again.hub.outcomes) == 2, "the reattached run and the next", RUN_WAIT_S
        )
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
        await wait_for(
            pilot, lambda: app.hub.model.active() and app.hub.model.active()[0].t, "a sample", RUN_WAIT_S
        )
        await pilot.press("X")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question", 30)
        await pilot.press("y")  # X asks first (issue 25 item 13)
        await wait_for(pilot, lambda: app.hub.outcomes, "the queue's end", RUN_WAIT_S)
        assert [o.status for o in app.hub.outcomes] == ["cancelled"]
    assert stored(db, "SELECT status FROM queue_items ORDER BY position") == [("cancelled",)] * 3


async def test_a_queue_started_before_the_look_for_leftovers_runs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start looks for runs and queues a closed benchdeck left once the store has opened; a
    queue started before that look (a slow store, a loaded machine) waits for it: else the look
    found the new queue's run and items and ran them a second time beside it (the queue's next
    run failed at once: "run 1 still has its prepare running")."""
    from benchdeck.tui.app.state.live_hub import LiveHub

    gate, looking = asyncio.Event(), asyncio.Event()
    looked = LiveHub.pending_work

    async def late_look(self: LiveHub) -> tuple[int, int]:
        looking.set()
        await gate.wait()
        return await looked(self)

    monkeypatch.setattr(LiveHub, "pending_work", late_look)
    db = tmp_path / "bd.duckdb"
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        start = asyncio.ensure_future(
            app.hub.start_queue(["local"], ["sqlite"], [WORKLOAD] * 2, RunOptions(duration_s=2))
        )
        await wait_for(pilot, looking.is_set, "the start's look", UI_WAIT_S)
        await pilot.pause(0.5)  # (the code before made the queue and ran it within this half second)
        assert not start.done(), "the queue waits for the look at leftovers"
        gate.set()
        await start
        await wait_for(
            pilot, lambda: len(app.hub.outcomes) >= 2 and not app.hub.busy, "the queue's end", RUN_WAIT_S
        )
        assert [o.status for o in app.hub.outcomes] == ["finished", "finished"]
    assert stored(db, "SELECT count(*) FROM runs") == [(2,)], "each queued run ran once"
