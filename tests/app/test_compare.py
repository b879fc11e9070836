"""Compare screen: base/column changes re-render rQPS, theme colours, tabs, export (real store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable, Input, Static, TabbedContent

from benchdeck.store.analysis.compare import Comparison
from benchdeck.store.reports.compare_report import render
from benchdeck.store.storage.db import Store
from benchdeck.themes.loader import load_theme_file
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.compare import CompareScreen
from benchdeck.tui.app.screens.dialogs import ExportDialog
from benchdeck.tui.app.screens.multi_pick import MultiPickDialog
from benchdeck.tui.app.state.choices import run_comparison
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.rqps_bars import RqpsBars
from benchdeck.tui.app.widgets.wide_table import WideTable
from tests.app.helpers import cell_colour, column_texts, on_screen, settle, static_text
from tests.app.storedata import BASE, HOST, LTO, NEW, Demo

SIZE = (100, 30)
THEMES = Path(__file__).resolve().parents[2] / "themes"


def expected(demo: Demo, sel: Selection) -> Comparison:
    with Store.open(demo.path) as store:
        return run_comparison(store.cursor(), sel)


def chosen(app: BenchdeckApp) -> Selection:
    """The app's selection, read afresh (an assert on it must not narrow later reads)."""
    return app.selection


def rqps(app: BenchdeckApp) -> DataTable[object]:
    return app.screen.query_one("#compare-rqps", DataTable)


async def open_compare(app: BenchdeckApp, pilot: object, sel: Selection | None = None) -> None:
    if sel is not None:
        app.selection = sel
    await pilot.press("2")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    assert isinstance(app.screen, CompareScreen)


async def test_change_base_and_columns_rerenders_rqps(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        want = expected(demo, app.selection)
        assert column_texts(rqps(app), 0) == [
            "1.06", "0.98~", "0.93", "0.90", "0.96", "1.12", "0.80", "0.56", "0.75"
        ]  # fmt: skip
        assert column_texts(rqps(app), 1) == [r.workload for r in want.rqps]

        await pilot.press("a")  # columns: one dialog lists every build but the base, NEW ticked
        dialog = app.screen
        assert isinstance(dialog, MultiPickDialog)
        assert [v for _, v in dialog.choices] == [LTO, NEW], "builds with runs, oldest version first"
        await pilot.press("space", "enter")  # tick LTO too (the first), apply
        await settle(pilot)
        assert chosen(app).with_builds == (LTO, NEW)
        assert [str(c.label) for c in rqps(app).columns.values()][:2] == ["col-1", "col-2"]
        assert column_texts(rqps(app), 0)[:3] == ["1.10", "1.02~", "0.97"]

        await pilot.press("b", "down", "enter")  # the base moves to the next build (LTO)
        await settle(pilot)
        await settle(pilot)
        assert chosen(app).base == LTO
        assert chosen(app).with_builds == (BASE, NEW), "the old base takes the new base's column"
        lto_vs = expected(demo, app.selection)
        assert column_texts(rqps(app), 1) == [f"{r.values[1]:.2f}" for r in lto_vs.rqps]
        assert column_texts(rqps(app), 1)[7] == f"{0.56 / 0.60:.2f}"

        await pilot.press("x", "x")  # drop the last columns: nothing left to compare
        await settle(pilot)
        assert chosen(app).with_builds == ()
        assert rqps(app).row_count == 0
        assert "Pick a base" in static_text(app.screen.query_one("#compare-legend", Static))


async def test_rqps_colours_come_from_the_theme(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        for theme_file in ("dark.toml", "colorblind.toml", "light.toml"):
            theme = load_theme_file(THEMES / theme_file)
            app.theme = theme.name
            await settle(pilot)
            v = theme.variables
            assert cell_colour(rqps(app), 7, 0) == v["rqps-bad"].upper()  # update-index 0.56
            assert cell_colour(rqps(app), 5, 0) == v["rqps-good"].upper()  # scan 1.12
            assert cell_colour(rqps(app), 1, 0) == v["rqps-neutral"].upper()  # point-query 0.98~
        assert load_theme_file(THEMES / "colorblind.toml").variables["rqps-bad"] == "#E69F00"


async def test_tabs_groups_per_op_chart_noise(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW, LTO)))
        want = expected(demo, app.selection)
        tabs = app.screen.query_one("#compare-tabs", TabbedContent)
        await pilot.press("right_square_bracket")
        assert tabs.active == "tab-groups"
        groups = app.screen.query_one("#compare-groups", DataTable)
        # the posts' compact table: a row per group, a column per build, the median by default
        assert column_texts(groups, 0) == ["point-1", "point-2", "range-1", "range-2", "writes"]
        assert [str(c.label) for c in groups.columns.values()] == ["median", "n", "col-1", "col-2"]
        writes = {(g.column, g.group): g for g in want.groups}
        assert column_texts(groups, 2)[4] == f"{writes[(NEW, 'writes')].median:.2f}"
        assert column_texts(groups, 3)[4] == f"{writes[(LTO, 'writes')].median:.2f}"
        await pilot.press("m")  # the next statistic: avg
        assert str(next(iter(groups.columns.values())).label) == "avg"
        assert column_texts(groups, 2)[4] == f"{writes[(NEW, 'writes')].avg:.2f}"

        await pilot.press("right_square_bracket")
        hw = static_text(app.screen.query_one("#compare-hw", Static))
        assert tabs.active == "tab-hw"
        assert hw.count("update-index_range=100") == 1

        await pilot.press("right_square_bracket")
        chart = app.screen.query_one("#compare-chart", RqpsBars)
        assert (chart.cmp, chart.column) == (on_screen(app, CompareScreen).cmp, 0)
        drawn = chart.render()
        assert isinstance(drawn, Text)
        lines = drawn.plain.splitlines()
        assert "▼ 1.0 = base" in lines[1] or "base = 1.0 ▼" in lines[1], "a labelled 1.0 line"
        rows = lines[2 : 2 + len(want.rqps)]
        starts = {min(r.index(c) for c in "█▏▎▍▌▋▊▉" if c in r) for r in rows}
        assert len(starts) == 1, "every bar starts at the same column, those below 1.0 too"
        assert [r.split()[-1] for r in rows] == [
            f"{v.values[0]:.2f}" + ("~" if v.within_noise[0] else "") for v in want.rqps
        ]
        assert lines[-1].split()[:3] == ["0", "0.2", "0.4"], "ticks at round numbers"
        await pilot.press("n")
        assert chart.column == 1

        await pilot.press("right_square_bracket")
        noise = app.screen.query_one("#compare-noise", WideTable)
        assert tabs.active == "tab-noise"
        pq = next(i for i, w in enumerate(column_texts(noise, 0)) if w == "point-query_range=100")
        assert column_texts(noise, 1)[pq : pq + 3] == ["base", "col-1", "col-2"]  # as in the legend
        assert column_texts(noise, 5)[pq : pq + 3] == ["3", "2", "1"]  # repeats of base, NEW, LTO
        assert column_texts(noise, 6)[pq] == "20.0%"
        row = next(r for r in want.rqps if r.workload == "point-query_range=100")
        ci = row.ci[0]
        assert ci is not None, "NEW has 2 runs, the base 3: an interval from repeats"
        assert column_texts(noise, 3)[pq + 1] == f"[{ci.low:.2f}, {ci.high:.2f}]"
        assert column_texts(noise, 4)[pq + 1] == "repeats"
        assert column_texts(noise, 4)[0:3] == ["", "none: 1 run each", "none: 1 run each"]
        assert app.focused is noise, "the tab's table takes the keys: → scrolls it"
        await pilot.press("right")
        assert noise.scroll_x == noise.column_starts()[1]
        assert (ci.low <= 1.0 <= ci.high) == row.within_noise[0]


