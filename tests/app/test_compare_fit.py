"""Compare at small sizes and with little to choose from: names are never cut into other names,
keys that cannot change anything say why, ``b`` on a column swaps it with the base."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from benchdeck.engine.catalogue import CLASSIC_42
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.compare import CompareScreen
from benchdeck.tui.app.screens.dialogs import PickDialog
from benchdeck.tui.app.screens.multi_pick import MultiPickDialog
from benchdeck.tui.app.state.selection import Selection
from tests.app.helpers import column_texts, on_screen, settle
from tests.app.storedata import BASE, CONFIG, DOP, HOST, LTO, NEW, Demo
from tests.app.test_compare import open_compare
from tests.fixtures.big_store import build_store

BUILDS = [f"my80{i:02d}_rel_o2nofp" for i in range(8)]  # build_store's names
NAMES = {w for w, _ in CLASSIC_42}


def visible_names(table: DataTable[object]) -> list[str]:
    """The workload cells as the screen shows them (the view's right edge included)."""
    columns = list(table.columns.values())
    at = next(i for i, c in enumerate(columns) if str(c.label) == "workload")
    start = sum(c.get_render_width(table) for c in columns[:at])
    lines = [table.render_line(y).text for y in range(1, table.scrollable_content_region.height)]
    return [line[start:].split()[0] for line in lines if line[start:].strip()]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_seven_columns_never_cut_a_name_into_another(tmp_path: Path, size: tuple[int, int]) -> None:
    db = tmp_path / "s.duckdb"
    build_store(db, n_hosts=1, n_builds=8)
    app = BenchdeckApp(db)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection("host0", BUILDS[0], tuple(BUILDS[1:])))
        table = on_screen(app, CompareScreen).query_one("#compare-rqps", DataTable)
        assert len(column_texts(table, 0)) == len(CLASSIC_42)
        shown = visible_names(table)
        assert len(shown) >= 10
        cut = [n for n in shown if n not in NAMES and not n.endswith("…")]
        assert not cut, f"names cut without an ellipsis: {cut}"
        if size == (120, 36):
            assert "range-notcovered-pk_range=100" in shown, "wide enough: names whole"


async def test_b_on_a_column_swaps_it_with_the_base(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        before = column_texts(on_screen(app, CompareScreen).query_one("#compare-rqps", DataTable), 0)
        await pilot.press("b")
        dialog = app.screen
        values = [v for _, v in dialog.choices]  # type: ignore[attr-defined]
        for _ in range(values.index(NEW) - values.index(BASE)):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        assert (app.selection.base, app.selection.with_builds) == (NEW, (BASE,))
        after = column_texts(on_screen(app, CompareScreen).query_one("#compare-rqps", DataTable), 0)
        assert after[0] == f"{1 / float(before[0]):.2f}", "the inverse ratio, not an empty comparison"


async def test_keys_with_one_choice_say_so(demo: Demo) -> None:
    """The demo store: one config and one dop on dell32; ``c`` and ``o`` say so (they did nothing)."""
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        await pilot.press("c", "o")
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert any("Only one config (z11a_c32r128)" in m for m in said), said
        assert any("Only one dop (24)" in m for m in said), said
        assert isinstance(app.screen, CompareScreen), "no dialog with one choice"


async def test_columns_dialog_names_the_default_config(tmp_path: Path) -> None:
    """After one ``--config serial`` run the unnamed config is ``default`` in the dialog, its
    presets and the config picker (it read "config  (9 runs)" and "every build (no config named)")."""
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.store.storage.db import Store
    from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status

    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        for build, config in (("sqlite", ""), ("sqlite-sync", ""), ("sqlite", "serial"), (NEW, "")):
            with store.transaction() as cur:
                b = (
                    parse_build_name(build, dbms="sqlite", version="3")
                    if "sqlite" in build
                    else parse_build_name(build)
                )
                new = NewRun("local", b, "insert_range=100", "t", threads=1, config=config)
                rid = create_run(cur, new)
                save_summary(cur, rid, RunSummary(qps=100.0))
                set_status(cur, rid, "finished")
    app = BenchdeckApp(db)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection("local", "sqlite", ("sqlite-sync",), config=""))
        await pilot.press("a")
        dialog = on_screen(app, MultiPickDialog)
        assert dialog.presets[0][0] == "every build of config default"
        assert dialog.presets[1][0] == "every version of sqlite, config default", dialog.presets
        labels = [label for label, _ in dialog.choices]
        assert "sqlite-sync  config default  (1 runs)" in labels, labels
        assert "sqlite  config serial  (1 runs)" in labels, labels
        await pilot.press("escape")
        await pilot.press("c")
        picker = on_screen(app, PickDialog)
        assert [label for label, _ in picker.choices] == ["default", "serial"]


async def test_export_offers_json_into_the_export_directory(
    demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default path was in the directory the app was started from; json was missing."""
    import json

    from textual.widgets import Input

    from benchdeck.store.reports.compare_report import render
    from benchdeck.tui.app.screens.dialogs import ExportDialog
    from benchdeck.tui.app.state.settings import EXPORT_DIR_ENV

    exports = tmp_path / "exports"
    monkeypatch.setenv(EXPORT_DIR_ENV, str(exports))
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        cmp = on_screen(app, CompareScreen).cmp
        assert cmp is not None
        await pilot.press("e")
        dialog = on_screen(app, ExportDialog)
        first = Path(dialog.query_one("#export-path", Input).value)
        assert first.parent == exports
        assert first.name == f"benchdeck-compare-{HOST}-{BASE}-vs-{NEW}-{CONFIG}-dop{DOP}.md"
        await pilot.click("#export-json")
        path_input = dialog.query_one("#export-path", Input)
        assert path_input.value.endswith(".json")
        path_input.value = "mine/report.json"  # relative: from the export directory
        path_input.focus()
        await pilot.press("enter")
        await settle(pilot)
    written = exports / "mine" / "report.json"
    assert written.read_text() == render(cmp, "json")
    assert json.loads(written.read_text())["base"]["build"] == BASE
    assert not (Path.cwd() / "mine").exists()


async def test_export_names_its_columns(demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default file was named after the host and the base only: a second export against the
    same base overwrote the first."""
    from textual.widgets import Input

    from benchdeck.tui.app.screens.dialogs import ExportDialog
    from benchdeck.tui.app.state.settings import EXPORT_DIR_ENV

    monkeypatch.setenv(EXPORT_DIR_ENV, str(tmp_path))
    app = BenchdeckApp(demo.path)
    names = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_compare(app, pilot, Selection(HOST, BASE, (NEW,)))
        for columns in ((NEW,), (LTO,), (NEW, LTO)):
            on_screen(app, CompareScreen).select(Selection(HOST, BASE, columns))
            await settle(pilot)
            await pilot.press("e")
            names.append(Path(on_screen(app, ExportDialog).query_one("#export-path", Input).value).name)
            await pilot.press("escape")
            await settle(pilot)
    assert names == [
        f"benchdeck-compare-{HOST}-{BASE}-vs-{NEW}-{CONFIG}-dop{DOP}.md",
        f"benchdeck-compare-{HOST}-{BASE}-vs-{LTO}-{CONFIG}-dop{DOP}.md",
        f"benchdeck-compare-{HOST}-{BASE}-vs-{NEW}-{LTO}-{CONFIG}-dop{DOP}.md",
    ]
