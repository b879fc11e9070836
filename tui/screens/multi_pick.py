"""A dialog to pick several names at once (Compare's columns): space toggles, enter applies."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, SelectionList

from tui.screens.base import tcss


class MultiPickDialog(ModalScreen[list[str] | None]):
    """Tick any of ``choices`` (label, value); returns the ticked values in the list's order."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "apply", "Apply", id="dialog.apply", priority=True),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
        Binding("ctrl+a", "all", "All", id="dialog.all"),
    ]

    def __init__(self, prompt: str, choices: list[tuple[str, str]], selected: list[str]) -> None:
        super().__init__()
        self.prompt = prompt
        self.choices = choices
        self.selected = set(selected)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.prompt, classes="dialog-text")
            yield SelectionList[str](
                *((label, value, value in self.selected) for label, value in self.choices), id="multi-list"
            )
            yield Label(
                self._hint(len(self.selected & {v for _, v in self.choices})),
                id="multi-hint",
                classes="dialog-hint",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", variant="primary", id="multi-apply")
                yield Button("Cancel", id="multi-cancel")

    def on_mount(self) -> None:
        options = self.query_one("#multi-list", SelectionList)
        options.highlighted = 0
        options.focus()

    def _hint(self, ticked: int) -> str:
        keys = "space ticks, ctrl+a all/none, enter applies, esc cancels"
        return f"{ticked} of {len(self.choices)} ticked: {keys}"

    @on(SelectionList.SelectedChanged)
    def _count(self) -> None:
        self.query_one("#multi-hint", Label).update(self._hint(len(self.ticked)))

    @property
    def ticked(self) -> list[str]:
        chosen = set(self.query_one("#multi-list", SelectionList).selected)
        return [v for _, v in self.choices if v in chosen]

    def action_apply(self) -> None:
        self.dismiss(self.ticked)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_all(self) -> None:
        options: SelectionList[str] = self.query_one("#multi-list", SelectionList)
        if len(options.selected) == options.option_count:
            options.deselect_all()
        else:
            options.select_all()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.ticked if event.button.id == "multi-apply" else None)