async def test_tab_is_kept_after_a_dialog_or_the_palette(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        tabs = app.screen.query_one("#compare-tabs", TabbedContent)
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert tabs.active == "tab-hw"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press("escape")
        await settle(pilot)
        assert tabs.active == "tab-hw", "the palette closing must not switch tabs"
        await pilot.press("b", "down", "enter")  # a new base: the comparison reloads
        await settle(pilot)
        assert chosen(app).base == LTO
        assert on_screen(app, CompareScreen).query_one("#compare-tabs", TabbedContent).active == "tab-hw"
        await pilot.press("a", "escape", "1", "2")  # a dialog cancelled, another screen and back
        await settle(pilot)
        assert app.screen.query_one("#compare-tabs", TabbedContent).active == "tab-hw"


async def test_rqps_column_widths_fit_the_data_after_a_redraw(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        app.theme = "benchdeck-light"  # re-renders the tables
        await settle(pilot)
        widths = {str(c.label): c.width for c in rqps(app).columns.values()}
        assert widths["workload"] == max(len(w) for w in column_texts(rqps(app), 1))
        assert widths["col-1"] == len("0.98~")


@pytest.mark.parametrize("fmt", ["md", "csv", "text"])
async def test_export_writes_the_report(demo: Demo, tmp_path: Path, fmt: str) -> None:
    seen: list[Message] = []
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW, LTO)))
        await pilot.press("e")
        assert isinstance(app.screen, ExportDialog)
        await pilot.click(f"#export-{fmt}")
        path_input = app.screen.query_one("#export-path", Input)
        assert path_input.value.endswith({"md": ".md", "csv": ".csv", "text": ".txt"}[fmt])
        target = tmp_path / "out" / f"report.{fmt}"
        path_input.value = str(target)
        path_input.focus()
        await pilot.press("enter")
        await settle(pilot)
        exported = [m for m in seen if isinstance(m, CompareScreen.Exported)]
        assert [(m.path, m.fmt) for m in exported] == [(target, fmt)]
        assert any(str(target) in n.message for n in app._notifications)
    assert target.read_text() == render(expected(demo, Selection(HOST, BASE, (NEW, LTO))), fmt)


