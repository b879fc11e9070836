"""The app's start: the first frame that reaches the terminal is whole and already shows the
newest runs (read as the store opened), the rest of the history comes after it, and nothing on
the way loads what the first screen does not use (real DuckDB store)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import FIRST_ROWS, RunsScreen
from benchdeck.tui.app.screens.runs_table import RunsTable
from benchdeck.tui.startup.runs_page import RunsPage
from benchdeck.tui.startup.store_handle import Opening
from tests.app.helpers import column_texts, settle
from tests.fixtures.big_store import build_store
from tests.fixtures.cli_helpers import ROOT

SIZE = (100, 30)

NOT_FOR_THE_FIRST_FRAME = (
    "sqlite3",  # (Launch lists the built-in workloads' names: engine/families/builtin/catalogue.py)
    "click",  # (the app's entry goes around the CLI: tui/entry.py)
    "rich._emoji_codes",  # (Runs' column names are Text, not markup: ~3 ms)
    "hashlib",  # (the kept files' names: zlib's crc32, loaded with Textual anyway)
    "numpy",
    "scipy",
    "pyarrow",
    "asyncssh",
    "plotext",
    "textual_plotext",
    "benchdeck.engine.running.runner",
    "benchdeck.engine.planning.plan",
    "benchdeck.store.analysis.compare",
    "benchdeck.tui.app.state.choices",
    "benchdeck.tui.app.state.live_hub",
    "benchdeck.tui.app.screens.compare",
    "benchdeck.tui.app.screens.triage",
    "benchdeck.tui.app.screens.launch",
    "benchdeck.tui.app.screens.live",
    "benchdeck.tui.app.screens.changes",
    "benchdeck.tui.app.screens.dialogs",
)

# What `benchdeck` does (tui.cli): the first page is read (by a child, or kept), then the app
# is imported and run; here headless, up to the first frame shown with rows.
PROBE = """
import asyncio, sys
from pathlib import Path
from benchdeck.store.storage.run_lists import RunFilter
from benchdeck.tui.startup.runs_page import RunsPage
from benchdeck.tui.startup.store_handle import Opening
opening = Opening(Path(sys.argv[1]), peek=True)
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
app = BenchdeckApp(Path(sys.argv[1]), opening)
loaded = None
display = app._display

def shown(screen, renderable):
    global loaded
    display(screen, renderable)
    if loaded is None and renderable is not None and not app._batch_count:
        if isinstance(screen, RunsScreen) and screen.rows:
            loaded = sorted(m for m in {mods!r} if m in sys.modules)

app._display = shown

async def main():
    async with app.run_test() as pilot:
        while loaded is None:
            await pilot.pause()

asyncio.run(main())
print("LOADED", *loaded)
"""


@pytest.fixture(scope="module")
def long_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """504 runs: more than the first frame's rows."""
    path = tmp_path_factory.mktemp("long") / "long.duckdb"
    n = build_store(path, n_hosts=4, n_builds=3)
    assert n > 3 * FIRST_ROWS
    return path, n


