"""A drop-down (Textual's ``Select``) whose closed face is one widget instead of four.

Textual's ``Select`` shows its value with a ``SelectCurrent`` holding three ``Static``s (the
label, a down arrow and an up arrow, one hidden): seven widgets per drop-down with the option
list, each mounted, styled and laid out. Launch and Runs, the two first screens, have two
each: ~0.11 G instructions of a first frame of ~1.4 G (valgrind: the two removed from a
Launch otherwise the same; bench/bench_startup_instructions.py counts the whole start).
:class:`Choice` is ``Select`` itself (same messages, keys, overlay, value and options) with a
face that draws the label and the arrow in one ``render``, cell for cell as before.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult, RenderResult
from textual.containers import Horizontal
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

    def __init__(self, placeholder: str, *, has_value: bool = False) -> None:
        """SelectCurrent's, and ``has_value``: it shows a value once mounted (its class set
        here, not by its watcher as it mounts: a restyle, before the first frame)."""
        Horizontal.__init__(self, classes="-has-value" if has_value else None)
        self.placeholder = placeholder
        self.label: RenderableType | NoSelection = Select.NULL
        if has_value:
            self.set_reactive(ChoiceFace.has_value, True)

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
    """``Select`` with a one-widget face (:class:`ChoiceFace`) and its option list made when it
    is first opened (``Select`` mounts and styles a hidden list all the same, before the first
    frame)."""

    def compose(self) -> ComposeResult:
        yield ChoiceFace(self.prompt, has_value=not self._allow_blank or self._value != self.NULL)

    def _overlay(self, *, make: bool = False) -> SelectOverlay | None:
        """The option list; made (and filled) first if ``make``, else None until then."""
        found = self.query(SelectOverlay)
        if found:
            return found.first()
        if not make:
            return None
        overlay = SelectOverlay(type_to_search=self._type_to_search)
        overlay.compact = self.compact  # (Select binds it in compose; no picker changes it later)
        self.mount(overlay)  # (in the DOM at once: queried, filled and focused below)
        super()._setup_options_renderables()
        return overlay

    def _setup_options_renderables(self) -> None:
        if self._overlay() is not None:
            super()._setup_options_renderables()

    def _watch_value(self, value: SelectType | NoSelection) -> None:
        """Select's: the face shows the value's prompt (the list, once made, highlights it)."""
        self._value = value
        faces = self.query(ChoiceFace)
        if not faces:
            return
        face = faces.first()
        if value == self.NULL:
            face.update(self.NULL)
        else:
            for index, (prompt, option) in enumerate(self._options):
                if option == value:
                    overlay = self._overlay()
                    if overlay is not None:
                        overlay.highlighted = index
                    face.update(prompt)
                    break
        self.post_message(self.Changed(self, value))

    def _watch_expanded(self, expanded: bool) -> None:
        if expanded:
            self._overlay(make=True)
        super()._watch_expanded(expanded)
        for face in self.query(ChoiceFace):
            face.refresh()

    def action_show_overlay(self) -> None:
        self._overlay(make=True)
        super().action_show_overlay()

    def _watch_prompt(self, prompt: str) -> None:
        if self.is_mounted and self._overlay() is None:  # (the list takes it when it is made)
            for face in self.query(ChoiceFace):
                face.placeholder = prompt
                if self.value == self.NULL:
                    face.update(self.NULL)
            return
        super()._watch_prompt(prompt)
