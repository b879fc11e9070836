"""Charts: the Line-API rendering matches plotext's own output, redraws only on new data, thinning.

The reference for what a chart shows is textual-plotext's way: ``Text.from_ansi(plt.build())``
rendered by Textual's standard content pipeline (``visualize`` + ``Visual.to_strips``). The
charts skip that pipeline; these tests keep them from diverging from it.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.visual import Visual, visualize

from benchdeck.themes.loader import bundled_themes
from benchdeck.tui.app.widgets.chart_raster import Envelope, finite_points
from benchdeck.tui.app.widgets.charts import Line, LineChart
from tests.app.helpers import settle

SIZE = (100, 30)
XS = [float(t) for t in range(1, 41)]
QPS: list[float | None] = [1000 + 80 * math.sin(t / 3) for t in XS]
QPS[5] = None  # a missing interval
QPS[9] = math.nan
LINES = [Line("QPS", XS, QPS), Line("base", XS, [950.0] * len(XS))]


class ChartApp(App[None]):
    """One chart on the screen, the app's bundled themes registered."""

    CSS = "LineChart { width: 1fr; height: 1fr; }"

    def __init__(self, *charts: LineChart) -> None:
        super().__init__()
        self.charts = charts
        for theme in bundled_themes():
            self.register_theme(theme)
        self.theme = "benchdeck-dark"

    def compose(self) -> ComposeResult:
        yield from self.charts


def chart_strips(chart: LineChart) -> list[Strip]:
    return [chart.render_line(y) for y in range(chart.size.height)]


def plotext_strips(chart: LineChart) -> list[Strip]:
    """What textual-plotext shows for the same plot: plotext's ANSI text through Textual."""
    text = chart.render()
    assert isinstance(text, Text)
    width, height = chart.size
    visual = visualize(chart, text)
    return Visual.to_strips(chart, visual, width, height, chart.visual_style)


def cells(strips: list[Strip]) -> list[list[tuple[str, Any]]]:
    """Each cell's character and the parts of its style that show (colours and attributes)."""

    def shown(style: RichStyle | None) -> Any:
        s = style or RichStyle()
        return (s.color, s.bgcolor, s.bold, s.dim, s.italic, s.underline, s.reverse, s.strike)

    return [[(ch, shown(seg.style)) for seg in strip for ch in seg.text] for strip in strips]


def text_lines(strips: list[Strip]) -> list[str]:
    return [strip.text for strip in strips]


def assert_same_as_plotext(chart: LineChart) -> None:
    """The plot is plotext's, cell for cell; the last line is our legend (below the plot)."""
    ours, theirs = chart_strips(chart), plotext_strips(chart)
    if chart.lines:
        legend = text_lines(ours).pop()
        drawn = [line.label for line in chart.lines if any(y is not None for y in line.ys)]
        assert all(f"━{label}" in legend for label in drawn), legend
        ours, theirs = ours[:-1], theirs[:-1]
    assert text_lines(ours) == text_lines(theirs)
    assert cells(ours) == cells(theirs)


async def test_line_api_renders_plotext_characters_and_colours() -> None:
    chart = LineChart("QPS", ymax=None)
    app = ChartApp(chart)
    async with app.run_test(size=SIZE) as pilot:
        chart.set_lines(LINES)
        await settle(pilot)
        assert chart.size.area
        lines = text_lines(chart_strips(chart))
        assert "QPS" in lines[0]
        assert any("▞" in line or "▚" in line or "▀" in line or "▄" in line for line in lines), lines
        assert_same_as_plotext(chart)

        before = cells(chart_strips(chart))
        app.theme = "benchdeck-light"  # the chart follows the theme, and still matches plotext
        await settle(pilot)
        after = cells(chart_strips(chart))
        assert {c[1][1] for row in after for c in row} != {c[1][1] for row in before for c in row}
        assert_same_as_plotext(chart)

        await pilot.resize_terminal(70, 20)  # a new size: built again, at that size
        await settle(pilot)
        assert [len(line) for line in text_lines(chart_strips(chart))] == [
            chart.size.width
        ] * chart.size.height
        assert_same_as_plotext(chart)


