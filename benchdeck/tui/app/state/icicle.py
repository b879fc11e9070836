"""The icicle the Profile screen draws, as cells (no Textual): which frames fall where at a
given width, and how the cursor moves among them.

Only frames at least one cell wide are laid out, and only their children are looked at, so a
row holds at most ``width`` frames and a first frame costs the same for 1,000 stacks as for
100,000 (bench/bench_profile.py); building the tree (engine/profiling/tree.py) is the part
that grows with the profile, and it runs in a worker.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchdeck.engine.profiling.tree import Frame, self_us


@dataclass(frozen=True, slots=True)
class Cell:
    """A frame drawn from column ``x0`` up to (not including) ``x1``."""

    x0: int
    x1: int
    frame: Frame


def layout(zoom: Frame, width: int, height: int) -> list[list[Cell]]:
    """Rows of cells: row 0 is ``zoom`` across the whole width, row r its callees r levels down."""
    if width <= 0 or height <= 0 or zoom.samples <= 0:
        return []
    scale = width / zoom.samples
    rows: list[list[Cell]] = []
    current: list[tuple[Frame, int]] = [(zoom, 0)]
    for _ in range(height):
        row: list[Cell] = []
        below: list[tuple[Frame, int]] = []
        for f, offset in current:
            x0, x1 = round(offset * scale), round((offset + f.samples) * scale)
            if x1 <= x0:
                continue
            row.append(Cell(x0, x1, f))
            o = offset
            for c in f.children:
                if c.samples * scale >= 0.5:
                    below.append((c, o))
                o += c.samples
        if not row:
            break
        rows.append(row)
        current = below
    return rows


def locate(rows: list[list[Cell]], frame: Frame) -> tuple[int, int] | None:
    """(row, index) of ``frame`` in ``rows``, if drawn."""
    for r, row in enumerate(rows):
        for i, cell in enumerate(row):
            if cell.frame is frame:
                return r, i
    return None


def move(rows: list[list[Cell]], frame: Frame, direction: str) -> Frame:
    """The frame the cursor goes to from ``frame``: ``up`` its caller, ``down`` its widest
    callee, ``left``/``right`` the next frame drawn on its row (itself at an edge)."""
    where = locate(rows, frame)
    if where is None:
        return rows[0][0].frame if rows else frame
    r, i = where
    if direction == "up":
        return frame.parent if r > 0 and frame.parent is not None else frame
    if direction == "down":
        if r + 1 < len(rows):
            kids = [c for c in rows[r + 1] if c.frame.parent is frame]
            if kids:
                return max(kids, key=lambda c: c.frame.samples).frame
        return frame
    step = -1 if direction == "left" else 1
    j = i + step
    return rows[r][j].frame if 0 <= j < len(rows[r]) else frame


def delta_self(f: Frame) -> float:
    """How the frame's own CPU per query changed from the other side (differential view)."""
    return self_us(f) - f.other_self_us
