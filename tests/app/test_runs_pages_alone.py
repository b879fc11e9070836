"""RunsPages without the app: which runs are read, when the next page is asked for, End,
a page for rows replaced since, and the status line's count (real DuckDB store of 168 runs,
tests/app/conftest.py's ``store``; small page limits make several pages of it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import RunFilter, delete_run, run_history
from benchdeck.tui.app.screens.runs_pages import NEAR_END, ReadPage, RunsPages, read_first_pages
from tests.test_layering import PROBE, loaded_after

RUNS = 168


@pytest.fixture
def cur(store: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    with Store.open(store) as s:
        c = s.cursor()
        try:
            yield c
        finally:
            c.close()


def first(cur: duckdb.DuckDBPyConnection, f: RunFilter, down_to: int | None = None) -> RunsPages:
    pages = RunsPages()
    page = read_first_pages(cur, f, down_to)
    pages.replace(page.runs, page.total, f)
    return pages


def read_on(pages: RunsPages, cur: duckdb.DuckDBPyConnection) -> int:
    """Read pages as a cursor kept on the last row would, until none is asked for; how many."""
    n = 0
    while (asked := pages.next_page(shown=len(pages.rows), bottom=len(pages.rows))) is not None:
        reading = [pages.reading]
        assert pages.add(asked.read(cur)) is not None
        reading.append(pages.reading)
        assert reading == [True, False]
        pages.rows_in()
        n += 1
        assert n <= RUNS, "it never stops asking"
    return n


def ids(pages: RunsPages) -> list[int]:
    return list(pages.rows)


def test_the_pages_read_in_turn_are_the_history_in_order(cur: duckdb.DuckDBPyConnection) -> None:
    for f, n_pages in ((RunFilter(limit=50), 3), (RunFilter(host="host1", limit=10), 4)):
        whole = [r.run_id for r in run_history(cur, RunFilter(host=f.host, limit=10_000))]
        pages = first(cur, f)
        assert ids(pages) == whole[: f.limit]
        assert pages.total == len(whole) > len(pages.rows)
        assert pages.count_text() == f"{f.limit} of {len(whole)} shown — more load as you scroll"
        assert read_on(pages, cur) == n_pages
        assert ids(pages) == whole, f
        assert pages.all_read
        assert pages.count_text() == f"{len(whole)} runs"
        assert len(pages.page_times) == n_pages
        assert all(in_s >= read_s > 0 for read_s, in_s in pages.page_times)


def test_the_next_page_is_asked_for_near_the_end_one_at_a_time(cur: duckdb.DuckDBPyConnection) -> None:
    pages = first(cur, RunFilter(limit=120))
    assert pages.next_page(shown=120, bottom=120 - NEAR_END - 1) is None, "not near yet"
    assert pages.next_page(shown=119, bottom=120) is None, "rows still going in"
    asked = pages.next_page(shown=120, bottom=120 - NEAR_END)
    assert asked is not None
    assert (asked.after, asked.filter, asked.generation) == (
        RUNS - 119,
        RunFilter(limit=120),
        pages.generation,
    )
    assert pages.count_text() == f"120 of {RUNS} shown — reading more…"
    assert pages.next_page(shown=120, bottom=120) is None, "one page at a time"

    new = pages.add(asked.read(cur))
    assert new is not None
    assert [r.run_id for r in new] == list(range(RUNS - 120, 0, -1))
    assert pages.next_page(shown=RUNS, bottom=RUNS) is None, "every run read"
    assert pages.count_text() == f"{RUNS} runs"
    assert not RunsPages().next_page(shown=0, bottom=0), "nothing read: nothing to read on from"


def test_a_page_for_rows_replaced_since_is_dropped(cur: duckdb.DuckDBPyConnection) -> None:
    pages = first(cur, RunFilter(limit=50))
    asked = pages.next_page(shown=50, bottom=50)
    assert asked is not None
    other = RunFilter(host="host2", limit=20)  # another filter while the page was read
    page = read_first_pages(cur, other)
    pages.replace(page.runs, page.total, other)
    assert not pages.reading, "the page asked for is not wanted any more"
    assert pages.add(asked.read(cur)) is None
    assert ids(pages) == [r.run_id for r in page.runs]
    assert pages.page_times == []
    again = pages.next_page(shown=20, bottom=20)
    assert again is not None
    assert (again.filter, again.after) == (other, page.runs[-1].run_id)


def test_end_reads_every_page_left_then_says_go_there(cur: duckdb.DuckDBPyConnection) -> None:
    pages = first(cur, RunFilter(limit=50))
    pages.go_to_end()
    assert pages.count_text() == f"50 of {RUNS} shown — reading up to the last run…"
    arrived = []
    while (asked := pages.next_page(shown=len(pages.rows), bottom=0)) is not None:  # the cursor at the top
        pages.add(asked.read(cur))
        arrived.append(pages.rows_in())
    assert arrived == [False, False, True], "at the last page only"
    assert not pages.to_end
    assert pages.all_read
    assert not pages.rows_in(), "End is done"


def test_a_failed_read_stops_reading_on_until_asked_again(cur: duckdb.DuckDBPyConnection) -> None:
    pages = first(cur, RunFilter(limit=120))
    pages.go_to_end()
    assert pages.next_page(shown=120, bottom=0) is not None, "End: however far"
    pages.stopped()
    assert not pages.reading
    assert not pages.to_end
    assert pages.count_text() == f"120 of {RUNS} shown — more load as you scroll"
    assert pages.next_page(shown=120, bottom=0) is None, "End is off: only near the end now"
    assert pages.next_page(shown=120, bottom=120) is not None


def test_the_count_follows_the_store_and_a_run_is_read_once(cur: duckdb.DuckDBPyConnection) -> None:
    pages = first(cur, RunFilter(limit=50))
    for run_id in range(1, 11):  # runs deleted after the count was read
        assert delete_run(cur, run_id)
    read_on(pages, cur)
    assert pages.total == len(pages.rows) == RUNS - 10
    assert pages.count_text() == f"{RUNS - 10} runs"

    pages = first(cur, RunFilter(limit=50))
    asked = pages.next_page(shown=50, bottom=50)
    assert asked is not None
    again = pages.rows[asked.after]  # a page that holds a run read already
    fresh = asked.read(cur)
    new = pages.add(ReadPage(asked, [again, *fresh.runs], fresh.seconds))
    assert new == fresh.runs
    assert list(pages.rows) == list(range(RUNS, RUNS - 100, -1))


def test_a_reload_keeps_the_pages_read_for_the_same_filter(cur: duckdb.DuckDBPyConnection) -> None:
    f = RunFilter(limit=50)
    pages = first(cur, f)
    assert pages.reload_down_to(f) is None, "one page: the first page again"
    asked = pages.next_page(shown=50, bottom=50)
    assert asked is not None
    pages.add(asked.read(cur))
    assert pages.reload_down_to(RunFilter(host="host1", limit=50)) is None, "another filter"
    down_to = pages.reload_down_to(f)
    assert down_to == RUNS - 99
    reloaded = read_first_pages(cur, f, down_to)
    assert [r.run_id for r in reloaded.runs] == ids(pages)
    assert reloaded.total == RUNS
    everything = read_first_pages(cur, RunFilter(limit=50), down_to=1)
    assert len(everything.runs) == everything.total == RUNS


def test_the_pages_need_no_textual() -> None:
    assert loaded_after(PROBE, RunsPages.__module__, ("textual",)) == ""