async def test_a_redrawn_chart_shows_what_a_new_one_does() -> None:
    """Drawing new data clears the old (``clear_data``, not a new figure): nothing is left over."""
    reused, fresh = LineChart("p95", id="reused"), LineChart("p95", id="fresh")
    app = ChartApp(reused, fresh)
    async with app.run_test(size=SIZE) as pilot:
        reused.set_lines([Line("a", [1.0, 2.0, 3.0], [5.0, 500.0, 50.0]), Line("b", [1.0, 2.0], [1.0, 2.0])])
        await settle(pilot)
        chart_strips(reused)
        new = [Line("p95 ms", XS, [1.0 + t / 40 for t in XS])]
        reused.set_lines(new)
        fresh.set_lines(new)
        await settle(pilot)
        assert reused.size == fresh.size
        assert cells(chart_strips(reused)) == cells(chart_strips(fresh))


async def test_redraws_only_when_the_data_changed() -> None:
    chart = LineChart("QPS")
    app = ChartApp(chart)
    async with app.run_test(size=SIZE) as pilot:
        xs, ys = [1.0, 2.0], [10.0, 20.0]
        chart.set_lines([Line("QPS", xs, ys)])
        await settle(pilot)
        built = chart.builds
        assert built >= 1

        chart.set_lines([Line("QPS", list(xs), list(ys))])  # equal data: nothing to draw
        chart.refresh()
        await settle(pilot)
        assert chart.builds == built

        xs.append(3.0)  # the caller appends to the lists it passed: a copy was kept
        ys.append(30.0)
        chart.set_lines([Line("QPS", xs, ys)])
        await settle(pilot)
        assert chart.builds == built + 1
        xticks = text_lines(chart_strips(chart))[-3]  # then the x label, then the legend
        assert xticks.split()[-1] == "3", "the x axis now ends at the new last second"


async def test_a_chart_without_samples_says_so() -> None:
    chart = LineChart("iostat r/s, w/s")
    app = ChartApp(chart)
    async with app.run_test(size=SIZE) as pilot:
        chart.set_lines([Line("r/s", [], []), Line("w/s", [1.0], [None])])
        await settle(pilot)
        assert "iostat r/s, w/s: no samples" in text_lines(chart_strips(chart))[0]
        assert_same_as_plotext(chart)


async def test_a_long_title_stays_in_a_narrow_chart_before_its_samples() -> None:
    """Live's fourth chart at 80 columns: its title and "no samples" did not fit, and plotext
    dropped the title altogether (the chart had none until samples arrived)."""
    chart = LineChart("context switches (k/s), run queue")
    app = ChartApp(chart)
    async with app.run_test(size=(38, 14)) as pilot:
        chart.set_lines([Line("kcs/s", [], []), Line("r", [], [])])
        await settle(pilot)
        assert text_lines(chart_strips(chart))[0].strip() == "context switches (k/s), run queue"


def test_finite_points_drop_missing_and_non_finite_values() -> None:
    xs, ys = finite_points([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, None, math.nan, math.inf, 5.0])
    assert (xs, ys) == ([1.0, 5.0], [1.0, 5.0])
    assert finite_points([1.0, 2.0, 3.0], [7.0, 8.0]) == ([1.0, 2.0], [7.0, 8.0])


def every_point(env: Envelope, lo: float, hi: float, bins: int) -> tuple[list[float], list[float]]:
    """Instead of ``Envelope.points``: all the finite points, none left out."""
    return finite_points(list(env.xs[: env.n]), [env.y(i) for i in range(env.n)])


