"""A build started in the app (palette ``Build: RECIPE VARIANT on HOST``) shows on Live like a run,
its log followed, and once finished Launch offers the registered build. A real (tiny) compile."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.css.query import NoMatches
from textual.widgets import SelectionList

from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.commands import _build_commands
from benchdeck.tui.app.screens.live import LiveScreen
from tests.app.test_launch_live import SIZE, headline, open_launch, wait_for

pytestmark = pytest.mark.integration  # a real (tiny) compile


@pytest.fixture(autouse=True)
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "tiny.c").write_text("int tiny(void) { return 42; }\n")
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(
        f"""
[hosts.local]
transport = "local"
workdir = "{tmp_path / "work"}"

[recipes.tiny]
dbms = "sqlite"
version = "1.0"
stem = "tiny1"
source = "{src}"
binary = "lib/libtiny.so"
compiler = "gcc"
build = [["gcc", "{{cflags}}", "-fPIC", "-shared", "-o", "{{builddir}}/libtiny.so", "{{source}}/tiny.c"]]
install = [["install", "-D", "{{builddir}}/libtiny.so", "{{prefix}}/lib/libtiny.so"]]
"""
    )
    monkeypatch.setenv(INVENTORY_ENV, str(cfg))
    return cfg


def shown(app: BenchdeckApp) -> str:
    """The Live headline, or "" before the host's pane is there."""
    try:
        return headline(app)
    except NoMatches:
        return ""


async def test_palette_build_runs_on_live_and_is_offered_on_launch(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await open_launch(pilot)  # Launch read the inventory: the palette knows its recipes
        commands = {name: run for name, _, run in _build_commands(app)}
        assert "Build: tiny o2nofp on local" in commands
        assert "Build: tiny native on local" in commands
        commands["Build: tiny o2nofp on local"]()
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen), "the Live screen", 10)
        await wait_for(pilot, lambda: "finished" in shown(app), "the build to finish", 60)
        text = headline(app)
        assert "tiny1_rel_o2nofp" in text
        assert "build" in text
        view = next(iter(app.hub.model.runs.values()))
        assert any("built in" in line for line in view.log)
        assert any("install" in line for line in view.log)  # the steps, followed live
    # a benchdeck opened later offers the registered build on Launch
    again = BenchdeckApp(tmp_path / "bd.duckdb")
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_launch(pilot)
        builds = screen.query_one("#launch-builds", SelectionList)
        assert "tiny1_rel_o2nofp" in [o.value for o in builds.options]
