"""Launch and Live end to end in the pilot: the built-in SQLite workload really runs on this machine.

Each test has an empty store and a private inventory holding only the ``local`` host (its workdir
in the test's tmp dir), so nothing of the user's config, store or run directories is touched.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, SelectionList, Static

from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.dialogs import ConfirmDialog
from benchdeck.tui.app.screens.launch import LaunchScreen
from benchdeck.tui.app.screens.live import HostTab, LiveScreen
from benchdeck.tui.services.runs import Outcome
from tests.app.helpers import on_screen, static_text

pytestmark = pytest.mark.integration  # real built-in runs from Launch

SIZE = (120, 36)
POLL_S = 0.05  # how often a wait looks again (a deadline bounds every wait)
# The deadlines bound waits for events; they are not what is tested, so they are wide enough for
# a loaded machine. At load ~25 on 2 cores a 2 s run's outcome came after 16-18 s (the old
# deadline: 25 s), a re-run's after 21.9 s (25 s), a run's first interval after 22-23 s (20 s).
RUN_WAIT_S = 120.0  # for anything that waits on a benchmark run's start or end
UI_WAIT_S = 30.0  # for a screen or a line to change (up to 4.8 s of 10 measured at load ~25)
WORKLOAD = "point-query_range=100"


@pytest.fixture(autouse=True)
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Only the ``local`` host, running in the test's tmp dir (never ~/benchdeck-runs)."""
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(f'[hosts.local]\ntransport = "local"\nworkdir = "{tmp_path / "work"}"\n')
    monkeypatch.setenv(INVENTORY_ENV, str(cfg))
    return cfg


async def wait_for(
    pilot: Pilot[Any], cond: Callable[[], object], what: str, within: float = UI_WAIT_S
) -> None:
    """Let the app run until ``cond()`` holds; fail naming ``what`` after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:.0f} s waiting for {what}")
        await pilot.pause(POLL_S)


def matrix(app: App[Any]) -> str:
    return static_text(app.screen.query_one("#launch-matrix", Static))


def headline(app: App[Any]) -> str:
    return static_text(app.screen.query_one(".live-headline", Static))


async def open_launch(pilot: Pilot[Any]) -> LaunchScreen:
    """The Launch screen, once its matrix line is filled in (it is mounted and has its options)."""

    def ready() -> bool:
        screen = pilot.app.screen
        return (
            isinstance(screen, LaunchScreen)
            and screen.inv is not None  # the inventory (and the store's registered builds) read
            and any(map(static_text, screen.query("#launch-matrix").results(Static)))
        )

    await wait_for(pilot, ready, "the Launch screen", UI_WAIT_S)
    return on_screen(pilot.app, LaunchScreen)


def reduce_matrix(screen: LaunchScreen, seconds: int) -> None:
    """One build (sqlite), one workload, ``seconds`` each: a single short run."""
    screen.query_one("#launch-builds", SelectionList).deselect("sqlite-sync")
    workloads: SelectionList[str] = screen.query_one("#launch-workloads", SelectionList)
    for name in list(workloads.selected):
        if name != WORKLOAD:
            workloads.deselect(name)
    screen.query_one("#launch-time", Input).value = str(seconds)


async def start_one_run(pilot: Pilot[Any], seconds: int) -> LiveScreen:
    """Queue the reduced matrix with ``s``; returns the Live screen once the ``local`` tab is there."""
    app = pilot.app
    launch = await open_launch(pilot)
    reduce_matrix(launch, seconds)
    await wait_for(pilot, lambda: matrix(app).startswith("1 runs = 1 host(s)"), "the reduced matrix")
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen), "the Live screen", UI_WAIT_S)
    live = on_screen(app, LiveScreen)
    await wait_for(pilot, lambda: bool(live.query(HostTab)), "a tab for host local")
    assert [t.host for t in live.query(HostTab)] == ["local"]
    return live


async def outcome(pilot: Pilot[Any], app: BenchdeckApp, within: float) -> Outcome:
    await wait_for(pilot, lambda: app.hub.outcomes, "the queue's outcome", within)
    [out] = app.hub.outcomes
    return out


def run_row(store: Store, run_id: int) -> tuple[str, float | None, int]:
    """(status, summary QPS, bench samples) of one run."""
    row = (
        store.cursor()
        .execute(
            "SELECT r.status, s.qps, (SELECT count(*) FROM bench_samples b WHERE b.run_id = r.run_id) "
            "FROM runs r LEFT JOIN run_summary s USING (run_id) WHERE r.run_id = ?",
            [run_id],
        )
        .fetchone()
    )
    assert row is not None, f"run {run_id} is not in the store"
    return str(row[0]), row[1], int(row[2])


async def test_empty_store_opens_on_launch_with_the_default_matrix(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        launch = await open_launch(pilot)
        assert matrix(app).startswith("6 runs = 1 host(s) x 2 build(s) x 3 workload(s)")
        hosts: SelectionList[str] = launch.query_one("#launch-hosts", SelectionList)
        assert list(hosts.selected) == ["local"]

        # unselect the first build (sqlite) from the keyboard: the matrix follows
        await pilot.press("tab", "space")
        await wait_for(pilot, lambda: "2 build(s)" not in matrix(app), "the matrix to change")
        assert matrix(app).startswith("3 runs = 1 host(s) x 1 build(s) x 3 workload(s)")
        assert list(launch.query_one("#launch-builds", SelectionList).selected) == ["sqlite-sync"]

        facts = launch.query_one("#launch-facts", Static)
        await wait_for(pilot, lambda: static_text(facts), "the host facts line")
        assert static_text(facts).startswith("local: ")
        assert "cores" in static_text(facts)


async def test_start_runs_the_matrix_and_live_shows_it_finished(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await start_one_run(pilot, seconds=2)
        assert (app.selection.host, app.selection.base) == ("local", "sqlite"), (
            "a first base: Live's base line"
        )
        out = await outcome(pilot, app, within=RUN_WAIT_S)
        assert (out.host, out.build, out.workload, out.status) == ("local", "sqlite", WORKLOAD, "finished")

        status, qps, samples = await app.hub.query(lambda store: run_row(store, out.run_id))
        assert status == "finished"
        assert qps is not None
        assert qps > 0
        assert samples > 0

        await wait_for(
            pilot, lambda: "finished" in headline(app), "the Live headline to say finished", UI_WAIT_S
        )
        line = headline(app)
        assert line.startswith(f"run {out.run_id}  sqlite  {WORKLOAD}\nfinished")
        assert "QPS -" not in line


async def test_cancel_keeps_the_samples(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await start_one_run(pilot, seconds=30)

        def samples_seen() -> int:
            view = app.hub.model.current("local")
            return len(view.t) if view is not None else 0

        await wait_for(pilot, lambda: samples_seen() >= 2, "two live samples", RUN_WAIT_S)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question", UI_WAIT_S)
        await pilot.press("y")
        out = await outcome(pilot, app, within=RUN_WAIT_S)
        assert out.status == "cancelled"

        status, qps, samples = await app.hub.query(lambda store: run_row(store, out.run_id))
        assert status == "cancelled"
        assert qps is None
        assert samples >= 2
        await wait_for(
            pilot, lambda: "cancelled" in headline(app), "the Live headline to say cancelled", UI_WAIT_S
        )


async def test_a_store_slower_to_open_than_the_wait_still_opens_on_launch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app waits a moment for the store before its first screen; when the store takes
    longer (here the wait is 0 s), Runs shows first and Launch follows once the store is
    found empty. The opening itself is never cut short."""
    import benchdeck.tui.app.app

    monkeypatch.setattr(benchdeck.tui.app.app, "OPEN_WAIT_S", 0.0)
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await open_launch(pilot)
        assert app.current_mode == "launch"
        assert app._opened.result() == 0