async def test_an_hour_is_drawn_as_plotext_draws_every_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """3,600 points a line, a one-second stall and spike among them: the chart shows the same
    cells as plotext given every point (the reference here; the chart itself reduces them)."""
    rnd = random.Random(3)
    xs = [float(t) for t in range(1, 3601)]
    qps: list[float | None] = [50_000 * (1 + 0.05 * rnd.random()) for _ in xs]
    qps[1800] = 0.0
    qps[2400] = 90_000.0
    p95: list[float | None] = [rnd.uniform(20_000, 30_000) for _ in xs]
    chart = LineChart("QPS")
    app = ChartApp(chart)
    async with app.run_test(size=SIZE) as pilot:
        chart.set_lines([Line("QPS", xs, qps), Line("p95", xs, p95)])
        await settle(pilot)
        ours = chart_strips(chart)
        assert chart.lines[0].ys is qps, "the chart reads the run's list, no copy"
        monkeypatch.setattr(Envelope, "points", every_point)
        assert cells(ours[:-1]) == cells(plotext_strips(chart)[:-1])
        lines = text_lines(ours)
        assert any(line.lstrip().startswith("100k┤") for line in lines), "the spike sets the y range"
        bottom = next(i for i, line in enumerate(lines) if "└" in line) - 1
        assert set(lines[bottom]) & set("▖▗▄▘▝▌▐▀▚▞▙▛▜▟█"), "the stall reaches the bottom row"


async def test_a_growing_line_is_drawn_as_a_new_chart_draws_it() -> None:
    """Samples appended to the lists a chart shows: after each second, through changes of the
    x ticks and the y range, the chart shows what a new chart given a copy shows."""
    grown, fresh = LineChart("QPS", id="grown"), LineChart("QPS", id="fresh")
    app = ChartApp(grown, fresh)
    rnd = random.Random(5)
    xs: list[float] = []
    ys: list[float | None] = []
    cs: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        for t in range(1, 90):
            xs.append(float(t))
            ys.append(None if t % 17 == 0 else rnd.uniform(0, 10 * t))
            cs.append(rnd.uniform(5_000, 9_000))
            n = range(1, len(cs) + 1)
            grown.set_lines([Line("QPS", xs, ys), Line("kcs", n, cs, scale=0.001)])
            if t % 11 == 0 or t < 5:
                fresh.set_lines(
                    [Line("QPS", tuple(xs), tuple(ys)), Line("kcs", tuple(n), tuple(cs), scale=0.001)]
                )
                await settle(pilot)
                assert cells(chart_strips(grown)) == cells(chart_strips(fresh)), t
                assert_same_as_plotext(grown)


async def test_a_second_more_of_an_hour_repaints_only_the_lines_it_changed() -> None:
    rnd = random.Random(9)
    xs = [float(t) for t in range(1, 3601)]
    ys: list[float | None] = [50_000 * (1 + 0.05 * rnd.random()) for _ in xs]
    chart, fresh = LineChart("QPS", id="grown"), LineChart("QPS", id="fresh")
    app = ChartApp(chart, fresh)
    async with app.run_test(size=SIZE) as pilot:
        chart.set_lines([Line("QPS", xs, ys)])
        await settle(pilot)
        chart_strips(chart)
        repainted: list[tuple[Any, ...]] = []
        refresh = chart.refresh

        def spy(*regions: Any, **kw: Any) -> Any:
            repainted.append(regions)
            return refresh(*regions, **kw)

        chart.refresh = spy  # type: ignore[method-assign]
        xs.append(3601.0)
        ys.append(20_000.0)  # a dip: the last column reaches lower
        chart.set_lines([Line("QPS", xs, ys)])
        assert len(repainted) == 1
        lines = sorted(y for region in repainted[0] for y in region.line_range)
        assert 0 < len(lines) < chart.size.height // 2, lines

        xs.append(3602.0)
        ys.append(ys[-1])  # the same cells: nothing to repaint
        chart.set_lines([Line("QPS", xs, ys)])
        assert len(repainted) == 1

        fresh.set_lines([Line("QPS", tuple(xs), tuple(ys))])
        await settle(pilot)
        assert cells(chart_strips(chart)) == cells(chart_strips(fresh))
