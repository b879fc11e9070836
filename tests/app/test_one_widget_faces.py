"""The header and the drop-downs drawn as one widget each (tui/app/widgets/app_header.py,
choice.py): they behave as Textual's Header and Select did, and are one widget."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.command import CommandPalette
from textual.content import Content
from textual.widgets import Select
from textual.widgets._select import SelectOverlay

from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.choice import Choice, ChoiceFace


class HeaderApp(App[None]):
    TITLE = "benchdeck"

    def compose(self) -> ComposeResult:
        yield AppHeader()


def header_line(app: App[None]) -> str:
    rendered = app.query_one(AppHeader).render()
    assert isinstance(rendered, Content)
    return rendered.plain


async def test_the_header_shows_the_title_and_follows_the_sub_title() -> None:
    app = HeaderApp()
    async with app.run_test(size=(60, 5)) as pilot:
        line = header_line(app)
        assert line.startswith(" ⭘ ")
        assert "benchdeck" in line
        assert len(line) == 60
        app.sub_title = "bd.duckdb"
        await pilot.pause()
        line = header_line(app)
        assert "benchdeck — bd.duckdb" in line
        # centred between the icon's 8 columns and the clock's 10, as Textual's Header
        start = line.index("benchdeck")
        assert abs((start - 8) - (60 - 10 - start - len("benchdeck — bd.duckdb"))) <= 1
        app.sub_title = "x" * 100  # too long: cut with an ellipsis, the line stays one line
        await pilot.pause()
        line = header_line(app)
        assert "…" in line
        assert len(line) == 60
        assert len(app.query_one(AppHeader).children) == 0


async def test_a_click_on_the_icon_opens_the_command_palette() -> None:
    app = HeaderApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.click(AppHeader, offset=(30, 0))  # the title: nothing
        await pilot.pause()
        assert not isinstance(app.screen, CommandPalette)
        await pilot.click(AppHeader, offset=(1, 0))
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)


class ChoiceApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[object] = []

    def compose(self) -> ComposeResult:
        yield Choice[str]([("alpha", "a"), ("beta", "b")], value="a", allow_blank=False, id="one")
        yield Choice[str]([("gamma", "g")], prompt="pick one", id="blank", compact=True)

    def on_select_changed(self, event: Select.Changed) -> None:
        self.changes.append(event.value)


def face_line(app: App[None], selector: str) -> str:
    face = app.query_one(f"{selector} ChoiceFace", ChoiceFace)
    rendered = face.render()
    assert isinstance(rendered, Content)
    return rendered.plain


def is_open(choice: Choice[str]) -> bool:
    return bool(choice.expanded)


async def test_a_choice_is_picked_with_the_keys_as_a_select() -> None:
    app = ChoiceApp()
    async with app.run_test(size=(40, 12)) as pilot:
        one = app.query_one("#one", Choice)
        assert "alpha" in face_line(app, "#one")
        assert face_line(app, "#one").rstrip().endswith("▼")
        one.focus()
        await pilot.press("enter")
        assert is_open(one)
        assert face_line(app, "#one").rstrip().endswith("▲")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert one.value == "b"
        assert not is_open(one)
        assert "beta" in face_line(app, "#one")
        assert face_line(app, "#one").rstrip().endswith("▼")
        assert app.changes[-1] == "b"


async def test_a_blank_choice_shows_its_prompt_on_one_line_however_narrow() -> None:
    app = ChoiceApp()
    async with app.run_test(size=(40, 12)) as pilot:
        blank = app.query_one("#blank", Choice)
        assert blank.is_blank()
        assert "pick one" in face_line(app, "#blank")
        face = blank.query_one(ChoiceFace)
        assert len(face.children) == 0
        assert face.size.height == 1
        blank.styles.width = 1  # squeezed (a picker bar wider than the screen)
        await pilot.pause()
        assert face.size.height == 1


async def test_the_option_list_is_made_at_the_first_opening_with_the_options_of_then() -> None:
    app = ChoiceApp()
    async with app.run_test(size=(40, 12)) as pilot:
        blank = app.query_one("#blank", Choice)
        assert len(blank.query(SelectOverlay)) == 0  # not made for the first frame
        blank.set_options([("delta", "d"), ("epsilon", "e")])
        blank.value = "e"
        await pilot.pause()
        assert "epsilon" in face_line(app, "#blank")
        assert len(blank.query(SelectOverlay)) == 0
        await pilot.click(ChoiceFace, offset=(2, 0))  # the first face: #one
        await pilot.pause()
        assert is_open(app.query_one("#one", Choice))
        await pilot.press("escape")
        await pilot.pause()
        blank.focus()
        await pilot.press("enter")
        await pilot.pause()
        overlay = blank.query_one(SelectOverlay)
        assert overlay.option_count == 3  # the blank line and the options set before it was made
        assert overlay.highlighted == 2  # on the value
        assert overlay.compact  # as the picker
        await pilot.press("up", "enter")
        await pilot.pause()
        assert blank.value == "d"
        assert app.changes[-1] == "d"
