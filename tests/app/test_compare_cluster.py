"""Compare and Runs on a store with runs on a cluster (issue 41): a build alone and the same build
on a cluster are two columns, the gain on each cluster under rQPS, each cluster column's nodes
(lag, per-op, all) under Per-op, the over-limit flag in the theme's warning colour; Runs shows
each run's cluster and flag. The store is tests/fixtures/cluster_store.py's, stored through the
EventSink from the engine's own events (base and pgo_use, alone and on ``loop3``)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from benchdeck.store.analysis.column_choices import column_choices
from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.compare import CompareScreen
from benchdeck.tui.app.screens.multi_pick import MultiPickDialog
from benchdeck.tui.app.screens.runs import RunsScreen
from benchdeck.tui.app.screens.runs_table import COLUMNS, RunsTable
from benchdeck.tui.app.state.choices import valid_columns
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.warning import warning_colour
from benchdeck.tui.startup.first_page import page_doc, page_from_doc
from benchdeck.tui.startup.runs_page import read_first_page
from tests.app.helpers import column_texts, on_screen, settle, static_text
from tests.app.snapshot import assert_snapshot
from tests.app.storedata import Demo
from tests.fixtures.cluster_store import BASE, PGO, fill

ON_LOOP3 = (PGO, f"{BASE}@loop3", f"{PGO}@loop3")
"""The seed's question as one table: PGO's gain alone, the cluster's cost, PGO on the cluster."""
FLAG = "my8040_rel_pgo_use@loop3: a replica fell behind past 10 s in 1 of 1 runs; 1 node fault(s)"


@pytest.fixture
def cluster_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture's four runs, dated in 2024 (the Runs table shows the year, the same every
    year), in the working directory (the header names it ``c.duckdb``)."""
    d = tmp_path / "store"
    d.mkdir()
    path = d / "c.duckdb"
    fill(path)
    with Store.open(path) as store:
        store.cursor().execute(
            "UPDATE runs SET created_at = TIMESTAMP '2024-11-29 11:30' + run_id * INTERVAL 7 MINUTE"
        )
    monkeypatch.chdir(d)
    return path


async def open_compare(app: BenchdeckApp, pilot: object, columns: tuple[str, ...]) -> CompareScreen:
    await settle(pilot)  # type: ignore[arg-type]
    app.selection = Selection("local", BASE, columns)
    await pilot.press("2")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    return on_screen(app, CompareScreen)


def shown(app: BenchdeckApp) -> str:
    """The screen's text, a line per row (the SVG's text runs at one height joined)."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for x, y, text in _TEXT.findall(app.export_screenshot()):
        rows.setdefault(y, []).append((float(x), html.unescape(text).replace("\xa0", " ")))
    return "\n".join(
        "".join(t for _, t in sorted(runs)) for _, runs in sorted(rows.items(), key=lambda r: float(r[0]))
    )


def styles(text: Text, part: str) -> list[str]:
    """The styles of the spans of ``text`` that cover exactly ``part``."""
    return [str(s.style) for s in text.spans if text.plain[s.start : s.end] == part]


_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>')


def test_a_build_alone_and_on_a_cluster_are_two_choices(cluster_store: Path) -> None:
    with Store.open(cluster_store, read_only=True) as store:
        choices = column_choices(store.cursor(), "local")
    assert [(c.build, c.cluster, c.runs) for c in choices] == [
        (BASE, None, 1),  # its run alone only: the run on loop3 is not counted here
        (BASE, "loop3", 1),
        (PGO, None, 1),
        (PGO, "loop3", 1),
    ]


def test_remembered_columns_keep_the_base_build_on_a_cluster() -> None:
    pairs = {(BASE, "", None), (BASE, "", "loop3"), (PGO, "", None)}
    kept = valid_columns([BASE, f"{BASE}@loop3", PGO, f"{PGO}@loop3", f"{PGO}@elsewhere"], BASE, None, pairs)
    assert kept == (f"{BASE}@loop3", PGO), "the base alone is left out, not the base on loop3"


async def test_pick_the_columns_alone_and_on_the_cluster_in_one_dialog(cluster_store: Path) -> None:
    app = BenchdeckApp(cluster_store)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(app, pilot, (PGO,))
        assert screen.choices["add"] == [f"{BASE}@loop3", f"{PGO}@loop3"], "+ add: the columns on loop3"
        await pilot.press("a")
        dialog = app.screen
        assert isinstance(dialog, MultiPickDialog)
        assert [(label, v) for label, v in dialog.choices] == [
            (f"{PGO}  (1 runs)", PGO),
            (f"{BASE}@loop3  (1 runs)", f"{BASE}@loop3"),
            (f"{PGO}@loop3  (1 runs)", f"{PGO}@loop3"),
        ], "the runs alone first, then the cluster's; the base alone is the base"
        assert dialog.presets[1] == ("every build of config default, alone and on loop3", list(ON_LOOP3))
        await pilot.press("ctrl+v", "enter")
        await settle(pilot)
        assert app.selection.with_builds == ON_LOOP3
        rqps = screen.query_one("#compare-rqps", DataTable)
        assert [column_texts(rqps, i) for i in range(3)] == [["1.30"], ["0.80"], ["0.88"]]
        gain = screen.query_one("#compare-gain", DataTable)
        assert gain.display
        assert [column_texts(gain, i) for i in range(2)] == [["1.10"], ["update-index_range=100"]]
        title = static_text(screen.query_one("#compare-gain-title", Static))
        assert title.splitlines() == [
            "On each cluster, relative to the base build there:",
            f"col-3 : {PGO}@loop3 / {BASE}@loop3",
        ]

        await pilot.press("x")  # without the base's build on loop3: nothing to show it against
        await settle(pilot)
        assert not screen.query_one("#compare-gain", DataTable).display


