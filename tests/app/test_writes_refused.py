"""Writes the app cannot make are refused up front, in one line that says why, and a failed
start on Launch is never silent.

- A store another process holds (a real DuckDB process keeps it open) is read from a snapshot
  copy, which takes no write: Launch's start, a build and a queue asked of the hub (what
  re-run does) are refused with the reason, and nothing runs or is stored (Runs' tag, delete
  and re-run: tests/app/test_locked_store.py).
- Launch's start failing for a reason of its own (here the inventory file broken after Launch
  read it) is an error notification: Launch is no BenchdeckScreen and a worker's StateChanged
  does not bubble to the app.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage.db import Store, StoreNotWritable
from benchdeck.tui.app import commands
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.launch import LaunchScreen
from tests.app.helpers import settle
from tests.app.storedata import Demo
from tests.app.test_launch_live import SIZE, WORKLOAD, open_launch, wait_for
from tests.app.test_locked_store import locked

__all__ = ["locked"]  # the fixture: the demo store, held by another process


def errors(app: BenchdeckApp) -> list[str]:
    return [n.message for n in app._notifications if n.severity == "error"]


async def test_every_write_on_a_snapshot_is_refused_with_the_reason(locked: Demo) -> None:
    app = BenchdeckApp(locked.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sub_title == "demo.duckdb (read-only snapshot)"
        await pilot.press("4")
        await open_launch(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, LaunchScreen), "no switch to Live: nothing started"
        [launch_error] = errors(app)
        assert launch_error.startswith("cannot run: store ")
        assert "in use by another process: showing a read-only snapshot" in launch_error

        commands._start_build(app, "local", "mysql", "rel")  # the palette's Build entry
        await settle(pilot)
        assert [e for e in errors(app) if e.startswith("cannot build: store ")], errors(app)
        with pytest.raises(StoreNotWritable, match="read-only snapshot"):  # re-run's way in
            await app.hub.start_queue(["local"], ["sqlite"], [WORKLOAD], RunOptions(duration_s=2))
        assert not app.hub.model.runs
        assert not app.hub.model.queues
    with Store.open_for_reading(locked.path) as store, store.reading() as cur:
        assert cur.execute("SELECT count(*) FROM runs").fetchone() == (35,)
        assert cur.execute("SELECT count(*) FROM queue_items").fetchone() == (0,)


async def test_a_failed_start_on_launch_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(f'[hosts.local]\ntransport = "local"\nworkdir = "{tmp_path / "work"}"\n')
    monkeypatch.setenv(INVENTORY_ENV, str(cfg))
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await open_launch(pilot)  # an empty store opens on Launch, its inventory read
        cfg.write_text("[hosts.local\n")  # broken meanwhile: Start reads it again
        await pilot.press("s")
        await wait_for(pilot, lambda: errors(app), "an error notification")
        [error] = errors(app)
        assert "benchdeck.toml" in error, error
        assert isinstance(app.screen, LaunchScreen)
        assert not app.hub.model.runs
