"""Rich tables that fit the terminal without cutting a cell.

Rich shrinks a table wider than the console by folding or cutting its cells: on 80-100 columns
``benchdeck compare`` printed builds as ``my5…`` and values as ``0.0…``, and ``benchdeck runs``
wrapped ``finished`` over two lines. Here every column keeps its natural width (no wrap); a table
that does not fit drops the columns it can spare, in the order given, and says so in one line, or
is split into blocks of its columns one under the other, each repeating the columns that name its
rows (:func:`column_blocks`: 7 rQPS columns at 80 columns came out as ``col…`` and ``0.…``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.segment import Segments
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
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    right: set[str],
    title: str | None = None,
    *,
    pad_edge: bool = True,
) -> Table:
    """A borderless table whose cells never wrap or get cut."""
    table = Table(title=title, title_justify="left", box=None, header_style="bold", pad_edge=pad_edge)
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


def column_blocks(
    console: Console,
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    right: set[str],
    names: Sequence[int],
    title: str,
    *,
    step: int = 1,
    pad_edge: bool = True,
) -> list[Table]:
    """The table, or when it is wider than the console, its columns in blocks one under the
    other, as many per block as fit beside the columns that name the rows (``names``, indexes,
    repeated in every block), ``step`` at a time (a value and its ratio stay together). Each
    block's title says which columns it holds. A block of one step wider than the console is
    left so (:func:`print_unshrunk` prints it unshrunk)."""

    def make(cols: Sequence[int], suffix: str = "") -> Table:
        idx = sorted({*names, *cols})
        cells = [[r[i] for i in idx] for r in rows]
        return plain_table([headers[i] for i in idx], cells, right, title + suffix, pad_edge=pad_edge)

    values = [i for i in range(len(headers)) if i not in names]
    whole = make(values)
    if fits(console, whole):
        return [whole]
    blocks: list[list[int]] = [[]]
    for at in range(0, len(values), step):
        chunk = values[at : at + step]
        if blocks[-1] and not fits(console, make(blocks[-1] + chunk)):
            blocks.append([])
        blocks[-1] += chunk
    return [make(b, _span(headers, b, step)) for b in blocks]


def _span(headers: Sequence[str], block: Sequence[int], step: int) -> str:
    first, last = headers[block[0]], headers[block[-step]]
    return f", {first}" if first == last else f", {first} to {last}"


def print_unshrunk(console: Console, renderable: RenderableType) -> None:
    """Print at its natural width, wider than the console if need be (the terminal folds the
    lines), so nothing is cut. (``Console.print``'s own ``width`` is capped at the console's.)"""
    width = width_of(console, renderable)
    if width <= console.width:
        console.print(renderable)
        return
    lines = console.render_lines(renderable, console.options.update_width(width), pad=False, new_lines=True)
    console.print(Segments([seg for line in lines for seg in line]), crop=False, soft_wrap=True)


def dropped_note(dropped: Sequence[str]) -> Text:
    return Text(f"(not shown at this width: {', '.join(dropped)}; --format text has them)", style="dim")
