"""A line's points as plotext draws them with ``marker="hd"``, at a cost bounded by the canvas.

plotext maps each point to an integer sub-cell of the canvas (``get_matrix_data``), joins
consecutive points with lines (``get_line``) and lights the sub-cells they cross, two by two per
cell (``hd_group``). Two facts make that cheap to reproduce for a long series:

* Consecutive points in one canvas column light that column from their lowest to their highest
  sub-cell, and only the first and the last of them join the neighbouring columns. So each run
  of points in one column keeps its first, lowest, highest and last value (M4 aggregation) and
  the chart is the same, sub-cell for sub-cell: an hour of 1 s samples is ~4 points a column,
  and a spike or a stall of one second still shows.
* The columns depend on the x range and the canvas width only, not on the y axis: an
  :class:`Envelope` folds in the samples appended since the last draw, and starts over only
  when the x axis or the width changes (a new round tick, a few times an hour).

:class:`Raster` then lights the sub-cells as ``get_line`` does, and gives the cells' hd
characters. Pure: no Textual, no plotext state (only its constants and rounding).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Hashable, Sequence
from typing import Any, cast

from plotext._utility import hd_codes
from plotext._utility import round as _plotext_round

Run = list[float]
"""One column's run of points: [column, an x of it, first y, lowest y, highest y, last y]."""

# A cell's four sub-cells as bits: 1 << (2 * row + col), row 0 the lower one (plotext's y grows
# upwards); hd_codes wants (upper left, upper right, lower left, lower right).
HD_CHARS = [hd_codes[((m >> 2) & 1, (m >> 3) & 1, m & 1, (m >> 1) & 1)] for m in range(16)]


def sub_cell(v: float, lo: float, hi: float, bins: int) -> int:
    """plotext's canvas coordinate of ``v`` on an axis from ``lo`` to ``hi`` cut in ``bins``
    (``get_matrix_data``, the same float operations, so the same integer)."""
    rounded: float = _plotext_round(0.5 + (bins - 1) * (v - lo) / (hi - lo), 8)
    return math.floor(rounded)


def all_finite(ys: Sequence[float | None]) -> bool:
    """No y missing or infinite (checked in C, at once: a sum over an infinity or a NaN is not
    finite; nor is one that overflows, which then takes the slow path)."""
    return None not in ys and math.isfinite(sum(cast("Sequence[float]", ys)))