async def test_the_first_frame_shown_is_whole_and_has_the_newest_runs(long_store: tuple[Path, int]) -> None:
    path, n = long_store
    opening = Opening(path)
    assert opening.opened.result(timeout=60) == n  # opened (as it is by the time Textual loaded)
    app = BenchdeckApp(path, opening)
    frames: list[tuple[str, list[int]]] = []
    display = app._display

    def shown(screen: Screen[Any], renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None and not app._batch_count and isinstance(screen, RunsScreen):
            ids = [int(x) for x in column_texts(screen.query_one(DataTable), 0)]
            frames.append((type(renderable).__name__, ids))

    app._display = shown  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert frames, "no frame of Runs reached the terminal"
        kind, ids = frames[0]
        assert kind == "LayoutUpdate", "the first frame shown repaints the whole screen"
        assert ids == list(range(n, n - len(ids), -1)), "the newest runs, newest first"
        assert SIZE[1] <= len(ids) < n, "a screenful and more, the rest after that frame"
        table = app.screen.query_one(DataTable)
        assert [int(x) for x in column_texts(table, 0)] == list(range(n, 0, -1))
        assert app.take_first_runs() is None, "handed over once"


async def test_runs_reads_the_history_itself_while_the_store_is_still_opening(
    long_store: tuple[Path, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app waits only a moment for the store before its first frame; past that, Runs
    reads the history itself (the opening's first page, ready later, is not shown)."""
    import benchdeck.tui.app.app
    import benchdeck.tui.startup.store_handle

    path, n = long_store
    go = threading.Event()
    read = benchdeck.tui.startup.store_handle._first_page

    def slow_first_page(cur: Any) -> RunsPage:
        go.wait(60)
        return read(cur)

    monkeypatch.setattr(benchdeck.tui.startup.store_handle, "_first_page", slow_first_page)
    monkeypatch.setattr(benchdeck.tui.app.app, "OPEN_WAIT_S", 0.0)
    app = BenchdeckApp(path)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert not app._opened.done()
            table = app.screen.query_one(DataTable)
            assert table.row_count == n
            go.set()
            app._opened.result(timeout=60)
            await settle(pilot)
            assert isinstance(app.screen, RunsScreen)
            assert app.screen.total == n
            assert table.row_count == n
    finally:
        go.set()


def test_the_first_frame_loads_only_what_runs_uses(long_store: tuple[Path, int]) -> None:
    path, _ = long_store
    loaded = loaded_by_the_first_frame(path, NOT_FOR_THE_FIRST_FRAME)
    assert loaded == [], f"the app's start imported {loaded}"


def loaded_by_the_first_frame(store: Path, mods: tuple[str, ...]) -> list[str]:
    """Which of ``mods`` `benchdeck`'s start on ``store`` has imported by the first frame
    with rows (in a fresh process)."""
    r = subprocess.run(
        [sys.executable, "-c", PROBE.format(mods=mods), str(store)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.rsplit("LOADED", 1)[1].split()


async def test_gc_pauses_for_the_start_and_runs_again(long_store: tuple[Path, int]) -> None:
    assert gc.isenabled()
    app = BenchdeckApp(long_store[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not gc.isenabled(), "paused while the app starts"
    assert gc.isenabled(), "on again when the app ends (before startup was over)"
    app = BenchdeckApp(long_store[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app._freeze_startup_objects()
        assert gc.isenabled(), "on again once startup's objects are frozen"
    assert gc.isenabled()
    gc.disable()  # as the entry does (tui/entry.py): it was on before, the app turns it on
    try:
        app = BenchdeckApp(long_store[0], gc_paused=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert not gc.isenabled()
            app._freeze_startup_objects()
            assert gc.isenabled(), "on again once startup is over, though off when the app was made"
    finally:
        gc.enable()


class Tables(App[None]):
    def compose(self) -> ComposeResult:
        yield RunsTable(id="fast")
        yield DataTable[object](id="textual")


@pytest.mark.parametrize("fixed", [True, False])
async def test_runs_table_sizes_itself_as_textuals_table_does(fixed: bool) -> None:
    """Without measuring cells when every column has its width (and the same as Textual's
    own table otherwise)."""
    app = Tables()
    async with app.run_test(size=(80, 20)) as pilot:
        tables = [app.query_one("#fast", DataTable), app.query_one("#textual", DataTable)]
        for table in tables:
            table.add_column("run", key="run", width=5 if fixed else None)
            table.add_column("workload", key="workload", width=30)
            for i in range(40):
                table.add_row(str(i), "x" * (i % 25), key=str(i))
        await pilot.pause()
        fast, textual = tables
        assert fast.virtual_size == textual.virtual_size
        assert fast.columns[ColumnKey("run")].get_render_width(fast) == (
            textual.columns[ColumnKey("run")].get_render_width(textual)
        )


# `benchdeck`'s start on a store without runs, headless, up to Launch's first frame shown: the
# screens made by then, the modules loaded; then the store opened after it.
EMPTY_PROBE = """
import asyncio, json, sys
from pathlib import Path
from benchdeck.tui.startup.store_handle import Opening
opening = Opening(Path(sys.argv[1]), peek=True)
from benchdeck.tui.app.app import BenchdeckApp
app = BenchdeckApp(Path(sys.argv[1]), opening)
seen = None
display = app._display

def shown(screen, renderable):
    global seen
    display(screen, renderable)
    if seen is None and renderable is not None and not app._batch_count:
        seen = dict(screen=type(screen).__name__, modes=sorted(app._screen_stacks),
                    loaded=sorted(m for m in {mods!r} if m in sys.modules), lists=lists(screen))

def lists(screen):
    # Launch's lists as shown: each one's values, and the workloads picked
    if type(screen).__name__ != "LaunchScreen":
        return {{}}
    shown = {{q: screen.query_one(q) for q in ("#launch-hosts", "#launch-builds", "#launch-workloads")}}
    found = {{q: [str(s.get_option_at_index(i).value) for i in range(s.option_count)]
             for q, s in shown.items()}}
    found["picked"] = sorted(shown["#launch-workloads"].selected)
    return found

app._display = shown

async def main():
    async with app.run_test() as pilot:
        while seen is None or not app._opened.done():
            await pilot.pause()
        seen["runs"] = app._opened.result()
        seen["mode"] = app.current_mode
        launch = app.screen
        for _ in range(5000):  # the inventory read after the first frame (a bad one: no lists)
            if launch.inv is not None:
                break
            await pilot.pause()
        seen["later"] = lists(launch)

asyncio.run(main())
print("SEEN", json.dumps(seen))
"""


@pytest.mark.parametrize("made", [True, False], ids=["no runs", "no store file"])
def test_a_store_without_runs_starts_on_launch_before_duckdb(tmp_path: Path, made: bool) -> None:
    """A newcomer's first start: Launch is the first screen made and shown (not Runs, left at
    once), its first frame loads neither DuckDB, the run side nor Runs' module; the store opens
    after it."""

    from benchdeck.store.storage.db import Store

    path = tmp_path / "s.duckdb"
    if made:
        Store.open(path).close()
    mods = (
        "duckdb",
        "benchdeck.store.storage.db",
        "benchdeck.store.storage.run_lists",  # Runs' page and its records
        "benchdeck.tui.startup.runs_page",
        "benchdeck.tui.app.screens.runs",
        *NOT_FOR_THE_FIRST_FRAME,
    )
    seen = empty_start(path, mods, no_inventory(tmp_path))
    assert (seen["screen"], seen["modes"]) == ("LaunchScreen", ["launch"]), "Runs was never made"
    assert seen["loaded"] == ["benchdeck.tui.app.screens.launch"], "only Launch itself"
    assert (seen["runs"], seen["mode"]) == (0, "launch")
    assert path.is_file(), "the store is made once Launch is shown"


def empty_start(path: Path, mods: tuple[str, ...], env: dict[str, str]) -> dict[str, Any]:
    import json

    r = subprocess.run(
        [sys.executable, "-c", EMPTY_PROBE.format(mods=mods), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    seen: dict[str, Any] = json.loads(r.stdout.rsplit("SEEN", 1)[1])
    return seen


def no_inventory(tmp_path: Path) -> dict[str, str]:
    """A newcomer's environment: config dirs of its own, no inventory file."""
    env = {k: v for k, v in os.environ.items() if k not in ("BENCHDECK_INVENTORY", "BENCHDECK_CONFIG")}
    return env | {"XDG_CONFIG_HOME": str(tmp_path / "config")}


def test_a_newcomers_launch_lists_what_to_pick_in_its_first_frame(tmp_path: Path) -> None:
    """No inventory file: the first frame lists the local host, the built-in builds and
    workloads, the quick three picked (a user can act on it at once); the inventory read after
    it changes nothing the user sees."""
    from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS, BUILTIN_WORKLOADS
    from benchdeck.tui.app.screens.launch_choices import QUICK

    seen = empty_start(tmp_path / "s.duckdb", (), no_inventory(tmp_path))
    first = seen["lists"]
    assert first["#launch-hosts"] == ["local"]
    assert first["#launch-builds"] == list(BUILTIN_BUILDS)
    assert first["#launch-workloads"] == list(BUILTIN_WORKLOADS)
    assert first["picked"] == sorted(QUICK)
    assert seen["later"] == first


def test_with_an_inventory_launch_lists_its_hosts_once_read(tmp_path: Path) -> None:
    """An inventory file: the first frame does not read it (its lists come after), and then
    they are the inventory's."""
    env = no_inventory(tmp_path)
    inventory = tmp_path / "config" / "benchdeck" / "benchdeck.toml"
    inventory.parent.mkdir(parents=True)
    inventory.write_text('[hosts.dell32]\nhostname = "dell32.example"\n')
    seen = empty_start(tmp_path / "s.duckdb", (), env)
    assert seen["lists"]["#launch-hosts"] == []
    assert seen["later"]["#launch-hosts"] == ["dell32"]


def test_a_base_remembered_for_another_store_is_dropped_without_duckdb(long_store: tuple[Path, int]) -> None:
    """Runs drops a remembered base this store does not have before its first frame: what it
    saves then is the settings' (it loaded DuckDB with the choices before: ~35 ms)."""
    from benchdeck.tui.app.state.settings import SavedComparison, UiSettings, save_ui_settings

    save_ui_settings(UiSettings(comparisons=(SavedComparison("elsewhere", None, "gone_rel", (), None),)))
    loaded = loaded_by_the_first_frame(long_store[0], ("duckdb", "benchdeck.tui.app.state.choices"))
    assert loaded == [], f"the app's start imported {loaded}"
