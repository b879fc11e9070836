"""Benchmark: what the Counters table adds to ``compare``, beside compare without it in the same
run (``counters=False``, interleaved).

How it measures, its targets and its history: docs/performance.md (bench_counters.py).

    python bench/bench_counters.py [--builds 10] [--hosts 1] [--repeat 21]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from benchdeck.engine.catalogue import default_catalogue
from benchdeck.store.analysis.compare import compare
from benchdeck.store.storage.db import Store
from tests.fixtures.big_store import build_store

EVENTS = ("cycles", "instructions", "branches", "branch-misses", "cache-references", "cache-misses")
WINDOWS = 6


def add_counters(path: Path) -> int:
    """Six windows a run, the events above plus bus-cycles not supported; returns the values."""
    with Store.open(path) as store, store.transaction() as cur:
        cur.execute(
            "INSERT INTO counter_windows (run_id, window_no, start_s, seconds, target, source) "
            "SELECT run_id, w, 10.0 * (w - 1), 10.0, 'pid 1', 'bench' FROM runs, range(1, ? + 1) t(w)",
            [WINDOWS],
        )
        events = ", ".join(f"('{e}', {i + 1})" for i, e in enumerate(EVENTS))
        cur.execute(
            "INSERT INTO counter_values (run_id, window_no, event, value, unit, running_pct, status) "
            "SELECT c.run_id, c.window_no, e.name, 1e6 * e.k * (1 + c.run_id % 7), '', NULL, 'counted' "
            f"FROM counter_windows c, (VALUES {events}) e(name, k)"
        )
        cur.execute(
            "INSERT INTO counter_values (run_id, window_no, event, value, unit, running_pct, status) "
            "SELECT run_id, window_no, 'bus-cycles', NULL, '', NULL, 'not supported' FROM counter_windows"
        )
        (n,) = cur.execute("SELECT count(*) FROM counter_values").fetchone() or (0,)
    return int(n)


def timed(path: Path, repeat: int) -> tuple[str, str, int]:
    """Medians of compare without and with counters, interleaved (wall / CPU ms: under load
    the CPU figure is the steadier); counter rows."""
    cat = default_catalogue()
    rows = 0
    off: list[tuple[float, float]] = []
    on: list[tuple[float, float]] = []
    with Store.open_for_reading(path) as store:
        cur = store.cursor()
        for _ in range(repeat):
            for flag, out in ((False, off), (True, on)):
                t0, c0 = time.perf_counter(), time.process_time()
                cmp = compare(
                    cur,
                    host="host0",
                    base="my8000_rel_o2nofp",
                    with_builds=["my8001_rel_o2nofp", "my8002_rel_o2nofp"],
                    group_of=cat.group_of,
                    sort_key=cat.sort_key,
                    intervals=False,
                    counters=flag,
                )
                out.append((time.perf_counter() - t0, time.process_time() - c0))
                rows = max(rows, len(cmp.counters))
    return _medians(off), _medians(on), rows


def _medians(times: list[tuple[float, float]]) -> tuple[float, float]:
    """Median wall and CPU milliseconds."""
    return statistics.median(w for w, _ in times) * 1e3, statistics.median(c for _, c in times) * 1e3


def _ms(times: tuple[float, float]) -> str:
    return f"{times[0]:.1f} / {times[1]:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builds", type=int, default=10)
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=21)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        runs = build_store(path, args.hosts, args.builds)
        off0, on0, _ = timed(path, args.repeat)
        print(f"{runs} runs, no counter windows: compare {_ms(off0)}, with the check {_ms(on0)} (wall / CPU)")
        values = add_counters(path)
        off, on, rows = timed(path, args.repeat)
        print(
            f"{runs * WINDOWS} windows, {values} values: compare without counters {_ms(off)}, "
            f"with {_ms(on)} ({rows} counter rows; medians of {args.repeat}, interleaved)"
        )
    record(
        "bench_counters",
        [
            Figure(
                f"compare with counters, {runs} runs, {rows} counter rows, CPU",
                on[1],
                "ms",
                off[1],
                "without the Counters table",
                "< 100 ms",
                on[1] < 100,
            ),
            Figure(
                "compare, a store without counter windows, CPU", on0[1], "ms", off0[1], "without the check"
            ),
        ],
        args,
    )


if __name__ == "__main__":
    main()
