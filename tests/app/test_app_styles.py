"""The app's start-up savings on Textual's styling: CSS parsed once per set of variables
(tui/app/stylesheet.py) and a screen's first resume not restyling what it just styled
(StyledOnce, tui/app/screens/base.py); neither may change what is drawn."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet as textual_stylesheet
from textual.color import Color
from textual.css.stylesheet import StylesheetParseError

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.stylesheet import KeptParseStylesheet

CSS = "Static { color: $fg; }"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Each CSS text Textual's parser is given, with the rest of what it parses it with: where
    it is from, its tie breaker (a widget class's depth) and the id of the variables' tokens
    (new ones for new variables). A spy on the real parser."""
    seen: list[tuple[str, Any]] = []
    real = textual_stylesheet.parse

    def spy(scope: str, css: str, read_from: Any, **kwargs: Any) -> Any:
        seen.append((css, (scope, read_from, kwargs["tie_breaker"], id(kwargs["variable_tokens"]))))
        return real(scope, css, read_from, **kwargs)

    monkeypatch.setattr(textual_stylesheet, "parse", spy)
    return seen


def colour(sheet: KeptParseStylesheet) -> Color:
    (rule,) = sheet.rules
    return rule.styles.color


def test_same_variables_parse_nothing_again_new_ones_parse_again(parses: list[tuple[str, Any]]) -> None:
    sheet = KeptParseStylesheet(variables={"fg": "red"})
    sheet.add_source(CSS, ("test.tcss", ""))
    sheet.parse()
    sheet.set_variables({"fg": "red"})
    sheet.reparse()
    sheet.reparse()
    assert [css for css, _ in parses] == [CSS], "parsed once for one set of variables"
    assert colour(sheet) == Color.parse("red")
    sheet.set_variables({"fg": "blue"})  # (a theme change)
    sheet.reparse()
    assert [css for css, _ in parses] == [CSS, CSS]
    assert colour(sheet) == Color.parse("blue")


def test_bad_css_is_reported_again_and_the_rules_in_use_stay() -> None:
    sheet = KeptParseStylesheet(variables={"fg": "red"})
    sheet.add_source(CSS, ("good.tcss", ""))
    sheet.parse()
    sheet.add_source("Static { color: nonsense-colour; }", ("bad.tcss", ""))
    for _ in range(2):  # once parsed, then from the cache: an error each time, as Textual's
        with pytest.raises(StylesheetParseError):
            sheet.reparse()
    assert colour(sheet) == Color.parse("red")


async def test_the_app_parses_each_source_once_before_its_first_frame(
    config_dir: Path, tmp_path: Path, parses: list[tuple[str, Any]]
) -> None:
    """Textual 8.2's own stylesheet parsed App's and the screen's CSS again at each reparse."""
    app = BenchdeckApp(tmp_path / "new.duckdb")  # no store file: Launch
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "LaunchScreen"
        twice = sorted({css[:40] for css, how in parses if parses.count((css, how)) > 1})
        assert twice == [], "parsed more than once with the same variables"
        assert isinstance(app.stylesheet, KeptParseStylesheet)
        assert len({how[-1] for _, how in parses}) <= 2, "Textual's defaults, then the theme's"
        before = app.screen.styles.background
        app.theme = "benchdeck-light" if app.theme != "benchdeck-light" else "benchdeck-dark"
        await pilot.pause()
        assert app.screen.styles.background != before, "a theme change restyles (parsed again)"


async def test_a_screen_restyles_on_its_later_resumes_not_its_first(
    config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's first ScreenResume restyled every widget Launch had just styled as they
    mounted; a later resume (after another screen, a theme change meanwhile) still restyles."""
    from benchdeck.tui.app.screens.launch import LaunchScreen

    restyled: list[str] = []
    real = LaunchScreen.update_node_styles

    def spy(self: LaunchScreen, animate: bool = True) -> None:
        restyled.append(app.current_mode)
        real(self, animate)

    monkeypatch.setattr(LaunchScreen, "update_node_styles", spy)
    app = BenchdeckApp(tmp_path / "new.duckdb")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LaunchScreen)
        assert restyled == [], "the first resume restyled Launch"
        launch = app.screen
        before = launch.styles.background
        await app.switch_mode("live")
        app.theme = "benchdeck-light" if app.theme != "benchdeck-light" else "benchdeck-dark"
        await pilot.pause()
        await app.switch_mode("launch")
        await pilot.pause()
        assert restyled, "a later resume restyles"
        assert app.screen is launch
        assert launch.styles.background != before, "restyled for the new theme"


async def start_on_launch(db: Path) -> tuple[KeptParseStylesheet, list[str]]:
    """An app start on Launch (no store file), ended: its stylesheet and its rules."""
    app = BenchdeckApp(db)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "LaunchScreen"
        sheet = app.stylesheet
        assert isinstance(sheet, KeptParseStylesheet)
        return sheet, [described(rule) for rule in sheet.rules]


def described(rule: Any) -> str:
    """A rule set, selectors and declarations (RuleSet.css fails on some of Textual's own)."""
    declared = sorted((k, repr(v)) for k, v in rule.styles.get_rules().items())
    return repr((rule.selector_set, declared, rule.is_default_rules, rule.tie_breaker, rule.errors))


async def test_the_next_start_loads_what_this_one_parsed(
    config_dir: Path, cache_dir: Path, tmp_path: Path, parses: list[tuple[str, Any]]
) -> None:
    """The sources parsed before Launch's first frame are kept as the app ends; the next start
    with the same variables parses none of them and ends with the same rules."""
    first, rules = await start_on_launch(tmp_path / "a.duckdb")
    assert first.parsed_here == 0, "kept at the end"
    assert len(list(cache_dir.glob("css-*.pickle"))) == 1
    parsed = len(parses)
    second, again = await start_on_launch(tmp_path / "b.duckdb")
    assert parses[parsed:] == [], "the second start parsed CSS"
    assert second.parsed_here == 0
    assert again == rules


@pytest.mark.parametrize("spoil", ["damaged", "writable by others", "made for other variables"])
async def test_a_kept_parse_not_fit_to_load_is_parsed_and_kept_anew(
    config_dir: Path, cache_dir: Path, tmp_path: Path, parses: list[tuple[str, Any]], spoil: str
) -> None:
    """A damaged file, one another user could have written (a pickle runs code as it loads) or
    one made for other variables is not loaded: the sources are parsed as before, and the file
    is written anew."""
    _, rules = await start_on_launch(tmp_path / "a.duckdb")
    (kept,) = cache_dir.glob("css-*.pickle")
    if spoil == "damaged":
        kept.write_bytes(b"not a pickle")
    elif spoil == "writable by others":
        kept.chmod(0o666)
    else:  # (a file whose name's 32-bit hash collides: it says what it was made for)
        made_for, rules_kept = pickle.loads(kept.read_bytes())
        kept.write_bytes(pickle.dumps((made_for + "\nother variables", rules_kept)))
    parsed = len(parses)
    _, again = await start_on_launch(tmp_path / "b.duckdb")
    assert len(parses) > parsed, "parsed again"
    assert again == rules
    assert kept.stat().st_mode & 0o777 == 0o600, "written anew"
    parsed = len(parses)
    await start_on_launch(tmp_path / "c.duckdb")
    assert parses[parsed:] == [], "and loaded by the start after"