class Envelope:
    """One line's points ``(xs[i], ys[i] * scale)``, folded into column runs as they grow.

    ``xs`` and ``ys`` may go on growing by appending (a run's samples): :meth:`sync` takes the
    new ones only. Points whose y is missing or not finite are left out (the line joins its
    neighbours), as :func:`finite_points` does.
    """

    def __init__(self, xs: Sequence[float], ys: Sequence[float | None], scale: float = 1.0) -> None:
        self.xs, self.ys, self.scale = xs, ys, scale
        self.n = 0
        """Points taken in (finite or not)."""
        self.count = 0
        """Finite points among them."""
        self.highest = -math.inf
        self.last_x = -math.inf
        """The x of the last finite point."""
        self.axis: tuple[float, float, int] | None = None
        self.runs: list[Run] = []
        self._folded = 0  # points folded into runs, for ``axis``
        self._raster: Raster | None = None  # the runs but the last drawn, for ``_raster_key``
        self._raster_key: tuple[object, ...] | None = None
        self._drawn = 0

    def y(self, i: int) -> float | None:
        y = self.ys[i]
        return y * self.scale if y is not None and self.scale != 1.0 else y

    def sync(self, xs: Sequence[float], ys: Sequence[float | None], n: int) -> None:
        """Take in points up to ``n`` of ``xs``/``ys``: the same sequences as before, grown."""
        if n < self.n:
            raise ValueError(f"a line shrank from {self.n} to {n} points: build a new Envelope")
        self.xs, self.ys = xs, ys
        block = cast("list[float]", list(ys[self.n : n]))
        if block and self.scale > 0 and all_finite(block):  # most often: counted in C, at once
            self.count += len(block)
            self.highest = max(self.highest, self._scaled(max(block)))
            self.last_x, self.n = xs[n - 1], n
            return
        highest, last_x, count = self.highest, self.last_x, self.count
        for i in range(self.n, n):
            y = self.y(i)
            if y is not None and math.isfinite(y):
                count += 1
                highest = max(highest, y)
                last_x = xs[i]
        self.n, self.highest, self.last_x, self.count = n, highest, last_x, count

    def columns(self, lo: float, hi: float, bins: int) -> list[Run]:
        """The runs of points per canvas column, for an x axis from ``lo`` to ``hi`` in ``bins``."""
        if self.axis != (lo, hi, bins):
            self.axis, self.runs, self._folded = (lo, hi, bins), [], 0
        start, n = self._folded, self.n
        block = list(self.xs[start:n])
        if self.scale > 0 and block == sorted(block):
            self._fold_in_order(start, n, lo, hi, bins)
        else:
            self._fold(start, n, lo, hi, bins)
        self._folded = n
        return self.runs

    def _scaled(self, y: float) -> float:
        return y * self.scale if self.scale != 1.0 else y

    def _fold(self, start: int, end: int, lo: float, hi: float, bins: int) -> None:
        """Fold points ``start`` to ``end`` into the runs, one by one."""
        xs = self.xs
        for i in range(start, end):
            y = self.y(i)
            if y is None or not math.isfinite(y):
                continue
            self._add(sub_cell(xs[i], lo, hi, bins), xs[i], y, y, y, y)

    def _add(self, col: int, x: float, first: float, low: float, high: float, last: float) -> None:
        runs = self.runs
        if runs and runs[-1][0] == col:
            run = runs[-1]
            run[3], run[4], run[5] = min(run[3], low), max(run[4], high), last
        else:
            runs.append([col, x, first, low, high, last])

    def _fold_in_order(self, i: int, n: int, lo: float, hi: float, bins: int) -> None:
        """:meth:`_fold` for points in x order (a run's seconds): each column's points are one
        slice, found by bisection, and taken in at C speed when their ys are all finite (a
        first look at an hour: ~100 slices, not 3,600 points)."""
        xs, ys = self.xs, self.ys
        step = (hi - lo) / (bins - 1) if bins > 1 else math.inf
        while i < n:
            col = sub_cell(xs[i], lo, hi, bins)
            j = bisect_right(xs, lo + (col + 0.5) * step, i, n)  # where the next column should start
            if not (j > i and sub_cell(xs[j - 1], lo, hi, bins) == col) or (
                j < n and sub_cell(xs[j], lo, hi, bins) == col
            ):
                j = self._column_end(i, n, col, lo, hi, bins)
            part = cast("list[float]", list(ys[i:j]))
            if all_finite(part):
                low, high = self._scaled(min(part)), self._scaled(max(part))
                self._add(col, xs[i], self._scaled(part[0]), low, high, self._scaled(part[-1]))
            else:
                self._fold(i, j, lo, hi, bins)
            i = j

    def _column_end(self, i: int, n: int, col: int, lo: float, hi: float, bins: int) -> int:
        """The first point after ``i`` (in x order) in a later column than ``col``, or ``n``."""
        a, b = i + 1, n
        while a < b:
            mid = (a + b) // 2
            if sub_cell(self.xs[mid], lo, hi, bins) == col:
                a = mid + 1
            else:
                b = mid
        return a

    def raster(self, xaxis: tuple[float, float, int], yaxis: tuple[float, float, int]) -> Raster:
        """The line on a canvas of ``xaxis[2]`` x ``yaxis[2]`` sub-cells, x and y from
        ``axis[0]`` to ``axis[1]``. The runs but the last stay drawn while the axes stay."""
        runs = self.columns(*xaxis)
        key = (xaxis, yaxis)
        if self._raster is None or self._raster_key != key:
            self._raster, self._raster_key, self._drawn = Raster(xaxis[2], yaxis[2]), key, 0
        lo, hi, bins = yaxis
        done = self._raster
        for run in runs[self._drawn : len(runs) - 1]:
            for y in run[2:]:
                done.to(int(run[0]), sub_cell(y, lo, hi, bins))
        self._drawn = max(self._drawn, len(runs) - 1)
        raster = done.copy()
        for run in runs[len(runs) - 1 :]:
            for y in run[2:]:
                raster.to(int(run[0]), sub_cell(y, lo, hi, bins))
        return raster

    def points(self, lo: float, hi: float, bins: int) -> tuple[list[float], list[float]]:
        """The reduced line: per run its first, lowest, highest and last point (plotext draws
        the same from these as from all the points)."""
        px: list[float] = []
        py: list[float] = []
        for _, x, first, low, high, last in self.columns(lo, hi, bins):
            for y in (first, low, high, last) if low != high else (first,):
                if not py or py[-1] != y or px[-1] != x:
                    px.append(x)
                    py.append(y)
        return px, py


