"""The header as one widget: the palette icon, the title and the store, drawn as one line.

Textual's ``Header`` is four widgets (the header, its icon, its title and the clock's space),
each mounted, styled and drawn, and watches four attributes that each set the title again: a
visible share of a first frame (a bare Textual app with and without it on a pty,
bench/bench_tui.py's method). ``AppHeader`` draws the same line, cell for cell (the icon in
the first 8 columns, the title centred between them and the clock's 10 columns, cut with an
ellipsis when too long), and a click on the icon opens the command palette, as there.
"""

from __future__ import annotations

from textual import events
from textual.app import RenderResult
from textual.content import Content
from textual.widget import Widget

ICON = "⭘"
ICON_WIDTH = 8  # Textual's HeaderIcon: 8 columns, the icon after one of padding
CLOCK_WIDTH = 10  # ... and HeaderClockSpace: 10 columns on the right, kept for the centring


class AppHeader(Widget):
    """One line at the top: ⭘ (click: command palette), then "title — sub-title" centred."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    AppHeader {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    """

    def _on_mount(self, _: events.Mount) -> None:
        if self.app.ENABLE_COMMAND_PALETTE:
            self.tooltip = "Click ⭘ (or press ctrl+p) for the command palette"
        for obj in (self.app, self.screen):
            for name in ("title", "sub_title"):
                self.watch(obj, name, self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    @property
    def screen_title(self) -> str:
        """The screen's title, else the app's (as Textual's Header)."""
        title = self.screen.title
        return title if title is not None else self.app.title

    @property
    def screen_sub_title(self) -> str:
        """The screen's sub-title, else the app's (the store's place, here)."""
        sub_title = self.screen.sub_title
        return sub_title if sub_title is not None else self.app.sub_title

    def render(self) -> RenderResult:
        width = self.size.width
        icon = Content(ICON).pad(1, ICON_WIDTH - 2)
        middle = max(0, width - ICON_WIDTH - CLOCK_WIDTH)
        title = self.app.format_title(self.screen_title, self.screen_sub_title)
        if title.cell_length > middle:
            title = title.truncate(middle, ellipsis=True)
        left = (middle - title.cell_length) // 2
        return Content.assemble(icon, title.pad(left, middle - title.cell_length - left), " " * CLOCK_WIDTH)

    async def _on_click(self, event: events.Click) -> None:
        if event.x < ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE:
            event.stop()
            await self.run_action("app.command_palette")
