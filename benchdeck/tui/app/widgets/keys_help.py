"""The keys panel (``?``/F1): the screen's own keys first, then the focused widget's, then the app's.

Textual's panel lists the bindings in the focus chain's order: a table's ~17 cursor keys came
first and Compare's ``o``/``c`` or Runs' ``m``/``D`` were below the fold at 36 rows. A key
shown already as part of another row (Compare's ``[ ]`` and ``[``) is listed once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import HelpPanel, Markdown
from textual.widgets._key_panel import BindingsTable, KeyPanel


@dataclass(frozen=True, slots=True)
class KeyRow:
    """One action: its keys as shown, what it does, and whether it can be used now."""

    keys: str
    description: str
    tooltip: str
    enabled: bool


SECTIONS = ("This screen", "Here ({})", "Everywhere")
SCREEN_GENERIC = frozenset(b.action for b in Screen.BINDINGS if isinstance(b, Binding))
"""Every Textual screen's keys (focus next/previous, copy): with the app's, not the screen's own."""


def key_rows(screen: Screen[object]) -> list[tuple[str, list[KeyRow]]]:
    """The active bindings as (section title, rows): the screen's, the focused widget's (and
    its containers'), the app's; one row per action, a key shown in another row left out."""
    app = screen.app
    by_action: dict[tuple[int, str], tuple[DOMNode, list[str], KeyRow]] = {}
    for _key, (node, binding, enabled, tooltip) in screen.active_bindings.items():
        if binding.system:
            continue
        generic = node is app or (node is screen and binding.action in SCREEN_GENERIC)
        rank = 2 if generic else 0 if node is screen else 1
        display = app.get_key_display(binding)
        got = by_action.get((rank, binding.action))
        if got is None:
            row = KeyRow(display, binding.description, tooltip or binding.tooltip, enabled)
            by_action[(rank, binding.action)] = (node, [display], row)
        elif display not in got[1]:
            got[1].append(display)
    shown_tokens: dict[tuple[int, str], set[str]] = {
        k: {t for d in displays for t in d.split()} for k, (_n, displays, _r) in by_action.items()
    }
    sections: list[tuple[str, list[KeyRow]]] = []
    for rank in range(3):
        rows = []
        widget: DOMNode | None = None
        for (r, action), (node, displays, row) in by_action.items():
            if r != rank:
                continue
            tokens = shown_tokens[(r, action)]
            if any(tokens < other for k, other in shown_tokens.items() if k != (r, action)):
                continue  # "[" is shown in "[ ]" already
            widget = widget or node
            rows.append(KeyRow(" ".join(displays), row.description, row.tooltip, row.enabled))
        if rows:
            title = SECTIONS[rank].format(widget_name(widget)) if rank == 1 else SECTIONS[rank]
            sections.append((title, rows))
    return sections


_KINDS = (("DataTable", "table"), ("Input", "text field"), ("Select", "list"), ("SelectOverlay", "list"),
          ("OptionList", "list"), ("Tabs", "tabs"), ("Tree", "tree"), ("Checkbox", "checkbox"),
          ("RadioSet", "choice"), ("Button", "button"))  # fmt: skip


def widget_name(widget: DOMNode | None) -> str:
    """What the focused widget is, in words: its ``KEYS_NAME`` if it has one, else what kind of
    Textual widget it is (``table``, ``text field``), else its class name in words
    (``FlameGraph`` -> ``flame graph``). Class names such as ``RunsTable`` meant nothing to a user."""
    if widget is None:
        return ""
    named = getattr(widget, "KEYS_NAME", None)
    if isinstance(named, str):
        return named
    for cls in type(widget).__mro__:
        for kind, words in _KINDS:
            if cls.__name__ == kind:
                return words
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(widget).__name__).lower()


class ScreenFirstTable(BindingsTable):
    """Textual's bindings table, its rows in :func:`key_rows`' order."""

    def render_bindings_table(self) -> Table:
        key_style = self.get_component_rich_style("bindings-table--key")
        text_style = self.get_component_rich_style("bindings-table--description")
        header_style = self.get_component_rich_style("bindings-table--header")
        table = Table(padding=(0, 0), show_header=False, box=box.SIMPLE)
        table.add_column("", justify="right")
        table.add_column("")
        for title, rows in key_rows(self.screen):
            table.add_row("", Text(title, style=header_style, end=""))
            for row in rows:
                text = Text(row.description, style=text_style, end="")
                if row.tooltip:
                    text.append((" " if row.description else "") + row.tooltip, "dim")
                if not row.enabled:
                    text.stylize("dim")
                table.add_row(Text(row.keys, style=key_style), text)
            table.add_section()
        return table


class ScreenFirstKeys(KeyPanel):
    def compose(self) -> ComposeResult:
        yield ScreenFirstTable(shrink=True, expand=False)


class KeysHelp(HelpPanel):
    """The panel ``?``/F1 shows (a HelpPanel: Esc and a second ``?`` hide it as before)."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield ScreenFirstKeys(id="keys-help")
