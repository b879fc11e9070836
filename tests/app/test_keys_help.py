"""The keys panel (? / F1): the screen's own keys first, each key once."""

from __future__ import annotations

from textual.geometry import Region

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.keys_help import KeysHelp, ScreenFirstTable, key_rows
from tests.app.helpers import settle
from tests.app.storedata import BASE, HOST, NEW, Demo
from tests.app.test_compare import open_compare


async def test_compare_keys_come_first_and_once(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        await pilot.press("question_mark")
        await settle(pilot)
        assert app.screen.query(KeysHelp), "the panel is ours"
        sections = key_rows(app.screen)
        assert sections[0][0] == "This screen"
        first = [row.keys for row in sections[0][1]]
        assert first[:3] == ["b", "a", "x"], first
        every = [row.keys for _title, rows in sections for row in rows]
        assert "[ ]" in every
        assert "[" not in every, "[ is shown in [ ] already"
        assert "? f1" in every, str(every)
        assert "^q q" in every
        assert sections[-1][0] == "Everywhere"

        table = app.screen.query_one(ScreenFirstTable)
        lines = [s.text for s in table.render_lines(Region(0, 0, *table.size))]
        shown = "\n".join(lines[:34])
        for description in ("Base", "Columns", "Export", "Host", "Group stat"):
            assert description in shown, f"{description} is above the fold at 36 rows"
        await pilot.press("question_mark")
        await settle(pilot)
        assert not app.screen.query(KeysHelp), "? hides it again"


async def test_the_focused_widget_is_named_in_words(demo: Demo) -> None:
    """The middle section was headed "Here (RunsTable)": a class name, not what the user sees."""
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        titles = [title for title, _rows in key_rows(app.screen)]
        assert "Here (table)" in titles, titles
        assert not any("Table)" in t or "Screen" in t for t in titles), titles
