"""Triage: workloads ranked by regression with the per-op metrics that moved most."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Static

from benchdeck.store.analysis.compare import Comparison, HwBlock, HwRow, RqpsRow
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.series import SeriesScreen
from benchdeck.tui.app.screens.triage import Moved, TriageScreen, rank
from benchdeck.tui.app.state.selection import Selection
from tests.app.helpers import column_texts, settle, static_text
from tests.app.storedata import BASE, HOST, LTO, NEW, Demo

SIZE = (100, 30)


async def test_lowest_rqps_first_with_top_movers(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.selection = Selection(HOST, BASE, (NEW, LTO))
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        table = screen.query_one("#triage-table", DataTable)
        assert column_texts(table, 0) == [
            "0.56",
            "0.75",
            "0.80",
            "0.90",
            "0.93",
            "0.96",
            "0.98~",
            "1.06",
            "1.12",
        ]
        assert screen.items[0].line() == "update-index_range=100 0.56  wKB/o x2.32  cpu/o x1.50  cs/o x1.41"
        assert column_texts(table, 3)[0] == "wKB/o x2.32  cpu/o x1.50  cs/o x1.41"
        assert all("o/s" not in t for t in column_texts(table, 3)), "o/s is the rQPS itself"

        await pilot.press("w")  # the next column: LTO against the base
        await settle(pilot)
        assert column_texts(table, 0)[0] == "0.60"

        await pilot.press("w", "enter")  # back to NEW; enter opens both runs' time series
        await settle(pilot)
        assert isinstance(app.screen, SeriesScreen)
        assert app.screen.run_ids == [demo.base_update_index, demo.new_update_index]
        assert [len(s.qps) for s in app.screen.series] == [30, 30]


async def test_triage_works_from_a_cold_start(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")  # Compare never visited: the busiest host, its two oldest builds
        await settle(pilot)
        assert isinstance(app.screen, TriageScreen)
        assert app.selection == Selection(HOST, BASE, (LTO,), None, 24)
        assert app.screen.items[0].line().startswith("update-index_range=100 0.60")


async def test_the_comparison_is_remembered_across_a_restart(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("b", "down", "enter")  # base LTO (the column: it swaps with the old base)
        await settle(pilot)
        # the columns: untick the old base, tick NEW (after it)
        await pilot.press("a", "space", "down", "space", "enter")
        await settle(pilot)
        assert app.selection == Selection(HOST, LTO, (NEW,), None, 24)
        await app.workers.wait_for_complete()
    again = BenchdeckApp(demo.path)
    assert again.selection == Selection(HOST, LTO, (NEW,), None, 24)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(again.screen, TriageScreen)
        assert again.screen.items[0].line().startswith(f"update-index_range=100 {0.56 / 0.60:.2f}")


async def test_an_empty_store_says_what_triage_needs(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "empty.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, TriageScreen)
        assert app.screen.items == []
        assert "two builds" in static_text(app.screen.query_one("#triage-head", Static))
        await pilot.press("s")  # disabled without rows: nothing happens
        assert isinstance(app.screen, TriageScreen)


def _cmp(
    rel: dict[str, float | None], rqps: float | None = 0.5, base: dict[str, float | None] | None = None
) -> Comparison:
    """Per-op values of the base (1.0 each unless given) and of the column (base * rel)."""
    bvals: dict[str, float | None] = base or dict.fromkeys(rel, 1.0)
    vals = {k: None if v is None or bvals.get(k) is None else v * (bvals[k] or 0.0) for k, v in rel.items()}
    return Comparison(
        host="h",
        base="a",
        columns=("b",),
        config=None,
        dops=(None,),
        rqps=(RqpsRow("w", "writes", None, (rqps,), (False,), (1,)),),
        groups=(),
        hw=(HwBlock("w", None, (HwRow("a", bvals, dict.fromkeys(rel, 1.0)), HwRow("b", vals, rel))),),
        cells={},
    )


def test_rank_scores_by_log_distance_in_both_directions() -> None:
    rel = {"cpu/o": 1.5, "cs/o": 0.5, "r/o": 1.0, "rKB/o": None, "wKB/o": 1.9, "o/s": 0.1}
    (item,) = rank(_cmp(rel))
    # |log|: cs/o 0.69 (halved counts as much as doubled), wKB/o 0.64, cpu/o 0.41; r/o 1.0 never moved
    assert [m.metric for m in item.moved] == ["cs/o", "wKB/o", "cpu/o"]
    assert item.metrics_text() == "cs/o x0.50  wKB/o x1.90  cpu/o x1.50"


def test_near_zero_metrics_are_no_movers_and_never_inf() -> None:
    """Issue 25 item 2: the built-in runs' r/o 1.9e-6 vs 1.0e-4 and a read-only step's wKB/o
    0.006 -> 0 ranked first as x0.02 / x0.00; a rise from 0 was xinf. The floors (store/analysis/movers.py)
    make the first two no move and the third a finite ratio against the floor."""
    base = {"cpu/o": 0.004, "cs/o": 1.0, "r/o": 1.0e-4, "rKB/o": 0.0, "wKB/o": 0.006}
    rel = {"cpu/o": 1.1, "cs/o": 1.0, "r/o": 0.019, "rKB/o": 1.0, "wKB/o": 0.0}
    (item,) = rank(_cmp(rel, base=base))
    assert [str(m) for m in item.moved] == ["cpu/o x1.10"]
    # rKB/o from 0 to 0.5 KB/op: x50 against the 0.01 floor, not inf; wKB/o 0 -> 0: no move
    base = {"cpu/o": 0.004, "rKB/o": 0.0, "wKB/o": 0.0}
    (rise,) = rank(_cmp({"cpu/o": 1.01, "rKB/o": 1.0, "wKB/o": 1.0}, base=base))
    assert [str(m) for m in rise.moved] == ["cpu/o x1.01"]
    cmp = _cmp({"cpu/o": 1.01, "rKB/o": 1.0, "wKB/o": 1.0}, base=base)
    cmp.hw[0].rows[1].values["rKB/o"] = 0.5
    (up,) = rank(cmp)
    assert [str(m) for m in up.moved] == ["rKB/o x50.00", "cpu/o x1.01"]
    assert Moved("cs/o", 1.0).score == 0.0
