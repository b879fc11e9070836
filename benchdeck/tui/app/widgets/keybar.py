"""The footer as one widget: the keys of the focused screen, drawn as one line, clickable.

Textual's ``Footer`` mounts and styles a widget per key whenever the bindings change; with the
app's ~15 keys that was about a tenth of a second before the first frame and on every screen
shown. ``KeyBar`` reads the same bindings (``screen.active_bindings``: shown, enabled, grouped
by action) and draws them with the theme's footer colours; a click presses the key.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.screen import Screen
from textual.widget import Widget


@dataclass(frozen=True, slots=True)
class KeyItem:
    """One key as shown: where it is on the line, and what pressing it does."""

    key: str
    display: str
    description: str
    enabled: bool
    start: int
    end: int


HELP_ACTION = "toggle_keys"
"""The app's action of ``?``/F1 (the keys panel): always on the line, at the right."""


class KeyBar(Widget):
    """The focused screen's keys on one line (docked at the bottom); the palette key at the right."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--description", "keybar--disabled"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .keybar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keybar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keybar--disabled {
            text-style: dim;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.items: list[KeyItem] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Screen[object]) -> None:
        self.refresh()

    def keys(self) -> tuple[list[tuple[str, str, str, bool]], list[tuple[str, str, str, bool]]]:
        """(key, display, description, enabled) of each shown binding, one per action, and of
        the keys kept at the right end whatever the width: the keys panel's and the palette's
        (at 80 columns the line drops keys: these say where the rest are)."""
        app = self.app
        shown: dict[str, tuple[str, str, str, bool]] = {}
        palette: tuple[str, str, str, bool] | None = None
        help_key: tuple[str, str, str, bool] | None = None
        for key, (node, binding, enabled, _tooltip) in self.screen.active_bindings.items():
            if app.ENABLE_COMMAND_PALETTE and key == app.COMMAND_PALETTE_BINDING:
                palette = (binding.key, app.get_key_display(binding), binding.description, enabled)
            elif node is app and binding.action == HELP_ACTION:
                help_key = help_key or (
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    enabled,
                )
            elif binding.show and binding.action not in shown:
                display = app.get_key_display(binding)
                shown[binding.action] = (binding.key, display, binding.description, enabled)
        return list(shown.values()), [k for k in (help_key, palette) if k is not None]

    def render(self) -> RenderResult:
        styles = (
            self.get_component_rich_style("keybar--key"),
            self.get_component_rich_style("keybar--description"),
            self.get_component_rich_style("keybar--disabled"),
        )
        keys, kept = self.keys()
        right, right_items = self._line(kept, styles)
        width = self.size.width
        line, items = self._line(keys, styles, max(0, width - right.cell_len - (1 if kept else 0)))
        if kept:  # at the right end
            line.append(" " * (width - line.cell_len - right.cell_len))
            offset = line.cell_len
            line.append_text(right)
            items += [replace(i, start=i.start + offset, end=i.end + offset) for i in right_items]
        self.items = items
        return line

    @staticmethod
    def _line(
        keys: list[tuple[str, str, str, bool]],
        styles: tuple[Style, Style, Style],
        room: int | None = None,
    ) -> tuple[Text, list[KeyItem]]:
        """The keys as `` k Description `` pairs, those that fit in ``room`` cells."""
        key_style, text_style, dim = styles
        line = Text(no_wrap=True, overflow="crop", end="")
        items: list[KeyItem] = []
        for key, display, description, enabled in keys:
            part = Text(f" {display} ", key_style if enabled else key_style + dim)
            part.append(f"{description} " if description else "", text_style if enabled else text_style + dim)
            if room is not None and line.cell_len + part.cell_len > room:
                break
            at = line.cell_len
            line.append_text(part)
            items.append(KeyItem(key, display, description, enabled, at, line.cell_len))
        return line, items

    def item_at(self, x: int) -> KeyItem | None:
        return next((item for item in self.items if item.start <= x < item.end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        item = self.item_at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
