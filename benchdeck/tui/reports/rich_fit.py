"""Rich tables that fit the terminal without cutting a cell.

Rich shrinks a table wider than the console by folding or cutting its cells: on 80-100 columns
``benchdeck compare`` printed builds as ``my5…`` and values as ``0.0…``, and ``benchdeck runs``
wrapped ``finished`` over two lines. Here every column keeps its natural width (no wrap); a table
that does not fit drops the columns it can spare, in the order given, and says so in one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

Cell = str | Text
UNBOUNDED = 100_000  # a measuring width no table reaches: Rich clamps a measurement to it


def width_of(console: Console, renderable: RenderableType) -> int:
    """The width ``renderable`` takes unshrunk (its widest cells side by side)."""
    return Measurement.get(console, console.options.update_width(UNBOUNDED), renderable).maximum


def fits(console: Console, renderable: RenderableType) -> bool:
    return width_of(console, renderable) <= console.width


def plain_table(
    headers: Sequence[str], rows: Sequence[Sequence[Cell]], right: set[str], title: str | None = None
) -> Table:
    """A borderless table whose cells never wrap or get cut."""
    table = Table(title=title, title_justify="left", box=None, header_style="bold")
    for h in headers:
        table.add_column(h, justify="right" if h in right else "left", no_wrap=True, overflow="ignore")
    for r in rows:
        table.add_row(*r)
    return table


def fitted_table(
    console: Console,
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    right: set[str],
    spare: Sequence[str],
    title: str | None = None,
) -> tuple[Table, list[str]]:
    """The table with as many columns as fit the console, dropping those of ``spare`` first to
    last; returns it and the names dropped. When even the rest is too wide it is returned as is
    (printed unshrunk by :func:`print_unshrunk`: the terminal folds the lines, no cell is cut)."""
    keep = list(headers)
    dropped: list[str] = []
    while True:
        idx = [headers.index(h) for h in keep]
        table = plain_table(keep, [[r[i] for i in idx] for r in rows], right, title)
        left = [h for h in spare if h in keep]
        if fits(console, table) or not left:
            return table, dropped
        keep.remove(left[0])
        dropped.append(left[0])


def print_unshrunk(console: Console, renderable: RenderableType) -> None:
    """Print at its natural width, wider than the console if need be, so nothing is cut."""
    console.print(renderable, width=max(console.width, width_of(console, renderable)), crop=False)


def dropped_note(dropped: Sequence[str]) -> Text:
    return Text(f"(not shown at this width: {', '.join(dropped)}; --format text has them)", style="dim")
