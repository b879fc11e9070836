"""A dialog to pick several names at once (Compare's columns): space toggles, enter applies."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, SelectionList

from benchdeck.tui.app.screens.base import tcss


class MultiPickDialog(ModalScreen[list[str] | None]):
    """Tick any of ``choices`` (label, value); returns the ticked values in the list's order."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "apply", "Apply", id="dialog.apply", priority=True),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
        Binding("ctrl+a", "all", "All", id="dialog.all"),
        Binding("ctrl+b", "preset(0)", "Preset 1", id="dialog.preset1"),
        Binding("ctrl+v", "preset(1)", "Preset 2", id="dialog.preset2"),
    ]
    PRESET_KEYS = ("ctrl+b", "ctrl+v")

    def __init__(
        self,
        prompt: str,
        choices: list[tuple[str, str]],
        selected: list[str],
        presets: list[tuple[str, list[str]]] | None = None,
    ) -> None:
        """``presets``: (what, values) sets ticked at once by ctrl+b and ctrl+v (at most two)."""
        super().__init__()
        self.prompt = prompt
        self.choices = choices
        self.selected = set(selected)
        self.presets = (presets or [])[: len(self.PRESET_KEYS)]

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
                yield Button("Apply", variant="primary", id="multi-apply", compact=True)
                yield Button("Cancel", id="multi-cancel", compact=True)

    def on_mount(self) -> None:
        options = self.query_one("#multi-list", SelectionList)
        options.highlighted = 0
        options.focus()

    def _hint(self, ticked: int) -> str:
        keys = "space ticks, ctrl+a all/none"
        quick = "".join(
            f"\n{k}: {what}" for k, (what, _) in zip(self.PRESET_KEYS, self.presets, strict=False)
        )
        return f"{ticked} of {len(self.choices)} ticked ({keys}){quick}"

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "preset":
            return isinstance(parameters[0], int) and parameters[0] < len(self.presets)
        return True

    def action_preset(self, index: int) -> None:
        """Tick exactly the preset's values."""
        options: SelectionList[str] = self.query_one("#multi-list", SelectionList)
        options.deselect_all()
        for value in self.presets[index][1]:
            options.select(value)

    def action_all(self) -> None:
        options: SelectionList[str] = self.query_one("#multi-list", SelectionList)
        if len(options.selected) == options.option_count:
            options.deselect_all()
        else:
            options.select_all()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.ticked if event.button.id == "multi-apply" else None)
