"""The key bar (the footer): the focused screen's keys on one line; a click presses a key."""

from __future__ import annotations

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from benchdeck.tui.app.widgets.keybar import KeyBar
from tests.app.helpers import on_screen, settle
from tests.app.storedata import Demo


async def test_keys_follow_the_screen_and_a_click_presses_one(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        runs = on_screen(app, RunsScreen)
        bar = runs.query_one(KeyBar)
        shown = [(i.display, i.description) for i in bar.items]
        assert shown[:3] == [("r", "Reload"), ("/", "Filter"), ("s", "Series")]
        assert ("2", "Compare") in shown
        assert shown[-1] == ("^p", "palette")
        palette = bar.items[-1]
        assert palette.end == bar.size.width, "the palette key sits at the right end"

        compare = next(i for i in bar.items if i.description == "Compare")
        await pilot.click(KeyBar, offset=(compare.start + 1, 0))
        await settle(pilot)
        assert app.current_mode == "compare"
        keys = [(i.display, i.description) for i in app.screen.query_one(KeyBar).items]
        assert keys[:2] == [("b", "Base"), ("a", "Columns")], "the new screen's keys"
        assert ("h", "Host") in keys
        assert ("[ ]", "Tab") in keys, "the tab keys are in the key bar"


async def test_keys_that_do_not_fit_are_left_out_whole(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        assert bar.items[-1].description == "palette"
        assert all(i.end <= bar.size.width for i in bar.items)
        assert len(bar.items) < 10, "not every key fits in 60 columns"
        text = "".join(s.text for s in bar.render_line(0))
        for item in bar.items:
            assert f" {item.display} {item.description} " in text + " "
        assert [(i.display, i.description) for i in bar.items[-2:]] == [("?", "Keys"), ("^p", "palette")], (
            "how to get help stays on the line, whatever the width"
        )