def _linspace_ints(a: int, b: int, n: int) -> list[int]:
    """``[int(v) for v in plotext's linspace(a, b, n)]``."""
    slope = (b - a) / (n - 1) if n > 1 else 0
    return [int(a + k * slope) for k in range(n)]


class Raster:
    """The sub-cells a line lights on a canvas of ``xbins`` x ``ybins`` sub-cells: a bit mask
    per sub-column (bit ``y`` for sub-row ``y``, from the bottom); sub-cells outside are dropped,
    as plotext's ``remove_outsiders`` drops their cells."""

    def __init__(self, xbins: int, ybins: int) -> None:
        self.xbins, self.ybins = xbins, ybins
        self.masks = [0] * max(0, xbins)
        self.last: tuple[int, int] | None = None

    def copy(self) -> Raster:
        other = Raster(self.xbins, self.ybins)
        other.masks, other.last = list(self.masks), self.last
        return other

    def span(self, x: int, y0: int, y1: int) -> None:
        """Light sub-column ``x`` from sub-row ``y0`` to ``y1`` (both lit)."""
        if 0 <= x < self.xbins:
            lo, hi = max(min(y0, y1), 0), min(max(y0, y1), self.ybins - 1)
            if lo <= hi:
                self.masks[x] |= ((1 << (hi - lo + 1)) - 1) << lo

    def to(self, x1: int, y1: int) -> None:
        """The line on from the last point to ``(x1, y1)``, the sub-cells plotext's
        ``get_line`` gives it (its first point alone when it is the first)."""
        if self.last is None:
            self.span(x1, y1, y1)
            self.last = (x1, y1)
            return
        x0, y0 = self.last
        self.last = (x1, y1)
        dx, dy = x1 - x0, y1 - y0
        if dx == 0:
            self.span(x0, y0, y1)
            return
        # plotext keeps each segment's computed points but its last, then the exact end (the
        # next segment's start, or the line's last point): the computed last may be a float
        # off it (int(49 * (2 / 49)) is 1, not 2)
        n = max(abs(dx), abs(dy)) + 1
        xs = _linspace_ints(x0, x1, n)
        if abs(dy) >= abs(dx):  # steep: y steps by exactly one, x by less: spans per x
            step = 1 if dy > 0 else -1
            start, m = 0, n - 1
            for k in range(1, m + 1):
                if k == m or xs[k] != xs[start]:
                    self.span(xs[start], y0 + start * step, y0 + (k - 1) * step)
                    start = k
        else:
            for x, y in zip(xs[:-1], _linspace_ints(y0, y1, n)[:-1], strict=True):
                self.span(x, y, y)
        self.span(x1, y1, y1)

    def cells(self) -> dict[tuple[int, int], str]:
        """The lit cells (x, y from the bottom left of the canvas) and their hd characters."""
        out: dict[tuple[int, int], str] = {}
        masks, xbins = self.masks, self.xbins
        for cx in range((xbins + 1) // 2):
            left = masks[2 * cx]
            right = masks[2 * cx + 1] if 2 * cx + 1 < xbins else 0
            both = left | right
            if not both:
                continue
            low, high = ((both & -both).bit_length() - 1) // 2, (both.bit_length() - 1) // 2
            for cy in range(low, high + 1):
                lb, rb = (left >> (2 * cy)) & 3, (right >> (2 * cy)) & 3
                m = (lb & 1) | ((rb & 1) << 1) | ((lb & 2) << 1) | ((rb & 2) << 2)
                if m:
                    out[cx, cy] = HD_CHARS[m]
        return out


def finite_points(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[list[float], list[float]]:
    """The points whose y is a finite number (most often all of them: checked in C, at once)."""
    n = min(len(xs), len(ys))
    x, y = list(xs[:n]), list(ys[:n])
    if None not in y and math.isfinite(sum(cast("list[float]", y))):
        return x, cast("list[float]", y)
    keep = [(px, py) for px, py in zip(x, y, strict=True) if py is not None and math.isfinite(py)]
    return [p[0] for p in keep], [p[1] for p in keep]


def seq_key(xs: Sequence[float]) -> Hashable:
    """A range stands for its values (a new one a second grows the old); else the object."""
    return ("range", xs.start, xs.step) if isinstance(xs, range) else id(xs)


def same_prefix(a: Sequence[Any], b: Sequence[Any], n: int) -> bool:
    """``a`` and ``b`` have the same first ``n`` items (the same object: grown by appending)."""
    if a is b:
        return True
    if isinstance(a, range) and isinstance(b, range):
        return a[:n] == b[:n]
    return len(a) >= n and len(b) >= n and tuple(a[:n]) == tuple(b[:n])
