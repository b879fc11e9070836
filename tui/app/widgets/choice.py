"""A drop-down (Textual's ``Select``) whose closed face is one widget instead of four.

Textual's ``Select`` shows its value with a ``SelectCurrent`` holding three ``Static``s (the
label, a down arrow and an up arrow, one hidden): seven widgets per drop-down with the option
list, each mounted, styled and laid out. Launch and Runs, the two first screens, have two
each: ~0.11 G instructions of a first frame of ~1.4 G (valgrind, tui/app/screens/launch.py's
note). :class:`Choice` is ``Select`` itself (same messages, keys, overlay, value and options)
with a face that draws the label and the arrow in one ``render``, cell for cell as before.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult, RenderResult
from textual.content import Content
from textual.geometry import Size
from textual.style import Style
from textual.widgets import Select
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay, SelectType

ARROW_DOWN, ARROW_UP = "▼", "▲"


class ChoiceFace(SelectCurrent):
    """``SelectCurrent`` drawn by itself: the label, then the arrow (up while open)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"choice-face--arrow", "choice-face--placeholder"}
    DEFAULT_CSS = """
    ChoiceFace {
        .choice-face--arrow { color: $foreground 50%; }
        .choice-face--placeholder { color: $foreground 50%; }
    }
    """

    @property
    def is_container(self) -> bool:  # (a Horizontal without children: sized and drawn by render)
        return False

    @property
    def is_scrollable(self) -> bool:
        return False

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1  # (one line however narrow: the label is cut, never wrapped)

    def compose(self) -> ComposeResult:
        yield from ()

    def update(self, label: RenderableType | NoSelection) -> None:
        self.label = label
        self.has_value = not isinstance(label, NoSelection)
        self.refresh()

    def _style(self, component: str) -> Style:
        return Style.from_rich_style(self.get_component_rich_style(component))

    def render(self) -> RenderResult:
        width = self.content_region.width
        label = self.label
        if isinstance(label, NoSelection):
            face = Content.styled(self.placeholder, self._style("choice-face--placeholder"))
        elif isinstance(label, str):
            face = Content(label)
        elif isinstance(label, Content):
            face = label
        else:
            face = Content.from_rich_text(label)  # type: ignore[arg-type]
        expanded = isinstance(self.parent, Select) and self.parent.expanded
        arrow = Content.styled(ARROW_UP if expanded else ARROW_DOWN, self._style("choice-face--arrow"))
        room = max(0, width - 2)  # the arrow and the space before it
        face = face.truncate(room, ellipsis=True, pad=True)
        return Content.assemble(face, " ", arrow)


class Choice(Select[SelectType]):
    """``Select`` with a one-widget face (:class:`ChoiceFace`)."""

    def compose(self) -> ComposeResult:
        yield ChoiceFace(self.prompt)
        yield SelectOverlay(type_to_search=self._type_to_search).data_bind(compact=Select.compact)

    def _watch_expanded(self, expanded: bool) -> None:
        super()._watch_expanded(expanded)
        for face in self.query(ChoiceFace):
            face.refresh()
