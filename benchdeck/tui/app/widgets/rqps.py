"""rQPS colours from the active theme (variables ``rqps-bad``, ``rqps-good``, ``rqps-neutral``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import App
from textual.color import Color, ColorParseError

from benchdeck.store.reports.compare_report import NOISE_MARK
from benchdeck.store.reports.ratios import fmt_ratio
from benchdeck.themes.loader import rqps_defaults
from benchdeck.tui.reports.render_rich import rqps_style


@dataclass(frozen=True, slots=True)
class RqpsColours:
    """The three rQPS colours of a theme, as hex strings Rich understands."""

    bad: str
    good: str
    neutral: str

    def style(self, v: float | None) -> str:
        """red-ish <= 0.95, green-ish >= 1.05, neutral between; dim for a missing value."""
        return rqps_style(v, red=self.bad, green=self.good, grey=self.neutral)

    def cell(self, v: float | None, noise: bool | None = False) -> Text:
        return Text(fmt_ratio(v) + (NOISE_MARK if noise else ""), style=self.style(v), justify="right")

    def rgb(self, v: float | None) -> tuple[int, int, int]:
        style = self.style(v)
        return Color.parse(self.neutral if style == "dim" else style).rgb


def rqps_colours(app: App[Any]) -> RqpsColours:
    """The active theme's rQPS colours (defaults from its error/success colours if undefined)."""
    theme = app.current_theme
    defaults = rqps_defaults(theme)
    found = {**defaults, **theme.variables}
    return RqpsColours(
        bad=_hex(found["rqps-bad"], defaults["rqps-bad"]),
        good=_hex(found["rqps-good"], defaults["rqps-good"]),
        neutral=_hex(found["rqps-neutral"], defaults["rqps-neutral"]),
    )


def _hex(value: str, fallback: str) -> str:
    try:
        return Color.parse(value).hex6
    except ColorParseError:
        return Color.parse(fallback).hex6
