"""Compare's ``p``: the profiles of the chart's column, else of the first column that has some
(it looked at col-1 only, and its message dropped the configs: "profiles of sqlite and sqlite")."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.profile import ProfileScreen
from benchdeck.tui.app.state.selection import Selection
from tests.app.helpers import on_screen, settle
from tests.app.test_compare import open_compare
from tests.cli.test_profile_columns import HOST, profiled_run
from tests.profiles.data import BASE_STACKS, NEW_STACKS


def _store(path: Path, serial_profiled: bool) -> Path:
    """sqlite (default config) profiled; sqlite-sync without a profile; sqlite:serial with one
    when ``serial_profiled``."""
    with Store.open(path) as store:
        profiled_run(store, "sqlite", "", BASE_STACKS)
        profiled_run(store, "sqlite-sync", "", None)
        profiled_run(store, "sqlite", "serial", NEW_STACKS if serial_profiled else None)
    return path


SEL = Selection(HOST, "sqlite", ("sqlite-sync", "sqlite:serial"), config="")


async def press_p(app: BenchdeckApp, pilot: Pilot[None]) -> None:
    await settle(pilot)
    await open_compare(app, pilot, SEL)
    await pilot.press("p")
    await settle(pilot)


async def test_p_profiles_the_column_that_has_profiles(tmp_path: Path) -> None:
    app = BenchdeckApp(_store(tmp_path / "s.duckdb", serial_profiled=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await press_p(app, pilot)
        req = on_screen(app, ProfileScreen).request
        assert (req.base, req.base_config, req.column, req.config) == ("sqlite", "", "sqlite", "serial")


async def test_p_without_profiles_names_the_configs(tmp_path: Path) -> None:
    app = BenchdeckApp(_store(tmp_path / "s.duckdb", serial_profiled=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await press_p(app, pilot)
        said = [n.message for n in app._notifications] + [str(w.render()) for w in app.screen.query("Static")]
        assert any("has profiles of sqlite:default and sqlite-sync:default" in m for m in said), said
