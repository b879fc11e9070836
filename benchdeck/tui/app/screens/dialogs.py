"""Small modal dialogs: confirm, one line of text, export a comparison."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, RadioButton, RadioSet
from textual.widgets.option_list import Option

from benchdeck.engine.config_names import config_label
from benchdeck.tui.app.screens.base import tcss
from benchdeck.tui.app.state.settings import export_dir

if TYPE_CHECKING:
    from benchdeck.store.analysis.columns import Column
    from benchdeck.store.analysis.compare import Comparison

EXPORT_FORMATS = {"md": ".md", "csv": ".csv", "text": ".txt", "json": ".json"}
"""The formats of ``benchdeck compare --format`` (store.report.FORMATS), json included."""


class ConfirmDialog(ModalScreen[bool]):
    """Yes or no; ``y``/``enter`` confirm, ``n``/``escape`` cancel."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="dialog.yes"),
        Binding("n,escape", "answer(False)", "No", id="dialog.no"),
    ]

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes, variant="error", id="dialog-yes")
                yield Button("Cancel", id="dialog-no")

    def on_mount(self) -> None:
        self.query_one("#dialog-no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "dialog-yes")


class PickDialog(ModalScreen[str | None]):
    """Pick one of a few names from the keyboard: arrows and ``enter``, ``escape`` cancels."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, prompt: str, choices: list[tuple[str, str]], current: str | None = None) -> None:
        """``choices`` are (label, value) pairs; the cursor starts on ``current`` if present."""
        super().__init__()
        self.prompt = prompt
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.prompt, classes="dialog-text")
            yield OptionList(*(Option(label, id=value) for label, value in self.choices), id="pick-list")

    def on_mount(self) -> None:
        options = self.query_one("#pick-list", OptionList)
        values = [v for _, v in self.choices]
        options.highlighted = values.index(self.current) if self.current in values else 0
        options.focus()

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextDialog(ModalScreen[str | None]):
    """One line of text; ``enter`` accepts, ``escape`` cancels."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, prompt: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.prompt = prompt
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.prompt, classes="dialog-text")
            yield Input(self.value, placeholder=self.placeholder, id="dialog-input")
            yield Label("enter: save   escape: cancel", classes="dialog-hint")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True, slots=True)
class ExportRequest:
    path: Path
    fmt: str


def export_stem(cmp: Comparison) -> str:
    """What a comparison's export file is named after: host, base and every column (with their
    configs and dops): a second export against the same base no longer overwrites the first.
    A long one keeps its first 100 characters and a hash of the whole."""
    differ = cmp.configs_differ

    def name(c: Column) -> str:
        text = f"{c.build}.{config_label(c.config or '')}" if differ else c.build
        return text if c.dop is None else f"{text}@{c.dop}"

    parts = [cmp.host, name(cmp.base_column), "vs", *map(name, cmp.column_specs)]
    if not differ:
        parts.append(config_label(cmp.base_column.config or ""))
    if len(cmp.dops) == 1 and cmp.dops[0] is not None:
        parts.append(f"dop{cmp.dops[0]}")
    stem = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in "-".join(parts))
    if len(stem) > 120:
        stem = f"{stem[:100]}-{hashlib.sha1(stem.encode(), usedforsecurity=False).hexdigest()[:10]}"
    return stem


def default_export_path(stem: str, fmt: str, directory: Path | None = None) -> Path:
    return (directory or export_dir()) / f"benchdeck-compare-{stem}{EXPORT_FORMATS[fmt]}"


class ExportDialog(ModalScreen[ExportRequest | None]):
    """Where and in which format to export the comparison (md, csv, text, json); a relative
    path is taken from the export directory (:func:`export_dir`)."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, stem: str, fmt: str = "md") -> None:
        """``stem``: the default file's name without extension (:func:`export_stem`)."""
        super().__init__()
        self.stem = stem
        self.fmt = fmt
        self._default = default_export_path(stem, fmt)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Export the comparison", classes="dialog-text")
            with RadioSet(id="export-format"):
                for fmt in EXPORT_FORMATS:
                    yield RadioButton(fmt, value=fmt == self.fmt, name=fmt, id=f"export-{fmt}")
            yield Input(str(self._default), id="export-path")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", variant="primary", id="export-ok")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(RadioSet.Changed)
    def format_changed(self, event: RadioSet.Changed) -> None:
        self.fmt = event.pressed.name or "md"
        path_input = self.query_one("#export-path", Input)
        if Path(path_input.value) == self._default:  # untouched: follow the format
            self._default = default_export_path(self.stem, self.fmt)
            path_input.value = str(self._default)

    @on(Input.Submitted)
    def submitted(self) -> None:
        self._finish()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export-ok":
            self._finish()
        else:
            self.dismiss(None)

    def _finish(self) -> None:
        text = self.query_one("#export-path", Input).value.strip()
        if not text:
            self.notify("give a file name to export to", severity="error")
            return
        path = Path(text).expanduser()
        self.dismiss(ExportRequest(path if path.is_absolute() else export_dir() / path, self.fmt))

    def action_cancel(self) -> None:
        self.dismiss(None)
