"""Colour follows the value shown: one rounding rule for text, Markdown, Rich and the app."""

from __future__ import annotations

import numpy as np
import pytest

from benchdeck.store.reports.ratios import fmt_ratio, shown_ratio
from benchdeck.tui.app.widgets.rqps import RqpsColours
from benchdeck.tui.reports.render_rich import rqps_style

COLOURS = RqpsColours(bad="#ff0000", good="#00ff00", neutral="#888888")


@pytest.mark.parametrize(
    ("value", "printed", "style"),
    [
        (0.9506, "0.95", "red"),
        (0.95, "0.95", "red"),
        (0.9549, "0.95", "red"),
        (0.9551, "0.96", "grey62"),
        (1.0449, "1.04", "grey62"),
        (1.0451, "1.05", "green"),
        (1.0496, "1.05", "green"),
        (1.05, "1.05", "green"),
    ],
)
def test_boundary_cells_are_coloured_as_printed(value: float, printed: str, style: str) -> None:
    assert fmt_ratio(value) == printed
    assert rqps_style(value) == style
    cell = COLOURS.cell(value)
    assert cell.plain == printed
    want = {"red": COLOURS.bad, "green": COLOURS.good, "grey62": COLOURS.neutral}[style]
    assert cell.style == want


def test_every_printed_value_has_one_colour() -> None:
    """Sweep 0.90-1.10: a cell is red iff it prints <= 0.95, green iff it prints >= 1.05."""
    for v in np.arange(0.90, 1.10, 0.00007):
        v = float(v)
        shown = float(fmt_ratio(v))
        assert shown_ratio(v) == shown
        want = "red" if shown <= 0.95 else "green" if shown >= 1.05 else "grey62"
        assert rqps_style(v) == want, v


def test_missing_and_undefined_values_are_dim() -> None:
    assert rqps_style(None) == "dim"
    assert rqps_style(float("nan")) == "dim"
    assert rqps_style(float("inf")) == "green"
