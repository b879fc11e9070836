"""The charts' own line drawing: the same cells as plotext drawing every point, however long.

The reference is plotext itself (``marker="hd"``) given all the points; ours reduces them per
canvas column (first, lowest, highest, last) as they arrive and lights the sub-cells itself.
"""

from __future__ import annotations

import math
import random
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from textual_plotext.plot import Plot

from benchdeck.tui.app.widgets.chart_cells import build_matrix
from benchdeck.tui.app.widgets.chart_raster import Envelope, finite_points, sub_cell

COLOURS = [(255, 0, 0), (0, 200, 0), (0, 0, 255)]
Cells = dict[tuple[int, int], tuple[str, Any]]


def plotext_cells(
    lines: list[tuple[list[float], list[float | None]]], size: tuple[int, int], xhi: float, yhi: float
) -> tuple[Cells, int, int]:
    """The canvas cells plotext draws for all the finite points of ``lines``, and the canvas size."""
    plt = Plot()
    for i, (xs, ys) in enumerate(lines):
        fx, fy = finite_points(xs, ys)
        plt.plot(fx, fy, marker="hd", color=COLOURS[i])
    plt.xlim(0, xhi)
    plt.ylim(0, yhi)
    plt.xticks([0, xhi], ["0", "x"])
    plt.yticks([0, yhi], ["0", "y"])
    plt.plotsize(*size)
    plt._set_size(*size)
    m = build_matrix(plt)
    c0, r0 = m.Cols_canvas.start, m.Rows_canvas.start
    cells = {
        (c - c0, r - r0): (m.marker[r][c], m.fullground[r][c])
        for r in m.Rows_canvas
        for c in m.Cols_canvas
        if m.marker[r][c] != " "
    }
    return cells, len(m.Cols_canvas), len(m.Rows_canvas)


def our_cells(envelopes: list[Envelope], width: int, height: int, xhi: float, yhi: float) -> Cells:
    cells: Cells = {}
    for i, env in enumerate(envelopes):
        raster = env.raster((0.0, xhi, 2 * width), (0.0, yhi, 2 * height))
        for cell, char in raster.cells().items():
            cells[cell] = (char, COLOURS[i])
    return cells


ys_values = st.one_of(  # in units of the y axis' top: some below and above the canvas
    st.floats(-0.2, 1.3, allow_nan=False),
    st.none(),
    st.just(math.nan),
    st.just(math.inf),
)


@st.composite
def series(draw: st.DrawFn) -> tuple[list[float], list[float | None]]:
    n = draw(st.integers(0, 80))
    if draw(st.booleans()):  # in time order, some seconds repeated (in units of the x axis)
        steps = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.0, 1.0, 3.0]), min_size=n, max_size=n))
        xs = [sum(steps[: i + 1]) / 80 for i in range(n)]
    else:
        xs = draw(st.lists(st.floats(-0.05, 1.05, allow_nan=False), min_size=n, max_size=n))
    ys = draw(st.lists(ys_values, min_size=n, max_size=n))
    return xs, ys


