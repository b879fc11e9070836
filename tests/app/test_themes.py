"""Themes: bundled and user themes, rQPS variables, the choice remembered across restarts."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.themes.loader import (
    DEFAULT_THEME,
    ThemeFileError,
    bundled_themes,
    load_theme_file,
    rqps_defaults,
)
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.state.settings import load_ui_settings, settings_path
from benchdeck.tui.app.widgets.rqps import rqps_colours
from tests.app.helpers import settle

SIZE = (80, 24)


def test_bundled_themes_define_rqps_colours() -> None:
    themes = {t.name: t for t in bundled_themes()}
    assert set(themes) == {"benchdeck-dark", "benchdeck-light", "benchdeck-colorblind"}
    for theme in themes.values():
        assert {"rqps-bad", "rqps-good", "rqps-neutral"} <= set(theme.variables)
    cb = themes["benchdeck-colorblind"].variables
    assert (cb["rqps-bad"], cb["rqps-good"]) == ("#E69F00", "#56B4E9"), "orange/blue, no red/green"


async def test_theme_choice_survives_a_restart(config_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        assert not settings_path().exists(), "nothing is written until the user picks a theme"
        await pilot.press("ctrl+t")
        await settle(pilot)
        chosen = app.theme
        assert chosen != DEFAULT_THEME
    assert settings_path() == config_dir / "ui.toml"
    assert load_ui_settings().theme == chosen

    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == chosen
        assert rqps_colours(app).bad == app.current_theme.variables["rqps-bad"]


async def test_user_theme_and_textual_theme_defaults(config_dir: Path, tmp_path: Path) -> None:
    (config_dir / "themes").mkdir(parents=True)
    (config_dir / "themes" / "mine.toml").write_text(
        'name = "mine"\nprimary = "#112233"\ndark = true\n[variables]\nrqps-bad = "#FF00FF"\n'
    )
    (config_dir / "ui.toml").write_text('theme = "mine"\n')
    app = BenchdeckApp(tmp_path / "s.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "mine"
        assert rqps_colours(app).bad == "#FF00FF"
        assert rqps_colours(app).good == rqps_defaults(app.current_theme)["rqps-good"].upper()
        app.theme = "nord"  # a Textual theme without rQPS variables: defaults from its colours
        await settle(pilot)
        assert rqps_colours(app).bad == (app.current_theme.error or "").upper()
    assert load_ui_settings().theme == "nord"


async def test_bad_settings_and_theme_files_are_reported_not_fatal(config_dir: Path, tmp_path: Path) -> None:
    (config_dir / "themes").mkdir(parents=True)
    (config_dir / "themes" / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    (config_dir / "ui.toml").write_text("theme = [\n")
    app = BenchdeckApp(tmp_path / "s.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        messages = [n.message for n in app._notifications]
        assert any("broken.toml: key 'primary'" in m for m in messages)
        assert any("ui.toml" in m for m in messages)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('name = "x"\nprimary = "#000"\nsparkle = 1\n', "unknown key 'sparkle'"),
        ('primary = "#000"\n', "key 'name'"),
        ('name = "x"\nprimary = "#000"\n[variables]\nrqps-bad = "nope"\n', "variables.rqps-bad"),
        ('name = "x"\nprimary = "#000"\ndark = "yes"\n', "key 'dark'"),
        ("name = \n", "line 1"),
    ],
)
def test_theme_file_errors_name_the_file_and_key(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ThemeFileError, match=str(path)) as info:
        load_theme_file(path)
    assert error in str(info.value)
