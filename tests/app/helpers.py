"""Helpers for pilot tests: wait for workers and the messages they post, read table cells."""

from __future__ import annotations

import io
from typing import Any, TypeVar

from rich.console import Console
from rich.text import Text
from textual.app import App
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Static

S = TypeVar("S", bound=Screen[Any])


def on_screen(app: App[Any], kind: type[S]) -> S:
    """The active screen, checked to be a ``kind`` (without narrowing ``app.screen`` for mypy)."""
    screen = app.screen
    assert isinstance(screen, kind), f"expected {kind.__name__}, on {type(screen).__name__}"
    return screen


async def settle(pilot: Pilot[Any], rounds: int = 4) -> None:
    """Let workers finish and their messages be handled (handlers may start more workers)."""
    for _ in range(rounds):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def cell_text(table: DataTable[Any], row: int, col: int) -> str:
    value = table.get_cell_at(Coordinate(row, col))
    return value.plain if isinstance(value, Text) else str(value)


def column_texts(table: DataTable[Any], col: int) -> list[str]:
    return [cell_text(table, r, col) for r in range(table.row_count)]


def cell_colour(table: DataTable[Any], row: int, col: int) -> str:
    value = table.get_cell_at(Coordinate(row, col))
    assert isinstance(value, Text)
    return str(value.style).upper()


def static_text(widget: Static) -> str:
    """The plain text of what a Static shows (a str, a Text or any Rich renderable)."""
    content = widget.content
    if isinstance(content, str):
        return content
    if isinstance(content, Text):
        return content.plain
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()
