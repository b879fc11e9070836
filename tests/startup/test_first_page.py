"""The first page of Runs a start keeps for the next: shown only while the store file and its
WAL are exactly as they were when it was read, and replaced by the store's own page if that
differs (real DuckDB store, real files)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import DataTable

from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from benchdeck.tui.startup import first_page
from benchdeck.tui.startup.runs_page import RunsPage
from benchdeck.tui.startup.store_handle import Opening
from tests.app.helpers import column_texts, settle
from tests.startup.test_startup import NOT_FOR_THE_FIRST_FRAME, loaded_by_the_first_frame

SIZE = (100, 30)


def read(path: Path) -> RunsPage:
    """What a start reads (and keeps), the store closed again after it."""
    opening = Opening(path)
    opening.opened.result(timeout=60)
    opening.store.close()
    page = opening.take_first_runs()
    assert page is not None
    return page


def test_a_start_keeps_the_page_it_read_for_the_next(store: Path) -> None:
    assert first_page.load(store) is None
    page = read(store)
    assert first_page.load(store) == (168, page), "kept as read: the same rows, field for field"
    assert page.runs[0].run_id == 168
    second = Opening(store)
    assert second.kept == page
    assert not second.started, "the store opens only once the kept page is shown"
    assert second.take_first_runs() == page


def test_no_page_is_kept_for_a_store_written_since(store: Path) -> None:
    read(store)
    assert first_page.load(store) is not None
    with Store.open(store) as s:  # a run tagged: the WAL appears (then the checkpoint rewrites)
        s.cursor().execute("UPDATE runs SET tags = ['x'] WHERE run_id = 1")
    assert first_page.load(store) is None
    assert Opening(store).kept is None


def test_a_store_written_while_it_was_read_or_just_before_is_not_kept(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = read(store)
    before = first_page.identity(store)
    with Store.open(store) as s:
        s.cursor().execute("UPDATE runs SET tags = ['x'] WHERE run_id = 1")
    assert not first_page.save(store, before, 168, page), "changed while it was read"
    monkeypatch.setattr(first_page, "QUIET_S", 3600.0)
    assert not first_page.save(store, first_page.identity(store), 168, page), "written just before"


async def test_the_stores_own_page_replaces_a_kept_one_that_differs(store: Path) -> None:
    """A kept page that is not the store's (it cannot happen with the file unchanged, so this
    test writes one) is shown in the first frame and replaced once the store has opened."""
    page = read(store)
    doctored = RunsPage([replace(page.runs[0], workload="not-in-the-store"), *page.runs[1:]], *_rest(page))
    assert first_page.save(store, first_page.identity(store), 168, doctored)
    app = BenchdeckApp(store)
    first: list[str] = []
    display = app._display

    def shown(screen: Screen[Any], renderable: Any) -> None:
        display(screen, renderable)
        if not first and renderable is not None and isinstance(screen, RunsScreen) and screen.rows:
            first.extend(column_texts(screen.query_one(DataTable), 3)[:1])

    app._display = shown  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert first == ["not-in-the-store"], "the kept page is the first frame's"
        app._opened.result(timeout=60)
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        assert column_texts(table, 3)[0] == page.runs[0].workload
        assert table.row_count == 168
        assert app.sub_title == app.store.label != ""


def _rest(page: RunsPage) -> tuple[list[str], list[str], int]:
    return page.hosts, page.builds, page.total


def test_with_a_kept_page_the_first_frame_does_not_load_duckdb(store: Path) -> None:
    read(store)
    assert first_page.load(store) is not None
    mods = (*NOT_FOR_THE_FIRST_FRAME, "duckdb", "benchdeck.store.storage.db")
    loaded = loaded_by_the_first_frame(store, mods)
    assert loaded == [], f"the app's start imported {loaded}"


def test_a_cache_that_is_not_ours_is_ignored(store: Path) -> None:
    read(store)
    kept = first_page._cache_file(store)
    kept.write_text('{"format": 1, "store": "elsewhere"}', encoding="utf-8")
    assert first_page.load(store) is None
    kept.write_text("not json", encoding="utf-8")
    assert first_page.load(store) is None
    assert Opening(store).kept is None


async def test_a_store_that_fails_to_open_after_a_kept_page_says_so(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fake failure (the file is as it was, so opening it fails only in ways this machine
    cannot make happen on cue): the kept rows were shown, and the error is told all the same."""
    from benchdeck.store.storage.db import StoreError
    from benchdeck.tui.startup.store_handle import StoreHandle

    read(store)

    def fail(self: StoreHandle) -> Store:
        raise StoreError(f"store {store} is damaged (test)")

    monkeypatch.setattr(StoreHandle, "get", fail)
    app = BenchdeckApp(store)
    async with app.run_test(size=SIZE) as pilot:
        assert app.first_runs_kept
        await settle(pilot)
        with pytest.raises(StoreError):
            app._opened.result(timeout=60)
        await settle(pilot)
        assert [n.message for n in app._notifications] == [f"store {store} is damaged (test)"]


async def test_a_first_starts_store_is_kept_as_no_runs_once_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer's first start makes the store; "no runs" is kept once the store has been
    quiet (first_page.QUIET_S, shortened here), so the second start opens on Launch at once,
    without a peek child waiting for DuckDB, as the first did."""
    import time

    monkeypatch.setattr(first_page, "QUIET_S", 0.3)
    path = tmp_path / "new.duckdb"
    app = BenchdeckApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.current_mode == "launch"
        assert app._opened.result(timeout=60) == 0
        deadline = time.monotonic() + 30
        while first_page.load(path) is None:  # the timer, then the worker: polled, not slept
            assert time.monotonic() < deadline, "no runs never kept"
            await pilot.pause(0.05)
    assert first_page.load(path) == (0, None)
    second = Opening(path, peek=True)
    assert second.empty
    assert second.decided.done()
    assert not second.started
    assert second._peek is None, "no child to wait for"


def test_a_page_not_kept_for_a_store_written_just_before_is_kept_later(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is kept later is read again then: a store written in between keeps its new page,
    never the one read before."""
    monkeypatch.setattr(first_page, "QUIET_S", 3600.0)  # "written just before" the opening
    opening = Opening(store)
    opening.opened.result(timeout=60)
    assert opening.keep_later
    assert first_page.load(store) is None
    assert not opening.keep_again(), "still not quiet"
    with Store.open(store) as s:  # another process tags a run meanwhile
        s.cursor().execute("UPDATE runs SET tags = ['x'] WHERE run_id = 168")
    monkeypatch.setattr(first_page, "QUIET_S", 0.0)
    try:
        assert opening.keep_again()
    finally:
        opening.store.close()
    kept = first_page.load(store)
    assert kept is not None
    assert kept[0] == 168
    assert kept[1] is not None
    assert kept[1].runs[0].run_id == 168
    assert kept[1].runs[0].tags == ("x",)
    assert not opening.keep_later
