"""The Profile screen, opened with ``p`` on Triage's row: icicle, zoom, search, the top table,
and snapshots at 80x24 and 160x48 in the light, dark and colour-blind themes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.profile import ProfileScreen
from benchdeck.tui.app.screens.triage import TriageScreen
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.flame import FlameGraph
from tests.app.helpers import cell_text, on_screen, settle
from tests.app.snapshot import assert_snapshot
from tests.profiles.data import BASE, HOST, NEW, build_profile_store


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("profile-tui") / "profiles.duckdb"
    build_profile_store(path)
    return path


@pytest.fixture
def store_path(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy in the working directory: the header shows ``profiles.duckdb`` in every run."""
    d = tmp_path / "store"
    d.mkdir()
    shutil.copy2(template, d / template.name)
    monkeypatch.chdir(d)
    return d / template.name


async def _on(app: BenchdeckApp, pilot: object, screen_key: str) -> None:
    """The app on screen ``screen_key`` (2 Compare, 3 Triage) comparing the two builds."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await settle(pilot)
    app.selection = Selection(HOST, BASE, (NEW,))
    await pilot.press(screen_key)
    await settle(pilot)


async def _open(app: BenchdeckApp, pilot: object) -> ProfileScreen:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await _on(app, pilot, "3")
    await pilot.press("p")
    await settle(pilot)
    return on_screen(app, ProfileScreen)


async def test_triage_names_the_grown_function(store_path: Path) -> None:
    app = BenchdeckApp(store_path)
    async with app.run_test(size=(160, 36)) as pilot:
        await _on(app, pilot, "3")
        screen = on_screen(app, TriageScreen)
        (item,) = screen.items
        assert item.rqps == pytest.approx(0.9)
        # the grown function first; btr_cur and the rest did not grow, log_write_up_to shrank
        assert item.grown == "row_upd_sec_index_entry +100 us/q"
        assert item.line().endswith("row_upd_sec_index_entry +100 us/q")


async def test_triage_opens_the_profile(store_path: Path) -> None:
    app = BenchdeckApp(store_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(app, pilot)
        table = screen.query_one("#profile-top")
        assert cell_text(table, 0, 0) == "row_upd_sec_index_entry"  # type: ignore[arg-type]
        assert cell_text(table, 0, 3) == "+100.000"  # type: ignore[arg-type]
        flame = screen.query_one(FlameGraph)
        assert flame.root is not None
        assert flame.differential
        # down the widest path to the grown function: all > mysqld > ... > mysql_update
        for _ in range(7):
            await pilot.press("down")
        assert flame.cursor is not None
        assert flame.cursor.name == "mysql_update"
        await pilot.press("down")
        assert flame.cursor.name in {"row_upd_sec_index_entry", "btr_cur_search_to_nth_level"}
        await pilot.press("enter")
        assert flame.zoomed is flame.cursor
        await pilot.press("escape")
        assert flame.zoomed is flame.root
        await pilot.press("slash")
        await pilot.press(*"log_write")
        assert flame.search == "log_write"
        await pilot.press("escape")  # clears the search
        assert flame.search == ""
        await pilot.press("escape")  # not zoomed: back to Triage
        await settle(pilot)
        assert not isinstance(app.screen, ProfileScreen)


THEMES = ["benchdeck-light", "benchdeck-dark", "benchdeck-colorblind"]
SIZES = [(80, 24), (160, 48)]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_snapshots(store_path: Path, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    app = BenchdeckApp(store_path)
    async with app.run_test(size=size) as pilot:
        app.theme = theme
        await _open(app, pilot)
        for _ in range(8):
            await pilot.press("down")
        await settle(pilot)
        assert_snapshot(app, f"profile-{theme.removeprefix('benchdeck-')}-{size[0]}x{size[1]}", tmp_path)


async def test_compare_opens_the_first_profiled_workload(store_path: Path) -> None:
    app = BenchdeckApp(store_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _on(app, pilot, "2")
        await pilot.press("p")
        await settle(pilot)
        screen = on_screen(app, ProfileScreen)
        assert screen.request.workload == "update-index_range=100"
        assert screen.loaded is not None
        assert screen.loaded.workloads == ["update-index_range=100"]
        assert not screen.check_action("next_workload", ())


async def test_a_profile_of_unknown_length_shows_ratios_only(store_path: Path, tmp_path: Path) -> None:
    """An imported profile nobody said the length of: shares of its samples, no figure per query."""
    from textual.widgets import Static

    from benchdeck.store.importers.profiles import import_profile_file
    from benchdeck.store.storage.db import Store
    from benchdeck.tui.services.profiles import ProfileRequest
    from tests.app.helpers import static_text

    f = tmp_path / "p.folded"
    f.write_text("mysqld;a 300\nmysqld;a;b 700\n")
    with Store.open(store_path) as store:
        import_profile_file(store, 5, f, event="cycles")
    app = BenchdeckApp(store_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await app.push_screen(ProfileScreen(ProfileRequest(runs=(5,))))
        await settle(pilot)
        screen = on_screen(app, ProfileScreen)
        head = static_text(screen.query_one("#profile-head", Static))
        assert "how long perf recorded is unknown: shares of the samples (%) only" in head
        assert "/q" not in head
        table = screen.query_one("#profile-top")
        assert [str(c.label) for c in table.columns.values()][1:3] == ["self %", "total %"]


async def test_the_view_line_says_which_graph_and_the_zoomed_path(store_path: Path) -> None:
    """Issue 38 item 11: zoomed, nothing showed where; after ``b`` nothing said base or column."""
    from textual.widgets import Static

    from tests.app.helpers import static_text

    app = BenchdeckApp(store_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(app, pilot)
        view = screen.query_one("#profile-view", Static)
        assert static_text(view) == "col-1's graph: colour = change of self CPU vs the base  (b: base's)"
        for _ in range(7):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        path = static_text(view).splitlines()[1]
        assert path.startswith("zoomed: …"), "120 columns: the path's start is cut, never its end"
        assert path.endswith(" > dispatch_command > mysql_execute_command > mysql_update  (Esc: out)")
        assert len(path) <= 118
        await pilot.press("b")
        await settle(pilot)
        assert static_text(view) == "the base's graph  (b: col-1's)", "at its root: not zoomed"
        await pilot.press("b", "d")
        await settle(pilot)
        assert static_text(view) == "col-1's graph, plain colours  (b: base's)"
