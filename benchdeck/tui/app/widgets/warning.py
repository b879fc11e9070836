"""The active theme's warning colour, for Rich text (a cluster run's lag flag: issue 41). A module
of its own: Runs draws it in the first frame, before the comparison's modules (and DuckDB) load."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.color import Color, ColorParseError


def warning_colour(app: App[Any]) -> str:
    """The active theme's warning colour, as a hex string Rich understands."""
    try:
        return Color.parse(app.current_theme.warning or "").hex6
    except ColorParseError:
        return Color.parse(app.theme_variables.get("warning", "yellow")).hex6
