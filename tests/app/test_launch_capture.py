"""Launch's "perf capture" choice reaches the run, and Live counts the windows as they are
stored: the built-in SQLite workload runs for real on this machine, with the real perf."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select, Static

from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.live import LiveScreen
from tests.app.helpers import on_screen, static_text
from tests.app.test_launch_live import (
    RUN_WAIT_S,
    SIZE,
    UI_WAIT_S,
    inventory,
    matrix,
    open_launch,
    outcome,
    reduce_matrix,
    wait_for,
)

pytestmark = pytest.mark.integration  # a real run with perf, from Launch
__all__ = ["inventory"]  # the autouse fixture: only the local host, in the test's tmp dir

# perf stat's default window is 10 s (CaptureOptions): a 12 s run takes one whole window
SECONDS = 12


def windows(store: Store, run_id: int) -> tuple[int, int, int]:
    """(counter windows, cpu windows, gaps) stored for the run."""
    return tuple(  # type: ignore[return-value]
        store.scalar(f"SELECT count(*) FROM {table} WHERE run_id = ?", [run_id])
        for table in ("counter_windows", "profile_windows", "capture_gaps")
    )


async def test_launchs_capture_choice_reaches_the_run_and_live_counts_its_windows(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        launch = await open_launch(pilot)
        reduce_matrix(launch, SECONDS)
        launch.query_one("#launch-profile", Select).value = "counters,cpu"
        await wait_for(pilot, lambda: matrix(app).startswith("1 runs = 1 host(s)"), "the reduced matrix")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen), "the Live screen")
        live = on_screen(app, LiveScreen)

        def perf() -> str:
            return static_text(live.query_one(".live-perf", Static))

        await wait_for(pilot, lambda: perf().startswith("perf: 0 counter windows"), "Live's perf line")
        out = await outcome(pilot, app, within=RUN_WAIT_S)
        assert out.status == "finished", out.error
        n_counters, n_cpu, n_gaps = await app.hub.query(lambda store: windows(store, out.run_id))
        assert n_counters >= 1, "the run captured what Launch asked for"
        said = "perf: {} counter window{}, {} cpu window{}, {} gap{}".format(
            *(x for n in (n_counters, n_cpu, n_gaps) for x in (n, "" if n == 1 else "s"))
        )
        await wait_for(pilot, lambda: perf() == said, f"Live's line to say {said!r}", UI_WAIT_S)
        assert live.query_one(".live-perf", Static).display