async def test_rerun_keeps_the_original_duration(tmp_path: Path) -> None:
    from benchdeck.store.storage.rerun import run_again

    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await start_one_run(pilot, seconds=2)
        first = await outcome(pilot, app, within=RUN_WAIT_S)
        await pilot.press("1")  # Runs: the run just made is the newest, under the cursor
        await wait_for(pilot, lambda: app.screen.query_one("#runs-table").row_count == 1, "the run in Runs")
        await pilot.press("R")
        await wait_for(pilot, lambda: len(app.hub.outcomes) == 2, "the re-run's outcome", RUN_WAIT_S)
        again = app.hub.outcomes[1]
        assert (again.build, again.workload, again.status) == ("sqlite", WORKLOAD, "finished")
        assert again.run_id != first.run_id
        how = await app.hub.query(lambda store: run_again(store.cursor(), again.run_id))
        assert how is not None
        assert how.duration_s == 2, "a 2 s run re-runs for 2 s, not the default"


async def test_launch_refuses_the_classic_suite_on_sqlite_builds_and_start_shows_at_80x24(
    tmp_path: Path,
) -> None:
    from textual.widgets import Button, Select

    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=(80, 24)) as pilot:
        launch = await open_launch(pilot)
        start = launch.query_one("#launch-start", Button)
        assert start.region.bottom <= 23, "Start is above the key bar, not below the fold"
        assert launch.query_one("#launch-matrix").region.bottom <= 23
        assert matrix(app).endswith("about 0m36s"), "6 runs x (5 s + ~1 s start-up, guessed: no run stored)"
        launch.query_one("#launch-suite", Select).value = "classic"
        await wait_for(pilot, lambda: "cannot run" in matrix(app), "the matrix to refuse")
        assert "sqlite, sqlite-sync run(s) only the builtin suite's workloads" in matrix(app)
        assert start.disabled
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, LaunchScreen), "nothing was queued"
        assert not app.hub.outcomes


async def test_launch_sweeps_threads_with_repeats(tmp_path: Path) -> None:
    """Threads ``1,2`` and 2 repeats: the matrix counts 4 runs, Start queues them A-then-repeat
    (dop 1, dop 2, dop 1, dop 2), each run stored with its dop (issue 28)."""
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        launch = await open_launch(pilot)
        reduce_matrix(launch, 1)
        launch.query_one("#launch-threads", Input).value = "1,2"
        launch.query_one("#launch-repeat", Input).value = "2"
        want = "4 runs = 1 host(s) x 1 build(s) x 2 dops x 2 repeats"
        await wait_for(pilot, lambda: matrix(app).startswith(want), "the sweep's matrix")
        await pilot.press("s")
        await wait_for(pilot, lambda: len(app.hub.outcomes) == 4, "the sweep's four runs", 4 * RUN_WAIT_S)
        rows = await app.hub.query(
            lambda store: store.cursor()
            .execute("SELECT i.threads, i.repeat_no, r.threads FROM queue_items i JOIN runs r USING (run_id) "
                     "ORDER BY i.position")
            .fetchall()
        )  # fmt: skip
        assert rows == [(1, 1, 1), (2, 1, 2), (1, 2, 1), (2, 2, 2)]
        assert {o.status for o in app.hub.outcomes} == {"finished"}
