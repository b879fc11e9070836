"""Every key binding is also a command in the palette; the palette runs them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.actions import parse
from textual.binding import Binding
from textual.command import CommandPalette
from textual.screen import Screen

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.commands import BenchdeckCommands
from benchdeck.tui.app.nav import NAV
from benchdeck.tui.app.screens.compare import CompareScreen
from benchdeck.tui.app.state.selection import Selection
from tests.app.helpers import settle
from tests.app.storedata import BASE, HOST, NEW, Demo

SIZE = (100, 30)


def binding_ids(node: Any) -> set[str]:
    return {b.id for b in node.BINDINGS if isinstance(b, Binding) and b.id}


def command_names(screen: Screen[Any]) -> list[str]:
    return [name for name, _, _ in BenchdeckCommands(screen).commands()]


async def test_each_screen_offers_all_its_bindings_as_commands(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.selection = Selection(HOST, BASE, (NEW,))
        for nav in NAV:
            await pilot.press(nav.key)
            await settle(pilot)
            screen = app.screen
            names = command_names(screen)
            prefix = type(screen).__name__.removesuffix("Screen") + ": "
            for b in type(screen).BINDINGS:
                assert isinstance(b, Binding)
                assert b.id, f"{type(screen).__name__} binding {b.key} has no id"
                assert b.description, f"{b.id} has no description"
                _, action, params = parse(b.action)
                if screen.check_action(action, params) is not False:  # hidden when it does not apply
                    assert prefix + b.description in names, b.id
            for b in app.BINDINGS:
                assert isinstance(b, Binding)
                _, action, params = parse(b.action)
                if app.check_action(action, params) is not False:
                    assert b.description in names
            assert "Theme: benchdeck-light" in names
        assert binding_ids(app) >= {f"app.mode.{n.mode}" for n in NAV}


async def test_palette_runs_a_screen_action_and_switches_theme(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Compare", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)

        await pilot.press("ctrl+p")
        await pilot.press(*"Theme: benchdeck-colorb", "enter")
        await settle(pilot)
        assert app.theme == "benchdeck-colorblind"


async def test_one_theme_entry_keys_panel_and_escape(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)] + command_names(app.screen)
        assert titles.count("Theme") == 1, titles
        await pilot.press("question_mark")
        assert app.screen.query("HelpPanel"), "? shows the keys"
        await pilot.press("escape")
        assert not app.screen.query("HelpPanel"), "Esc hides them"
        await pilot.press("f1")
        assert app.screen.query("HelpPanel")
        await pilot.press("f1")
        assert not app.screen.query("HelpPanel")


async def test_screenshot_says_where_it_saved_without_a_downloads_dir(
    demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/Downloads there
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(tmp_path / "home" / "Downloads"))
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        [shot] = [c for c in app.get_system_commands(app.screen) if c.title == "Screenshot"]
        shot.callback()
        await settle(pilot)
        [saved] = list(here.glob("benchdeck-*.svg"))
        [note] = [n.message for n in app._notifications if n.title == "Screenshot"]
        assert note.startswith(f"saved {saved} (")
        assert "Downloads does not exist" in note