async def test_config_and_dop_pickers_appear_when_the_data_has_several(tmp_path: Path) -> None:
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status

    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        for config, dop, build, qps in [
            ("cfgA", 1, BASE, 100.0),
            ("cfgA", 1, NEW, 90.0),
            ("cfgA", 8, BASE, 700.0),
            ("cfgA", 8, NEW, 770.0),
            ("cfgB", 1, BASE, 50.0),
            ("cfgB", 1, NEW, 60.0),
            ("cfgB", 1, LTO, 55.0),  # LTO ran in cfgB only
        ]:
            with store.transaction() as cur:
                run = NewRun(
                    HOST, parse_build_name(build), "insert_range=100", "test", config=config, threads=dop
                )
                rid = create_run(cur, run)
                save_summary(cur, rid, RunSummary(qps=qps))
                set_status(cur, rid, "finished")
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_compare(app, pilot)
        screen = on_screen(app, CompareScreen)
        assert screen.query_one("#compare-config").display
        assert screen.query_one("#compare-dop").display
        # the busiest config and dop (a tie: the lower dop); rows of other dops are not shown
        assert (chosen(app).config, chosen(app).dop) == ("cfgA", 1)
        await pilot.press("a")  # the columns: (build, config) pairs with runs at dop 1, the base's left out
        dialog = on_screen(app, MultiPickDialog)
        assert [v for _, v in dialog.choices] == [f"{BASE}:cfgB", f"{LTO}:cfgB", NEW, f"{NEW}:cfgB"]
        await pilot.press("ctrl+a", "ctrl+b")  # every build of cfgA: NEW only
        assert dialog.ticked == [NEW]
        await pilot.press("down", "down", "down", "space")  # and NEW under cfgB too
        assert dialog.ticked == [NEW, f"{NEW}:cfgB"]
        await pilot.press("enter")
        await settle(pilot)
        assert chosen(app).with_builds == (NEW, f"{NEW}:cfgB")
        assert column_texts(rqps(app), 0) == ["0.90"]
        assert column_texts(rqps(app), 1) == ["0.60"], "NEW under cfgB (60) against the base under cfgA (100)"
        assert f"{NEW}.cfgB" in static_text(
            on_screen(app, CompareScreen).query_one("#compare-legend", Static)
        )
        await pilot.press("a", "ctrl+b", "enter")  # back to the one column
        await settle(pilot)
        assert chosen(app).with_builds == (NEW,)
        assert column_texts(rqps(app), 1) == ["insert_range=100"]
        assert column_texts(rqps(app), 0) == ["0.90"]

        await pilot.press("o", "up", "enter")  # [all dops], dop 1
        await settle(pilot)
        assert chosen(app).dop is None
        assert column_texts(rqps(app), 1) == ["insert_range=100@dop1", "insert_range=100@dop8"]
        assert column_texts(rqps(app), 0) == ["0.90", "1.10"]

        await pilot.press("o", "down", "down", "enter")  # all dops, dop 1, [dop 8]
        await settle(pilot)
        assert chosen(app).dop == 8
        assert column_texts(rqps(app), 0) == ["1.10"]

        await pilot.press("c", "down", "enter")  # cfgA, [cfgB]: its own comparison, as it was left
        await settle(pilot)
        assert (chosen(app).config, chosen(app).dop) == ("cfgB", 1)
        assert column_texts(rqps(app), 0) == ["1.10"], "cfgB's own default column: LTO (55 / 50)"
        assert not on_screen(app, CompareScreen).query_one("#compare-dop").display, "cfgB has one dop"

        await pilot.press("c", "up", "enter")  # back to cfgA: dop 8 as it was left
        await settle(pilot)
        assert (chosen(app).config, chosen(app).dop) == ("cfgA", 8)


def test_warm_up_steps_are_not_rows(tmp_path: Path) -> None:
    """The author's trees hold ``point-query.warm`` at dop 8 beside the dop 40 steps: even with
    all dops it is not a row; ``scan.warm`` (a measured step of the modern suite) is."""
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status

    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        for workload, dop in (("point-query.warm_range=100", 8), ("scan.warm_range=100", 40)):
            for build in (BASE, NEW):
                with store.transaction() as cur:
                    rid = create_run(
                        cur, NewRun(HOST, parse_build_name(build), workload, "test", threads=dop)
                    )
                    save_summary(cur, rid, RunSummary(qps=100.0))
                    set_status(cur, rid, "finished")
        cmp = run_comparison(store.cursor(), Selection(HOST, BASE, (NEW,)))
    assert [(r.workload, r.dop) for r in cmp.rqps] == [("scan.warm_range=100", 40)]