async def test_nodes_and_the_flag_under_per_op_in_the_warning_colour(cluster_store: Path) -> None:
    app = BenchdeckApp(cluster_store)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(app, pilot, ON_LOOP3)
        warning = warning_colour(app)
        first, entries = screen.query_one("#compare-legend", Static).content.renderables
        assert first.plain.endswith("! lag/faults")
        assert [str(s.style) for s in first.spans if first.plain[s.start : s.end] == "  ! lag/faults"] == [
            warning
        ]
        marks = [
            (e.plain, [str(s.style) for s in e.spans if e.plain[s.start : s.end] == " !"])
            for e in entries.renderables
        ]
        assert marks == [
            (f"col-1: {PGO}", []),
            (f"col-2: {BASE}@loop3", []),  # within the limit, no fault: no mark
            (f"col-3: {PGO}@loop3 !", [f"bold {warning}"]),
        ]

        hw = screen.query_one("#compare-hw", Static)
        lines = static_text(hw).splitlines()
        at = next(i for i, line in enumerate(lines) if f"{PGO}@loop3: nodes on loop3" in line)
        rows = [line.split() for line in lines[at + 1 : at + 6]]
        assert rows == [
            ["node", "role", "lag", "max", "lag", "p95", "cpu/o", "cs/o", "r/o", "rKB/o", "wKB/o"],
            ["p", "primary", "-", "-", "0.068182", "4.545", "-", "-", "-"],
            ["r1", "replica", "15.2", "14.4", "-", "-", "-", "-", "-"],
            ["r2", "replica", "0.0", "0.0", "0.022727", "4.545", "0.006", "0.023", "0.455"],
            ["all", "all", "15.2", "14.4", "0.090909", "9.091", "0.006", "0.023", "0.455"],
        ]
        assert f"! {FLAG}" in " ".join(static_text(hw).split())
        flag = [p for p in hw.content.renderables if isinstance(p, Text) and p.plain.startswith("!")]
        assert [str(p.style) for p in flag] == [f"bold {warning}"]


async def test_a_store_without_cluster_runs_shows_none_of_it(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(app, pilot, ())
        assert screen.cmp is not None
        assert not screen.cmp.on_clusters
        assert not screen.query_one("#compare-gain", DataTable).display
        assert "nodes on" not in static_text(screen.query_one("#compare-hw", Static))
        assert "!" not in static_text(screen.query_one("#compare-legend", Static))
        await pilot.press("1")
        await settle(pilot)
        table = on_screen(app, RunsScreen).query_one(RunsTable)
        assert [str(c.label) for c in table.ordered_columns] == list(COLUMNS)


async def test_runs_shows_each_runs_cluster_and_flag(cluster_store: Path) -> None:
    app = BenchdeckApp(cluster_store)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = on_screen(app, RunsScreen)
        table = screen.query_one(RunsTable)
        names = [str(c.label) for c in table.ordered_columns]
        assert names[5:8] == ["status", "cluster", "flag"]
        assert column_texts(table, 6) == ["loop3", "loop3", "", ""]
        assert column_texts(table, 7) == ["lag > 10 s; 1 fault(s)", "", "", ""]
        status = screen.query_one("#runs-status", Static)
        assert static_text(status) == "4 runs   run 4 on loop3: lag max 15.2 s, lag > 10 s; 1 fault(s)"
        assert "lag > 10 s; 1 fault(s)" in shown(app), "the flag in view at 100 columns"
        await pilot.press("down")
        assert static_text(status) == "4 runs   run 3 on loop3: lag max 3.8 s"


def test_a_kept_first_page_keeps_that_the_store_has_cluster_runs(cluster_store: Path) -> None:
    with Store.open(cluster_store, read_only=True) as store:
        page = read_first_page(store.cursor())
    assert page.clusters
    _, kept = page_from_doc(page_doc(4, page))
    assert kept is not None
    assert kept.clusters
    assert kept.runs == page.runs


SIZES = [(80, 24), (100, 30)]
PER_OP = ["2", "right_square_bracket", "right_square_bracket", "end"]


def _ids(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.mark.parametrize("size", SIZES, ids=_ids)
@pytest.mark.parametrize(("name", "keys"), [("runs", []), ("compare", ["2"]), ("compare-perop", PER_OP)])
async def test_snapshots(
    cluster_store: Path, tmp_path: Path, size: tuple[int, int], name: str, keys: list[str]
) -> None:
    """Every number of rQPS, the gain and the nodes whole at 80 columns, and the flag."""
    app = BenchdeckApp(cluster_store)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.selection = Selection("local", BASE, ON_LOOP3)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        text = shown(app)
        wanted = {
            "runs": ["880.0", "lag max 15.2 s, lag > 10 s; 1 fault(s)", "loop3"],
            "compare": ["1.30", "0.80", "0.88", "1.10", "! lag/faults"],
            "compare-perop": ["15.2", "14.4", "0.090909", "9.091", "0.455", "! my8040_rel_pgo_use@loop3"],
        }[name]
        assert all(w in text for w in wanted), [w for w in wanted if w not in text]
        assert_snapshot(app, f"{name}-cluster-{_ids(size)}", tmp_path)