@settings(max_examples=80, deadline=None)
@given(
    lines=st.lists(series(), min_size=1, max_size=3),
    size=st.tuples(st.integers(16, 90), st.integers(7, 30)),
    xhi=st.sampled_from([1.0, 10.0, 80.0]),
    yhi=st.sampled_from([1.0, 50.0, 100.0]),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([1.0, 1.0, 0.001, 3.0]),
)
@example(  # the canvas' corners and edges, and lines leaving it
    lines=[([0.0, 1.0, 1.0, 0.0, 1.1, -0.1, 0.5, 0.5], [0.0, 1.0, 0.0, 1.0, 0.5, 1.2, -0.2, 1.3])],
    size=(40, 12),
    xhi=10.0,
    yhi=50.0,
    seed=1,
    scale=1.0,
)
@example(  # a steep segment whose last computed point is a float off its end (plotext drops it)
    lines=[
        ([0.0] * 9 + [0.0125, 0.025, 0.0625], [0.0, None, None, None, None, 0.0, 1.1875, *[None] * 4, 0.0])
    ],
    size=(16, 24),
    xhi=1.0,
    yhi=1.0,
    seed=0,
    scale=1.0,
)
def test_lines_taken_in_bit_by_bit_draw_what_plotext_draws_of_every_point(
    lines: list[tuple[list[float], list[float | None]]],
    size: tuple[int, int],
    xhi: float,
    yhi: float,
    seed: int,
    scale: float,
) -> None:
    lines = [
        ([x * xhi for x in xs], [y * yhi / scale if y is not None else None for y in ys]) for xs, ys in lines
    ]
    scaled = [(xs, [y * scale if y is not None else None for y in ys]) for xs, ys in lines]
    want, width, height = plotext_cells(scaled, size, xhi, yhi)
    rnd = random.Random(seed)
    envelopes = []
    for xs, ys in lines:  # the points arrive in batches, drawn in between, on other axes too
        gx: list[float] = []
        gy: list[float | None] = []
        env = Envelope(gx, gy, scale)
        while len(gx) < len(xs):
            k = len(gx) + rnd.randint(1, 40)
            gx.extend(xs[len(gx) : k])
            gy.extend(ys[len(gy) : k])
            env.sync(gx, gy, len(gx))
            axis = rnd.choice([(xhi, yhi), (xhi, yhi), (xhi * 2, yhi), (xhi, yhi / 2)])
            env.raster((0.0, axis[0], 2 * width), (0.0, axis[1], 2 * height))
        env.sync(gx, gy, len(gx))
        envelopes.append(env)
    assert our_cells(envelopes, width, height, xhi, yhi) == want


@settings(max_examples=50, deadline=None)
@given(line=series(), cut=st.integers(0, 250))
def test_incremental_figures_equal_a_count_from_scratch(
    line: tuple[list[float], list[float | None]], cut: int
) -> None:
    xs, ys = line
    env = Envelope(xs, ys)
    env.sync(xs, ys, min(cut, len(xs)))
    env.sync(xs, ys, len(xs))
    fx, fy = finite_points(xs, ys)
    assert env.count == len(fy)
    assert env.highest == max(fy, default=-math.inf)
    assert env.last_x == (fx[-1] if fx else -math.inf)


def test_an_hour_keeps_each_columns_first_lowest_highest_and_last() -> None:
    rnd = random.Random(7)
    xs = [float(t) for t in range(1, 3601)]
    ys: list[float | None] = [50_000 * (1 + 0.05 * rnd.random()) for _ in xs]
    ys[1234] = 0.0  # a one-second stall
    ys[2345] = 200_000.0  # a spike
    env = Envelope(xs, ys)
    env.sync(xs, ys, len(xs))
    bins = 100
    runs = env.columns(0.0, 4000.0, bins)
    assert len(runs) <= bins
    by_col: dict[int, list[float]] = {}
    for x, y in zip(xs, ys, strict=True):
        assert y is not None
        by_col.setdefault(sub_cell(x, 0.0, 4000.0, bins), []).append(y)
    assert [int(r[0]) for r in runs] == sorted(by_col)
    for col, _x, first, low, high, last in runs:
        col_ys = by_col[int(col)]
        assert (first, low, high, last) == (col_ys[0], min(col_ys), max(col_ys), col_ys[-1])
    px, py = env.points(0.0, 4000.0, bins)
    assert len(px) <= 4 * bins
    assert 0.0 in py, "the stall stays on the chart"
    assert 200_000.0 in py, "the spike too"

    # one more second: folded into the last column, nothing before it is looked at again
    xs.append(3601.0)
    ys.append(1.0)
    env.sync(xs, ys, len(xs))
    assert env.columns(0.0, 4000.0, bins)[-1][3] == 1.0
    assert env.highest == 200_000.0
    assert env.last_x == 3601.0
