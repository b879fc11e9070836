"""Benchmark: the Runs screen's pages after the first, on a 10,000-run store.

How it measures, its targets and its history: docs/performance.md (bench_runs_pages.py).

    python bench/bench_runs_pages.py [--builds 60] [--hosts 4] [--reps 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import RunFilter, run_history, run_history_after
from tests.fixtures.big_store import build_store


def store_pages(db: Path, f: RunFilter) -> list[float]:
    """Seconds per page after the first, reading to the end."""
    times = []
    with Store.open(db) as store:
        cur = store.cursor()
        last = run_history(cur, f)[-1].run_id
        while True:
            t0 = time.perf_counter()
            page = run_history_after(cur, f, last)
            times.append(time.perf_counter() - t0)
            if len(page) < f.limit:
                return times
            last = page[-1].run_id


async def app_end(db: Path) -> tuple[list[tuple[float, float]], float, int]:
    """End pressed once the first page is in: per page (read s, rows in s), seconds to the
    last run, rows in the table."""
    from benchdeck.tui.app.app import BenchdeckApp
    from benchdeck.tui.app.screens.runs import RunsScreen, RunsTable

    app = BenchdeckApp(db)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(5):
            await pilot.pause()
            await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        table = screen.query_one(RunsTable)
        t0 = time.perf_counter()
        await pilot.press("end")
        while screen._to_end or table.row_count < len(screen.rows):
            await pilot.pause()
        took = time.perf_counter() - t0
        run = screen.selected
        assert run is not None
        assert run.run_id == 1, "End went to the last run"
        return list(screen.page_times), took, table.row_count


def ms(xs: list[float]) -> str:
    return f"median {statistics.median(xs) * 1000:6.1f} ms, max {max(xs) * 1000:6.1f} ms ({len(xs)} pages)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--builds", type=int, default=60)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3, help="app repetitions")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bd-bench-pages-") as tmp:
        os.environ["BENCHDECK_CACHE_DIR"] = str(Path(tmp) / "cache")
        db = Path(tmp) / "runs.duckdb"
        n = build_store(db, args.hosts, args.builds)
        print(f"store: {n:,} runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print("1. store, a page of 1,000 after the first (run_history_after):")
        reads = store_pages(db, RunFilter())
        print(f"   unfiltered           {ms(reads)}")
        print(f"   workload ~ 'point'   {ms(store_pages(db, RunFilter(workload='point')))}")
        print("2. app (headless 100x30), End from the first page:")
        ends = []
        for rep in range(args.reps):
            pages, took, rows = asyncio.run(app_end(db))
            ends.append(took)
            print(
                f"   rep {rep + 1}: {rows:,} rows, last run after {took:.2f} s; per page read "
                f"{ms([p[0] for p in pages])}; until its rows were in {ms([p[1] for p in pages])}"
            )
    what = f"Runs: End on {n:,} runs, to the last run"
    record(
        "bench_runs_pages",
        [Figure(what, statistics.median(ends), "s", sum(reads), "the store's reads alone")],
        args,
    )


if __name__ == "__main__":
    main()
