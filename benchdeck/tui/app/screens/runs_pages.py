"""The Runs screen's pages: which runs are read for the filter shown, and what to read next.

No Textual here. The screen shows :attr:`RunsPages.rows`, asks :meth:`RunsPages.next_page`
whether to read on as the cursor or the view moves, and runs the blocking reads
(:func:`read_first_pages`, :meth:`NextPage.read`) on its worker threads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchdeck.store.storage.run_lists import HistoryRow, RunFilter, run_history_after
from benchdeck.tui.startup.runs_page import RunsPage, read_runs_page

if TYPE_CHECKING:
    import duckdb

NEAR_END = 100  # the next page is read when the cursor or the view comes this close to the last row


def read_first_pages(cur: duckdb.DuckDBPyConnection, f: RunFilter, down_to: int | None = None) -> RunsPage:
    """The first page for ``f``; with ``down_to``, also every later run down to that one (a
    reload keeps the pages read so far, and the cursor's run among them). Blocking."""
    page = read_runs_page(cur, f)
    runs = page.runs
    if down_to is not None and len(runs) >= f.limit and all(r.run_id != down_to for r in runs):
        runs = runs + run_history_after(cur, f, runs[-1].run_id, down_to=down_to)
    return RunsPage(runs, page.hosts, page.builds, max(page.total, len(runs)), page.clusters)


@dataclass(frozen=True, slots=True)
class NextPage:
    """The page after run ``after`` for ``filter``, asked for by the rows of ``generation``."""

    filter: RunFilter
    after: int
    generation: int

    def read(self, cur: duckdb.DuckDBPyConnection) -> ReadPage:
        """Read it (keyset on the run id: the rows read stay as they are). Blocking."""
        start = time.perf_counter()
        runs = run_history_after(cur, self.filter, self.after)
        return ReadPage(self, runs, time.perf_counter() - start)


@dataclass(frozen=True, slots=True)
class ReadPage:
    """A page read for :class:`NextPage` ``asked``, and how long the store took."""

    asked: NextPage
    runs: list[HistoryRow] = field(repr=False)
    seconds: float


class RunsPages:
    """The runs read for one filter, newest first: a first page, then a page at a time after
    the last run read (the keyset cursor), or every page left once End asked for the last run.

    :attr:`generation` changes whenever the rows are replaced (a load, a reload, another
    filter); a page asked for by an earlier generation is dropped when it arrives. At most one
    page is read at a time (:attr:`reading`).
    """

    def __init__(self) -> None:
        self.rows: dict[int, HistoryRow] = {}
        """The runs read, by run id, in the store's order (newest first)."""
        self.total = 0
        """Runs matching :attr:`filter`, read or not (counted with the first page)."""
        self.filter = RunFilter()
        """What the rows were read with."""
        self.generation = 0
        self.reading = False
        """A page is being read."""
        self.to_end = False
        """End asked for the last run: read pages until it is read."""
        self.page_times: list[tuple[float, float]] = []
        """Per page read after the first: seconds in the store, seconds until its rows were in."""
        self._page_started = 0.0

    @property
    def all_read(self) -> bool:
        return len(self.rows) >= self.total

    def replace(self, runs: list[HistoryRow], total: int, f: RunFilter) -> None:
        """New rows, read with ``f``: a page being read, or End's reading on, is not wanted now."""
        self.generation += 1
        self.filter = f
        self.rows = {r.run_id: r for r in runs}
        self.total = total
        self.reading = self.to_end = False
        self._page_started = 0.0

    def reload_down_to(self, f: RunFilter) -> int | None:
        """Down to which run a reload for ``f`` reads, to keep the pages read now (None: the
        first page only, as after another filter)."""
        if len(self.rows) > self.filter.limit and f == self.filter:
            return next(reversed(self.rows))
        return None

    def next_page(self, shown: int, bottom: int) -> NextPage | None:
        """The page to read now, if any (then :attr:`reading`): when the lowest row the cursor
        or the view reaches (``bottom``) is within :data:`NEAR_END` of the last run read, or End
        asked for the last run. None while a page is being read, while rows read are still going
        in (``shown`` of them are), or once every run is read."""
        read = len(self.rows)
        if self.reading or self.all_read or shown < read or not read:
            return None
        if not self.to_end and read - bottom > NEAR_END:
            return None
        self.reading = True
        self._page_started = time.perf_counter()
        return NextPage(self.filter, next(reversed(self.rows)), self.generation)

    def add(self, page: ReadPage) -> list[HistoryRow] | None:
        """The runs of ``page`` not read yet, now read; None if the rows it continues were
        replaced since (it is dropped)."""
        if page.asked.generation != self.generation:
            return None
        self.reading = False
        self.page_times.append((page.seconds, 0.0))
        new = [r for r in page.runs if r.run_id not in self.rows]
        self.rows.update((r.run_id, r) for r in new)
        # the count was read with the first page; the store may have changed since
        read = len(self.rows)
        self.total = read if len(page.runs) < page.asked.filter.limit else max(self.total, read)
        return new

    def stopped(self) -> None:
        """The page being read failed or was cancelled: none is read until asked again."""
        self.reading = self.to_end = False
        self._page_started = 0.0

    def go_to_end(self) -> None:
        """End: read every page left (:meth:`next_page` asks for them one after the other)."""
        self.to_end = True

    def rows_in(self) -> bool:
        """Every run read is shown now: the last page's time is taken. True if End's last run
        is read (go there; End is done)."""
        if self._page_started and self.page_times:
            self.page_times[-1] = (self.page_times[-1][0], time.perf_counter() - self._page_started)
            self._page_started = 0.0
        if self.to_end and self.all_read:
            self.to_end = False
            return True
        return False

    def count_text(self) -> str:
        """The status line's count: how many runs are read of how many, and whether more come."""
        read = len(self.rows)
        if read >= self.total:
            return f"{read:,} runs"
        if self.to_end:
            more = "reading up to the last run…"
        elif self.reading:
            more = "reading more…"
        else:
            more = "more load as you scroll"
        return f"{read:,} of {self.total:,} shown — {more}"
